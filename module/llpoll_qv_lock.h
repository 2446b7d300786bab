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
 *   owned --lock_napi--> +NAPI_YIELD (NAPI returns its budget: it stays
 *                        scheduled and tries again)
 *   owned --lock_poll--> +POLL_YIELD (the poller returns LL_FLUSH_BUSY)
 *   any   --disable----> +DISABLE (sticky until enable; no new owner)
 *
 * The spinlock guards only the state word and the yield counters, never
 * the rings. The counters are read with u64_stats, like ring counters.
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
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

#define LLPOLL_VERSION			"0.1.0"

#define LLPOLL_QV_STATE_IDLE		0
#define LLPOLL_QV_STATE_NAPI		1	/* NAPI owns this q_vector */
#define LLPOLL_QV_STATE_POLL		2	/* a socket poller owns it */
#define LLPOLL_QV_STATE_DISABLE		4	/* going down: no new owner */
#define LLPOLL_QV_STATE_NAPI_YIELD	8	/* NAPI found it owned */
#define LLPOLL_QV_STATE_POLL_YIELD	16	/* a poller found it owned */
#define LLPOLL_QV_OWNED		(LLPOLL_QV_STATE_NAPI | LLPOLL_QV_STATE_POLL)
#define LLPOLL_QV_LOCKED	(LLPOLL_QV_OWNED | LLPOLL_QV_STATE_DISABLE)
#define LLPOLL_QV_USER_PEND	(LLPOLL_QV_STATE_POLL | LLPOLL_QV_STATE_POLL_YIELD)

#ifdef CONFIG_INET_LL_RX_POLL
struct llpoll_qv {
	spinlock_t lock;		/* guards state and the yield counters */
	unsigned int state;
	struct u64_stats_sync syncp;	/* written under lock */
	u64_stats_t napi_yields;	/* NAPI found a poller owning it */
	u64_stats_t poll_yields;	/* a poller found it owned */
};

/* when the q_vector is allocated: the counters start at 0 */
static inline void llpoll_qv_init(struct llpoll_qv *qv)
{
	spin_lock_init(&qv->lock);
	u64_stats_init(&qv->syncp);
	u64_stats_set(&qv->napi_yields, 0);
	u64_stats_set(&qv->poll_yields, 0);
	qv->state = LLPOLL_QV_STATE_DISABLE;
}

/* before napi_enable(): the q_vector is free to take */
static inline void llpoll_qv_enable(struct llpoll_qv *qv)
{
	spin_lock_bh(&qv->lock);
	qv->state = LLPOLL_QV_STATE_IDLE;
	spin_unlock_bh(&qv->lock);
}

static inline void llpoll_qv_count_yield(struct llpoll_qv *qv, u64_stats_t *ctr)
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

/* NAPI poll, in softirq: true if NAPI now owns the q_vector */
static inline bool llpoll_qv_lock_napi(struct llpoll_qv *qv)
{
	bool owned = true;

	spin_lock(&qv->lock);
	if (qv->state & LLPOLL_QV_LOCKED) {
		WARN_ON(qv->state & LLPOLL_QV_STATE_NAPI);
		qv->state |= LLPOLL_QV_STATE_NAPI_YIELD;
		llpoll_qv_count_yield(qv, &qv->napi_yields);
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
		llpoll_qv_count_yield(qv, &qv->poll_yields);
		owned = false;
	} else {
		/* keep the yield marks: NAPI must still see them */
		qv->state |= LLPOLL_QV_STATE_POLL;
	}
	spin_unlock_bh(&qv->lock);
	return owned;
}

/* true if someone tried to get the q_vector while the poller had it */
static inline bool llpoll_qv_unlock_poll(struct llpoll_qv *qv)
{
	bool contended;

	spin_lock_bh(&qv->lock);
	WARN_ON(qv->state & LLPOLL_QV_STATE_NAPI);
	contended = qv->state & (LLPOLL_QV_STATE_POLL_YIELD | LLPOLL_QV_STATE_NAPI_YIELD);
	qv->state &= LLPOLL_QV_STATE_DISABLE;
	spin_unlock_bh(&qv->lock);
	return contended;
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
	spin_unlock_bh(&qv->lock);
	return idle;
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

static inline void llpoll_qv_init(struct llpoll_qv *qv)
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

static inline bool llpoll_qv_unlock_poll(struct llpoll_qv *qv)
{
	return false;
}

static inline bool llpoll_qv_user_pending(struct llpoll_qv *qv)
{
	return false;
}

static inline bool llpoll_qv_napi_owned(struct llpoll_qv *qv)
{
	return false;
}

static inline bool llpoll_qv_disable(struct llpoll_qv *qv)
{
	return true;
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
}

/* The only way a fork starts a q_vector's NAPI: the lock is free first */
static inline void llpoll_napi_enable(struct napi_struct *napi,
				      struct llpoll_qv *qv)
{
	llpoll_qv_enable(qv);
	napi_enable(napi);
}

#endif /* _LLPOLL_QV_LOCK_H */
