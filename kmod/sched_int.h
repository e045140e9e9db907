/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scheduler core's files share among themselves (sched.h is
 * what they share with the glue): the depth's adaptation (depth.c), which
 * the completion path (sched.c) calls when a window closes.
 */
#ifndef _NQ_SCHED_INT_H
#define _NQ_SCHED_INT_H

#include "sched.h"

/* Judge the depth and the latency cap by the window, and start the next. */
void nqs_adapt(struct nqs_domain *d, u64 now);

#endif /* _NQ_SCHED_INT_H */
