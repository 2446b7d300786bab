# shellcheck shell=sh
# Last: make dkms-uninstall takes the forks away and the in-tree igb is
# the one modprobe loads again.

rmmod igb 2>/dev/null
ip netns del peer 2>/dev/null
check "make dkms-uninstall runs" make -s -C /llpoll dkms-uninstall
check "dkms status lists no llpoll" sh -c "! dkms status llpoll | grep -q ."
check "/usr/src/llpoll-$LLPOLL_VERSION is gone" [ ! -e "/usr/src/llpoll-$LLPOLL_VERSION" ]
intree_path() { modinfo -n igb | grep -q "^/lib/modules/$(uname -r)/kernel/drivers/net/ethernet/intel/igb/igb.ko"; }
check "modinfo igb names the in-tree module | $(modinfo -n igb 2>&1)" intree_path
check "modprobe igb loads the in-tree igb (no version of ours)" \
	sh -c "modprobe igb && [ \"\$(cat /sys/module/igb/version 2>/dev/null)\" != '$LLPOLL_VERSION' ]"
check "in-tree igb: network up" /llpoll/vm/guest/net-setup
check "in-tree igb: no ll counters" sh -c "! ethtool -S eth0 | grep -q ll_poll_yield"
