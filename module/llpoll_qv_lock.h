/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ownership of a q_vector's rings between NAPI and low latency socket
 * pollers (ndo_ll_poll), shared by the igb and ixgbe forks. The state
 * machine of the 2013 ixgbe patch, plus a DISABLE state so that bringing
 * an interface down waits for a poller without sleeping under
 * local_bh_disable().
 *
 *   IDLE --lock_napi--> NAPI --unlock_napi--> IDLE
 *   IDLE --lock_poll--> POLL --unlock_poll--> IDLE
 *   owned --lock_napi--> +NAPI_YIELD (NAPI completes; the poller
 *                        schedules it again when it unlocks)
 *   owned --lock_poll--> +POLL_YIELD (the poller returns LL_FLUSH_BUSY)
 *   any   --disable----> +DISABLE (sticky until enable; no new owner)
 *
 * The spinlock guards only the state word, the interrupt hold below and
 * the counters, never the rings. The counters are read with u64_stats,
 * like ring counters.
 *
 * Interrupt hold: a socket whose wait spins joins the q_vector as a poller
 * (llpoll_qv_enter(), ndo_ll_poll's LL_POLL_ENTER) and the first one makes
 * the driver mask the q_vector's interrupt (irq_hold), so that pollers,
 * not NAPI, take its packets. Meanwhile NAPI completes without re-arming
 * the interrupt (llpoll_qv_napi_rearm()) and, when it finds a poller
 * owning the rings, completes at once instead of returning its budget
 * (the poller schedules it again when it unlocks, unless the hold is on).
 * The interrupt is handed back, by scheduling NAPI, whose completion
 * re-arms it:
 *   - when the last poller leaves without data (LL_POLL_IDLE): its caller
 *     is about to sleep;
 *   - when the last poller leaves after a pass that cleaned its whole
 *     budget: the ring holds a backlog, and a program that handles its
 *     data between short waits (an epoll loop over many sockets) would
 *     take it a pass's budget at a time while the ring overflows; NAPI
 *     drains it with its own budget;
 *   - by the hold timer, a hold's length after the last poller left
 *     with data, unless a poller is back by then: one that found data
 *     usually comes back at once (request/response), and the hold stays
 *     on meanwhile, but a packet never waits longer than that with no one
 *     polling. The length is the fork's ll_hold_us module parameter,
 *     stretched to cover a few of the queue's recent request cycles (the
 *     time from one poller leaving with data to the next, at most
 *     LLPOLL_QV_HOLD_STRETCH times ll_hold_us): a program whose round
 *     trips outlast the hold would otherwise pay a hand-back and a
 *     re-mask, or a timer expiry in its spin, on every one. A poller's
 *     exit moves the timer on only when less than half a hold is left,
 *     so that a request/response loop programs the CPU's timer about
 *     twice per hold, not at every round trip; a timer that fires before
 *     a hold has passed since the last exit moves itself to that exit's
 *     end of hold;
 *   - when the q_vector is disabled (interface down, ring changes).
 * While the hold is on, NAPI runs only at a hand-back, or when a poller
 * enters a q_vector that also serves TX rings (to clean their
 * completions, which pollers leave to it).
 *
 * What spinning costs is counted per q_vector, beside the hold's
 * counters, for ethtool -S (llpoll_qv_cost_strings(), docs/counters.md):
 * the waits that entered and how each ended (data, a signal or
 * reschedule, or the window), the time of their passes split by whether
 * a pass found data, and a log2 histogram of how long a wait spun before
 * its data came. A wait is timed on the CPU where it entered
 * (llpoll_qv_wait): one clock read per pass, one at the entry and one at
 * the exit. A wait switched out mid-spin (preempted) is counted in its
 * end reason but its spin time is lost: it ends in ll_wait_untimed
 * instead of the histogram, so that the histogram and ll_wait_untimed
 * sum to ll_wait_data.
 *
 * A fork disables and enables a q_vector's NAPI only through
 * llpoll_napi_disable() and llpoll_napi_enable(), which move the lock to
 * and from DISABLE with it (make check fails a fork with a bare
 * napi_disable() or napi_enable() call), and checks with
 * llpoll_qv_assert_disabled() that no one can own a ring whose buffers it
 * cleans or frees.
 */
#ifndef _LLPOLL_QV_LOCK_H
#define _LLPOLL_QV_LOCK_H

#include <linux/bug.h>
#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

/* LLPOLL_VERSION, the forks' MODULE_VERSION, is dkms.conf's
 * PACKAGE_VERSION: module/prepare-src passes it to the build.
 */

#define LLPOLL_QV_STATE_IDLE		0
#define LLPOLL_QV_STATE_NAPI		1	/* NAPI owns this q_vector */
#define LLPOLL_QV_STATE_POLL		2	/* a socket poller owns it */
#define LLPOLL_QV_STATE_DISABLE		4	/* going down: no new owner */
#define LLPOLL_QV_STATE_NAPI_YIELD	8	/* NAPI found it owned */
#define LLPOLL_QV_STATE_POLL_YIELD	16	/* a poller found it owned */
#define LLPOLL_QV_OWNED		(LLPOLL_QV_STATE_NAPI | LLPOLL_QV_STATE_POLL)
#define LLPOLL_QV_LOCKED	(LLPOLL_QV_OWNED | LLPOLL_QV_STATE_DISABLE)
#define LLPOLL_QV_USER_PEND	(LLPOLL_QV_STATE_POLL | LLPOLL_QV_STATE_POLL_YIELD)

/* Hold timer: the interrupt is handed back a hold after the last poller
 * left with data, unless a poller is back. The least hold is each fork's
 * ll_hold_us module parameter (LLPOLL_QV_DEFINE_HOLD_PARAM), read at every
 * start: a request/response program comes back within a few microseconds
 * on hardware, within hundreds under QEMU's TCG, and the hold stretches
 * to cover its request cycles (llpoll_qv_hold_ns()).
 */
#define LLPOLL_QV_HOLD_US		200
#define LLPOLL_QV_HOLD_US_MAX		1000000

/* The cost counters of one q_vector, in their ethtool -S order. Bucket b
 * of the spin histogram counts waits with data that spun less than 2^b µs
 * and at least 2^(b-1) (bucket 0: under 1 µs); the last counts all from
 * 2^(LLPOLL_QV_SPIN_BUCKETS - 2) µs on.
 */
#define LLPOLL_QV_SPIN_BUCKETS		12
enum llpoll_qv_cost {
	LLPOLL_QV_WAITS,		/* spinning waits that entered */
	LLPOLL_QV_WAIT_DATA,		/* ... that ended with data */
	LLPOLL_QV_WAIT_WINDOW,		/* ... by their window (or device down) */
	LLPOLL_QV_WAIT_INTR,		/* ... by a signal or a reschedule */
	LLPOLL_QV_WAIT_UNTIMED,		/* with data, switched out mid-spin */
	LLPOLL_QV_DATA_PASS_NS,		/* time in passes that found data */
	LLPOLL_QV_EMPTY_PASS_NS,	/* time in passes that found nothing */
	LLPOLL_QV_SPIN_HIST,		/* first histogram bucket */
	LLPOLL_QV_COST_STATS_LEN = LLPOLL_QV_SPIN_HIST + LLPOLL_QV_SPIN_BUCKETS
};

/* ethtool -S names of RX queue @queue's cost counters, in their order */
static inline void llpoll_qv_cost_strings(u8 **p, unsigned int queue)
{
	static const char * const names[LLPOLL_QV_SPIN_HIST] = {
		[LLPOLL_QV_WAITS] = "ll_waits",
		[LLPOLL_QV_WAIT_DATA] = "ll_wait_data",
		[LLPOLL_QV_WAIT_WINDOW] = "ll_wait_window",
		[LLPOLL_QV_WAIT_INTR] = "ll_wait_intr",
		[LLPOLL_QV_WAIT_UNTIMED] = "ll_wait_untimed",
		[LLPOLL_QV_DATA_PASS_NS] = "ll_data_pass_ns",
		[LLPOLL_QV_EMPTY_PASS_NS] = "ll_empty_pass_ns",
	};
	unsigned int i;

	for (i = 0; i < LLPOLL_QV_SPIN_HIST; i++)
		ethtool_sprintf(p, "rx_q_%u_%s", queue, names[i]);
	for (i = 0; i < LLPOLL_QV_SPIN_BUCKETS - 1; i++)
		ethtool_sprintf(p, "rx_q_%u_ll_spin_lt_%uus", queue, 1U << i);
	ethtool_sprintf(p, "rx_q_%u_ll_spin_ge_%uus", queue, 1U << (i - 1));
}

/* the histogram bucket of a spin of @ns */
static inline unsigned int llpoll_qv_spin_bucket(u64 ns)
{
	unsigned int b = fls64(div_u64(ns, NSEC_PER_USEC));

	return min_t(unsigned int, b, LLPOLL_QV_SPIN_BUCKETS - 1);
}

#ifdef CONFIG_INET_LL_RX_POLL
struct llpoll_qv;

/* The spinning wait running on a CPU, for its pass and spin times. A
 * CPU runs one at a time: its passes run with BHs disabled, and a wait
 * that is switched out between them loses its slot (switches moves).
 */
struct llpoll_qv_wait {
	const struct llpoll_qv *qv;	/* the q_vector it spins on, or NULL */
	const struct task_struct *task;
	unsigned long switches;		/* the task's context switches then */
	u64 start_ns;			/* the wait entered */
	u64 pass_ns;			/* its last pass ended */
};

DECLARE_PER_CPU(struct llpoll_qv_wait, llpoll_qv_wait);

/* The CPUs' wait slots, defined once, in the file that defines ll_hold_us */
#define LLPOLL_QV_DEFINE_WAITS \
DEFINE_PER_CPU(struct llpoll_qv_wait, llpoll_qv_wait)

/*
 * driver, under the lock: @hold, mask the q_vector's interrupt, false if
 * it cannot be masked alone (one vector for the whole device); !@hold,
 * the hold ends and NAPI is about to run: forget the interrupt causes
 * that packets raised while masked (the pollers served them), so that
 * NAPI's re-arm does not fire at once for nothing
 */
typedef bool (*llpoll_qv_irq_hold_t)(struct llpoll_qv *qv, bool hold);

struct llpoll_qv {
	spinlock_t lock;		/* guards all below but the timer */
	unsigned int state;
	unsigned int pollers;		/* spinning waits that entered */
	bool irq_held;			/* the interrupt is masked for them */
	bool backlog;			/* the last pass cleaned its budget */
	bool timer_armed;		/* the hold timer is queued or firing */
	bool cycle_valid;		/* the hold has lasted since last_exit_ns */
	u64 last_exit_ns;		/* the last poller left with data then */
	u64 cycle_ns;			/* average time between such exits */
	struct napi_struct *napi;	/* scheduled to hand the interrupt back */
	llpoll_qv_irq_hold_t irq_hold;
	struct hrtimer hold_timer;
	const unsigned int *hold_us;	/* the fork's ll_hold_us */
	struct u64_stats_sync syncp;	/* written under lock */
	u64_stats_t napi_yields;	/* NAPI found a poller owning it */
	u64_stats_t poll_yields;	/* a poller found it owned */
	u64_stats_t handbacks;		/* the last poller left without data
					 * or after a full pass
					 */
	u64_stats_t timer_handbacks;	/* the hold timer found no poller */
	u64_stats_t cost[LLPOLL_QV_COST_STATS_LEN];	/* enum llpoll_qv_cost */
};

static inline enum hrtimer_restart llpoll_qv_hold_expired(struct hrtimer *timer);

/* a hold covers this many request cycles, up to this many times ll_hold_us */
#define LLPOLL_QV_HOLD_CYCLES		4
#define LLPOLL_QV_HOLD_STRETCH		10

/* the longest a hold lasts: LLPOLL_QV_HOLD_STRETCH times ll_hold_us, in ns */
static inline u64 llpoll_qv_hold_most_ns(const struct llpoll_qv *qv)
{
	return LLPOLL_QV_HOLD_STRETCH * (u64)READ_ONCE(*qv->hold_us) * NSEC_PER_USEC;
}

/* under the lock: how long the hold lasts after the last poller left
 * with data, in ns: the request cycles, between ll_hold_us and the most
 */
static inline u64 llpoll_qv_hold_ns(const struct llpoll_qv *qv)
{
	u64 least = (u64)READ_ONCE(*qv->hold_us) * NSEC_PER_USEC;
	u64 most = llpoll_qv_hold_most_ns(qv);
	u64 cycles = LLPOLL_QV_HOLD_CYCLES * qv->cycle_ns;

	return clamp(cycles, least, most);
}

/* ll_hold_us: values outside 1..LLPOLL_QV_HOLD_US_MAX are refused
 * (EINVAL) and change nothing
 */
static inline int llpoll_qv_hold_param_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, LLPOLL_QV_HOLD_US_MAX);
}

/* The fork's ll_hold_us module parameter, defined once, in the file that
 * calls llpoll_qv_init() with its address.
 */
#define LLPOLL_QV_DEFINE_HOLD_PARAM					\
static unsigned int ll_hold_us = LLPOLL_QV_HOLD_US;			\
static const struct kernel_param_ops ll_hold_us_ops = {			\
	.set = llpoll_qv_hold_param_set,				\
	.get = param_get_uint,						\
};									\
module_param_cb(ll_hold_us, &ll_hold_us_ops, &ll_hold_us, 0644);	\
MODULE_PARM_DESC(ll_hold_us, "Least microseconds the interrupt stays "	\
		 "held after the last socket poller left with data; "	\
		 "stretched to cover " __stringify(LLPOLL_QV_HOLD_CYCLES)	\
		 " request cycles, up to " __stringify(LLPOLL_QV_HOLD_STRETCH) \
		 " times (1-" __stringify(LLPOLL_QV_HOLD_US_MAX)		\
		 ", default " __stringify(LLPOLL_QV_HOLD_US) ")")

/* when the q_vector is allocated: the counters start at 0 */
static inline void llpoll_qv_init(struct llpoll_qv *qv, struct napi_struct *napi,
				  llpoll_qv_irq_hold_t irq_hold,
				  const unsigned int *hold_us)
{
	unsigned int i;

	spin_lock_init(&qv->lock);
	u64_stats_init(&qv->syncp);
	u64_stats_set(&qv->napi_yields, 0);
	u64_stats_set(&qv->poll_yields, 0);
	u64_stats_set(&qv->handbacks, 0);
	u64_stats_set(&qv->timer_handbacks, 0);
	for (i = 0; i < LLPOLL_QV_COST_STATS_LEN; i++)
		u64_stats_set(&qv->cost[i], 0);
	qv->state = LLPOLL_QV_STATE_DISABLE;
	qv->pollers = 0;
	qv->irq_held = false;
	qv->backlog = false;
	qv->timer_armed = false;
	qv->cycle_valid = false;
	qv->last_exit_ns = 0;
	qv->cycle_ns = 0;
	qv->napi = napi;
	qv->irq_hold = irq_hold;
	qv->hold_us = hold_us;
	hrtimer_init(&qv->hold_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qv->hold_timer.function = llpoll_qv_hold_expired;
}

/* before napi_enable(): the q_vector is free to take */
static inline void llpoll_qv_enable(struct llpoll_qv *qv)
{
	spin_lock_bh(&qv->lock);
	qv->state = LLPOLL_QV_STATE_IDLE;
	spin_unlock_bh(&qv->lock);
}

static inline void llpoll_qv_count(struct llpoll_qv *qv, u64_stats_t *ctr)
{
	u64_stats_update_begin(&qv->syncp);
	u64_stats_inc(ctr);
	u64_stats_update_end(&qv->syncp);
}

static inline void llpoll_qv_read_yields(struct llpoll_qv *qv, u64 *napi_yields,
					 u64 *poll_yields)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&qv->syncp);
		*napi_yields = u64_stats_read(&qv->napi_yields);
		*poll_yields = u64_stats_read(&qv->poll_yields);
	} while (u64_stats_fetch_retry(&qv->syncp, start));
}

static inline void llpoll_qv_read_handbacks(struct llpoll_qv *qv, u64 *handbacks,
					    u64 *timer_handbacks)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&qv->syncp);
		*handbacks = u64_stats_read(&qv->handbacks);
		*timer_handbacks = u64_stats_read(&qv->timer_handbacks);
	} while (u64_stats_fetch_retry(&qv->syncp, start));
}

/* ethtool -S: the q_vector's cost counters, LLPOLL_QV_COST_STATS_LEN */
static inline void llpoll_qv_read_cost(struct llpoll_qv *qv, u64 *data)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&qv->syncp);
		for (i = 0; i < LLPOLL_QV_COST_STATS_LEN; i++)
			data[i] = u64_stats_read(&qv->cost[i]);
	} while (u64_stats_fetch_retry(&qv->syncp, start));
}

/* the calling task's wait on @qv in this CPU's slot, or NULL: a single
 * pass, or a wait switched out since its last pass
 */
static inline struct llpoll_qv_wait *llpoll_qv_this_wait(const struct llpoll_qv *qv)
{
	struct llpoll_qv_wait *w = this_cpu_ptr(&llpoll_qv_wait);

	if (w->qv != qv || w->task != current ||
	    w->switches != current->nvcsw + current->nivcsw)
		return NULL;
	return w;
}

/* a spinning wait enters: it takes this CPU's slot */
static inline void llpoll_qv_wait_start(const struct llpoll_qv *qv)
{
	struct llpoll_qv_wait *w = this_cpu_ptr(&llpoll_qv_wait);

	w->qv = qv;
	w->task = current;
	w->switches = current->nvcsw + current->nivcsw;
	w->start_ns = ktime_get_ns();
	w->pass_ns = w->start_ns;
}

/* under the lock, a pass ends: its time since the wait's last pass, by
 * whether it found @data; a pass outside a timed wait is not timed
 */
static inline void llpoll_qv_count_pass(struct llpoll_qv *qv, bool data)
{
	struct llpoll_qv_wait *w = llpoll_qv_this_wait(qv);
	u64 now;

	if (!w)
		return;
	now = ktime_get_ns();
	u64_stats_update_begin(&qv->syncp);
	u64_stats_add(&qv->cost[data ? LLPOLL_QV_DATA_PASS_NS :
				LLPOLL_QV_EMPTY_PASS_NS], now - w->pass_ns);
	u64_stats_update_end(&qv->syncp);
	w->pass_ns = now;
}

/* under the lock, a wait ends at @now: with data unless @idle, else by a
 * signal or reschedule if one is pending, else by its window
 */
static inline void llpoll_qv_count_exit(struct llpoll_qv *qv, bool idle, u64 now)
{
	struct llpoll_qv_wait *w = llpoll_qv_this_wait(qv);
	unsigned int end = LLPOLL_QV_WAIT_DATA;

	if (idle)
		end = signal_pending(current) || need_resched() ?
		      LLPOLL_QV_WAIT_INTR : LLPOLL_QV_WAIT_WINDOW;
	u64_stats_update_begin(&qv->syncp);
	u64_stats_inc(&qv->cost[end]);
	if (!idle)
		u64_stats_inc(&qv->cost[w ? LLPOLL_QV_SPIN_HIST +
					llpoll_qv_spin_bucket(now - w->start_ns) :
					LLPOLL_QV_WAIT_UNTIMED]);
	u64_stats_update_end(&qv->syncp);
	if (w)
		w->qv = NULL;
}

/* NAPI poll, in softirq: true if NAPI now owns the q_vector. If not, a
 * poller owns it: NAPI completes without re-arming the interrupt, and the
 * poller schedules it again when it unlocks (or at the hand-back).
 */
static inline bool llpoll_qv_lock_napi(struct llpoll_qv *qv)
{
	bool owned = true;

	spin_lock(&qv->lock);
	if (qv->state & LLPOLL_QV_LOCKED) {
		WARN_ON(qv->state & LLPOLL_QV_STATE_NAPI);
		qv->state |= LLPOLL_QV_STATE_NAPI_YIELD;
		llpoll_qv_count(qv, &qv->napi_yields);
		owned = false;
	} else {
		/* a yield recorded earlier has been served by now */
		qv->state = LLPOLL_QV_STATE_NAPI;
	}
	spin_unlock(&qv->lock);
	return owned;
}

/* true if a poller tried to get the q_vector while NAPI had it */
static inline bool llpoll_qv_unlock_napi(struct llpoll_qv *qv)
{
	bool contended;

	spin_lock(&qv->lock);
	WARN_ON(qv->state & (LLPOLL_QV_STATE_POLL | LLPOLL_QV_STATE_NAPI_YIELD));
	contended = qv->state & LLPOLL_QV_STATE_POLL_YIELD;
	qv->state &= LLPOLL_QV_STATE_DISABLE;
	spin_unlock(&qv->lock);
	return contended;
}

/* socket poller, in process context: true if it now owns the q_vector */
static inline bool llpoll_qv_lock_poll(struct llpoll_qv *qv)
{
	bool owned = true;

	spin_lock_bh(&qv->lock);
	if (qv->state & LLPOLL_QV_LOCKED) {
		qv->state |= LLPOLL_QV_STATE_POLL_YIELD;
		llpoll_qv_count(qv, &qv->poll_yields);
		llpoll_qv_count_pass(qv, false);
		owned = false;
	} else {
		/* keep the yield marks: NAPI must still see them */
		qv->state |= LLPOLL_QV_STATE_POLL;
	}
	spin_unlock_bh(&qv->lock);
	return owned;
}

/*
 * True if someone tried to get the q_vector while the poller had it. NAPI
 * completed when it found the poller owning the rings: schedule it again
 * unless the interrupt hold is on (then a hand-back will). The pass found
 * @found packets with a budget of @budget: a full one means more is
 * likely waiting.
 */
static inline bool llpoll_qv_unlock_poll(struct llpoll_qv *qv, int found,
					 int budget)
{
	bool contended, resched;

	spin_lock_bh(&qv->lock);
	WARN_ON(qv->state & LLPOLL_QV_STATE_NAPI);
	llpoll_qv_count_pass(qv, found > 0);
	qv->backlog = found >= budget;
	contended = qv->state & (LLPOLL_QV_STATE_POLL_YIELD | LLPOLL_QV_STATE_NAPI_YIELD);
	resched = (qv->state & LLPOLL_QV_STATE_NAPI_YIELD) && !qv->irq_held;
	qv->state &= LLPOLL_QV_STATE_DISABLE;
	spin_unlock_bh(&qv->lock);
	if (resched)
		napi_schedule(qv->napi);
	return contended;
}

/*
 * ndo_ll_poll's LL_POLL_ENTER, before the pass: a spinning wait joins the
 * q_vector. The first poller masks its interrupt. When the q_vector's TX
 * rings hold completions (@tx: sent descriptors not yet cleaned), a
 * poller entering while the hold is on schedules NAPI, which cleans the
 * TX completions that pollers leave to it; a poll() or select() spin,
 * which enters for every pass, then kicks NAPI only when there is
 * something to clean. False
 * if the q_vector is disabled: the caller returns LL_FLUSH_FAILED and no
 * exit follows.
 */
static inline bool llpoll_qv_enter(struct llpoll_qv *qv, bool tx)
{
	bool kick = false;

	spin_lock_bh(&qv->lock);
	if (qv->state & LLPOLL_QV_STATE_DISABLE) {
		spin_unlock_bh(&qv->lock);
		return false;
	}
	qv->pollers++;
	llpoll_qv_count(qv, &qv->cost[LLPOLL_QV_WAITS]);
	llpoll_qv_wait_start(qv);
	if (qv->irq_held)
		kick = tx;
	else
		qv->irq_held = qv->irq_hold(qv, true);
	spin_unlock_bh(&qv->lock);
	if (kick)
		napi_schedule(qv->napi);
	return true;
}

/* hand the interrupt back: NAPI, scheduled next, cleans what is left and
 * re-arms it
 */
static inline void llpoll_qv_handback(struct llpoll_qv *qv, u64_stats_t *ctr)
{
	qv->irq_held = false;
	qv->backlog = false;
	qv->cycle_valid = false;
	qv->irq_hold(qv, false);
	llpoll_qv_count(qv, ctr);
}

/* under the lock, the last poller leaving with data at @now while the
 * hold is on: the request cycle ends here; start the hold timer unless it
 * runs
 */
static inline void llpoll_qv_hold_on(struct llpoll_qv *qv, u64 now)
{
	u64 most = llpoll_qv_hold_most_ns(qv);
	u64 cycle, hold;

	/* an average over about 8 cycles, each counted up to the longest
	 * hold (a long wait stretches it no further)
	 */
	if (qv->cycle_valid) {
		cycle = now - qv->last_exit_ns;
		if (cycle > most)
			cycle = most;
		qv->cycle_ns = qv->cycle_ns - (qv->cycle_ns >> 3) + (cycle >> 3);
	}
	qv->cycle_valid = true;
	qv->last_exit_ns = now;
	hold = llpoll_qv_hold_ns(qv);
	/* started, or pushed on when less than half a hold is left, so that
	 * it neither fires in a spin nor is moved at every exit
	 */
	if (!qv->timer_armed ||
	    (u64)hrtimer_get_expires_ns(&qv->hold_timer) < now + hold / 2) {
		qv->timer_armed = true;
		hrtimer_start(&qv->hold_timer, ns_to_ktime(hold),
			      HRTIMER_MODE_REL_SOFT);
	}
}

/*
 * ndo_ll_poll's LL_POLL_EXIT: a poller leaves. The last one hands the
 * interrupt back at once if it found no data (@idle: its caller sleeps
 * next) or if the last pass left a backlog; otherwise the hold stays for
 * the poller's return, and lasts a hold from now (llpoll_qv_hold_on()).
 * Runs even when the q_vector was disabled meanwhile.
 */
static inline void llpoll_qv_exit(struct llpoll_qv *qv, bool idle)
{
	u64 now = ktime_get_ns();
	bool handback = false;

	spin_lock_bh(&qv->lock);
	llpoll_qv_count_exit(qv, idle, now);
	if (!WARN_ON(!qv->pollers))
		qv->pollers--;
	if (!qv->pollers && qv->irq_held) {
		if (idle || qv->backlog) {
			llpoll_qv_handback(qv, &qv->handbacks);
			handback = true;
		} else {
			llpoll_qv_hold_on(qv, now);
		}
	}
	spin_unlock_bh(&qv->lock);
	if (handback)
		napi_schedule(qv->napi);
}

/*
 * hold timer, in softirq: hand back if no poller came back and the last
 * one left a hold ago; if one left with data since the timer started, wait
 * for that exit's end of hold. A poller that is back starts the timer
 * again when it leaves with data.
 */
static inline enum hrtimer_restart llpoll_qv_hold_expired(struct hrtimer *timer)
{
	struct llpoll_qv *qv = container_of(timer, struct llpoll_qv, hold_timer);
	enum hrtimer_restart restart = HRTIMER_NORESTART;
	bool handback = false;
	u64 end;

	spin_lock(&qv->lock);
	if (qv->irq_held && !qv->pollers) {
		end = qv->last_exit_ns + llpoll_qv_hold_ns(qv);
		if (ktime_get_ns() < end) {
			hrtimer_set_expires(timer, ns_to_ktime(end));
			restart = HRTIMER_RESTART;
		} else {
			llpoll_qv_handback(qv, &qv->timer_handbacks);
			handback = true;
		}
	}
	if (restart == HRTIMER_NORESTART)
		qv->timer_armed = false;
	spin_unlock(&qv->lock);
	if (handback)
		napi_schedule(qv->napi);
	return restart;
}

/* NAPI, after napi_complete_done(): may it re-arm the interrupt? */
static inline bool llpoll_qv_napi_rearm(struct llpoll_qv *qv)
{
	bool rearm;

	spin_lock(&qv->lock);
	rearm = !qv->irq_held;
	spin_unlock(&qv->lock);
	return rearm;
}

/* called by the owner: is a socket polling, so skip GRO? */
static inline bool llpoll_qv_user_pending(struct llpoll_qv *qv)
{
	WARN_ON(!(qv->state & LLPOLL_QV_OWNED));
	return qv->state & LLPOLL_QV_USER_PEND;
}

/*
 * called by the owner: is it NAPI? NAPI switches from GRO to direct
 * delivery when a poller yields, and must first flush what GRO holds
 * (napi_ll_flush()), or the packets it delivers would overtake them.
 * A poller must not touch NAPI's GRO lists.
 */
static inline bool llpoll_qv_napi_owned(struct llpoll_qv *qv)
{
	WARN_ON(!(qv->state & LLPOLL_QV_OWNED));
	return qv->state & LLPOLL_QV_STATE_NAPI;
}

/*
 * After napi_disable(), in process context: bar new owners and report
 * whether the q_vector is free. The caller sleeps and retries while a
 * poller still owns it.
 */
static inline bool llpoll_qv_disable(struct llpoll_qv *qv)
{
	bool idle;

	spin_lock_bh(&qv->lock);
	idle = !(qv->state & LLPOLL_QV_OWNED);
	qv->state |= LLPOLL_QV_STATE_DISABLE;
	/* the driver masks and re-arms every interrupt itself from here */
	qv->irq_held = false;
	qv->backlog = false;
	qv->cycle_valid = false;
	spin_unlock_bh(&qv->lock);
	return idle;
}

/* after llpoll_qv_disable(), in process context: no timer runs on */
static inline void llpoll_qv_stop_timer(struct llpoll_qv *qv)
{
	hrtimer_cancel(&qv->hold_timer);
	spin_lock_bh(&qv->lock);
	qv->timer_armed = false;
	spin_unlock_bh(&qv->lock);
}

/* before a ring's buffers are cleaned or freed, in process context */
static inline void llpoll_qv_assert_disabled(struct llpoll_qv *qv)
{
	spin_lock_bh(&qv->lock);
	WARN_ON_ONCE(!(qv->state & LLPOLL_QV_STATE_DISABLE));
	spin_unlock_bh(&qv->lock);
}
#else /* CONFIG_INET_LL_RX_POLL */
struct llpoll_qv {
};

typedef bool (*llpoll_qv_irq_hold_t)(struct llpoll_qv *qv, bool hold);

/* no interrupt hold: no parameter, only the default */
#define LLPOLL_QV_DEFINE_HOLD_PARAM \
static const unsigned int ll_hold_us = LLPOLL_QV_HOLD_US

/* no waits to time */
#define LLPOLL_QV_DEFINE_WAITS struct llpoll_qv_wait

static inline void llpoll_qv_init(struct llpoll_qv *qv, struct napi_struct *napi,
				  llpoll_qv_irq_hold_t irq_hold,
				  const unsigned int *hold_us)
{
}

static inline void llpoll_qv_enable(struct llpoll_qv *qv)
{
}

static inline void llpoll_qv_read_yields(struct llpoll_qv *qv, u64 *napi_yields,
					 u64 *poll_yields)
{
	*napi_yields = 0;
	*poll_yields = 0;
}

static inline void llpoll_qv_read_handbacks(struct llpoll_qv *qv, u64 *handbacks,
					    u64 *timer_handbacks)
{
	*handbacks = 0;
	*timer_handbacks = 0;
}

/* no waits: every cost counter stays 0 */
static inline void llpoll_qv_read_cost(struct llpoll_qv *qv, u64 *data)
{
	memset(data, 0, LLPOLL_QV_COST_STATS_LEN * sizeof(*data));
}

static inline bool llpoll_qv_lock_napi(struct llpoll_qv *qv)
{
	return true;
}

static inline bool llpoll_qv_unlock_napi(struct llpoll_qv *qv)
{
	return false;
}

static inline bool llpoll_qv_lock_poll(struct llpoll_qv *qv)
{
	return false;
}

static inline bool llpoll_qv_unlock_poll(struct llpoll_qv *qv, int found,
					 int budget)
{
	return false;
}

static inline bool llpoll_qv_enter(struct llpoll_qv *qv, bool tx)
{
	return false;
}

static inline void llpoll_qv_exit(struct llpoll_qv *qv, bool idle)
{
}

static inline bool llpoll_qv_napi_rearm(struct llpoll_qv *qv)
{
	return true;
}

static inline bool llpoll_qv_user_pending(struct llpoll_qv *qv)
{
	return false;
}

/* NAPI owns every ring: the driver refills and flushes as in-tree */
static inline bool llpoll_qv_napi_owned(struct llpoll_qv *qv)
{
	return true;
}

static inline bool llpoll_qv_disable(struct llpoll_qv *qv)
{
	return true;
}

static inline void llpoll_qv_stop_timer(struct llpoll_qv *qv)
{
}

static inline void llpoll_qv_assert_disabled(struct llpoll_qv *qv)
{
}
#endif /* CONFIG_INET_LL_RX_POLL */

/* The only way a fork stops a q_vector's NAPI: a poller may still own the
 * rings after napi_disable(), so wait in DISABLE until it leaves. It
 * sleeps rather than spinning with BHs off, as the poller runs in one.
 */
static inline void llpoll_napi_disable(struct napi_struct *napi,
				       struct llpoll_qv *qv)
{
	napi_disable(napi);
	while (!llpoll_qv_disable(qv))
		usleep_range(1000, 2000);
	llpoll_qv_stop_timer(qv);
}

/* The only way a fork starts a q_vector's NAPI: the lock is free first */
static inline void llpoll_napi_enable(struct napi_struct *napi,
				      struct llpoll_qv *qv)
{
	llpoll_qv_enable(qv);
	napi_enable(napi);
}

#endif /* _LLPOLL_QV_LOCK_H */
