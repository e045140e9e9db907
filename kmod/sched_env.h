/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scheduler core needs from its environment, so that sched.c
 * compiles unchanged into the module and into the userspace test and
 * simulation binary (kmod/test/). Keep this tiny: fixed-width integers,
 * 64-bit division, and min/max.
 */
#ifndef _NQ_SCHED_ENV_H
#define _NQ_SCHED_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#define nqs_div(a, b)		div64_u64((a), (b))
#define nqs_mul_div(a, b, c)	mul_u64_u64_div_u64((a), (b), (c))
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef uint8_t u8;

#define nqs_div(a, b)		((u64)(a) / (u64)(b))
#define nqs_mul_div(a, b, c)	((u64)(((unsigned __int128)(a) * (b)) / (c)))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#endif

#endif /* _NQ_SCHED_ENV_H */
