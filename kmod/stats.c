// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics of one host on one device (a flow): counters, the time its
 * requests were held back, a log2 histogram of completion latency and a
 * smoothed rate. Updated under the domain's lock, which the completion
 * path takes anyway, so the I/O path pays a few additions and no atomics.
 */
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "nvmet-qos.h"

/* Bucket of a latency: 0 below 2 us, then one per power of two. */
static unsigned int lat_bucket(u64 lat_ns)
{
	u64 us = div_u64(lat_ns, NSEC_PER_USEC);

	if (us < 2)
		return 0;
	return min_t(unsigned int, ilog2(us), NQ_LAT_BUCKETS - 1);
}

void nq_stats_complete(struct nq_flow_stats *s, const struct nqs_req *r,
		       u64 lat_ns)
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
	s->lat[lat_bucket(total)]++;
}

/*
 * Once a second or so: the rate since the last tick, averaged with the
 * previous rate, so each second weighs half as much as the next.
 */
void nq_stats_tick(struct nq_flow_stats *s, u64 now)
{
	u64 bytes = s->bytes[NQ_READ] + s->bytes[NQ_WRITE];
	u64 ios = s->ios[NQ_READ] + s->ios[NQ_WRITE];
	u64 dt = now - s->tick_ns;

	if (s->tick_ns && dt) {
		s->rate_bps = s->rate_bps / 2 +
			      nqs_rate(bytes - s->tick_bytes, dt) / 2;
		s->rate_iops = s->rate_iops / 2 +
			       nqs_rate(ios - s->tick_ios, dt) / 2;
	}
	s->tick_ns = now;
	s->tick_bytes = bytes;
	s->tick_ios = ios;
}
