// SPDX-License-Identifier: GPL-2.0
/*
 * Slices (../lease.c): while the device has room, requests are admitted
 * and completed without asking the domain, that is without the module's
 * device-wide lock; one class at its ceiling does not change that for
 * the others; and the books balance to the request once the leases are
 * back. The scheduler's guarantees with slices are the sims' own tests
 * run again (SLICED() in sched_test.c).
 */
#include <stdio.h>

#include "ktap.h"

/*
 * A sim whose requests go through @slices slices, on a device of @slots
 * parallel slots whose tags are known (0: the in-order device).
 */
static void sliced_init(struct sim *s, u32 slices, u32 classes, u32 hosts,
			u64 bps, u64 lat_ns, u32 slots)
{
	sim_slices = slices;
	sim_init(s, classes, hosts, bps, lat_ns);
	sim_slices = 0;
	s->dev_slots = slots;
	if (slots)
		nqs_domain_set_tags(&s->dom, slots);
}

/*
 * 8 hosts of 4 KiB reads at QD 2 on 4 slices, on a device of 64 slots of
 * 100 us: it never fills. @capped: 2 more hosts of 128 KiB reads at QD 8
 * in a class of their own, capped at 10 MB/s, so that it holds requests
 * all the time. Returns the small hosts' calls of the domain per read, the
 * dispatcher's aside; *@fast the share of their reads a slice admitted.
 */
static double fast_run(u32 slices, bool capped, double *fast, double *cap_mb)
{
	struct nqs_class_conf k = { .weight = 100, .ceil_bps = 10 * MB };
	u32 i, n = capped ? 10 : 8;
	u64 ios = 0, locked = 0, win;
	struct sim s;

	sliced_init(&s, slices, 2, n, 10000 * MB, 100000, 64);
	nqs_class_set_conf(&s.classes[1], &k, 0);
	for (i = 0; i < n; i++) {
		struct sim_host *h = &s.hosts[i];

		nqs_flow_set_class(&s.dom, &h->flow, &s.classes[i >= 8]);
		h->bs = i >= 8 ? 128 << 10 : 4096;
		h->qd = i >= 8 ? 8 : 2;
	}
	sim_start(&s);
	sim_run(&s, 200 * MS);
	sim_reset_window(&s);
	s.fast_ios = 0;
	win = 1 * SEC;
	sim_run(&s, s.now + win);
	for (i = 0; i < 8; i++) {
		ios += s.hosts[i].ios;
		locked += s.hosts[i].locked;
	}
	*fast = ios ? 100.0 * s.fast_ios / ios : 0;
	*cap_mb = sim_class_bps(&s, 1, win) / MB;
	sim_free(&s);
	return ios ? (double)locked / ios : 0;
}

/*
 * 64 slices, as many CPUs, and 2 hosts of 4 KiB reads at QD 32, each on
 * a slice, on a device of 256 slots of 100 us whose depth is held at 128
 * reads: a slice keeps a lease of 1 / (2 x 64) of it, one read, and stays
 * on its own only by the room its completions bring back. Returns the
 * hosts' calls of the domain per read.
 */
static double deep_run(double *fast)
{
	u64 ios = 0, locked = 0;
	struct sim s;
	u32 i;

	sliced_init(&s, 64, 1, 2, 10000 * MB, 100000, 256);
	/* a depth of 128 reads that does not grow */
	s.dom.depth = s.dom.depth_max = 1 << 20;
	for (i = 0; i < 2; i++) {
		s.hosts[i].bs = 4096;
		s.hosts[i].qd = 32;
	}
	sim_start(&s);
	sim_run(&s, 200 * MS);
	sim_reset_window(&s);
	s.fast_ios = 0;
	sim_run(&s, s.now + 1 * SEC);
	for (i = 0; i < 2; i++) {
		ios += s.hosts[i].ios;
		locked += s.hosts[i].locked;
	}
	*fast = ios ? 100.0 * s.fast_ios / ios : 0;
	sim_free(&s);
	return ios ? (double)locked / ios : 0;
}

void test_slices_fast(void)
{
	double locked, fast, cap, base;
	bool ok;

	base = fast_run(0, false, &fast, &cap);
	printf("# no slices: %.2f calls of the domain per read\n", base);
	locked = fast_run(4, false, &fast, &cap);
	printf("# 4 slices: %.3f calls per read, %.1f%% admitted on a slice\n",
	       locked, fast);
	ok = fast >= 95 && locked <= 0.1;
	locked = fast_run(4, true, &fast, &cap);
	printf("# beside a class at its ceiling: %.3f calls per read, %.1f%% on a slice; capped class %.2f MB/s\n",
	       locked, fast, cap);
	ok &= fast >= 95 && locked <= 0.1;
	ok &= near(cap, 10, 0.5, "capped class, MB/s");
	locked = deep_run(&fast);
	printf("# 64 slices, 2 hosts at QD 32: %.3f calls per read, %.1f%% on a slice\n",
	       locked, fast);
	ok &= fast >= 95 && locked <= 0.1;
	result(ok, "a device with room admits without its domain, beside a capped class too");
}

/* Every book of the domain and its classes at rest. */
static bool books_clear(struct sim *s, u64 issued)
{
	u64 disp = 0, cost = 0;
	bool ok;
	u32 i;

	for (i = 0; i < s->nr_classes; i++) {
		disp += s->classes[i].disp_ios;
		cost += s->classes[i].disp_cost;
	}
	printf("# at rest: in flight %llu units, %u requests, %llu latency units; %u leases; %llu queued; %llu charged of %llu issued\n",
	       (unsigned long long)s->dom.inflight, s->dom.inflight_ios,
	       (unsigned long long)s->dom.lat_inflight, s->dom.nr_leases,
	       (unsigned long long)s->dom.nr_queued,
	       (unsigned long long)disp, (unsigned long long)issued);
	ok = !s->dom.inflight && !s->dom.inflight_ios && !s->dom.lat_inflight &&
	     !s->dom.nr_leases && !s->dom.nr_queued;
	return ok && disp == issued && cost == s->dom.completed_cost;
}

/*
 * Hosts of three classes (one capped, one a latency class) on 3 slices
 * of a device with tags, their queue depths and weights changed every
 * 50 ms, some saturating and some not: then all stop, and once the
 * leases are back nothing is left in flight, leased or held, and every
 * request was charged to its class once.
 */
void test_slices_books(void)
{
	struct nqs_class_conf cap = { .weight = 50, .ceil_bps = 30 * MB };
	struct nqs_class_conf lat = { .weight = 30, .latency = true };
	u64 issued = 0, rng = 0x853c49e6748fea9bULL;
	struct sim s;
	u32 i, step;
	bool ok;

	sliced_init(&s, 3, 3, 12, 200 * MB, 200000, 16);
	nqs_class_set_conf(&s.classes[1], &cap, 0);
	nqs_class_set_conf(&s.classes[2], &lat, 0);
	for (i = 0; i < s.nr_hosts; i++)
		s.hosts[i].bs = i % 3 == 2 ? 4096 : (i % 2 ? 65536 : 16384);
	sim_start(&s);
	for (step = 0; step < 60; step++) {
		for (i = 0; i < s.nr_hosts; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			s.hosts[i].qd = rng % 5 ? (u32)(rng >> 8) % 16 : 0;
		}
		if (step % 5 == 0)
			set_weight(&s, 0, 10 + step % 90);
		sim_run(&s, s.now + 50 * MS);
	}
	for (i = 0; i < s.nr_hosts; i++)
		s.hosts[i].qd = 0;
	sim_run(&s, s.now + 2 * SEC);
	sim_reclaim(&s);
	for (i = 0; i < s.nr_hosts; i++)
		issued += s.hosts[i].ios;
	ok = issued > 10000 && books_clear(&s, issued);
	result(ok, "the books balance with slices, leases back");
	sim_free(&s);
}

/*
 * 16 hosts that each send a request, wait for it and pause @think_ns, on
 * @slices slices of a device with room: 8 of 128 KiB reads in a class
 * capped at 20 MB/s, 8 of 4 KiB reads in one capped at 2,000 IOPS, the
 * second pausing a thirteenth as long. *@fast: the share of requests a
 * slice admitted.
 */
static void open_run(u32 slices, u64 think_ns, double *mb, double *iops,
		     double *fast)
{
	struct nqs_class_conf kb = { .weight = 100, .ceil_bps = 20 * MB };
	struct nqs_class_conf ki = { .weight = 100, .ceil_iops = 2000 };
	u64 ios = 0, win = 5 * SEC;
	struct sim s;
	u32 i;

	sliced_init(&s, slices, 2, 16, 10000 * MB, 100000, 64);
	nqs_class_set_conf(&s.classes[0], &kb, 0);
	nqs_class_set_conf(&s.classes[1], &ki, 0);
	for (i = 0; i < s.nr_hosts; i++) {
		struct sim_host *h = &s.hosts[i];

		h->qd = 1;
		h->bs = i % 2 ? 4096 : 128 << 10;
		h->think_ns = (u32)(i % 2 ? think_ns / 13 : think_ns);
	}
	sim_start(&s);
	sim_run(&s, 1 * SEC);
	sim_reset_window(&s);
	s.fast_ios = 0;
	sim_run(&s, s.now + win);
	for (i = 0; i < s.nr_hosts; i++)
		ios += s.hosts[i].ios;
	*mb = sim_class_bps(&s, 0, win) / MB;
	*iops = 0;
	for (i = 1; i < s.nr_hosts; i += 2)
		*iops += s.hosts[i].ios * 1e9 / win;
	*fast = ios ? 100.0 * s.fast_ios / ios : 0;
	sim_free(&s);
}

/*
 * Of a class's tokens leased to 8 slices, as much as the bucket held is
 * admitted, and no more: in turn on each slice, a slow admission and a
 * grant, then 4 KiB reads until the slice refuses one; until the domain
 * refuses one too, even with the slices' tokens back (nqs_slice_drop(), as
 * the glue does on nqs_slice_refused()). The clock stands still.
 */
static bool tokens_exact(const struct nqs_class_conf *k, u64 *got, u64 *had)
{
	static struct nqs_req rq[4096];
	struct nqs_slice sl[8];
	struct nqs_domain d;
	struct nqs_class c;
	struct nqs_flow f;
	u64 now = 1 * MS;
	u32 i, n = 0;

	nqs_domain_init(&d, now);
	nqs_class_init(&c, k, now);
	nqs_flow_init(&f, &c, 100);
	*had = k->ceil_bps ? (u64)c.ceil_b.tokens : (u64)c.ceil_i.tokens;
	*got = 0;
	for (i = 0; i < 8; i++)
		nqs_slice_init(&sl[i]);
	for (i = 0; n < 4095; i = (i + 1) % 8) {
		u32 j;

		rq[n] = (struct nqs_req){ .flow = &f, .bytes = 4096 };
		if (!nqs_admit(&d, &rq[n], now)) {
			if (nqs_slice_refused(&d, &c, now) != NQS_TAKE_CLASS)
				return true;
			for (j = 0; j < 8; j++)
				nqs_slice_drop(&d, &sl[j], &c, now);
			if (!nqs_admit(&d, &rq[n], now))
				return true;
		}
		n++;
		*got += k->ceil_bps ? 4096 : 1;
		nqs_slice_grant(&d, &sl[i], &c, 0, 8, now);
		while (n < 4095) {
			rq[n] = (struct nqs_req){ .flow = &f, .bytes = 4096 };
			if (!nqs_slice_submit(&sl[i], &rq[n++], now))
				break;
			*got += k->ceil_bps ? 4096 : 1;
		}
	}
	return false;
}

/*
 * Ceilings where slices admit much of a class's work. Offered twice the
 * ceilings, the classes hold requests all the time and slices admit none
 * of theirs: the ceilings are kept as under the lock. Offered a little
 * below them, slices admit most requests, and every host gets what it
 * asks, as without slices: no lease keeps tokens from the class.
 */
void test_slices_ceilings(void)
{
	struct nqs_class_conf kb = { .weight = 100, .ceil_bps = 20 * MB };
	struct nqs_class_conf ki = { .weight = 100, .ceil_iops = 2000 };
	double mb, iops, fast, mb0, iops0;
	u64 got, had;
	bool ok;

	open_run(8, 26 * MS, &mb, &iops, &fast);
	printf("# offered twice the ceilings: %.1f%% admitted on a slice\n",
	       fast);
	ok = near(mb, 20, 0.4, "byte ceiling 20 MB/s, MB/s");
	ok &= near(iops, 2000, 40, "IOPS ceiling 2,000, IOPS");
	open_run(0, 55 * MS, &mb0, &iops0, &fast);
	open_run(8, 55 * MS, &mb, &iops, &fast);
	printf("# offered 95%% of the ceilings: %.1f%% admitted on a slice\n",
	       fast);
	ok &= fast >= 30;
	ok &= near(mb, mb0, mb0 / 100, "MB/s, against without slices");
	ok &= near(iops, iops0, iops0 / 100, "IOPS, against without slices");
	ok &= tokens_exact(&kb, &got, &had);
	printf("# byte ceiling's burst on 8 slices: %llu bytes admitted of %llu\n",
	       (unsigned long long)got, (unsigned long long)had);
	ok &= got >= had && got <= had + 4096;
	ok &= tokens_exact(&ki, &got, &had);
	printf("# IOPS ceiling's burst on 8 slices: %llu reads admitted of %llu\n",
	       (unsigned long long)got, (unsigned long long)had);
	ok &= got >= had && got <= had + 1;
	result(ok, "ceilings hold where slices admit a class's requests");
}
