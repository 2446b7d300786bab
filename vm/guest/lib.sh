# shellcheck shell=sh
# Guest-side helpers shared by the tests (tests/guest/lib.sh) and the
# bench (bench/guest-*): the two NICs and their counters, waiting, sockperf
# runs and the one reader of sockperf's output, switching igb drivers.

# shellcheck disable=SC2034 # used by the scripts that source this
LL_SYSCTL=/proc/sys/net/ipv4/ip_low_latency_poll
# shellcheck disable=SC2034
LL_SELECT_SYSCTL=/proc/sys/net/ipv4/ip_low_latency_select
# shellcheck disable=SC2034
LL_ADAPTIVE_SYSCTL=/proc/sys/net/ipv4/ip_low_latency_adaptive
# the forked igb's hold: how long a queue's interrupt stays off after its
# last poller leaves with data (absent with the in-tree igb loaded)
# shellcheck disable=SC2034
LL_HOLD_PARAM=/sys/module/igb/parameters/ll_hold_us
SERVER_ADDR=198.18.0.2
# shellcheck disable=SC2034
CLIENT_ADDR=198.18.0.1
# the CPUs of the two ends: the client and eth0's interrupts on one, the
# server and eth1's on the other, as on two hosts (net-setup pins them)
CLIENT_CPU=0
SERVER_CPU=1

# in_ns NS CMD...: CMD in network namespace NS ("" for the initial one)
in_ns() {
	in_n=$1
	shift
	if [ -n "$in_n" ]; then ip netns exec "$in_n" "$@"; else "$@"; fi
}
# nic_sums NETNS IFACE RE...: for each awk regex RE, the sum of the
# ethtool -S counters of IFACE (in NETNS, "" for init) whose name matches
# it; one line of numbers (%.0f: mawk prints a sum above 2^31 as 1.23457e+10),
# from one ethtool call, so that they are of one moment
nic_sums() {
	ns_ns=$1 ns_dev=$2
	shift 2
	in_ns "$ns_ns" ethtool -S "$ns_dev" | awk '
		BEGIN { n = ARGC - 1; for (i = 1; i <= n; i++) re[i] = ARGV[i]; ARGC = 1 }
		{ for (i = 1; i <= n; i++) if ($1 ~ re[i]) s[i] += $2 }
		END { for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? " " : ""), s[i]; print "" }' "$@"
}
# nic_sum NETNS IFACE RE: one such sum
nic_sum() { nic_sums "$1" "$2" "$3"; }
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
# empty passes: poller passes of both NICs' queues that found no packet
ll_misses() {
	echo $(($(nic_sum "" eth0 '^rx_q_[0-9]+_misses:$') + $(nic_sum peer eth1 '^rx_q_[0-9]+_misses:$')))
}
# ns that the server's NIC's pollers (eth1, in peer) spent in passes
# that found nothing (rx_q_N_ll_empty_pass_ns: what spinning cost the
# server without buying data)
server_empty_ns() { nic_sum peer eth1 '^rx_q_[0-9]+_ll_empty_pass_ns:$'; }
# context switches of all CPUs since boot
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
# NET_RX softirq runs of all CPUs since boot
net_rx_runs() { awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' /proc/softirqs; }
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
# wait_until TENTHS CMD...: until CMD succeeds, trying every 0.1 s, at most
# TENTHS times; false if it never did
wait_until() {
	wu_left=$1
	shift
	until "$@"; do
		wu_left=$((wu_left - 1))
		[ "$wu_left" -gt 0 ] || return 1
		sleep 0.1
	done
}
# oper_up NS IFACE: IFACE in NS reports operstate up
oper_up() { [ "$(in_ns "$1" cat "/sys/class/net/$2/operstate")" = up ]; }
# wait_oper_up NS IFACE: until IFACE in NS is up (10 s at most)
wait_oper_up() { wait_until 100 oper_up "$1" "$2"; }
# nic_irqs IFACE: the interrupt numbers of IFACE's vectors (IFACE,
# IFACE-rx-N, IFACE-tx-N, IFACE-TxRx-N)
nic_irqs() {
	awk -v d="$1" '{ n = $NF } n == d || index(n, d "-") == 1 { sub(/:$/, "", $1); print $1 }' /proc/interrupts
}
# irq_cpus IFACE: the CPUs IFACE's vectors may interrupt, one list per
# vector on one line
irq_cpus() {
	for ic_irq in $(nic_irqs "$1"); do cat "/proc/irq/$ic_irq/smp_affinity_list"; done | paste -sd ' '
}
# interrupts of IFACE's RX queue vectors: IFACE-rx-N, or IFACE-TxRx-N
# when igb pairs queues on a vector
irq_count() {
	awk -v rx="$1-rx-" -v txrx="$1-TxRx-" 'index($NF, rx) == 1 || index($NF, txrx) == 1 {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts
}

# sockperf_pingpong PROTO SIZE SECONDS OUTFILE [CLIENT-OPTION...]: server
# in netns peer on SERVER_CPU, client in the init namespace on CLIENT_CPU, blocking
# recvfrom at both. With options (-F p: poll()) the client takes the
# server's address from its feed file, as sockperf wants with -F.
# SOCKPERF_IOMUX (p, s, e): both ends wait with poll(), select() or epoll;
# SOCKPERF_ARGS: more options for both ends (--lls USEC);
# SOCKPERF_SERVER_ARGS: more options for the server only;
# SOCKPERF_PRELOAD: a library both ends load (LD_PRELOAD);
# SOCKPERF_SERVER_SOCKETS: the server listens on that many consecutive
# ports (with SOCKPERF_IOMUX), the client sends to the first;
# SOCKPERF_TEST: the client's test, ping-pong (back to back, the default)
# or paced (UDP only: bench/paced-client, PACED_CLIENT, sends a request
# every 1/RATE s and sleeps in between; the one option is RATE).
sockperf_pingpong() {
	# sh has no locals: sp_* names stay clear of the callers' variables
	sp_proto=$1 sp_size=$2 sp_secs=$3 sp_out=$4
	shift 4
	sp_feed=/tmp/feed.$$ sp_server_feed=/tmp/feed-server.$$
	case $sp_proto in
	udp) sp_kind=U sp_tcp="" ;;
	tcp) sp_kind=T sp_tcp=--tcp ;;
	esac
	echo "$sp_kind:$SERVER_ADDR:11111" >"$sp_feed"
	sp_i=0
	while [ $sp_i -lt "${SOCKPERF_SERVER_SOCKETS:-1}" ]; do
		echo "$sp_kind:$SERVER_ADDR:$((11111 + sp_i))"
		sp_i=$((sp_i + 1))
	done >"$sp_server_feed"
	sp_env=""
	[ -z "${SOCKPERF_PRELOAD:-}" ] || sp_env="env LD_PRELOAD=$SOCKPERF_PRELOAD"
	sp_mux=${SOCKPERF_IOMUX:-}
	[ -z "$sp_mux" ] || set -- -F "$sp_mux" "$@"
	rm -f /tmp/sockperf-server.log
	# shellcheck disable=SC2086 # $sp_env, $sp_tcp and SOCKPERF_ARGS are empty or words
	ip netns exec peer taskset -c "$SERVER_CPU" $sp_env sockperf server -f "$sp_server_feed" -F "${sp_mux:-r}" \
		${SOCKPERF_ARGS:-} ${SOCKPERF_SERVER_ARGS:-} >/tmp/sockperf-server.log 2>&1 &
	sp_pid=$!
	# the server serves once it says how it blocks on its sockets
	# ("using recvfrom() to block on socket(s)"), its last line before
	# the first request; within 5 s
	wait_until 50 grep -q ' to block on socket' /tmp/sockperf-server.log || true
	if [ "${SOCKPERF_TEST:-}" = paced ]; then
		# shellcheck disable=SC2086
		if [ "$sp_proto" != udp ] || [ $# -ne 1 ] || [ -n "$sp_mux" ] || [ -n "${SOCKPERF_ARGS:-}" ]; then
			echo "sockperf_pingpong: a paced client is UDP, recvfrom, with one RATE" >&2
			false
		else
			taskset -c "$CLIENT_CPU" $sp_env "${PACED_CLIENT:-/out/paced-client}" "$SERVER_ADDR" 11111 \
				"$sp_size" "$sp_secs" "$1" >"$sp_out" 2>&1
		fi
	elif [ $# -gt 0 ]; then
		# shellcheck disable=SC2086
		taskset -c "$CLIENT_CPU" $sp_env sockperf "${SOCKPERF_TEST:-ping-pong}" -f "$sp_feed" -m "$sp_size" -t "$sp_secs" \
			${SOCKPERF_ARGS:-} "$@" >"$sp_out" 2>&1
	else
		# shellcheck disable=SC2086
		taskset -c "$CLIENT_CPU" $sp_env sockperf "${SOCKPERF_TEST:-ping-pong}" -i "$SERVER_ADDR" -p 11111 $sp_tcp -m "$sp_size" -t "$sp_secs" \
			${SOCKPERF_ARGS:-} >"$sp_out" 2>&1
	fi
	sp_rc=$?
	kill "$sp_pid" 2>/dev/null
	wait "$sp_pid" 2>/dev/null
	rm -f "$sp_feed" "$sp_server_feed"
	return $sp_rc
}
# sockperf_clean OUTFILE: completed, messages received, none lost
sockperf_clean() {
	grep -q 'ReceivedMessages=[1-9]' "$1" &&
		grep -q '# dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0' "$1"
}
# sockperf's output is read here only. sockperf_stat OUTFILE STAT: one
# figure of a ping-pong: msgs (round trips measured), secs (their
# duration), avg or max (µs), or a percentile as sockperf prints it
# (50.000, 99.000, 99.900; µs); empty when the output lacks it
sockperf_stat() {
	awk -v s="$2" '
		/\[Valid Duration\]/ { for (i = 1; i <= NF; i++) {
			f = $i; sub(/;$/, "", f)
			if (s == "secs" && f ~ /^RunTime=/) v = substr(f, 9)
			if (s == "msgs" && f ~ /^ReceivedMessages=/) v = substr(f, 18) } }
		s == "avg" && v == "" && match($0, /avg-latency=[0-9.]+/) { v = substr($0, RSTART + 12, RLENGTH - 12) }
		s == "max" && /<MAX> observation/ { v = $NF }
		$3 == "percentile" && $4 == s { v = $NF }
		END { print v }' "$1"
}
# sockperf_percentiles OUTFILE RUN: percentiles.csv rows "RUN,OBSERVATIONS,
# PERCENTILE,µs", one per percentile sockperf printed, its minimum as
# percentile 0 and its maximum as 100
sockperf_percentiles() {
	awk -v run="$2" '/ observations/ { for (i = 2; i <= NF; i++) if ($i ~ /^observations/) { n = $(i - 1); gsub(/[^0-9]/, "", n) } }
		$3 == "percentile" { p[++k] = $4; v[k] = $NF }
		/<MIN> observation/ { p[++k] = 0; v[k] = $NF }
		/<MAX> observation/ { p[++k] = 100; v[k] = $NF }
		END { for (i = 1; i <= k; i++) print run "," n + 0 "," p[i] "," v[i] }' "$1"
}

# intree_igb: the in-tree igb module's file, which the fork's DKMS install
# (updates/dkms) leaves on disk
intree_igb() { find "/lib/modules/$(uname -r)/kernel" -name 'igb.ko*' | head -n 1; }
# use_driver fork|intree: reload igb as our DKMS fork or as the in-tree
# module (insmod by path, same boot), then set the network up again
use_driver() {
	ud_intree=$(intree_igb)
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
