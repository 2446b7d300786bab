/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: a task's pending signal, set by the tests. */
#ifndef _SHIM_LINUX_SCHED_SIGNAL_H
#define _SHIM_LINUX_SCHED_SIGNAL_H
#include <linux/sched.h>
#define signal_pending(t)	((t)->sigpending)
#endif
