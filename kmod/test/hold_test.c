// SPDX-License-Identifier: GPL-2.0
/*
 * A bound on how long a request is held at a time (nqs_expire()), with a
 * host that sends a command again at once when asked to, as Linux's does
 * for a retryable status (up to nvme_core.max_retries, 5).
 *
 * The case that needs it: a host keeping 128 writes of 1 MiB outstanding
 * against a 1 MB/s ceiling. Whatever the order, each write then waits
 * about 134 s (Little's law), far past a host's 30 s I/O timeout. Held at
 * most 25 s at a time and asked to retry, a write must keep its place by
 * the time it was first sent, or its retries run out before its turn.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ktap.h"

#define QD		128
#define BS		(1 << 20)
#define CEIL		(1 * MB)
#define HOLD		(25 * SEC)
#define RETRIES		5	/* Linux's nvme_core.max_retries */
#define STEP		(10 * MS)

struct host_req {
	struct nqs_req r;
	u64 sent;		/* first sent by the host */
	unsigned int asked;	/* times asked to retry */
};

struct hold_run {
	u64 bytes;		/* completed in the measured window */
	u64 max_hold;		/* longest held at one time */
	u64 max_lat;		/* first sent to completed */
	unsigned int max_asked;	/* of a completed command */
	unsigned int over;	/* commands asked more than RETRIES times */
	unsigned int forced;	/* dispatched past the ceiling */
};

static void send(struct nqs_domain *d, struct nqs_flow *f,
		 struct host_req *q, bool keep_place, u64 now,
		 struct host_req **dev, unsigned int *nr_dev)
{
	if (!q->asked) {
		q->r = (struct nqs_req){ .flow = f, .bytes = BS, .write = true };
		q->sent = now;
	} else {
		q->r.retried = keep_place ? q->asked : 0;
		q->r.first_ns = keep_place ? q->sent : 0;
	}
	if (nqs_submit(d, &q->r, now))
		dev[(*nr_dev)++] = q;
}

/* @secs of the host against the ceiling, with or without keeping places. */
static void hold_run(bool keep_place, u64 secs, struct hold_run *out)
{
	struct nqs_class_conf k = { .weight = 100, .ceil_bps = CEIL };
	static struct host_req reqs[QD], *dev[QD];
	struct nqs_domain d;
	struct nqs_class c;
	struct nqs_flow f;
	unsigned int i, nr_dev = 0, n;
	struct nqs_req *r;
	bool dispatched;
	u64 now = SEC;

	*out = (struct hold_run){ 0 };
	nqs_domain_init(&d, 0);
	nqs_class_init(&c, &k, 0);
	nqs_flow_init(&f, &c, 100);
	for (i = 0; i < QD; i++) {
		reqs[i].asked = 0;
		send(&d, &f, &reqs[i], keep_place, now, dev, &nr_dev);
	}
	for (; now < secs * SEC; now += STEP) {
		/* What went to the device last step completes now. */
		n = nr_dev;
		nr_dev = 0;
		for (i = 0; i < n; i++) {
			struct host_req *q = dev[i];

			nqs_complete(&d, &q->r, STEP, now);
			if (now > 50 * SEC)
				out->bytes += BS;
			if (q->r.wait_ns > out->max_hold)
				out->max_hold = q->r.wait_ns;
			if (now - q->sent > out->max_lat)
				out->max_lat = now - q->sent;
			if (q->asked > out->max_asked)
				out->max_asked = q->asked;
			q->asked = 0;
			send(&d, &f, q, keep_place, now, dev, &nr_dev);
		}
		while ((r = nqs_expire(&d, now, HOLD, RETRIES, 0, &dispatched))) {
			struct host_req *q = (struct host_req *)r;

			if (r->wait_ns > out->max_hold)
				out->max_hold = r->wait_ns;
			if (dispatched) {
				out->forced++;
				dev[nr_dev++] = q;
				continue;
			}
			if (++q->asked == RETRIES + 1)
				out->over++;
			send(&d, &f, q, keep_place, now, dev, &nr_dev);
		}
		while ((r = nqs_next(&d, 0, now)))
			dev[nr_dev++] = (struct host_req *)r;
	}
}

void test_hold_bound(void)
{
	struct hold_run kept, lost;
	double rate;

	hold_run(true, 400, &kept);
	hold_run(false, 400, &lost);
	rate = kept.bytes / 350.0;
	printf("# QD%d x 1 MiB against %llu B/s, held at most %llu s at a time, %d retries: %.0f B/s, longest hold %.2f s, longest command %.1f s, most retries asked %u, past the ceiling %u\n",
	       QD, (unsigned long long)CEIL, (unsigned long long)(HOLD / SEC),
	       RETRIES, rate, kept.max_hold / 1e9, kept.max_lat / 1e9,
	       kept.max_asked, kept.forced);
	printf("# the same with retried commands sent to the back: %u commands asked to retry more than %d times\n",
	       lost.over, RETRIES);
	result(kept.max_hold <= HOLD + STEP && kept.max_asked <= RETRIES &&
	       !kept.over && !kept.forced &&
	       rate >= 0.99 * CEIL && rate <= 1.01 * CEIL && lost.over > 0,
	       "held at most 25 s at a time, no command asked to retry more than 5 times, ceiling within 1%");
}
