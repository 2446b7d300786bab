/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: a NAPI is a flag that says whether it is enabled and a
 * count of the times it was scheduled.
 */
#ifndef _SHIM_LINUX_NETDEVICE_H
#define _SHIM_LINUX_NETDEVICE_H
#include <stdatomic.h>
#include <stddef.h>
struct napi_struct { atomic_int enabled; atomic_int scheduled; };
#define napi_disable(n)		atomic_store(&(n)->enabled, 0)
#define napi_enable(n)		atomic_store(&(n)->enabled, 1)
#define napi_schedule(n)	atomic_fetch_add(&(n)->scheduled, 1)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
