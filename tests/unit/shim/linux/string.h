/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: the C library's memset() and friends. */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H
#include <string.h>
#endif
