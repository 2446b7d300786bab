/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: 64-bit division as the kernel's div_u64(). */
#ifndef _SHIM_LINUX_MATH64_H
#define _SHIM_LINUX_MATH64_H
#include <linux/types.h>
#define div_u64(n, d)	((u64)(n) / (d))
#endif
