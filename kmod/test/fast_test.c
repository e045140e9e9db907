// SPDX-License-Identifier: GPL-2.0
/*
 * Admission on submission while requests are held. A request goes to the
 * device at once when its class holds nothing and nothing held could go
 * now: with only classes above their ceiling holding requests, another
 * class's request is admitted, where before any held request anywhere on
 * the device sent it to the queue (and so through the module's
 * dispatcher). A held request that waits for room keeps its turn.
 *
 * Completions wake the caller's dispatcher only when a held request may
 * go: not while the classes holding requests wait for their ceiling to
 * refill, which the caller's timer is set for.
 */
#include <stdio.h>

#include "ktap.h"

#define BIG		(128 << 10)
#define SMALL		4096

static bool submit(struct nqs_domain *d, struct nqs_flow *f, struct nqs_req *r,
		   u32 bytes, u64 now)
{
	*r = (struct nqs_req){ .flow = f, .bytes = bytes };
	return nqs_submit(d, r, now);
}

/*
 * Submit BIG reads of @f from @rq until one is held (true) or 64 were
 * admitted (false); *@n the number admitted before.
 */
static bool fill(struct nqs_domain *d, struct nqs_flow *f, struct nqs_req *rq,
		 u32 *n, u64 now)
{
	u32 i;

	for (i = 0; i < 64; i++) {
		if (!submit(d, f, &rq[i], BIG, now)) {
			*n = i;
			return true;
		}
	}
	*n = i;
	return false;
}

void test_capped_fast(void)
{
	struct nqs_class_conf capped = { .weight = 100, .ceil_bps = 1 * MB };
	struct nqs_class_conf plain = { .weight = 100 };
	static struct nqs_req rq[64], fr[64], one, other, mine;
	struct nqs_class cc, cf, ct;
	struct nqs_flow fc, ff, ft;
	struct nqs_domain d;
	u64 now = 1 * MS;
	u32 i, nc = 0, nf = 0;
	bool ok = true, held = false;

	nqs_domain_init(&d, now);
	nqs_class_init(&cc, &capped, now);
	nqs_class_init(&cf, &plain, now);
	nqs_class_init(&ct, &plain, now);
	nqs_flow_init(&fc, &cc, 100);
	nqs_flow_init(&ff, &cf, 100);
	nqs_flow_init(&ft, &ct, 100);

	/* The capped class spends its burst, then has reads held. */
	held = fill(&d, &fc, rq, &nc, now);
	ok &= held && !nqs_next(&d, 0, now);
	printf("# capped class: %u reads admitted, then held at its ceiling\n", nc);
	ok &= submit(&d, &ff, &one, SMALL, now);
	printf("# another class's read while only the capped one holds: %s\n",
	       one.queued_ns ? "held" : "admitted");
	ok &= !submit(&d, &fc, &mine, SMALL, now);
	printf("# the capped class's own next read: %s\n",
	       mine.queued_ns ? "held" : "admitted");

	/* Fill the device with another class until it waits for room. */
	nqs_complete(&d, &one, 100000, now);
	for (i = 0; i < nc; i++)
		nqs_complete(&d, &rq[i], 100000, now);
	held = fill(&d, &ff, fr, &nf, now);
	ok &= held && nf > 0 && !fr[nf - 1].queued_ns;
	/* A completion makes room: the held read has the turn. */
	nqs_complete(&d, &fr[0], 100000, now);
	ok &= !submit(&d, &ft, &other, SMALL, now);
	printf("# %u reads fill the device; after one completes, a third class's read is %s\n",
	       nf, other.queued_ns ? "held behind the one waiting for room" : "admitted");
	result(ok, "capped_fast: a class at its ceiling holds only its own requests");
}

void test_complete_kick(void)
{
	struct nqs_class_conf capped = { .weight = 100, .ceil_bps = 1 * MB };
	struct nqs_class_conf plain = { .weight = 100 };
	static struct nqs_req rq[64], fr[64], one[4];
	struct nqs_class cc, cf;
	struct nqs_flow fc, ff;
	struct nqs_domain d;
	u64 now = 1 * MS;
	u32 i, nf = 0;
	bool ok = true, held = false, kick;
	u64 t;

	nqs_domain_init(&d, now);
	nqs_class_init(&cc, &capped, now);
	nqs_class_init(&cf, &plain, now);
	nqs_flow_init(&fc, &cc, 100);
	nqs_flow_init(&ff, &cf, 100);

	ok &= fill(&d, &fc, rq, &nf, now);
	for (i = 0; i < 4; i++)
		ok &= submit(&d, &ff, &one[i], SMALL, now);
	t = nqs_complete(&d, &one[0], 100000, now + 10000);
	kick = nqs_due(t, now + 10000);
	ok &= !kick && t > now + 10000 && !d.kick_ns;
	printf("# another class's completion while only the capped class holds: %s\n",
	       kick ? "wakes the dispatcher" : "wakes nobody, gives the refill");
	t = nqs_complete(&d, &one[1], 100000, now + 2 * NQS_NSEC);
	kick = nqs_due(t, now + 2 * NQS_NSEC);
	ok &= kick && d.kick_ns;
	printf("# the same once the ceiling has refilled: %s\n",
	       kick ? "wakes the dispatcher" : "wakes nobody");

	/* A device full of another class's reads: a completion makes room. */
	nqs_domain_init(&d, now);
	nqs_class_init(&cf, &plain, now);
	nqs_flow_init(&ff, &cf, 100);
	held = fill(&d, &ff, fr, &nf, now);
	ok &= held && nf > 0;
	t = nqs_complete(&d, &fr[0], 100000, now);
	kick = nqs_due(t, now);
	ok &= kick;
	printf("# a completion on a full device with %u reads: %s\n", nf,
	       kick ? "wakes the dispatcher" : "wakes nobody");
	result(ok, "complete_kick: completions wake the dispatcher only when a held request may go");
}

/* A device with a latency class of 30 and a bulk class of 70, one host each. */
struct lat_dev {
	struct nqs_domain d;
	struct nqs_class cl, cb;
	struct nqs_flow fl, fb;
};

static void lat_dev_init(struct lat_dev *x, u32 tags, u64 now)
{
	static const struct nqs_class_conf lat = { .weight = 30, .latency = true };
	static const struct nqs_class_conf plain = { .weight = 70 };

	nqs_domain_init(&x->d, now);
	nqs_domain_set_tags(&x->d, tags);
	nqs_class_init(&x->cl, &lat, now);
	nqs_class_init(&x->cb, &plain, now);
	nqs_flow_init(&x->fl, &x->cl, 100);
	nqs_flow_init(&x->fb, &x->cb, 100);
}

/*
 * A latency class's small read goes at once when it is what the dispatcher
 * would take next anyway, even with other classes' requests held, on a
 * device whose tags are known: not a larger read of its class, not before
 * a class urgently below its floor, and not where the tags are unknown.
 */
void test_latency_fast(void)
{
	struct nqs_class_conf floor = { .weight = 10, .floor_bps = 100 * MB };
	static struct nqs_req br[64], fr, a, big, b;
	static struct lat_dev x;
	struct nqs_class cf;
	struct nqs_flow ff;
	u64 now = 1 * MS;
	u32 nb = 0, t;
	bool ok = true;

	/* A completion makes room for a held bulk read; no dispatcher yet. */
	for (t = 0; t < 2; t++) {
		lat_dev_init(&x, t ? 0 : 256, now);
		ok &= fill(&x.d, &x.fb, br, &nb, now);
		nqs_complete(&x.d, &br[0], 100000, now);
		ok &= submit(&x.d, &x.fl, &a, SMALL, now) == !t;
		printf("# tags %s: a latency class's read while a bulk read waits for the dispatcher: %s\n",
		       t ? "unknown" : "256", a.queued_ns ? "held" : "admitted");
		if (t)
			continue;
		nqs_complete(&x.d, &a, 100000, now);
		ok &= !submit(&x.d, &x.fl, &big, BIG, now);
		printf("# tags 256: then its 128 KiB read: %s\n",
		       big.queued_ns ? "held" : "admitted");
	}

	/* A floor class held 20 ms goes first. */
	lat_dev_init(&x, 256, now);
	nqs_class_init(&cf, &floor, now);
	nqs_flow_init(&ff, &cf, 100);
	ok &= fill(&x.d, &x.fb, br, &nb, now);
	ok &= !submit(&x.d, &ff, &fr, SMALL, now);
	now += 20 * MS;
	nqs_complete(&x.d, &br[0], 100000, now);
	ok &= !submit(&x.d, &x.fl, &b, SMALL, now);
	printf("# a latency class's read beside a floor class held 20 ms: %s\n",
	       b.queued_ns ? "held" : "admitted");

	/*
	 * 4 tags, all taken by bulk reads before the latency class counts as
	 * active: its read needs a tag, or it would sleep for one in nvmet.
	 */
	lat_dev_init(&x, 4, now);
	ok &= fill(&x.d, &x.fb, br, &nb, now) && nb > 4;
	ok &= !submit(&x.d, &x.fl, &b, SMALL, now) && !nqs_next(&x.d, 0, now);
	printf("# 4 tags, %u bulk reads in flight: a latency class's read is %s\n",
	       nb, b.queued_ns ? "held" : "admitted");
	result(ok, "latency_fast: a latency class's read next in line goes at once");
}
