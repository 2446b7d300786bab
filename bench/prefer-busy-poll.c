// SPDX-License-Identifier: GPL-2.0-only
/*
 * LD_PRELOAD shim for the bench's best generic busy poll (stock-prefer in
 * bench/guest-matrix): every IPv4 or IPv6 socket the program opens gets
 * SO_PREFER_BUSY_POLL and SO_BUSY_POLL_BUDGET (LLPOLL_BUSY_POLL_BUDGET,
 * default 64), which sockperf has no options for. A setsockopt() that
 * fails ends the program: a peer measured without its options would
 * flatter llpoll.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL	69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET	70
#endif

int socket(int domain, int type, int protocol)
{
	static int (*real_socket)(int, int, int);
	const char *env = getenv("LLPOLL_BUSY_POLL_BUDGET");
	int fd, one = 1, budget = 64;

	if (!real_socket)
		real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	fd = real_socket(domain, type, protocol);
	if (fd < 0 || (domain != AF_INET && domain != AF_INET6))
		return fd;
	if (env)
		budget = atoi(env);
	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget))) {
		fprintf(stderr, "prefer-busy-poll: setsockopt on fd %d: %s\n", fd, strerror(errno));
		exit(1);
	}
	return fd;
}
