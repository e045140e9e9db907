// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics of one host on one device (a flow): counters, the time its
 * requests were held back, a log2 histogram of completion latency and a
 * smoothed rate. Updated under the flow's lock (fast.c), which is the
 * host's and not the device's, so the I/O path pays a few additions and
 * no atomics.
 */
#include "stats.h"

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
