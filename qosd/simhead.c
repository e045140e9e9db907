// SPDX-License-Identifier: GPL-2.0
/*
 * The backend of a simulated head (nvmet-qosd-sim, for the tests of
 * several heads): the module's scheduler core (kmod/sched.c, room.c,
 * depth.c and lease.c, unchanged) on a simulated device (kmod/test/sim.c),
 * run in step with the clock.
 * The simulation runs up to "now" whenever the daemon looks at it or
 * changes it, so a slice set at some moment takes effect at that moment
 * of the simulated head's time.
 *
 * The daemon's --tool names the head's demand file: one line per class,
 * "CLASS BYTES_PER_SECOND [FROM]", what the class's host asks for (0:
 * idle) from CLOCK_MONOTONIC second FROM on (default: when read). It is
 * read again whenever it changes, so a test moves demand between heads by
 * rewriting the files; with FROM, at a moment of its choosing rather
 * than whenever the daemon next looks. The host keeps 8 requests of 128
 * KiB in flight and pauses between them to ask no more than that. The
 * device serves in order at 24 GB/s, so what holds a host back is its
 * class's ceiling, unless a line "device BYTES_PER_SECOND [FROM]" makes
 * it slower: then the classes share it by their weights.
 *
 * Each look at the counters appends "SECONDS CLASS BYTES HELD CEILING
 * WEIGHT" to DEMANDFILE.log (CLOCK_MONOTONIC seconds), the head's own
 * record of what it delivered, with or without etcd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "../ctl/parse.h"
#include "../kmod/test/sim.h"
#include "backend.h"

#define SIM_CLASSES	8
#define SIM_BS		(128u << 10)
#define SIM_QD		8
#define SIM_DEV_BPS	24000000000ull
#define SIM_DEV_LAT_NS	100000ull
/* The demand file's "device BPS" line: the device's bandwidth. */
#define SIM_DEVICE	SIM_CLASSES

/* The core's userspace build counts its saturated divisions here. */
u64 nqs_mul_div_overflows;
u64 nqs_rr_visits;

struct change {
	int cls;
	uint64_t bps;
	uint64_t at;			/* simulated ns */
};

struct simhead {
	struct sim sim;
	struct change pending[SIM_CLASSES + 1];
	int nr_pending;
	char names[SIM_CLASSES][CLASS_NAME_MAX + 1];
	int nr;				/* classes named by the policy */
	const char *demand;		/* the demand file */
	struct timespec mtime;		/* of the demand file read last */
	uint64_t t0;			/* CLOCK_MONOTONIC ns at the start */
	FILE *log;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int class_of(struct simhead *sh, const char *name)
{
	int i;

	for (i = 0; i < sh->nr; i++)
		if (!strcmp(sh->names[i], name))
			return i;
	return -1;
}

/* Host @i asks for @bps: a pause between requests, or idle. */
static void set_demand(struct simhead *sh, int i, uint64_t bps)
{
	struct sim_host *h = &sh->sim.hosts[i];

	if (!bps) {
		h->qd = 0;
		return;
	}
	if (!h->qd) {
		/* sim_run() starts a woken host only when it does not pause. */
		h->qd = SIM_QD;
		h->think_ns = 0;
		sim_run(&sh->sim, sh->sim.now);
	}
	h->think_ns = (uint32_t)((uint64_t)SIM_QD * SIM_BS * 1000000000ull / bps);
}

static void read_demand(struct simhead *sh)
{
	struct stat st;
	char line[256], name[128];
	uint64_t bps;
	double from;
	FILE *f;

	if (stat(sh->demand, &st) ||
	    (st.st_mtim.tv_sec == sh->mtime.tv_sec &&
	     st.st_mtim.tv_nsec == sh->mtime.tv_nsec))
		return;
	sh->mtime = st.st_mtim;
	f = fopen(sh->demand, "r");
	if (!f)
		return;
	sh->nr_pending = 0;
	while (fgets(line, sizeof(line), f) && sh->nr_pending <= SIM_CLASSES) {
		struct change *c = &sh->pending[sh->nr_pending];
		int n = sscanf(line, "%127s %" SCNu64 " %lf", name, &bps, &from);

		c->cls = n < 2 ? -1 : !strcmp(name, "device") ? SIM_DEVICE :
			 class_of(sh, name);
		if (c->cls < 0)
			continue;
		c->bps = bps;
		c->at = n == 3 && from * 1e9 > sh->t0 ?
			(uint64_t)(from * 1e9) - sh->t0 : 0;
		sh->nr_pending++;
	}
	fclose(f);
}

/*
 * Run the simulation up to now, taking in each change of demand at its
 * moment on the way.
 */
static void advance(struct simhead *sh)
{
	uint64_t now = mono_ns() - sh->t0;

	read_demand(sh);
	while (sh->nr_pending) {
		int i, first = 0;

		for (i = 1; i < sh->nr_pending; i++)
			if (sh->pending[i].at < sh->pending[first].at)
				first = i;
		if (sh->pending[first].at > now)
			break;
		if (sh->pending[first].at > sh->sim.now)
			sim_run(&sh->sim, sh->pending[first].at);
		if (sh->pending[first].cls == SIM_DEVICE)
			sh->sim.dev_bps = sh->pending[first].bps;
		else
			set_demand(sh, sh->pending[first].cls,
				   sh->pending[first].bps);
		sh->pending[first] = sh->pending[--sh->nr_pending];
	}
	sim_run(&sh->sim, now);
}

static int restore(void *ctx, const char *text, bool check, char *msg,
		   size_t len)
{
	struct simhead *sh = ctx;
	struct json_object *root = json_tokener_parse(text), *classes;
	size_t i, n;

	if (!root || !json_object_object_get_ex(root, "classes", &classes) ||
	    !json_object_is_type(classes, json_type_array)) {
		snprintf(msg, len, "simulated head: no \"classes\" array");
		json_object_put(root);
		return 1;
	}
	n = json_object_array_length(classes);
	for (i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(classes, i), *v;
		struct nqs_class_conf k = { .weight = 100 };
		const char *name = NULL;
		int j;

		if (json_object_object_get_ex(c, "name", &v))
			name = json_object_get_string(v);
		if (!name || strlen(name) > CLASS_NAME_MAX) {
			snprintf(msg, len, "simulated head: classes[%zu] has no name", i);
			json_object_put(root);
			return 1;
		}
		j = class_of(sh, name);
		if (j < 0 && sh->nr == SIM_CLASSES) {
			snprintf(msg, len, "simulated head: more than %d classes",
				 SIM_CLASSES);
			json_object_put(root);
			return 1;
		}
		if (check)
			continue;
		if (j < 0) {
			j = sh->nr++;
			snprintf(sh->names[j], sizeof(sh->names[j]), "%s", name);
		}
		if (json_object_object_get_ex(c, "share", &v))
			k.weight = (u32)json_object_get_int(v);
		if (json_object_object_get_ex(c, "max_bps", &v) &&
		    (json_object_is_type(v, json_type_int) ?
		     (k.ceil_bps = json_object_get_uint64(v), 0) :
		     parse_size(json_object_get_string(v), &k.ceil_bps))) {
			snprintf(msg, len, "simulated head: %s: a bad max_bps", name);
			json_object_put(root);
			return 1;
		}
		advance(sh);
		nqs_class_set_conf(&sh->sim.classes[j], &k, sh->sim.now);
	}
	json_object_put(root);
	if (!check) {
		sh->mtime = (struct timespec){ 0 };	/* new classes: demand */
		advance(sh);
	}
	snprintf(msg, len, "simulated head: %d class(es)", sh->nr);
	return 0;
}

static int class_figs(void *ctx, struct class_fig **figs, char *msg,
		      size_t len)
{
	struct simhead *sh = ctx;
	double t = mono_ns() / 1e9;
	int i;

	advance(sh);
	*figs = calloc(sh->nr ? sh->nr : 1, sizeof(**figs));
	if (!*figs) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	for (i = 0; i < sh->nr; i++) {
		struct class_fig *f = &(*figs)[i];

		snprintf(f->name, sizeof(f->name), "%s", sh->names[i]);
		f->bytes = sh->sim.hosts[i].bytes;
		f->ios = sh->sim.hosts[i].ios;
		f->held = sh->sim.classes[i].nr_queued;
		if (sh->log)
			fprintf(sh->log, "%.3f %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %u\n",
				t, f->name, f->bytes, f->held,
				(uint64_t)sh->sim.classes[i].conf.ceil_bps,
				sh->sim.classes[i].conf.weight);
	}
	if (sh->log)
		fflush(sh->log);
	return sh->nr;
}

/*
 * Change class @cls's ceiling (@bps, when @share is 0) or share, now: as
 * "class set" does, the rest of its configuration kept.
 */
static int class_set(struct simhead *sh, const char *cls, uint64_t bps,
		     uint32_t share, char *msg, size_t len)
{
	struct nqs_class_conf k;
	int i = class_of(sh, cls);

	if (i < 0 || share > NQS_WEIGHT_MAX) {
		snprintf(msg, len, "class \"%s\": no such class, or a bad share", cls);
		return -1;
	}
	advance(sh);
	k = sh->sim.classes[i].conf;
	if (share)
		k.weight = share;
	else
		k.ceil_bps = bps;
	nqs_class_set_conf(&sh->sim.classes[i], &k, sh->sim.now);
	return 0;
}

static int set_max(void *ctx, const char *cls, uint64_t bps, char *msg,
		   size_t len)
{
	return class_set(ctx, cls, bps, 0, msg, len);
}

static int set_share(void *ctx, const char *cls, uint32_t share, char *msg,
		     size_t len)
{
	if (!share) {
		snprintf(msg, len, "a share of 0");
		return -1;
	}
	return class_set(ctx, cls, 0, share, msg, len);
}

/* No module to tell: said on stderr, the daemon's log, for the tests. */
static int set_state(void *ctx, int state, const char *note, char *msg,
		     size_t len)
{
	(void)ctx;
	(void)msg;
	(void)len;
	fprintf(stderr, "simulated module: cluster state %s: %s\n",
		backend_state_name(state), note);
	return 0;
}

static const struct backend_ops sim_ops = {
	.restore = restore,
	.class_figs = class_figs,
	.set_max = set_max,
	.set_share = set_share,
	.set_state = set_state,
};

int backend_open(struct backend *be, const char *spec, char *err,
		 size_t len)
{
	struct simhead *sh = calloc(1, sizeof(*sh));
	char path[4096];
	int i;

	if (!sh) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	sh->demand = spec;
	snprintf(path, sizeof(path), "%s.log", spec);
	sh->log = fopen(path, "a");
	if (!sh->log) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		free(sh);
		return -1;
	}
	sim_init(&sh->sim, SIM_CLASSES, SIM_CLASSES, SIM_DEV_BPS, SIM_DEV_LAT_NS);
	for (i = 0; i < SIM_CLASSES; i++) {
		sh->sim.hosts[i].bs = SIM_BS;
		sh->sim.hosts[i].qd = 0;
	}
	sim_start(&sh->sim);
	sh->t0 = mono_ns();
	be->ops = &sim_ops;
	be->ctx = sh;
	return 0;
}
