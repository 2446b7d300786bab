/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace shim: the declarations llpoll_qv_lock.h's parameter setter
 * names; the tests never call it.
 */
#ifndef _SHIM_LINUX_MODULEPARAM_H
#define _SHIM_LINUX_MODULEPARAM_H
struct kernel_param;
int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max);
#endif
