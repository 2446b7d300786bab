/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: a WARN_ON is a test failure, counted by the test. */
#ifndef _SHIM_LINUX_BUG_H
#define _SHIM_LINUX_BUG_H
#include <stdatomic.h>
extern atomic_int shim_warnings;
#define WARN_ON(cond) ({ int __c = !!(cond); if (__c) atomic_fetch_add(&shim_warnings, 1); __c; })
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#endif
