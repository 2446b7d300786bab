# shellcheck shell=sh
# shellcheck disable=SC2154 # set by reliability.sh and lib.sh
# Reliability, concurrency: pollers racing for one queue, poll()/select()
# over 100 sockets, both namespaces at once.
# shellcheck source=tests/guest/reliability.sh
. /llpoll/tests/guest/reliability.sh

# ---- concurrency: pollers racing for one queue ----
channels0=$(ethtool -l eth0 | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2; exit }')
echo "$WINDOW_US" >"$LL_SYSCTL"
ethtool -L eth0 combined 1
ip netns exec peer ethtool -L eth1 combined 1
# rings no stall of the guest can fill (see loss_snapshot)
rx_rings_big
# The link resets dropped both sides' neighbours (see neigh_resolved).
check "concurrency: neighbours resolved both ways before the numbered streams" neigh_resolved
nic_snapshot /tmp/conc.before
readers_start
# conc_recv NAME NS ADDR BASEPORT NPORTS COUNT MODE CPU: a receiver in the
# background; its counts and exit status land in /tmp/conc-NAME.out. The
# first one of a case notes the loss counters for conc_check.
conc_recv() {
	[ -e /tmp/conc-losses.before ] || loss_snapshot /tmp/conc-losses.before
	rm -f "/tmp/conc-$1.out"
	(
		in_ns "$2" taskset -c "$8" "$TRAFFIC" udp-seq-recv "$3" "$4" "$5" "$6" 10000 "$7" \
			>"/tmp/conc-$1.out.tmp" 2>&1
		echo "status=$?" >>"/tmp/conc-$1.out.tmp"
		mv "/tmp/conc-$1.out.tmp" "/tmp/conc-$1.out"
	) &
}
# conc_done NAME...: wait for the receivers (each gives up after 10 s
# without data), then true if all received everything in order
conc_done() {
	for cd_name in "$@"; do
		wait_until 1200 [ -e "/tmp/conc-$cd_name.out" ] || break
	done
	for cd_name in "$@"; do
		grep -q '^status=0' "/tmp/conc-$cd_name.out" 2>/dev/null || return 1
	done
}
conc_res() { # NAME...: their received/lost lines (after conc_done)
	for cr_name in "$@"; do
		printf '; %s' "$(grep '^received' "/tmp/conc-$cr_name.out" 2>/dev/null || echo "$cr_name: no result")"
	done
}
# conc_check DESC NAME...: wait for the receivers, then one result line
# with their counts and what the loss counters say
conc_check() {
	cc_desc=$1
	shift
	if conc_done "$@"; then cc_rc=0; else cc_rc=1; fi
	loss_snapshot /tmp/conc-losses.after
	cc_where=$(losses_between /tmp/conc-losses.before /tmp/conc-losses.after)
	rm -f /tmp/conc-losses.before /tmp/conc-losses.before.udp /tmp/conc-losses.after /tmp/conc-losses.after.udp
	check "$cc_desc | $(conc_res "$@" | sed 's/^; //'); $cc_where" [ $cc_rc -eq 0 ]
}
conc_n=$((SOAK_SECS * 25))
# 2 and 4 sockets on eth0's one queue, from both CPUs
for n in 2 4; do
	names="" i=0
	while [ $i -lt $n ]; do
		conc_recv "s$n-$i" "" "$CLIENT_ADDR" $((17000 + i)) 1 "$conc_n" recv $((i % 2))
		names="$names s$n-$i" i=$((i + 1))
	done
	sleep 1
	ip netns exec peer "$TRAFFIC" udp-seq-send "$CLIENT_ADDR" 17000 $n "$conc_n" 2000
	# shellcheck disable=SC2086 # one word per receiver
	conc_check "concurrency: $n sockets poll eth0's one queue from both CPUs, nothing lost" $names
done
for mode in poll select; do
	conc_recv "$mode" "" "$CLIENT_ADDR" 18000 100 $((conc_n / 10)) "$mode" 0
	sleep 2
	ip netns exec peer "$TRAFFIC" udp-seq-send "$CLIENT_ADDR" 18000 100 $((conc_n / 10)) 5000
	conc_check "concurrency: $mode() over 100 sockets, nothing lost" "$mode"
done
# pollers in both namespaces at once, each fed from the other side
conc_recv here "" "$CLIENT_ADDR" 19000 1 "$conc_n" recv 0
conc_recv there peer "$SERVER_ADDR" 19000 1 "$conc_n" recv 1
sleep 1
ip netns exec peer "$TRAFFIC" udp-seq-send "$CLIENT_ADDR" 19000 1 "$conc_n" 2000 &
snd=$!
"$TRAFFIC" udp-seq-send "$SERVER_ADDR" 19000 1 "$conc_n" 2000
wait "$snd"
conc_check "concurrency: pollers in both namespaces at once" here there
readers_stop
nic_snapshot /tmp/conc.after
check "concurrency: ethtool -S readers in a tight loop beside the pollers | $rd_res" readers_clean
echo "# figure: concurrency poll_yields=$(($(snap_sum /tmp/conc.after '^rx_q_[0-9]+_ll_poll_yield:$') - $(snap_sum /tmp/conc.before '^rx_q_[0-9]+_ll_poll_yield:$'))) datagrams_per_socket=$conc_n"
ethtool -L eth0 combined "$channels0"
ip netns exec peer ethtool -L eth1 combined "$channels0"
rx_rings_restore
echo 0 >"$LL_SYSCTL"
