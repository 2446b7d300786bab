/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim for include/net/ll_adapt.h unit tests. */
#ifndef _SHIM_LINUX_LIMITS_H
#define _SHIM_LINUX_LIMITS_H
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#endif
