/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shares across a cluster of heads: the local weights each head gives its
 * classes so that, cluster-wide, the busy classes get their configured
 * shares of what the cluster delivers, where demand and placement allow.
 *
 * Plain C with no I/O, so that the unit test can drive it through heads
 * modelled as fluids.
 */
#ifndef NVMET_QOSD_SHARES_H
#define NVMET_QOSD_SHARES_H

#include <stdbool.h>
#include <stdint.h>

/* What one head published for one class over its last interval. */
struct share_in {
	uint64_t rate;		/* bytes/s delivered */
	bool held;		/* it held requests back at the end */
};

/* The largest local weight (the module's share range is 1 to this). */
#define SHARES_WEIGHT_MAX	1000

/*
 * The local weights of head @me for @nc classes whose cluster shares are
 * @share[c] (1..1000), from every head's figures: @in[h * nc + c] for
 * @n heads. Into @out[c], 1..SHARES_WEIGHT_MAX.
 *
 * A class is busy when some head holds its requests; the busy classes'
 * targets split what they delivered together by their shares. A busy
 * class short of its target (or over it) has the difference spread over
 * the heads where its weight matters (it moves something there beside
 * another class held back), each such head wanting for it its part more
 * (or less) than it delivered there; elsewhere a class wants what it
 * delivered. A head's weights are those wants, scaled to the largest. A
 * class at its target keeps weights in proportion to what it delivers,
 * so a split that is right stays. A class that is not busy, or moves
 * nothing on this head yet, is weighted as its share of the head. Before
 * any rate is known the configured shares are the weights.
 */
void shares_weights(const uint32_t *share, int nc, const struct share_in *in,
		    int n, int me, uint32_t *out);

#endif /* NVMET_QOSD_SHARES_H */
