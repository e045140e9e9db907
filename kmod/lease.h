/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slices: admission and completion without the domain's lock, part of the
 * scheduler core (plain C, no locking of its own, see sched.h).
 *
 * While a domain holds nothing that could go, its requests need no order,
 * only limits: the depth, the tags, the capacity hint and their classes'
 * ceilings. A slice (one per CPU in the module) holds a lease of each,
 * taken from the domain under its lock, and admits requests against it
 * under a lock of its own that only its CPU takes, but for a reclaim.
 * What it admits is charged to the classes later, in a batch; what
 * completes on it goes back to its lease, and into the depth's window in
 * a batch. The domain counts the leases in flight: the depth and the
 * tags bind the requests in flight plus the room the slices hold, so
 * that a lease never lets more onto the device than the depth allows.
 *
 * The caller settles a slice (nqs_slice_settle()) when it says it is due:
 * every NQS_SLICE_BATCH requests or NQS_SLICE_NS. It takes leases back
 * (nqs_slice_reclaim()) before a request is held that could go once there
 * is room (nqs_slice_refused()), so that whenever the domain orders
 * requests its books are exact and no slice admits meanwhile; when held
 * requests find no room while slices hold some (nqs_slice_wanted());
 * before the domain's settings or policy change; and whenever
 * nqs_leased_over() says the depth fell below what is leased (a probe's
 * drain). A class above its ceiling that holds requests only loses its
 * own entries: the other classes keep their leases, as they are admitted
 * at once under the lock too (nqs_admit()). A lease is granted (nqs_slice_grant()) to the slice
 * of a request the domain admitted, for a class that holds nothing: the
 * next ones of that class on that CPU need not take the domain's lock.
 *
 * What a slice's request can do that one under the lock cannot: be
 * charged to its class's virtual time up to a batch late, which only
 * decides anything once requests are held, and by then the batch is
 * settled. Its ceiling's tokens are taken when leased, so a ceiling holds
 * exactly; a lease of them is at most a share of the burst.
 *
 * Lock order: the domain's, then a slice's.
 */
#ifndef _NQ_LEASE_H
#define _NQ_LEASE_H

#include "sched.h"

/*
 * Classes one slice admits for at once, each in the entry its place in
 * the caller's array of classes maps to (entry_of()): no search.
 */
#define NQS_SLICE_CLASSES	8
#define NQS_SLICE_BATCH		128	/* events between settlements */
#define NQS_SLICE_NS		(1000ULL * 1000)	/* or 1 ms */

/* One class's lease on a slice, and what it admitted since the last settle. */
struct nqs_slice_class {
	struct nqs_class *cls;		/* NULL: unused */
	bool lim_b, lim_i;		/* its ceilings, at the grant */
	bool latency;			/* a latency class, at the grant */
	s64 tok_b, tok_i;		/* their tokens leased */
	u64 cost, ios, bytes[2];	/* admitted, not charged yet */
};

struct nqs_slice {
	struct nqs_slice_class cls[NQS_SLICE_CLASSES];
	struct nqs_cost cost;		/* the domain's, at the grant */
	u64 room;			/* depth leased, not in flight */
	u32 ios;			/* requests likewise (tags) */
	u8 hwq;				/* the queue they are of (nqs_hwq()) */
	u64 cap_tok;			/* capacity hint's tokens leased */
	bool capped;			/* the domain has a capacity hint */
	bool on;			/* holds a lease */
	u64 quota;			/* room it keeps; more goes back */
	u32 quota_ios;
	u32 pending;			/* requests since the last settle */
	u64 settled_ns;
	struct nqs_done done;		/* completions since then */
};

void nqs_slice_init(struct nqs_slice *s);

/*
 * The entry @c may have: classes sit in an array of the caller's, so the
 * next NQS_SLICE_CLASSES of them take distinct entries.
 */
static inline struct nqs_slice_class *
nqs_slice_entry_at(struct nqs_slice *s, const struct nqs_class *c)
{
	return &s->cls[(unsigned long)c / sizeof(*c) % NQS_SLICE_CLASSES];
}

static inline struct nqs_slice_class *
nqs_slice_entry(struct nqs_slice *s, const struct nqs_class *c)
{
	struct nqs_slice_class *e = nqs_slice_entry_at(s, c);

	return e->cls == c ? e : NULL;
}

/*
 * Under the slice's lock only. Admit @r (flow, bytes, write and ops set)
 * on the slice's lease: true when it may go to the device now, as
 * nqs_submit() would say; false when the domain must decide. Inline, as
 * the completion below: they are every request's path.
 */
static inline bool nqs_slice_submit(struct nqs_slice *s, struct nqs_req *r,
				    u64 now)
{
	struct nqs_slice_class *e;
	u64 cost;

	if (!s->on || r->hwq != s->hwq)
		return false;
	e = nqs_slice_entry(s, r->flow->cls);
	if (!e)
		return false;
	cost = nqs_cost_of(&s->cost, r->bytes, r->write, r->ops);
	if (cost > s->room || !s->ios || (s->capped && cost > s->cap_tok) ||
	    (e->lim_b && e->tok_b < (s64)r->bytes) ||
	    (e->lim_i && e->tok_i < 1))
		return false;
	s->room -= cost;
	s->ios--;
	if (s->capped)
		s->cap_tok -= cost;
	if (e->lim_b)
		e->tok_b -= r->bytes;
	if (e->lim_i)
		e->tok_i--;
	e->cost += cost;
	e->ios++;
	e->bytes[r->write] += r->bytes;
	r->cost = cost;
	r->queued_ns = 0;
	r->wait_ns = 0;
	/* In the slice's room, not the latency classes' own (nqs_has_lat_room()). */
	r->lat = false;
	r->slots = 0;
	r->first_ns = now ? now : 1;
	s->pending++;
	return true;
}

/*
 * Whether @r is a latency class's small one, from the entry of its class
 * where the slice has one: the class, which settlements write, stays in
 * the cache of the CPU that settles.
 */
static inline bool nqs_slice_small_lat(struct nqs_slice *s,
				       const struct nqs_req *r)
{
	const struct nqs_slice_class *e;

	if (r->bytes > NQS_SMALL_IO)
		return false;
	e = nqs_slice_entry(s, r->flow->cls);
	return e ? e->latency : r->flow->cls->conf.latency;
}

/*
 * Under the slice's lock only. @r, admitted anywhere, completed after
 * @lat_ns: true when the slice took it (while it holds a lease), false
 * when the caller must call nqs_complete() under the domain's lock. Only
 * its own queue's: the tags it leased are that queue's.
 */
static inline bool nqs_slice_complete(struct nqs_slice *s,
				      const struct nqs_req *r,
				      u64 lat_ns, u64 now)
{
	if (!s->on || r->hwq != s->hwq || r->slots)
		return false;
	s->room += r->cost;
	s->ios++;
	nqs_done_add(&s->done, r, lat_ns, now, nqs_slice_small_lat(s, r));
	s->pending++;
	return true;
}

/* Whether the slice should be settled now (@now may be behind the last). */
static inline bool nqs_slice_due(const struct nqs_slice *s, u64 now)
{
	return s->pending >= NQS_SLICE_BATCH ||
	       (s->pending && now >= s->settled_ns + NQS_SLICE_NS);
}

/*
 * Under both locks. Charge what the slice admitted, count what completed
 * on it, and give back room beyond its quota. Returns nqs_held_next().
 */
u64 nqs_slice_settle(struct nqs_domain *d, struct nqs_slice *s, u64 now);

/*
 * Under both locks. Lease the slice room and tags, up to a 1 / (2 *
 * @share) of what the domain allows (half of what is free at most), and
 * @c's ceilings' tokens likewise, if @c may be admitted out of order now
 * (nqs_may_lease()). @share: how many slices there are. @hwq: the queue
 * the slice's CPU submits to (nqs_hwq()); the slice admits and takes back
 * the completions of that queue's requests only, as its tags are that
 * queue's.
 */
void nqs_slice_grant(struct nqs_domain *d, struct nqs_slice *s,
		     struct nqs_class *c, u8 hwq, u32 share, u64 now);

/* Under both locks: settle the slice and take its whole lease back. */
void nqs_slice_reclaim(struct nqs_domain *d, struct nqs_slice *s, u64 now);

/* Under both locks: settle @c's entry on the slice and give its tokens back. */
void nqs_slice_drop(struct nqs_domain *d, struct nqs_slice *s,
		    struct nqs_class *c, u64 now);

/*
 * After nqs_admit() refused a request of @c: what the caller takes back
 * before it asks once more and, if refused again, holds the request.
 * Nothing while no slice holds a lease. While @c is above its ceiling,
 * its entries (nqs_slice_drop() on every slice): they may hold its
 * tokens, and no slice may admit a class that holds requests. Else every
 * lease (nqs_slice_reclaim()): what was refused waits for room or for
 * requests held that may go, and then the domain orders them all.
 */
enum nqs_take {
	NQS_TAKE_NONE,
	NQS_TAKE_CLASS,
	NQS_TAKE_ALL,
};

enum nqs_take nqs_slice_refused(struct nqs_domain *d, struct nqs_class *c,
				u64 now);

/*
 * Whether nqs_next() may have found nothing for the room the slices hold:
 * take every lease back and ask again.
 */
bool nqs_slice_wanted(const struct nqs_domain *d);

/* Whether leases hold more than the depth allows now: take them back. */
bool nqs_leased_over(const struct nqs_domain *d);

#endif /* _NQ_LEASE_H */
