/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: spinlocks are pthread mutexes; BH variants are the same. */
#ifndef _SHIM_LINUX_SPINLOCK_H
#define _SHIM_LINUX_SPINLOCK_H
#include <pthread.h>
typedef pthread_mutex_t spinlock_t;
#define spin_lock_init(l)	pthread_mutex_init((l), NULL)
#define spin_lock(l)		pthread_mutex_lock(l)
#define spin_unlock(l)		pthread_mutex_unlock(l)
#define spin_lock_bh(l)		pthread_mutex_lock(l)
#define spin_unlock_bh(l)	pthread_mutex_unlock(l)
#endif
