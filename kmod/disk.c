// SPDX-License-Identifier: GPL-2.0
/*
 * What a block device offers the scheduler: how many requests it serves
 * at once and which of its queues each CPU's submitter reaches (a
 * domain's shape), for the disk a namespace is on and for each member of
 * a stripe. No nvmet in here.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/err.h>

#include "compat.h"
#include "nvmet-qos.h"

/*
 * How many requests @disk serves at once: its driver tags over the hardware
 * queues that take nvmet's bios (poll queues serve only polled I/O), and
 * which queue a submitter on each CPU reaches, as blk-mq maps it: the
 * default map's. Shared tags are one pool; so are a disk's tags when it
 * has queues for reads apart, whose map is not followed here. 0 tags for
 * a disk without blk-mq (a stacked device), whose limit is below it, out
 * of our sight.
 */
static void disk_shape(struct gendisk *disk, struct nq_shape *shape)
{
	struct request_queue *q = disk->queue;
	struct blk_mq_tag_set *set = q->tag_set;
	const struct blk_mq_queue_map *map;
	u32 tags, reads = 0;

	*shape = (struct nq_shape){ 0 };
	if (!queue_is_mq(q) || !set)
		return;
	tags = set->queue_depth - set->reserved_tags;
	if (set->flags & BLK_MQ_F_TAG_HCTX_SHARED) {
		shape->tags = tags;
		return;
	}
	map = &set->map[HCTX_TYPE_DEFAULT];
	if (set->nr_maps > HCTX_TYPE_READ)
		reads = set->map[HCTX_TYPE_READ].nr_queues;
	shape->tags = tags * (map->nr_queues + reads);
	if (!reads && map->nr_queues > 1 && map->mq_map) {
		shape->queues = map->nr_queues;
		shape->map = map->mq_map;
	}
}

/*
 * Open the disk of dev_t @devt, a member of a stripe, for its shape
 * (tags, queues and their map, valid until nq_member_close()). Not
 * exclusively: the array that holds it keeps it.
 */
int nq_member_open(u32 devt, struct nq_member *m)
{
	struct block_device *bdev;

	m->handle = nq_bdev_open(devt, &bdev);
	if (IS_ERR(m->handle))
		return PTR_ERR(m->handle);
	disk_shape(bdev->bd_disk, &m->shape);
	return 0;
}

void nq_member_close(struct nq_member *m)
{
	nq_bdev_close(m->handle);
}

/* The scheduling domain of @disk, which follows its shape. */
struct nq_domain *nq_disk_domain(struct gendisk *disk)
{
	struct nq_shape shape;

	disk_shape(disk, &shape);
	return nq_domain_get(disk_devt(disk), disk->disk_name, &shape);
}
