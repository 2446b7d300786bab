// SPDX-License-Identifier: GPL-2.0-only
/*
 * Socket probes for the llpoll guest tests, one job per subcommand:
 *   send ADDR PORT N          send N small UDP datagrams, 10 ms apart
 *   dontwait ADDR PORT        take one datagram, then recv(MSG_DONTWAIT)
 *                             on the idle socket: prints the errno name
 *   block ADDR PORT N MS      take one datagram, then N blocking recvs
 *                             that time out after MS ms: prints CPU and
 *                             wall microseconds per call
 *   signal ADDR PORT MS [MODE]
 *                             take one datagram, then a blocking wait
 *                             (MODE recv, the default, poll, select or
 *                             epoll) interrupted by SIGALRM after MS ms:
 *                             prints the errno name and the wall
 *                             microseconds from the signal to the return
 *   wait ADDR PORT N MS MODE NSOCK
 *                             NSOCK sockets on PORT.., the first takes
 *                             one datagram; then N waits for input on
 *                             all of them with poll, select or epoll
 *                             (MODE) that time out after MS ms: prints
 *                             CPU and wall microseconds per call and the
 *                             ready sockets seen
 *   epoll-add ADDR PORT       take one datagram, then add the socket to
 *                             a new epoll instance (the measured call)
 *   sockopt VAL...            set SO_BUSY_POLL to each VAL in turn on a
 *                             new UDP socket: prints OK or the errno name
 *                             for each, then value=N as read back
 * With LLPOLL_BUSY_POLL=N in the environment each socket sets its own
 * window, SO_BUSY_POLL N, before it receives.
 *   peek ADDR PORT N MS       take one datagram, peek the rest with
 *                             SO_PEEK_OFF so that they sit in UDP's
 *                             reader_queue behind the offset, then N
 *                             MSG_PEEK recvs that find nothing and time
 *                             out after MS ms: prints their errno name,
 *                             CPU and wall microseconds per call and how
 *                             many datagrams are still queued
 * A socket gets its NAPI ID from the first datagram it receives, so each
 * receiving probe takes one and drains the rest before the measured call.
 * With LLPOLL_SYNC_DIR set it then creates DIR/ready and waits for DIR/go,
 * so that the caller can switch the sysctl and read counters around the
 * measured call alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long long cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static int udp_socket(const char *addr, const char *port, int do_bind,
		      struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(atoi(port));
	if (fd < 0 || inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		perror("socket/address");
		exit(2);
	}
	if (fd >= 0 && getenv("LLPOLL_BUSY_POLL")) {
		int usec = atoi(getenv("LLPOLL_BUSY_POLL"));

		if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usec, sizeof(usec))) {
			perror("SO_BUSY_POLL");
			exit(2);
		}
	}
	if (do_bind && bind(fd, (struct sockaddr *)sin, sizeof(*sin))) {
		perror("bind");
		exit(2);
	}
	return fd;
}

static void set_timeout_ms(int fd, long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* the first datagram gives the socket its NAPI ID */
static void take_first(int fd)
{
	char buf[64];

	set_timeout_ms(fd, 20000);
	if (recv(fd, buf, sizeof(buf), 0) < 0) {
		perror("first datagram");
		exit(3);
	}
}

/* wait for the caller's go, if it asked for a handshake */
static void sync_with_caller(void)
{
	const char *dir = getenv("LLPOLL_SYNC_DIR");
	char path[256];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/ready", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/go", dir);
	while (access(path, F_OK))
		usleep(10000);
}

/* take one datagram, drain the rest, then wait for the caller's go */
static void prepare(int fd)
{
	char buf[64];

	take_first(fd);
	usleep(300000);
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	sync_with_caller();
}

/* Peek at every queued datagram with SO_PEEK_OFF on: UDP moves them to
 * its reader_queue and the offset ends past the last one, so a further
 * MSG_PEEK finds nothing while the reader_queue is not empty.
 */
static int peek_all(int fd)
{
	int off = 0, n = 0;
	char buf[64];

	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	while (recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT) > 0)
		n++;
	return n;
}

static int drain(int fd)
{
	int off = -1, n = 0;
	char buf[64];

	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

/* one wait for input on fds[0..n-1] (epfd: their epoll instance), for at
 * most ms: the number of ready sockets, or -1 with errno
 */
static int wait_input(const char *mode, const int *fds, int n, int epfd, long ms)
{
	struct epoll_event ev[64];
	struct pollfd pfd[128];
	int i, maxfd = 0;
	fd_set rd;

	if (!strcmp(mode, "epoll"))
		return epoll_wait(epfd, ev, 64, ms);
	if (!strcmp(mode, "poll")) {
		for (i = 0; i < n; i++) {
			pfd[i].fd = fds[i];
			pfd[i].events = POLLIN;
		}
		return poll(pfd, n, ms);
	}
	if (!strcmp(mode, "select")) {
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

		FD_ZERO(&rd);
		for (i = 0; i < n; i++) {
			FD_SET(fds[i], &rd);
			if (fds[i] > maxfd)
				maxfd = fds[i];
		}
		return select(maxfd + 1, &rd, NULL, NULL, ms < 0 ? NULL : &tv);
	}
	fprintf(stderr, "wait mode: poll, select or epoll, not %s\n", mode);
	exit(2);
}

static int epoll_of(const int *fds, int n)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int i, epfd = epoll_create1(0);

	for (i = 0; i < n; i++) {
		ev.data.fd = fds[i];
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fds[i], &ev)) {
			perror("epoll_ctl");
			exit(2);
		}
	}
	return epfd;
}

static long long alarm_at;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_at = now_us();
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;
	char buf[64];
	int fd;

	if (argc >= 5 && !strcmp(argv[1], "send")) {
		int i, n = atoi(argv[4]);

		fd = udp_socket(argv[2], argv[3], 0, &sin);
		for (i = 0; i < n; i++) {
			sendto(fd, "llpoll", 6, 0, (struct sockaddr *)&sin, sizeof(sin));
			usleep(10000);
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "dontwait")) {
		fd = udp_socket(argv[2], argv[3], 1, &sin);
		prepare(fd);
		errno = 0;
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0)
			printf("%s\n", errno == EAGAIN ? "EAGAIN" : strerror(errno));
		else
			printf("DATA\n");
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "block")) {
		int i, n = atoi(argv[4]);
		long long c0, t0;

		fd = udp_socket(argv[2], argv[3], 1, &sin);
		prepare(fd);
		set_timeout_ms(fd, atol(argv[5]));
		c0 = cpu_us();
		t0 = now_us();
		for (i = 0; i < n; i++)
			recv(fd, buf, sizeof(buf), 0);
		printf("cpu_us_per_call=%lld wall_us_per_call=%lld\n",
		       (cpu_us() - c0) / n, (now_us() - t0) / n);
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "peek")) {
		int i, n = atoi(argv[4]), peeked;
		const char *result = "EAGAIN";
		long long c0, t0, cpu, wall;

		fd = udp_socket(argv[2], argv[3], 1, &sin);
		take_first(fd);
		usleep(300000);
		peeked = peek_all(fd);
		sync_with_caller();
		set_timeout_ms(fd, atol(argv[5]));
		c0 = cpu_us();
		t0 = now_us();
		for (i = 0; i < n; i++) {
			if (recv(fd, buf, sizeof(buf), MSG_PEEK) >= 0)
				result = "DATA";
			else if (errno != EAGAIN)
				result = strerror(errno);
		}
		cpu = (cpu_us() - c0) / n;
		wall = (now_us() - t0) / n;
		printf("%s cpu_us_per_call=%lld wall_us_per_call=%lld peeked=%d queued=%d\n",
		       result, cpu, wall, peeked, drain(fd));
		return 0;
	}
	if (argc >= 8 && !strcmp(argv[1], "wait")) {
		int i, n = atoi(argv[4]), nsock = atoi(argv[7]), fds[128], epfd = -1, ready = 0;
		long long c0, t0;

		if (nsock < 1 || nsock > 128) {
			fprintf(stderr, "NSOCK: 1 to 128\n");
			return 2;
		}
		for (i = 0; i < nsock; i++) {
			char port[16];

			snprintf(port, sizeof(port), "%d", atoi(argv[3]) + i);
			fds[i] = udp_socket(argv[2], port, 1, &sin);
		}
		prepare(fds[0]);
		if (!strcmp(argv[6], "epoll"))
			epfd = epoll_of(fds, nsock);
		c0 = cpu_us();
		t0 = now_us();
		for (i = 0; i < n; i++) {
			int r = wait_input(argv[6], fds, nsock, epfd, atol(argv[5]));

			if (r < 0) {
				perror(argv[6]);
				return 1;
			}
			ready += r;
		}
		printf("cpu_us_per_call=%lld wall_us_per_call=%lld ready=%d\n",
		       (cpu_us() - c0) / n, (now_us() - t0) / n, ready);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "epoll-add")) {
		fd = udp_socket(argv[2], argv[3], 1, &sin);
		prepare(fd);
		epoll_of(&fd, 1);
		printf("added\n");
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "sockopt")) {
		int i, v;
		socklen_t len = sizeof(v);

		fd = socket(AF_INET, SOCK_DGRAM, 0);
		for (i = 2; i < argc; i++) {
			v = atoi(argv[i]);
			if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)))
				printf("%s ", errno == EINVAL ? "EINVAL" :
				       errno == EPERM ? "EPERM" : strerror(errno));
			else
				printf("OK ");
		}
		getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, &len);
		printf("value=%d\n", v);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "signal")) {
		struct itimerval it = { { 0, 0 }, { 0, atol(argv[4]) * 1000 } };
		const char *mode = argc >= 6 ? argv[5] : "recv";
		struct sigaction sa;
		long long done;

		fd = udp_socket(argv[2], argv[3], 1, &sin);
		prepare(fd);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;	/* no SA_RESTART: the wait fails */
		sigaction(SIGALRM, &sa, NULL);
		set_timeout_ms(fd, 0);
		if (!strcmp(mode, "recv")) {
			setitimer(ITIMER_REAL, &it, NULL);
			errno = 0;
			recv(fd, buf, sizeof(buf), 0);
		} else {
			int epfd = strcmp(mode, "epoll") ? -1 : epoll_of(&fd, 1);

			setitimer(ITIMER_REAL, &it, NULL);
			errno = 0;
			wait_input(mode, &fd, 1, epfd, -1);
		}
		done = now_us();
		printf("%s after_signal_us=%lld\n", errno == EINTR ? "EINTR" : strerror(errno),
		       alarm_at ? done - alarm_at : -1);
		return 0;
	}
	fprintf(stderr, "usage: llpoll-probe send|dontwait|block|peek|signal|wait|epoll-add|sockopt ...\n");
	return 2;
}
