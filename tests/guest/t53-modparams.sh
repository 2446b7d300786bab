# shellcheck shell=sh
# shellcheck disable=SC2154 # set by reliability.sh and lib.sh
# Reliability, module parameters: bad ones refused, out-of-range ones named.
# shellcheck source=tests/guest/reliability.sh
. /llpoll/tests/guest/reliability.sh

# ---- module parameters: bad ones refused, out-of-range ones named ----
rmmod igb
# modprobe_refused MODULE PARAM
modprobe_refused() {
	dmesg -C
	if modprobe "$1" "$2" 2>/dev/null; then
		rmmod "$1"
		return 1
	fi
	[ ! -e "/sys/module/$1" ] && dmesg | grep -q "invalid for parameter \`${2%%=*}'"
}
for p in debug=abc debug=99999999999; do
	check "modprobe igb $p is refused, igb stays unloaded, dmesg names the parameter" modprobe_refused igb "$p"
done
for p in debug=abc allow_unsupported_sfp=maybe; do
	check "modprobe ixgbe $p is refused, ixgbe stays unloaded, dmesg names the parameter" modprobe_refused ixgbe "$p"
done
# out_of_range_named MODULE: debug=99 loads with a warning naming it
out_of_range_named() {
	dmesg -C
	modprobe "$1" debug=99 && dmesg | grep -q "$1: debug=99 is out of range" && rmmod "$1"
}
check "modprobe ixgbe debug=99 loads and dmesg says debug=99 is out of range" out_of_range_named ixgbe
check "modprobe igb debug=99 loads and dmesg says debug=99 is out of range" out_of_range_named igb
check "network back after the parameter checks" /llpoll/vm/guest/net-setup
echo "# figure: reliability seconds=$(($(date +%s) - reliability_start)) soak_secs=$SOAK_SECS cycles=$SOAK_CYCLES kernel=$(uname -r)"
