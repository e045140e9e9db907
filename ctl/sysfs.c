// SPDX-License-Identifier: GPL-2.0
/*
 * Small reads of sysfs, under a root given by the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "sysfs.h"

/* @root/@fmt... into @path (PATH_MAX bytes); -ENAMETOOLONG if it is longer. */
static int vpath(char *path, const char *root, const char *fmt, va_list ap)
{
	int len = snprintf(path, PATH_MAX, "%s/", root), n;

	if (len < 0 || len >= PATH_MAX)
		return -ENAMETOOLONG;
	n = vsnprintf(path + len, PATH_MAX - len, fmt, ap);
	return n < 0 || n >= PATH_MAX - len ? -ENAMETOOLONG : 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The first line of @root/@fmt... into @buf. */
static int vread(const char *root, char *buf, size_t len, const char *fmt,
		 va_list ap)
{
	char path[PATH_MAX];
	int err = vpath(path, root, fmt, ap);

	return err ? err : read_line(path, buf, len);
}

int sysfs_read(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vread(root, buf, len, fmt, ap);
	va_end(ap);
	return err;
}

int sysfs_read_u64(const char *root, uint64_t *v, const char *fmt, ...)
{
	char buf[32];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vread(root, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return err ? err : parse_uint(buf, 0, UINT64_MAX, v);
}

int sysfs_block_devnum(const char *root, const char *name, uint32_t *id)
{
	char buf[32];
	int err;

	err = sysfs_read(root, buf, sizeof(buf), "class/block/%s/dev", name);
	return err ? err : parse_devnum(buf, id);
}

int sysfs_link_name(const char *root, char *buf, size_t len,
		    const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;
	int err;

	va_start(ap, fmt);
	err = vpath(path, root, fmt, ap);
	va_end(ap);
	if (err)
		return err;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base)
		return -EINVAL;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

uint32_t sysfs_whole_disk(const char *root, uint32_t id)
{
	char buf[32];
	uint32_t disk;

	if (sysfs_read(root, buf, sizeof(buf), "dev/block/%u:%u/partition",
		       kdev_major(id), kdev_minor(id)))
		return id;
	/* A partition's directory sits in its disk's. */
	if (sysfs_read(root, buf, sizeof(buf), "dev/block/%u:%u/../dev",
		       kdev_major(id), kdev_minor(id)) ||
	    parse_devnum(buf, &disk))
		return id;
	return disk;
}
