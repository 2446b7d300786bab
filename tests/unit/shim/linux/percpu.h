/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: a thread is a CPU, so a per-CPU variable is one per
 * thread.
 */
#ifndef _SHIM_LINUX_PERCPU_H
#define _SHIM_LINUX_PERCPU_H
#define DECLARE_PER_CPU(type, name)	extern _Thread_local type name
#define DEFINE_PER_CPU(type, name)	_Thread_local type name
#define this_cpu_ptr(ptr)		(ptr)
#endif
