/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stripe of a striped device (md RAID0, dm-stripe): its chunk and its
 * members in the order chunks go to them (chunk k on member k mod n), as
 * "device set --stripe" takes it and dev-set carries it. md has no tags
 * of its own; told the stripe, the kernel counts a request on the members
 * its range spans, whose tags it takes. Pure: no netlink, so test_stripe
 * runs it against a sysfs tree of its own.
 */
#ifndef NVMET_QOS_STRIPE_H
#define NVMET_QOS_STRIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmet_qos.h"

struct stripe {
	uint32_t chunk;		/* bytes; 0: not striped */
	unsigned int n;		/* members, 0 when not striped */
	uint32_t members[NVMET_QOS_STRIPE_MEMBERS_MAX];	/* dev_t, kdev_make() */
};

/*
 * A member given by hand, as "device set" takes its DEVICE (a name, a
 * path or MAJOR:MINOR), into the dev_t of its whole disk. Returns 0, or
 * nonzero with a reason in @why.
 */
typedef int (*stripe_resolve_fn)(const char *arg, uint32_t *id, char *why,
				 size_t whylen);

/* Where --stripe looks: sysfs's root (SYSFS_ROOT) and members by hand. */
struct stripe_env {
	const char *sysfs;
	stripe_resolve_fn resolve;
};

/*
 * The checks the kernel makes, with reasons for people. Each returns 0,
 * or -EINVAL with a reason in @why.
 */
/* A chunk: a multiple of 512 bytes, 512 to NVMET_QOS_STRIPE_CHUNK_MAX. */
int stripe_check_chunk(uint64_t chunk, char *why, size_t whylen);
/* @n members: 2 to NVMET_QOS_STRIPE_MEMBERS_MAX. */
int stripe_check_count(uint64_t n, char *why, size_t whylen);
/* Member @id appended to @s, the stripe of @dev: once each, never @dev. */
int stripe_add_member(struct stripe *s, uint32_t dev, uint32_t id,
		      char *why, size_t whylen);

/*
 * The stripe md array @dev has now, from sysfs under @sysfs: a RAID0 of
 * members of one size (else md lays it out in zones, which a chunk and a
 * member list do not describe), members in md's order (md/rd0, rd1, ...)
 * as the dev_t of their whole disk.
 */
int stripe_from_md(const char *sysfs, uint32_t dev, struct stripe *s,
		   char *why, size_t whylen);

/*
 * --stripe @arg of device @dev: "auto" (stripe_from_md()), "none" (chunk
 * 0: not striped) or "CHUNK:MEMBER,MEMBER,..." (CHUNK as parse_chunk()
 * reads it, members through @env->resolve).
 */
int stripe_parse(const struct stripe_env *env, const char *arg, uint32_t dev,
		 struct stripe *s, char *why, size_t whylen);

bool stripe_equal(const struct stripe *a, const struct stripe *b);

#endif /* NVMET_QOS_STRIPE_H */
