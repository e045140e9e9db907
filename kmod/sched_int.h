/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scheduler core's files share among themselves (sched.h is
 * what they share with the glue): the depth's adaptation (depth.c), which
 * the completion path (sched.c) calls when a window closes, and what the
 * slices (lease.c) need of sched.c.
 */
#ifndef _NQ_SCHED_INT_H
#define _NQ_SCHED_INT_H

#include "sched.h"

/* Judge the depth and the latency cap by the window, and start the next. */
void nqs_adapt(struct nqs_domain *d, u64 now);

/*
 * Of @tags, those kept for a latency class's small requests while one is
 * active: an eighth, one at least (has_tag(), sched.h).
 */
static inline u32 nqs_tags_kept(const struct nqs_domain *d, u32 tags)
{
	return d->lat_on ? max(tags / 8, 1U) : 0;
}

/* For the slices (lease.c), in sched.c. */
u64 nqs_limit(const struct nqs_domain *d);
bool nqs_may_lease(struct nqs_domain *d, struct nqs_class *c, u64 now);
bool nqs_class_capped(struct nqs_class *c, u64 now);
bool nqs_wants_room(const struct nqs_domain *d);
void nqs_charge_batch(struct nqs_domain *d, struct nqs_class *c, u64 cost,
		      u64 ios, const u64 bytes[2], u64 now);
void nqs_done_add(struct nqs_done *b, const struct nqs_req *r, u64 lat_ns,
		  u64 now, bool lat_small);
u64 nqs_complete_batch(struct nqs_domain *d, const struct nqs_done *b,
		       u64 now);

#endif /* _NQ_SCHED_INT_H */
