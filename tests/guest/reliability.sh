# shellcheck shell=sh
# Helpers of the reliability suite (t50-load.sh, t51-faults.sh,
# t52-concurrency.sh, t53-modparams.sh): make check runs it short, make
# soak (tests/soak) long, through SOAK_SECS (load) and SOAK_CYCLES (cycles
# per fault). Lines "# figure:" are the numbers docs/reliability.md quotes.
# Sourced by each of those files.

SOAK_SECS=${SOAK_SECS:-40}
SOAK_CYCLES=${SOAK_CYCLES:-2}
# shellcheck disable=SC2034 # used by the t5*.sh files
XDP=${XDP:-/out/llpoll-xdp}
# shellcheck disable=SC2034
RESUME_S=20	# after a fault, traffic must flow again within this
ECHO_PORT=14000
# shellcheck disable=SC2034
WINDOW_US=${WINDOW_US:-2000}	# the polling window (ip_low_latency_poll)
# when the suite began, for its last figure
reliability_start=${reliability_start:-$(date +%s)}

NIC_ERRORS='(err|errors|drops|dropped|no_buffer_count|timeout_count):$'
# the error and drop counters of a snapshot, less QEMU's undersize count:
# QEMU's igb sends frames under 60 bytes unpadded (an 82576 pads them) and
# counts each one it receives as undersize (RUC: rx_short_length_errors,
# which igb adds into rx_errors and rx_length_errors too, hence 3x) but
# delivers it
nic_errors() {
	awk -v re="$NIC_ERRORS" '$2 ~ re { s += $3 }
		$2 == "rx_short_length_errors:" { s -= 3 * $3 } END { print s + 0 }' "$1"
}
LL_COUNTERS='^(rx|tx)_q_[0-9]+_(ll_poll_yield|misses|cleaned|napi_yield):$'
# ll_sane OLD NEW KEEP: no ll counter wrapped (all below 2^62); with KEEP
# 1 the rings survived, so none went down either
ll_sane() {
	awk -v re="$LL_COUNTERS" -v keep="$3" '
		NR == FNR { if ($2 ~ re) old[$1 " " $2] = $3; next }
		$2 ~ re { if ($3 >= 4.6e18 || $3 < 0) bad++
			  if (keep && ($1 " " $2) in old && $3 < old[$1 " " $2]) bad++ }
		END { exit bad > 0 }' "$1" "$2"
}

# background traffic: iperf3 both ways, restarted when a fault breaks a
# connection; unlimited, or at RATE (iperf3 -b) per stream. Windows of
# LOAD_WINDOW keep each stream's frames in flight to a few hundred (see
# the load phase).
LOAD_WINDOW=200K
load_start() {
	ld_rate="-w $LOAD_WINDOW${1:+ -b $1}"
	rm -f /tmp/load.stop
	ip netns exec peer iperf3 -s -p 5201 >/dev/null 2>&1 &
	ld_srv1=$!
	iperf3 -s -p 5202 >/dev/null 2>&1 &
	ld_srv2=$!
	sleep 0.5
	(while [ ! -e /tmp/load.stop ]; do
		# shellcheck disable=SC2086 # $ld_rate is empty or two words
		iperf3 -c "$SERVER_ADDR" -p 5201 -t 5 -P 2 $ld_rate >/dev/null 2>&1 || sleep 0.5
	done) &
	ld_cli1=$!
	(while [ ! -e /tmp/load.stop ]; do
		# shellcheck disable=SC2086
		ip netns exec peer iperf3 -c "$CLIENT_ADDR" -p 5202 -t 5 -P 2 $ld_rate >/dev/null 2>&1 || sleep 0.5
	done) &
	ld_cli2=$!
}
load_stop() {
	touch /tmp/load.stop
	pkill -f 'iperf3 -c' 2>/dev/null
	wait "$ld_cli1" "$ld_cli2" 2>/dev/null
	kill "$ld_srv1" "$ld_srv2" 2>/dev/null
	wait "$ld_srv1" "$ld_srv2" 2>/dev/null
}
# a UDP echo server in peer for udp-ping clients: both ends poll
echo_start() {
	ip netns exec peer taskset -c 1 "$TRAFFIC" udp-echo "$SERVER_ADDR" $ECHO_PORT &
	echo_srv=$!
	sleep 0.3
}
echo_stop() { kill "$echo_srv" 2>/dev/null; wait "$echo_srv" 2>/dev/null; }
# ethtool -S readers in a tight loop beside the pollers
readers_start() {
	rm -f /tmp/readers.stop
	(n=0 bad=0
	while [ ! -e /tmp/readers.stop ]; do
		ethtool -S eth0 >/dev/null 2>&1 || bad=$((bad + 1))
		ip netns exec peer ethtool -S eth1 >/dev/null 2>&1 || bad=$((bad + 1))
		n=$((n + 2))
	done
	echo "reads=$n failed=$bad" >/tmp/readers.res) &
	rd_pid=$!
}
readers_stop() {
	touch /tmp/readers.stop
	wait "$rd_pid"
	rd_res=$(cat /tmp/readers.res)
}
readers_clean() { # after readers_stop: some reads, none failed
	case $rd_res in "reads=0 "* | *" failed="[!0]* | *" failed=0"?*) return 1 ;; esac
}
