# shellcheck shell=sh
# The two-NIC topology: eth1 in namespace peer, ping across the QEMU hub.

check "network setup: eth0 here, eth1 in namespace peer" /llpoll/vm/guest/net-setup
# each end's NIC interrupts only that end's CPU
eth0_cpus=$(irq_cpus eth0) eth1_cpus=$(irq_cpus eth1)
echo "# figure: CPUs of eth0's vectors: $eth0_cpus; of eth1's: $eth1_cpus"
only_cpu() { # CPU LIST: LIST has 5 entries (igb's vectors with 2 queue pairs), each CPU
	[ "$(echo "$2" | wc -w)" = 5 ] && ! echo "$2" | tr ' ' '\n' | grep -qvx "$1"
}
nics_pinned() { only_cpu "$CLIENT_CPU" "$eth0_cpus" && only_cpu "$SERVER_CPU" "$eth1_cpus"; }
check "network setup: eth0's 5 vectors interrupt only the client's CPU, eth1's only the server's" nics_pinned
check "ping crosses the hub from eth0 to eth1 in peer" ping -c 3 -W 2 -I eth0 "$SERVER_ADDR"
check "ping crosses the hub from peer back to eth0" ip netns exec peer ping -c 3 -W 2 "$CLIENT_ADDR"
