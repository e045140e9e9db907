// SPDX-License-Identifier: GPL-2.0
/*
 * Per-head slices of a cluster ceiling (slice.h).
 *
 * Max-min fairness over demand, as in Distributed Rate Limiting's
 * flow-proportional share: a head's demand is what it delivered, which is
 * only a lower bound when its slice held it back. Such a head is taken to
 * want without bound, and the heads that want without bound share equally
 * what the others leave. A head that stops being held back shows its real
 * demand the next interval, so a shift of demand between heads is followed
 * within two to three intervals: one for the head whose demand moved to
 * publish a rate under it, one for the others to read it, one to apply
 * it.
 */
#include <stdlib.h>

#include "slice.h"

uint64_t slice_floor(uint64_t ceiling, int n)
{
	uint64_t f = ceiling / 50 / (uint64_t)(n > 1 ? n : 1);

	return f ? f : 1;
}

bool slice_limited(const struct slice_in *in)
{
	return in->held && in->slice && in->rate >= in->slice - in->slice / 10;
}

static uint64_t want(const struct slice_in *in, uint64_t floor)
{
	uint64_t w;

	if (slice_limited(in))
		return UINT64_MAX;
	w = in->rate + in->rate / 10;
	if (w < in->rate)
		w = UINT64_MAX - 1;
	return w > floor ? w : floor;
}

void slice_split(uint64_t ceiling, const struct slice_in *in, int n,
		 uint64_t *out)
{
	uint64_t floor = slice_floor(ceiling, n), left = ceiling, spare;
	uint64_t *w = malloc(n * sizeof(*w));
	int i, j, k;

	if (!w) {
		/* No memory for the demands: the static split. */
		for (i = 0; i < n; i++)
			out[i] = ceiling / n + ((uint64_t)i < ceiling % n);
		return;
	}
	for (i = 0; i < n; i++)
		w[i] = want(&in[i], floor);
	/*
	 * Fill from the smallest demand up: each head gets its demand or an
	 * equal part of what is left, whichever is less. What is left per
	 * head never shrinks, so no head gets less than ceiling / n or its
	 * demand, and so never less than the floor. Ties go by position,
	 * so every head computes the same split. n is the number of heads
	 * of a cluster: the quadratic walk costs nothing next to etcd.
	 */
	for (k = n; k > 0; k--) {
		uint64_t fair = left / k;

		j = -1;
		for (i = 0; i < n; i++)
			if (w[i] && (j < 0 || w[i] < w[j]))
				j = i;
		out[j] = w[j] < fair ? w[j] : fair;
		left -= out[j];
		w[j] = 0;	/* done: a want is never 0, the floor is >= 1 */
	}
	free(w);
	spare = left;
	for (i = 0; i < n; i++)
		out[i] += spare / n + ((uint64_t)i < spare % n);
}

uint64_t slice_fallback(uint64_t ceiling, int last_seen)
{
	uint64_t s = ceiling / (uint64_t)(last_seen > 1 ? last_seen : 1);
	uint64_t f = slice_floor(ceiling, last_seen);

	return s > f ? s : f;
}
