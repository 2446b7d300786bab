/* SPDX-License-Identifier: GPL-2.0-only */
/* The unit tests' results: one "ok - NAME" or "not ok - NAME (file:line)"
 * line per CHECK, and a closing "N passed, M failed" line (check_done())
 * that tests/run counts them by.
 */
#ifndef _LLPOLL_UNIT_CHECK_H
#define _LLPOLL_UNIT_CHECK_H
#include <stdio.h>

static int passed, failed;

#define CHECK(cond, name) do {						\
	if (cond) {							\
		passed++;						\
		printf("ok - %s\n", name);				\
	} else {							\
		failed++;						\
		printf("not ok - %s (%s:%d)\n", name, __FILE__, __LINE__); \
	}								\
} while (0)

/* the closing line; the exit status of main */
static inline int check_done(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif
