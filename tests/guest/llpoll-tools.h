/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the guest tools (llpoll-probe.c, llpoll-traffic.c) share: clocks,
 * fatal errors, receive timeouts and one wait for input with poll(),
 * select() or epoll_wait(). Exit status 2 means a usage or setup error in
 * both tools.
 */
#ifndef LLPOLL_TOOLS_H
#define LLPOLL_TOOLS_H

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

/* the most sockets one wait watches (select() needs them below FD_SETSIZE) */
#define WAIT_MAX_FDS 128

enum wait_mode { WAIT_RECV, WAIT_POLL, WAIT_SELECT, WAIT_EPOLL };

static inline long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static inline void __attribute__((noreturn)) die(const char *what)
{
	perror(what);
	exit(2);
}

static inline void set_timeout_ms(int fd, long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* recv, poll, select or epoll; anything else is a usage error */
static inline enum wait_mode wait_mode_of(const char *name)
{
	static const char *const names[] = { "recv", "poll", "select", "epoll" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum wait_mode)i;
	fprintf(stderr, "wait mode: recv, poll, select or epoll, not %s\n", name);
	exit(2);
}

/* an epoll instance watching fds[0..n-1] for input, each by its index */
static inline int epoll_of(const int *fds, int n)
{
	int i, epfd = epoll_create1(0);

	if (epfd < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fds[i], &ev))
			die("epoll_ctl");
	}
	return epfd;
}

/*
 * One wait for input on fds[0..n-1] (n at most WAIT_MAX_FDS; epfd: their
 * epoll_of() instance for WAIT_EPOLL) for at most ms (-1: no limit): the
 * number of sockets with input, with their indices in ready[] when it
 * is not NULL, or -1 with errno.
 */
static inline int wait_input(enum wait_mode mode, const int *fds, int n, int epfd,
			     long ms, int *ready)
{
	struct epoll_event ev[WAIT_MAX_FDS];
	struct pollfd pfd[WAIT_MAX_FDS];
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	int i, r, maxfd = 0, k = 0;
	fd_set rd;

	if (n > WAIT_MAX_FDS) {
		fprintf(stderr, "at most %d sockets\n", WAIT_MAX_FDS);
		exit(2);
	}
	switch (mode) {
	case WAIT_EPOLL:
		r = epoll_wait(epfd, ev, n, ms);
		for (i = 0; ready && i < r; i++)
			ready[i] = ev[i].data.u32;
		return r;
	case WAIT_POLL:
		for (i = 0; i < n; i++) {
			pfd[i].fd = fds[i];
			pfd[i].events = POLLIN;
		}
		r = poll(pfd, n, ms);
		if (r <= 0)
			return r;
		for (i = 0; i < n; i++)
			if (pfd[i].revents & POLLIN) {
				if (ready)
					ready[k] = i;
				k++;
			}
		return k;
	case WAIT_SELECT:
		FD_ZERO(&rd);
		for (i = 0; i < n; i++) {
			FD_SET(fds[i], &rd);
			if (fds[i] > maxfd)
				maxfd = fds[i];
		}
		r = select(maxfd + 1, &rd, NULL, NULL, ms < 0 ? NULL : &tv);
		if (r <= 0)
			return r;
		for (i = 0; i < n; i++)
			if (FD_ISSET(fds[i], &rd)) {
				if (ready)
					ready[k] = i;
				k++;
			}
		return k;
	default:
		fprintf(stderr, "wait_input: recv is no wait for input\n");
		exit(2);
	}
}

#endif
