// SPDX-License-Identifier: GPL-2.0
/*
 * A striped device's chunk and members: checked as the kernel checks
 * them, read from md's sysfs, or parsed from "--stripe".
 *
 * Nothing the kernel exports names an md array's members, their order or
 * its chunk; md's sysfs directory does: md/level, md/chunk_size (bytes),
 * md/raid_disks and the links md/rd0 .. md/rdN-1, each to "dev-MEMBER",
 * in the order md places chunks on them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "stripe.h"
#include "sysfs.h"

/* Longer than any block device name (DISK_NAME_LEN is 32). */
#define NAME_MAX_LEN	64

int stripe_check_chunk(uint64_t chunk, char *why, size_t whylen)
{
	if (chunk % 512)
		snprintf(why, whylen,
			 "a chunk of %llu bytes is not a multiple of 512",
			 (unsigned long long)chunk);
	else if (!chunk)
		snprintf(why, whylen,
			 "a chunk of 0 bytes (--stripe none unstripes a device)");
	else if (chunk > NVMET_QOS_STRIPE_CHUNK_MAX)
		snprintf(why, whylen,
			 "a chunk of %llu bytes is above the largest, 1Gi",
			 (unsigned long long)chunk);
	else
		return 0;
	return -EINVAL;
}

int stripe_check_count(uint64_t n, char *why, size_t whylen)
{
	if (n >= 2 && n <= NVMET_QOS_STRIPE_MEMBERS_MAX)
		return 0;
	snprintf(why, whylen, "%llu member%s: a stripe has 2 to %d",
		 (unsigned long long)n, n == 1 ? "" : "s",
		 NVMET_QOS_STRIPE_MEMBERS_MAX);
	return -EINVAL;
}

int stripe_add_member(struct stripe *s, uint32_t dev, uint32_t id,
		      char *why, size_t whylen)
{
	unsigned int i;

	if (s->n == NVMET_QOS_STRIPE_MEMBERS_MAX) {
		snprintf(why, whylen, "more than %d members",
			 NVMET_QOS_STRIPE_MEMBERS_MAX);
		return -EINVAL;
	}
	if (id == dev) {
		snprintf(why, whylen, "member %u is the striped device itself",
			 s->n + 1);
		return -EINVAL;
	}
	for (i = 0; i < s->n; i++) {
		if (s->members[i] == id) {
			snprintf(why, whylen,
				 "member %u is the same disk as member %u (%u:%u)",
				 s->n + 1, i + 1, kdev_major(id), kdev_minor(id));
			return -EINVAL;
		}
	}
	s->members[s->n++] = id;
	return 0;
}

bool stripe_equal(const struct stripe *a, const struct stripe *b)
{
	return a->chunk == b->chunk && a->n == b->n &&
	       !memcmp(a->members, b->members, a->n * sizeof(a->members[0]));
}

/* ---- md ----------------------------------------------------------------- */

/* What md stripes like RAID0: checked before anything else is read. */
static int md_level(const char *sysfs, uint32_t dev, const char *md,
		    char *why, size_t whylen)
{
	char level[32];
	int err;

	err = sysfs_read(sysfs, level, sizeof(level), "dev/block/%u:%u/md/level",
			 kdev_major(dev), kdev_minor(dev));
	if (err == -ENOENT) {
		snprintf(why, whylen,
			 "%s is not an md array; give the stripe of other devices as CHUNK:MEMBER,MEMBER,...",
			 md);
		return -ENODEV;
	}
	if (err) {
		snprintf(why, whylen, "cannot read the level of %s: %s", md,
			 strerror(-err));
		return err;
	}
	if (!strcmp(level, "raid0"))
		return 0;
	if (!level[0])
		snprintf(why, whylen, "%s has no level yet (is it assembled?)",
			 md);
	else
		snprintf(why, whylen,
			 "%s is a %s array: only RAID0 puts its chunks on its members in turn",
			 md, level);
	return -EINVAL;
}

/* md's chunk_size and raid_disks, checked as the kernel would. */
static int md_shape(const char *sysfs, uint32_t dev, const char *md,
		    struct stripe *s, uint64_t *n, char *why, size_t whylen)
{
	char reason[128];
	uint64_t chunk;
	int err;

	err = sysfs_read_u64(sysfs, &chunk, "dev/block/%u:%u/md/chunk_size",
			     kdev_major(dev), kdev_minor(dev));
	if (!err)
		err = sysfs_read_u64(sysfs, n, "dev/block/%u:%u/md/raid_disks",
				     kdev_major(dev), kdev_minor(dev));
	if (err) {
		snprintf(why, whylen, "cannot read the shape of %s: %s", md,
			 strerror(-err));
		return err;
	}
	if (stripe_check_chunk(chunk, reason, sizeof(reason)) ||
	    stripe_check_count(*n, reason, sizeof(reason))) {
		snprintf(why, whylen, "%s: %s", md, reason);
		return -EINVAL;
	}
	s->chunk = (uint32_t)chunk;
	return 0;
}

/*
 * Member @k of @md: its name (md/rdK links to "dev-NAME") and the sectors
 * md lays out on it: md/dev-NAME/size, in KiB, past any data offset and,
 * once a RAID0 runs, rounded down to whole chunks. Members whose own sizes
 * differ by less than a chunk are one zone, as md counts them.
 */
static int md_member(const char *sysfs, uint32_t dev, const char *md,
		     unsigned int k, char *name, uint64_t *size,
		     uint32_t *id, char *why, size_t whylen)
{
	char link[NAME_MAX_LEN + 4];
	int err;

	err = sysfs_link_name(sysfs, link, sizeof(link),
			      "dev/block/%u:%u/md/rd%u", kdev_major(dev),
			      kdev_minor(dev), k);
	if (err) {
		snprintf(why, whylen, "%s has no member rd%u (is it running?)",
			 md, k);
		return err;
	}
	if (strncmp(link, "dev-", 4)) {
		snprintf(why, whylen, "%s's rd%u links to '%s', not a member",
			 md, k, link);
		return -EINVAL;
	}
	strcpy(name, link + 4);
	err = sysfs_block_devnum(sysfs, name, id);
	if (!err)
		err = sysfs_read_u64(sysfs, size, "dev/block/%u:%u/md/%s/size",
				     kdev_major(dev), kdev_minor(dev), link);
	if (err) {
		snprintf(why, whylen, "cannot read %s, member rd%u of %s: %s",
			 name, k, md, strerror(-err));
		return err;
	}
	*size *= 2;
	*id = sysfs_whole_disk(sysfs, *id);
	return 0;
}

/* The members in md's order, of one size as md counts them. */
static int md_members(const char *sysfs, uint32_t dev, const char *md,
		      unsigned int n, struct stripe *s, char *why,
		      size_t whylen)
{
	char name[NAME_MAX_LEN], first[NAME_MAX_LEN], reason[128];
	uint64_t size, size0 = 0;
	unsigned int k;
	uint32_t id;
	int err;

	for (k = 0; k < n; k++) {
		err = md_member(sysfs, dev, md, k, name, &size, &id, why,
				whylen);
		if (err)
			return err;
		if (!k) {
			size0 = size;
			strcpy(first, name);
		} else if (size != size0) {
			snprintf(why, whylen,
				 "the members of %s differ in size (%s: %llu sectors, %s: %llu): md lays such an array out in zones, which a stripe does not follow",
				 md, first, (unsigned long long)size0, name,
				 (unsigned long long)size);
			return -EINVAL;
		}
		if (stripe_add_member(s, dev, id, reason, sizeof(reason))) {
			snprintf(why, whylen, "%s: %s", md, reason);
			return -EINVAL;
		}
	}
	return 0;
}

int stripe_from_md(const char *sysfs, uint32_t dev, struct stripe *s,
		   char *why, size_t whylen)
{
	char md[NAME_MAX_LEN];
	uint64_t n;
	int err;

	memset(s, 0, sizeof(*s));
	/* Messages name the array as the kernel does (md127), whatever DEV was. */
	if (sysfs_link_name(sysfs, md, sizeof(md), "dev/block/%u:%u",
			    kdev_major(dev), kdev_minor(dev)))
		snprintf(md, sizeof(md), "%u:%u", kdev_major(dev),
			 kdev_minor(dev));
	err = md_level(sysfs, dev, md, why, whylen);
	if (!err)
		err = md_shape(sysfs, dev, md, s, &n, why, whylen);
	if (!err)
		err = md_members(sysfs, dev, md, (unsigned int)n, s, why,
				 whylen);
	if (err)
		memset(s, 0, sizeof(*s));
	return err;
}

/* ---- By hand ------------------------------------------------------------ */

static int parse_stripe_chunk(const char *arg, struct stripe *s, char *why,
			      size_t whylen)
{
	uint64_t chunk;
	int err;

	err = parse_chunk(arg, &chunk);
	if (err == -ERANGE) {
		snprintf(why, whylen, "chunk '%s' is above the largest, 1Gi",
			 arg);
		return err;
	}
	if (err) {
		snprintf(why, whylen,
			 "chunk '%s' is not a size (want bytes, or such as 64k or 512KiB)",
			 arg);
		return err;
	}
	if (stripe_check_chunk(chunk, why, whylen))
		return -EINVAL;
	s->chunk = (uint32_t)chunk;
	return 0;
}

/* Comma-separated @list, in place, members of @s through @resolve. */
static int parse_members(const struct stripe_env *env, char *list,
			 uint32_t dev, struct stripe *s, char *why,
			 size_t whylen)
{
	char *m, *end;
	uint32_t id;

	for (m = list; m; m = end) {
		end = strchr(m, ',');
		if (end)
			*end++ = '\0';
		if (!*m) {
			snprintf(why, whylen, "member %u is empty", s->n + 1);
			return -EINVAL;
		}
		if (env->resolve(m, &id, why, whylen))
			return -ENODEV;
		if (stripe_add_member(s, dev, id, why, whylen))
			return -EINVAL;
	}
	return stripe_check_count(s->n, why, whylen);
}

/* "CHUNK:MEMBER,MEMBER,...": CHUNK holds no ':', MAJOR:MINOR members do. */
static int parse_by_hand(const struct stripe_env *env, const char *arg,
			 uint32_t dev, struct stripe *s, char *why,
			 size_t whylen)
{
	char *copy = strdup(arg), *members;
	int err = -EINVAL;

	if (!copy) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	members = strchr(copy, ':');
	if (!members) {
		snprintf(why, whylen,
			 "want auto, none or CHUNK:MEMBER,MEMBER,... (such as 512Ki:nvme0n1,nvme1n1)");
		goto out;
	}
	*members++ = '\0';
	err = parse_stripe_chunk(copy, s, why, whylen);
	if (!err)
		err = parse_members(env, members, dev, s, why, whylen);
out:
	free(copy);
	return err;
}

int stripe_parse(const struct stripe_env *env, const char *arg, uint32_t dev,
		 struct stripe *s, char *why, size_t whylen)
{
	int err;

	memset(s, 0, sizeof(*s));
	if (!strcmp(arg, "none"))
		return 0;
	if (!strcmp(arg, "auto"))
		return stripe_from_md(env->sysfs, dev, s, why, whylen);
	err = parse_by_hand(env, arg, dev, s, why, whylen);
	if (err)
		memset(s, 0, sizeof(*s));
	return err;
}
