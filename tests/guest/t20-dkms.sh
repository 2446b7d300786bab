# shellcheck shell=sh
# The DKMS package: build and install the forks, load them.

version=$LLPOLL_VERSION
kver=$(uname -r)
t0=$(date +%s)
# through the host's compiler cache (vm/run shares it): DKMS still runs
# every step, but unchanged files are not compiled again under TCG
export CCACHE_DIR=/var/cache/llpoll-ccache
ccache -z >/dev/null 2>&1
PATH=/usr/lib/ccache:$PATH make -s -C /llpoll dkms-install >/tmp/dkms.log 2>&1 &
dkms_pid=$!
# a line a minute while it builds: cold, it takes ~15 min under TCG
dkms_ticks=0
while kill -0 "$dkms_pid" 2>/dev/null; do
	sleep 5
	dkms_ticks=$((dkms_ticks + 1))
	[ $((dkms_ticks % 12)) -eq 0 ] || continue
	dkms_cc=$(grep -c '^  CC' "/var/lib/dkms/llpoll/$version/build/make.log" 2>/dev/null || true)
	echo "# dkms: $(($(date +%s) - t0)) s, ${dkms_cc:-0} objects compiled"
done
dkms_rc=0
wait "$dkms_pid" || dkms_rc=$?
dkms_secs=$(($(date +%s) - t0))
read -r dkms_hits dkms_misses <<EOF
$(ccache --print-stats 2>/dev/null | awk '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit)$/ { h += $2 }
	$1 == "cache_miss" { m = $2 } END { print h + 0, m + 0 }')
EOF
if [ "$dkms_rc" = 0 ]; then
	ok "dkms add, build and install llpoll/$version"
	echo "# figure: dkms build $dkms_secs s, ccache $dkms_hits hits, $dkms_misses misses"
	# for the host's stage table: cached when every object came from the
	# cache vm/image filled
	dkms_state=cold
	[ "$dkms_misses" != 0 ] || dkms_state=cached
	echo "# time: dkms $dkms_secs s $dkms_state ccache $dkms_hits hits, $dkms_misses misses"
else
	not_ok "dkms add, build and install llpoll/$version"
	sed 's/^/# /' /tmp/dkms.log | tail -n 40
	find /var/lib/dkms -name make.log -exec sh -c 'sed "s/^/# /" "$1" | tail -n 30' _ {} \;
fi
# vm/image built the same package through the same cache: a miss here is
# a compile under emulation that the image should have spared
all_hits() { [ "$dkms_hits" -gt 0 ] && [ "$dkms_misses" = 0 ]; }
check "the DKMS build took every object from the compiler cache the image filled (no misses)" all_hits
# the build log dkms keeps beside the modules it installed: make's flags
# reaching dkms's make (make -s) would leave it without the compile lines
dkms_log=/var/lib/dkms/llpoll/$version/$kver/$(uname -m)/log/make.log
dkms_objects=$(grep -c '^  CC \[M\]' "$dkms_log" 2>/dev/null || true)
check "the DKMS build log names the objects it compiled | ${dkms_objects:-0} in $dkms_log" \
	[ "${dkms_objects:-0}" -gt 0 ]
check "dkms status shows llpoll installed for $kver" \
	sh -c "dkms status llpoll/$version -k $kver | grep -q ': installed'"
check "modinfo igb: our version $version from updates/dkms" \
	sh -c "modinfo -F version igb | grep -qx '$version' && modinfo -n igb | grep -q '/updates/dkms/igb.ko'"
check "modprobe igb loads the fork" sh -c "modprobe igb && [ \"\$(cat /sys/module/igb/version)\" = '$version' ]"
both_nics() { [ -e /sys/class/net/eth0 ] && [ -e /sys/class/net/eth1 ]; }
wait_until 100 both_nics || true
bound_to_igb() {
	for n in eth0 eth1; do
		[ "$(basename "$(readlink "/sys/class/net/$n/device/driver")")" = igb ] || return 1
	done
}
check "both igb NICs are bound (eth0, eth1)" bound_to_igb
check "ethtool -S has the ll counters for every queue" \
	sh -c 'ethtool -S eth0 | grep -q "rx_q_0_ll_poll_yield:" && ethtool -S eth0 | grep -q "rx_q_0_misses:" &&
		ethtool -S eth0 | grep -q "rx_q_0_cleaned:" && ethtool -S eth0 | grep -q "tx_q_0_napi_yield:" &&
		ethtool -S eth0 | grep -q "tx_q_0_misses:" && ethtool -S eth0 | grep -q "tx_q_0_cleaned:"'
