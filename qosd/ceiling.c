// SPDX-License-Identifier: GPL-2.0
/*
 * Cluster ceilings (ceiling.h): reading them, reading what every head
 * published, setting this head's slices, and falling back to static
 * slices while etcd is away.
 *
 * Every head runs the same split over the same published figures, each
 * keeping its own part, so no head has to hand slices out. Heads read
 * the figures at different moments, up to an interval apart, so for an
 * interval after demand moves the slices may add up to a little more or
 * less than the ceiling.
 *
 * A slice is set as the class's own ceiling with "class set --max". The
 * module keeps a class's tokens when its rate changes, so a larger slice
 * brings no burst: the class only runs faster from then on. A slice never
 * goes below the policy's floor of the class (the module refuses a
 * ceiling under a floor), nor above the largest rate it takes.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ctl/parse.h"
#include "../uapi/nvmet_qos.h"
#include "ceiling.h"
#include "cluster.h"
#include "log.h"
#include "slice.h"


void ceilings_init(struct ceilings *cs, const char *prefix)
{
	memset(cs, 0, sizeof(*cs));
	snprintf(cs->key, sizeof(cs->key), "%s/ceilings", prefix);
}

void ceilings_free(struct ceilings *cs)
{
	free(cs->c);
	cs->c = NULL;
	cs->n = 0;
}

/* A rate: a whole number of bytes/s, or a string such as "1G". */
static int rate_of(struct json_object *v, uint64_t *bps)
{
	if (json_object_is_type(v, json_type_string))
		return parse_size(json_object_get_string(v), bps) ? -1 : 0;
	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return -1;
	*bps = json_object_get_uint64(v);
	return 0;
}

int ceilings_parse(const char *text, struct ceiling **out, int *n,
		   char *why, size_t len)
{
	struct json_object *root = classmap_parse(text, CEILINGS_MAX, why, len);
	struct ceiling *c;
	int i = 0;

	*out = NULL;
	*n = 0;
	if (!root)
		return -1;
	c = calloc(json_object_object_length(root) + 1, sizeof(*c));
	if (!c) {
		snprintf(why, len, "out of memory");
		json_object_put(root);
		return -1;
	}
	json_object_object_foreach(root, name, v) {
		if (rate_of(v, &c[i].bps) || c[i].bps < CEILING_MIN ||
		    c[i].bps > NVMET_QOS_RATE_MAX) {
			snprintf(why, len,
				 "%s: want a whole number of bytes/s from %d to %llu, or a string such as \"1G\"",
				 name, CEILING_MIN, NVMET_QOS_RATE_MAX);
			free(c);
			json_object_put(root);
			return -1;
		}
		snprintf(c[i].name, sizeof(c[i].name), "%s", name);
		i++;
	}
	json_object_put(root);
	*out = c;
	*n = i;
	return 0;
}

/* A rate of the policy's class object @c, 0 when it has none. */
static uint64_t policy_rate(struct json_object *c, const char *field)
{
	struct json_object *v;
	uint64_t bps = 0;

	if (!json_object_object_get_ex(c, field, &v) || rate_of(v, &bps))
		return 0;
	return bps;
}

/* Each capped class's own floor and ceiling in the policy in force. */
static void own_limits(struct ceilings *cs)
{
	struct json_object *root = cs->policy ? json_tokener_parse(cs->policy) : NULL;
	struct json_object *classes = NULL;
	size_t i, n = 0;
	int j;

	if (json_object_object_get_ex(root, "classes", &classes) &&
	    json_object_is_type(classes, json_type_array))
		n = json_object_array_length(classes);
	for (j = 0; j < cs->n; j++) {
		cs->c[j].own_min = cs->c[j].own_max = 0;
		for (i = 0; i < n; i++) {
			struct json_object *c = json_object_array_get_idx(classes, i);
			struct json_object *name;

			if (!json_object_object_get_ex(c, "name", &name) ||
			    strcmp(json_object_get_string(name), cs->c[j].name))
				continue;
			cs->c[j].own_min = policy_rate(c, "min_bps");
			cs->c[j].own_max = policy_rate(c, "max_bps");
		}
	}
	json_object_put(root);
}

/* A class lost its cluster ceiling: the policy's own is back. */
static void unslice(const struct ceiling *c, const struct backend *be)
{
	char msg[256];

	if (be->ops->set_max(be->ctx, c->name, c->own_max, msg, sizeof(msg)))
		say("class %s: no cluster ceiling any more, but its own of %" PRIu64 " bytes/s (0: none) could not be set: %s",
		    c->name, c->own_max, msg);
	else
		say("class %s: no cluster ceiling any more; its own of %" PRIu64 " bytes/s (0: none) is back",
		    c->name, c->own_max);
}

static int parse_map(const char *text, void *out, int *n, char *why,
		     size_t len)
{
	return ceilings_parse(text, out, n, why, len);
}

/* Read PREFIX/ceilings; keep the slices in force of classes kept. */
void ceilings_read(struct ceilings *cs, struct etcd *e,
		   const struct backend *be)
{
	struct ceiling *c;
	int i, j, n;

	if (!classmap_read(e, cs->key, "ceilings", &cs->rev, cs->n,
			   parse_map, &c, &n))
		return;
	for (i = 0; i < cs->n; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(c[j].name, cs->c[i].name))
				break;
		if (j < n) {
			c[j].slice = cs->c[i].slice;
			c[j].failed = cs->c[i].failed;
		} else if (cs->c[i].slice || cs->c[i].failed) {
			unslice(&cs->c[i], be);
		}
	}
	free(cs->c);
	cs->c = c;
	cs->n = n;
	own_limits(cs);
}

/* Head @i's figures for class @name, from its published status. */
static void head_in(const struct heads *hs, int i, const char *name,
		    struct slice_in *in)
{
	struct json_object *c = heads_class(hs, i, name), *v;

	memset(in, 0, sizeof(*in));
	if (!c)
		return;
	if (json_object_object_get_ex(c, "rate_bps", &v))
		in->rate = json_object_get_uint64(v);
	if (json_object_object_get_ex(c, "slice_bps", &v))
		in->slice = json_object_get_uint64(v);
	if (json_object_object_get_ex(c, "held", &v))
		in->held = json_object_get_uint64(v) > 0;
}

/*
 * Set @slice as the class's ceiling here (@force: even when it is the one
 * in force), within the policy's floor and the largest rate. A failure
 * leaves the slice in force as it was, logged once, and is tried again
 * at the next interval.
 */
static void set_slice(struct ceilings *cs, struct ceiling *c,
		      const struct backend *be, uint64_t slice, bool force)
{
	char msg[256];

	if (slice < c->own_min) {
		if (!cs->said_min)
			say("class %s: its floor of %" PRIu64 " bytes/s on this head is above its slice of %" PRIu64 "; the floor wins",
			    c->name, c->own_min, slice);
		cs->said_min = true;
		slice = c->own_min;
	}
	if (slice > NVMET_QOS_RATE_MAX)
		slice = NVMET_QOS_RATE_MAX;
	if (slice == c->slice && !c->failed && !force)
		return;
	if (be->ops->set_max(be->ctx, c->name, slice, msg, sizeof(msg))) {
		if (!c->failed)
			say("class %s: cannot set its slice of %" PRIu64 " bytes/s: %s",
			    c->name, slice, msg);
		c->failed = true;
		return;
	}
	if (c->failed)
		say("class %s: its slice is set again", c->name);
	c->failed = false;
	c->slice = slice;
}

void ceilings_split(struct ceilings *cs, const struct backend *be,
		    const struct heads *hs)
{
	struct slice_in *in = calloc(hs->n, sizeof(*in));
	uint64_t *out = calloc(hs->n, sizeof(*out));
	int i, j, me = hs->me;

	if (cs->fallback && cs->n)
		say("etcd reachable again: slices from the heads' demand");
	cs->fallback = false;
	for (i = 0; in && out && i < cs->n; i++) {
		struct ceiling *c = &cs->c[i];

		for (j = 0; j < hs->n; j++)
			head_in(hs, j, c->name, &in[j]);
		slice_split(c->bps, in, hs->n, out);
		/*
		 * A slice shrinks at once, so that the slices in force never
		 * add up to more than the ceiling; it grows only by more than
		 * 1/256 of the ceiling (noise otherwise), or when the head
		 * count changed (the floor moved).
		 */
		if (!c->slice || c->failed || cs->last_seen != hs->n ||
		    out[me] < c->slice || out[me] - c->slice > c->bps / 256)
			set_slice(cs, c, be, out[me], false);
	}
	if (in && out)
		cs->last_seen = hs->n;
	free(in);
	free(out);
}

void ceilings_fallback(struct ceilings *cs, const struct backend *be)
{
	int i;

	if (cs->fallback || !cs->n)
		return;
	cs->fallback = true;
	for (i = 0; i < cs->n; i++) {
		uint64_t s = slice_fallback(cs->c[i].bps, cs->last_seen);

		say("etcd unreachable: class %s falls back to %" PRIu64 " bytes/s, its cluster ceiling over the %d head(s) last seen",
		    cs->c[i].name, s, cs->last_seen ? cs->last_seen : 1);
		set_slice(cs, &cs->c[i], be, s, false);
	}
}

void ceilings_policy(struct ceilings *cs, const struct backend *be,
		     const char *policy)
{
	int i;

	cs->policy = policy;
	own_limits(cs);
	for (i = 0; i < cs->n; i++)
		if (cs->c[i].slice)
			set_slice(cs, &cs->c[i], be, cs->c[i].slice, true);
}

void ceilings_status(const struct ceilings *cs, struct json_object *classes)
{
	int i;

	for (i = 0; i < cs->n; i++) {
		struct json_object *c;

		if (!cs->c[i].slice)
			continue;
		if (!json_object_object_get_ex(classes, cs->c[i].name, &c)) {
			c = json_object_new_object();
			json_object_object_add(classes, cs->c[i].name, c);
		}
		json_object_object_add(c, "slice_bps",
				       json_object_new_uint64(cs->c[i].slice));
	}
}
