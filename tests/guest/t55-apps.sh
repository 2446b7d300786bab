# shellcheck shell=sh
# shellcheck disable=SC2154 # probe_out, probe_passes: set by probe_case (lib.sh)
# Applications: a socket's own window (SO_BUSY_POLL), poll() and select()
# that spin (ip_low_latency_select), epoll_wait(). Runs after the tests
# that compare sysctl 0 with the stock driver: once a socket has set its
# own window, NAPI flushes GRO whenever it releases its rings.

APP_US=2000	# the window of the ping-pongs, as in t40
IDLE_US=5000	# the window of the idle waits: large beside TCG's overhead

# ---- bad values change nothing ----
check "ip_low_latency_select exists, 0 by default" [ "$(cat "$LL_SELECT_SYSCTL")" = 0 ]
for bad in -1 1000001 abc; do
	check "ip_low_latency_select $bad is refused and changes nothing" \
		sh -c "! echo $bad >$LL_SELECT_SYSCTL 2>/dev/null && [ \$(cat $LL_SELECT_SYSCTL) = 0 ]"
done
out=$("$PROBE" sockopt 300 -1 1000001)
check "SO_BUSY_POLL -1 and 1000001: EINVAL, the window set before stays | $out" \
	[ "$out" = "OK EINVAL EINVAL value=300" ]
unpriv() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
echo 0 >"$LL_SYSCTL"
out=$(unpriv "$PROBE" sockopt 100)
check "unprivileged SO_BUSY_POLL above the global window (0): EPERM, nothing set | $out" \
	[ "$out" = "EPERM value=0" ]
echo 500 >"$LL_SYSCTL"
out=$(unpriv "$PROBE" sockopt 500 600 0)
echo 0 >"$LL_SYSCTL"
check "unprivileged, global window 500: 500 is allowed, 600 is EPERM, 0 opts out | $out" \
	[ "$out" = "OK EPERM OK value=0" ]

# ---- a socket's own window ----
probe_case block 0 20 50
check "sysctl 0, no SO_BUSY_POLL: no ll pass | +$probe_passes" [ "$probe_passes" -eq 0 ]
cpu0=$(probe_value cpu_us_per_call)
export LLPOLL_BUSY_POLL=$IDLE_US
probe_case block 0 20 50
unset LLPOLL_BUSY_POLL
cpu=$(probe_value cpu_us_per_call)
spin=$((${cpu:-999999} - ${cpu0:-0}))
own_ok() { [ "$probe_passes" -gt 20 ] && [ "$spin" -lt $((2 * IDLE_US)) ]; }
check "sysctl 0, SO_BUSY_POLL $IDLE_US: the socket polls, spinning at most its window | $probe_passes ll passes, spin CPU $spin us per call" \
	own_ok
export LLPOLL_BUSY_POLL=0
probe_case block $IDLE_US 20 50
unset LLPOLL_BUSY_POLL
check "sysctl $IDLE_US, SO_BUSY_POLL 0: the socket opted out, no ll pass | +$probe_passes" [ "$probe_passes" -eq 0 ]

# ---- the adaptive window (ip_low_latency_adaptive, SO_LL_ADAPTIVE) ----
check "ip_low_latency_adaptive exists, 0 by default" [ "$(cat "$LL_ADAPTIVE_SYSCTL")" = 0 ]
for bad in -1 2 abc; do
	check "ip_low_latency_adaptive $bad is refused and changes nothing" \
		sh -c "! echo $bad >$LL_ADAPTIVE_SYSCTL 2>/dev/null && [ \$(cat $LL_ADAPTIVE_SYSCTL) = 0 ]"
done
out=$("$PROBE" adaptive 1 2 -1)
check "SO_LL_ADAPTIVE 2 and -1: EINVAL, the 1 set before stays | $out" [ "$out" = "OK EINVAL EINVAL value=1" ]
sysctl0_default=$("$PROBE" adaptive)
echo 1 >"$LL_ADAPTIVE_SYSCTL"
sysctl1_default=$("$PROBE" adaptive)
sysctl1_off=$(unpriv "$PROBE" adaptive 0)
echo 0 >"$LL_ADAPTIVE_SYSCTL"
check "a socket follows ip_low_latency_adaptive unless it sets SO_LL_ADAPTIVE, unprivileged too | $sysctl0_default, $sysctl1_default; 0 under sysctl 1: $sysctl1_off" \
	[ "$sysctl0_default $sysctl1_default $sysctl1_off" = "value=0 value=1 OK value=0" ]
# An idle socket with its own window: with the fixed window each of the
# 20 receives spins it (above); adaptive, the first LL_ADAPT_COLD_MISSES
# (3) spin it for nothing, then the socket is cold and the rest sleep at
# once. The cost counters of eth0 count the waits and their empty time.
# A wait cut short by a reschedule (another task woken on this CPU; no
# signal comes here) teaches the rule nothing, so it adds one wait.
k0=$(ll_costs)
export LLPOLL_BUSY_POLL=$IDLE_US LLPOLL_ADAPTIVE=1
probe_case block 0 20 50
unset LLPOLL_BUSY_POLL LLPOLL_ADAPTIVE
cost_since "$k0"
adaptive_idle_ok() {
	[ "$cost_window" -eq 3 ] && [ "$cost_data" -eq 0 ] && [ "$cost_intr" -le 3 ] && cost_adds_up &&
		[ $((cost_empty_ns / 1000)) -le $(((cost_waits + 1) * IDLE_US)) ]
}
check "SO_LL_ADAPTIVE 1, idle, window $IDLE_US us: 3 receives spin their window (and any a reschedule cut short), the others sleep at once | $(cost_line); $probe_passes ll passes" \
	adaptive_idle_ok
# A ping-pong with every socket adapting: the waits still catch their
# data (a window that outlasts this kernel's round trips)
echo 1 >"$LL_ADAPTIVE_SYSCTL"
echo 20000 >"$LL_SYSCTL"
k0=$(ll_costs) c0=$(ll_cleaned) r0=$(rx_packets)
sockperf_pingpong udp 64 4 /out/sockperf-adaptive.log
rc=$?
cost_since "$k0"
cleaned=$(($(ll_cleaned) - c0)) rx=$(($(rx_packets) - r0))
echo 0 >"$LL_SYSCTL"
echo 0 >"$LL_ADAPTIVE_SYSCTL"
msgs=$(sockperf_stat /out/sockperf-adaptive.log msgs)
adaptive_pp_ok() {
	[ "$rc" -eq 0 ] && sockperf_clean /out/sockperf-adaptive.log && [ $((2 * cost_data)) -gt "${msgs:-0}" ] &&
		[ $((2 * cleaned)) -gt "$rx" ] && cost_adds_up
}
check "ip_low_latency_adaptive 1, window 20000 us: a 4 s UDP ping-pong, clean; most waits still end with data, pollers take most packets | ${msgs:-0} round trips; $(cost_line); pollers took $cleaned of $rx" \
	adaptive_pp_ok
# A receiver of paced datagrams (one every 10 ms from peer, whose sender
# sleeps between them) under a window that outlasts the gap: the fixed
# window spins each wait until its datagram comes, the adaptive one naps
# through most of it (ll_adapt_nap) and spins only its margin. eth0's
# cost counters count the receiver's waits and their empty pass time.
# paced_recv ADAPTIVE: paced_* of 300 datagrams at
# ip_low_latency_adaptive ADAPTIVE
paced_recv() {
	echo "$1" >"$LL_ADAPTIVE_SYSCTL"
	echo 20000 >"$LL_SYSCTL"
	k0=$(ll_costs)
	taskset -c "$CLIENT_CPU" "$TRAFFIC" udp-seq-recv "$CLIENT_ADDR" 13500 1 300 3000 recv >/tmp/paced.out 2>&1 &
	pr_pid=$!
	ready_wait /tmp/paced.out
	ip netns exec peer "$TRAFFIC" udp-seq-send "$CLIENT_ADDR" 13500 1 300 10000
	paced_rc=0
	wait $pr_pid || paced_rc=$?
	cost_since "$k0"
	echo 0 >"$LL_SYSCTL"
	echo 0 >"$LL_ADAPTIVE_SYSCTL"
	paced_line="$(cost_line); $(grep -v ready /tmp/paced.out | tr '\n' ' ')"
	paced_data=$cost_data paced_waits=$cost_waits
	# empty pass µs per wait with data
	paced_empty=$((cost_empty_ns / 1000 / (cost_data > 0 ? cost_data : 1)))
}
paced_recv 0
fixed_rc=$paced_rc fixed_line=$paced_line fixed_data=$paced_data fixed_waits=$paced_waits fixed_empty=$paced_empty
paced_recv 1
paced_ok() {
	[ "$fixed_rc" = 0 ] && [ "$paced_rc" = 0 ] &&
		[ $((2 * fixed_data)) -gt "$fixed_waits" ] && [ $((2 * paced_data)) -gt "$paced_waits" ] &&
		[ $((2 * paced_empty)) -le "$fixed_empty" ]
}
check "a datagram every 10 ms, window 20000 us: the adaptive receiver's waits nap, spinning at most half the fixed window's empty time per datagram; all 300 arrive, most waits end with data | fixed: $fixed_line, $fixed_empty us/datagram; adaptive: $paced_line, $paced_empty us/datagram" \
	paced_ok

# ---- epoll_ctl(EPOLL_CTL_ADD) makes no pass ----
probe_case epoll-add $APP_US
check "EPOLL_CTL_ADD of a socket on eth0, sysctl $APP_US: no ll pass | +$probe_passes" \
	sh -c "[ '$probe_out' = added ] && [ $probe_passes -eq 0 ]"

# ---- poll(), select(), epoll_wait() ----
# (probe_case sets mode and check sets name: the loops use mux and case_name)
for mux in poll select epoll; do
	case $mux in poll) f=p ;; select) f=s ;; epoll) f=e ;; esac
	for nsock in 1 100; do
		case_name="$mux, $nsock socket$([ "$nsock" = 1 ] || echo s)"
		out=/out/sockperf-$mux-$nsock.log
		echo $APP_US >"$LL_SYSCTL"
		echo $APP_US >"$LL_SELECT_SYSCTL"
		n0=$(proc_counter /proc/net/netstat TcpExt LowLatencyRxPackets)
		c0=$(ll_cleaned) r0=$(rx_packets)
		# both ends wait with the call; the server on NSOCK sockets, the
		# requests go to the first
		SOCKPERF_IOMUX=$f SOCKPERF_SERVER_SOCKETS=$nsock
		export SOCKPERF_IOMUX SOCKPERF_SERVER_SOCKETS
		sockperf_pingpong udp 64 4 "$out"
		rc=$?
		unset SOCKPERF_IOMUX SOCKPERF_SERVER_SOCKETS
		n=$(($(proc_counter /proc/net/netstat TcpExt LowLatencyRxPackets) - n0))
		cleaned=$(($(ll_cleaned) - c0)) rx=$(($(rx_packets) - r0))
		echo 0 >"$LL_SELECT_SYSCTL"
		echo 0 >"$LL_SYSCTL"
		echo "# $case_name: p50=$(sockperf_stat "$out" 50.000) us, $(sockperf_stat "$out" msgs) round trips, eth0 pollers took $cleaned of $rx, LowLatencyRxPackets +$n"
		iomux_clean() { [ "$rc" -eq 0 ] && sockperf_clean "$out"; }
		check "$case_name: 4 s UDP ping-pong, nothing lost or reordered | sockperf exit $rc" iomux_clean
		# the share is for make bench to judge: under TCG a round trip can
		# outlast the window, and epoll_wait() then forgets its queue
		# until the next event, as the stock busy poll does
		polled_ok() { [ "$cleaned" -gt 0 ] && [ "$n" -gt 0 ]; }
		check "$case_name: pollers took packets off eth0 | $cleaned of $rx; LowLatencyRxPackets +$n" \
			polled_ok
	done

	# an idle wait on 100 sockets spins at most the window, then sleeps
	echo $IDLE_US >"$LL_SELECT_SYSCTL"
	probe_case wait 0 10 50 $mux 100
	cpu0=$(probe_value cpu_us_per_call)
	probe_case wait $IDLE_US 10 50 $mux 100
	echo 0 >"$LL_SELECT_SYSCTL"
	cpu=$(probe_value cpu_us_per_call)
	spin=$((${cpu:-999999} - ${cpu0:-0}))
	idle_ok() { [ "$probe_passes" -gt 10 ] && [ "$spin" -lt $((2 * IDLE_US)) ] && echo "$probe_out" | grep -q ' ready=0$'; }
	check "$mux, idle, 100 sockets, window $IDLE_US us: spins, then sleeps | $probe_passes ll passes; spin CPU $spin us per 50 ms call" \
		idle_ok
	i0=$(irq_count eth0)
	check "$mux: after the idle waits eth0 answers by interrupt" ping -c 2 -i 0.2 -W 3 -I eth0 "$SERVER_ADDR"
	check "$mux: after the idle waits eth0's queue interrupts fire | +$(($(irq_count eth0) - i0))" \
		[ "$(irq_count eth0)" -gt "$i0" ]

	# a signal during a long spin ends the call at once
	echo 1000000 >"$LL_SELECT_SYSCTL"
	probe_case signal 1000000 50 $mux
	echo 0 >"$LL_SELECT_SYSCTL"
	after=$(probe_value after_signal_us)
	check "$mux: a signal during a 1 s spin gives EINTR within 200 ms | ${after:-?} us" \
		sh -c "echo '$probe_out' | grep -q '^EINTR' && [ ${after:-999999} -ge 0 ] && [ ${after:-999999} -lt 200000 ]"
done

# ---- nothing lost or reordered, 100 sockets, data on all of them ----
# 5000 datagrams/s, in bursts of one per socket every 20 ms: a rate
# interrupts keep up with under TCG. On 4096-descriptor rings: after a
# stall of the guest (a loaded host) the sender catches up with several
# bursts at once, more than a 256-descriptor ring holds whoever cleans
# it, and QEMU drops the rest. What the NICs and UDP counted as lost is
# printed beside the receiver's counts.
rx_rings_big
check "neighbours resolved both ways before the numbered streams" neigh_resolved
for mux in poll select epoll; do
	echo $APP_US >"$LL_SYSCTL"
	echo $APP_US >"$LL_SELECT_SYSCTL"
	loss_snapshot /tmp/seq.before
	"$TRAFFIC" udp-seq-recv "$CLIENT_ADDR" 13000 100 50 3000 $mux >/tmp/seq-$mux.out 2>&1 &
	sq_pid=$!
	sleep 1
	ip netns exec peer "$TRAFFIC" udp-seq-send "$CLIENT_ADDR" 13000 100 50 20000
	wait "$sq_pid"
	sq_rc=$?
	echo 0 >"$LL_SELECT_SYSCTL"
	echo 0 >"$LL_SYSCTL"
	loss_snapshot /tmp/seq.after
	check "$mux over 100 sockets: 5000 datagrams, none lost, reordered or duplicated | $(tail -n 1 /tmp/seq-$mux.out); $(losses_between /tmp/seq.before /tmp/seq.after)" \
		[ "$sq_rc" -eq 0 ]
done
rx_rings_restore
neigh_resolved || true

# ---- a backlog goes to NAPI ----
# A pass cleans at most its budget (4 packets). When the last pass of a
# wait cleaned all 4 the ring likely holds more: the poller hands the ring
# back at once and NAPI drains it, instead of leaving the rest on the ring
# under the hold until the program's next pass or the hold timer (a
# program that handles its data between short waits, such as an epoll
# loop over many sockets, would otherwise take the ring 4 packets at a
# time while it overflows). The probe's first wait starts the hold
# (ll_hold_us 1 s), 32 datagrams then arrive on the masked ring, and one
# more wait takes a pass's budget of them: 200 ms later, with the socket
# polling no more, all 32 have reached it, not 4.
bl_sync=/tmp/backlog-sync
hold0=$(cat "$LL_HOLD_PARAM")
# eth0's cleaned, interrupt and timer hand-backs, of one moment
bl_counters() {
	nic_sums "" eth0 '^rx_q_[0-9]+_cleaned:$' '^rx_q_[0-9]+_irq_handback:$' '^rx_q_[0-9]+_timer_handback:$'
}
# shellcheck disable=SC2086 # three numbers each
bl_delta() { set -- $1 $2; echo "cleaned +$(($4 - $1)), interrupt hand-backs +$(($5 - $2)), timer hand-backs +$(($6 - $3))"; }
# bl_round: one probe run; sets bl_got, bl_line and bl_conclusive: the
# first wait's poller took its datagram and kept the hold, and the hold
# timer handed nothing back before the probe drained its socket (then
# only a hand-back by the burst's wait can have let NAPI deliver more
# than a pass's budget). The probe runs alone
# on CPU 1, everything else on CPU 0: a spin ends when its CPU has other
# work. Every datagram comes from one source port, so that RSS puts them
# all on the socket's queue, and the senders start early and send when
# the probe's files say so: the first datagram as the probe's wait begins
# (a long spin ends when its CPU has other work), the burst once that wait
# returned (starting a program in the peer namespace can take longer
# than the hold under TCG).
bl_send() { # AFTER N: N datagrams once $bl_sync/AFTER exists ("." at once)
	LLPOLL_SRC_PORT=13501 LLPOLL_SEND_AFTER=$bl_sync/$1 taskset -c 0 \
		ip netns exec peer "$PROBE" send "$CLIENT_ADDR" 13500 "$2" 0
}
bl_round() {
	# this shell and what it starts on CPU 0 too
	taskset -p -c 0 $$ >/dev/null
	rm -rf $bl_sync
	mkdir $bl_sync
	LLPOLL_SYNC_DIR=$bl_sync taskset -c 1 "$PROBE" backlog "$CLIENT_ADDR" 13500 >/tmp/backlog.out 2>&1 &
	bl_pid=$!
	sleep 0.5
	bl_send . 1
	wait_until 100 test -e $bl_sync/ready
	echo 1000000 >"$LL_HOLD_PARAM"
	echo 1000000 >"$LL_SYSCTL"
	bl_send spin 1 &
	bl_go_pid=$!
	bl_send held 32 &
	bl_held_pid=$!
	sleep 1
	bl0=$(bl_counters)
	touch $bl_sync/go
	wait_until 100 test -e $bl_sync/held
	bl1=$(bl_counters)
	# a probe that never got there must not leave the senders waiting
	touch $bl_sync/spin $bl_sync/held
	wait "$bl_go_pid"
	wait "$bl_held_pid"
	sleep 0.1
	touch $bl_sync/burst
	wait "$bl_pid"
	bl2=$(bl_counters)
	taskset -p -c 0-1 $$ >/dev/null
	echo 0 >"$LL_SYSCTL"
	echo "$hold0" >"$LL_HOLD_PARAM"
	bl_got=$(sed -n 's/^received=//p' /tmp/backlog.out)
	# shellcheck disable=SC2086
	set -- $bl0 $bl1 $bl2
	bl_conclusive=$([ $(($4 - $1)) -ge 1 ] && [ $(($5 - $2)) -eq 0 ] && [ $(($6 - $3)) -eq 0 ] &&
		[ $(($9 - $6)) -eq 0 ] && echo 1)
	bl_line="got ${bl_got:-?}; first wait: $(bl_delta "$bl0" "$bl1"); burst: $(bl_delta "$bl1" "$bl2")"
}
# a first wait that a TCG stall outlasts hands the ring back idle, and a
# stall of a second lets the timer hand it back: then the round says
# nothing; eight tries
for bl_try in 1 2 3 4 5 6 7 8; do
	bl_round
	echo "# backlog try $bl_try: $bl_line"
	[ -z "$bl_conclusive" ] || break
done
bl_ok() { [ -n "$bl_conclusive" ] && [ "${bl_got:-0}" -eq 32 ]; }
check "a wait whose pass cleaned its whole budget hands the backlog to NAPI: with the hold on, the 32 datagrams reach the socket at once | $bl_line" \
	bl_ok
