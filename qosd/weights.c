// SPDX-License-Identifier: GPL-2.0
/*
 * Cluster shares (weights.h): reading them, and setting this head's
 * weights from what every head published.
 *
 * Only the classes named at PREFIX/shares take part: the weights are
 * computed among them, and a class left out keeps the policy's share,
 * which then competes with weights it was not weighed against. Name
 * every class that competes for the heads' devices. Weights are set with
 * "class set NAME --share"; while etcd is away a head keeps the weights
 * it has.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "log.h"
#include "shares.h"
#include "weights.h"

/* What the module gives a class whose policy names no share. */
#define SHARE_DEFAULT	100

void weights_init(struct weights *ws, const char *prefix)
{
	memset(ws, 0, sizeof(*ws));
	snprintf(ws->key, sizeof(ws->key), "%s/shares", prefix);
}

void weights_free(struct weights *ws)
{
	free(ws->c);
	ws->c = NULL;
	ws->n = 0;
}

int weights_parse(const char *text, struct cshare **out, int *n, char *why,
		  size_t len)
{
	struct json_object *root = classmap_parse(text, WEIGHTS_MAX, why, len);
	struct cshare *c;
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
		int64_t s = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || s < 1 ||
		    s > SHARES_WEIGHT_MAX) {
			snprintf(why, len, "%s: want a share from 1 to %d",
				 name, SHARES_WEIGHT_MAX);
			free(c);
			json_object_put(root);
			return -1;
		}
		snprintf(c[i].name, sizeof(c[i].name), "%s", name);
		c[i].share = (uint32_t)s;
		i++;
	}
	json_object_put(root);
	*out = c;
	*n = i;
	return 0;
}

/* Each named class's share in the policy in force (the default if none). */
static void own_shares(struct weights *ws)
{
	struct json_object *root = ws->policy ? json_tokener_parse(ws->policy) : NULL;
	struct json_object *classes = NULL;
	size_t i, n = 0;
	int j;

	if (json_object_object_get_ex(root, "classes", &classes) &&
	    json_object_is_type(classes, json_type_array))
		n = json_object_array_length(classes);
	for (j = 0; j < ws->n; j++) {
		ws->c[j].own = SHARE_DEFAULT;
		for (i = 0; i < n; i++) {
			struct json_object *c = json_object_array_get_idx(classes, i);
			struct json_object *v;

			if (!json_object_object_get_ex(c, "name", &v) ||
			    strcmp(json_object_get_string(v), ws->c[j].name))
				continue;
			if (json_object_object_get_ex(c, "share", &v) &&
			    json_object_is_type(v, json_type_int))
				ws->c[j].own = (uint32_t)json_object_get_int(v);
		}
	}
	json_object_put(root);
}

/*
 * Whether @w is close enough to the weight in force to leave it: within
 * 1/32 of it. The weights follow measured rates, whose noise would
 * otherwise set a class each interval (a run of the tool, a class-change
 * event for every monitor); 1/32 of a weight moves a split by a fraction
 * of the 3 points the shares are held to.
 */
static bool close_to(uint32_t w, uint32_t cur)
{
	uint32_t d = w > cur ? w - cur : cur - w;

	return cur && d * 32 <= cur;
}

/*
 * Set @w as the class's share here (@force: even when it is in force). A
 * failure is logged once and tried again at the next interval.
 */
static void set_weight(struct cshare *c, const struct backend *be,
		       uint32_t w, bool force)
{
	char msg[256];

	if (!c->failed && !force && close_to(w, c->weight))
		return;
	if (be->ops->set_share(be->ctx, c->name, w, msg, sizeof(msg))) {
		if (!c->failed)
			say("class %s: cannot set its weight of %u: %s",
			    c->name, w, msg);
		c->failed = true;
		return;
	}
	if (c->failed)
		say("class %s: its weight is set again", c->name);
	c->failed = false;
	c->weight = w;
}

static int parse_map(const char *text, void *out, int *n, char *why,
		     size_t len)
{
	return weights_parse(text, out, n, why, len);
}

void weights_read(struct weights *ws, struct etcd *e,
		  const struct backend *be)
{
	struct cshare *c;
	int i, j, n;

	if (!classmap_read(e, ws->key, "shares", &ws->rev, ws->n,
			   parse_map, &c, &n))
		return;
	for (i = 0; i < ws->n; i++) {
		struct cshare *old = &ws->c[i];

		for (j = 0; j < n; j++)
			if (!strcmp(c[j].name, old->name))
				break;
		if (j < n) {
			c[j].weight = old->weight;
			c[j].failed = old->failed;
		} else if (old->weight || old->failed) {
			say("class %s: no cluster share any more; its own of %u is back",
			    old->name, old->own);
			set_weight(old, be, old->own, true);
		}
	}
	free(ws->c);
	ws->c = c;
	ws->n = n;
	own_shares(ws);
}

void weights_set(struct weights *ws, const struct backend *be,
		 const struct heads *hs)
{
	struct share_in *in = calloc((size_t)hs->n * ws->n + 1, sizeof(*in));
	uint32_t *share = calloc(ws->n + 1, sizeof(*share));
	uint32_t *out = calloc(ws->n + 1, sizeof(*out));
	int h, i;

	for (i = 0; in && share && out && i < ws->n; i++) {
		share[i] = ws->c[i].share;
		for (h = 0; h < hs->n; h++) {
			struct json_object *c = heads_class(hs, h, ws->c[i].name), *v;
			struct share_in *s = &in[h * ws->n + i];

			if (c && json_object_object_get_ex(c, "rate_bps", &v))
				s->rate = json_object_get_uint64(v);
			if (c && json_object_object_get_ex(c, "held", &v))
				s->held = json_object_get_uint64(v) > 0;
		}
	}
	if (in && share && out && ws->n) {
		shares_weights(share, ws->n, in, hs->n, hs->me, out);
		for (i = 0; i < ws->n; i++)
			set_weight(&ws->c[i], be, out[i], false);
	}
	free(in);
	free(share);
	free(out);
}

void weights_policy(struct weights *ws, const struct backend *be,
		    const char *policy)
{
	int i;

	ws->policy = policy;
	own_shares(ws);
	for (i = 0; i < ws->n; i++)
		if (ws->c[i].weight)
			set_weight(&ws->c[i], be, ws->c[i].weight, true);
}

void weights_status(const struct weights *ws, struct json_object *classes)
{
	int i;

	for (i = 0; i < ws->n; i++) {
		struct json_object *c;

		if (!ws->c[i].weight)
			continue;
		if (!json_object_object_get_ex(classes, ws->c[i].name, &c)) {
			c = json_object_new_object();
			json_object_object_add(classes, ws->c[i].name, c);
		}
		json_object_object_add(c, "weight",
				       json_object_new_int(ws->c[i].weight));
	}
}
