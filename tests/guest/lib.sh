# shellcheck shell=sh
# Helpers for the guest tests: TAP result lines the host counts, the
# probe; the NIC, sockperf and driver helpers they share with the bench
# come from vm/guest/lib.sh. Sourced by tests/guest/run.

# shellcheck source=vm/guest/lib.sh
. /llpoll/vm/guest/lib.sh
PROBE=${PROBE:-/out/llpoll-probe}
TRAFFIC=${TRAFFIC:-/out/llpoll-traffic}
# ready_wait FILE: until a background tool printed "ready" (5 s at most)
ready_wait() { wait_until 50 grep -q '^ready' "$1" 2>/dev/null || true; }
# the DKMS package's version and its forks (dkms.conf is their home)
# shellcheck disable=SC2034
LLPOLL_VERSION=$(make -s --no-print-directory -C /llpoll version)
# shellcheck disable=SC2034
LLPOLL_DRIVERS=$(make -s --no-print-directory -C /llpoll drivers)

# Results are TAP 13 ("ok N - ...", "not ok N - ...", "ok N - ... # SKIP"),
# numbered through a counter file so that checks in subshells count too;
# a runner opens the stream with tap_start and closes it with tap_plan.
TAP_COUNTER=/tmp/llpoll-tap-count
tap_start() {
	echo 0 >"$TAP_COUNTER"
	echo "TAP version 13"
}
tap_plan() { echo "1..$(cat "$TAP_COUNTER" 2>/dev/null || echo 0)"; }
# A description is the result's name, the same in every run, then, after
# " | ", what this run measured: that part goes to a "# figure:" line
# after the result (tests/result-names checks the names).
tap_line() { # STATUS DESCRIPTION [DIRECTIVE]
	tap_n=$(($(cat "$TAP_COUNTER" 2>/dev/null || echo 0) + 1))
	echo "$tap_n" >"$TAP_COUNTER"
	tap_name=${2%% | *}
	echo "$1 $tap_n - $tap_name${3:+ # $3}"
	[ "$tap_name" = "$2" ] || echo "# figure: $tap_name: ${2#* | }"
}
ok() { tap_line ok "$*"; }
not_ok() { tap_line "not ok" "$*"; }
# check NAME CMD...: one result line from a command's status
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
skip() { tap_line ok "$*" SKIP; }

# the kernel's tracing directory (events, kprobes)
TRACING=/sys/kernel/debug/tracing
# kprobe_hits EVENT: how often the kprobe event EVENT fired while enabled
kprobe_hits() { awk -v e="$1" '$1 == e { print $2 }' "$TRACING"/kprobe_profile; }

# ll passes on eth0's queues: every ndo_ll_poll() pass counts once
ll_passes() { nic_sum "" eth0 '^rx_q_[0-9]+_(ll_poll_yield|misses|cleaned):$'; }

# ll_costs [NETNS IFACE]: the cost counters of IFACE (eth0 of the
# initial namespace) summed over its RX queues (docs/counters.md), on one
# line: waits, with data, by window, interrupted, untimed, in the spin
# buckets, data pass ns, empty pass ns
ll_costs() {
	nic_sums "${1:-}" "${2:-eth0}" '^rx_q_[0-9]+_ll_waits:$' '^rx_q_[0-9]+_ll_wait_data:$' \
		'^rx_q_[0-9]+_ll_wait_window:$' '^rx_q_[0-9]+_ll_wait_intr:$' \
		'^rx_q_[0-9]+_ll_wait_untimed:$' '^rx_q_[0-9]+_ll_spin_(lt|ge)_[0-9]+us:$' \
		'^rx_q_[0-9]+_ll_data_pass_ns:$' '^rx_q_[0-9]+_ll_empty_pass_ns:$'
}
# cost_since LINE [NETNS IFACE]: cost_* are what the cost counters of
# IFACE (eth0) grew by since LINE, an ll_costs line of it
# shellcheck disable=SC2034,SC2046,SC2086 # t40 reads them; one word per counter
cost_since() {
	set -- $1 $(ll_costs "${2:-}" "${3:-eth0}")
	cost_waits=$(($9 - $1)) cost_data=$((${10} - $2)) cost_window=$((${11} - $3))
	cost_intr=$((${12} - $4)) cost_untimed=$((${13} - $5)) cost_buckets=$((${14} - $6))
	cost_data_ns=$((${15} - $7)) cost_empty_ns=$((${16} - $8))
}
# the end reasons sum to the waits; the spin buckets and the untimed
# waits to those with data
cost_adds_up() {
	[ "$cost_waits" -eq $((cost_data + cost_window + cost_intr)) ] &&
		[ $((cost_buckets + cost_untimed)) -eq "$cost_data" ]
}
cost_line() {
	echo "waits=$cost_waits data=$cost_data window=$cost_window intr=$cost_intr" \
		"untimed=$cost_untimed buckets=$cost_buckets empty=$((cost_empty_ns / 1000)) us"
}

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
	wait_until 100 [ -e "$sync/ready" ] || true
	echo "$val" >"$LL_SYSCTL"
	p0=$(ll_passes)
	touch "$sync/go"
	wait "$ppid"
	echo 0 >"$LL_SYSCTL"
	probe_passes=$(($(ll_passes) - p0))
	probe_out=$(cat /tmp/probe.out)
	echo "# probe $mode: $probe_out (ll passes: $probe_passes)"
}
# probe_value KEY: the number after KEY= in the last probe's output
probe_value() { echo "$probe_out" | sed -n "s/.*$1=\([0-9-]*\).*/\1/p"; }

# every ethtool -S line of both NICs, prefixed with the NIC
nic_snapshot() {
	{ ethtool -S eth0 | sed 's/^ */eth0 /'; ip netns exec peer ethtool -S eth1 | sed 's/^ */eth1 /'; } \
		>"$1" 2>/dev/null
}
# sum of the snapshot's counters whose name matches RE
snap_sum() { awk -v re="$2" '$2 ~ re { s += $3 } END { printf "%.0f\n", s }' "$1"; }
# snap_nic SNAPSHOT NIC NAME: one counter of one NIC
snap_nic() { awk -v nic="$2" -v k="$3:" '$1 == nic && $2 == k { print $3 }' "$1"; }
# QEMU's igb drops a frame whose RX queue has no free descriptor and
# counts it nowhere (an 82576 counts rx_missed_errors). wire_lost BEFORE
# AFTER FROM TO: frames NIC FROM sent between two nic_snapshots that NIC
# TO did not receive (with TSO off: QEMU counts a TSO send once in
# tx_packets).
wire_lost() {
	echo $(($(snap_nic "$2" "$3" tx_packets) - $(snap_nic "$1" "$3" tx_packets) -
		$(snap_nic "$2" "$4" rx_packets) + $(snap_nic "$1" "$4" rx_packets)))
}
# where datagrams can be lost on the receiving side: frames one NIC sent
# that the other did not receive, and UDP's receive errors (a full socket
# buffer counts there) in both namespaces. loss_snapshot FILE notes both;
# losses_between BEFORE AFTER says what was lost between two of them.
loss_snapshot() {
	nic_snapshot "$1"
	echo $(($(proc_counter /proc/net/snmp Udp InErrors) + $(proc_counter /proc/net/snmp Udp InErrors peer))) >"$1.udp"
}
losses_between() {
	echo "wire lost $(($(wire_lost "$1" "$2" eth0 eth1) + $(wire_lost "$1" "$2" eth1 eth0))), udp_in_errors +$(($(cat "$2.udp") - $(cat "$1.udp")))"
}
# rx_rings_big: both NICs on 4096-descriptor RX rings, which no stall of
# the guest fills; rx_rings_restore: back to the size they had. Each
# returns once both links are up again after the resize's reset.
rx_rings_big() {
	rx_ring0=$(ethtool -g eth0 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	rx_rings_set 4096
}
rx_rings_restore() { rx_rings_set "$rx_ring0"; }
rx_rings_set() {
	ethtool -G eth0 rx "$1"
	ip netns exec peer ethtool -G eth1 rx "$1"
	wait_oper_up "" eth0
	wait_oper_up peer eth1
}
# neigh_resolved: both namespaces resolved each other's address. After a
# link reset a numbered stream that starts while ARP resolves loses its
# order in the sender's kernel: neigh_update() sends the queued datagrams
# one by one with the entry already valid, so a datagram sent meanwhile
# overtakes them.
neigh_ping() { in_ns "$1" ping -c 1 -W 1 -q "$2" >/dev/null 2>&1; }
neigh_resolved() { wait_until 50 neigh_ping peer "$CLIENT_ADDR" && wait_until 50 neigh_ping "" "$SERVER_ADDR"; }
