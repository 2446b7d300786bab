# shellcheck shell=sh
# Helpers for the guest tests: TAP result lines the host counts,
# NIC counters, sockperf runs. Sourced by tests/guest/run.

# shellcheck disable=SC2034 # used by the t*.sh tests
LL_SYSCTL=/proc/sys/net/ipv4/ip_low_latency_poll
LL_SELECT_SYSCTL=/proc/sys/net/ipv4/ip_low_latency_select
SERVER_ADDR=198.18.0.2
# shellcheck disable=SC2034
CLIENT_ADDR=198.18.0.1
PROBE=${PROBE:-/out/llpoll-probe}
TRAFFIC=${TRAFFIC:-/out/llpoll-traffic}
# the DKMS package's version (dkms.conf is its home)
# shellcheck disable=SC2034
LLPOLL_VERSION=$(make -s --no-print-directory -C /llpoll version)

# Results are TAP 13 ("ok N - ...", "not ok N - ...", "ok N - ... # SKIP"),
# numbered through a counter file so that checks in subshells count too;
# a runner opens the stream with tap_start and closes it with tap_plan.
TAP_COUNTER=/tmp/llpoll-tap-count
tap_start() {
	echo 0 >"$TAP_COUNTER"
	echo "TAP version 13"
}
tap_plan() { echo "1..$(cat "$TAP_COUNTER" 2>/dev/null || echo 0)"; }
tap_line() { # STATUS DESCRIPTION
	tap_n=$(($(cat "$TAP_COUNTER" 2>/dev/null || echo 0) + 1))
	echo "$tap_n" >"$TAP_COUNTER"
	echo "$1 $tap_n - $2"
}
ok() { tap_line ok "$*"; }
not_ok() { tap_line "not ok" "$*"; }
# check NAME CMD...: one result line from a command's status
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
skip() { tap_line ok "$* # SKIP"; }

# in_ns NS CMD...: CMD in network namespace NS ("" for the initial one)
in_ns() {
	in_n=$1
	shift
	if [ -n "$in_n" ]; then ip netns exec "$in_n" "$@"; else "$@"; fi
}
# sum of the ethtool -S counters of IFACE (in NETNS, "" for init) whose
# name matches the awk regex RE
nic_sum() {
	in_ns "$1" ethtool -S "$2" | awk -v re="$3" '$1 ~ re { s += $2 } END { print s + 0 }'
}
# all ll counters of both NICs
ll_total() {
	echo $(($(nic_sum "" eth0 '^(rx|tx)_q_[0-9]+_(ll_poll_yield|misses|cleaned|napi_yield):$') +
		$(nic_sum peer eth1 '^(rx|tx)_q_[0-9]+_(ll_poll_yield|misses|cleaned|napi_yield):$')))
}
# packets both NICs received (eth0, and eth1 in peer)
rx_packets() {
	echo $(($(nic_sum "" eth0 '^rx_queue_[0-9]+_packets:$') + $(nic_sum peer eth1 '^rx_queue_[0-9]+_packets:$')))
}
# handbacks irq|timer: interrupt hand-backs of both NICs' queues
handbacks() {
	echo $(($(nic_sum "" eth0 "^rx_q_[0-9]+_$1_handback:\$") + $(nic_sum peer eth1 "^rx_q_[0-9]+_$1_handback:\$")))
}
# what pollers cleaned from eth1's queues (in peer)
peer_cleaned() { nic_sum peer eth1 '^rx_q_[0-9]+_cleaned:$'; }
ll_cleaned() {
	echo $(($(nic_sum "" eth0 '^rx_q_[0-9]+_cleaned:$') + $(nic_sum peer eth1 '^rx_q_[0-9]+_cleaned:$')))
}
# proc_counter FILE SECTION NAME [NS]: one counter of /proc/net/snmp or
# /proc/net/netstat, where each SECTION is a line of names, then of values
proc_counter() {
	in_ns "${4:-}" cat "$1" | awk -v s="$2:" -v k="$3" '$1 == s {
		if (!h) { for (i = 1; i <= NF; i++) n[i] = $i; h = 1 }
		else for (i = 1; i <= NF; i++) if (n[i] == k) print $i }'
}
# wait_oper_up NS IFACE: until IFACE in NS reports operstate up (10 s at most)
wait_oper_up() {
	wo_i=0
	until [ "$(in_ns "$1" cat "/sys/class/net/$2/operstate")" = up ]; do
		wo_i=$((wo_i + 1))
		[ $wo_i -lt 100 ] || return 1
		sleep 0.1
	done
}
# interrupts of IFACE's RX queue vectors: IFACE-rx-N, or IFACE-TxRx-N
# when igb pairs queues on a vector
irq_count() {
	awk -v rx="$1-rx-" -v txrx="$1-TxRx-" 'index($NF, rx) == 1 || index($NF, txrx) == 1 {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts
}

# sockperf_pingpong PROTO SIZE SECONDS OUTFILE [CLIENT-OPTION...]: server
# in netns peer on CPU 1, client in the init namespace on CPU 0, blocking
# recvfrom at both. With options (-F p: poll()) the client takes the
# server's address from its feed file, as sockperf wants with -F.
# SOCKPERF_IOMUX (p, s, e): both ends wait with poll(), select() or epoll;
# SOCKPERF_ARGS: more options for both ends (--lls USEC);
# SOCKPERF_PRELOAD: a library both ends load (LD_PRELOAD).
sockperf_pingpong() {
	# sh has no locals: sp_* names stay clear of the callers' variables
	sp_proto=$1 sp_size=$2 sp_secs=$3 sp_out=$4
	shift 4
	sp_feed=/tmp/feed.$$
	case $sp_proto in
	udp) echo "U:$SERVER_ADDR:11111" >"$sp_feed"; sp_tcp="" ;;
	tcp) echo "T:$SERVER_ADDR:11111" >"$sp_feed"; sp_tcp=--tcp ;;
	esac
	sp_env=""
	[ -z "${SOCKPERF_PRELOAD:-}" ] || sp_env="env LD_PRELOAD=$SOCKPERF_PRELOAD"
	sp_mux=${SOCKPERF_IOMUX:-}
	[ -z "$sp_mux" ] || set -- -F "$sp_mux" "$@"
	# shellcheck disable=SC2086 # $sp_env, $sp_tcp and SOCKPERF_ARGS are empty or words
	ip netns exec peer taskset -c 1 $sp_env sockperf server -f "$sp_feed" -F "${sp_mux:-r}" \
		${SOCKPERF_ARGS:-} >/tmp/sockperf-server.log 2>&1 &
	sp_pid=$!
	sleep 1
	if [ $# -gt 0 ]; then
		# shellcheck disable=SC2086
		taskset -c 0 $sp_env sockperf ping-pong -f "$sp_feed" -m "$sp_size" -t "$sp_secs" \
			${SOCKPERF_ARGS:-} "$@" >"$sp_out" 2>&1
	else
		# shellcheck disable=SC2086
		taskset -c 0 $sp_env sockperf ping-pong -i "$SERVER_ADDR" -p 11111 $sp_tcp -m "$sp_size" -t "$sp_secs" \
			${SOCKPERF_ARGS:-} >"$sp_out" 2>&1
	fi
	sp_rc=$?
	kill "$sp_pid" 2>/dev/null
	wait "$sp_pid" 2>/dev/null
	rm -f "$sp_feed"
	return $sp_rc
}
# sockperf_clean OUTFILE: completed, messages received, none lost
sockperf_clean() {
	grep -q 'ReceivedMessages=[1-9]' "$1" &&
		grep -q '# dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0' "$1"
}
sockperf_msgs() { # OUTFILE: round trips in the measured part of the run
	sed -n 's/.*\[Valid Duration\].*ReceivedMessages=\([0-9]*\).*/\1/p' "$1"
}
sockperf_pct() { # OUTFILE PERCENTILE (50.000, 99.000)
	awk -v p="$2" '$0 ~ "percentile " p " =" { print $NF }' "$1"
}

# use_driver fork|intree: reload igb as our DKMS fork or as the in-tree
# module (insmod by path, same boot), then set the network up again
use_driver() {
	ud_intree=$(find "/lib/modules/$(uname -r)/kernel" -name 'igb.ko*' | head -n 1)
	rmmod igb 2>/dev/null
	ip netns del peer 2>/dev/null
	case $1 in
	fork) modprobe igb ;;
	intree) [ -n "$ud_intree" ] && insmod "$ud_intree" ;;
	*) false ;;
	esac || return 1
	/llpoll/vm/guest/net-setup
}
# driver_is fork|intree: the loaded igb is that one (the fork has ll counters)
driver_is() {
	if ethtool -S eth0 | grep -q ll_poll_yield; then [ "$1" = fork ]; else [ "$1" = intree ]; fi
}
# squeeze: time_squeeze of all CPUs, /proc/net/softnet_stat's third column (hex)
squeeze() {
	sq_sum=0
	while read -r _ _ sq_hex _; do sq_sum=$((sq_sum + 0x$sq_hex)); done </proc/net/softnet_stat
	echo $sq_sum
}
# ll passes on eth0's queues: every ndo_ll_poll() pass counts once
ll_passes() { nic_sum "" eth0 '^rx_q_[0-9]+_(ll_poll_yield|misses|cleaned):$'; }

# probe_case MODE SYSCTL ARGS...: a probe on eth0 that first takes
# datagrams from peer; the sysctl is switched only for the measured call.
probe_case() {
	mode=$1 val=$2
	shift 2
	sync=/tmp/probe-sync
	rm -rf "$sync"
	mkdir -p "$sync"
	LLPOLL_SYNC_DIR=$sync "$PROBE" "$mode" "$CLIENT_ADDR" 12000 "$@" >/tmp/probe.out 2>&1 &
	ppid=$!
	sleep 0.3
	ip netns exec peer "$PROBE" send "$CLIENT_ADDR" 12000 5
	i=0
	while [ ! -e "$sync/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	echo "$val" >"$LL_SYSCTL"
	p0=$(ll_passes)
	touch "$sync/go"
	wait "$ppid"
	echo 0 >"$LL_SYSCTL"
	probe_passes=$(($(ll_passes) - p0))
	probe_out=$(cat /tmp/probe.out)
	echo "# probe $mode: $probe_out (ll passes: $probe_passes)"
}
