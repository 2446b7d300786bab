/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: an hrtimer records whether it is queued and for how
 * long it was last started; tests fire its function themselves.
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
};
#define hrtimer_init(t, clock, mode)	\
	do { atomic_store(&(t)->queued, 0); atomic_store(&(t)->starts, 0); } while (0)
#define hrtimer_start(t, k, mode)	\
	do { (t)->period = (k); atomic_store(&(t)->queued, 1); atomic_fetch_add(&(t)->starts, 1); } while (0)
#define hrtimer_cancel(t)		atomic_exchange(&(t)->queued, 0)
#endif
