# shellcheck shell=sh
# The patched test kernel and the ip_low_latency_poll sysctl.

case $(uname -r) in
*-llpoll-test) ok "guest runs the patched test kernel ($(uname -r))" ;;
*) not_ok "guest runs the patched test kernel (got $(uname -r))" ;;
esac
check "CONFIG_INET_LL_RX_POLL and CONFIG_INET_LL_TCP_POLL are built in" \
	sh -c 'zcat /proc/config.gz | grep -qx CONFIG_INET_LL_RX_POLL=y && zcat /proc/config.gz | grep -qx CONFIG_INET_LL_TCP_POLL=y'
check "net.ipv4.ip_low_latency_poll exists and defaults to 0" \
	[ "$(cat "$LL_SYSCTL" 2>&1)" = 0 ]
check "LowLatencyRxPackets is in /proc/net/netstat and starts at 0" \
	[ "$(proc_counter /proc/net/netstat TcpExt LowLatencyRxPackets)" = 0 ]

# a value is written as a line, as echo and sysctl -w do
sysctl_accepts() {
	printf '%s\n' "$1" >"$LL_SYSCTL" 2>/dev/null && [ "$(cat "$LL_SYSCTL")" = "$1" ]
}
sysctl_rejects() {
	echo 77 >"$LL_SYSCTL"
	# dd makes one write(2) and names its errno
	if printf '%s\n' "$1" | dd of="$LL_SYSCTL" status=none 2>/tmp/sysctl.err; then
		return 1
	fi
	grep -q 'Invalid argument' /tmp/sysctl.err && [ "$(cat "$LL_SYSCTL")" = 77 ]
}
for v in 0 1 2000 1000000; do
	check "sysctl accepts $v" sysctl_accepts "$v"
done
for v in -1 1000001 2147483648 abc '' ' '; do
	check "sysctl rejects '$v' with EINVAL and keeps the old value" sysctl_rejects "$v"
done
echo 0 >"$LL_SYSCTL"
ip netns add sysctl-probe
check "the sysctl is global: not visible in a child namespace" \
	ip netns exec sysctl-probe sh -c '! test -e /proc/sys/net/ipv4/ip_low_latency_poll'
ip netns del sysctl-probe

# the clocks QEMU's machine offers a Debian kernel: the timers that shape
# latency come from the HPET, which the guest finds through ACPI
# (vm/config/llpoll.config keeps ACPI for it)
cs=/sys/devices/system/clocksource/clocksource0
clocks=$(cat $cs/available_clocksource 2>/dev/null)
has_hpet() { case " $clocks " in *" hpet "*) return 0 ;; esac; return 1; }
check "the guest's HPET is a clocksource, found through ACPI | available: $clocks; current: $(cat $cs/current_clocksource 2>/dev/null)" \
	has_hpet
