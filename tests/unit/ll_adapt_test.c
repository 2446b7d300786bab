// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the adaptive window's rule, include/net/ll_adapt.h from
 * core-hook/ (tests/run extracts it), compiled in userspace against
 * tests/unit/shim: arrival sequences of the traffic a socket meets (a
 * ping-pong, an idle socket, requests further apart than the window, an
 * idle spell then a ping-pong, a spread of turnarounds, random traffic),
 * each wait simulated as sk_poll_ll() runs it: the bound, the nap, a spin
 * until the data or the bound, the end. Fixed-window waits of the same
 * sequences are the yardstick. Data that comes during a nap is taken as
 * found at the nap's end (its queue's interrupt held off): the delay a
 * nap can add.
 */
#include <stdio.h>
#include <stdlib.h>
#include <net/ll_adapt.h>
#include "check.h"

#define NEVER	0xffffffffu	/* no data comes for this wait */
#define WINDOW	2000

/* what a run of waits cost and bought */
struct tally {
	u64 spun_us;		/* spin time in all */
	u64 napped_us;		/* nap time in all */
	u64 delay_us;		/* data found after it came, in naps */
	unsigned int waits, spins, hits, max_bound, naps, delayed;
};

/* how much longer than asked a nap sleeps (the timer's and the
 * scheduler's delay), and every spike_every-th nap spike_us more (its CPU
 * taken by something else)
 */
static u32 oversleep, spike_every, spike_us, naps_taken;

/* one wait that begins at @now with data @arrive µs later (NEVER: none) */
static void wait_once(struct ll_adapt *a, u32 window, u32 now, u32 arrive,
		      bool adaptive, struct tally *t)
{
	u32 bound = adaptive ? ll_adapt_bound(a, window, now) : window;
	u32 nap = adaptive && bound ? ll_adapt_nap(a, bound) : 0;
	u32 slept = nap ? nap + oversleep : 0;

	if (nap && spike_every && ++naps_taken % spike_every == 0)
		slept += spike_us;

	t->waits++;
	if (bound > t->max_bound)
		t->max_bound = bound;
	if (!bound)
		return;
	t->spins++;
	if (nap) {
		t->naps++;
		t->napped_us += slept;
		ll_adapt_napped(a, nap, slept);
	}
	if (arrive < slept) {
		t->hits++;
		t->delayed++;
		t->delay_us += slept - arrive;
		ll_adapt_end(a, bound, slept, LL_ADAPT_DATA);
	} else if (arrive <= bound) {
		t->spun_us += arrive - slept;
		t->hits++;
		if (adaptive)
			ll_adapt_end(a, bound, arrive, LL_ADAPT_DATA);
	} else {
		t->spun_us += slept < bound ? bound - slept : 0;
		if (adaptive)
			ll_adapt_end(a, bound, bound, LL_ADAPT_TIMEOUT);
	}
}

/* a reproducible spread: @mean +- @spread µs */
static unsigned int lcg = 12345;

static u32 around(u32 mean, u32 spread)
{
	lcg = lcg * 1103515245 + 12345;
	return mean - spread + (lcg >> 8) % (2 * spread + 1);
}

/* @n waits @period µs apart from @start, data after around(mean, spread) */
static u32 run(struct ll_adapt *a, bool adaptive, u32 start, int n, u32 period,
	       u32 mean, u32 spread, struct tally *t)
{
	for (int i = 0; i < n; i++, start += period)
		wait_once(a, WINDOW, start, mean == NEVER ? NEVER : around(mean, spread),
			  adaptive, t);
	return start;
}

/* the same arrivals (from @seed) once adapting and once at the fixed
 * window: @ad and @fx; naps oversleep as the globals say
 */
static void run_both(struct ll_adapt *a, unsigned int seed, int n, u32 period,
		     u32 mean, u32 spread, struct tally *ad, struct tally *fx)
{
	lcg = seed;
	run(a, true, 1000, n, period, mean, spread, ad);
	lcg = seed;
	run(a, false, 1000, n, period, mean, spread, fx);
}

static void test_pingpong(void)
{
	struct ll_adapt a = { 0 };
	struct tally ad = { 0 }, fx = { 0 };
	char msg[200];

	run_both(&a, 1, 1000, 700, 300, 100, &ad, &fx);
	snprintf(msg, sizeof(msg),
		 "ping-pong, data 200-400 us into each wait: adaptive catches >= 99%% of what the fixed window does (%u of %u), spinning no longer",
		 ad.hits, fx.hits);
	CHECK(fx.hits == 1000 && ad.hits >= 990 && ad.spun_us <= fx.spun_us, msg);
	CHECK(ad.max_bound <= WINDOW, "ping-pong: no bound above the window");
	CHECK(a.avg_us >= 250 && a.avg_us <= 350, "ping-pong: the average settles near 300 us");
	snprintf(msg, sizeof(msg),
		 "ping-pong: naps take the idle start of its waits, delaying at most 1%% of the data (%u naps, %u delayed)",
		 ad.naps, ad.delayed);
	CHECK(ad.naps >= 900 && ad.delayed <= 10, msg);
}

static void test_paced(void)
{
	struct ll_adapt a = { 0 };
	struct tally ad = { 0 }, fx = { 0 };
	char msg[240];

	/* a server of requests paced 1 ms apart: data 850-950 us into each
	 * wait, well within the window
	 */
	run_both(&a, 3, 1000, 1000, 900, 50, &ad, &fx);
	snprintf(msg, sizeof(msg),
		 "paced requests, data 850-950 us into each wait: adaptive catches all the fixed window does (%u of %u) and spins at most a quarter as long (%llu vs %llu us), naps delaying at most 1%% of the data (%u)",
		 ad.hits, fx.hits, (unsigned long long)ad.spun_us,
		 (unsigned long long)fx.spun_us, ad.delayed);
	CHECK(ad.hits == fx.hits && 4 * ad.spun_us <= fx.spun_us && ad.delayed <= 10, msg);
}

static void test_oversleep(void)
{
	struct ll_adapt a = { 0 };
	struct tally ad = { 0 }, fx = { 0 };
	char msg[240];

	/* the paced requests again, where every nap sleeps 200 us longer
	 * than asked
	 */
	oversleep = 200;
	run_both(&a, 3, 1000, 1000, 900, 50, &ad, &fx);
	oversleep = 0;
	snprintf(msg, sizeof(msg),
		 "paced requests, naps oversleeping by 200 us: the margin learns it, naps delay at most 1%% of the data (%u), adaptive spins at most half as long as the fixed window (%llu vs %llu us)",
		 ad.delayed, (unsigned long long)ad.spun_us, (unsigned long long)fx.spun_us);
	CHECK(ad.hits == fx.hits && ad.delayed <= 10 && 2 * ad.spun_us <= fx.spun_us, msg);
	CHECK(a.over_us >= 190 && a.over_us <= 200, "paced requests, naps oversleeping by 200 us: the oversleep learned is 190-200 us");
}

static void test_oversleep_spikes(void)
{
	struct ll_adapt a = { 0 };
	struct tally ad = { 0 }, fx = { 0 };
	char msg[240];

	/* the paced requests, naps oversleeping by 100 us, and one in 100 by
	 * 3 ms more: one long oversleep must not stop the naps after it
	 */
	oversleep = 100;
	spike_every = 100;
	spike_us = 3000;
	naps_taken = 0;
	run_both(&a, 5, 3000, 1000, 900, 50, &ad, &fx);
	oversleep = 0;
	spike_every = 0;
	snprintf(msg, sizeof(msg),
		 "paced requests, one nap in 100 oversleeping by 3 ms: naps go on (%u of %u waits), adaptive spins at most half as long as the fixed window (%llu vs %llu us)",
		 ad.naps, ad.waits, (unsigned long long)ad.spun_us, (unsigned long long)fx.spun_us);
	CHECK(10 * ad.naps >= 9 * ad.waits && 2 * ad.spun_us <= fx.spun_us, msg);
	CHECK(a.over_us < 300, "paced requests, one nap in 100 oversleeping by 3 ms: the oversleep learned stays below 300 us");
}

static void test_no_short_nap(void)
{
	struct ll_adapt a = { 0 };
	struct tally t = { 0 };
	char msg[160];

	/* a fast ping-pong: data 30-50 us into each wait */
	run(&a, true, 1000, 1000, 100, 40, 10, &t);
	snprintf(msg, sizeof(msg),
		 "fast ping-pong, data 30-50 us into each wait: no nap under %d us is taken (%u naps)",
		 LL_ADAPT_NAP_MIN_US, t.naps);
	CHECK(t.naps == 0 && t.hits == 1000, msg);
}

static void test_idle(void)
{
	struct ll_adapt a = { 0 };
	struct tally t = { 0 };
	char msg[160];

	/* receives that time out after 50 ms, nothing ever comes */
	run(&a, true, 1000, 100, 50000, NEVER, 0, &t);
	snprintf(msg, sizeof(msg),
		 "idle socket: %d windows of spin for its first unserved waits, then none (%u of 100 waits spun, %llu us)",
		 LL_ADAPT_COLD_MISSES, t.spins, (unsigned long long)t.spun_us);
	CHECK(t.spins == LL_ADAPT_COLD_MISSES &&
	      t.spun_us == (u64)LL_ADAPT_COLD_MISSES * WINDOW, msg);
	CHECK(a.flags & LL_ADAPT_COLD, "idle socket: cold");
}

static void test_idle_cut(void)
{
	struct ll_adapt a = { 0 };
	u32 now = 0, bound;
	int spins = 0;

	/* idle waits 50 ms apart; the second is cut short by a reschedule */
	for (int i = 0; i < 20; i++, now += 50000) {
		bound = ll_adapt_bound(&a, WINDOW, now);
		if (!bound)
			continue;
		spins++;
		if (i == 1)
			ll_adapt_end(&a, bound, bound / 3, LL_ADAPT_CUT);
		else
			ll_adapt_end(&a, bound, bound, LL_ADAPT_TIMEOUT);
	}
	CHECK(spins == LL_ADAPT_COLD_MISSES + 1 && (a.flags & LL_ADAPT_COLD),
	      "idle socket with a wait cut short: cold after its misses, the cut one spins in addition");
}

static void test_slow_requests(void)
{
	struct ll_adapt a = { 0 };
	struct tally ad = { 0 }, fx = { 0 };
	char msg[200];

	/* a request every 5 ms, 4.8 ms after each wait begins: past the window */
	run(&a, true, 1000, 200, 5000, 4800, 50, &ad);
	run(&a, false, 1000, 200, 5000, 4800, 50, &fx);
	snprintf(msg, sizeof(msg),
		 "requests 5 ms apart, window 2 ms: the fixed window spins 200 windows for nothing, adaptive %d (%llu vs %llu us)",
		 LL_ADAPT_COLD_MISSES, (unsigned long long)ad.spun_us, (unsigned long long)fx.spun_us);
	CHECK(fx.hits == 0 && ad.hits == 0 && ad.spun_us == (u64)LL_ADAPT_COLD_MISSES * WINDOW, msg);
}

static void test_idle_then_pingpong(void)
{
	struct ll_adapt a = { 0 };
	struct tally idle = { 0 }, pp = { 0 }, first = { 0 };
	u32 now;

	now = run(&a, true, 1000, 50, 50000, NEVER, 0, &idle);
	/* the traffic resumes: the first wait sleeps (cold, long since the
	 * last), its data comes 300 us in; the next begins 700 us later
	 */
	now = run(&a, true, now, 2, 700, 300, 0, &first);
	CHECK(first.spins == 1, "idle, then a ping-pong: the second wait, within a window of the first, spins again");
	run(&a, true, now, 100, 700, 300, 100, &pp);
	CHECK(pp.hits >= 99, "idle, then a ping-pong: its waits catch their data again");
}

static void test_spread(void)
{
	struct ll_adapt a = { 0 };
	struct tally t = { 0 }, fx = { 0 };
	char msg[200];
	u32 now = 1000;

	/* 9 in 10 turnarounds of 100 us, 1 in 10 of 1500 us */
	for (int i = 0; i < 2000; i++, now += 2000) {
		u32 arrive = i % 10 == 9 ? 1500 : around(100, 20);

		wait_once(&a, WINDOW, now, arrive, true, &t);
		wait_once(NULL, WINDOW, now, arrive, false, &fx);
	}
	snprintf(msg, sizeof(msg),
		 "9 in 10 data at 100 us, 1 in 10 at 1500: adaptive catches the quick ones, spins less (%u of %u caught, %llu vs %llu us)",
		 t.hits, fx.hits, (unsigned long long)t.spun_us, (unsigned long long)fx.spun_us);
	CHECK(t.hits >= 1800 && t.spun_us < fx.spun_us && t.max_bound <= WINDOW, msg);
}

static void test_miss_grows(void)
{
	struct ll_adapt a = { 0 };
	u32 b0, b1;
	u8 misses;

	/* learned 100 us; then data at 600 us, beyond the bound */
	for (int i = 0; i < 20; i++) {
		b0 = ll_adapt_bound(&a, WINDOW, 1000 + 1000 * i);
		ll_adapt_end(&a, b0, 100, LL_ADAPT_DATA);
	}
	b0 = ll_adapt_bound(&a, WINDOW, 30000);
	CHECK(b0 < 600, "a socket that learned 100 us bounds its wait well below 600");
	ll_adapt_end(&a, b0, b0, LL_ADAPT_TIMEOUT);
	/* its data came at 600 us; the next wait begins 100 us later */
	b1 = ll_adapt_bound(&a, WINDOW, 30700);
	CHECK(b1 > b0, "the wait after a miss, within a window, learns the later arrival: the bound grows");
	misses = a.misses;
	ll_adapt_end(&a, b1, 10, LL_ADAPT_CUT);
	CHECK(a.misses == misses && !(a.flags & LL_ADAPT_MISSED) && ll_adapt_bound(&a, WINDOW, 31000) == b1,
	      "a wait cut short by a signal teaches nothing: no miss, no sample");
}

static void test_random(void)
{
	struct ll_adapt a = { 0 };
	bool within = true;
	u32 now = 0;

	/* any traffic, any window the sysctl may be turned to */
	lcg = 7;
	for (int i = 0; i < 200000; i++) {
		u32 window = 1 + around(1000, 999);
		u32 bound, nap, arrive = around(1500, 1500);

		now += around(2000, 1999);
		bound = ll_adapt_bound(&a, window, now);
		nap = bound ? ll_adapt_nap(&a, bound) : 0;
		within &= bound <= window && nap <= bound;
		if (bound)
			ll_adapt_end(&a, bound, arrive < bound ? arrive : bound,
				     arrive < bound ? LL_ADAPT_DATA :
				     i % 7 ? LL_ADAPT_TIMEOUT : LL_ADAPT_CUT);
	}
	CHECK(within, "random traffic and windows: no bound ever above the window in force, no nap above its bound");
	CHECK(ll_adapt_bound(&a, 0, now + 1) == 0, "a window of 0: no spin");
}

int main(void)
{
	test_pingpong();
	test_paced();
	test_oversleep();
	test_oversleep_spikes();
	test_no_short_nap();
	test_idle();
	test_idle_cut();
	test_slow_requests();
	test_idle_then_pingpong();
	test_spread();
	test_miss_grows();
	test_random();
	return check_done();
}
