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
#include "log.h"
#include "slice.h"

#define HEADS_MAX	1024

void ceilings_init(struct ceilings *cs, const char *prefix,
		   const char *self_key)
{
	memset(cs, 0, sizeof(*cs));
	snprintf(cs->key, sizeof(cs->key), "%s/ceilings", prefix);
	snprintf(cs->heads, sizeof(cs->heads), "%s/heads/", prefix);
	cs->self = self_key;
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
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	struct ceiling *c;
	int i = 0;

	*out = NULL;
	*n = 0;
	if (!tok) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!root || json_tokener_get_parse_end(tok) != strlen(text)) {
		snprintf(why, len, "not JSON: %s",
			 json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(root);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(why, len, "want an object of class names and rates");
		goto bad;
	}
	if (json_object_object_length(root) > CEILINGS_MAX) {
		snprintf(why, len, "%d classes; at most %d have a cluster ceiling",
			 json_object_object_length(root), CEILINGS_MAX);
		goto bad;
	}
	c = calloc(json_object_object_length(root) + 1, sizeof(*c));
	if (!c) {
		snprintf(why, len, "out of memory");
		goto bad;
	}
	json_object_object_foreach(root, name, v) {
		char msg[128];

		if (class_name_validate(name, msg, sizeof(msg))) {
			snprintf(why, len, "\"%.40s\": %s", name, msg);
			goto bad_c;
		}
		if (rate_of(v, &c[i].bps) || c[i].bps < CEILING_MIN ||
		    c[i].bps > NVMET_QOS_RATE_MAX) {
			snprintf(why, len,
				 "%s: want a whole number of bytes/s from %d to %llu, or a string such as \"1G\"",
				 name, CEILING_MIN, NVMET_QOS_RATE_MAX);
			goto bad_c;
		}
		snprintf(c[i].name, sizeof(c[i].name), "%s", name);
		i++;
	}
	json_object_put(root);
	*out = c;
	*n = i;
	return 0;
bad_c:
	free(c);
bad:
	json_object_put(root);
	return -1;
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

/* Read PREFIX/ceilings; keep the slices in force of classes kept. */
static void read_ceilings(struct ceilings *cs, struct etcd *e,
			  const struct backend *be)
{
	struct ceiling *c;
	struct etcd_kv kv;
	char why[256];
	int64_t rev;
	int i, j, n, ret;

	ret = etcd_get(e, cs->key, &kv, &rev);
	if (ret < 0 || (ret == 1 && !cs->n) ||
	    (ret == 0 && kv.mod_revision == cs->rev)) {
		etcd_kv_free(&kv);
		return;
	}
	if (ret == 1) {
		c = NULL;
		n = 0;
		say("%s deleted: no cluster ceilings", cs->key);
	} else if (ceilings_parse(kv.value, &c, &n, why, sizeof(why))) {
		say("refused the cluster ceilings of revision %" PRId64 ", keeping %s: %s",
		    kv.mod_revision, cs->rev ? "the last ones" : "none", why);
		cs->rev = kv.mod_revision;
		etcd_kv_free(&kv);
		return;
	} else {
		say("cluster ceilings of revision %" PRId64 ": %d class(es)",
		    kv.mod_revision, n);
	}
	cs->rev = ret ? 0 : kv.mod_revision;
	etcd_kv_free(&kv);
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

/* One head's figures for class @name, from its published status. */
static void head_in(struct json_object *status, const char *name,
		    struct slice_in *in)
{
	struct json_object *classes, *c, *v;

	memset(in, 0, sizeof(*in));
	if (!json_object_object_get_ex(status, "classes", &classes) ||
	    !json_object_object_get_ex(classes, name, &c) ||
	    !json_object_is_type(c, json_type_object))
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

/*
 * Every head's status, and this head's place among them (appended when
 * its own is not published yet). The statuses in @st, @n of them.
 */
static int read_heads(struct ceilings *cs, struct etcd *e,
		      struct json_object **st, int *me)
{
	struct etcd_kv *kvs;
	int i, n, k = 0;

	if (etcd_get_prefix(e, cs->heads, &kvs, &n))
		return -1;
	*me = -1;
	for (i = 0; i < n; i++) {
		struct json_object *o = json_tokener_parse(kvs[i].value);

		if (k == HEADS_MAX - 1 ||
		    !json_object_is_type(o, json_type_object)) {
			if (!cs->said_bad_heads)
				say("%s: %s; left out", kvs[i].key,
				    k == HEADS_MAX - 1 ? "more heads than the split takes" :
				    "not a head's status");
			cs->said_bad_heads = true;
			json_object_put(o);
		} else {
			if (!strcmp(kvs[i].key, cs->self))
				*me = k;
			st[k++] = o;
		}
		etcd_kv_free(&kvs[i]);
	}
	free(kvs);
	if (*me < 0) {
		*me = k;
		st[k++] = json_object_new_object();
	}
	return k;
}

static void split(struct ceilings *cs, const struct backend *be,
		  struct json_object **st, int n, int me)
{
	struct slice_in *in = calloc(n, sizeof(*in));
	uint64_t *out = calloc(n, sizeof(*out));
	int i, j;

	for (i = 0; in && out && i < cs->n; i++) {
		struct ceiling *c = &cs->c[i];

		for (j = 0; j < n; j++)
			head_in(st[j], c->name, &in[j]);
		slice_split(c->bps, in, n, out);
		/*
		 * A slice shrinks at once, so that the slices in force never
		 * add up to more than the ceiling; it grows only by more than
		 * 1/256 of the ceiling (noise otherwise), or when the head
		 * count changed (the floor moved).
		 */
		if (!c->slice || c->failed || cs->last_seen != n ||
		    out[me] < c->slice || out[me] - c->slice > c->bps / 256)
			set_slice(cs, c, be, out[me], false);
	}
	free(in);
	free(out);
}

void ceilings_tick(struct ceilings *cs, struct etcd *e,
		   const struct backend *be, bool etcd_ok, bool fall_back)
{
	struct json_object **st;
	int i, n, me;

	if (!etcd_ok) {
		if (!fall_back || cs->fallback || !cs->n)
			return;
		cs->fallback = true;
		for (i = 0; i < cs->n; i++) {
			uint64_t s = slice_fallback(cs->c[i].bps, cs->last_seen);

			say("etcd unreachable: class %s falls back to %" PRIu64 " bytes/s, its cluster ceiling over the %d head(s) last seen",
			    cs->c[i].name, s, cs->last_seen ? cs->last_seen : 1);
			set_slice(cs, &cs->c[i], be, s, false);
		}
		return;
	}
	read_ceilings(cs, e, be);
	if (!cs->n)
		return;
	st = calloc(HEADS_MAX, sizeof(*st));
	if (!st)
		return;
	n = read_heads(cs, e, st, &me);
	if (n > 0) {
		if (cs->fallback)
			say("etcd reachable again: slices from the heads' demand");
		cs->fallback = false;
		split(cs, be, st, n, me);
		cs->last_seen = n;
	}
	for (i = 0; i < n; i++)
		json_object_put(st[i]);
	free(st);
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
