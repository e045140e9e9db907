// SPDX-License-Identifier: GPL-2.0
/*
 * The depth's adaptation: once a window, the verdict on how much work the
 * device may have in flight (the depth) and on the latency classes' cap
 * below it, the device's completion rate that bounds the depth from
 * below, and once an epoch the probe that measures the baseline they are
 * judged against; see sched.h for the model.
 *
 * Apart from sched.c and room.c, which hold the path every request takes:
 * that path fills in the window (nqs_complete()) and keeps to the depth
 * and cap decided here, and calls in only when a window has closed
 * (window_done()), so nothing here runs per request.
 */
#include "sched_int.h"

#define EPOCH_NS	NQS_NSEC
#define PROBE_MAX_NS	(100ULL * 1000 * 1000)
#define PROBE_SPACING	32	/* a probe's length, to the next one's start */
#define PROBE_GAP_MAX	(16 * EPOCH_NS)
#define LAT_HOLD_MAX	16	/* epochs */

static void window_reset(struct nqs_domain *d, u64 now)
{
	d->win_start = now;
	d->win_lat = 0;
	d->win_cost = 0;
	d->win_ios = 0;
	d->win_lat_s = 0;
	d->win_cost_s = 0;
	d->win_ios_s = 0;
	d->win_limited = false;
	d->depth_limited = false;
}

static bool latency_active(const struct nqs_domain *d, u64 now)
{
	return d->lat_seen && now - d->lat_seen < EPOCH_NS;
}

/*
 * The device's completion rate, averaged over windows, as a device that
 * serves in bursts completes nothing in some windows and a burst in
 * others.
 */
static void rate_update(struct nqs_domain *d, u64 now)
{
	u64 win = now - d->win_start;

	if (win)
		d->rate = d->rate - d->rate / 8 +
			  nqs_mul_div(d->win_cost, NQS_NSEC, win) / 8;
}

/*
 * Twice what the device completes in one dispatch delay: the work that
 * must already be at the device when a completion kicks the caller, so
 * that it does not run dry before the caller comes.
 */
static u64 depth_floor(const struct nqs_domain *d)
{
	return nqs_mul_div(2 * d->rate, d->lag_ns, NQS_NSEC);
}

/*
 * Once per epoch the depth drops to its minimum: one window lets the
 * device drain (several, up to PROBE_MAX_NS, while a latency class is
 * active), one more measures latency per cost unit with almost nothing
 * queued. That is the baseline the other windows compare against;
 * measuring it under load would let it creep up with the depth.
 *
 * On a slow device a probe is long: a window needs WIN_IOS completions
 * while a latency class is active, and at the least depth a device of
 * 96 ms a request completes one or two at a time. Such a probe took a
 * fifth of every second from the bandwidth classes (an md RAID0 of
 * drives of 12 tags of 96 ms: 78% of stock's bytes, 105% with no depth
 * at all). So where the device's tags are known, the next probe starts
 * PROBE_SPACING times this one's length after it, an epoch at least: a
 * probe costs such a device at most about 1/PROBE_SPACING of its time,
 * and a fast one is probed each epoch as before. There a latency class's
 * small reads have tags kept for them (room.c), and the probe is only
 * the baseline. Where the tags are not known, the latency class's p99 on
 * a slow device leans on the probe's drain as well as on the cap: spaced
 * so, sched_test latency_slow (6 slots of 24 ms, tags unknown) went from
 * 1.00x to 1.67x; those keep a probe each epoch.
 */
static u64 probe_gap(const struct nqs_domain *d)
{
	return d->tags ? max(d->probe_gap, EPOCH_NS) : EPOCH_NS;
}

static bool probe(struct nqs_domain *d, u64 lpc, u64 lpc_s, u64 now)
{
	switch (d->probe) {
	case 0:
		if (now - d->epoch_start < probe_gap(d))
			return false;
		d->epoch_start = now;
		d->depth_saved = d->depth;
		d->depth = max(d->depth_min, depth_floor(d));
		d->probe = 1;
		return true;
	case 1:
		/*
		 * One window drains enough for the bandwidth classes. A
		 * latency class needs the true baseline, measured once what
		 * the full depth put in the device's queue is gone.
		 */
		if (!latency_active(d, now) || d->inflight <= d->depth_min ||
		    now - d->epoch_start > PROBE_MAX_NS)
			d->probe = 2;
		return true;
	default:
		d->lpc_min[1] = d->lpc_min[0];
		d->lpc_min[0] = lpc;
		d->lpc_min_s[1] = d->lpc_min_s[0];
		d->lpc_min_s[0] = lpc_s;
		d->lat_min[1] = d->lat_min[0];
		d->lat_min[0] = ~0ULL;
		d->depth = d->depth_saved;
		d->probe = 0;
		d->probe_gap = min(PROBE_SPACING * (now - d->epoch_start),
				   PROBE_GAP_MAX);
		return true;
	}
}

static u64 lpc_of(u64 lat, u64 cost)
{
	return nqs_div(lat << 10, cost ? cost : 1);
}

/*
 * While a latency class is active, a second limit caps the depth: lat_cap.
 * It answers to the latency classes' small requests, from arrival: the
 * worst since the last window against the best this and the last epoch.
 * The worst rather than a mean, because what a latency class asks for is
 * its tail, and a mean hides the few requests that met a full device.
 *
 * A quarter above the best, they suffered: the cap shrinks by an eighth
 * and may not grow for an epoch, or it would creep back to where they
 * suffered. If the first growth after a hold hurts again, the next hold
 * is twice as long (up to LAT_HOLD_MAX epochs): each probe for more
 * costs the latency class a few slow requests. Growth also waits until
 * the worst is within an eighth of the best.
 *
 * The cap never goes below a third of the depth: a latency class may cost
 * the bandwidth classes at most about half of what the device serves at
 * once. The depth lets the device queue until its latency is 1.5 to 2
 * times the least (nqs_adapt()), so it holds 1.5 to 2 times that; half the
 * depth, the floor before, is then all of it, and on a device of few
 * slots no slot was left for the latency class's read (sched_test
 * latency_slow: 6 slots of 24 ms, p99 2x). Latency that more throttling
 * would still not fix (a host short of CPU) then stays.
 */
static void latency_adapt(struct nqs_domain *d, u64 now)
{
	u64 worst = d->lat_worst, best = min(d->lat_min[0], d->lat_min[1]);

	d->lat_worst = 0;
	d->lat_on = latency_active(d, now);
	if (!d->lat_on || best == ~0ULL) {
		d->lat_cap = d->depth;
		d->lat_hold = 1;
		return;
	}
	if (worst && 4 * worst > 5 * best) {
		if (d->grow_hold && now >= d->grow_hold &&
		    now < d->grow_hold + EPOCH_NS)
			d->lat_hold = min(2 * d->lat_hold, LAT_HOLD_MAX);
		d->grow_hold = now + d->lat_hold * EPOCH_NS;
		d->lat_cap -= d->lat_cap / 8;
	} else if (d->win_limited && now >= d->grow_hold &&
		   8 * worst <= 9 * best) {
		d->lat_cap += d->lat_cap / 8 + 1;
	}
	d->lat_cap = min(max(d->lat_cap, d->depth / 3), d->depth);
}

/*
 * One window's verdict on the depth; see sched.h. Small requests are also
 * judged on their own: their latency is what queueing in the device hurts
 * most, and in a mixed window the large requests' latency per cost unit
 * would hide it.
 */
void nqs_adapt(struct nqs_domain *d, u64 now)
{
	u64 lpc = lpc_of(d->win_lat, d->win_cost);
	u64 lpc_s = d->win_ios_s >= 4 ? lpc_of(d->win_lat_s, d->win_cost_s) : ~0ULL;
	bool small = lpc_s != ~0ULL;
	u64 m, ms;

	rate_update(d, now);
	if (probe(d, lpc, lpc_s, now))
		goto out;
	d->lpc_min[0] = min(d->lpc_min[0], lpc);
	d->lpc_min_s[0] = min(d->lpc_min_s[0], lpc_s);
	m = min(d->lpc_min[0], d->lpc_min[1]);
	ms = min(d->lpc_min_s[0], d->lpc_min_s[1]);
	if (ms == ~0ULL)
		small = false;

	if (lpc > 2 * m || (small && lpc_s > 2 * ms))
		d->depth -= d->depth / 8;
	else if (d->depth_limited && 2 * lpc <= 3 * m &&
		 (!small || 2 * lpc_s <= 3 * ms))
		d->depth += d->depth / 8 + 1;
	d->depth = max(d->depth, depth_floor(d));
	d->depth = min(max(d->depth, d->depth_min), d->depth_max);
	latency_adapt(d, now);
out:
	window_reset(d, now);
}
