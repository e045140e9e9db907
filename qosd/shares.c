// SPDX-License-Identifier: GPL-2.0
/*
 * Cluster shares (shares.h).
 *
 * Each head divides its own devices between its backlogged classes by
 * weight, and its scheduler is work-conserving. So a head can give a class
 * more only where the class holds requests, and what a class receives on
 * one head is known to the others only through the published figures.
 * Like dmClock's delta and rho, which tell a server what a client received
 * elsewhere, the heads take the service each class got on the other heads
 * into account: a class that got much elsewhere is weighted down here.
 *
 * A class's weight changes what it gets only on a head where it moves
 * something beside another class held back (adjustable()): more weight
 * takes from that class, less gives to it. Every such head applying the
 * whole shortfall (or excess) of the class would overshoot by their
 * number; each takes its part of it.
 * Where placement does not allow the configured split (a class held back
 * on one head only, and that head's whole device is less than its share),
 * the class ends with all of that head and the others with the rest: the
 * split closest to the configured one that a work-conserving cluster can
 * give.
 */
#include <math.h>
#include <stdlib.h>

#include "shares.h"

/*
 * Whether class @c's weight on head @h changes what it gets there: it
 * moves something there, and another class is held back beside it (with
 * none held back, every class already gets all it asks; with only @c, it
 * gets all the others leave).
 */
static bool adjustable(const struct share_in *in, int nc, int h, int c)
{
	int o;

	if (!in[h * nc + c].rate)
		return false;
	for (o = 0; o < nc; o++)
		if (o != c && in[h * nc + o].held)
			return true;
	return false;
}

void shares_weights(const uint32_t *share, int nc, const struct share_in *in,
		    int n, int me, uint32_t *out)
{
	double *want = calloc(nc, sizeof(*want)), r_busy = 0, here = 0, most = 0;
	double s_busy = 0, s_all = 0;
	int c, h;

	if (!want)
		goto configured;
	for (c = 0; c < nc; c++) {
		double r = 0;
		bool busy = false;

		for (h = 0; h < n; h++) {
			r += (double)in[h * nc + c].rate;
			busy |= in[h * nc + c].held;
		}
		s_all += share[c];
		here += (double)in[me * nc + c].rate;
		if (busy) {
			r_busy += r;
			s_busy += share[c];
		}
	}
	for (c = 0; c < nc; c++) {
		const struct share_in *mine = &in[me * nc + c];
		double r = 0;
		bool busy = false;
		int k = 0;

		for (h = 0; h < n; h++) {
			r += (double)in[h * nc + c].rate;
			busy |= in[h * nc + c].held;
			k += adjustable(in, nc, h, c);
		}
		want[c] = (double)mine->rate;
		if (!busy || !mine->rate) {
			/*
			 * Not busy, or nothing here yet: weighted as its share
			 * of this head, so that it is not starved for an
			 * interval when it starts here.
			 */
			want[c] = fmax(want[c], here * share[c] / s_all);
		} else if (adjustable(in, nc, me, c)) {
			double target = r_busy * share[c] / s_busy;

			want[c] = fmax(0, want[c] + (target - r) / k);
		}
		most = fmax(most, want[c]);
	}
	if (most <= 0)
		goto configured;
	for (c = 0; c < nc; c++) {
		double w = round(SHARES_WEIGHT_MAX * want[c] / most);

		out[c] = w < 1 ? 1 : w > SHARES_WEIGHT_MAX ? SHARES_WEIGHT_MAX : (uint32_t)w;
	}
	free(want);
	return;
configured:
	free(want);
	for (c = 0; c < nc; c++)
		out[c] = share[c];
}
