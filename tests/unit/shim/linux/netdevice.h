/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: a NAPI is a flag that says whether it is enabled. */
#ifndef _SHIM_LINUX_NETDEVICE_H
#define _SHIM_LINUX_NETDEVICE_H
#include <stdatomic.h>
struct napi_struct { atomic_int enabled; };
#define napi_disable(n)		atomic_store(&(n)->enabled, 0)
#define napi_enable(n)		atomic_store(&(n)->enabled, 1)
#endif
