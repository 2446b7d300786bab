/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: 64-bit counters as in a 64-bit kernel, a sequence count
 * that the test can check for writer overlap.
 */
#ifndef _SHIM_LINUX_U64_STATS_SYNC_H
#define _SHIM_LINUX_U64_STATS_SYNC_H
#include <stdatomic.h>
#include <linux/bug.h>
#include <linux/types.h>
typedef struct { _Atomic u64 v; } u64_stats_t;
struct u64_stats_sync { atomic_uint seq; };
#define u64_stats_init(s)		atomic_store(&(s)->seq, 0)
#define u64_stats_set(p, x)		atomic_store(&(p)->v, (x))
#define u64_stats_inc(p)		atomic_fetch_add(&(p)->v, 1)
#define u64_stats_add(p, x)		atomic_fetch_add(&(p)->v, (x))
#define u64_stats_read(p)		atomic_load(&(p)->v)
/* an odd count at begin means two writers overlap: a WARN */
#define u64_stats_update_begin(s)	WARN_ON(atomic_fetch_add(&(s)->seq, 1) & 1)
#define u64_stats_update_end(s)		atomic_fetch_add(&(s)->seq, 1)
static inline unsigned int u64_stats_fetch_begin(struct u64_stats_sync *s)
{
	unsigned int q;

	while ((q = atomic_load(&s->seq)) & 1)
		;
	return q;
}
#define u64_stats_fetch_retry(s, q)	(atomic_load(&(s)->seq) != (q))
#endif
