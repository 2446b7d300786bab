// SPDX-License-Identifier: GPL-2.0-only
/*
 * Socket probes for the llpoll guest tests, one job per subcommand:
 *   send ADDR PORT N [GAP_US] send N small UDP datagrams, GAP_US apart
 *                             (default 10 ms); from local port
 *                             LLPOLL_SRC_PORT if set, so that every
 *                             sender's datagrams hash to one RX queue;
 *                             once the file LLPOLL_SEND_AFTER exists if
 *                             set, so that a sender started early sends
 *                             at once when told
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
 *   adaptive [VAL...]         the same with SO_LL_ADAPTIVE
 * With LLPOLL_BUSY_POLL=N in the environment each socket sets its own
 * window, SO_BUSY_POLL N, before it receives; with LLPOLL_ADAPTIVE=N its
 * SO_LL_ADAPTIVE.
 *   peek ADDR PORT N MS       take one datagram, peek the rest with
 *                             SO_PEEK_OFF so that they sit in UDP's
 *                             reader_queue behind the offset, then N
 *                             MSG_PEEK recvs that find nothing and time
 *                             out after MS ms: prints their errno name,
 *                             CPU and wall microseconds per call and how
 *                             many datagrams are still queued
 *   backlog ADDR PORT         with LLPOLL_SYNC_DIR: after the handshake
 *                             below, DIR/spin and a blocking recv that
 *                             one datagram ends (a poller leaving with
 *                             data: the q_vector's interrupt hold starts),
 *                             then
 *                             DIR/held, and after DIR/burst (datagrams
 *                             sent meanwhile sit on the masked ring) one
 *                             more blocking recv; then, polling no more
 *                             (SO_BUSY_POLL 0), 200 ms later: prints how
 *                             many datagrams that recv and the socket got
 * A socket gets its NAPI ID from the first datagram it receives, so each
 * receiving probe takes one and drains the rest before the measured call.
 * With LLPOLL_SYNC_DIR set it then creates DIR/ready and waits for DIR/go,
 * so that the caller can switch the sysctl and read counters around the
 * measured call alone.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include "llpoll-tools.h"

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
	if (fd < 0 || inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
		die("socket/address");
	if (fd >= 0 && getenv("LLPOLL_BUSY_POLL")) {
		int usec = atoi(getenv("LLPOLL_BUSY_POLL"));

		if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usec, sizeof(usec)))
			die("SO_BUSY_POLL");
	}
	if (fd >= 0 && getenv("LLPOLL_ADAPTIVE")) {
		int on = atoi(getenv("LLPOLL_ADAPTIVE"));

		if (setsockopt(fd, SOL_SOCKET, SO_LL_ADAPTIVE, &on, sizeof(on)))
			die("SO_LL_ADAPTIVE");
	}
	if (do_bind && bind(fd, (struct sockaddr *)sin, sizeof(*sin)))
		die("bind");
	return fd;
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

/* create DIR/MINE, if the caller asked for a handshake (LLPOLL_SYNC_DIR) */
static void sync_mark(const char *mine)
{
	const char *dir = getenv("LLPOLL_SYNC_DIR");
	char path[256];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, mine);
	fclose(fopen(path, "w"));
}

/* sync_mark(MINE), then wait for the caller's DIR/THEIRS */
static void sync_step(const char *mine, const char *theirs)
{
	const char *dir = getenv("LLPOLL_SYNC_DIR");
	char path[256];

	if (!dir)
		return;
	sync_mark(mine);
	snprintf(path, sizeof(path), "%s/%s", dir, theirs);
	while (access(path, F_OK))
		usleep(10000);
}

static void sync_with_caller(void)
{
	sync_step("ready", "go");
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
		int i, n = atoi(argv[4]), gap = argc >= 6 ? atoi(argv[5]) : 10000;
		const char *src = getenv("LLPOLL_SRC_PORT"), *after = getenv("LLPOLL_SEND_AFTER");

		fd = udp_socket(argv[2], argv[3], 0, &sin);
		if (src) {
			struct sockaddr_in from = { .sin_family = AF_INET,
						    .sin_port = htons(atoi(src)) };
			int one = 1;

			/* senders waiting at once share the port */
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(fd, (struct sockaddr *)&from, sizeof(from)))
				die("bind LLPOLL_SRC_PORT");
		}
		while (after && access(after, F_OK))
			usleep(1000);
		for (i = 0; i < n; i++) {
			sendto(fd, "llpoll", 6, 0, (struct sockaddr *)&sin, sizeof(sin));
			if (gap)
				usleep(gap);
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
		int i, n = atoi(argv[4]), nsock = atoi(argv[7]), fds[WAIT_MAX_FDS], epfd = -1, ready = 0;
		enum wait_mode mode = wait_mode_of(argv[6]);
		long long c0, t0;

		if (nsock < 1 || nsock > WAIT_MAX_FDS) {
			fprintf(stderr, "NSOCK: 1 to %d\n", WAIT_MAX_FDS);
			return 2;
		}
		for (i = 0; i < nsock; i++) {
			char port[16];

			snprintf(port, sizeof(port), "%d", atoi(argv[3]) + i);
			fds[i] = udp_socket(argv[2], port, 1, &sin);
		}
		prepare(fds[0]);
		if (mode == WAIT_EPOLL)
			epfd = epoll_of(fds, nsock);
		c0 = cpu_us();
		t0 = now_us();
		for (i = 0; i < n; i++) {
			int r = wait_input(mode, fds, nsock, epfd, atol(argv[5]), NULL);

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
	if ((argc >= 3 && !strcmp(argv[1], "sockopt")) || (argc >= 2 && !strcmp(argv[1], "adaptive"))) {
		int opt = !strcmp(argv[1], "sockopt") ? SO_BUSY_POLL : SO_LL_ADAPTIVE;
		int i, v;
		socklen_t len = sizeof(v);

		fd = socket(AF_INET, SOCK_DGRAM, 0);
		for (i = 2; i < argc; i++) {
			v = atoi(argv[i]);
			if (setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v)))
				printf("%s ", errno == EINVAL ? "EINVAL" :
				       errno == EPERM ? "EPERM" : strerror(errno));
			else
				printf("OK ");
		}
		if (getsockopt(fd, SOL_SOCKET, opt, &v, &len))
			printf("get:%s\n", strerror(errno));
		else
			printf("value=%d\n", v);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "backlog")) {
		int off = 0, got;

		if (!getenv("LLPOLL_SYNC_DIR")) {
			fprintf(stderr, "backlog needs LLPOLL_SYNC_DIR\n");
			return 2;
		}
		fd = udp_socket(argv[2], argv[3], 1, &sin);
		prepare(fd);
		sync_mark("spin");
		take_first(fd);
		sync_step("held", "burst");
		take_first(fd);
		if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &off, sizeof(off)))
			die("SO_BUSY_POLL 0");
		usleep(200000);
		got = 1 + drain(fd);
		printf("received=%d\n", got);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "signal")) {
		struct itimerval it = { { 0, 0 }, { 0, atol(argv[4]) * 1000 } };
		enum wait_mode mode = wait_mode_of(argc >= 6 ? argv[5] : "recv");
		struct sigaction sa;
		long long done;

		fd = udp_socket(argv[2], argv[3], 1, &sin);
		prepare(fd);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;	/* no SA_RESTART: the wait fails */
		sigaction(SIGALRM, &sa, NULL);
		set_timeout_ms(fd, 0);
		if (mode == WAIT_RECV) {
			setitimer(ITIMER_REAL, &it, NULL);
			errno = 0;
			recv(fd, buf, sizeof(buf), 0);
		} else {
			int epfd = mode == WAIT_EPOLL ? epoll_of(&fd, 1) : -1;

			setitimer(ITIMER_REAL, &it, NULL);
			errno = 0;
			wait_input(mode, &fd, 1, epfd, -1, NULL);
		}
		done = now_us();
		printf("%s after_signal_us=%lld\n", errno == EINTR ? "EINTR" : strerror(errno),
		       alarm_at ? done - alarm_at : -1);
		return 0;
	}
	fprintf(stderr, "usage: llpoll-probe send|dontwait|block|peek|signal|wait|epoll-add|sockopt|backlog ...\n");
	return 2;
}
