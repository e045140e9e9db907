/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flow's statistics as each completion adds to them (stats.c has the
 * rest): inline, on every request's path.
 */
#ifndef NQ_STATS_H
#define NQ_STATS_H

#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "nvmet-qos.h"

/* Bucket of a latency: 0 below 2 us, then one per power of two. */
static inline unsigned int nq_lat_bucket(u64 lat_ns)
{
	u64 us = div_u64(lat_ns, NSEC_PER_USEC);

	if (us < 2)
		return 0;
	return min_t(unsigned int, ilog2(us), NQ_LAT_BUCKETS - 1);
}

/* Under the flow's lock: @r done after @lat_ns. */
static inline void nq_stats_complete(struct nq_flow_stats *s,
				     const struct nqs_req *r, u64 lat_ns)
{
	u64 total = lat_ns + r->wait_ns;

	s->ios[r->write]++;
	s->bytes[r->write] += r->bytes;
	s->cost += r->cost;
	if (r->queued_ns) {
		s->held_ios++;
		s->held_ns += r->wait_ns;
	}
	s->lat_sum_ns += total;
	s->lat[nq_lat_bucket(total)]++;
}

#endif
