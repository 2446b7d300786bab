// SPDX-License-Identifier: GPL-2.0-only
/*
 * llpoll-xdp: attach, replace or detach a native (driver mode) XDP program
 * on a NIC, for the reliability suite's XDP faults. The programs are two
 * instructions (return the action), loaded through bpf(2), so the guest
 * needs neither a BPF compiler nor libbpf.
 *
 *   llpoll-xdp IFACE pass|drop|tx   attach a program returning XDP_PASS,
 *                                   XDP_DROP or XDP_TX, replacing any
 *   llpoll-xdp IFACE off            detach
 * Exit status: 0 done, 1 the kernel refused, 2 usage.
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static int prog_load(int action)
{
	struct bpf_insn insns[] = {
		/* r0 = action; return r0 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = action },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.insns = (unsigned long)insns;
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		fprintf(stderr, "llpoll-xdp: BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	return fd;
}

/* RTM_SETLINK with IFLA_XDP { IFLA_XDP_FD, IFLA_XDP_FLAGS = driver mode } */
struct xdp_req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	struct nlattr xdp;
	struct nlattr fd_attr;
	int fd;
	struct nlattr flags_attr;
	unsigned int flags;
};

static int xdp_set(int ifindex, int prog_fd)
{
	struct xdp_req req;
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t n;
	int s;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_SETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifindex;
	req.xdp.nla_type = IFLA_XDP | NLA_F_NESTED;
	req.xdp.nla_len = sizeof(req) - offsetof(struct xdp_req, xdp);
	req.fd_attr.nla_type = IFLA_XDP_FD;
	req.fd_attr.nla_len = sizeof(req.fd_attr) + sizeof(req.fd);
	req.fd = prog_fd;
	req.flags_attr.nla_type = IFLA_XDP_FLAGS;
	req.flags_attr.nla_len = sizeof(req.flags_attr) + sizeof(req.flags);
	req.flags = XDP_FLAGS_DRV_MODE;

	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0 || sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("llpoll-xdp: netlink");
		return -1;
	}
	n = recv(s, &ack, sizeof(ack), 0);
	close(s);
	if (n < (ssize_t)sizeof(ack) || ack.nh.nlmsg_type != NLMSG_ERROR) {
		fprintf(stderr, "llpoll-xdp: no netlink acknowledgement\n");
		return -1;
	}
	if (ack.err.error) {
		fprintf(stderr, "llpoll-xdp: RTM_SETLINK IFLA_XDP: %s\n", strerror(-ack.err.error));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int action; } modes[] = {
		{ "pass", XDP_PASS }, { "drop", XDP_DROP }, { "tx", XDP_TX }, { "off", -1 },
	};
	unsigned int ifindex, i;
	int fd = -1;

	if (argc != 3)
		goto usage;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[2], modes[i].name))
			break;
	if (i == sizeof(modes) / sizeof(modes[0]))
		goto usage;
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "llpoll-xdp: no interface '%s'\n", argv[1]);
		return 2;
	}
	if (modes[i].action >= 0) {
		fd = prog_load(modes[i].action);
		if (fd < 0)
			return 1;
	}
	/* the link holds the program: it stays attached after we exit */
	return xdp_set(ifindex, fd) ? 1 : 0;
usage:
	fprintf(stderr, "usage: llpoll-xdp IFACE pass|drop|tx|off\n");
	return 2;
}
