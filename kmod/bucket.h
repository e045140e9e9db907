/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Token buckets, for the classes' ceilings and the device's capacity hint.
 * Part of the scheduler core (plain C, see sched_env.h), included by
 * sched.c alone: every request it admits refills and charges them, so
 * they stay in its unit, compiled as when they were in sched.c.
 * bucket_refill() is static but not inline for that reason: marked
 * inline, it was inlined at each call and sched.o grew by 1.3 KiB.
 */
#ifndef _NQ_BUCKET_H
#define _NQ_BUCKET_H

#include "sched.h"

/*
 * Bounds that keep the token arithmetic finite whatever the rate (down to
 * 1/s) and however many held requests are released at once: a bucket's
 * debt stays below 2^62 and pays off within 2^60 ns.
 */
#define DEBT_MAX	(1LL << 62)
#define DEBT_MAX_NS	(1ULL << 60)
#define REFILL_MAX_NS	(10 * NQS_NSEC)
/* Of a ceiling's time while its class waits, kept beyond the burst. */
#define LATE_MAX_NS	(250ULL * 1000 * 1000)

/*
 * Token buckets for ceilings. Tokens may go negative: a large request
 * borrows and the class waits until the debt is paid. The deepest debt is
 * what the rate pays off in DEBT_MAX_NS, so that neither the tokens nor
 * the time they are paid by can overflow.
 */
static inline s64 bucket_debt_max(const struct nqs_bucket *b)
{
	return -(s64)min(nqs_mul_div(b->rate, DEBT_MAX_NS, NQS_NSEC),
			 (u64)DEBT_MAX);
}

static inline void bucket_set(struct nqs_bucket *b, u64 rate, u64 cap, u64 now)
{
	bool was_unlimited = !b->rate;

	b->rate = rate;
	b->cap = cap;
	if (was_unlimited || b->tokens > (s64)cap) {
		b->tokens = cap;
		b->last = now;
	}
	if (rate)
		b->tokens = max(b->tokens, bucket_debt_max(b));
}

/*
 * Add the tokens earned up to @now, up to the cap. A bucket whose class
 * had requests waiting since the last refill (@waiting now, and then)
 * keeps, beyond the cap, up to LATE_MAX_NS of its rate: when the
 * dispatcher runs late (a busy CPU, a VM's CPUs taken away), what the
 * ceiling allowed in the meantime goes then instead of being lost, and
 * the class moves its ceiling over time. At 6 MB/s with 128 KiB reads
 * the default burst, 256 KiB, is 43 ms; the class lost 11% of its
 * ceiling to releases late by a mean of 25 ms. A class that went idle
 * in between earns only the burst, as before.
 */
static void bucket_refill(struct nqs_bucket *b, u64 now, bool waiting)
{
	bool late = waiting && b->waited && !nq_mutant(late_credit);
	u64 dt, add, cap = b->cap;

	b->waited = waiting;
	if (!b->rate || now <= b->last)
		return;
	if (late)
		cap += nqs_mul_div(b->rate, LATE_MAX_NS, NQS_NSEC);
	dt = min(now - b->last, REFILL_MAX_NS);
	add = nqs_mul_div(b->rate, dt, NQS_NSEC);
	if (b->tokens + (s64)add >= (s64)cap) {
		b->tokens = cap;
		b->last = now;
		return;
	}
	b->tokens += add;
	/* Advance only by the time that produced whole tokens. */
	b->last = now - dt + nqs_mul_div(add, NQS_NSEC, b->rate);
}

/*
 * Only a bucket with a rate counts: an unlimited one never goes into debt.
 * A release of many held requests at once may charge more than a bounded
 * debt; the rest is forgiven.
 */
static inline void bucket_take(struct nqs_bucket *b, u64 n)
{
	s64 floor = bucket_debt_max(b);

	if (!b->rate)
		return;
	n = min(n, (u64)DEBT_MAX);
	b->tokens = b->tokens - (s64)n < floor ? floor : b->tokens - (s64)n;
}

static inline bool bucket_ok(const struct nqs_bucket *b)
{
	return !b->rate || b->tokens >= 0;
}

/* Bring @b up to @now, then whether it allows a dispatch. */
static inline bool bucket_allows(struct nqs_bucket *b, u64 now, bool waiting)
{
	bucket_refill(b, now, waiting);
	return bucket_ok(b);
}

/* When the bucket's debt will be paid, in ns; 0 if it is not in debt. */
static inline u64 bucket_ready_at(const struct nqs_bucket *b)
{
	u64 wait;

	if (bucket_ok(b))
		return 0;
	wait = min(nqs_mul_div((u64)-b->tokens, NQS_NSEC, b->rate), DEBT_MAX_NS);
	return b->last + wait + 1;
}

#endif /* _NQ_BUCKET_H */
