# shellcheck shell=sh
# The two-NIC topology: eth1 in namespace peer, ping across the QEMU hub.

check "network setup: eth0 here, eth1 in namespace peer" /llpoll/vm/guest/net-setup
check "ping crosses the hub from eth0 to eth1 in peer" ping -c 3 -W 2 -I eth0 "$SERVER_ADDR"
check "ping crosses the hub from peer back to eth0" ip netns exec peer ping -c 3 -W 2 "$CLIENT_ADDR"
