// SPDX-License-Identifier: GPL-2.0-only
/*
 * paced-client: the bench's paced request/response client (bench/guest-
 * matrix, load mpsN), against a sockperf UDP server.
 *
 *   paced-client ADDR PORT SIZE SECS RATE
 *
 * Sends a SIZE-byte request to ADDR:PORT (IPv4) every 1/RATE s on a fixed
 * schedule, one request in flight, and reads each reply with a blocking
 * recv(). Between a reply and the next request it sleeps
 * (clock_nanosleep): sockperf's own under-load client waits for the next
 * send time by spinning on the clock and reads replies in a second
 * thread, which fills the client's CPU and makes the server's waits
 * irregular. A request whose reply takes longer than the period delays
 * the schedule: the next one goes at once.
 *
 * The requests carry sockperf's message header (sequence number, flags
 * client and pong request, length; network byte order), so that sockperf's
 * server answers them. The output is sockperf's summary (the lines
 * vm/guest/lib.sh's sockperf_stat and sockperf_percentiles read): latency
 * as sockperf reports it, half the round trip, in µs, over the requests
 * after the first 400 ms (the warm-up). A request with no reply within
 * 200 ms counts as dropped. The last line is the client's own CPU time
 * per request (getrusage), the proof that it sleeps.
 * Exit status: 0 done, 1 no reply at all, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#define WARMUP_NS	400000000LL
#define REPLY_TIMEOUT_MS 200
/* sockperf's message header on the wire: u64 sequence, u16 flags, u32 length */
#define HDR_FLAGS_OFF	8
#define HDR_LEN_OFF	10
#define HDR_SIZE	14
#define FLAG_CLIENT	1
#define FLAG_PONG	2
#define SIZE_MAX_UDP	65507

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(long long ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* a whole number in [lo, hi], or a usage error naming it */
static long whole(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "paced-client: %s must be a whole number %ld..%ld, not '%s'\n",
			name, lo, hi, s);
		exit(2);
	}
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void put_header(unsigned char *buf, uint64_t seq, uint32_t len)
{
	uint32_t hi = htonl((uint32_t)(seq >> 32)), lo = htonl((uint32_t)seq);
	uint16_t flags = htons(FLAG_CLIENT | FLAG_PONG);

	len = htonl(len);
	memcpy(buf, &hi, 4);
	memcpy(buf + 4, &lo, 4);
	memcpy(buf + HDR_FLAGS_OFF, &flags, 2);
	memcpy(buf + HDR_LEN_OFF, &len, 4);
}

static uint64_t seq_of(const unsigned char *buf)
{
	uint32_t hi, lo;

	memcpy(&hi, buf, 4);
	memcpy(&lo, buf + 4, 4);
	return (uint64_t)ntohl(hi) << 32 | ntohl(lo);
}

/* sockperf's percentile: the observation at that rank of the sorted ones */
static double percentile(const double *v, long n, double p)
{
	long k = (long)ceil(p / 100 * n) - 1;

	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

int main(int argc, char **argv)
{
	static const double pcts[] = { 99.999, 99.99, 99.9, 99, 90, 75, 50, 25 };
	static unsigned char req[SIZE_MAX_UDP], rep[SIZE_MAX_UDP];
	long long start, period, next, end, warm_end, t0, t1, now;
	long size, secs, rate, sent = 0, got = 0, dropped = 0, n = 0, i;
	struct timeval tv = { 0, REPLY_TIMEOUT_MS * 1000 };
	struct sockaddr_in to;
	double *lat, sum = 0, sq = 0, avg, sd;
	struct rusage ru;
	uint64_t seq;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: paced-client ADDR PORT SIZE SECS RATE\n");
		return 2;
	}
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
		fprintf(stderr, "paced-client: ADDR must be an IPv4 address, not '%s'\n", argv[1]);
		return 2;
	}
	to.sin_port = htons(whole("PORT", argv[2], 1, 65535));
	size = whole("SIZE", argv[3], HDR_SIZE, SIZE_MAX_UDP);
	secs = whole("SECS", argv[4], 1, 3600);
	rate = whole("RATE", argv[5], 1, 100000);
	lat = calloc((size_t)(secs * rate + 2), sizeof(*lat));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!lat || fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("paced-client: setup");
		return 2;
	}
	memset(req, 0, sizeof(req));
	period = 1000000000LL / rate;
	start = now_ns();
	warm_end = start + WARMUP_NS;
	end = start + secs * 1000000000LL;
	for (seq = 1, next = start; next < end; seq++, next += period) {
		sleep_until(next);
		put_header(req, seq, (uint32_t)size);
		t0 = now_ns();
		if (send(fd, req, size, 0) != size) {
			perror("paced-client: send");
			return 2;
		}
		for (;;) {
			ssize_t r = recv(fd, rep, sizeof(rep), 0);

			t1 = now_ns();
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				t1 = -1;
				break;
			}
			/* a late reply to an earlier request: skip it */
			if (r >= HDR_SIZE && seq_of(rep) == seq)
				break;
		}
		/*
		 * behind the schedule (in the warm-up too): the next request
		 * goes at once, and the schedule restarts from it rather
		 * than sending the missed ones back to back
		 */
		now = now_ns();
		if (next + period < now)
			next = now - period;
		if (t0 < warm_end)
			continue;
		sent++;
		if (t1 < 0) {
			dropped++;
		} else {
			got++;
			lat[n++] = (t1 - t0) / 2000.0;
		}
	}
	if (!n) {
		fprintf(stderr, "paced-client: no reply from %s:%s\n", argv[1], argv[2]);
		return 1;
	}
	for (i = 0; i < n; i++)
		sum += lat[i];
	avg = sum / n;
	for (i = 0; i < n; i++)
		sq += (lat[i] - avg) * (lat[i] - avg);
	sd = sqrt(sq / n);
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("sockperf: [paced client] %ld requests/s of %ld bytes, sleeping between requests\n",
	       rate, size);
	printf("sockperf: [Valid Duration] RunTime=%.3f sec; SentMessages=%ld; ReceivedMessages=%ld\n",
	       (end - warm_end) / 1e9, sent, got);
	printf("sockperf: ====> avg-latency=%.3f (std-dev=%.3f)\n", avg, sd);
	printf("sockperf: # dropped messages = %ld; # duplicated messages = 0; # out-of-order messages = 0\n",
	       dropped);
	printf("sockperf: Total %ld observations\n", n);
	printf("sockperf: ---> <MAX> observation = %.3f\n", lat[n - 1]);
	for (i = 0; i < (long)(sizeof(pcts) / sizeof(pcts[0])); i++)
		printf("sockperf: ---> percentile %.3f = %.3f\n", pcts[i], percentile(lat, n, pcts[i]));
	printf("sockperf: ---> <MIN> observation = %.3f\n", lat[0]);
	getrusage(RUSAGE_SELF, &ru);
	printf("sockperf: [paced client] cpu_us_per_request=%.1f\n",
	       ((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
		ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / (double)(seq - 1));
	return 0;
}
