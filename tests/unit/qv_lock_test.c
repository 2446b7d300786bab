// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of module/llpoll_qv_lock.h, compiled in userspace against
 * tests/unit/shim: fixed sequences for every transition and for the
 * interrupt hold, then a NAPI thread, two poller threads, a hold timer
 * thread and an interface-down thread hammering one q_vector.
 */
#define CONFIG_INET_LL_RX_POLL 1
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "llpoll_qv_lock.h"
#include "check.h"

atomic_int shim_warnings;
atomic_llong shim_now_ns;
_Thread_local struct task_struct shim_task;
LLPOLL_QV_DEFINE_WAITS;

/* the budget of the tests' passes; a pass that cleans it leaves a backlog */
#define TEST_BUDGET	4

/* the fork's ll_hold_us module parameter */
static unsigned int test_hold_us = LLPOLL_QV_HOLD_US;

/* the driver's interrupt: masked by irq_hold, re-armed by NAPI */
static atomic_int irq_masked, irq_holds, irq_releases, can_hold = 1;

static bool test_irq_hold(struct llpoll_qv *qv, bool hold)
{
	(void)qv;
	if (!hold) {
		atomic_fetch_add(&irq_releases, 1);
		return true;
	}
	if (!atomic_load(&can_hold))
		return false;
	atomic_store(&irq_masked, 1);
	atomic_fetch_add(&irq_holds, 1);
	return true;
}

/* the hold timer fires once any hold has passed since the last exit */
static enum hrtimer_restart hold_timer_fires_late(struct llpoll_qv *qv)
{
	enum hrtimer_restart r;

	atomic_fetch_add(&shim_now_ns, (long long)LLPOLL_QV_HOLD_STRETCH *
			 READ_ONCE(*qv->hold_us) * NSEC_PER_USEC);
	r = qv->hold_timer.function(&qv->hold_timer);
	if (r == HRTIMER_NORESTART)
		atomic_store(&qv->hold_timer.queued, 0);
	return r;
}


static void test_sequences(void)
{
	u64 napi_yields, poll_yields;
	struct napi_struct napi = { 0 };
	struct llpoll_qv qv;
	int w0;

	llpoll_qv_init(&qv, &napi, test_irq_hold, &test_hold_us);
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
	CHECK(llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET), "poll unlock reports the yields");
	CHECK(llpoll_qv_lock_napi(&qv), "after the poller: NAPI gets it back");
	CHECK(!llpoll_qv_unlock_napi(&qv), "uncontended NAPI unlock reports none");

	CHECK(llpoll_qv_lock_poll(&qv), "poller takes it before the interface goes down");
	CHECK(!llpoll_qv_disable(&qv), "disable while a poller owns: not idle yet");
	CHECK(!llpoll_qv_lock_napi(&qv), "disabling: NAPI cannot take it");
	llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET);
	CHECK(qv.state & LLPOLL_QV_STATE_DISABLE, "poll unlock keeps DISABLE");
	CHECK(llpoll_qv_disable(&qv), "disable after the poller left: idle");
	CHECK(!llpoll_qv_lock_poll(&qv), "disabled: pollers are refused");
	CHECK(!llpoll_qv_lock_napi(&qv), "disabled: NAPI is refused");
	llpoll_qv_enable(&qv);
	CHECK(llpoll_qv_lock_poll(&qv), "enable (interface up) clears DISABLE");
	llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET);
	llpoll_qv_read_yields(&qv, &napi_yields, &poll_yields);
	CHECK(napi_yields == 3 && poll_yields == 4,
	      "every yield is counted (3 NAPI, 4 poller) and enable keeps the counts");

	CHECK(atomic_load(&shim_warnings) == 0, "no WARN_ON on correct use");
	w0 = atomic_load(&shim_warnings);
	llpoll_qv_lock_napi(&qv);
	llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET);
	CHECK(atomic_load(&shim_warnings) > w0, "poll unlock while NAPI owns warns");
	w0 = atomic_load(&shim_warnings);
	llpoll_qv_init(&qv, &napi, test_irq_hold, &test_hold_us);
	llpoll_qv_enable(&qv);
	llpoll_qv_user_pending(&qv);
	CHECK(atomic_load(&shim_warnings) > w0, "user_pending without an owner warns");
	atomic_store(&shim_warnings, 0);
}

/* the interrupt hold: enter, exit, the hold timer, NAPI's re-arm */
static void test_hold(void)
{
	struct napi_struct napi = { 0 };
	u64 handbacks, timer_handbacks;
	struct llpoll_qv qv;
	int s0, w0;

	llpoll_qv_init(&qv, &napi, test_irq_hold, &test_hold_us);
	atomic_store(&irq_masked, 0);
	atomic_store(&irq_holds, 0);
	atomic_store(&irq_releases, 0);
	CHECK(!llpoll_qv_enter(&qv, true) && qv.pollers == 0 && !atomic_load(&irq_masked),
	      "hold: a disabled q_vector refuses a poller and keeps its interrupt");
	llpoll_qv_enable(&qv);
	CHECK(llpoll_qv_napi_rearm(&qv), "hold: no poller, NAPI re-arms the interrupt");

	CHECK(llpoll_qv_enter(&qv, true) && qv.pollers == 1, "hold: enter joins a poller");
	CHECK(atomic_load(&irq_masked) && qv.irq_held, "hold: the first poller masks the interrupt");
	CHECK(!atomic_load(&qv.hold_timer.queued), "hold: no hold timer while pollers poll");
	CHECK(atomic_load(&napi.scheduled) == 0, "hold: the first poller does not schedule NAPI");
	CHECK(!llpoll_qv_napi_rearm(&qv), "hold: NAPI does not re-arm while pollers hold it");
	s0 = atomic_load(&napi.scheduled);
	CHECK(llpoll_qv_enter(&qv, true) && qv.pollers == 2 && atomic_load(&irq_holds) == 1,
	      "hold: a second poller joins the hold without masking again");
	CHECK(atomic_load(&napi.scheduled) == s0 + 1,
	      "hold: a poller entering a held q_vector with TX rings schedules NAPI for TX completions");
	s0 = atomic_load(&napi.scheduled);
	CHECK(llpoll_qv_enter(&qv, false) && qv.pollers == 3 && atomic_load(&napi.scheduled) == s0,
	      "hold: on an RX-only q_vector a poller entering a held q_vector leaves NAPI alone");
	llpoll_qv_exit(&qv, false);

	s0 = atomic_load(&napi.scheduled);
	CHECK(llpoll_qv_lock_poll(&qv), "hold: a poller takes the rings");
	CHECK(!llpoll_qv_lock_napi(&qv), "hold: NAPI finds them owned");
	llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET);
	CHECK(atomic_load(&napi.scheduled) == s0,
	      "hold: a NAPI yield under the hold is not rescheduled (the hand-back will)");

	llpoll_qv_exit(&qv, true);
	CHECK(qv.pollers == 1 && qv.irq_held, "hold: one poller left idle, the other keeps the hold");
	CHECK(!atomic_load(&qv.hold_timer.queued), "hold: one poller left idle, no timer while the other polls");
	llpoll_qv_exit(&qv, false);
	CHECK(qv.pollers == 0 && qv.irq_held && atomic_load(&napi.scheduled) == s0,
	      "hold: the last poller leaving with data keeps the hold for its return");
	CHECK(atomic_load(&qv.hold_timer.queued) &&
	      qv.hold_timer.period == (ktime_t)LLPOLL_QV_HOLD_US * NSEC_PER_USEC,
	      "hold: ... and starts the hold timer for ll_hold_us (default)");
	llpoll_qv_enter(&qv, false);
	CHECK(qv.hold_timer.function(&qv.hold_timer) == HRTIMER_NORESTART && qv.irq_held,
	      "hold: the timer keeps the hold when a poller is back");
	test_hold_us = 1500;
	llpoll_qv_exit(&qv, false);
	CHECK(atomic_load(&qv.hold_timer.queued) && qv.hold_timer.period == 1500 * NSEC_PER_USEC,
	      "hold: the poller leaving with data again restarts the timer, for ll_hold_us as it is now");
	test_hold_us = LLPOLL_QV_HOLD_US;
	CHECK(hold_timer_fires_late(&qv) == HRTIMER_NORESTART && !qv.irq_held,
	      "hold: the timer hands back when no poller came back");
	CHECK(atomic_load(&napi.scheduled) == s0 + 1 && llpoll_qv_napi_rearm(&qv),
	      "hold: the timer's hand-back schedules NAPI, which re-arms");
	CHECK(atomic_load(&irq_releases) == 1,
	      "hold: the timer's hand-back lets the driver forget served causes");
	llpoll_qv_read_handbacks(&qv, &handbacks, &timer_handbacks);
	CHECK(handbacks == 0 && timer_handbacks == 1, "hold: the timer's hand-back is counted");

	s0 = atomic_load(&napi.scheduled);
	llpoll_qv_enter(&qv, true);
	CHECK(qv.irq_held && atomic_load(&irq_holds) == 2, "hold: a poller after the hand-back holds again");
	llpoll_qv_exit(&qv, true);
	CHECK(!qv.irq_held && atomic_load(&napi.scheduled) == s0 + 1 && llpoll_qv_napi_rearm(&qv),
	      "hold: the last poller leaving idle hands back at once through NAPI");
	CHECK(atomic_load(&irq_releases) == 2,
	      "hold: the idle hand-back lets the driver forget served causes");
	CHECK(qv.hold_timer.function(&qv.hold_timer) == HRTIMER_NORESTART &&
	      atomic_load(&napi.scheduled) == s0 + 1,
	      "hold: a timer that fires after the hand-back does nothing");
	llpoll_qv_read_handbacks(&qv, &handbacks, &timer_handbacks);
	CHECK(handbacks == 1 && timer_handbacks == 1, "hold: the idle hand-back is counted");

	/* a pass that cleaned its whole budget: the ring has a backlog (the
	 * timer above has fired: it is no longer queued)
	 */
	atomic_store(&qv.hold_timer.queued, 0);
	s0 = atomic_load(&napi.scheduled);
	llpoll_qv_enter(&qv, false);
	CHECK(llpoll_qv_lock_poll(&qv), "backlog: a poller takes the rings");
	llpoll_qv_unlock_poll(&qv, TEST_BUDGET, TEST_BUDGET);
	CHECK(qv.irq_held && atomic_load(&napi.scheduled) == s0,
	      "backlog: a full pass keeps the hold while its poller polls");
	llpoll_qv_exit(&qv, false);
	CHECK(!qv.irq_held && !atomic_load(&qv.hold_timer.queued) &&
	      atomic_load(&napi.scheduled) == s0 + 1 && llpoll_qv_napi_rearm(&qv),
	      "backlog: the last poller leaving with data after a full pass hands back at once through NAPI");
	llpoll_qv_read_handbacks(&qv, &handbacks, &timer_handbacks);
	CHECK(handbacks == 2 && timer_handbacks == 1, "backlog: its hand-back is counted with the pollers'");
	llpoll_qv_enter(&qv, false);
	llpoll_qv_lock_poll(&qv);
	llpoll_qv_unlock_poll(&qv, TEST_BUDGET, TEST_BUDGET);
	llpoll_qv_lock_poll(&qv);
	llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET);
	llpoll_qv_exit(&qv, false);
	CHECK(qv.irq_held && atomic_load(&qv.hold_timer.queued) && atomic_load(&napi.scheduled) == s0 + 1,
	      "backlog: a pass that found less than its budget after a full one keeps the hold for the poller's return");
	CHECK(hold_timer_fires_late(&qv) == HRTIMER_NORESTART && !qv.irq_held,
	      "backlog: ... until the timer hands back");
	atomic_store(&qv.hold_timer.queued, 0);
	llpoll_qv_enter(&qv, false);
	llpoll_qv_lock_poll(&qv);
	llpoll_qv_unlock_poll(&qv, TEST_BUDGET, TEST_BUDGET);
	llpoll_qv_exit(&qv, true);
	llpoll_qv_enter(&qv, false);
	llpoll_qv_exit(&qv, false);
	CHECK(qv.irq_held && atomic_load(&qv.hold_timer.queued),
	      "backlog: a hand-back forgets the backlog it served");
	CHECK(hold_timer_fires_late(&qv) == HRTIMER_NORESTART && !qv.irq_held,
	      "backlog: (the timer hands that hold back)");

	s0 = atomic_load(&napi.scheduled);
	CHECK(llpoll_qv_lock_poll(&qv) && !llpoll_qv_lock_napi(&qv), "no hold: NAPI yields to a single pass");
	llpoll_qv_unlock_poll(&qv, 1, TEST_BUDGET);
	CHECK(atomic_load(&napi.scheduled) == s0 + 1,
	      "no hold: the poller schedules NAPI again after it yielded");

	atomic_store(&can_hold, 0);
	llpoll_qv_enter(&qv, true);
	CHECK(!qv.irq_held && llpoll_qv_napi_rearm(&qv),
	      "hold: a driver that cannot mask one vector keeps interrupts on");
	llpoll_qv_exit(&qv, true);
	atomic_store(&can_hold, 1);

	llpoll_qv_enter(&qv, true);
	llpoll_qv_enter(&qv, true);
	llpoll_qv_exit(&qv, false);
	llpoll_qv_exit(&qv, false);
	CHECK(qv.irq_held && atomic_load(&qv.hold_timer.queued), "hold: on before the interface goes down");
	llpoll_qv_enter(&qv, true);
	CHECK(!llpoll_qv_disable(&qv) || !qv.irq_held, "hold: disable ends the hold");
	llpoll_qv_stop_timer(&qv);
	CHECK(!atomic_load(&qv.hold_timer.queued), "hold: llpoll_napi_disable stops the timer");
	s0 = atomic_load(&napi.scheduled);
	w0 = atomic_load(&shim_warnings);
	llpoll_qv_exit(&qv, true);
	CHECK(qv.pollers == 0 && atomic_load(&napi.scheduled) == s0 &&
	      atomic_load(&shim_warnings) == w0,
	      "hold: a poller leaving a disabled q_vector only leaves");
	llpoll_qv_exit(&qv, true);
	CHECK(atomic_load(&shim_warnings) > w0 && qv.pollers == 0,
	      "hold: an exit without an enter warns and keeps the count");
	atomic_store(&shim_warnings, 0);
}


/* one request cycle: a poller comes back, finds data after @us µs of its
 * wait and leaves with it
 */
static void request_cycle(struct llpoll_qv *qv, long long us)
{
	llpoll_qv_enter(qv, false);
	atomic_fetch_add(&shim_now_ns, us * NSEC_PER_USEC);
	llpoll_qv_exit(qv, false);
}

/* the hold's length: started once, moved by its own expiry, stretched to
 * the request cycle and bounded
 */
static void test_hold_length(void)
{
	struct napi_struct napi = { 0 };
	u64 handbacks, timer_handbacks;
	long long last_exit;
	struct llpoll_qv qv;
	u64 cycle;
	int starts;

	llpoll_qv_init(&qv, &napi, test_irq_hold, &test_hold_us);
	llpoll_napi_enable(&napi, &qv);
	request_cycle(&qv, 10);
	starts = atomic_load(&qv.hold_timer.starts);
	CHECK(starts == 1 && atomic_load(&qv.hold_timer.queued),
	      "hold length: the first exit with data starts the timer");
	request_cycle(&qv, 10);
	request_cycle(&qv, 10);
	CHECK(atomic_load(&qv.hold_timer.starts) == starts,
	      "hold length: exits while more than half a hold is left do not move the timer (no timer programming per round trip)");
	request_cycle(&qv, LLPOLL_QV_HOLD_US / 2);
	CHECK(atomic_load(&qv.hold_timer.starts) == starts + 1 &&
	      qv.hold_timer.expires == atomic_load(&shim_now_ns) + (long long)llpoll_qv_hold_ns(&qv),
	      "hold length: an exit with less than half a hold left pushes the timer on by a hold");
	starts++;
	last_exit = atomic_load(&shim_now_ns);
	atomic_fetch_add(&shim_now_ns, 5 * NSEC_PER_USEC);
	CHECK(qv.hold_timer.function(&qv.hold_timer) == HRTIMER_RESTART && qv.irq_held,
	      "hold length: a timer that fires before a hold has passed since the last exit keeps the hold");
	CHECK(qv.hold_timer.expires == last_exit + (long long)llpoll_qv_hold_ns(&qv),
	      "hold length: ... and moves itself to a hold after that exit");
	llpoll_qv_read_handbacks(&qv, &handbacks, &timer_handbacks);
	CHECK(timer_handbacks == 0, "hold length: an early expiry hands nothing back");
	llpoll_qv_enter(&qv, false);
	CHECK(qv.hold_timer.function(&qv.hold_timer) == HRTIMER_NORESTART && qv.irq_held,
	      "hold length: a timer that finds a poller back stops, keeping the hold");
	atomic_store(&qv.hold_timer.queued, 0);
	atomic_fetch_add(&shim_now_ns, 10 * NSEC_PER_USEC);
	llpoll_qv_exit(&qv, false);
	CHECK(atomic_load(&qv.hold_timer.starts) == starts + 1 && atomic_load(&qv.hold_timer.queued),
	      "hold length: that poller's exit with data starts the timer again");

	CHECK(llpoll_qv_hold_ns(&qv) == (u64)LLPOLL_QV_HOLD_US * NSEC_PER_USEC,
	      "hold length: request cycles shorter than a quarter of ll_hold_us leave it at ll_hold_us");
	for (int i = 0; i < 40; i++)
		request_cycle(&qv, 300);
	CHECK(llpoll_qv_hold_ns(&qv) > 1150 * NSEC_PER_USEC &&
	      llpoll_qv_hold_ns(&qv) <= 1200 * NSEC_PER_USEC,
	      "hold length: 300 µs request cycles stretch the hold toward four of them (1200 µs)");
	for (int i = 0; i < 40; i++)
		request_cycle(&qv, 2000);
	CHECK(llpoll_qv_hold_ns(&qv) == (u64)LLPOLL_QV_HOLD_STRETCH * LLPOLL_QV_HOLD_US * NSEC_PER_USEC,
	      "hold length: ... never beyond LLPOLL_QV_HOLD_STRETCH times ll_hold_us");
	test_hold_us = 1000000;
	CHECK(llpoll_qv_hold_ns(&qv) == (u64)1000000 * NSEC_PER_USEC,
	      "hold length: never shorter than ll_hold_us as it is now");
	test_hold_us = LLPOLL_QV_HOLD_US;
	CHECK(hold_timer_fires_late(&qv) == HRTIMER_NORESTART && !qv.irq_held,
	      "hold length: a hold with no poller back hands back");
	llpoll_qv_read_handbacks(&qv, &handbacks, &timer_handbacks);
	CHECK(timer_handbacks == 1, "hold length: ... once");
	cycle = qv.cycle_ns;
	request_cycle(&qv, 1000);
	CHECK(qv.cycle_ns == cycle,
	      "hold length: the first exit after a hand-back ends no request cycle");
	request_cycle(&qv, 10);
	CHECK(qv.cycle_ns == cycle - (cycle >> 3) + ((10 * NSEC_PER_USEC) >> 3),
	      "hold length: the next one does, weighing an eighth in the average");
	cycle = qv.cycle_ns;
	request_cycle(&qv, 1000000);
	CHECK(qv.cycle_ns == cycle - (cycle >> 3) +
	      (((u64)LLPOLL_QV_HOLD_STRETCH * LLPOLL_QV_HOLD_US * NSEC_PER_USEC) >> 3),
	      "hold length: a long wait counts as a cycle of the longest hold");
	llpoll_qv_disable(&qv);
	llpoll_qv_stop_timer(&qv);
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
	llpoll_qv_unlock_poll(&wq, 1, TEST_BUDGET);
	return NULL;
}

static void test_napi_wrappers(void)
{
	struct napi_struct napi = { 0 };
	pthread_t holder;
	int w0;

	llpoll_qv_init(&wq, &napi, test_irq_hold, &test_hold_us);
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

/* the cost counters on fixed sequences: what each wait and pass adds */
static u64 cost[LLPOLL_QV_COST_STATS_LEN];

static void read_cost(struct llpoll_qv *qv)
{
	llpoll_qv_read_cost(qv, cost);
}

static u64 hist_sum(void)
{
	u64 n = 0;

	for (int b = 0; b < LLPOLL_QV_SPIN_BUCKETS; b++)
		n += cost[LLPOLL_QV_SPIN_HIST + b];
	return n;
}

static bool cost_adds_up(void)
{
	return cost[LLPOLL_QV_WAITS] == cost[LLPOLL_QV_WAIT_DATA] +
	       cost[LLPOLL_QV_WAIT_WINDOW] + cost[LLPOLL_QV_WAIT_INTR] &&
	       hist_sum() + cost[LLPOLL_QV_WAIT_UNTIMED] == cost[LLPOLL_QV_WAIT_DATA];
}

static void advance_us(long us)
{
	atomic_fetch_add(&shim_now_ns, us * NSEC_PER_USEC);
}

/* one pass that cleans @found packets */
static void pass(struct llpoll_qv *qv, int found)
{
	if (llpoll_qv_lock_poll(qv))
		llpoll_qv_unlock_poll(qv, found, TEST_BUDGET);
}

/* another task's wait takes this CPU's slot, as after a preemption */
static void qv_slot_steal(void)
{
	static struct task_struct other;

	llpoll_qv_wait.task = &other;
}

static void test_cost(void)
{
	u8 names[LLPOLL_QV_COST_STATS_LEN * ETH_GSTRING_LEN], *p = names;
	struct napi_struct napi = { 0 };
	struct llpoll_qv qv;
	bool zero = true, fit = true, unique = true;
	int i, j;

	CHECK(llpoll_qv_spin_bucket(0) == 0 && llpoll_qv_spin_bucket(999) == 0,
	      "cost: a spin under 1 us is bucket 0");
	CHECK(llpoll_qv_spin_bucket(1000) == 1 && llpoll_qv_spin_bucket(1999) == 1 &&
	      llpoll_qv_spin_bucket(2000) == 2 && llpoll_qv_spin_bucket(15999) == 4,
	      "cost: bucket b holds spins from 2^(b-1) us to under 2^b");
	CHECK(llpoll_qv_spin_bucket(1023999) == LLPOLL_QV_SPIN_BUCKETS - 2 &&
	      llpoll_qv_spin_bucket(1024000) == LLPOLL_QV_SPIN_BUCKETS - 1 &&
	      llpoll_qv_spin_bucket(~0ULL) == LLPOLL_QV_SPIN_BUCKETS - 1,
	      "cost: the last bucket holds every spin from 1024 us on");

	memset(names, 0, sizeof(names));
	llpoll_qv_cost_strings(&p, 3);
	CHECK(p == names + sizeof(names), "cost: one ethtool name per counter");
	for (i = 0; i < LLPOLL_QV_COST_STATS_LEN; i++) {
		const char *a = (const char *)names + i * ETH_GSTRING_LEN;

		fit &= strnlen(a, ETH_GSTRING_LEN) < ETH_GSTRING_LEN && !strncmp(a, "rx_q_3_ll_", 10);
		for (j = 0; j < i; j++)
			unique &= strcmp(a, (const char *)names + j * ETH_GSTRING_LEN) != 0;
	}
	CHECK(fit && unique, "cost: the names are rx_q_N_ll_*, unique, and fit ETH_GSTRING_LEN");
	CHECK(!strcmp((const char *)names + LLPOLL_QV_WAITS * ETH_GSTRING_LEN, "rx_q_3_ll_waits") &&
	      !strcmp((const char *)names + LLPOLL_QV_SPIN_HIST * ETH_GSTRING_LEN, "rx_q_3_ll_spin_lt_1us") &&
	      !strcmp((const char *)names + (LLPOLL_QV_COST_STATS_LEN - 1) * ETH_GSTRING_LEN,
		      "rx_q_3_ll_spin_ge_1024us"),
	      "cost: the names follow the counters' order");

	llpoll_qv_init(&qv, &napi, test_irq_hold, &test_hold_us);
	llpoll_qv_enable(&qv);
	read_cost(&qv);
	for (i = 0; i < LLPOLL_QV_COST_STATS_LEN; i++)
		zero &= cost[i] == 0;
	CHECK(zero, "cost: the counters start at 0");

	/* 10 us of empty passes, then a 5 us pass that finds data */
	CHECK(llpoll_qv_enter(&qv, false), "cost: a wait enters");
	advance_us(4);
	pass(&qv, 0);
	advance_us(6);
	pass(&qv, 0);
	advance_us(5);
	pass(&qv, 1);
	llpoll_qv_exit(&qv, false);
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_WAITS] == 1 && cost[LLPOLL_QV_WAIT_DATA] == 1,
	      "cost: a wait that found data: one wait, ended with data");
	CHECK(cost[LLPOLL_QV_EMPTY_PASS_NS] == 10000 && cost[LLPOLL_QV_DATA_PASS_NS] == 5000,
	      "cost: each pass's time since the last, by what it found (10 us empty, 5 us data)");
	CHECK(cost[LLPOLL_QV_SPIN_HIST + 4] == 1 && hist_sum() == 1,
	      "cost: its 15 us spin in the 8-16 us bucket");

	/* a pass outside a wait, as a non-blocking receive makes */
	advance_us(50);
	pass(&qv, 1);
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_DATA_PASS_NS] == 5000 && cost[LLPOLL_QV_WAITS] == 1,
	      "cost: a single pass is no wait and is not timed");

	/* the window runs out */
	llpoll_qv_enter(&qv, false);
	advance_us(3);
	pass(&qv, 0);
	llpoll_qv_exit(&qv, true);
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_WAIT_WINDOW] == 1 && cost[LLPOLL_QV_EMPTY_PASS_NS] == 13000 &&
	      hist_sum() == 1, "cost: a wait without data ends by its window, in no bucket");

	/* a reschedule, then a signal */
	llpoll_qv_enter(&qv, false);
	pass(&qv, 0);
	current->need_resched = 1;
	llpoll_qv_exit(&qv, true);
	current->need_resched = 0;
	llpoll_qv_enter(&qv, false);
	pass(&qv, 0);
	current->sigpending = 1;
	llpoll_qv_exit(&qv, true);
	current->sigpending = 0;
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_WAIT_INTR] == 2 && cost[LLPOLL_QV_WAIT_WINDOW] == 1,
	      "cost: a pending reschedule or signal ends a wait as interrupted");

	/* NAPI owns the rings: a refused pass is an empty one */
	llpoll_qv_enter(&qv, false);
	CHECK(llpoll_qv_lock_napi(&qv), "cost: NAPI takes the rings");
	advance_us(2);
	CHECK(!llpoll_qv_lock_poll(&qv), "cost: the poller is refused");
	llpoll_qv_unlock_napi(&qv);
	llpoll_qv_exit(&qv, true);
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_EMPTY_PASS_NS] == 15000, "cost: a refused pass counts as empty time");

	/* switched out mid-spin: the rest of the wait is untimed */
	llpoll_qv_enter(&qv, false);
	advance_us(1);
	pass(&qv, 0);
	current->nivcsw++;
	advance_us(100);
	pass(&qv, 0);
	pass(&qv, 1);
	llpoll_qv_exit(&qv, false);
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_EMPTY_PASS_NS] == 16000 && cost[LLPOLL_QV_DATA_PASS_NS] == 5000,
	      "cost: passes after a wait was switched out are not timed");
	CHECK(cost[LLPOLL_QV_WAIT_DATA] == 2 && cost[LLPOLL_QV_WAIT_UNTIMED] == 1 && hist_sum() == 1,
	      "cost: a wait switched out mid-spin ends with data, untimed, in no bucket");

	/* another task's wait took this CPU's slot meanwhile */
	llpoll_qv_enter(&qv, false);
	pass(&qv, 0);
	qv_slot_steal();
	pass(&qv, 1);
	llpoll_qv_exit(&qv, false);
	read_cost(&qv);
	CHECK(cost[LLPOLL_QV_WAIT_UNTIMED] == 2, "cost: a wait whose CPU slot was taken is untimed");
	CHECK(cost[LLPOLL_QV_WAITS] == 7 && cost_adds_up(),
	      "cost: 7 waits; end reasons sum to the waits, buckets and untimed to those with data");
	CHECK(atomic_load(&shim_warnings) == 0, "cost: no WARN_ON");
}

/* the hammer */
static struct llpoll_qv hq;
static struct napi_struct hnapi;
static atomic_int owners, max_owners, stop, down_done;
static atomic_long napi_runs, napi_yields, poll_runs, poll_yields, after_down;
static atomic_long waits_entered, waits_data;

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

/* a spinning wait: enter, some passes, exit with or without data */
static void *poll_thread(void *arg)
{
	unsigned int waits = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		bool entered = llpoll_qv_enter(&hq, true);

		for (int pass = 0; pass < 8; pass++) {
			if (llpoll_qv_lock_poll(&hq)) {
				critical();
				llpoll_qv_unlock_poll(&hq, 1, TEST_BUDGET);
				atomic_fetch_add(&poll_runs, 1);
			} else {
				atomic_fetch_add(&poll_yields, 1);
			}
		}
		if (entered) {
			bool idle = ++waits % 3 == 0;

			atomic_fetch_add(&waits_entered, 1);
			atomic_fetch_add(&waits_data, !idle);
			llpoll_qv_exit(&hq, idle);
		}
	}
	return NULL;
}

/* the hold timer's softirq: fires while queued */
static void *timer_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (atomic_load(&hq.hold_timer.queued) &&
		    hq.hold_timer.function(&hq.hold_timer) == HRTIMER_NORESTART)
			atomic_store(&hq.hold_timer.queued, 0);
		/* time passes: holds end */
		atomic_fetch_add(&shim_now_ns, 100 * NSEC_PER_USEC);
		usleep(50);
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
	pthread_t napi, poll1, poll2, timer, down;
	struct timespec run = { 0, 300000000 };
	time_t t0 = time(NULL);
	char msg[160];

	llpoll_qv_init(&hq, &hnapi, test_irq_hold, &test_hold_us);
	llpoll_napi_enable(&hnapi, &hq);
	pthread_create(&napi, NULL, napi_thread, NULL);
	pthread_create(&poll1, NULL, poll_thread, NULL);
	pthread_create(&poll2, NULL, poll_thread, NULL);
	pthread_create(&timer, NULL, timer_thread, NULL);
	pthread_create(&down, NULL, down_thread, NULL);
	pthread_join(down, NULL);
	nanosleep(&run, NULL);
	atomic_store(&stop, 1);
	pthread_join(napi, NULL);
	pthread_join(poll1, NULL);
	pthread_join(poll2, NULL);
	pthread_join(timer, NULL);

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
	CHECK(hq.pollers == 0 && !hq.irq_held && !atomic_load(&hq.hold_timer.queued),
	      "hammer: every poller left, no hold and no timer after disable");
	{
		u64 hb, thb;

		llpoll_qv_read_handbacks(&hq, &hb, &thb);
		CHECK(atomic_load(&irq_holds) > 1 && hb > 0,
		      "hammer: pollers held the interrupt and handed it back");
	}
	{
		u64 ny, py;

		llpoll_qv_read_yields(&hq, &ny, &py);
		CHECK(ny == (u64)atomic_load(&napi_yields) && py == (u64)atomic_load(&poll_yields),
		      "hammer: the yield counters match the yields the threads saw");
	}
	read_cost(&hq);
	CHECK(cost[LLPOLL_QV_WAITS] == (u64)atomic_load(&waits_entered) &&
	      cost[LLPOLL_QV_WAIT_DATA] == (u64)atomic_load(&waits_data) && cost_adds_up(),
	      "hammer: the wait counters match the waits the threads made and add up");
	CHECK(cost[LLPOLL_QV_WAIT_UNTIMED] == 0,
	      "hammer: each thread's waits timed on its own slot, none lost");
}

int main(void)
{
	test_sequences();
	test_hold();
	test_hold_length();
	test_napi_wrappers();
	test_cost();
	test_hammer();
	return check_done();
}
