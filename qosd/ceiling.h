/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cluster ceilings: a class's ceiling for the whole cluster, kept at
 * PREFIX/ceilings as {"CLASS": RATE, ...}, split into per-head slices
 * (slice.h) that each head sets as the class's own ceiling, renewed every
 * interval from every head's published figures (PREFIX/heads/).
 */
#ifndef NVMET_QOSD_CEILING_H
#define NVMET_QOSD_CEILING_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "backend.h"
#include "etcd.h"

/* A ceiling below this is refused: one 4 KiB request a second. */
#define CEILING_MIN	4096
#define CEILINGS_MAX	64

struct ceiling {
	char name[CLASS_NAME_MAX + 1];
	uint64_t bps;		/* the cluster's ceiling for the class */
	uint64_t slice;		/* in force on this head; 0: none set */
	uint64_t own_min;	/* the policy's floor and ceiling of the */
	uint64_t own_max;	/* class here (0: none) */
	bool failed;		/* the last set failed, and that was logged */
};

struct ceilings {
	char key[512];		/* PREFIX/ceilings */
	const char *policy;	/* the policy in force (its JSON), or NULL */
	struct ceiling *c;
	int n;
	int64_t rev;		/* mod_revision read last, applied or not */
	int last_seen;		/* heads in the last read of PREFIX/heads/ */
	bool fallback;		/* on the static slices, etcd away */
	bool said_min;		/* a floor above a slice: logged */
};

void ceilings_init(struct ceilings *cs, const char *prefix);
void ceilings_free(struct ceilings *cs);

/*
 * Parse the value of PREFIX/ceilings into *@out (free() it) and *@n.
 * 0, or -1 with the reason in @why.
 */
int ceilings_parse(const char *text, struct ceiling **out, int *n,
		   char *why, size_t len);

/*
 * Read PREFIX/ceilings (when it changed); a class left out of it gets
 * its own ceiling from the policy back.
 */
void ceilings_read(struct ceilings *cs, struct etcd *e,
		   const struct backend *be);

struct heads;
/* Set this head's slices from every head's published figures. */
void ceilings_split(struct ceilings *cs, const struct backend *be,
		    const struct heads *hs);

/*
 * etcd away long enough for the other heads to stop counting this one:
 * the static slices (once).
 */
void ceilings_fallback(struct ceilings *cs, const struct backend *be);

/*
 * A policy was applied (@policy, its JSON, stays valid until the next
 * call): it put back its own ceilings of the capped classes, so the
 * slices in force are set again at once, within the policy's floors.
 */
void ceilings_policy(struct ceilings *cs, const struct backend *be,
		     const char *policy);

/* Add each capped class's slice to the status's "classes" object. */
void ceilings_status(const struct ceilings *cs, struct json_object *classes);

#endif /* NVMET_QOSD_CEILING_H */
