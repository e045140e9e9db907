// SPDX-License-Identifier: GPL-2.0
/*
 * Slices: leases of a domain's limits that let requests be admitted and
 * completed without the domain's lock; see lease.h. Part of the scheduler
 * core: plain C, compiled into the module and into the userspace tests.
 */
#include "sched_int.h"
#include "bucket.h"
#include "lease.h"

void nqs_slice_init(struct nqs_slice *s)
{
	*s = (struct nqs_slice){ 0 };
}

/* @n of the slice's requests go back to the domain. */
static void ios_back(struct nqs_domain *d, struct nqs_slice *s, u32 n)
{
	n = min(n, s->ios);
	s->ios -= n;
	d->inflight_ios -= min(d->inflight_ios, n);
	d->hwq_ios[s->hwq] -= min(d->hwq_ios[s->hwq], n);
}

/*
 * Unused tokens go back to their bucket, which refilled meanwhile as if
 * they had been spent: no further than its cap, or a lease would add to
 * the burst.
 */
static void tokens_back(struct nqs_bucket *b, s64 tokens)
{
	if (tokens > 0 && b->tokens < (s64)b->cap)
		b->tokens = min(b->tokens + tokens, (s64)b->cap);
}

/*
 * Up to @quota tokens in all for a lease that holds @held, no more than
 * half of what @b has: the next slice to ask finds some too.
 */
static s64 tokens_lease(struct nqs_bucket *b, s64 held, u64 quota, u64 now)
{
	s64 add;

	bucket_refill(b, now, false);
	if (b->tokens <= 0 || held >= (s64)quota)
		return held;
	add = min((s64)quota - held, b->tokens / 2);
	b->tokens -= add;
	return held + add;
}

/* Charge what @e admitted since the last settle. */
static void entry_settle(struct nqs_domain *d, struct nqs_slice_class *e,
			 u64 now)
{
	nqs_charge_batch(d, e->cls, e->cost, e->ios, e->bytes, now);
	e->cost = 0;
	e->ios = 0;
	e->bytes[0] = 0;
	e->bytes[1] = 0;
}

/* Settle @e and give its class's tokens back: the entry is free. */
static void entry_drop(struct nqs_domain *d, struct nqs_slice_class *e,
		       u64 now)
{
	entry_settle(d, e, now);
	if (e->lim_b)
		tokens_back(&e->cls->ceil_b, e->tok_b);
	if (e->lim_i)
		tokens_back(&e->cls->ceil_i, e->tok_i);
	e->cls->nr_leased--;
	*e = (struct nqs_slice_class){ 0 };
}

u64 nqs_slice_settle(struct nqs_domain *d, struct nqs_slice *s, u64 now)
{
	u64 t;
	u32 i;

	for (i = 0; i < NQS_SLICE_CLASSES; i++)
		if (s->cls[i].cls)
			entry_settle(d, &s->cls[i], now);
	if (s->done.ios)
		t = nqs_complete_batch(d, &s->done, now);
	else
		t = nqs_held_next(d, now);
	s->done = (struct nqs_done){ 0 };
	/* Completions here brought back room others' admissions took. */
	if (s->room > s->quota) {
		d->inflight -= min(d->inflight, s->room - s->quota);
		s->room = s->quota;
	}
	if (s->ios > s->quota_ios)
		ios_back(d, s, s->ios - s->quota_ios);
	s->pending = 0;
	s->settled_ns = now;
	return t;
}

/*
 * Top the room up to the quota, from half of what the domain has free.
 * The quota is only what the slice keeps at a settlement: completions on
 * it bring back the room of what it admitted beyond (the slow path's
 * admissions too), so a CPU that keeps more requests in flight than its
 * quota stays on its slice as long as it keeps them in flight
 * (sched_test slices_fast: 64 slices, hosts at QD 32, a quota of one).
 */
static void grant_room(struct nqs_domain *d, struct nqs_slice *s, u32 share)
{
	u64 lim = nqs_limit(d);
	u64 free = lim > d->inflight ? lim - d->inflight : 0;
	u64 add;

	s->cost = d->cost;
	s->quota = nqs_div(lim, 2 * share);
	if (s->room >= s->quota)
		return;
	add = min(s->quota - s->room, free / 2);
	s->room += add;
	d->inflight += add;
}

/* Of @tags with @used taken, what is free beyond those kept (room.c). */
static u32 tags_free(const struct nqs_domain *d, u32 tags, u32 used)
{
	used += nqs_tags_kept(d, tags);
	return tags > used ? tags - used : 0;
}

/*
 * The same for requests: of the device's tags, and of its queue's where
 * they are split over queues, keeping those room.c keeps for a latency
 * class; where they are not known, as many as the room can hold at the
 * least cost of a request.
 */
static void grant_ios(struct nqs_domain *d, struct nqs_slice *s, u32 share)
{
	u32 add, free = ~0U;

	if (d->tags) {
		u32 tags = nqs_hwq_tags(d, s->hwq);

		free = tags_free(d, d->tags, d->inflight_ios);
		if (d->nr_hwq > 1)
			free = min(free, tags_free(d, tags,
						   d->hwq_ios[s->hwq]));
		s->quota_ios = max(tags / (2 * share), 1U);
	} else {
		s->quota_ios = (u32)min(nqs_div(s->quota,
					max(d->cost.io_cost, 1U)) + 1,
					1ULL << 16);
	}
	if (s->ios >= s->quota_ios)
		return;
	add = min(s->quota_ios - s->ios, free - free / 2);
	s->ios += add;
	d->inflight_ios += add;
	d->hwq_ios[s->hwq] += add;
}

/* @c's entry on the slice, made (in another class's place) if need be. */
static struct nqs_slice_class *entry_get(struct nqs_domain *d,
					 struct nqs_slice *s,
					 struct nqs_class *c, u64 now)
{
	struct nqs_slice_class *e = nqs_slice_entry_at(s, c);

	if (e->cls == c)
		return e;
	if (e->cls)
		entry_drop(d, e, now);
	e->cls = c;
	c->nr_leased++;
	e->lim_b = c->ceil_b.rate != 0;
	e->lim_i = c->ceil_i.rate != 0;
	e->latency = c->conf.latency;
	return e;
}

void nqs_slice_grant(struct nqs_domain *d, struct nqs_slice *s,
		     struct nqs_class *c, u8 hwq, u32 share, u64 now)
{
	struct nqs_slice_class *e;

	if (!nqs_may_lease(d, c, now))
		return;
	/* Its CPU maps to another queue now (the queues were remade). */
	if (s->on && s->hwq != hwq)
		nqs_slice_reclaim(d, s, now);
	if (!s->on)
		s->hwq = hwq;
	share = max(share, 1U);
	grant_room(d, s, share);
	grant_ios(d, s, share);
	if (!s->on && (!s->room || !s->ios)) {
		/* Nothing to admit with: what it took goes back. */
		d->inflight -= min(d->inflight, s->room);
		ios_back(d, s, s->ios);
		s->room = 0;
		return;
	}
	s->capped = d->capacity.rate != 0;
	if (s->capped)
		s->cap_tok = tokens_lease(&d->capacity, s->cap_tok,
					  nqs_div(d->capacity.cap, 2 * share),
					  now);
	e = entry_get(d, s, c, now);
	if (e->lim_b)
		e->tok_b = tokens_lease(&c->ceil_b, e->tok_b,
					nqs_div(c->ceil_b.cap, 2 * share), now);
	if (e->lim_i)
		e->tok_i = tokens_lease(&c->ceil_i, e->tok_i,
					nqs_div(c->ceil_i.cap, 2 * share), now);
	if (!s->on) {
		s->on = true;
		s->settled_ns = now;
		d->nr_leases++;
	}
}

void nqs_slice_reclaim(struct nqs_domain *d, struct nqs_slice *s, u64 now)
{
	u32 i;

	if (!s->on)
		return;
	nqs_slice_settle(d, s, now);
	d->inflight -= min(d->inflight, s->room);
	ios_back(d, s, s->ios);
	s->room = 0;
	if (s->capped)
		tokens_back(&d->capacity, (s64)s->cap_tok);
	s->cap_tok = 0;
	for (i = 0; i < NQS_SLICE_CLASSES; i++)
		if (s->cls[i].cls)
			entry_drop(d, &s->cls[i], now);
	s->on = false;
	d->nr_leases--;
}

bool nqs_leased_over(const struct nqs_domain *d)
{
	return d->nr_leases && d->inflight > nqs_limit(d);
}

void nqs_slice_drop(struct nqs_domain *d, struct nqs_slice *s,
		    struct nqs_class *c, u64 now)
{
	struct nqs_slice_class *e = nqs_slice_entry(s, c);

	if (e)
		entry_drop(d, e, now);
}

enum nqs_take nqs_slice_refused(struct nqs_domain *d, struct nqs_class *c,
				u64 now)
{
	if (!d->nr_leases)
		return NQS_TAKE_NONE;
	if (nqs_class_capped(c, now))
		return c->nr_leased ? NQS_TAKE_CLASS : NQS_TAKE_NONE;
	return NQS_TAKE_ALL;
}

bool nqs_slice_wanted(const struct nqs_domain *d)
{
	return d->nr_leases && nqs_wants_room(d);
}
