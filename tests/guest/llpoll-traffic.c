// SPDX-License-Identifier: GPL-2.0-only
/*
 * llpoll-traffic: traffic with its own loss and order checks, for the
 * reliability suite (tests/guest/t50-load.sh to t53). ADDR is an IPv4 or
 * IPv6 literal.
 *
 *   udp-echo ADDR PORT                      echo every datagram back
 *   udp-ping ADDR PORT MS TIMEOUT_MS        numbered requests to an echo
 *       server, one at a time, for MS ms or until SIGTERM: prints requests,
 *       replies, timeouts, late (a reply to an older request) and the
 *       longest time between two replies
 *   udp-seq-send ADDR PORT NPORTS COUNT GAP_US
 *       COUNT numbered datagrams to each of PORT..PORT+NPORTS-1, one round
 *       over all ports every GAP_US
 *   udp-seq-recv ADDR PORT NPORTS COUNT IDLE_MS recv|poll|select|epoll
 *       NPORTS sockets that each expect datagrams 0..COUNT-1 in order,
 *       read with blocking recv (NPORTS 1), poll(), select() or
 *       epoll_wait(); stops when
 *       all arrived or nothing came for IDLE_MS: prints received, lost
 *       (never arrived), reordered (arrived after a later one) and
 *       duplicated; exit 0 only when all arrived once and in order
 *   tcp-sink ADDR PORT BYTES                accept one connection, read
 *       BYTES and compare them with the pattern tcp-source sends
 *   tcp-source ADDR PORT BYTES              connect and send the pattern
 * Exit status: 0 all good, 1 a check failed, 2 usage or setup error.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "llpoll-tools.h"

#define MAX_PORTS WAIT_MAX_FDS

/* ADDR, an IPv4 or IPv6 literal, and PORT: the socket address' length */
static socklen_t set_addr(struct sockaddr_storage *ss, const char *addr, int port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	fprintf(stderr, "bad address %s\n", addr);
	exit(2);
}

static int bound_socket(int type, const char *addr, int port)
{
	struct sockaddr_storage sin;
	socklen_t len = set_addr(&sin, addr, port);
	int one = 1, fd = socket(sin.ss_family, type, 0);
	int rcvbuf = 4 << 20;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* room for a burst while the receiver is descheduled */
	if (type == SOCK_DGRAM)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sin, len))
		die("bind");
	return fd;
}

static void __attribute__((noreturn)) udp_echo(const char *addr, int port)
{
	int fd = bound_socket(SOCK_DGRAM, addr, port);
	struct sockaddr_storage from;
	char buf[2048];

	for (;;) {
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &len);

		if (n >= 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&from, len);
	}
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int udp_ping(const char *addr, int port, long ms, int timeout_ms)
{
	long long requests = 0, replies = 0, timeouts = 0, late = 0;
	long long end = now_us() + ms * 1000LL, last = now_us(), gap = 0;
	struct sockaddr_storage to;
	socklen_t to_len = set_addr(&to, addr, port);
	int fd = socket(to.ss_family, SOCK_DGRAM, 0);
	struct sigaction sa;
	uint64_t seq, got;

	if (fd < 0)
		die("socket");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;	/* no SA_RESTART: a wait ends at once */
	sigaction(SIGTERM, &sa, NULL);
	set_timeout_ms(fd, timeout_ms);
	for (seq = 0; !stop && now_us() < end; seq++) {
		requests++;
		if (sendto(fd, &seq, sizeof(seq), 0, (struct sockaddr *)&to,
			   to_len) < 0) {
			/* link or route gone during a fault: try again */
			timeouts++;
			usleep(timeout_ms * 1000);
			continue;
		}
		for (;;) {
			ssize_t n = recv(fd, &got, sizeof(got), 0);

			if (n < 0) {
				timeouts++;
				break;
			}
			if (n == sizeof(got) && got == seq) {
				long long t = now_us();

				replies++;
				if (t - last > gap)
					gap = t - last;
				last = t;
				break;
			}
			late++;
		}
	}
	printf("requests=%lld replies=%lld timeouts=%lld late=%lld max_gap_ms=%lld\n",
	       requests, replies, timeouts, late, gap / 1000);
	return 0;
}

static int udp_seq_send(const char *addr, int port, int nports, long count,
			long gap_us)
{
	struct sockaddr_storage to[MAX_PORTS];
	long long next = now_us(), requeued = 0;
	socklen_t to_len = 0;
	uint64_t seq;
	int fd, i, one = 1;

	for (i = 0; i < nports; i++)
		to_len = set_addr(&to[i], addr, port + i);
	fd = socket(to[0].ss_family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	/* a full qdisc drops a datagram silently unless IP_RECVERR asks for
	 * ENOBUFS: then it is sent again, so that a loss the receiver counts
	 * happened after the sender's queue
	 */
	if (to[0].ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
	else
		setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	for (seq = 0; seq < (uint64_t)count; seq++) {
		for (i = 0; i < nports; i++) {
			int tries = 0;

			/* ECONNREFUSED reports an earlier datagram's ICMP */
			while (sendto(fd, &seq, sizeof(seq), 0,
				      (struct sockaddr *)&to[i], to_len) < 0) {
				if ((errno != ENOBUFS && errno != EAGAIN &&
				     errno != ECONNREFUSED) || ++tries > 1000)
					die("sendto");
				requeued++;
				usleep(1000);
			}
		}
		next += gap_us;
		while (now_us() < next)
			usleep(next - now_us() > 2000 ? 1000 : 0);
	}
	if (requeued)
		fprintf(stderr, "udp-seq-send: %lld datagrams sent again (ENOBUFS, ICMP error)\n",
			requeued);
	return 0;
}

struct seq_sock {
	int fd;
	uint64_t max;		/* highest sequence number seen + 1 */
	unsigned char *seen;	/* one flag per expected sequence number */
};

struct seq_count {
	long received, reordered, dup, bad;
};

/* one datagram from s: in order, late (reordered), seen before or out of
 * range; false when recv() returned none
 */
static int seq_take(struct seq_sock *s, int flags, long count,
		    struct seq_count *c)
{
	uint64_t got;

	if (recv(s->fd, &got, sizeof(got), flags) != sizeof(got))
		return 0;
	if (got >= (uint64_t)count) {
		c->bad++;
	} else if (s->seen[got]) {
		c->dup++;
	} else {
		s->seen[got] = 1;
		c->received++;
		if (got + 1 < s->max)
			c->reordered++;
		else
			s->max = got + 1;
	}
	return 1;
}

static int udp_seq_recv(const char *addr, int port, int nports, long count,
			int idle_ms, const char *mode)
{
	struct seq_count c = { 0, 0, 0, 0 };
	long want = count * nports;
	struct seq_sock s[MAX_PORTS];
	int i, fds[MAX_PORTS], ready[MAX_PORTS], epfd = -1;
	enum wait_mode wait = wait_mode_of(mode);

	if ((wait == WAIT_RECV && nports != 1) || nports < 1 || nports > MAX_PORTS) {
		fprintf(stderr, "mode recv takes one port; else poll, select or epoll, at most %d ports\n",
			MAX_PORTS);
		return 2;
	}
	for (i = 0; i < nports; i++) {
		s[i].fd = bound_socket(SOCK_DGRAM, addr, port + i);
		fds[i] = s[i].fd;
		s[i].max = 0;
		s[i].seen = calloc(count, 1);
		if (!s[i].seen)
			die("calloc");
		set_timeout_ms(s[i].fd, idle_ms);
	}
	if (wait == WAIT_EPOLL)
		epfd = epoll_of(fds, nports);
	/* tell the caller the sockets are bound */
	printf("ready\n");
	fflush(stdout);
	while (c.received < want) {
		int n;

		if (wait == WAIT_RECV) {
			if (!seq_take(&s[0], 0, count, &c))
				break;
			continue;
		}
		n = wait_input(wait, fds, nports, epfd, idle_ms, ready);
		if (n < 0 && errno != EINTR)
			die(mode);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			seq_take(&s[ready[i]], MSG_DONTWAIT, count, &c);
	}
	printf("received=%ld lost=%ld reordered=%ld duplicated=%ld\n",
	       c.received, want - c.received, c.reordered, c.dup + c.bad);
	return c.received == want && !c.reordered && !c.dup && !c.bad ? 0 : 1;
}

/* the TCP stream's bytes: xorshift32, so that any loss or reorder shows */
static uint32_t pattern_state;

static unsigned char pattern_byte(long long off)
{
	if (off % 4 == 0) {
		pattern_state ^= pattern_state << 13;
		pattern_state ^= pattern_state >> 17;
		pattern_state ^= pattern_state << 5;
	}
	return pattern_state >> (8 * (off % 4));
}

static int tcp_sink(const char *addr, int port, long long bytes)
{
	int lfd = bound_socket(SOCK_STREAM, addr, port), fd;
	long long off = 0, bad = -1;
	unsigned char buf[65536];

	if (listen(lfd, 1))
		die("listen");
	printf("ready\n");
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	pattern_state = 2463534242u;
	while (off < bytes) {
		ssize_t i, n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0)
			break;
		for (i = 0; i < n; i++, off++)
			if (pattern_byte(off) != buf[i] && bad < 0)
				bad = off;
	}
	printf("bytes=%lld first_mismatch=%lld\n", off, bad);
	return off == bytes && bad < 0 ? 0 : 1;
}

static int tcp_source(const char *addr, int port, long long bytes)
{
	int fd = -1, tries;
	unsigned char buf[65536];
	struct sockaddr_storage to;
	socklen_t to_len = set_addr(&to, addr, port);
	long long off = 0;

	for (tries = 0; tries < 100; tries++) {
		fd = socket(to.ss_family, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (struct sockaddr *)&to, to_len))
			break;
		close(fd);
		fd = -1;
		usleep(100000);
	}
	if (fd < 0)
		die("connect");
	pattern_state = 2463534242u;
	while (off < bytes) {
		size_t i, n = bytes - off < (long long)sizeof(buf) ?
			      (size_t)(bytes - off) : sizeof(buf);
		ssize_t sent;

		for (i = 0; i < n; i++)
			buf[i] = pattern_byte(off + i);
		for (i = 0; i < n; i += sent) {
			sent = send(fd, buf + i, n - i, 0);
			if (sent <= 0)
				die("send");
		}
		off += n;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "udp-echo") && argc == 4)
		udp_echo(argv[2], atoi(argv[3]));
	if (!strcmp(m, "udp-ping") && argc == 6)
		return udp_ping(argv[2], atoi(argv[3]), atol(argv[4]), atoi(argv[5]));
	if (!strcmp(m, "udp-seq-send") && argc == 7 && atoi(argv[4]) > 0 &&
	    atoi(argv[4]) <= MAX_PORTS)
		return udp_seq_send(argv[2], atoi(argv[3]), atoi(argv[4]),
				    atol(argv[5]), atol(argv[6]));
	if (!strcmp(m, "udp-seq-recv") && argc == 8 && atoi(argv[4]) > 0 &&
	    atoi(argv[4]) <= MAX_PORTS)
		return udp_seq_recv(argv[2], atoi(argv[3]), atoi(argv[4]),
				    atol(argv[5]), atoi(argv[6]), argv[7]);
	if (!strcmp(m, "tcp-sink") && argc == 5)
		return tcp_sink(argv[2], atoi(argv[3]), atoll(argv[4]));
	if (!strcmp(m, "tcp-source") && argc == 5)
		return tcp_source(argv[2], atoi(argv[3]), atoll(argv[4]));
	fprintf(stderr, "usage: llpoll-traffic udp-echo|udp-ping|udp-seq-send|udp-seq-recv|tcp-sink|tcp-source ...\n");
	return 2;
}
