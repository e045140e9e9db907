// SPDX-License-Identifier: GPL-2.0
/*
 * Admission on submission while requests are held. A request goes to the
 * device at once when its class holds nothing and nothing held could go
 * now: with only classes above their ceiling holding requests, another
 * class's request is admitted, where before any held request anywhere on
 * the device sent it to the queue (and so through the module's
 * dispatcher). A held request that waits for room keeps its turn.
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
	for (i = 0; i < 64 && !held; i++) {
		if (submit(&d, &fc, &rq[i], BIG, now))
			nc = i + 1;
		else
			held = true;
	}
	ok &= held && !nqs_next(&d, now);
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
	held = false;
	for (i = 0; i < 64 && !held; i++) {
		if (submit(&d, &ff, &fr[i], BIG, now))
			nf = i + 1;
		else
			held = true;
	}
	ok &= held;
	/* A completion makes room: the held read has the turn. */
	nqs_complete(&d, &fr[0], 100000, now);
	ok &= !submit(&d, &ft, &other, SMALL, now);
	printf("# %u reads fill the device; after one completes, a third class's read is %s\n",
	       nf, other.queued_ns ? "held behind the one waiting for room" : "admitted");
	result(ok, "capped_fast: a class at its ceiling holds only its own requests");
}
