# shellcheck shell=sh
# shellcheck disable=SC2154 # set by reliability.sh and lib.sh
# Reliability, faults: each SOAK_CYCLES times under ping-pong and iperf3.
# shellcheck source=tests/guest/reliability.sh
. /llpoll/tests/guest/reliability.sh

# ---- faults, each SOAK_CYCLES times under ping-pong and iperf3 ----
# resume_ms: ms until an ll-polled UDP request gets its reply again
resume_ms() {
	rs_t0=$(date +%s%N)
	while :; do
		if "$TRAFFIC" udp-ping "$SERVER_ADDR" $ECHO_PORT 200 100 | grep -q 'replies=[1-9]'; then
			echo $((($(date +%s%N) - rs_t0) / 1000000))
			return 0
		fi
		[ $((($(date +%s%N) - rs_t0) / 1000000000)) -lt $RESUME_S ] || return 1
	done
}
# fault_cycles NAME KEEP CMD...: CMD CYCLE for each cycle; KEEP 1 when the
# rings (and so the ll counters) survive the fault
fault_cycles() {
	fc_name=$1 fc_keep=$2
	shift 2
	fc_i=0 fc_failed=0 fc_slow=0 fc_max=0 fc_insane=0 fc_unpolled=0
	fc_t0=$(date +%s)
	while [ $fc_i -lt "$SOAK_CYCLES" ]; do
		nic_snapshot /tmp/fault.before
		"$@" $fc_i >/tmp/fault.log 2>&1 || { fc_failed=$((fc_failed + 1)); sed 's/^/# /' /tmp/fault.log | tail -n 5; }
		if ms=$(resume_ms); then
			[ "$ms" -le "$fc_max" ] || fc_max=$ms
		else
			fc_slow=$((fc_slow + 1))
		fi
		nic_snapshot /tmp/fault.after
		ll_sane /tmp/fault.before /tmp/fault.after "$fc_keep" || fc_insane=$((fc_insane + 1))
		# the echo server's socket is unconnected: it must find eth1's
		# queue again (its NAPI ID may be stale) within 300 ms of traffic
		# (a hundred round trips or more)
		fc_c0=$(peer_cleaned)
		"$TRAFFIC" udp-ping "$SERVER_ADDR" $ECHO_PORT 300 100 >/dev/null
		[ "$(peer_cleaned)" -gt "$fc_c0" ] || fc_unpolled=$((fc_unpolled + 1))
		fc_i=$((fc_i + 1))
		fc_each=$((($(date +%s) - fc_t0) / fc_i))
		echo "# fault $fc_name: cycle $fc_i of $SOAK_CYCLES, ${fc_each} s each, about $((fc_each * (SOAK_CYCLES - fc_i))) s to go"
	done
	check "fault $fc_name: $SOAK_CYCLES cycles under traffic, every step succeeded | $fc_failed failed" [ $fc_failed -eq 0 ]
	check "fault $fc_name: traffic resumed within $RESUME_S s every time | slowest $fc_max ms, $fc_slow too slow" [ $fc_slow -eq 0 ]
	fc_sane="no wrap"
	[ "$fc_keep" != 1 ] || fc_sane="no wrap, monotonic"
	check "fault $fc_name: ll counters sane after every cycle ($fc_sane)" [ $fc_insane -eq 0 ]
	check "fault $fc_name: the unconnected echo server polled eth1 within 300 ms after every cycle | $fc_unpolled cycles without" \
		[ $fc_unpolled -eq 0 ]
	echo "# figure: fault $fc_name cycles=$SOAK_CYCLES max_resume_ms=$fc_max seconds=$(($(date +%s) - fc_t0))"
}
# a cycle works on eth0, then on eth1 in peer, in turn
nic_of() { if [ $(($1 % 2)) -eq 0 ]; then echo eth0; else echo eth1; fi; }
ns_of() { if [ $(($1 % 2)) -eq 0 ]; then echo ""; else echo peer; fi; }
in_cycle_ns() { # CYCLE CMD...: CMD in the namespace of the cycle's NIC
	ic_ns=$(ns_of "$1")
	shift
	in_ns "$ic_ns" "$@"
}
cycle_nic_up() { wait_oper_up "$(ns_of "$1")" "$(nic_of "$1")"; }
link_flap() {
	n=$(nic_of "$1")
	in_cycle_ns "$1" ip link set "$n" down && sleep 0.2 &&
		in_cycle_ns "$1" ip link set "$n" up && cycle_nic_up "$1"
}
# sizes and channel counts go one way for a cycle on each NIC, then back
ring_resize() {
	if [ $(($1 / 2 % 2)) -eq 0 ]; then size=512; else size=256; fi
	in_cycle_ns "$1" ethtool -G "$(nic_of "$1")" rx $size tx $size && cycle_nic_up "$1"
}
channels0=$(ethtool -l eth0 | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2; exit }')
channel_change() {
	if [ $(($1 / 2 % 2)) -eq 0 ]; then cnt=1; else cnt=$channels0; fi
	in_cycle_ns "$1" ethtool -L "$(nic_of "$1")" combined "$cnt" && cycle_nic_up "$1"
}
gro_toggle() {
	n=$(nic_of "$1")
	in_cycle_ns "$1" ethtool -K "$n" gro off && sleep 0.2 && in_cycle_ns "$1" ethtool -K "$n" gro on
}
module_reload() {
	rmmod igb && modprobe igb && /llpoll/vm/guest/net-setup
}
# NAPI in a kernel thread instead of softirq, then back
threaded_toggle() {
	n=$(nic_of "$1")
	in_cycle_ns "$1" sh -c "echo 1 >/sys/class/net/$n/threaded && sleep 0.5 && echo 0 >/sys/class/net/$n/threaded"
}
# RPS steers every RX queue's packets to both CPUs, then off
rps_toggle() {
	n=$(nic_of "$1")
	in_cycle_ns "$1" sh -c "for q in /sys/class/net/$n/queues/rx-*/rps_cpus; do echo 3 >\$q; done &&
		sleep 0.5 && for q in /sys/class/net/$n/queues/rx-*/rps_cpus; do echo 0 >\$q; done"
}
# RX refill failures through fail_page_alloc, limited by its task filter
# to the tasks that refill igb's rings from process context: ip while it
# brings eth0 up, and the ping-pong client whose ll polls refill too.
# (fail_function on a driver function would be narrower, but 6.1's
# should_fail() draws its random number in the kprobe's int3 context and
# lockdep reports that as an inconsistent lock state.)
FPA=/sys/kernel/debug/fail_page_alloc
refill_failures() {
	echo 1 >"/proc/$fault_ping/make-it-fail" && echo 50 >$FPA/probability &&
		sh -c 'echo 1 >/proc/self/make-it-fail && ip link set eth0 down && exec ip link set eth0 up' &&
		sleep 1 && echo 0 >$FPA/probability && echo 0 >"/proc/$fault_ping/make-it-fail" && wait_oper_up "" eth0
}
alloc_failed() { nic_sum "" eth0 '^rx_queue_[0-9]+_alloc_failed:$'; }
# XDP: attaching a program resets igb's rings, replacing it swaps the
# rings' program pointers under traffic, detaching resets them again
xdp_cycle() {
	n=$(nic_of "$1")
	for xc_mode in pass drop tx pass; do
		in_cycle_ns "$1" "$XDP" "$n" $xc_mode && sleep 0.2 || return 1
	done
	in_cycle_ns "$1" ip link show dev "$n" | grep -q 'prog/xdp' &&
		in_cycle_ns "$1" "$XDP" "$n" off && cycle_nic_up "$1" &&
		! in_cycle_ns "$1" ip link show dev "$n" | grep -q 'prog/xdp'
}
# netconsole: a configfs target on eth0 (netconsole binds only devices of
# the initial namespace) to a port nobody listens on in peer, so peer's
# Udp NoPorts counts what arrived; a flood of kernel messages through it.
# When eth0's TX lock is busy, netpoll polls eth0's NAPIs with budget 0.
NC=/sys/kernel/config/netconsole/llpoll
NC_MSGS=500
netconsole_ready() {
	modprobe netconsole || return 1
	[ -d "${NC%/*}" ] || mount -t configfs none /sys/kernel/config
	[ -d "${NC%/*}" ]
}
netconsole_noports() { proc_counter /proc/net/snmp Udp NoPorts peer; }
# netconsole_out SINCE: peer has counted all of this cycle's messages
netconsole_out() { [ $(($(netconsole_noports) - $1)) -ge $NC_MSGS ]; }
netconsole_flood() {
	nf_np0=$(netconsole_noports)
	mkdir $NC && echo eth0 >$NC/dev_name && echo "$CLIENT_ADDR" >$NC/local_ip &&
		echo "$SERVER_ADDR" >$NC/remote_ip && echo 6666 >$NC/remote_port &&
		ip netns exec peer cat /sys/class/net/eth1/address >$NC/remote_mac && echo 1 >$NC/enabled || return 1
	nf_i=0
	while [ $nf_i -lt $NC_MSGS ]; do
		echo "<4>llpoll netconsole flood $1 $nf_i" >/dev/kmsg
		nf_i=$((nf_i + 1))
	done
	# the target goes only once its messages are out: the consoles print
	# after the write returns (on the other CPU, or from netpoll's queue
	# when eth0 was busy), and a disabled target drops what is left; a
	# message still missing after 20 s counts as lost below
	wait_until 200 netconsole_out "$nf_np0" || true
	echo 0 >$NC/enabled && rmdir $NC
}
# 3 more udp-ping clients: 4 pollers on eth0 through a fault
extra_pollers_start() {
	xp_pids=""
	for xp_i in 1 2 3; do
		"$TRAFFIC" udp-ping "$SERVER_ADDR" $ECHO_PORT $((SOAK_CYCLES * 120000)) 100 >/tmp/extra-ping-$xp_i.out &
		xp_pids="$xp_pids $!"
	done
}
extra_pollers_stop() { # true when each got replies
	# shellcheck disable=SC2086 # one word per pid
	kill $xp_pids 2>/dev/null
	# shellcheck disable=SC2086
	wait $xp_pids 2>/dev/null
	! grep -L 'replies=[1-9]' /tmp/extra-ping-[123].out | grep -q .
}

echo "$WINDOW_US" >"$LL_SYSCTL"
echo_start
"$TRAFFIC" udp-ping "$SERVER_ADDR" $ECHO_PORT $((SOAK_SECS * 1000000)) 100 >/tmp/fault-ping.out &
fault_ping=$!
# a lighter iperf3 than the load phase's flood: under TCG a flood makes
# every fault cycle several times slower without adding a path
load_start 20M
fault_cycles "link down/up (eth0 and eth1 in turn)" 1 link_flap
fault_cycles "ethtool -G ring resize 256/512" 1 ring_resize
fault_cycles "ethtool -L combined 1/$channels0" 0 channel_change
fault_cycles "ethtool -K gro off/on while polling" 1 gro_toggle
fault_cycles "rmmod/modprobe igb while sockets keep the old NAPI IDs" 0 module_reload
fault_cycles "threaded NAPI on/off while polling" 1 threaded_toggle
fault_cycles "RPS to both CPUs on/off while polling" 1 rps_toggle
extra_pollers_start
fault_cycles "XDP attach PASS, replace DROP/TX/PASS, detach, 4 pollers spinning" 1 xdp_cycle
check "fault XDP: the 4 pollers kept getting replies" extra_pollers_stop
if netconsole_ready; then
	echo 'p:llpoll_netpoll netpoll_poll_dev' >"$TRACING"/kprobe_events
	echo 1 >"$TRACING"/events/kprobes/llpoll_netpoll/enable
	printk0=$(cat /proc/sys/kernel/printk) devkmsg0=$(cat /proc/sys/kernel/printk_devkmsg)
	echo 5 >/proc/sys/kernel/printk	# level 4 reaches the consoles
	echo on >/proc/sys/kernel/printk_devkmsg
	# rings that no stall of the guest fills: QEMU's igb drops silently
	# what a full ring cannot take, and the flood comes in bursts
	rx_rings_big
	np0=$(netconsole_noports)
	extra_pollers_start
	fault_cycles "netconsole flood ($NC_MSGS kernel messages) on eth0, 4 pollers spinning" 1 netconsole_flood
	# netpoll polls the NAPIs only when it finds eth0's TX queue busy,
	# which a flood meets by chance (0 to 27 times in 1000 messages
	# here): up to 4 more floods until it has
	nc_extra=0
	while [ "$(kprobe_hits llpoll_netpoll)" = 0 ] && [ $nc_extra -lt 4 ]; do
		netconsole_flood "extra-$nc_extra" >/dev/null 2>&1 || break
		nc_extra=$((nc_extra + 1))
	done
	check "fault netconsole: the 4 pollers kept getting replies" extra_pollers_stop
	rx_rings_restore
	echo "$printk0" >/proc/sys/kernel/printk
	echo "$devkmsg0" >/proc/sys/kernel/printk_devkmsg
	np=$(($(netconsole_noports) - np0))
	echo 0 >"$TRACING"/events/kprobes/llpoll_netpoll/enable
	np_polls=$(kprobe_hits llpoll_netpoll)
	echo >"$TRACING"/kprobe_events
	check "fault netconsole: peer received the flood | Udp NoPorts +$np of $((SOAK_CYCLES * NC_MSGS))" \
		[ "$np" -ge $((SOAK_CYCLES * NC_MSGS)) ]
	check "fault netconsole: netpoll polled eth0's NAPIs with budget 0 | netpoll_poll_dev ${np_polls:-0} times" \
		[ "${np_polls:-0}" -gt 0 ]
	echo "# figure: fault netconsole messages=$((SOAK_CYCLES * NC_MSGS)) received=$np netpoll_poll_dev=$np_polls extra_floods=$nc_extra"
	rmmod netconsole
else
	not_ok "fault netconsole: netconsole loads with configfs targets (CONFIG_NETCONSOLE_DYNAMIC)"
fi
if [ -d $FPA ]; then
	echo 0 >$FPA/probability
	echo Y >$FPA/task-filter
	echo 0 >$FPA/min-order	# RX pages are order 0
	echo 0 >$FPA/verbose	# no stack dumps: they would read as splats
	echo -1 >$FPA/times
	af0=$(alloc_failed)
	fault_cycles "RX refill page allocations fail (fail_page_alloc, 50 %)" 1 refill_failures
	af=$(($(alloc_failed) - af0))
	check "fault injection: RX refills really failed | rx_queue_*_alloc_failed +$af" [ "$af" -gt 0 ]
	echo "# figure: fault refill alloc_failed=$af"
else
	not_ok "fault injection: $FPA exists (CONFIG_FAIL_PAGE_ALLOC)"
fi
load_stop
kill "$fault_ping"
wait "$fault_ping"
echo_stop
echo 0 >"$LL_SYSCTL"
echo "# figure: fault background ping-pong $(cat /tmp/fault-ping.out)"
check "faults: background ping-pong kept getting replies | $(cat /tmp/fault-ping.out)" grep -q 'replies=[1-9]' /tmp/fault-ping.out
