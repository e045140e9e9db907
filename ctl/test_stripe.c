// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of stripe.c and sysfs.c: "--stripe" by hand and its
 * refusals, and "--stripe auto" against a sysfs tree made here, of md
 * arrays that are not there (RAID0, RAID1, members of two sizes, on
 * partitions, not running, no md at all). Printed as KTAP; exits 1 if
 * any test fails.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "parse.h"
#include "stripe.h"
#include "sysfs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char root[64];
static bool tree_ok = true;

/* ---- The tree ----------------------------------------------------------- */

static void path_of(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = snprintf(buf, len, "%s/", root);

	vsnprintf(buf + n, len - n, fmt, ap);
}

/* mkdir -p of @root/@fmt... */
static void mkdirs(const char *fmt, ...)
{
	char path[512], *p;
	va_list ap;

	va_start(ap, fmt);
	path_of(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		tree_ok = false;
}

static void put(const char *text, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	path_of(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", text) < 0)
		tree_ok = false;
	if (f && fclose(f))
		tree_ok = false;
}

static void link_to(const char *target, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	path_of(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (symlink(target, path))
		tree_ok = false;
}

/*
 * A block device as sysfs shows it: its directory under devices/ (@dir,
 * inside its disk's for a partition), reached from class/block/NAME and
 * dev/block/MAJ:MIN.
 */
static void blockdev(const char *dir, const char *devnum, const char *size)
{
	const char *name = strrchr(dir, '/') + 1;
	char target[256];

	mkdirs("devices/%s", dir);
	put(devnum, "devices/%s/dev", dir);
	put(size, "devices/%s/size", dir);
	if (strchr(strchr(dir, '/') + 1, '/'))
		put("1", "devices/%s/partition", dir);
	snprintf(target, sizeof(target), "../../devices/%s", dir);
	link_to(target, "class/block/%s", name);
	link_to(target, "dev/block/%s", devnum);
}

/*
 * What md shows as member @name's size in an array of @chunk bytes:
 * md/dev-NAME/size, KiB, its sectors rounded down to whole chunks (no
 * data offset: an array built without a superblock).
 */
static void md_member_size(const char *dir, const char *link,
			   const char *name, const char *chunk)
{
	uint64_t sectors = 0, per = strtoull(chunk, NULL, 10) / 512;
	char kib[32];

	if (sysfs_read_u64(root, &sectors, "class/block/%s/size", name))
		tree_ok = false;
	if (per)
		sectors -= sectors % per;
	snprintf(kib, sizeof(kib), "%llu", (unsigned long long)sectors / 2);
	put(kib, "devices/%s/md/%s/size", dir, link);
}

/* md array @name (9:@minor) of @level over @members (NULL-ended). */
static void md(const char *name, int minor, const char *level,
	       const char *chunk, const char *raid_disks,
	       const char *const *members)
{
	char dir[64], devnum[16], link[80];
	int k;

	snprintf(dir, sizeof(dir), "virtual/%s", name);
	snprintf(devnum, sizeof(devnum), "9:%d", minor);
	blockdev(dir, devnum, "0");
	mkdirs("devices/%s/md", dir);
	put(level, "devices/%s/md/level", dir);
	put(chunk, "devices/%s/md/chunk_size", dir);
	put(raid_disks, "devices/%s/md/raid_disks", dir);
	for (k = 0; members && members[k]; k++) {
		snprintf(link, sizeof(link), "dev-%s", members[k]);
		mkdirs("devices/%s/md/%s", dir, link);
		md_member_size(dir, link, members[k], chunk);
		link_to(link, "devices/%s/md/rd%d", dir, k);
	}
}

static void make_tree(void)
{
	static const char *const order[] = { "nvme2n1", "nvme0n1", "nvme1n1", NULL };
	static const char *const pair[] = { "nvme0n1", "nvme1n1", NULL };
	static const char *const uneven[] = { "nvme0n1", "nvme3n1", NULL };
	static const char *const parts[] = { "nvme4n1p1", "nvme5n1p1", NULL };
	static const char *const one_disk[] = { "nvme4n1p1", "nvme4n1p2", NULL };
	static const char *const short_of[] = { "nvme0n1", NULL };
	static const char *const in_a_chunk[] = { "nvme0n1", "nvme6n1", NULL };

	mkdirs("class/block");
	mkdirs("dev/block");
	blockdev("pci/nvme0n1", "259:0", "2097152");
	blockdev("pci/nvme1n1", "259:1", "2097152");
	blockdev("pci/nvme2n1", "259:2", "2097152");
	blockdev("pci/nvme3n1", "259:3", "1048576");
	blockdev("pci/nvme4n1", "259:4", "4194304");
	blockdev("pci/nvme4n1/nvme4n1p1", "259:9", "1048576");
	blockdev("pci/nvme4n1/nvme4n1p2", "259:11", "1048576");
	blockdev("pci/nvme5n1", "259:5", "4194304");
	blockdev("pci/nvme5n1/nvme5n1p1", "259:10", "1048576");
	/* nvme0n1 and 64 sectors, less than md117's chunk of 128 */
	blockdev("pci/nvme6n1", "259:6", "2097216");
	md("md127", 127, "raid0", "32768", "3", order);
	md("md126", 126, "raid1", "0", "2", pair);
	md("md125", 125, "raid0", "524288", "2", uneven);
	md("md124", 124, "raid0", "65536", "2", parts);
	md("md123", 123, "raid0", "65536", "17", NULL);
	md("md122", 122, "raid0", "65536", "1", short_of);
	md("md121", 121, "raid0", "65536", "2", short_of);
	md("md120", 120, "", "0", "0", NULL);
	md("md119", 119, "raid0", "1000", "2", pair);
	md("md118", 118, "raid0", "65536", "2", one_disk);
	md("md117", 117, "raid0", "65536", "2", in_a_chunk);
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
}

/* ---- Cases -------------------------------------------------------------- */

#define DEV(maj, min)	((uint32_t)(maj) << KDEV_MINOR_BITS | (min))
#define MD(min)		DEV(9, min)

/* Members by hand: one letter is a disk of its own, or MAJOR:MINOR. */
static int fake_resolve(const char *arg, uint32_t *id, char *why,
			size_t whylen)
{
	if (arg[0] >= 'a' && arg[0] <= 'z' && !arg[1]) {
		*id = DEV(8, (arg[0] - 'a') * 16);
		return 0;
	}
	if (!parse_devnum(arg, id))
		return 0;
	snprintf(why, whylen, "no block device named '%s'", arg);
	return -ENODEV;
}

static const struct stripe_case {
	const char *name, *arg;
	uint32_t dev;
	const char *why;	/* start of the refusal; NULL: taken */
	uint32_t chunk;
	unsigned int n;
	uint32_t members[4];
} cases[] = {
	{ "by_hand_Ki", "32Ki:a,b", DEV(8, 240), NULL, 32768, 2,
	  { DEV(8, 0), DEV(8, 16) } },
	{ "by_hand_k_is_1024", "32k:a,b", DEV(8, 240), NULL, 32768, 2,
	  { DEV(8, 0), DEV(8, 16) } },
	{ "by_hand_KiB", "512KiB:c,b,a", DEV(8, 240), NULL, 524288, 3,
	  { DEV(8, 32), DEV(8, 16), DEV(8, 0) } },
	{ "by_hand_bytes_devnums", "4096:259:0,259:1", DEV(8, 240), NULL, 4096, 2,
	  { DEV(259, 0), DEV(259, 1) } },
	{ "by_hand_1Gi", "1Gi:a,b", DEV(8, 240), NULL, 1073741824, 2,
	  { DEV(8, 0), DEV(8, 16) } },
	{ "none", "none", DEV(8, 240), NULL, 0, 0, { 0 } },
	{ "no_colon", "32Ki", DEV(8, 240), "want auto, none or CHUNK:MEMBER", 0, 0, { 0 } },
	{ "bare_members", "a,b", DEV(8, 240), "want auto, none or CHUNK:MEMBER", 0, 0, { 0 } },
	{ "chunk_garbage", "32x:a,b", DEV(8, 240), "chunk '32x' is not a size", 0, 0, { 0 } },
	{ "chunk_empty", ":a,b", DEV(8, 240), "chunk '' is not a size", 0, 0, { 0 } },
	{ "chunk_not_512", "1000:a,b", DEV(8, 240), "a chunk of 1000 bytes is not a multiple of 512", 0, 0, { 0 } },
	{ "chunk_si_bytes", "32000:a,b", DEV(8, 240), "a chunk of 32000 bytes is not a multiple of 512", 0, 0, { 0 } },
	{ "chunk_zero", "0:a,b", DEV(8, 240), "a chunk of 0 bytes (--stripe none", 0, 0, { 0 } },
	{ "chunk_above_1Gi", "2Gi:a,b", DEV(8, 240), "a chunk of 2147483648 bytes is above the largest, 1Gi", 0, 0, { 0 } },
	{ "chunk_overflow", "99999999999999999999:a,b", DEV(8, 240), "chunk '99999999999999999999' is above the largest", 0, 0, { 0 } },
	{ "no_members", "32Ki:", DEV(8, 240), "member 1 is empty", 0, 0, { 0 } },
	{ "one_member", "32Ki:a", DEV(8, 240), "1 member: a stripe has 2 to 16", 0, 0, { 0 } },
	{ "empty_member", "32Ki:a,,b", DEV(8, 240), "member 2 is empty", 0, 0, { 0 } },
	{ "trailing_comma", "32Ki:a,b,", DEV(8, 240), "member 3 is empty", 0, 0, { 0 } },
	{ "member_twice", "32Ki:a,b,a", DEV(8, 240), "member 3 is the same disk as member 1 (8:0)", 0, 0, { 0 } },
	{ "member_twice_by_number", "32Ki:a,8:0", DEV(8, 240), "member 2 is the same disk as member 1", 0, 0, { 0 } },
	{ "member_is_device", "32Ki:a,b", DEV(8, 16), "member 2 is the striped device itself", 0, 0, { 0 } },
	{ "member_unknown", "32Ki:a,nosuch0", DEV(8, 240), "no block device named 'nosuch0'", 0, 0, { 0 } },
	{ "seventeen_members", "4Ki:a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", DEV(8, 400), "more than 16 members", 0, 0, { 0 } },
	{ "sixteen_members", "4Ki:a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p", DEV(8, 400), NULL, 4096, 16,
	  { DEV(8, 0), DEV(8, 16), DEV(8, 32), DEV(8, 48) } },

	/* md's sysfs: members in raid-disk order, not by name. */
	{ "auto_raid0", "auto", MD(127), NULL, 32768, 3,
	  { DEV(259, 2), DEV(259, 0), DEV(259, 1) } },
	{ "auto_partitions_are_their_disks", "auto", MD(124), NULL, 65536, 2,
	  { DEV(259, 4), DEV(259, 5) } },
	{ "auto_raid1_refused", "auto", MD(126), "md126 is a raid1 array: only RAID0", 0, 0, { 0 } },
	{ "auto_sizes_differ_refused", "auto", MD(125),
	  "the members of md125 differ in size (nvme0n1: 2097152 sectors, nvme3n1: 1048576)", 0, 0, { 0 } },
	{ "auto_sizes_differ_within_a_chunk", "auto", MD(117), NULL, 65536, 2,
	  { DEV(259, 0), DEV(259, 6) } },
	{ "auto_not_md_refused", "auto", DEV(259, 0), "nvme0n1 is not an md array", 0, 0, { 0 } },
	{ "auto_unknown_device_refused", "auto", DEV(4000, 1), "4000:1 is not an md array", 0, 0, { 0 } },
	{ "auto_17_members_refused", "auto", MD(123), "md123: 17 members: a stripe has 2 to 16", 0, 0, { 0 } },
	{ "auto_1_member_refused", "auto", MD(122), "md122: 1 member: a stripe has 2 to 16", 0, 0, { 0 } },
	{ "auto_member_missing_refused", "auto", MD(121), "md121 has no member rd1 (is it running?)", 0, 0, { 0 } },
	{ "auto_no_level_refused", "auto", MD(120), "md120 has no level yet", 0, 0, { 0 } },
	{ "auto_bad_chunk_refused", "auto", MD(119), "md119: a chunk of 1000 bytes is not a multiple of 512", 0, 0, { 0 } },
	{ "auto_one_disk_twice_refused", "auto", MD(118), "md118: member 2 is the same disk as member 1 (259:4)", 0, 0, { 0 } },
};

static bool case_ok(const struct stripe_case *c, int err,
		    const struct stripe *s, const char *why)
{
	static const struct stripe none;
	unsigned int i;

	if (c->why)
		return err && !strncmp(why, c->why, strlen(c->why)) &&
		       stripe_equal(s, &none);
	if (err || s->chunk != c->chunk || s->n != c->n)
		return false;
	for (i = 0; i < c->n && i < ARRAY_SIZE(c->members); i++)
		if (s->members[i] != c->members[i])
			return false;
	return true;
}

static void test_cases(void)
{
	const struct stripe_env env = { .sysfs = root, .resolve = fake_resolve };
	struct stripe s;
	char why[320];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = '\0';
		memset(&s, 0x5a, sizeof(s));
		err = stripe_parse(&env, cases[i].arg, cases[i].dev, &s, why,
				   sizeof(why));
		report(case_ok(&cases[i], err, &s, why), cases[i].name);
		if (!case_ok(&cases[i], err, &s, why))
			printf("# err %d, chunk %u, %u members, \"%s\"\n", err,
			       s.chunk, s.n, why);
	}
}

/* What the rest of the tool reads from sysfs, through the same root. */
static void test_sysfs(void)
{
	char name[64];
	uint32_t id = 0;

	report(sysfs_whole_disk(root, DEV(259, 9)) == DEV(259, 4),
	       "sysfs_partition_to_disk");
	report(sysfs_whole_disk(root, DEV(259, 0)) == DEV(259, 0) &&
	       sysfs_whole_disk(root, DEV(4000, 1)) == DEV(4000, 1),
	       "sysfs_disk_and_unknown_stay");
	report(!sysfs_block_devnum(root, "nvme5n1p1", &id) &&
	       id == DEV(259, 10), "sysfs_devnum_by_name");
	report(!sysfs_link_name(root, name, sizeof(name), "dev/block/9:127") &&
	       !strcmp(name, "md127"), "sysfs_name_of_devnum");
	report(sysfs_link_name(root, name, 4, "dev/block/9:127") == -ENAMETOOLONG,
	       "sysfs_name_too_long");
}

int main(void)
{
	int total = ARRAY_SIZE(cases) + 5 + 1;
	bool made;

	ktap_plan(total);
	snprintf(root, sizeof(root), "%s/nvmet-qos-sysfs.XXXXXX",
		 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 32 ?
		 getenv("TMPDIR") : "/tmp");
	made = mkdtemp(root);
	if (made)
		make_tree();
	report(made && tree_ok, "sysfs_tree_made");
	test_cases();
	test_sysfs();
	if (made)
		remove_tree();
	return ktap_finish(total);
}
