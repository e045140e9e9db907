/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nvmet-qos scheduler core: plain C, no locking, no allocation, no
 * clock. The caller (domain.c and fast.c in the module, test/ in
 * userspace) owns the memory, holds one lock per domain around every call
 * here and passes the time in nanoseconds. lease.h's slices let it admit
 * and complete requests under a lock of each slice's instead, while the
 * device has room.
 *
 * Model. A domain is one backing device. Requests belong to a flow (one host
 * on one domain), flows to a class. The domain lets a bounded amount of work
 * ("depth", in cost units) be in flight at the device and holds the rest.
 * Whenever there is room it dispatches, in order of precedence:
 *
 *   1. a class more than FLOOR_GRACE (5 ms) behind its floor (bytes/s or
 *      IOPS reservation), earliest reservation tag first;
 *   2. a latency class with a small request, while it is not ahead of its
 *      share by more than a small slack;
 *   3. a class below its floor, earliest reservation tag first;
 *   4. the class with the smallest virtual time (start-time fair queueing:
 *      dispatching cost c advances a class's virtual time by c / weight).
 *
 * A floor is a promise and wins over any window longer than a few
 * milliseconds; within that, a latency class's small reads go ahead of a
 * floor that is merely due, so that a floor class does not put its
 * requests in front of every inference read (see docs/design.md).
 *
 * Virtual times are u64 and wrap (at 23.5 GB/s a class of share 1 wraps
 * in about a week): they are only ever compared by their difference, which
 * the core keeps far below 2^63 (a class's lead on the domain's clock is
 * capped, its lag bounded while it is busy, and an idle class keeps only
 * its lead, measured against the clock when it went idle).
 *
 * A class above its ceiling (token buckets in bytes/s and IOPS, with a
 * burst) is skipped until its tokens return; while it waits, tokens a
 * late dispatcher did not use are kept beyond the burst, for a while. A
 * class that was idle restarts at the domain's virtual clock, so idle time
 * earns no credit: the share of an idle class goes to the active ones in
 * proportion to their weights.
 * Within a class, backlogged flows are served by deficit round robin with a
 * quantum proportional to the host weight: O(1) per request whatever the
 * number of hosts. Each flow is FIFO.
 *
 * An admin may also give the device's capacity; the domain then dispatches
 * no more than that many cost units per second (a token bucket in front of
 * everything above).
 *
 * The depth adapts to the device, whose capacity is not known: per window
 * it compares the latency per cost unit with the lowest recently seen.
 * Latency well above that minimum means requests queue inside the device,
 * where we cannot order them: shrink. Work held back while latency stays
 * low means the device could take more: grow. A short probe at reduced
 * depth each epoch refreshes the minimum: a window to drain, one to
 * measure (on a slow device whose tags are known, spaced so that probes
 * take a thirty-second of its time: depth.c). Without a latency class
 * these end as soon as the drain is done and a request has completed, so
 * that a slow device (tens of ms a request) is not held at its least
 * depth for most of the epoch.
 *
 * Held work reaches the device only when the caller next asks for it
 * (the module's worker runs some time after the completion that made
 * room). The depth therefore never falls below twice what the device
 * completes in that delay, or a slow worker would leave it idle with work
 * held: on a device whose latency grows with every queued request the
 * latency rule alone would settle on a depth of one request. The probe
 * runs at that floor too.
 *
 * While a latency class is active, its small requests may go beyond the
 * depth by an eighth, so they need not wait for a completion, and a cap
 * on the depth answers to their latency: when it rises a quarter above
 * the best seen, the cap shrinks and does not grow again for an epoch.
 * The bandwidth classes then leave the device some headroom, which is
 * what keeps the latency class's p99 near its uncontended value. The cap
 * never takes more than two thirds of the depth: about half of what the
 * device serves at once, as the depth runs 1.5 to 2 times that.
 *
 * Where the caller knows how many requests the device serves at once (a
 * blk-mq disk's tags), a latency class also gets a share of them: while it
 * is active, the other requests may hold all but an eighth (at least one),
 * and its small requests may take those, however far the others' last
 * request went past the depth: there they have an eighth of the depth of
 * their own, not an eighth on top of what the others hold. Past its tags
 * a device queues a request where no class is known, and a small read
 * that finds every tag taken by bulk reads waits for one of them to
 * finish. The depth cannot see that queue when the caller's submission
 * sleeps for a tag, as the block layer's does: what waits then waits in
 * the domain, not in the device's latency.
 *
 * A blk-mq disk's tags are per hardware queue, and a submitter reaches
 * only the queue its CPU maps to: a small read submitted on a CPU whose
 * queue the bulk reads filled sleeps for a tag there, whatever the other
 * queues hold. Where the caller says the tags are split over queues
 * (nqs_domain_set_queues()), the eighth is kept in each queue, and a
 * request is admitted only where its own queue (nqs_req.hwq) keeps it;
 * the dispatcher says which queue it submits to (nqs_next()), and
 * nqs_hwq_elsewhere() names a queue that would take a held request when
 * its own would not. Past NQS_HWQ_MAX queues, queue n is counted with
 * n mod NQS_HWQ_MAX, their tags together.
 *
 * A device striped over others (md RAID0) has no tags of its own; its
 * members' are what a small read waits for. Where the caller gives the
 * stripe (nqs_domain_set_stripe()), the domain's tags are its members',
 * split over each member's queues, and a request is counted in its
 * CPU's queue on every member its range spans (nqs_req.sector): it is
 * admitted only where each of those keeps the latency class's eighth,
 * and a latency class's small read, which lies on one member, only needs
 * a tag there. A dispatcher whose queue has a tag on some member picks
 * the next request in order, and takes it only if the members it spans
 * have one in that queue (else it stays first, and the dispatcher comes
 * back with the next completion). Member m's queue q is counted as queue
 * m x queues + q; past NQS_HWQ_MAX in all, each member's queues fold
 * among themselves (nqs_member_slots()), never onto another member's.
 */
#ifndef _NQ_SCHED_H
#define _NQ_SCHED_H

#include "sched_env.h"
#include "mutant.h"

#define NQS_WEIGHT_MAX		1000
#define NQS_NSEC		1000000000ULL
#define NQS_SMALL_IO		(32U << 10)	/* latency class: "small" */
#define NQS_HWQ_MAX		64	/* hardware queues counted apart */
#define NQS_STRIPE_MAX		16	/* members of a stripe */
#define NQS_SECTOR_ANY		(~0ULL)	/* a request on every member */

/* Intrusive doubly linked list, circular, with a sentinel head. */
struct nqs_link {
	struct nqs_link *next, *prev;
};

/* Cost model of a domain; see docs in the README. */
struct nqs_cost {
	u32 write_pct;		/* writes cost this % of reads (default 200) */
	u32 io_cost;		/* fixed cost per I/O, in bytes (default 4096) */
};

/*
 * What a request of @bytes costs; each operation beyond the first (a
 * DSM's ranges) costs the fixed cost again.
 */
static inline u64 nqs_cost_of(const struct nqs_cost *k, u32 bytes, bool write,
			      u32 ops)
{
	u64 c = bytes;

	if (write)
		c = nqs_div(c * k->write_pct, 100);
	return c + (u64)(ops > 1 ? ops : 1) * k->io_cost;
}

struct nqs_class_conf {
	u32 weight;		/* 1..NQS_WEIGHT_MAX */
	u64 floor_bps;		/* 0: no floor */
	u64 floor_iops;
	u64 ceil_bps;		/* 0: no ceiling */
	u64 ceil_iops;
	u64 burst;		/* bytes above the ceiling rate; 0: default */
	bool latency;		/* small requests go first within the share */
	bool auth;		/* not the core's: who is admitted (policy.c) */
};

struct nqs_bucket {
	s64 tokens;		/* may go negative: debt of a large request */
	u64 rate;		/* per second; 0: unlimited */
	u64 cap;
	u64 last;		/* ns up to which tokens were added */
	bool waited;		/* its class waited at the last refill */
};

/* One class on one domain. */
struct nqs_class {
	struct nqs_link active;		/* on domain->active while backlogged */
	struct nqs_link flows;		/* backlogged flows, round robin */
	struct nqs_class_conf conf;
	u64 vtime;			/* virtual time, cost units * scale */
	u64 idle_vclock;		/* domain's vclock when it went idle */
	u64 rtag_b, rtag_i;		/* reservation tags, ns */
	struct nqs_bucket ceil_b, ceil_i;
	u32 nr_queued;
	u32 nr_flows;			/* flows attached (held or not) */
	u32 nr_backlogged;		/* flows on @flows */
	u32 nr_leased;			/* slices' entries for it (lease.c) */
	/* statistics, cumulative */
	u64 disp_ios, disp_bytes[2], disp_cost;	/* [0] read, [1] write */
};

/* One host on one domain. */
struct nqs_flow {
	struct nqs_link rr;		/* on class->flows while backlogged */
	struct nqs_link queue;		/* held requests, FIFO */
	struct nqs_class *cls;
	s64 deficit;
	u32 weight;			/* 1..NQS_WEIGHT_MAX, default 100 */
	u32 nr_queued;
};

struct nqs_req {
	struct nqs_link node;		/* on flow->queue while held */
	struct nqs_link hold;		/* on domain->held while held */
	struct nqs_flow *flow;
	u64 cost;
	u64 queued_ns;			/* 0 if never held */
	u64 wait_ns;			/* how long it was held */
	/*
	 * When the host first sent this command. A new command (@retried 0)
	 * gets now at submit; one the host sends again after it was asked
	 * to (@retried > 0) comes with the time of its first sending, and
	 * keeps its place in its flow's queue by it.
	 */
	u64 first_ns;
	u8 retried;			/* times the host was asked to retry it */
	u64 key;			/* the caller's: the command's identity */
	u32 bytes;			/* data moved (or written, for zeroes) */
	u32 ops;			/* operations carried (a DSM's ranges); 0 = 1 */
	bool write;
	bool lat;			/* in flight as a latency class's small one */
	u8 hwq;				/* the queue it goes to: nqs_hwq() */
	/*
	 * On a striped domain: the sector its range starts at (512 bytes,
	 * or NQS_SECTOR_ANY for one that reaches every member, a flush),
	 * the members that range spans (nqs_admit()), and the queues it was
	 * counted in while in flight (0: only @hwq, the domain not striped).
	 */
	u64 sector;
	u32 members;
	u64 slots;
};

struct nqs_domain {
	struct nqs_link active;		/* classes with held requests */
	struct nqs_link held;		/* held requests, in the order held */
	struct nqs_cost cost;
	struct nqs_bucket capacity;	/* admin's hint, cost units/s; 0: sense */
	u64 vclock;
	/* in-flight accounting and adaptive depth */
	u64 inflight;			/* cost units at the device */
	u64 lat_inflight;		/* of which latency classes' small ones */
	u32 inflight_ios;
	u32 tags;			/* requests the device serves at once; 0: unknown */
	u32 nr_hwq;			/* queues they are split over; 0, 1: one pool */
	u32 hwq_ios[NQS_HWQ_MAX];	/* in flight (and leased) a queue */
	u32 stripe_n;			/* members of a stripe; 0: not striped */
	u64 stripe_chunk;		/* its chunk, 512-byte sectors */
	u64 depth;
	u64 depth_min, depth_max;
	/* current window */
	u64 win_start, win_lat, win_cost;
	u32 win_ios;
	u64 win_lat_s, win_cost_s;	/* the same for small requests only */
	u32 win_ios_s;
	bool win_limited;		/* work was held for lack of depth */
	/* latency per cost unit (ns << 10): minimum this and last epoch */
	u64 lpc_min[2];
	u64 lpc_min_s[2];		/* small requests only */
	u64 epoch_start;		/* of the last probe */
	u64 probe_gap;			/* from it to the next (depth.c) */
	u64 depth_saved;		/* depth before the current probe */
	u8 probe;			/* 0: none, 1: draining, 2: measuring */
	bool depth_limited;		/* the depth itself held work back */
	/*
	 * The caller's dispatch delay: when a completion left work held
	 * (0: none pending), and the time until the caller next asked for
	 * work, averaged to follow the slow trips (see lag_sample()); and
	 * the device's completion rate.
	 */
	u64 kick_ns;
	u64 lag_ns;
	u64 rate;			/* moving average, cost units/s */
	/*
	 * Latency classes (see depth.c's latency_adapt()): active or not,
	 * the cap on the depth, their small requests' latency from arrival
	 * (worst since the last window, best this and last epoch), when one
	 * last completed, until when the cap may not grow, and for how many
	 * epochs the next hold lasts.
	 */
	bool lat_on;
	u64 lat_cap;
	u64 lat_worst;
	u64 lat_min[2];
	u64 lat_seen;
	u64 grow_hold;
	u32 lat_hold;
	/*
	 * Slices holding a lease (lease.c): their room and requests are in
	 * @inflight and @inflight_ios, in flight or not.
	 */
	u32 nr_leases;
	/* statistics */
	u64 nr_queued;
	u64 completed_cost;
};

/* Completions summed, for nqs_complete_batch() (lease.c). */
struct nqs_done {
	u64 cost, lat;			/* cost units, and their latency, ns */
	u64 lat_cost;			/* of @cost, latency classes' (r->lat) */
	u64 cost_s, lat_s;		/* the same, small requests only */
	u32 ios, ios_s;
	u64 lat_worst, lat_min, lat_seen; /* latency classes' small ones */
};

/*
 * @r, completed after @lat_ns, into @b. Inline: it is on every
 * completion's path, the slices' as the domain's.
 */
static inline void nqs_done_add(struct nqs_done *b, const struct nqs_req *r,
				u64 lat_ns, u64 now, bool lat_small)
{
	b->cost += r->cost;
	b->lat += lat_ns;
	b->ios++;
	if (r->lat)
		b->lat_cost += r->cost;
	if (lat_small) {
		u64 l = lat_ns + r->wait_ns;

		b->lat_worst = max(b->lat_worst, l);
		b->lat_min = b->lat_seen ? min(b->lat_min, l) : l;
		b->lat_seen = now ? now : 1;
	}
	if (r->bytes <= NQS_SMALL_IO) {
		b->lat_s += lat_ns;
		b->cost_s += r->cost;
		b->ios_s++;
	}
}

void nqs_domain_init(struct nqs_domain *d, u64 now);
/*
 * Device settings. The cost model applies to requests submitted from now
 * on. A capacity hint (cost units per second, 0 for none) caps what the
 * domain dispatches, so that shares are kept of that rate on a device
 * whose saturation does not show in its latency.
 */
void nqs_domain_set_cost(struct nqs_domain *d, const struct nqs_cost *cost);
void nqs_domain_set_capacity(struct nqs_domain *d, u64 rate, u64 now);
/* How many requests the device serves at once; 0 when not known. */
void nqs_domain_set_tags(struct nqs_domain *d, u32 tags);
/*
 * Over how many hardware queues the tags are split evenly, a submitter
 * reaching only its own (0 or 1: one pool, which any submitter reaches).
 */
void nqs_domain_set_queues(struct nqs_domain *d, u32 nr);
/*
 * Striped over @n members (RAID0 of one zone: chunk k on member k mod
 * @n) in chunks of @chunk sectors; the tags and queues set above are then
 * every member's together, the queues each member's. 0 members (or
 * chunk): not striped. At most NQS_STRIPE_MAX.
 */
void nqs_domain_set_stripe(struct nqs_domain *d, u32 n, u64 chunk);
/* The members a range of @bytes from @sector spans, as a mask. */
u32 nqs_stripe_span(const struct nqs_domain *d, u64 sector, u32 bytes);

/* Where the domain counts a request to hardware queue @queue: nqs_req.hwq. */
static inline u8 nqs_hwq(const struct nqs_domain *d, u32 queue)
{
	return d->nr_hwq > 1 ? queue % NQS_HWQ_MAX : 0;
}

/* The queues the tags are split over: each member's, on a stripe. */
static inline u32 nqs_units(const struct nqs_domain *d)
{
	return d->stripe_n ? d->stripe_n * max(d->nr_hwq, 1U) : d->nr_hwq;
}

/*
 * The counted queues each member of a stripe has: its queues, while all
 * members' fit in NQS_HWQ_MAX; past that, NQS_HWQ_MAX over the members
 * rounded up to a power of two (which divides NQS_HWQ_MAX, so that a
 * queue folded by nqs_hwq() folds the same way here), its queue q
 * counted with q mod that, its tags together. Folding across members
 * instead (4 drives of 64 queues on a 64-CPU head) counted a request
 * that spans four drives' queues once, where it takes a tag on each.
 */
static inline u32 nqs_member_slots(const struct nqs_domain *d)
{
	u32 q = max(d->nr_hwq, 1U), per = NQS_HWQ_MAX;

	if (d->stripe_n * q <= NQS_HWQ_MAX)
		return q;
	while (per * d->stripe_n > NQS_HWQ_MAX)
		per /= 2;
	return per;
}

/* The tags of counted queue @hwq: all of them for one pool. */
static inline u32 nqs_hwq_tags(const struct nqs_domain *d, u8 hwq)
{
	u32 per, folded, n = nqs_units(d), q, slots;

	if (n <= 1)
		return d->tags;
	per = d->tags / n;
	if (d->stripe_n) {
		/* How many of its member's queues fold into this one. */
		q = max(d->nr_hwq, 1U);
		slots = nqs_member_slots(d);
		return per * (q / slots + (hwq % slots < q % slots));
	}
	folded = n / NQS_HWQ_MAX + (hwq < n % NQS_HWQ_MAX);
	return per * folded;
}

void nqs_class_init(struct nqs_class *c, const struct nqs_class_conf *conf,
		    u64 now);
void nqs_class_set_conf(struct nqs_class *c, const struct nqs_class_conf *conf,
			u64 now);
void nqs_flow_init(struct nqs_flow *f, struct nqs_class *c, u32 weight);
void nqs_flow_exit(struct nqs_flow *f);
void nqs_flow_set_class(struct nqs_domain *d, struct nqs_flow *f,
			struct nqs_class *c);

u64 nqs_req_cost(const struct nqs_domain *d, u32 bytes, bool write);

/*
 * Units per second from @delta units over @dt_ns, without overflow at any
 * rate a device reaches or after any gap (0 for an empty interval).
 */
static inline u64 nqs_rate(u64 delta, u64 dt_ns)
{
	return dt_ns ? nqs_mul_div(delta, NQS_NSEC, dt_ns) : 0;
}

/*
 * Offer @r (with flow, bytes, write and hwq set) to the domain. Returns true when
 * it may go to the device now (it is then accounted in flight), false when
 * it is held; held requests come back from nqs_next().
 */
bool nqs_submit(struct nqs_domain *d, struct nqs_req *r, u64 now);
/*
 * nqs_submit() in two: whether @r goes now (then accounted in flight), and
 * holding it when it does not, so that a caller may take back the slices'
 * leases (lease.h) and ask again in between.
 */
bool nqs_admit(struct nqs_domain *d, struct nqs_req *r, u64 now);
void nqs_hold(struct nqs_domain *d, struct nqs_req *r, u64 now);

/*
 * The next held request that may be dispatched now by a submitter that
 * reaches queue @hwq (nqs_hwq()), or NULL.
 */
struct nqs_req *nqs_next(struct nqs_domain *d, u8 hwq, u64 now);

/*
 * After nqs_next() found nothing for @hwq: a queue whose submitters would
 * find a held request to dispatch for room there, or -1.
 */
int nqs_hwq_elsewhere(struct nqs_domain *d, u8 hwq, u64 now);

/*
 * @r finished at the device after @lat_ns. Returns nqs_held_next(): the
 * caller comes for held requests (nqs_next()) only when it is due, not on
 * every completion while only classes above their ceiling hold requests.
 */
u64 nqs_complete(struct nqs_domain *d, const struct nqs_req *r, u64 lat_ns,
		 u64 now);

/*
 * When a held request may be dispatched: at most @now if one may go now;
 * later, when a ceiling or the capacity refills; 0 when nothing is held
 * or only a completion can let one go (the device has no room).
 */
u64 nqs_held_next(struct nqs_domain *d, u64 now);

/* Whether nqs_held_next()'s @t is due at @now: the caller comes now. */
static inline bool nqs_due(u64 t, u64 now)
{
	return t && t <= (now ? now : 1);
}

/*
 * When nqs_next() might return a request without a completion happening
 * first (a ceiling refills), in ns; 0 when nothing is held.
 */
u64 nqs_next_event(struct nqs_domain *d, u64 now);

/*
 * Remove held request @r (or, with @r NULL, the oldest of @f) and put it
 * in flight regardless of limits: for releasing requests whose queue is
 * going away. It is not charged to its class's share, ceilings or floors,
 * nor to the capacity hint: a release of thousands of held requests would
 * otherwise leave them in debt for as long as those requests take at the
 * ceiling's rate. Returns the request, or NULL if @f holds none.
 */
struct nqs_req *nqs_flow_pop(struct nqs_domain *d, struct nqs_flow *f,
			     struct nqs_req *r, u8 hwq);

/*
 * Bound how long a request is held at a time. The request held longest
 * this time, if it has been held @hold_ns: while its host has been asked
 * to send it again fewer than @retries times, it is withdrawn without
 * being dispatched or charged, for the caller to complete with a status
 * the host retries (*@dispatched false); after that it is dispatched now,
 * whatever the limits, and charged like any dispatch, so its class goes
 * into a debt that later requests repay (*@dispatched true). NULL when no
 * request has been held that long, or @hold_ns is 0.
 */
struct nqs_req *nqs_expire(struct nqs_domain *d, u64 now, u64 hold_ns,
			   u8 retries, u8 hwq, bool *dispatched);

/* Call @fn on each held request of @f, oldest first, until it returns true. */
struct nqs_req *nqs_flow_find(struct nqs_flow *f,
			      bool (*fn)(const struct nqs_req *r));

#endif /* _NQ_SCHED_H */
