/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: usleep_range() sleeps its minimum. */
#ifndef _SHIM_LINUX_DELAY_H
#define _SHIM_LINUX_DELAY_H
#include <unistd.h>
#define usleep_range(min, max)	usleep(min)
#endif
