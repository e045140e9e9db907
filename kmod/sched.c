// SPDX-License-Identifier: GPL-2.0
/*
 * The nvmet-qos scheduler core; see sched.h for the model. Plain C that
 * compiles into the module and into the userspace tests (kmod/test/).
 * Whether the device has room for a request is room.c's to say; the
 * depth it keeps to is adapted in depth.c, once a window.
 */
#include "sched_int.h"
#include "bucket.h"

#define VSCALE		NQS_WEIGHT_MAX	/* vtime += cost * VSCALE / weight */
#define QUANTUM		(128ULL << 10)	/* DRR quantum at host weight 100 */
#define QUANTUM_MIN	(4ULL << 10)
#define LAT_SLACK	(256ULL << 10)	/* how far ahead of its share, in cost */
#define RES_SLACK_NS	(50ULL * 1000 * 1000)
#define CEIL_BURST_NS	(20ULL * 1000 * 1000)	/* default burst: 20 ms */
#define CEIL_BURST_MIN	(256ULL << 10)
#define LAG_MAX		(2 * QUANTUM)	/* bounded credit of a skipped class */
/*
 * Bound on a class's virtual lead over the domain's clock (a class served
 * for its floor beyond its share runs ahead without limit otherwise). Far
 * above any lead that decides a pick (one request at share 1 is < 2^46),
 * far below the 2^63 where comparing by difference breaks.
 */
#define LEAD_MAX	(1ULL << 60)
/* A floor this far behind goes before a latency class (see sched.h). */
#define FLOOR_GRACE_NS	(5ULL * 1000 * 1000)
/*
 * A reservation tag stays within 2^60 ns of now, whatever the policy
 * (rates down to 1/s); bucket.h bounds the buckets likewise.
 */
#define RTAG_AHEAD_MAX	(1ULL << 60)
#define CAP_BURST_NS	(10ULL * 1000 * 1000)	/* capacity hint: 10 ms */

#define DEPTH_INIT	(2ULL << 20)
#define DEPTH_MIN	(128ULL << 10)
#define DEPTH_MAX	(1ULL << 30)
#define LAG_MAX_NS	(100ULL * 1000 * 1000)


static void link_init(struct nqs_link *l)
{
	l->next = l;
	l->prev = l;
}

static bool link_empty(const struct nqs_link *l)
{
	return l->next == l;
}

static void link_add_tail(struct nqs_link *n, struct nqs_link *head)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static void link_del(struct nqs_link *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	link_init(n);
}

/* Virtual times wrap: compare them only by their difference. */
static s64 vdiff(u64 a, u64 b)
{
	return (s64)(a - b);
}

static bool vbefore(u64 a, u64 b)
{
	return vdiff(a, b) < 0;
}

static u64 vmax(u64 a, u64 b)
{
	return vbefore(a, b) ? b : a;
}

static u64 ceil_cap(u64 rate, u64 burst, u64 floor)
{
	if (burst && !nq_mutant(burst))
		return max(burst, floor);
	return max(nqs_mul_div(rate, CEIL_BURST_NS, NQS_NSEC), floor);
}

static void class_apply_conf(struct nqs_class *c, u64 now)
{
	const struct nqs_class_conf *k = &c->conf;

	c->conf.latency &= !nq_mutant(latency);
	bucket_set(&c->ceil_b, k->ceil_bps,
		   ceil_cap(k->ceil_bps, k->burst, CEIL_BURST_MIN), now);
	bucket_set(&c->ceil_i, k->ceil_iops,
		   ceil_cap(k->ceil_iops, 0, 1), now);
}

void nqs_domain_init(struct nqs_domain *d, u64 now)
{
	*d = (struct nqs_domain){ 0 };
	link_init(&d->active);
	link_init(&d->held);
	d->cost.write_pct = 200;
	d->cost.io_cost = 4096;
	d->depth = DEPTH_INIT;
	d->lat_cap = DEPTH_INIT;
	d->depth_min = DEPTH_MIN;
	d->depth_max = DEPTH_MAX;
	d->win_start = now;
	d->epoch_start = now;
	d->lpc_min[0] = d->lpc_min[1] = ~0ULL;
	d->lpc_min_s[0] = d->lpc_min_s[1] = ~0ULL;
	d->lat_min[0] = d->lat_min[1] = ~0ULL;
	d->lat_hold = 1;
}

void nqs_domain_set_cost(struct nqs_domain *d, const struct nqs_cost *cost)
{
	d->cost = *cost;
}

void nqs_domain_set_capacity(struct nqs_domain *d, u64 rate, u64 now)
{
	bucket_refill(&d->capacity, now, false);
	bucket_set(&d->capacity, rate,
		   ceil_cap(rate, nqs_mul_div(rate, CAP_BURST_NS, NQS_NSEC),
			    CEIL_BURST_MIN), now);
}

void nqs_class_init(struct nqs_class *c, const struct nqs_class_conf *conf,
		    u64 now)
{
	*c = (struct nqs_class){ 0 };
	link_init(&c->active);
	link_init(&c->flows);
	c->conf = *conf;
	class_apply_conf(c, now);
}

void nqs_class_set_conf(struct nqs_class *c, const struct nqs_class_conf *conf,
			u64 now)
{
	bucket_refill(&c->ceil_b, now, false);
	bucket_refill(&c->ceil_i, now, false);
	c->conf = *conf;
	class_apply_conf(c, now);
}

void nqs_flow_init(struct nqs_flow *f, struct nqs_class *c, u32 weight)
{
	*f = (struct nqs_flow){ 0 };
	link_init(&f->rr);
	link_init(&f->queue);
	f->cls = c;
	f->weight = weight ? weight : 100;
	c->nr_flows++;
}

/* @f goes away; it holds no request. */
void nqs_flow_exit(struct nqs_flow *f)
{
	f->cls->nr_flows--;
}

u64 nqs_req_cost(const struct nqs_domain *d, u32 bytes, bool write)
{
	return nqs_cost_of(&d->cost, bytes, write, 1);
}

/*
 * A class with nothing held restarts at the domain's virtual clock: time
 * spent idle earns no credit. What it keeps is its lead when it went idle,
 * less what the clock moved since. Both are differences, so this holds
 * across a wrap; an idle spell so long that the clock moved 2^64 or more
 * at worst leaves it that lead (one request's worth) behind the others.
 * This is that lead, as it would be now.
 */
static u64 resume_lead(const struct nqs_domain *d, const struct nqs_class *c)
{
	s64 lead = vdiff(c->vtime, c->idle_vclock);
	u64 moved = d->vclock - c->idle_vclock;

	return lead <= 0 || moved >= (u64)lead ? 0 : (u64)lead - moved;
}

/* Back from idle: at the clock, plus the lead it kept. */
static void class_resume(struct nqs_domain *d, struct nqs_class *c)
{
	c->vtime = d->vclock + resume_lead(d, c);
}

/* Going idle: remember the clock, for class_resume(). */
static void class_idle(struct nqs_domain *d, struct nqs_class *c)
{
	if (vbefore(c->vtime, d->vclock))
		c->vtime = d->vclock;
	c->idle_vclock = d->vclock;
}

static void class_activate(struct nqs_domain *d, struct nqs_class *c)
{
	if (!link_empty(&c->active))
		return;
	class_resume(d, c);
	link_add_tail(&c->active, &d->active);
}

static void class_deactivate(struct nqs_domain *d, struct nqs_class *c)
{
	/* Idle time earns only the burst (bucket_refill()). */
	c->ceil_b.waited = false;
	c->ceil_i.waited = false;
	link_del(&c->active);
	class_idle(d, c);
}

/*
 * Hold @r in @f, in the order its host first sent it: a new command goes
 * last at once; one the host sends again after we asked it to goes back
 * before those sent after it first came (a walk bounded by the host's
 * queue depth).
 */
static void flow_enqueue(struct nqs_domain *d, struct nqs_flow *f,
			 struct nqs_req *r)
{
	struct nqs_class *c = f->cls;
	struct nqs_link *at = &f->queue;

	if (link_empty(&f->queue)) {
		f->deficit = 0;
		link_add_tail(&f->rr, &c->flows);
		c->nr_backlogged++;
	}
	while (at->prev != &f->queue &&
	       (s64)(nqs_entry(at->prev, struct nqs_req, node)->first_ns -
		     r->first_ns) > 0)
		at = at->prev;
	link_add_tail(&r->node, at);
	link_add_tail(&r->hold, &d->held);
	f->nr_queued++;
	c->nr_queued++;
	d->nr_queued++;
	class_activate(d, c);
}

static void flow_unlink(struct nqs_domain *d, struct nqs_flow *f,
			struct nqs_req *r)
{
	struct nqs_class *c = f->cls;

	link_del(&r->node);
	link_del(&r->hold);
	f->nr_queued--;
	c->nr_queued--;
	d->nr_queued--;
	if (link_empty(&f->queue)) {
		link_del(&f->rr);
		c->nr_backlogged--;
	}
	if (link_empty(&c->flows))
		class_deactivate(d, c);
}

static struct nqs_req *flow_head(const struct nqs_flow *f)
{
	return nqs_entry(f->queue.next, struct nqs_req, node);
}

static bool class_within_ceiling(struct nqs_class *c, u64 now)
{
	bool waiting = !link_empty(&c->active);
	bool bytes = bucket_allows(&c->ceil_b, now, waiting) ||
		     nq_mutant(ceil_bytes);

	return (bucket_allows(&c->ceil_i, now, waiting) ||
		nq_mutant(ceil_iops)) && bytes;
}

/* Whether the class is below its floor by at least @grace ns. */
static bool class_below_floor(const struct nqs_class *c, u64 now, u64 grace)
{
	if (nq_mutant(floors))
		return false;
	return (c->conf.floor_bps && c->rtag_b + grace <= now) ||
	       (c->conf.floor_iops && c->rtag_i + grace <= now);
}

static u64 class_rtag(const struct nqs_class *c)
{
	u64 t = ~0ULL;

	if (c->conf.floor_bps)
		t = c->rtag_b;
	if (c->conf.floor_iops)
		t = min(t, c->rtag_i);
	return t;
}

static u64 vstep(u64 cost, u32 weight)
{
	return nqs_div(cost * VSCALE, weight ? weight : 1);
}

/*
 * A reservation tag moved on by @step ns from no earlier than RES_SLACK_NS
 * ago, and no further than RTAG_AHEAD_MAX ahead of now.
 */
static u64 rtag_next(u64 tag, u64 step, u64 now)
{
	u64 from = now > RES_SLACK_NS ? now - RES_SLACK_NS : 0;

	tag = max(tag, from);
	step = min(step, RTAG_AHEAD_MAX);
	return min(tag + step, now + RTAG_AHEAD_MAX);
}

/* @c's virtual time and reservation tags, for @ios requests of @cost. */
static void class_charge(struct nqs_domain *d, struct nqs_class *c, u64 cost,
			 u64 ios, u64 bytes, u64 now)
{
	c->vtime += vstep(cost, nq_mutant(shares) ? 100 : c->conf.weight);
	if (vdiff(c->vtime, d->vclock) > (s64)LEAD_MAX)
		c->vtime = d->vclock + LEAD_MAX;
	if (c->conf.floor_bps)
		c->rtag_b = rtag_next(c->rtag_b, nqs_mul_div(bytes, NQS_NSEC,
							     c->conf.floor_bps),
				      now);
	if (c->conf.floor_iops)
		c->rtag_i = rtag_next(c->rtag_i, nqs_mul_div(ios, NQS_NSEC,
							     c->conf.floor_iops),
				      now);
}

/* Charge a dispatched request to its class and put it in flight. */
static void charge(struct nqs_domain *d, struct nqs_req *r, u64 now)
{
	struct nqs_class *c = r->flow->cls;

	class_charge(d, c, r->cost, 1, r->bytes, now);
	bucket_take(&c->ceil_b, r->bytes);
	bucket_take(&c->ceil_i, 1);
	bucket_take(&d->capacity, r->cost);
	nqs_put_in_flight(d, r);
}

static u64 flow_quantum(const struct nqs_flow *f)
{
	u64 weight = nq_mutant(weights) ? 100 : f->weight;

	return max(nqs_div(QUANTUM * weight, 100), QUANTUM_MIN);
}

/*
 * After a pass in which no flow could send: the fewest rounds after which
 * one can, granted to every flow at once. Those rounds would have sent
 * nothing, so skipping them is plain DRR, in one pass instead of a walk
 * of every flow per round (with 4 MiB writes at host weight 1, ~2,000
 * rounds times the hosts, under the domain's lock).
 */
static void skip_empty_rounds(struct nqs_class *c)
{
	struct nqs_link *l;
	u64 k = ~0ULL;

	for (l = c->flows.next; l != &c->flows; l = l->next) {
		struct nqs_flow *f = nqs_entry(l, struct nqs_flow, rr);
		s64 need = (s64)flow_head(f)->cost - f->deficit;
		u64 q = flow_quantum(f);

		nqs_count_visit();
		k = min(k, need > 0 ? ((u64)need + q - 1) / q : 0);
	}
	for (l = c->flows.next; l != &c->flows; l = l->next) {
		struct nqs_flow *f = nqs_entry(l, struct nqs_flow, rr);

		nqs_count_visit();
		f->deficit += k * flow_quantum(f);
	}
}

/*
 * Deficit round robin among the class's backlogged flows: the head flow
 * sends while its deficit covers its next request, then gets its quantum
 * and goes to the back. At most three passes over the flows per request,
 * one when every flow can send at its turn (the quantum covers its
 * requests, as with the default quantum and requests up to 128 KiB).
 */
static struct nqs_flow *pick_flow(struct nqs_class *c)
{
	u32 turns = 0;

	for (;;) {
		struct nqs_flow *f = nqs_entry(c->flows.next, struct nqs_flow, rr);
		s64 cost = (s64)flow_head(f)->cost;

		nqs_count_visit();
		if (f->deficit >= cost) {
			f->deficit -= cost;
			return f;
		}
		f->deficit += flow_quantum(f);
		link_del(&f->rr);
		link_add_tail(&f->rr, &c->flows);
		if (++turns == c->nr_backlogged) {
			skip_empty_rounds(c);
			turns = 0;
		}
	}
}

static bool small_head(const struct nqs_class *c)
{
	const struct nqs_flow *f = nqs_entry(c->flows.next, struct nqs_flow, rr);

	return flow_head(f)->bytes <= NQS_SMALL_IO;
}

/*
 * Pick the class to serve next, or NULL when every backlogged class is
 * above its ceiling. *@weighted tells whether it won on virtual time.
 */
static struct nqs_class *pick_class(struct nqs_domain *d, u64 now,
				    bool lat_only, bool *weighted)
{
	struct nqs_class *res = NULL, *lat = NULL, *fair = NULL;
	bool urgent = false;
	struct nqs_link *l;

	for (l = d->active.next; l != &d->active; l = l->next) {
		struct nqs_class *c = nqs_entry(l, struct nqs_class, active);

		/*
		 * A skipped class keeps a bounded credit, not an unlimited
		 * one; bounding it on every pick, ceiling or not, also keeps
		 * its distance to the clock far from where a wrap matters.
		 */
		if (vdiff(d->vclock, c->vtime) > (s64)vstep(LAG_MAX, c->conf.weight))
			c->vtime = d->vclock - vstep(LAG_MAX, c->conf.weight);
		if (!class_within_ceiling(c, now))
			continue;
		if (class_below_floor(c, now, 0) &&
		    (!res || class_rtag(c) < class_rtag(res))) {
			res = c;
			urgent = class_below_floor(c, now, FLOOR_GRACE_NS);
		}
		if (c->conf.latency && small_head(c) &&
		    vdiff(c->vtime, d->vclock) <=
			    (s64)vstep(LAT_SLACK, c->conf.weight) &&
		    (!lat || vbefore(c->vtime, lat->vtime)))
			lat = c;
		if (!fair || vbefore(c->vtime, fair->vtime))
			fair = c;
	}
	*weighted = false;
	if (lat_only)
		return lat;
	if (res && urgent)
		return res;
	if (lat)
		return lat;
	if (res)
		return res;
	*weighted = fair != NULL;
	return fair;
}

/* The caller came for work: how long after the completion that kicked it. */
static void lag_sample(struct nqs_domain *d, u64 now)
{
	u64 lag;

	if (!d->kick_ns)
		return;
	lag = min(now > d->kick_ns ? now - d->kick_ns : 0, LAG_MAX_NS);
	/*
	 * Follow the slow trips: the device runs dry on the slow ones, so
	 * a rise counts at once by half and a fall only by a sixteenth.
	 */
	if (lag > d->lag_ns)
		d->lag_ns += (lag - d->lag_ns) / 2;
	else
		d->lag_ns -= (d->lag_ns - lag) / 16;
	d->kick_ns = 0;
}

struct nqs_req *nqs_next(struct nqs_domain *d, u8 hwq, u64 now)
{
	struct nqs_class *c;
	struct nqs_flow *f;
	struct nqs_req *r;
	bool room, weighted;

	lag_sample(d, now);
	if (!d->nr_queued)
		return NULL;
	room = nqs_has_room(d);
	if (!room)
		d->win_limited = true;
	/* Where its queue keeps the rest for the latency class, only that. */
	room = room && nqs_hwq_has_tag(d, hwq);
	if (!room && !(nqs_has_lat_room(d) && nqs_hwq_lat_tag(d, hwq)))
		return NULL;
	if (!nqs_within_capacity(d, now))
		return NULL;
	c = pick_class(d, now, !room, &weighted);
	if (!c)
		return NULL;
	if (weighted)
		d->vclock = vmax(d->vclock, c->vtime);
	f = pick_flow(c);
	r = flow_head(f);
	/*
	 * On a stripe, the tags it needs are on the members it spans: if
	 * they have none, it stays first, and pick_flow() is undone.
	 */
	if (d->stripe_n && !nqs_req_fits(d, r, hwq, room)) {
		f->deficit += (s64)r->cost;
		return NULL;
	}
	flow_unlink(d, f, r);
	r->wait_ns = now > r->queued_ns ? now - r->queued_ns : 0;
	r->hwq = hwq;
	charge(d, r, now);
	return r;
}

/*
 * Whether no held request could be dispatched now for its class's limits,
 * every class holding some being above its ceiling. Then a request of
 * another class takes nothing they could use: it need not wait behind
 * them, and one class at its ceiling does not send every other host of
 * the device through the dispatcher. Held requests that wait only for
 * room (or for the dispatcher to come) keep their turn.
 */
static bool held_all_capped(const struct nqs_domain *d, u64 now)
{
	const struct nqs_link *l;

	if (nq_mutant(capped_fast))
		return false;
	for (l = d->active.next; l != &d->active; l = l->next) {
		struct nqs_class *c = nqs_entry(l, struct nqs_class, active);

		if (class_within_ceiling(c, now))
			return false;
	}
	return true;
}

/*
 * Whether @r, a latency class's small request, its class holding nothing,
 * is what pick_class() would take next: its class within its ceiling and
 * not further ahead of its share than a latency class may be, and no class
 * urgently below its floor. Then it need not wait for the dispatcher to
 * come for it, which takes a work item's wake-up (milliseconds on a busy
 * emulated head, sched_test latency_late_worker), only for room.
 *
 * Only where the device's tags are known, so that room.c keeps one
 * free for it. Elsewhere (md) the device below may have none, and the
 * request would sleep for one in its submitter, nvmet's own context for
 * the host's queue, behind the dispatchers already asleep there: on an
 * md RAID0 of emulated drives with 3 tags a queue, the contended p99 rose
 * from 184% and 234% of uncontended to 310% and 264%.
 */
static bool latency_next(const struct nqs_domain *d, const struct nqs_req *r,
			 u64 now)
{
	const struct nqs_class *c = r->flow->cls;
	const struct nqs_link *l;

	if (!d->tags || !nqs_latency_small(r) || c->nr_queued ||
	    resume_lead(d, c) > vstep(LAT_SLACK, c->conf.weight))
		return false;
	for (l = d->active.next; l != &d->active; l = l->next) {
		struct nqs_class *o = nqs_entry(l, struct nqs_class, active);

		if (class_within_ceiling(o, now) &&
		    class_below_floor(o, now, FLOOR_GRACE_NS))
			return false;
	}
	return true;
}

bool nqs_admit(struct nqs_domain *d, struct nqs_req *r, u64 now)
{
	struct nqs_class *c = r->flow->cls;

	r->cost = nqs_cost_of(&d->cost, r->bytes, r->write, r->ops);
	r->members = nqs_stripe_span(d, r->sector, r->bytes);
	r->queued_ns = 0;
	r->wait_ns = 0;
	if (!r->retried || !r->first_ns)
		r->first_ns = now ? now : 1;
	/*
	 * Nothing waiting in its class, nor anything held that could go
	 * now, or nothing that would go before it: no ordering to keep, only
	 * the limits. Its class is then not active, so it resumes and idles
	 * around the charge.
	 */
	if ((!d->nr_queued || (!c->nr_queued && held_all_capped(d, now)) ||
	     latency_next(d, r, now)) &&
	    nqs_req_fits(d, r, r->hwq, nqs_has_room(d)) &&
	    nqs_within_capacity(d, now) && class_within_ceiling(c, now)) {
		class_resume(d, c);
		d->vclock = vmax(d->vclock, c->vtime);
		charge(d, r, now);
		class_idle(d, c);
		return true;
	}
	return false;
}

void nqs_hold(struct nqs_domain *d, struct nqs_req *r, u64 now)
{
	if (!nqs_has_room(d))
		d->win_limited = true;
	r->queued_ns = now ? now : 1;
	flow_enqueue(d, r->flow, r);
}

bool nqs_submit(struct nqs_domain *d, struct nqs_req *r, u64 now)
{
	if (nqs_admit(d, r, now))
		return true;
	nqs_hold(d, r, now);
	return false;
}

/*
 * Without room only the latency class may go (at once, if it has its own
 * headroom); with room, a class within its ceiling now, or the first
 * refill. A completion while only capped classes hold requests then gives
 * a time to wait for, not a reason to come.
 */
u64 nqs_held_next(struct nqs_domain *d, u64 now)
{
	u64 t;

	if (!d->nr_queued)
		return 0;
	if (!nqs_has_room(d))
		return nqs_has_lat_room(d) ? (now ? now : 1) : 0;
	t = nqs_next_event(d, now);
	return t ? t : (now ? now : 1);
}

/*
 * Whether requests of @c may be admitted outside the domain's order for
 * a while (lease.c): as nqs_admit() would admit one, were there room.
 */
bool nqs_may_lease(struct nqs_domain *d, struct nqs_class *c, u64 now)
{
	/* A slice leases one queue's tags; a striped request needs several. */
	return !d->stripe_n && (!d->nr_queued || (!c->nr_queued && held_all_capped(d, now))) &&
	       class_within_ceiling(c, now);
}

/* Whether @c is above a ceiling now: its requests are held for that. */
bool nqs_class_capped(struct nqs_class *c, u64 now)
{
	return !class_within_ceiling(c, now);
}

/*
 * Charge @c for @ios requests of @cost and @bytes, admitted at once
 * while it held nothing (lease.c), as nqs_admit() charges each; their
 * ceilings' and the capacity's tokens were taken when they were leased,
 * and their depth is in flight already.
 */
void nqs_charge_batch(struct nqs_domain *d, struct nqs_class *c, u64 cost,
		      u64 ios, const u64 bytes[2], u64 now)
{
	bool idle = link_empty(&c->active);

	if (!ios)
		return;
	if (idle) {
		class_resume(d, c);
		d->vclock = vmax(d->vclock, c->vtime);
	}
	class_charge(d, c, cost, ios, bytes[0] + bytes[1], now);
	c->disp_ios += ios;
	c->disp_bytes[0] += bytes[0];
	c->disp_bytes[1] += bytes[1];
	c->disp_cost += cost;
	if (idle)
		class_idle(d, c);
}

u64 nqs_next_event(struct nqs_domain *d, u64 now)
{
	struct nqs_link *l;
	u64 t = ~0ULL;

	/* Without room, the next completion is the next event. */
	if (!d->nr_queued || !nqs_has_room(d))
		return 0;
	if (!nqs_within_capacity(d, now))
		return bucket_ready_at(&d->capacity);
	for (l = d->active.next; l != &d->active; l = l->next) {
		struct nqs_class *c = nqs_entry(l, struct nqs_class, active);
		u64 ready;

		if (class_within_ceiling(c, now))
			return now;
		ready = max(bucket_ready_at(&c->ceil_b),
			    bucket_ready_at(&c->ceil_i));
		t = min(t, ready);
	}
	return t == ~0ULL ? 0 : t;
}

struct nqs_req *nqs_flow_pop(struct nqs_domain *d, struct nqs_flow *f,
			     struct nqs_req *r, u8 hwq)
{
	if (link_empty(&f->queue))
		return NULL;
	if (!r)
		r = flow_head(f);
	flow_unlink(d, f, r);
	r->hwq = hwq;
	nqs_put_in_flight(d, r);
	return r;
}

struct nqs_req *nqs_expire(struct nqs_domain *d, u64 now, u64 hold_ns,
			   u8 retries, u8 hwq, bool *dispatched)
{
	struct nqs_req *r;

	if (!hold_ns || link_empty(&d->held))
		return NULL;
	/* d->held is in the order held: its first has waited longest. */
	r = nqs_entry(d->held.next, struct nqs_req, hold);
	if (now < r->queued_ns + hold_ns)
		return NULL;
	flow_unlink(d, r->flow, r);
	r->wait_ns = now - r->queued_ns;
	*dispatched = r->retried >= retries;
	r->hwq = hwq;
	if (*dispatched)
		charge(d, r, now);
	return r;
}

struct nqs_req *nqs_flow_find(struct nqs_flow *f,
			      bool (*fn)(const struct nqs_req *r))
{
	struct nqs_link *l;

	for (l = f->queue.next; l != &f->queue; l = l->next) {
		struct nqs_req *r = nqs_entry(l, struct nqs_req, node);

		if (fn(r))
			return r;
	}
	return NULL;
}

void nqs_flow_set_class(struct nqs_domain *d, struct nqs_flow *f,
			struct nqs_class *c)
{
	struct nqs_class *old = f->cls;

	if (old == c)
		return;
	old->nr_flows--;
	c->nr_flows++;
	if (link_empty(&f->queue)) {
		f->cls = c;
		return;
	}
	link_del(&f->rr);
	old->nr_backlogged--;
	old->nr_queued -= f->nr_queued;
	if (link_empty(&old->flows))
		class_deactivate(d, old);
	f->cls = c;
	f->deficit = 0;
	link_add_tail(&f->rr, &c->flows);
	c->nr_backlogged++;
	c->nr_queued += f->nr_queued;
	class_activate(d, c);
}
