// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the split of a cluster ceiling (slice.c): fixed cases,
 * invariants over random inputs, and heads whose demand is a fluid (each
 * interval a head delivers the lesser of its demand and its slice, and
 * holds requests when its demand is the greater) through a 90/10 skew and
 * its shift. The real scheduler core on simulated heads against etcd is
 * qosd's test-qosd.sh's business; this checks the arithmetic alone.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../ctl/ktap.h"
#include "slice.h"

#define MB	UINT64_C(1000000)
#define GB	UINT64_C(1000000000)
#define TESTS	11

static uint64_t sum(const uint64_t *v, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void print(const char *what, const uint64_t *v, int n)
{
	printf("# %s:", what);
	for (int i = 0; i < n; i++)
		printf(" %" PRIu64, v[i]);
	printf("\n");
}

static void idle_heads(void)
{
	struct slice_in in[4] = { 0 };
	uint64_t out[4];

	slice_split(GB, in, 4, out);
	print("4 idle heads, 1 GB/s", out, 4);
	report(out[0] == GB / 4 && out[3] == GB / 4 && sum(out, 4) == GB,
	       "idle heads share the ceiling equally");
}

static void skewed(void)
{
	/* Head 0 runs at its slice and holds requests; the others want less. */
	struct slice_in in[4] = {
		{ 700 * MB, 700 * MB, true },
		{ 30 * MB, 100 * MB, false },
		{ 30 * MB, 100 * MB, false },
		{ 40 * MB, 100 * MB, false },
	};
	uint64_t out[4];

	slice_split(GB, in, 4, out);
	print("one head held back", out, 4);
	report(out[1] == 33 * MB && out[3] == 44 * MB &&
	       out[0] == GB - 110 * MB && sum(out, 4) == GB,
	       "a held-back head gets what the others leave; they keep 110% of their rate");
}

static void two_limited(void)
{
	struct slice_in in[3] = {
		{ 400 * MB, 400 * MB, true },
		{ 500 * MB, 500 * MB, true },
		{ 0, 100 * MB, false },
	};
	uint64_t out[3], f = slice_floor(GB, 3);

	slice_split(GB, in, 3, out);
	print("two heads held back, one idle", out, 3);
	report(out[2] == f && out[0] == out[1] && sum(out, 3) == GB,
	       "held-back heads share equally; an idle head keeps the floor");
}

static void held_not_by_slice(void)
{
	/* Holding requests at half its slice: its device or a sibling class. */
	struct slice_in in[2] = {
		{ 200 * MB, 400 * MB, true },
		{ 600 * MB, 600 * MB, true },
	};
	uint64_t out[2];

	slice_split(GB, in, 2, out);
	print("one head holds below its slice", out, 2);
	report(!slice_limited(&in[0]) && out[0] == 220 * MB &&
	       out[1] == 780 * MB, "a head holding requests below 90% of its slice is not given more");
}

static void order_free(void)
{
	struct slice_in in[5], rev[5];
	uint64_t a[5], b[5];
	bool ok = true;

	for (int i = 0; i < 5; i++) {
		in[i] = (struct slice_in){ (uint64_t)(i % 3) * 100 * MB,
					   (uint64_t)(i % 3) * 100 * MB,
					   i % 3 == 2 };
		rev[4 - i] = in[i];
	}
	slice_split(GB, in, 5, a);
	slice_split(GB, rev, 5, b);
	for (int i = 0; i < 5; i++)
		ok &= a[i] == b[4 - i] || in[i].held;
	/* The held-back heads tie: together they get the same. */
	ok &= a[2] + a[4] == b[2] + b[0];
	report(ok, "the split does not depend on the heads' order");
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void invariants(void)
{
	uint64_t seed = 88172645463325252ULL;
	int bad = 0;

	for (int t = 0; t < 100000; t++) {
		struct slice_in in[16];
		uint64_t out[16], c = 4096 + rnd(&seed) % (100 * GB), f, most = 0;
		int n = 1 + rnd(&seed) % 16;

		for (int i = 0; i < n; i++) {
			in[i].slice = rnd(&seed) % (c + 1);
			in[i].rate = rnd(&seed) % 3 ? rnd(&seed) % (c + 1) : in[i].slice;
			in[i].held = rnd(&seed) % 2;
		}
		slice_split(c, in, n, out);
		f = slice_floor(c, n);
		for (int i = 0; i < n; i++)
			if (!slice_limited(&in[i]) && out[i] > most)
				most = out[i];
		for (int i = 0; i < n; i++)
			if (out[i] < f || (slice_limited(&in[i]) && out[i] + 1 < most))
				bad++;
		if (sum(out, n) != c)
			bad++;
		if (bad) {
			printf("# case %d: ceiling %" PRIu64 ", %d heads\n", t, c, n);
			break;
		}
	}
	report(!bad, "100,000 random splits add up to the ceiling, none below the floor, none held back below another");
}

/*
 * Heads as fluids: each interval a head delivers min(demand, slice) and
 * holds requests when its demand is above its slice.
 */
static int step(uint64_t ceiling, const uint64_t *demand, struct slice_in *in,
		int n)
{
	uint64_t out[8], rate = 0;

	slice_split(ceiling, in, n, out);
	for (int i = 0; i < n; i++) {
		in[i].slice = out[i];
		in[i].rate = demand[i] < out[i] ? demand[i] : out[i];
		in[i].held = demand[i] > out[i];
		rate += in[i].rate;
	}
	return (int)(rate * 1000 / ceiling);	/* per mille of the ceiling */
}

static void fluid_shift(void)
{
	/* 2 GB/s of demand against 1 GB/s: 90% on head 0, then on head 2. */
	uint64_t d1[4] = { 1800 * MB, 67 * MB, 67 * MB, 66 * MB };
	uint64_t d2[4] = { 67 * MB, 67 * MB, 1800 * MB, 66 * MB };
	struct slice_in in[4] = { 0 };
	int pm = 0, lo = 1000, back = -1;

	for (int t = 0; t < 10; t++)
		pm = step(GB, d1, in, 4);
	printf("# 90/10 skew, settled: cluster at %d.%d%% of the ceiling, head 0 %" PRIu64 " MB/s\n",
	       pm / 10, pm % 10, in[0].rate / MB);
	/* The others keep a tenth over their 200 MB/s: 780 MB/s are left. */
	report(pm >= 950 && pm <= 1000 && in[0].rate >= 770 * MB,
	       "90/10 skew: the cluster within 5% of the ceiling, the busy head the rest");
	for (int t = 0; t < 10; t++) {
		pm = step(GB, d2, in, 4);
		if (pm < lo)
			lo = pm;
		if (back < 0 && pm >= 950 && in[2].rate >= 770 * MB)
			back = t + 1;
	}
	printf("# shifted to head 2: back within 5%% after %d intervals (lowest %d.%d%%)\n",
	       back, lo / 10, lo % 10);
	report(back > 0 && back <= 2,
	       "the shift is followed within two intervals");
}

static void burst_from_idle(void)
{
	uint64_t d[4] = { 0, 0, 0, 0 };
	struct slice_in in[4] = { 0 };
	int pm = 0;

	for (int t = 0; t < 5; t++)
		step(GB, d, in, 4);
	d[1] = 3 * GB;
	step(GB, d, in, 4);
	printf("# a burst on an idle cluster starts at %" PRIu64 " MB/s\n",
	       in[1].rate / MB);
	report(in[1].rate == GB / 4, "a burst on an idle cluster starts at an equal part");
	pm = step(GB, d, in, 4);
	report(pm >= 950 && in[1].rate >= 930 * MB,
	       "one interval later it has the ceiling but the idle heads' floors");
}

static void fallback(void)
{
	report(slice_fallback(GB, 4) == GB / 4 && slice_fallback(GB, 0) == GB &&
	       slice_fallback(100, 1000) == 1,
	       "fallback: ceiling / heads last seen, at least the floor");
}

int main(void)
{
	ktap_plan(TESTS);
	idle_heads();
	skewed();
	two_limited();
	held_not_by_slice();
	order_free();
	invariants();
	fluid_shift();
	burst_from_idle();
	fallback();
	return ktap_finish(TESTS);
}
