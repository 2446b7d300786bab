/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: each thread is one task, its context switches and its
 * pending reschedule and signal moved by the tests.
 */
#ifndef _SHIM_LINUX_SCHED_H
#define _SHIM_LINUX_SCHED_H
struct task_struct {
	unsigned long nvcsw, nivcsw;
	int need_resched, sigpending;
};
extern _Thread_local struct task_struct shim_task;
#define current		(&shim_task)
#define need_resched()	(current->need_resched)
#endif
