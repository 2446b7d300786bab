# shellcheck shell=sh
# shellcheck disable=SC2154 # probe_out, probe_passes: set by probe_case (lib.sh)
# End to end through the igb fork: ping-pong with ip_low_latency_poll off
# and on, the receive paths' corner cases, interface down, module removal.

WINDOW_US=2000	# TCG round trips take ~0.3 ms: a window of 2 ms

# igb_poll() returns, recorded by a kretprobe: net_rx_action() runs a
# NAPI that returns its full budget (64) again at once, without a new
# schedule. In a ping-pong no poll has 64 packets to clean, so a full
# budget means a poll that found a poller owning the rings did not
# complete. The filter keeps only those in the trace buffer;
# kprobe_profile counts every return.
NAPI_FULL=$TRACING/events/kprobes/llpoll_igb_poll_ret
# igb_alloc_rx_buffers() calls, counted by a kprobe (its events filtered
# out): each one that returns buffers ends in a write of the ring's tail
REFILL=$TRACING/events/kprobes/llpoll_igb_refill
napi_probe_on() {
	# shellcheck disable=SC2016 # $retval is the kretprobe's
	echo 1 >"$TRACING"/tracing_on &&
		echo 'r:llpoll_igb_poll_ret igb:igb_poll ret=$retval:s32' >"$TRACING"/kprobe_events &&
		echo 'p:llpoll_igb_refill igb:igb_alloc_rx_buffers' >>"$TRACING"/kprobe_events &&
		echo 'ret >= 64' >"$NAPI_FULL"/filter && echo 'common_pid < 0' >"$REFILL"/filter &&
		echo >"$TRACING"/trace && echo 1 >"$NAPI_FULL"/enable && echo 1 >"$REFILL"/enable
}
napi_probe_off() {
	echo 0 >"$NAPI_FULL"/enable && echo 0 >"$REFILL"/enable && echo >"$TRACING"/kprobe_events
}
napi_returns() { kprobe_hits llpoll_igb_poll_ret; }
refills() { kprobe_hits llpoll_igb_refill; }
napi_full_returns() { grep -c 'llpoll_igb_poll_ret:' "$TRACING"/trace || true; }
# the last ping-pong had igb NAPI polls, none of which returned its budget
napi_completes() { [ "$pp_napi_runs" -gt 0 ] && [ "$pp_napi_full" -eq 0 ]; }
# NAPI polls of both NICs that found a poller owning the rings
napi_yields() {
	echo $(($(nic_sum "" eth0 '^tx_q_[0-9]+_napi_yield:$') + $(nic_sum peer eth1 '^tx_q_[0-9]+_napi_yield:$')))
}

# pingpong_case NAME PROTO SYSCTL: a 5 s sockperf run; sets pp_* results
pingpong_case() {
	echo "$3" >"$LL_SYSCTL"
	nr0=$(napi_returns) nf0=$(napi_full_returns)
	c0=$(ll_cleaned) t0=$(ll_total) n0=$(proc_counter /proc/net/netstat TcpExt LowLatencyRxPackets)
	i0=$(irq_count eth0) r0=$(rx_packets) h0=$(handbacks irq) th0=$(handbacks timer) sq0=$(squeeze)
	ny0=$(napi_yields) rf0=$(refills) k0=$(ll_costs)
	out=/out/sockperf-$1.log
	if sockperf_pingpong "$2" 64 5 "$out" && sockperf_clean "$out"; then
		ok "$1: 5 s sockperf $2 ping-pong, no errors, nothing lost"
	else
		not_ok "$1: 5 s sockperf $2 ping-pong, no errors, nothing lost"
		sed 's/^/# /' "$out" | tail -n 15
	fi
	pp_cleaned=$(($(ll_cleaned) - c0)) pp_ll=$(($(ll_total) - t0))
	pp_netstat=$(($(proc_counter /proc/net/netstat TcpExt LowLatencyRxPackets) - n0))
	pp_msgs=$(sockperf_stat "$out" msgs)
	pp_irqs=$(($(irq_count eth0) - i0)) pp_rx=$(($(rx_packets) - r0))
	pp_handbacks=$(($(handbacks irq) - h0)) pp_timer=$(($(handbacks timer) - th0))
	pp_squeeze=$(($(squeeze) - sq0))
	pp_napi_runs=$(($(napi_returns) - nr0)) pp_napi_full=$(($(napi_full_returns) - nf0))
	pp_napi_yields=$(($(napi_yields) - ny0)) pp_refills=$(($(refills) - rf0))
	cost_since "$k0"
	pp_p50=$(sockperf_stat "$out" 50.000) pp_p99=$(sockperf_stat "$out" 99.000)
	echo "# $1: p50=${pp_p50} us p99=${pp_p99} us (one way), ${pp_msgs:-0} round trips," \
		"eth0 queue irqs=$pp_irqs, ll cleaned=$pp_cleaned of $pp_rx received," \
		"LowLatencyRxPackets=$pp_netstat, hand-backs idle=$pp_handbacks timer=$pp_timer," \
		"igb NAPI polls=$pp_napi_runs (full budget $pp_napi_full), time_squeeze +$pp_squeeze," \
		"RX refills=$pp_refills"
	echo 0 >"$LL_SYSCTL"
}

check "a kretprobe records igb_poll()'s returns" napi_probe_on
pingpong_case udp-off udp 0
check "sysctl 0: no ll counter moves (no ndo_ll_poll call)" [ "$pp_ll" -eq 0 ]
check "sysctl 0: LowLatencyRxPackets stays 0" [ "$pp_netstat" -eq 0 ]
check "sysctl 0: no igb NAPI poll returned its full budget | $pp_napi_full of $pp_napi_runs" napi_completes
off_irqs_per_rt=$((pp_irqs * 1000 / (${pp_msgs:-0} + 1)))
off_p50=$pp_p50

pingpong_case udp-ll udp $WINDOW_US
check "sysctl $WINDOW_US: rx_q_*_cleaned grows | UDP, +$pp_cleaned" [ "$pp_cleaned" -gt 0 ]
check "sysctl $WINDOW_US: LowLatencyRxPackets grows | UDP, +$pp_netstat" [ "$pp_netstat" -gt 0 ]
ll_irqs_per_rt=$((pp_irqs * 1000 / (${pp_msgs:-0} + 1)))
check "sysctl $WINDOW_US: fewer RX interrupts per round trip on eth0 | ${ll_irqs_per_rt} vs ${off_irqs_per_rt} per 1000" \
	[ "$ll_irqs_per_rt" -lt "$off_irqs_per_rt" ]
check "sysctl $WINDOW_US: the cost counters add up: end reasons sum to the waits, spin buckets and untimed to those with data | $(cost_line)" \
	cost_adds_up
echo "# figure: sysctl $WINDOW_US, UDP ping-pong: spin CPU in empty passes per round trip: $((cost_empty_ns / 1000 / (${pp_msgs:-0} + 1))) us, in passes with data $((cost_data_ns / 1000 / (${pp_msgs:-0} + 1))) us"
check "sysctl $WINDOW_US: the hold ended by hand-backs | idle +$pp_handbacks, timer +$pp_timer" \
	[ $((pp_handbacks + pp_timer)) -gt 0 ]
# a poller returns buffers 16 at a time, not with a tail write per packet
echo "# figure: RX refills per 100 packets the pollers cleaned: $((pp_refills * 100 / (pp_cleaned + 1)))"
check "sysctl $WINDOW_US: pollers refill the ring in batches, fewer than 1 refill per 4 packets they cleaned" \
	[ $((4 * pp_refills)) -lt "$pp_cleaned" ]
# This kernel's round trips take 1-3 ms, far beyond the default
# ll_hold_us: the hold stretches toward four request cycles (up to 10
# times ll_hold_us), so that the timer does not end it on almost every
# round trip
timer_per_rt=$((pp_timer * 1000 / (${pp_msgs:-0} + 1)))
echo "# figure: default ll_hold_us, timer hand-backs per 1000 round trips: $timer_per_rt"
check "sysctl $WINDOW_US, default ll_hold_us: the hold stretches to the request cycle; the timer hands back on fewer than 1 in 4 round trips" \
	[ "$timer_per_rt" -lt 250 ]
# NAPI that meets a poller completes instead of returning its budget:
# net_rx_action() does not run it again and again while the poller owns
# the rings
check "sysctl $WINDOW_US: no igb NAPI poll returned its full budget | $pp_napi_full of $pp_napi_runs; NAPI found a poller +$pp_napi_yields" \
	napi_completes
echo "# first look, UDP 64 B one-way p50: interrupts ${off_p50} us, llpoll ${pp_p50} us"
# A window and an ll_hold_us longer than the turnaround: the interrupt
# stays held from one round trip to the next instead of being handed
# back by the timer, and pollers, not NAPI, take the packets. This
# kernel (KASAN, lockdep) under TCG turns a packet around in 1-3 ms, more
# on a loaded host: 20 ms covers it.
OWN_US=20000
hold0=$(cat "$LL_HOLD_PARAM")
echo $OWN_US >"$LL_HOLD_PARAM"
pingpong_case udp-ll-own udp $OWN_US
echo "$hold0" >"$LL_HOLD_PARAM"
long_timer_per_rt=$((pp_timer * 1000 / (${pp_msgs:-0} + 1)))
echo "# figure: ll_hold_us $OWN_US, timer hand-backs per 1000 round trips: $long_timer_per_rt (default $hold0: $timer_per_rt)"
long_hold_rarer() {
	[ "$long_timer_per_rt" -le 10 ] &&
		{ [ $((2 * long_timer_per_rt)) -lt "$timer_per_rt" ] || [ "$timer_per_rt" -eq 0 ]; }
}
check "ll_hold_us $OWN_US: the timer hands back on at most 1 in 100 round trips, and less than half as often as at ll_hold_us $hold0 unless neither does" \
	long_hold_rarer
check "sysctl and ll_hold_us $OWN_US: pollers took more than half of the received packets | $pp_cleaned of $pp_rx" \
	[ $((2 * pp_cleaned)) -gt "$pp_rx" ]
# A window longer than the turnaround: most waits end with data. A wait
# is switched out only by preemption, which this kernel's voluntary
# model has none of inside a spin, so each is timed.
most_waits_paid() {
	[ $((2 * cost_data)) -gt "${pp_msgs:-0}" ] && [ "$cost_untimed" -eq 0 ] && cost_adds_up
}
check "sysctl $OWN_US: waits with data for more than half the round trips, every one timed, the counters add up | $cost_data of ${pp_msgs:-0}; $(cost_line)" \
	most_waits_paid

pingpong_case tcp-ll tcp $WINDOW_US
check "sysctl $WINDOW_US: rx_q_*_cleaned grows | TCP, +$pp_cleaned" [ "$pp_cleaned" -gt 0 ]
check "sysctl $WINDOW_US: LowLatencyRxPackets grows | TCP, +$pp_netstat" [ "$pp_netstat" -gt 0 ]
check "sysctl $WINDOW_US: no igb NAPI poll returned its full budget | TCP, $pp_napi_full of $pp_napi_runs; NAPI found a poller +$pp_napi_yields" \
	napi_completes
napi_probe_off

# ndo_ll_poll calls on eth0: each one cleans, misses or yields to NAPI
probe_case dontwait $WINDOW_US
check "MSG_DONTWAIT on an idle UDP socket: EAGAIN" [ "$probe_out" = EAGAIN ]
check "MSG_DONTWAIT: exactly one ll pass | yields+misses+cleaned +$probe_passes" [ "$probe_passes" -eq 1 ]

# CPU per blocking recv that times out, without and with the spin: the
# difference is the spin, which must stop after about the sysctl's time.
# A 5 ms window keeps TCG's per-call overhead (~0.7 ms) small beside it.
SPIN_US=5000
probe_case block 0 20 50
cpu0=$(probe_value cpu_us_per_call)
h0=$(handbacks irq) k0=$(ll_costs)
probe_case block $SPIN_US 20 50
idle_handbacks=$(($(handbacks irq) - h0))
cost_since "$k0"
cpu=$(probe_value cpu_us_per_call)
spin=$((${cpu:-999999} - ${cpu0:-0}))
check "blocking recv, idle, sysctl $SPIN_US: spins then sleeps | spin CPU $spin us per 50 ms call, < $((2 * SPIN_US))" \
	[ "$spin" -lt $((2 * SPIN_US)) ]
spin_ran() { [ "$spin" -ge $((SPIN_US / 2)) ] && [ "$probe_passes" -gt 20 ]; }
check "blocking recv, idle: the spin ran | CPU $spin us >= $((SPIN_US / 2)) per call, $probe_passes ll passes" spin_ran
# No signal comes here, but another task woken on the spinning CPU ends
# its wait early (a reschedule, counted with signals as ll_wait_intr):
# under TCG about one 5 ms spin in 20. A few, not most.
idle_waits_by_window() {
	[ "$cost_waits" -eq 20 ] && [ "$cost_data" -eq 0 ] && [ "$cost_intr" -le 5 ] && cost_adds_up
}
check "blocking recv, idle: the 20 waits ended by their window (at most 5 by a reschedule), none with data, the counters add up | $(cost_line)" \
	idle_waits_by_window
# the 20 spins of 5 ms that found nothing are counted as empty pass time
check "blocking recv, idle: the empty passes' time covers the spins | $((cost_empty_ns / 1000)) us for 20 spins of $SPIN_US us" \
	[ $((cost_empty_ns / 1000)) -ge $((20 * SPIN_US / 2)) ]
# the hold timer never runs while a socket polls: each spin ends with
# the idle exit's hand-back
check "blocking recv, idle: each spin handed the interrupt back before sleeping | +$idle_handbacks for 20 calls" \
	[ "$idle_handbacks" -ge 20 ]
i0=$(irq_count eth0)
check "after the idle spins, eth0 answers by interrupt" ping -c 3 -i 0.2 -W 3 -I eth0 "$SERVER_ADDR"
check "after the idle spins, eth0's queue interrupts fire | +$(($(irq_count eth0) - i0))" \
	[ "$(irq_count eth0)" -gt "$i0" ]

# A MSG_PEEK reader whose peek offset is past all it holds: the data sits
# in UDP's reader_queue, so each wait ends after its first pass instead of
# spinning the window on an empty receive queue.
probe_case peek $SPIN_US 10 50
check "MSG_PEEK past the data: each recv times out with EAGAIN, the 4 datagrams stay queued | $probe_out" \
	sh -c "echo '$probe_out' | grep -q '^EAGAIN .* peeked=4 queued=4\$'"
# Each call makes two passes, the wait's and the last one after its
# timeout (UDP's receive), and the final drain one: 21. A wait that spun
# its window would make hundreds.
peek_passes_ok() { [ "$probe_passes" -ge 10 ] && [ "$probe_passes" -le 30 ]; }
check "MSG_PEEK past the data: the reader_queue ends each wait after its first pass | $probe_passes ll passes for 10 calls, 10-30" \
	peek_passes_ok

k0=$(ll_costs)
probe_case signal 1000000 50
cost_since "$k0"
after=$(probe_value after_signal_us)
check "a signal during a spin: the wait is counted as interrupted | $(cost_line)" \
	[ "$cost_intr" -ge 1 ]
check "a signal during a 1 s spin: EINTR within 200 ms | ${after:-?} us" \
	sh -c "echo '$probe_out' | grep -q '^EINTR' && [ ${after:-999999} -ge 0 ] && [ ${after:-999999} -lt 200000 ]"

# interface down while a socket spins on its rings
rm -rf /tmp/probe-sync
echo 1000000 >"$LL_SYSCTL"
"$PROBE" block "$CLIENT_ADDR" 12001 5 1000 >/tmp/probe-down.out 2>&1 &
dpid=$!
sleep 0.3
ip netns exec peer "$PROBE" send "$CLIENT_ADDR" 12001 3
sleep 0.5
if timeout 20 ip link set eth0 down; then
	ok "ip link set down while a socket spins: returns"
else
	not_ok "ip link set down while a socket spins: returns"
fi
ip link set eth0 up
wait "$dpid"
echo 0 >"$LL_SYSCTL"
wait_oper_up "" eth0
check "after down/up, traffic resumes" ping -c 2 -W 3 -I eth0 "$SERVER_ADDR"

# module removal after ll polling: sockets carry only a NAPI ID
echo $WINDOW_US >"$LL_SYSCTL"
"$PROBE" block "$CLIENT_ADDR" 12002 200 20 >/tmp/probe-rmmod.out 2>&1 &
rpid=$!
sleep 0.3
ip netns exec peer "$PROBE" send "$CLIENT_ADDR" 12002 3
sleep 1
check "rmmod igb while a socket with its NAPI ID keeps polling" rmmod igb
wait "$rpid"
echo 0 >"$LL_SYSCTL"
check "modprobe igb again" modprobe igb
ip netns del peer 2>/dev/null
check "after re-modprobe: network comes back" /llpoll/vm/guest/net-setup
check "after re-modprobe: ping crosses the hub" ping -c 2 -W 3 -I eth0 "$SERVER_ADDR"
