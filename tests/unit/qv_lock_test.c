// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of module/llpoll_qv_lock.h, compiled in userspace against
 * tests/unit/shim: fixed sequences for every transition, then a NAPI
 * thread, two poller threads and an interface-down thread hammering one
 * q_vector.
 */
#define CONFIG_INET_LL_RX_POLL 1
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "llpoll_qv_lock.h"

atomic_int shim_warnings;
static int passed, failed;

#define CHECK(cond, name) do {						\
	if (cond) {							\
		passed++;						\
		printf("ok - %s\n", name);				\
	} else {							\
		failed++;						\
		printf("not ok - %s (%s:%d)\n", name, __FILE__, __LINE__); \
	}								\
} while (0)

static void test_sequences(void)
{
	u64 napi_yields, poll_yields;
	struct llpoll_qv qv;
	int w0;

	llpoll_qv_init(&qv);
	CHECK(!llpoll_qv_lock_poll(&qv), "allocated, not enabled: pollers are refused");
	llpoll_qv_enable(&qv);
	CHECK(llpoll_qv_lock_napi(&qv), "idle: NAPI takes the q_vector");
	CHECK(!llpoll_qv_user_pending(&qv), "NAPI alone: no user pending, GRO allowed");
	CHECK(llpoll_qv_napi_owned(&qv), "NAPI owns: napi_owned");
	CHECK(!llpoll_qv_lock_poll(&qv), "NAPI owns: a poller yields");
	CHECK(llpoll_qv_user_pending(&qv), "a poller yielded: user pending, skip GRO");
	CHECK(llpoll_qv_unlock_napi(&qv), "NAPI unlock reports the poller's yield");
	CHECK(qv.state == LLPOLL_QV_STATE_IDLE, "NAPI unlock leaves IDLE");

	CHECK(llpoll_qv_lock_poll(&qv), "idle: a poller takes the q_vector");
	CHECK(llpoll_qv_user_pending(&qv), "poller owns: user pending");
	CHECK(!llpoll_qv_napi_owned(&qv), "poller owns: not napi_owned (no flush of NAPI's GRO)");
	CHECK(!llpoll_qv_lock_napi(&qv), "poller owns: NAPI yields");
	CHECK(qv.state & LLPOLL_QV_STATE_NAPI_YIELD, "NAPI yield is recorded");
	CHECK(!llpoll_qv_lock_poll(&qv), "poller owns: a second poller yields");
	CHECK(llpoll_qv_unlock_poll(&qv), "poll unlock reports the yields");
	CHECK(llpoll_qv_lock_napi(&qv), "after the poller: NAPI gets it back");
	CHECK(!llpoll_qv_unlock_napi(&qv), "uncontended NAPI unlock reports none");

	CHECK(llpoll_qv_lock_poll(&qv), "poller takes it before the interface goes down");
	CHECK(!llpoll_qv_disable(&qv), "disable while a poller owns: not idle yet");
	CHECK(!llpoll_qv_lock_napi(&qv), "disabling: NAPI cannot take it");
	llpoll_qv_unlock_poll(&qv);
	CHECK(qv.state & LLPOLL_QV_STATE_DISABLE, "poll unlock keeps DISABLE");
	CHECK(llpoll_qv_disable(&qv), "disable after the poller left: idle");
	CHECK(!llpoll_qv_lock_poll(&qv), "disabled: pollers are refused");
	CHECK(!llpoll_qv_lock_napi(&qv), "disabled: NAPI is refused");
	llpoll_qv_enable(&qv);
	CHECK(llpoll_qv_lock_poll(&qv), "enable (interface up) clears DISABLE");
	llpoll_qv_unlock_poll(&qv);
	llpoll_qv_read_yields(&qv, &napi_yields, &poll_yields);
	CHECK(napi_yields == 3 && poll_yields == 4,
	      "every yield is counted (3 NAPI, 4 poller) and enable keeps the counts");

	CHECK(atomic_load(&shim_warnings) == 0, "no WARN_ON on correct use");
	w0 = atomic_load(&shim_warnings);
	llpoll_qv_lock_napi(&qv);
	llpoll_qv_unlock_poll(&qv);
	CHECK(atomic_load(&shim_warnings) > w0, "poll unlock while NAPI owns warns");
	w0 = atomic_load(&shim_warnings);
	llpoll_qv_init(&qv);
	llpoll_qv_enable(&qv);
	llpoll_qv_user_pending(&qv);
	CHECK(atomic_load(&shim_warnings) > w0, "user_pending without an owner warns");
	atomic_store(&shim_warnings, 0);
}

/* llpoll_napi_disable/enable and the ring-clean assertion */
static struct llpoll_qv wq;
static atomic_int holder_in, holder_out;

static void *holder_thread(void *arg)
{
	struct timespec hold = { 0, 50000000 };

	(void)arg;
	llpoll_qv_lock_poll(&wq);
	atomic_store(&holder_in, 1);
	nanosleep(&hold, NULL);
	atomic_store(&holder_out, 1);
	llpoll_qv_unlock_poll(&wq);
	return NULL;
}

static void test_napi_wrappers(void)
{
	struct napi_struct napi = { 0 };
	pthread_t holder;
	int w0;

	llpoll_qv_init(&wq);
	w0 = atomic_load(&shim_warnings);
	llpoll_qv_assert_disabled(&wq);
	CHECK(atomic_load(&shim_warnings) == w0, "allocated q_vector: a ring clean does not warn");
	llpoll_napi_enable(&napi, &wq);
	CHECK(atomic_load(&napi.enabled) && wq.state == LLPOLL_QV_STATE_IDLE,
	      "llpoll_napi_enable: NAPI on, q_vector IDLE");
	llpoll_qv_assert_disabled(&wq);
	CHECK(atomic_load(&shim_warnings) > w0, "a ring clean on an enabled q_vector warns");
	atomic_store(&shim_warnings, 0);

	pthread_create(&holder, NULL, holder_thread, NULL);
	while (!atomic_load(&holder_in))
		usleep(100);
	llpoll_napi_disable(&napi, &wq);
	CHECK(atomic_load(&holder_out), "llpoll_napi_disable waits for the poller that owns the rings");
	CHECK(!atomic_load(&napi.enabled) && wq.state == LLPOLL_QV_STATE_DISABLE,
	      "llpoll_napi_disable: NAPI off, q_vector DISABLE and unowned");
	pthread_join(holder, NULL);
	llpoll_qv_assert_disabled(&wq);
	CHECK(atomic_load(&shim_warnings) == 0, "a ring clean after llpoll_napi_disable does not warn");
	CHECK(!llpoll_qv_lock_poll(&wq), "after llpoll_napi_disable pollers are refused");
	atomic_store(&shim_warnings, 0);
}

/* the hammer */
static struct llpoll_qv hq;
static struct napi_struct hnapi;
static atomic_int owners, max_owners, stop, down_done;
static atomic_long napi_runs, napi_yields, poll_runs, poll_yields, after_down;

static void critical(void)
{
	int n = atomic_fetch_add(&owners, 1) + 1;
	int m = atomic_load(&max_owners);

	while (n > m && !atomic_compare_exchange_weak(&max_owners, &m, n))
		;
	if (atomic_load(&down_done))
		atomic_fetch_add(&after_down, 1);
	for (volatile int i = 0; i < 50; i++)
		;
	atomic_fetch_sub(&owners, 1);
}

static void *napi_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop) && !atomic_load(&down_done)) {
		if (llpoll_qv_lock_napi(&hq)) {
			critical();
			llpoll_qv_unlock_napi(&hq);
			atomic_fetch_add(&napi_runs, 1);
		} else {
			atomic_fetch_add(&napi_yields, 1);
		}
	}
	return NULL;
}

static void *poll_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (llpoll_qv_lock_poll(&hq)) {
			critical();
			llpoll_qv_unlock_poll(&hq);
			atomic_fetch_add(&poll_runs, 1);
		} else {
			atomic_fetch_add(&poll_yields, 1);
		}
	}
	return NULL;
}

static void *down_thread(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	/* let both sides own the q_vector a while first (bounded: 5 s) */
	for (int i = 0; i < 5000 && (atomic_load(&napi_runs) < 100 ||
				     atomic_load(&poll_runs) < 100); i++)
		nanosleep(&ms, NULL);
	/* the shim's NAPI is a flag: the NAPI thread stops at down_done */
	llpoll_napi_disable(&hnapi, &hq);
	atomic_store(&down_done, 1);
	return NULL;
}

static void test_hammer(void)
{
	pthread_t napi, poll1, poll2, down;
	struct timespec run = { 0, 300000000 };
	time_t t0 = time(NULL);
	char msg[160];

	llpoll_qv_init(&hq);
	llpoll_napi_enable(&hnapi, &hq);
	pthread_create(&napi, NULL, napi_thread, NULL);
	pthread_create(&poll1, NULL, poll_thread, NULL);
	pthread_create(&poll2, NULL, poll_thread, NULL);
	pthread_create(&down, NULL, down_thread, NULL);
	pthread_join(down, NULL);
	nanosleep(&run, NULL);
	atomic_store(&stop, 1);
	pthread_join(napi, NULL);
	pthread_join(poll1, NULL);
	pthread_join(poll2, NULL);

	snprintf(msg, sizeof(msg),
		 "hammer: mutual exclusion (NAPI %ld runs/%ld yields, pollers %ld runs/%ld yields)",
		 atomic_load(&napi_runs), atomic_load(&napi_yields),
		 atomic_load(&poll_runs), atomic_load(&poll_yields));
	CHECK(atomic_load(&max_owners) == 1, msg);
	CHECK(atomic_load(&down_done) && time(NULL) - t0 < 10, "hammer: disable terminates");
	CHECK(atomic_load(&after_down) == 0, "hammer: nobody owns the q_vector after disable");
	CHECK(atomic_load(&poll_runs) > 0 && atomic_load(&napi_runs) > 0,
	      "hammer: both NAPI and pollers got the q_vector");
	CHECK(atomic_load(&shim_warnings) == 0, "hammer: no WARN_ON, no overlapping counter writers");
	{
		u64 ny, py;

		llpoll_qv_read_yields(&hq, &ny, &py);
		CHECK(ny == (u64)atomic_load(&napi_yields) && py == (u64)atomic_load(&poll_yields),
		      "hammer: the yield counters match the yields the threads saw");
	}
}

int main(void)
{
	test_sequences();
	test_napi_wrappers();
	test_hammer();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
