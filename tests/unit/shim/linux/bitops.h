/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: the kernel's fls64(), 0 for 0, else the 1-based index
 * of the highest set bit.
 */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H
#include <linux/types.h>
static inline unsigned int fls64(u64 x)
{
	return x ? 64 - (unsigned int)__builtin_clzll(x) : 0;
}
#endif
