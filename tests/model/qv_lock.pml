/*
 * Model of module/llpoll_qv_lock.h: NAPI, two socket pollers, netpoll
 * and a ring-reset-then-interface-down path contend for one q_vector.
 * Every helper runs under the q_vector spinlock, so each is one atomic
 * step here; a poller's spinlock is modelled apart, since netpoll can
 * interrupt its CPU while it holds it.
 * Checked exhaustively by tests/model/check:
 *   - assertions: never two owners; nobody takes a disabled q_vector;
 *     nobody owns the q_vector while a ring reset (ixgbe's per-queue
 *     AF_XDP disable/enable) cleans the ring;
 *   - ltl rx_drained: every received packet is cleaned: a NAPI run that
 *     yielded to a poller stays scheduled and comes back (no lost
 *     reschedule), though the pollers' small budget cannot take them all;
 *   - ltl down_done: bringing the interface down always completes;
 *   - ltl netpoll_done: netpoll's budget-0 poll (netconsole, IRQs off)
 *     always completes, even when it interrupts a poller holding the
 *     q_vector spinlock: it never takes that lock.
 */
#define IDLE		0
#define NAPI		1
#define POLL		2
#define DISABLE		4
#define NAPI_YIELD	8
#define POLL_YIELD	16
#define OWNED		(NAPI | POLL)
#define LOCKED		(OWNED | DISABLE)

#define POLLS		2	/* attempts per poller */
#define RX_PKTS		5	/* more than the pollers can take alone */

byte state = IDLE;
byte owners = 0;
byte pkts = RX_PKTS;		/* packets waiting on the ring */
bool napi_sched = true;		/* an interrupt scheduled NAPI */
bool napi_off = false;		/* napi_disable() returned */
bool down = false;		/* the interface-down path finished */
bool spin_held = false;		/* the q_vector spinlock, held by a poller */
bool in_netpoll = false;	/* netpoll runs on the pollers' CPU, IRQs off */
bool netpoll_done = false;

inline own() {
	owners++;
	assert(owners == 1);
	assert((state & DISABLE) == 0)
}

inline release() {
	owners--
}

active proctype napi() {
	bool got;
	do
	:: napi_sched ->
		atomic {	/* llpoll_qv_lock_napi */
			!spin_held;
			if
			:: (state & LOCKED) != 0 ->
				assert((state & NAPI) == 0);
				state = state | NAPI_YIELD;
				got = false
			:: else ->
				state = NAPI;
				got = true;
				own();
				pkts = 0	/* NAPI cleans until done */
			fi
		}
		if
		:: got ->
			atomic {	/* llpoll_qv_unlock_napi */
				!spin_held;
				assert((state & (POLL | NAPI_YIELD)) == 0);
				state = state & DISABLE;
				release()
			}
			napi_sched = false	/* napi_complete_done */
		:: else -> skip	/* budget returned: NAPI runs again */
		fi
	:: !napi_sched -> break
	od
}

proctype poller() {
	byte n = 0;
	bool got;
	do
	:: n < POLLS ->
		atomic { !spin_held -> spin_held = true };	/* spin_lock_bh */
		atomic {	/* llpoll_qv_lock_poll: its CPU serves netpoll first */
			!in_netpoll;
			spin_held = false;
			if
			:: (state & LOCKED) != 0 ->	/* poller: owned or disabled */
				state = state | POLL_YIELD;
				got = false
			:: else ->
				state = state | POLL;
				got = true;
				own();
				if	/* ll poll budget: one packet here */
				:: pkts > 0 -> pkts--
				:: else -> skip
				fi
			fi
		}
		if
		:: got ->
			atomic {	/* llpoll_qv_unlock_poll */
				!spin_held;
				assert((state & NAPI) == 0);
				state = state & DISABLE;
				release()
			}
		:: else -> skip	/* LL_FLUSH_BUSY */
		fi;
		n++
	:: n >= POLLS -> break
	od
}

inline disable_wait() {
	do
	:: atomic {	/* llpoll_qv_disable */
		!spin_held;
		idle = ((state & OWNED) == 0);
		state = state | DISABLE
	   } ->
		if
		:: idle -> break
		:: else -> skip	/* usleep_range() and retry */
		fi
	od
}

active proctype ifdown() {
	bool idle;
	/* a ring reset first (ixgbe_txrx_ring_disable/enable): napi_disable()
	 * waits until NAPI is not scheduled, then bars it
	 */
	atomic { !napi_sched -> napi_off = true };
	disable_wait();	/* llpoll_napi_disable: ring reset */
	assert(owners == 0);	/* llpoll_qv_assert_disabled: the ring is cleaned */
	atomic { !spin_held -> state = IDLE; napi_off = false };	/* llpoll_napi_enable */
	/* then the interface goes down */
	atomic { !napi_sched -> napi_off = true };
	disable_wait();
	assert(owners == 0);
	assert(pkts == 0);	/* NAPI completed only after cleaning */
	down = true
}

active proctype netpoll() {
	in_netpoll = true;	/* hard IRQ on the pollers' CPU */
	skip;	/* igb_poll(napi, 0): TX only, never the q_vector lock */
	in_netpoll = false;
	netpoll_done = true
}

init {
	atomic {
		run poller();
		run poller()
	}
}

ltl rx_drained { <> (pkts == 0) }
ltl down_done { <> down }
ltl netpoll_done { <> netpoll_done }
