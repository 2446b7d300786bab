/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: an hrtimer records whether it is queued, for how long
 * it was last started and where its callback moved it; tests fire its
 * function themselves. The monotonic clock is shim_now_ns, which tests
 * move.
 */
#ifndef _SHIM_LINUX_HRTIMER_H
#define _SHIM_LINUX_HRTIMER_H
#include <stdatomic.h>
#include <stdint.h>
typedef int64_t ktime_t;
#define NSEC_PER_USEC		1000L
#define ns_to_ktime(ns)		((ktime_t)(ns))
#define CLOCK_MONOTONIC		1
#define HRTIMER_MODE_REL_SOFT	2
enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
struct hrtimer {
	enum hrtimer_restart (*function)(struct hrtimer *timer);
	atomic_int queued;
	atomic_int starts;
	ktime_t period;
	ktime_t expires;
};
extern atomic_llong shim_now_ns;
static inline uint64_t ktime_get_ns(void)
{
	return (uint64_t)atomic_load(&shim_now_ns);
}
#define hrtimer_init(t, clock, mode)	\
	do { atomic_store(&(t)->queued, 0); atomic_store(&(t)->starts, 0); } while (0)
#define hrtimer_start(t, k, mode)	\
	do { (t)->period = (k); (t)->expires = (ktime_t)ktime_get_ns() + (k); \
	     atomic_store(&(t)->queued, 1); atomic_fetch_add(&(t)->starts, 1); } while (0)
#define hrtimer_set_expires(t, k)	((t)->expires = (k))
#define hrtimer_get_expires_ns(t)	((int64_t)(t)->expires)
#define hrtimer_cancel(t)		atomic_exchange(&(t)->queued, 0)
/* the callback never runs on its own here: cancelling always succeeds */
#define hrtimer_try_to_cancel(t)	atomic_exchange(&(t)->queued, 0)
#endif
