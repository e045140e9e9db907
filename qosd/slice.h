/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splitting a class's cluster ceiling into per-head slices: a
 * distributed token bucket whose refill rate each head takes a part of,
 * renewed every interval from what every head published.
 *
 * Plain C with no I/O, so that the unit test can drive it through the
 * cases that matter.
 */
#ifndef NVMET_QOSD_SLICE_H
#define NVMET_QOSD_SLICE_H

#include <stdbool.h>
#include <stdint.h>

/* What one head published for the class over its last interval. */
struct slice_in {
	uint64_t rate;		/* bytes/s delivered */
	uint64_t slice;		/* the slice it ran under; 0: none yet */
	bool held;		/* it held requests back at the end */
};

/*
 * The slice no head goes below, however idle: 2% of the ceiling shared by
 * the heads, so a burst on an idle head starts at once and the idle heads
 * together leave at most 2% of the ceiling unused. At least 1 byte/s.
 */
uint64_t slice_floor(uint64_t ceiling, int n);

/*
 * Whether a head is held back by its slice: it holds requests and
 * delivers at least 90% of the slice. (A head that holds requests for
 * another reason, its device or a sibling class, delivers less, and more
 * slice would not help it.)
 */
bool slice_limited(const struct slice_in *in);

/*
 * Split @ceiling over @n heads into @out, max-min fair over demand:
 * - a head that is not limited wants what it delivered and a tenth more
 *   (room to grow), and at least the floor;
 * - a limited head wants without bound: the limited heads share equally
 *   what the others leave;
 * - what nobody wants is shared equally by all, so the slices always add
 *   up to the ceiling (a head may use its part before the next interval).
 * The same inputs give the same slices on every head.
 */
void slice_split(uint64_t ceiling, const struct slice_in *in, int n,
		 uint64_t *out);

/*
 * A head cut off from the others: ceiling / heads last seen, at least the
 * floor.
 */
uint64_t slice_fallback(uint64_t ceiling, int last_seen);

#endif /* NVMET_QOSD_SLICE_H */
