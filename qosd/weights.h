/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cluster shares: classes' shares for the whole cluster, kept at
 * PREFIX/shares as {"CLASS": SHARE, ...}, turned into local weights
 * (shares.h) that each head sets as the classes' own shares, renewed
 * every interval from every head's published figures (PREFIX/heads/).
 */
#ifndef NVMET_QOSD_WEIGHTS_H
#define NVMET_QOSD_WEIGHTS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "backend.h"
#include "etcd.h"

#define WEIGHTS_MAX	64

struct cshare {
	char name[CLASS_NAME_MAX + 1];
	uint32_t share;		/* the class's share of the cluster */
	uint32_t weight;	/* in force on this head; 0: none set */
	uint32_t own;		/* the policy's share of the class here */
	bool failed;		/* the last set failed, and that was logged */
};

struct weights {
	char key[512];		/* PREFIX/shares */
	const char *policy;	/* the policy in force (its JSON), or NULL */
	struct cshare *c;
	int n;
	int64_t rev;		/* mod_revision read last, applied or not */
};

void weights_init(struct weights *ws, const char *prefix);
void weights_free(struct weights *ws);

/* Parse PREFIX/shares' value. 0, or -1 with the reason in @why. */
int weights_parse(const char *text, struct cshare **out, int *n, char *why,
		  size_t len);

/*
 * Read PREFIX/shares (when it changed); a class left out of it gets its
 * own share from the policy back.
 */
void weights_read(struct weights *ws, struct etcd *e,
		  const struct backend *be);

struct heads;
/* Set this head's weights from every head's published figures. */
void weights_set(struct weights *ws, const struct backend *be,
		 const struct heads *hs);

/* A policy was applied: set the weights in force again at once. */
void weights_policy(struct weights *ws, const struct backend *be,
		    const char *policy);

/* Add each class's weight here to the status's "classes" object. */
void weights_status(const struct weights *ws, struct json_object *classes);

#endif /* NVMET_QOSD_WEIGHTS_H */
