// SPDX-License-Identifier: GPL-2.0
/*
 * The room a device has for one more request: what is in flight against
 * the depth (capped while a latency class is active), against its tags,
 * one pool or split over hardware queues, and against the capacity hint;
 * requests put in flight take it, completions give it back and fill in
 * the window the depth is judged by (depth.c). sched.c decides who goes
 * next, asking here whether anyone may; see sched.h for the model.
 */
#include "sched_int.h"
#include "bucket.h"

#define WIN_NS		(4ULL * 1000 * 1000)
#define WIN_IOS		8

void nqs_domain_set_tags(struct nqs_domain *d, u32 tags)
{
	d->tags = tags;
}

/*
 * What the queues hold stays counted where it was: completions bring the
 * counts down, never below zero, as the queues drain.
 */
void nqs_domain_set_queues(struct nqs_domain *d, u32 nr)
{
	d->nr_hwq = nq_mutant(queues) ? 0 : nr;
}

/* As with the queues, what is in flight stays counted where it was. */
void nqs_domain_set_stripe(struct nqs_domain *d, u32 n, u64 chunk)
{
	if (n < 2 || !chunk || nq_mutant(stripe))
		n = 0;
	d->stripe_n = min(n, (u32)NQS_STRIPE_MAX);
	d->stripe_chunk = d->stripe_n ? chunk : 0;
}

/*
 * The sector comes from the host's command, unchecked (the backend
 * refuses a range past the end only later): the chunks are counted, not
 * walked to @last, which may be the last number a u64 holds.
 */
u32 nqs_stripe_span(const struct nqs_domain *d, u64 sector, u32 bytes)
{
	u32 all = (1U << d->stripe_n) - 1, span = 0, m;
	u64 first, last, n;

	if (!d->stripe_n)
		return 0;
	if (sector == NQS_SECTOR_ANY || !bytes)
		return all;
	first = nqs_div(sector, d->stripe_chunk);
	last = nqs_div(sector + (bytes - 1) / 512, d->stripe_chunk);
	if (last < first || last - first + 1 >= d->stripe_n)
		return all;
	m = first - nqs_div(first, d->stripe_n) * d->stripe_n;
	for (n = last - first + 1; n; n--) {
		span |= 1U << m;
		if (++m == d->stripe_n)
			m = 0;
	}
	return span;
}

/* Where member @m's queue @hwq is counted: never where another's is. */
static u8 slot_of(const struct nqs_domain *d, u32 m, u8 hwq)
{
	u32 per = nqs_member_slots(d);

	return m * per + hwq % per;
}

/* The counted queues of @hwq on the members in @members, as a mask. */
static u64 slots_of(const struct nqs_domain *d, u8 hwq, u32 members)
{
	u64 slots = 0;
	u32 m;

	for (m = 0; m < d->stripe_n; m++)
		if (members & (1U << m))
			slots |= 1ULL << slot_of(d, m, hwq);
	return slots;
}

/* The depth, capped while a latency class is active. */
u64 nqs_limit(const struct nqs_domain *d)
{
	if (nq_mutant(depth))
		return d->depth_max;
	return d->lat_on ? min(d->depth, d->lat_cap) : d->depth;
}

/*
 * Whether the device has a tag for one more request other than a latency
 * class's small one. While a latency class is active, an eighth of the
 * tags (at least one) is kept for those; see sched.h.
 */
static bool tag_left(const struct nqs_domain *d, u32 tags, u32 used)
{
	return !tags || !d->lat_on || used + nqs_tags_kept(d, tags) < tags;
}

static bool has_tag(const struct nqs_domain *d)
{
	return tag_left(d, d->tags, d->inflight_ios);
}

/*
 * Whether each counted queue in @slots has a tag: for a latency class's
 * small request (@lat), any free one; for others, one beyond those kept.
 */
static bool slots_have_tag(const struct nqs_domain *d, u64 slots, bool lat)
{
	for (; slots; slots &= slots - 1) {
		u8 q = nqs_ffs64(slots);
		u32 tags = nqs_hwq_tags(d, q);

		if (lat ? d->hwq_ios[q] >= tags :
			  !tag_left(d, tags, d->hwq_ios[q]))
			return false;
	}
	return true;
}

/*
 * Whether queue @hwq has a tag on some member of the stripe: a request
 * not chosen yet may fit there (nqs_req_fits() then says if it does).
 */
static bool some_member_tag(const struct nqs_domain *d, u8 hwq, bool lat)
{
	u32 m;

	for (m = 0; m < d->stripe_n; m++)
		if (slots_have_tag(d, 1ULL << slot_of(d, m, hwq), lat))
			return true;
	return false;
}

static bool queue_tag(const struct nqs_domain *d, u8 hwq, bool lat)
{
	if (d->stripe_n)
		return some_member_tag(d, hwq, lat);
	return slots_have_tag(d, 1ULL << hwq, lat);
}

/* The same in hardware queue @hwq, where the tags are split over queues. */
bool nqs_hwq_has_tag(const struct nqs_domain *d, u8 hwq)
{
	return nqs_units(d) <= 1 || queue_tag(d, hwq, false);
}

/* A tag free in queue @hwq for a latency class's small request. */
bool nqs_hwq_lat_tag(const struct nqs_domain *d, u8 hwq)
{
	return nqs_units(d) <= 1 || !d->tags || queue_tag(d, hwq, true);
}

/*
 * Whether @r fits in queue @hwq, of each member it spans on a stripe:
 * with a tag beyond those kept where the device has room (@room), else
 * as a latency class's small one, with latency room and any tag.
 */
bool nqs_req_fits(const struct nqs_domain *d, const struct nqs_req *r,
		  u8 hwq, bool room)
{
	u64 slots = d->stripe_n ? slots_of(d, hwq, r->members) : 1ULL << hwq;
	bool split = nqs_units(d) > 1;

	if (room && (!split || slots_have_tag(d, slots, false)))
		return true;
	return nqs_latency_small(r) && nqs_has_lat_room(d) &&
	       (!split || !d->tags || slots_have_tag(d, slots, true));
}

/* At least one request may always be in flight, however large. */
bool nqs_has_room(struct nqs_domain *d)
{
	if (d->inflight >= d->depth)
		d->depth_limited = true;
	return !d->inflight || (d->inflight < nqs_limit(d) && has_tag(d));
}

/*
 * Room for a latency class's small request. Where the device's tags are
 * known, has_tag() keeps some free for it, so it finds a slot whatever
 * the others have in flight: it needs a tag and may have an eighth of
 * the limit (one request at least) of its own. A tag even before its
 * class counts as active (one window), or a read finding them all taken
 * would sleep for one in its submitter. It used to need the others' in flight
 * below the limit plus an eighth, but the last bulk request admitted
 * below the limit may pass it by its whole size, and a small read then
 * waited here a bulk request's service time (sched_test
 * latency_tags_slow). Where the tags are not known, a small request past
 * what the device serves at once would wait in the device's queue behind
 * bulk requests: it waits here instead, and goes first once completions
 * bring what is in flight below the limit plus an eighth.
 */
bool nqs_has_lat_room(const struct nqs_domain *d)
{
	if (d->tags)
		return (!d->lat_inflight || d->lat_inflight < nqs_limit(d) / 8) &&
		       d->inflight_ios < d->tags;
	return d->inflight < nqs_limit(d) + nqs_limit(d) / 8;
}

bool nqs_within_capacity(struct nqs_domain *d, u64 now)
{
	return bucket_allows(&d->capacity, now, false);
}

/* Whether requests are held and the device has no room for them. */
bool nqs_wants_room(const struct nqs_domain *d)
{
	return d->nr_queued && d->inflight &&
	       (d->inflight >= nqs_limit(d) || !has_tag(d));
}

/*
 * Whether a latency class holds requests: a queue with only the tags kept
 * for its small ones may take one.
 */
static bool lat_held(const struct nqs_domain *d)
{
	const struct nqs_link *l;

	for (l = d->active.next; l != &d->active; l = l->next) {
		const struct nqs_class *c = nqs_entry(l, struct nqs_class,
						      active);

		if (c->conf.latency)
			return true;
	}
	return false;
}

/*
 * Only where @hwq's own tags are what kept a held request back, so that
 * a queue kicked for its room never kicks another in turn.
 */
int nqs_hwq_elsewhere(struct nqs_domain *d, u8 hwq, u64 now)
{
	u32 i, n = min(d->nr_hwq, (u32)NQS_HWQ_MAX);
	bool room, lat;

	if (n <= 1 || !nqs_due(nqs_held_next(d, now), now) ||
	    !nqs_within_capacity(d, now))
		return -1;
	room = nqs_has_room(d);
	lat = nqs_has_lat_room(d) && lat_held(d);
	if ((room && nqs_hwq_has_tag(d, hwq)) || (lat && nqs_hwq_lat_tag(d, hwq)) ||
	    (!room && !lat))
		return -1;
	for (i = 1; i < n; i++) {
		u8 q = (hwq + i) % n;

		if (room && nqs_hwq_has_tag(d, q))
			return q;
		if (lat && nqs_hwq_lat_tag(d, q))
			return q;
	}
	return -1;
}

/*
 * Count @r in (@delta 1) or out of (-1) its queues: the ones it was
 * counted in on a stripe, which completion takes back even if the stripe
 * changed meanwhile; else its own. Never below zero.
 */
static void count_slots(struct nqs_domain *d, const struct nqs_req *r,
			int delta)
{
	u64 slots = r->slots ?: 1ULL << r->hwq;

	for (; slots; slots &= slots - 1) {
		u8 q = nqs_ffs64(slots);

		if (delta > 0)
			d->hwq_ios[q]++;
		else if (d->hwq_ios[q])
			d->hwq_ios[q]--;
	}
}

/* Put a request in flight: the device's accounting, not the class's. */
void nqs_put_in_flight(struct nqs_domain *d, struct nqs_req *r)
{
	struct nqs_class *c = r->flow->cls;

	c->disp_ios++;
	c->disp_bytes[r->write] += r->bytes;
	c->disp_cost += r->cost;
	d->inflight += r->cost;
	d->inflight_ios++;
	r->slots = 0;
	if (d->stripe_n)
		r->slots = slots_of(d, r->hwq, r->members);
	count_slots(d, r, 1);
	r->lat = nqs_latency_small(r);
	if (r->lat)
		d->lat_inflight += r->cost;
}

/*
 * Whether the window has seen enough to judge: WIN_IOS completions over
 * WIN_NS. A probe's windows run at the least depth, where a slow device
 * completes one request per service time: with 48 ms a request, eight of
 * them held the depth at one request for 770 ms of each second's epoch,
 * and a class capped at 8 MB/s moved 4.8. The draining window needs only
 * what the full depth left at the device to be gone, and the measuring
 * one a completion; a fast device still takes WIN_NS for each. Not while
 * a latency class is active: its baseline is a small request's latency
 * at the drained device, which a window of one completion may not see
 * (in the core's test of 8 slots of 4 ms, its p99 went from 1.1x to 2x).
 */
static bool window_done(const struct nqs_domain *d, u64 now)
{
	if (now - d->win_start < WIN_NS || !d->win_ios)
		return false;
	switch (d->lat_on ? 0 : d->probe) {
	case 1:
		return d->inflight <= d->depth || d->win_ios >= WIN_IOS;
	case 2:
		return true;
	default:
		return d->win_ios >= WIN_IOS;
	}
}

/*
 * Completions into the window: @b's sums, and the latency classes' small
 * requests' latencies (from arrival) at worst and best. Then the depth is
 * judged if the window is done, and what nqs_held_next() says is returned.
 */
static u64 completed(struct nqs_domain *d, const struct nqs_done *b, u64 now)
{
	u64 t;

	d->completed_cost += b->cost;
	d->win_lat += b->lat;
	d->win_cost += b->cost;
	d->win_ios += b->ios;
	if (b->lat_seen) {
		d->lat_worst = max(d->lat_worst, b->lat_worst);
		d->lat_min[0] = min(d->lat_min[0], b->lat_min);
		d->lat_seen = max(d->lat_seen, b->lat_seen);
	}
	d->win_lat_s += b->lat_s;
	d->win_cost_s += b->cost_s;
	d->win_ios_s += b->ios_s;
	if (window_done(d, now))
		nqs_adapt(d, now);
	/* Only a kick the caller makes is timed (lag_sample()). */
	t = nqs_held_next(d, now);
	if (nqs_due(t, now) && !d->kick_ns)
		d->kick_ns = now ? now : 1;
	return t;
}

u64 nqs_complete(struct nqs_domain *d, const struct nqs_req *r, u64 lat_ns,
		 u64 now)
{
	struct nqs_done b = { 0 };

	d->inflight -= min(d->inflight, r->cost);
	if (d->inflight_ios)
		d->inflight_ios--;
	count_slots(d, r, -1);
	if (r->lat)
		d->lat_inflight -= min(d->lat_inflight, r->cost);
	nqs_done_add(&b, r, lat_ns, now, nqs_latency_small(r));
	return completed(d, &b, now);
}

u64 nqs_complete_batch(struct nqs_domain *d, const struct nqs_done *b, u64 now)
{
	d->lat_inflight -= min(d->lat_inflight, b->lat_cost);
	return completed(d, b, now);
}
