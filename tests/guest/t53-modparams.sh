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
# ll_hold_us: 1..1000000 µs at load and at run time; a refused write
# keeps the value
for m in $LLPOLL_DRIVERS; do
	for p in ll_hold_us=0 ll_hold_us=1000001 ll_hold_us=abc ll_hold_us=-5; do
		check "modprobe $m $p is refused, $m stays unloaded, dmesg names the parameter" modprobe_refused "$m" "$p"
	done
done
# hold_param_live MODULE: loads with ll_hold_us=500, which sysfs shows;
# bad writes fail and change nothing, a good one is taken
hold_param_live() {
	hp=/sys/module/$1/parameters/ll_hold_us
	modprobe "$1" ll_hold_us=500 && [ "$(cat "$hp")" = 500 ] || return 1
	for v in 0 1000001 abc -1 ''; do
		if echo "$v" >"$hp" 2>/dev/null; then rmmod "$1"; return 1; fi
	done
	[ "$(cat "$hp")" = 500 ] && echo 1000000 >"$hp" && [ "$(cat "$hp")" = 1000000 ] &&
		echo 1 >"$hp" && [ "$(cat "$hp")" = 1 ] && rmmod "$1"
}
for m in $LLPOLL_DRIVERS; do
	check "$m ll_hold_us=500 loads; writes of 0, 1000001, abc, -1 and nothing are refused and keep 500; 1000000 and 1 are taken" \
		hold_param_live "$m"
done
check "network back after the parameter checks" /llpoll/vm/guest/net-setup
echo "# figure: reliability seconds=$(($(date +%s) - reliability_start)) soak_secs=$SOAK_SECS cycles=$SOAK_CYCLES kernel=$(uname -r)"
