/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small reads of sysfs: attributes of one line, device numbers, the names
 * links point to. Each function takes the root sysfs is mounted on
 * (SYSFS_ROOT) and a path under it, so that the unit tests can point them
 * at a tree of their own. Pure: no netlink, test_stripe links it.
 */
#ifndef NVMET_QOS_SYSFS_H
#define NVMET_QOS_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#define SYSFS_ROOT	"/sys"

/*
 * The first line of @root/@fmt... into @buf, without its newline.
 * Returns 0, or a negative errno (-ENAMETOOLONG for a path too long).
 */
int sysfs_read(const char *root, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The decimal number in @root/@fmt..., as parse_uint() reads it. */
int sysfs_read_u64(const char *root, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The device number of block device @name (nvme0n1), kdev_make()'s. */
int sysfs_block_devnum(const char *root, const char *name, uint32_t *id);

/* The last component of where link @root/@fmt... points. */
int sysfs_link_name(const char *root, char *buf, size_t len,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The whole disk of block device @id: partitions share their disk's
 * tags and its domain. Devices sysfs does not know (a file system with
 * no block device, such as tmpfs) stay as they are.
 */
uint32_t sysfs_whole_disk(const char *root, uint32_t id);

#endif /* NVMET_QOS_SYSFS_H */
