# shellcheck shell=sh
# One line of samples.csv per cell, the figures bench/report reads: from a
# sockperf ping-pong's output and what the cell's counters grew by. One
# home for the columns and their formulas, sourced by bench/guest-matrix
# (QEMU guests) and bench/two-host-samples (two real hosts), with
# vm/guest/lib.sh (sockperf_stat) sourced first.

# sample_header: samples.csv's first line
sample_header() {
	echo "mode,proto,size,window_us,hold_us,load,rep,secs,p50_us,p99_us,p999_us,max_us,avg_us,round_trips_per_s,cpu_pct,cpu_us_per_rt,irqs_per_rt,poller_share_pct,softirq_us_per_rt,time_squeeze,ctxt_per_rt,net_rx_per_rt,empty_passes_per_rt,server_cpu_us_per_rt,server_spin_empty_us_per_rt,log"
}

# sample_row MODE PROTO SIZE WINDOW HOLD LOAD REP SECS LOG: the cell's line,
# from sockperf's output LOG and these growths over the cell, of every
# CPU the measured ends ran on: d_busy, d_total and d_softirq (/proc/stat
# ticks of 1/100 s), d_irqs (the queue interrupts of the $nics NICs
# counted), d_cleaned and d_rx (packets pollers cleaned, and all the NICs
# received), d_squeeze (time_squeeze), d_ctxt (context switches), d_net_rx
# (NET_RX softirq runs), d_misses (empty poller passes), and of the
# server's end d_server_busy (its CPU's busy ticks) and d_server_empty_ns (ns
# of its NIC's poller passes that found nothing); those two are empty
# where not recorded.
# fork=1: the NICs run our fork (pollers' counters); loopback=1: no NIC
# at all.
# shellcheck disable=SC2154 # the growths are the caller's
sample_row() {
	sr_log=$9
	sr_msgs=$(sockperf_stat "$sr_log" msgs)
	sr_msgs=${sr_msgs:-0}
	sr_rtps=$(awk -v m="$sr_msgs" -v s="$(sockperf_stat "$sr_log" secs)" 'BEGIN { if (s > 0) printf "%.0f", m / s; else print 0 }')
	sr_cpu=$(awk -v b="$d_busy" -v t="$d_total" -v m="$sr_msgs" 'BEGIN {
		printf "%.1f,%.1f", t ? 100 * b / t : 0, m ? b * 10000 / m : 0 }')
	sr_nic=$(awk -v m="$sr_msgs" -v i="$d_irqs" -v n="$nics" -v c="$d_cleaned" -v r="$d_rx" \
		-v si="$d_softirq" -v fork="$fork" -v lo="$loopback" 'BEGIN {
		if (lo == 1) { printf ",,"; } else {
			printf "%.3f,", m ? i / m / n : 0	# per NIC
			if (fork == 1 && r) printf "%.1f,", 100 * c / r; else printf ","
		}
		printf "%.1f", m ? si * 10000 / m : 0 }')
	# counts that do not depend on the machine's speed, per round trip;
	# empty poller passes on the fork only
	sr_per_rt=$(awk -v m="$sr_msgs" -v x="$d_ctxt" -v n="$d_net_rx" -v e="$d_misses" \
		-v z="${d_server_empty_ns:-}" -v sb="${d_server_busy:-}" -v fork="$fork" 'BEGIN {
		if (!m) { printf ",,,,"; exit }
		printf "%.2f,%.2f,", x / m, n / m
		if (fork == 1) printf "%.2f", e / m
		printf ","
		if (sb != "") printf "%.1f", sb * 10000 / m
		printf ","
		if (fork == 1 && z != "") printf "%.1f", z / 1000 / m }')
	sr_hold=$5
	[ "$sr_hold" != - ] || sr_hold=""
	echo "$1,$2,$3,$4,$sr_hold,$6,$7,$8,$(sockperf_stat "$sr_log" 50.000),$(sockperf_stat "$sr_log" 99.000),$(sockperf_stat "$sr_log" 99.900),$(sockperf_stat "$sr_log" max),$(sockperf_stat "$sr_log" avg),$sr_rtps,$sr_cpu,$sr_nic,$d_squeeze,$sr_per_rt,$(basename "$sr_log")"
}
