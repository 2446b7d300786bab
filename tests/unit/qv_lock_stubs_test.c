// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of module/llpoll_qv_lock.h's stubs for a kernel without
 * CONFIG_INET_LL_RX_POLL, compiled in userspace against tests/unit/shim:
 * the forks call the helpers without ifdefs, so there each must leave the
 * driver as the in-tree one, with NAPI owning every ring.
 */
#include <stdio.h>
#include "llpoll_qv_lock.h"
#include "check.h"

atomic_int shim_warnings;
atomic_llong shim_now_ns;
_Thread_local struct task_struct shim_task;

LLPOLL_QV_DEFINE_HOLD_PARAM;
LLPOLL_QV_DEFINE_WAITS;

static bool no_hold(struct llpoll_qv *qv, bool hold)
{
	(void)qv;
	(void)hold;
	return false;
}

int main(void)
{
	struct napi_struct napi = { 0 };
	struct llpoll_qv qv;
	u64 cost[LLPOLL_QV_COST_STATS_LEN];
	u8 names[LLPOLL_QV_COST_STATS_LEN * ETH_GSTRING_LEN], *p = names;
	u64 a = 1, b = 1;
	bool zero = true;

	llpoll_qv_init(&qv, &napi, no_hold, &ll_hold_us);
	llpoll_napi_enable(&napi, &qv);
	CHECK(atomic_load(&napi.enabled), "stubs: llpoll_napi_enable enables NAPI");
	CHECK(ll_hold_us == LLPOLL_QV_HOLD_US, "stubs: the hold is the default, no parameter");
	CHECK(!llpoll_qv_enter(&qv, false), "stubs: a poller never enters (no ndo_ll_poll)");
	CHECK(!llpoll_qv_lock_poll(&qv), "stubs: a poller never takes the rings");
	CHECK(llpoll_qv_lock_napi(&qv), "stubs: NAPI always takes the rings");
	CHECK(llpoll_qv_napi_owned(&qv),
	      "stubs: NAPI owns the rings (igb refills at every clean, as in-tree)");
	CHECK(!llpoll_qv_user_pending(&qv), "stubs: no poller waits (NAPI keeps GRO)");
	CHECK(!llpoll_qv_unlock_napi(&qv), "stubs: NAPI's unlock reports no waiting poller");
	CHECK(llpoll_qv_napi_rearm(&qv), "stubs: NAPI re-arms the interrupt as in-tree");
	llpoll_qv_exit(&qv, true);
	llpoll_qv_read_yields(&qv, &a, &b);
	CHECK(a == 0 && b == 0, "stubs: the yield counters read 0");
	a = b = 1;
	llpoll_qv_read_handbacks(&qv, &a, &b);
	CHECK(a == 0 && b == 0, "stubs: the hand-back counters read 0");
	memset(cost, 0xff, sizeof(cost));
	llpoll_qv_read_cost(&qv, cost);
	for (int i = 0; i < LLPOLL_QV_COST_STATS_LEN; i++)
		zero &= cost[i] == 0;
	CHECK(zero, "stubs: every cost counter reads 0");
	llpoll_qv_cost_strings(&p, 0);
	CHECK(p == names + sizeof(names), "stubs: the same ethtool names, one per counter");
	llpoll_qv_assert_disabled(&qv);
	llpoll_napi_disable(&napi, &qv);
	CHECK(!atomic_load(&napi.enabled), "stubs: llpoll_napi_disable disables NAPI at once");
	CHECK(atomic_load(&napi.scheduled) == 0 && atomic_load(&shim_warnings) == 0,
	      "stubs: nothing scheduled NAPI or warned");
	return check_done();
}
