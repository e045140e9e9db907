// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the cluster's keys (cluster.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ctl/parse.h"
#include "cluster.h"
#include "log.h"

int heads_read(struct heads *hs, struct etcd *e, const char *prefix,
	       const char *self, bool *said)
{
	struct etcd_kv *kvs;
	int i, n;

	memset(hs, 0, sizeof(*hs));
	hs->st = calloc(HEADS_MAX, sizeof(*hs->st));
	if (!hs->st || etcd_get_prefix(e, prefix, &kvs, &n)) {
		free(hs->st);
		hs->st = NULL;
		return -1;
	}
	hs->me = -1;
	for (i = 0; i < n; i++) {
		struct json_object *o = json_tokener_parse(kvs[i].value);

		if (hs->n == HEADS_MAX - 1 ||
		    !json_object_is_type(o, json_type_object)) {
			if (!*said)
				say("%s: %s; left out", kvs[i].key,
				    hs->n == HEADS_MAX - 1 ? "more heads than the split takes" :
				    "not a head's status");
			*said = true;
			json_object_put(o);
		} else {
			if (!strcmp(kvs[i].key, self))
				hs->me = hs->n;
			hs->st[hs->n++] = o;
		}
		etcd_kv_free(&kvs[i]);
	}
	free(kvs);
	if (hs->me < 0) {
		hs->me = hs->n;
		hs->st[hs->n++] = json_object_new_object();
	}
	return 0;
}

void heads_free(struct heads *hs)
{
	int i;

	for (i = 0; hs->st && i < hs->n; i++)
		json_object_put(hs->st[i]);
	free(hs->st);
	memset(hs, 0, sizeof(*hs));
}

struct json_object *heads_class(const struct heads *hs, int i,
				const char *name)
{
	struct json_object *classes, *c;

	if (!json_object_object_get_ex(hs->st[i], "classes", &classes) ||
	    !json_object_object_get_ex(classes, name, &c) ||
	    !json_object_is_type(c, json_type_object))
		return NULL;
	return c;
}

bool classmap_read(struct etcd *e, const char *key, const char *what,
		   int64_t *rev, bool had, classmap_fn parse, void *out,
		   int *n)
{
	struct etcd_kv kv;
	char why[256];
	int64_t now;
	int ret = etcd_get(e, key, &kv, &now);

	if (ret < 0 || (ret == 1 && !had) ||
	    (ret == 0 && kv.mod_revision == *rev)) {
		etcd_kv_free(&kv);
		return false;
	}
	if (ret == 1) {
		*(void **)out = NULL;
		*n = 0;
		*rev = 0;
		say("%s deleted: no cluster %s", key, what);
		return true;
	}
	if (parse(kv.value, out, n, why, sizeof(why))) {
		say("refused the cluster %s of revision %" PRId64 ", keeping %s: %s",
		    what, kv.mod_revision, *rev ? "the last ones" : "none", why);
		*rev = kv.mod_revision;
		etcd_kv_free(&kv);
		return false;
	}
	say("cluster %s of revision %" PRId64 ": %d class(es)", what,
	    kv.mod_revision, *n);
	*rev = kv.mod_revision;
	etcd_kv_free(&kv);
	return true;
}

struct json_object *classmap_parse(const char *text, int max, char *why,
				   size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;

	if (!tok) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!root || json_tokener_get_parse_end(tok) != strlen(text)) {
		snprintf(why, len, "not JSON: %s",
			 json_tokener_error_desc(json_tokener_get_error(tok)));
		json_tokener_free(tok);
		json_object_put(root);
		return NULL;
	}
	json_tokener_free(tok);
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(why, len, "want an object of class names");
		goto bad;
	}
	if (json_object_object_length(root) > max) {
		snprintf(why, len, "%d classes; at most %d",
			 json_object_object_length(root), max);
		goto bad;
	}
	json_object_object_foreach(root, name, v) {
		char msg[128];

		(void)v;
		if (class_name_validate(name, msg, sizeof(msg))) {
			snprintf(why, len, "\"%.40s\": %s", name, msg);
			goto bad;
		}
	}
	return root;
bad:
	json_object_put(root);
	return NULL;
}
