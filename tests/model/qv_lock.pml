/*
 * Model of module/llpoll_qv_lock.h: NAPI, two socket pollers, the hold
 * timer, netpoll, packets arriving with the queue's interrupt, and a
 * ring-reset-then-maybe-interface-down path contend for one q_vector.
 * Every helper runs under the q_vector spinlock, so each is one atomic
 * step here; a poller's spinlock is modelled apart, since netpoll can
 * interrupt its CPU while it holds it.
 * The interrupt: a packet sets its cause; an armed vector with a cause
 * fires once and masks itself (EIAM), which schedules NAPI. NAPI re-arms
 * it when it completes, unless pollers hold it; the first poller of a
 * spinning wait masks it (irq_hold), and NAPI at a hand-back re-arms it.
 * Checked exhaustively by tests/model/check:
 *   - assertions: never two owners; nobody takes a disabled q_vector;
 *     nobody owns the q_vector while a ring reset (ixgbe's per-queue
 *     AF_XDP disable/enable) cleans the ring;
 *   - ltl rx_drained: unless the interface goes down, the ring ends
 *     empty: no packet is left with the interrupt masked and nobody to
 *     clean it, whichever way the pollers leave (with or without data,
 *     after a pass that cleaned its whole budget or less),
 *     whether the hold timer or a ring reset ends the hold, and whatever
 *     NAPI finds when it yields to a poller;
 *   - ltl down_done: bringing the interface down always completes;
 *   - ltl netpoll_done: netpoll's budget-0 poll (netconsole, IRQs off)
 *     always completes, even when it interrupts a poller holding the
 *     q_vector spinlock: it never takes that lock.
 * Netpoll runs inside the poller it interrupts (at most once), which
 * keeps the state space small.
 */
#define IDLE		0
#define NAPI		1
#define POLL		2
#define DISABLE		4
#define NAPI_YIELD	8
#define POLL_YIELD	16
#define OWNED		(NAPI | POLL)
#define LOCKED		(OWNED | DISABLE)

#define RX_PKTS		1	/* packets that arrive */

byte state = DISABLE;
byte owners = 0;
byte pkts = 0;			/* packets waiting on the ring */
byte arrivals = 0;
bool cause = false;		/* the vector's interrupt cause is pending */
bool armed = false;		/* the vector is unmasked */
bool napi_sched = false;	/* NAPI is scheduled (or missed a schedule) */
bool napi_running = false;
bool napi_off = true;		/* napi_disable() returned */
byte pollers = 0;		/* spinning waits that entered */
bool held = false;		/* pollers hold the interrupt */
bool backlog = false;		/* the last pass cleaned its whole budget */
bool timer_queued = false;
bool exit_since = false;	/* a poller left with data since the timer
				 * was started or moved: it fires early */
bool going_down = false;	/* the interface stops receiving */
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

/* napi_schedule(): a no-op on a disabled NAPI */
inline napi_schedule() {
	if
	:: !napi_off -> napi_sched = true
	:: else -> skip
	fi
}

/* the vector fires when armed with a cause pending, and EIAM masks it;
 * firing at once stands for any delay, as it only schedules NAPI
 */
inline fire() {
	if
	:: armed && cause -> armed = false; cause = false; napi_schedule()
	:: else -> skip
	fi
}

active proctype wire() {
	do
	:: atomic {	/* a stopped queue receives nothing */
		arrivals < RX_PKTS && !going_down && !napi_off ->
		pkts++; arrivals++; cause = true; fire()
	   }
	:: arrivals >= RX_PKTS || going_down -> break
	od
}

active proctype napi() {
	bool rearm;
end:	do
	:: atomic {	/* a schedule from here on runs it again */
			napi_sched && !spin_held && !napi_running ->
			napi_sched = false;
			/* llpoll_qv_lock_napi */
			if
			:: (state & LOCKED) != 0 ->
				assert((state & NAPI) == 0);
				state = state | NAPI_YIELD
				/* completes without re-arming: the poller
				 * schedules it again
				 */
			:: else ->
				state = NAPI;
				napi_running = true;
				own();
				pkts = 0	/* NAPI cleans until done */
			fi
		}
	:: atomic {	/* llpoll_qv_unlock_napi, napi_complete_done (false
			 * if it missed a schedule), llpoll_qv_napi_rearm
			 */
			napi_running && !spin_held && (state & NAPI) ->
			assert((state & (POLL | NAPI_YIELD)) == 0);
			state = state & DISABLE;
			release();
			rearm = !held && !napi_sched
		}
		/* the re-arm (EIMS) is written after the lock is dropped */
		atomic {
			if
			:: rearm -> armed = true; fire()
			:: else -> skip
			fi;
			rearm = false;
			napi_running = false
		}
	od
}

/* netpoll with IRQs off, interrupting a poller that holds the spinlock */
inline netpoll() {
	skip;	/* igb_poll(napi, 0): TX only, never the q_vector lock */
	atomic { in_netpoll = false; netpoll_done = true }
}

/* llpoll_qv_lock_poll, and a pass of one packet at most */
inline lock_poll() {
	pass++;
	if
	:: (state & LOCKED) != 0 ->	/* poller: owned or disabled */
		state = state | POLL_YIELD;
		got = false
	:: else ->
		state = state | POLL;
		got = true;
		own();
		if
		:: pkts > 0 -> pkts--; idle = false;
			if	/* the budget, or less than it */
			:: whole = true
			:: whole = false
			fi
		:: else -> whole = false
		fi
	fi
}

proctype poller(byte waits; byte passes; bool may_netpoll) {
	byte pass;
	bool got, entered, idle, whole;
	do
	:: waits > 0 ->
		atomic {	/* llpoll_qv_enter */
			!spin_held;
			if
			:: (state & DISABLE) != 0 -> entered = false
			:: else ->
				entered = true;
				pollers++;
				if
				:: held ->	/* a q_vector with TX rings: NAPI
						 * cleans their completions
						 */
					if
					:: napi_schedule()
					:: skip
					fi
				:: else -> held = true; armed = false
				fi
			fi;
			idle = true;
			pass = 0
		}
		do
		:: pass < passes ->
			if
			:: atomic {	/* netconsole's printk in a hard IRQ while
					 * this poller holds the spinlock
					 */
				may_netpoll && !spin_held && !netpoll_done ->
				spin_held = true;
				in_netpoll = true
			   };
				netpoll();
				atomic { spin_held = false; lock_poll() }
			:: atomic { !spin_held -> lock_poll() }
			fi;
			atomic {
				if
				:: got ->	/* llpoll_qv_unlock_poll */
					!spin_held;
					assert((state & NAPI) == 0);
					if
					:: (state & NAPI_YIELD) && !held -> napi_schedule()
					:: else -> skip
					fi;
					state = state & DISABLE;
					backlog = whole;
					release();
					got = false
				:: else -> skip	/* LL_FLUSH_BUSY */
				fi
			}
		:: pass > 0 -> break	/* data, window over, signal */
		od;
		atomic {
			if	/* NAPI may have delivered data meanwhile */
			:: true -> skip
			:: true -> idle = false
			fi;
			if
			:: entered ->	/* llpoll_qv_exit */
				!spin_held;
				assert(pollers > 0);
				pollers--;
				if
				:: pollers == 0 && held && (idle || backlog) ->
					held = false;
					backlog = false;
					napi_schedule()	/* the idle hand-back */
				:: pollers == 0 && held && !idle && !backlog ->
					if	/* llpoll_qv_hold_on */
					:: !timer_queued ->
						timer_queued = true;	/* the hold timer starts */
						exit_since = false
					:: timer_queued -> exit_since = true
					:: timer_queued -> exit_since = false	/* pushed on */
					fi
				:: else -> skip
				fi
			:: else -> skip
			fi;
			entered = false;
			idle = false;
			pass = 0;
			waits--
		}
	:: waits == 0 -> break
	od
}

active proctype hold_timer() {
end:	do
	:: atomic {	/* llpoll_qv_hold_expired, in softirq */
		timer_queued && !spin_held ->
		if
		:: held && pollers == 0 && exit_since ->
			/* fired before a hold passed since that exit: moves
			 * itself to it (or, with a hold shortened meanwhile,
			 * hands back below)
			 */
			exit_since = false
		:: held && pollers == 0 -> held = false; backlog = false; napi_schedule();
			timer_queued = false
		:: else -> timer_queued = false	/* a poller is back, or no hold */
		fi
	   }
	od
}

inline disable_wait() {
	do
	:: atomic {	/* llpoll_qv_disable */
		!spin_held;
		idle = ((state & OWNED) == 0);
		state = state | DISABLE;
		held = false;
		backlog = false
	   } ->
		if
		:: idle -> break
		:: else -> skip	/* usleep_range() and retry */
		fi
	od;
	timer_queued = false	/* llpoll_qv_stop_timer */
}

inline enable_up() {
	/* llpoll_napi_enable, then the driver re-arms every vector */
	atomic { !spin_held -> state = IDLE; napi_off = false; armed = true; fire() }
}

active proctype ifdown() {
	bool idle;
	enable_up();
	/* a ring reset (ixgbe_txrx_ring_disable/enable; igb's channel or
	 * ring change): the queue stops, napi_disable() waits until NAPI is
	 * not scheduled, then bars it
	 */
	atomic { !napi_sched && !napi_running -> napi_off = true; armed = false };
	disable_wait();	/* llpoll_napi_disable: ring reset */
	atomic {	/* llpoll_qv_assert_disabled: the ring is cleaned */
		assert(owners == 0);
		pkts = 0
	}
	enable_up();
	/* then the interface may go down */
	if
	:: true ->
		going_down = true;
		atomic { !napi_sched && !napi_running -> napi_off = true; armed = false };
		disable_wait();
		assert(owners == 0);
		down = true
	:: true -> skip
	fi
}

/* time goes on when every other process is blocked, so that a stuck
 * ring is an infinite fair run that the liveness claims see
 */
hidden byte tick;

active proctype clock() {
end:	do
	:: tick = 1 - tick
	od
}

init {
	atomic {
		run poller(1, 2, true);
		run poller(1, 1, false)
	}
}

ltl rx_drained { <> [] (pkts == 0 || down) }
ltl down_done { [] (going_down -> <> down) }
ltl netpoll_done { [] (in_netpoll -> <> netpoll_done) }
