/* SPDX-License-Identifier: GPL-2.0 */
/* What the test files of the scheduler core share: KTAP results, checks. */
#ifndef _NQ_KTAP_H
#define _NQ_KTAP_H

#include "sim.h"

#define MS	1000000ULL
#define SEC	1000000000ULL
#define MB	1000000ULL

void result(bool ok, const char *name);
bool near(double got, double want, double tol, const char *what);
void set_weight(struct sim *s, u32 cls, u32 w);
u64 measure(struct sim *s, u64 warm, u64 window);

/* scale_test.c: what only shows at the array's speed and size. */
void test_vtime_wrap(void);
void test_rates(void);
void test_op_cost(void);
void test_extremes(void);
void test_drr_bounded(void);
void test_host_weights(void);
void test_latency_vs_floor(void);

/* hold_test.c: a bound on how long a request is held at a time. */
void test_hold_bound(void);

/* fast_test.c: admission on submission while requests are held. */
void test_capped_fast(void);
void test_complete_kick(void);
void test_latency_fast(void);

/* slice_test.c: admission without the domain's lock. */
void test_slices_fast(void);
void test_slices_books(void);
void test_slices_ceilings(void);

/* hwq_test.c: tags per hardware queue. */
void test_queues_apart(void);
void test_queues_together(void);
void test_queues_sliced(void);
void test_queues_elsewhere(void);
void test_stripe_rules(void);
void test_stripe_wide(void);

#endif
