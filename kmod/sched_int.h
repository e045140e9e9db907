/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scheduler core's files share among themselves (sched.h is
 * what they share with the glue): the depth's adaptation (depth.c), which
 * the completion path (room.c) calls when a window closes, the device's
 * room (room.c), which the order (sched.c) and the slices (lease.c) ask
 * of, and what the slices need of sched.c.
 */
#ifndef _NQ_SCHED_INT_H
#define _NQ_SCHED_INT_H

#include "sched.h"

#define nqs_entry(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* Judge the depth and the latency cap by the window, and start the next. */
void nqs_adapt(struct nqs_domain *d, u64 now);

/*
 * Of @tags, those kept for a latency class's small requests while one is
 * active: an eighth, one at least (room.c, sched.h).
 */
static inline u32 nqs_tags_kept(const struct nqs_domain *d, u32 tags)
{
	return d->lat_on ? max(tags / 8, 1U) : 0;
}

/* A latency class's small request: it has room and tags of its own. */
static inline bool nqs_latency_small(const struct nqs_req *r)
{
	return r->bytes <= NQS_SMALL_IO && r->flow->cls->conf.latency;
}

/* The device's room, in room.c. */
u64 nqs_limit(const struct nqs_domain *d);
bool nqs_has_room(struct nqs_domain *d);
bool nqs_has_lat_room(const struct nqs_domain *d);
bool nqs_hwq_has_tag(const struct nqs_domain *d, u8 hwq);
bool nqs_hwq_lat_tag(const struct nqs_domain *d, u8 hwq);
bool nqs_req_fits(const struct nqs_domain *d, const struct nqs_req *r,
		  u8 hwq, bool room);
bool nqs_within_capacity(struct nqs_domain *d, u64 now);
bool nqs_wants_room(const struct nqs_domain *d);
void nqs_put_in_flight(struct nqs_domain *d, struct nqs_req *r);
u64 nqs_complete_batch(struct nqs_domain *d, const struct nqs_done *b,
		       u64 now);

/* For the slices (lease.c), in sched.c. */
bool nqs_may_lease(struct nqs_domain *d, struct nqs_class *c, u64 now);
bool nqs_class_capped(struct nqs_class *c, u64 now);
void nqs_charge_batch(struct nqs_domain *d, struct nqs_class *c, u64 cost,
		      u64 ios, const u64 bytes[2], u64 now);

#endif /* _NQ_SCHED_INT_H */
