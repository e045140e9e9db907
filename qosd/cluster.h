/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the cluster's keys hold, read for ceiling.c and weights.c: every
 * head's published status (PREFIX/heads/), and the maps of class names to
 * values that PREFIX/ceilings and PREFIX/shares are.
 */
#ifndef NVMET_QOSD_CLUSTER_H
#define NVMET_QOSD_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "etcd.h"

/* The most heads a split takes; more are left out (and logged). */
#define HEADS_MAX	1024

struct heads {
	struct json_object **st;	/* each head's status, in key order */
	int n;
	int me;				/* this head's place */
};

/*
 * Every status under @prefix (PREFIX/heads/), this head's (@self) among
 * them, appended empty when it is not published yet. 0, or -1 when etcd
 * did not answer. *@said keeps a malformed status from being logged
 * every interval.
 */
int heads_read(struct heads *hs, struct etcd *e, const char *prefix,
	       const char *self, bool *said);
void heads_free(struct heads *hs);

/* Head @i's object for class @name in its status, or NULL. */
struct json_object *heads_class(const struct heads *hs, int i,
				const char *name);

/* A parser of a class map's value into an array (@out) of @n entries. */
typedef int (*classmap_fn)(const char *text, void *out, int *n, char *why,
			   size_t len);

/*
 * Read the class map at @key when it changed since revision *@rev (@had:
 * there was one) and parse it with @parse: true with the new map in
 * @out and *@n (none when the key was deleted), logged naming @what;
 * false when nothing changed, etcd did not answer, or @parse refused it
 * (logged with the reason, the last map kept).
 */
bool classmap_read(struct etcd *e, const char *key, const char *what,
		   int64_t *rev, bool had, classmap_fn parse, void *out,
		   int *n);

/*
 * Parse @text as a JSON object of at most @max class names (each
 * checked) to values, the values left to the caller. The object (put it),
 * or NULL with the reason in @why.
 */
struct json_object *classmap_parse(const char *text, int max, char *why,
				   size_t len);

#endif /* NVMET_QOSD_CLUSTER_H */
