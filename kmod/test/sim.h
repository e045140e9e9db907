/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A discrete-event model of a device and closed-loop hosts, driving the
 * scheduler core exactly as the module does: submit, next, complete,
 * next_event. By default the device serves dispatched work in order at a
 * fixed rate (bytes/s, writes optionally slower), plus a fixed latency.
 * With dev_slots set it serves like flash (and like null_blk's timer
 * mode): that many requests at once, each for dev_lat_ns whatever its
 * size, the others waiting in a FIFO for a free slot. With dev_tick_ns
 * set it serves like null_blk's mbps throttle: each tick resets a budget
 * of dev_bps * tick bytes (unused budget is lost); a request that fits is
 * served at once, one that does not stops the device until the next
 * tick, and waits in a FIFO with those that come after. Hosts keep a fixed
 * number of requests outstanding, like fio's iodepth.
 *
 * With worker_ns set, held requests are dispatched the way the module
 * does it: a completion or timer kicks a worker, which runs worker_ns
 * later (a workqueue's scheduling delay; with worker_exp, a random delay
 * of that mean, mostly short with a long tail) and dispatches what it can. A
 * request the core admits on submission still goes straight through.
 *
 * With dev_queue_max set as well, the parallel device takes that many
 * requests (in slots and FIFO) and a worker that dispatches one more
 * sleeps until a request completes, as a block layer out of requests
 * makes its submitter do; everything held waits with it.
 *
 * With nr_slices set (sim_slices before sim_init()), requests go through
 * slices (../lease.h) as the module's CPUs do: host i submits and
 * completes on slice i mod nr_slices, and the domain is asked (what in
 * the module takes its lock) only when the slice cannot answer, or to
 * settle it. Each host counts its submissions and completions that did
 * (sim_host.locked); the dispatcher's calls are not counted.
 *
 * With dev_queues set as well (2 to SIM_QUEUES_MAX), the parallel device
 * has that many hardware queues of dev_slots each, as a blk-mq disk has
 * tags per queue: host i submits on CPU sim_host.cpu, whose queue is
 * cpu mod dev_queues, and a request that finds its queue's slots taken
 * waits for one of that queue, whatever the others hold, as a submitter
 * sleeps for a tag of its own queue. A worker per queue dispatches
 * held requests (the module's dispatchers, bound to a CPU each), kicked
 * by the completions of its queue; one that dispatches into a full queue
 * sleeps until its request has a slot. Completions come on the CPU of
 * the request's queue, and go to that CPU's slice.
 */
#ifndef _NQ_SIM_H
#define _NQ_SIM_H

#include "../sched.h"
#include "../lease.h"

#define SIM_QUEUES_MAX	8

/* One hardware queue of the parallel device, with dev_queues set. */
struct sim_queue {
	u32 busy;			/* slots in use */
	struct nqs_req **fifo;		/* waiting for a slot */
	u32 head, n, cap;
	u64 worker_at;			/* its worker's pending run, 0 if none */
	u64 dispatched;			/* held requests its worker dispatched */
	bool asleep;			/* its worker waits for a slot */
	struct nqs_req *sleeper;	/* the request it waits with */
};

struct sim_host {
	struct nqs_flow flow;
	u32 bs;			/* request size */
	u32 qd;			/* requests kept outstanding; 0: idle */
	u32 write_pct;		/* share of writes */
	u32 think_ns;		/* pause between completion and next request */
	u32 outstanding;
	u64 rng;
	/* measured in the current window */
	u64 bytes, ios, cost, lat_sum, lat_max;
	u64 *lat_samples;
	u32 nr_lat, cap_lat;
	u64 locked;		/* its submissions and completions that asked the domain */
	u32 cpu;		/* with dev_queues: the CPU it submits on */
};

struct sim {
	struct nqs_domain dom;
	struct nqs_class *classes;
	struct sim_host *hosts;
	u32 nr_classes, nr_hosts;
	u64 dev_bps;		/* device bandwidth, bytes/s */
	u64 dev_lat_ns;		/* fixed latency added to every request */
	u32 dev_write_pct;	/* a write takes this % of a read's time; 0: 100 */
	u32 dev_slots;		/* 0: in-order bandwidth model, else parallel */
	u32 dev_busy;		/* slots in use */
	u32 dev_queue_max;	/* with dev_slots: requests taken; 0: no limit */
	bool worker_asleep;	/* the worker waits for room in the device */
	u64 dev_tick_ns;	/* budget model: tick length; 0: off */
	s64 dev_budget;		/* bytes left in this tick */
	bool dev_ticking;	/* a tick event is queued */
	struct nqs_req **dev_fifo;	/* waiting for a slot */
	u32 fifo_head, fifo_n, fifo_cap;
	u64 now;
	u64 dev_free;		/* when the device finishes its backlog */
	/* event heap */
	struct sim_event *ev;
	u32 nr_ev, cap_ev;
	u64 timer;		/* armed scheduler timer, 0 if none */
	u64 worker_ns;		/* delay of a kicked worker; 0: none */
	bool worker_exp;	/* delays exponential with that mean */
	u64 rng;
	u64 worker_at;		/* pending worker run, 0 if none */
	u64 sched_calls;
	bool time_calls;	/* measure each nqs_next() call's CPU time */
	u64 call_max_ns;	/* the longest one */
	u64 call_max_visits;	/* most flows one call's round robin visited */
	u32 nr_slices;		/* 0: every call under the domain's lock */
	struct nqs_slice *slices;
	u64 fast_ios;		/* requests a slice admitted */
	u32 dev_queues;		/* with dev_slots: hardware queues; 0, 1: one */
	struct sim_queue q[SIM_QUEUES_MAX];
	u32 timer_q;		/* the worker that armed the timer */
};

/* Slices for the sims made from now on (sim_init()); 0: none. */
extern u32 sim_slices;

void sim_init(struct sim *s, u32 nr_classes, u32 nr_hosts, u64 dev_bps,
	      u64 dev_lat_ns);
void sim_free(struct sim *s);
void sim_start(struct sim *s);
/* Run until @until ns. */
void sim_run(struct sim *s, u64 until);
/* Zero the per-host window counters. */
void sim_reset_window(struct sim *s);
/* Per-class share of cost completed in the window, in %. */
double sim_class_share(const struct sim *s, u32 cls);
double sim_class_bps(const struct sim *s, u32 cls, u64 window_ns);
u64 sim_host_pct_lat(struct sim_host *h, double pct);
/* Take every slice's lease back, as the module does on a policy change. */
void sim_reclaim(struct sim *s);

#endif
