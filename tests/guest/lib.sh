# shellcheck shell=sh
# Helpers for the guest tests: TAP result lines the host counts, the
# probe; the NIC, sockperf and driver helpers they share with the bench
# come from vm/guest/lib.sh. Sourced by tests/guest/run.

# shellcheck source=vm/guest/lib.sh
. /llpoll/vm/guest/lib.sh
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

# the kernel's tracing directory (events, kprobes)
TRACING=/sys/kernel/debug/tracing
# kprobe_hits EVENT: how often the kprobe event EVENT fired while enabled
kprobe_hits() { awk -v e="$1" '$1 == e { print $2 }' "$TRACING"/kprobe_profile; }

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
