/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim for module/llpoll_qv_lock.h unit tests. */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H
/* the kernel's clamp() on values of one type, each evaluated once */
#define clamp(val, lo, hi) ({					\
	__typeof__(val) _v = (val), _l = (lo), _h = (hi);	\
	_v < _l ? _l : (_v > _h ? _h : _v);			\
})
/* the kernel's min_t(): both converted to @type */
#define min_t(type, a, b) ({ type _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(type, a, b) ({ type _a = (a), _b = (b); _a > _b ? _a : _b; })
/* the kernel's min(): both of one type */
#define min(a, b) ({ __typeof__(a) _x = (a), _y = (b); _x < _y ? _x : _y; })
#endif
