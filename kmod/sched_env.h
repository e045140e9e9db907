/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scheduler core needs from its environment, so that sched.c and
 * depth.c compile unchanged into the module and into the userspace test and
 * simulation binary (kmod/test/). Keep this tiny: fixed-width integers,
 * 64-bit division, and min/max.
 *
 * nqs_mul_div() is a * b / c saturated at U64_MAX. The kernel's
 * mul_u64_u64_div_u64() is one divq on x86-64, which raises #DE (an oops)
 * when the quotient does not fit in 64 bits; the product's high half
 * tells that beforehand. The userspace build counts every saturation in
 * nqs_mul_div_overflows, so the tests can prove the core never asks for
 * one (each would have been an oops in the kernel before this guard).
 *
 * nqs_count_visit() counts, in userspace only, each flow the round robin
 * looks at (nqs_rr_visits): the tests bound the work of one pick by that
 * count rather than by a time, which a busy machine stretches.
 */
#ifndef _NQ_SCHED_ENV_H
#define _NQ_SCHED_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/bitops.h>

#define nqs_div(a, b)		div64_u64((a), (b))
#define nqs_ffs64(x)		__ffs64(x)	/* lowest bit set; x != 0 */

static inline u64 nqs_mul_div(u64 a, u64 b, u64 c)
{
	if (!c || (u64)(((unsigned __int128)a * b) >> 64) >= c)
		return U64_MAX;
	return mul_u64_u64_div_u64(a, b, c);
}

#define nqs_count_visit()	do { } while (0)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef uint8_t u8;

#define U64_MAX			UINT64_MAX
#define S64_MAX			INT64_MAX

extern u64 nqs_mul_div_overflows;
extern u64 nqs_rr_visits;

#define nqs_count_visit()	(nqs_rr_visits++)

#define nqs_div(a, b)		((u64)(a) / (u64)(b))
#define nqs_ffs64(x)		((unsigned int)__builtin_ctzll(x))

static inline u64 nqs_mul_div(u64 a, u64 b, u64 c)
{
	unsigned __int128 p = (unsigned __int128)a * b;

	if (!c || (u64)(p >> 64) >= c) {
		nqs_mul_div_overflows++;
		return U64_MAX;
	}
	return (u64)(p / c);
}

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#endif

#endif /* _NQ_SCHED_ENV_H */
