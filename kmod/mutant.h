/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mutation checks (scripts/check-mutants): a build of the module with one
 * enforcement feature broken on purpose, to show that the tests claiming
 * that feature fail. A test no mutant can make fail proves nothing.
 *
 * NQ_MUTANT is defined only in mutant_build.h, which scripts/kmod-for
 * --mutant writes into a build tree of its own (build/kmod-*-mutant-*),
 * never into kmod/: no build of the sources as they are enables a mutant,
 * and in every other build nq_mutant() is the constant 0 and what it
 * guards compiles away. A mutant module says so when it loads and in its
 * modinfo ("mutant").
 */
#ifndef _NQ_MUTANT_H
#define _NQ_MUTANT_H

#define NQ_MUT_shares		1	/* every class weighs the same */
#define NQ_MUT_weights		2	/* every host of a class weighs the same */
#define NQ_MUT_floors		3	/* no class is ever below its floor */
#define NQ_MUT_ceil_bytes	4	/* byte ceilings allow everything */
#define NQ_MUT_ceil_iops	5	/* IOPS ceilings allow everything */
#define NQ_MUT_burst		6	/* a set burst is the default one */
#define NQ_MUT_latency		7	/* a latency class is a bandwidth class */
#define NQ_MUT_depth		8	/* the depth is always its maximum */
#define NQ_MUT_host_count	9	/* a host's first request counts twice */
#define NQ_MUT_policy_lazy	10	/* class changes wait for a new class */
#define NQ_MUT_dying_held	11	/* a dying queue's requests stay held */
#define NQ_MUT_auth		12	/* --auth admits every controller */
#define NQ_MUT_capped_fast	13	/* anything held queues every request */
#define NQ_MUT_late_credit	14	/* a late release loses what it was owed */
#define NQ_MUT_queues		15	/* tags per hardware queue are one pool */
#define NQ_MUT_stripe		16	/* a stripe's members are not counted */
#define NQ_MUT_dump_walk	17	/* a dump walks to each flow it copies */

#if defined(__has_include)
#if __has_include("mutant_build.h")
#include "mutant_build.h"
#endif
#endif

#ifdef NQ_MUTANT
#define nq_mutant(name)		(NQ_MUTANT == NQ_MUT_##name)
#else
#define nq_mutant(name)		0
#endif

/*
 * Fault builds (scripts/kmod-for --fault NAME, same mechanism): nothing
 * broken, but a hostile world made certain, for the tests of how the
 * module copes with it. Debian's kernels have no fault injection.
 */
#define NQ_FAULT_nomem_io	1	/* the I/O path's own allocations fail */

#ifdef NQ_FAULT
#define nq_fault(name)		(NQ_FAULT == NQ_FAULT_##name)
#else
#define nq_fault(name)		0
#endif

#endif /* _NQ_MUTANT_H */
