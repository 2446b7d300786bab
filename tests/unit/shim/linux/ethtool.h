/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: ethtool_sprintf() writes one ETH_GSTRING_LEN name and
 * moves on, as the kernel's does.
 */
#ifndef _SHIM_LINUX_ETHTOOL_H
#define _SHIM_LINUX_ETHTOOL_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#define ETH_GSTRING_LEN		32
static inline __attribute__((format(printf, 2, 3)))
void ethtool_sprintf(u8 **data, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf((char *)*data, ETH_GSTRING_LEN, fmt, args);
	va_end(args);
	*data += ETH_GSTRING_LEN;
}
#endif
