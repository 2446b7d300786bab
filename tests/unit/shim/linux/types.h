/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim for module/llpoll_qv_lock.h unit tests. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H
#include <stdbool.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef int32_t s32;
typedef uint8_t u8;
typedef int64_t s64;
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#endif
