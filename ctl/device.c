// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos device ..." commands: the scheduling domains (backing block
 * devices) and the engine's view of them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "nvmet_qos.h"
#include "nl.h"
#include "nvmet-qos.h"
#include "obj.h"
#include "parse.h"
#include "table.h"

/* Kernel dev_t as the uapi sends it: MKDEV(major, minor). */
#define DEV_MINOR_BITS	20
#define DEV_MINOR_MASK	((1U << DEV_MINOR_BITS) - 1)

/* Longer than any block device name (DISK_NAME_LEN is 32). */
#define DEV_NAME_MAX	64

/*
 * Output order after name and major:minor. Cost units are bytes of read
 * transfer, so depth, in-flight and rate read as bytes and bytes/s.
 */
static const struct field dev_fields[] = {
	{ NVMET_QOS_A_DEV_DEPTH,	"depth",	"DEPTH",	VAL_HUMAN, false },
	{ NVMET_QOS_A_DEV_INFLIGHT,	"inflight",	"INFLIGHT",	VAL_HUMAN, false },
	{ NVMET_QOS_A_DEV_QUEUED,	"queued",	"QUEUED",	VAL_PLAIN, false },
	{ NVMET_QOS_A_DEV_COST,		"cost",		NULL,		VAL_PLAIN, false },
	{ NVMET_QOS_A_DEV_RATE,		"rate",		"RATE",		VAL_HUMAN, false },
	{ NVMET_QOS_A_DEV_WRITE_COST,	"write_cost",	"WRITE-COST",	VAL_PERCENT, false },
	{ NVMET_QOS_A_DEV_IO_COST,	"io_cost",	"IO-COST",	VAL_PLAIN, false },
};

#define NFIELDS ARRAY_SIZE(dev_fields)

static const struct nla_policy dev_policy[NVMET_QOS_A_DEV_MAX + 1] = {
	[NVMET_QOS_A_DEV_ID]		= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_DEV_NAME]		= { .type = NLA_STRING,
					    .maxlen = DEV_NAME_MAX },
	[NVMET_QOS_A_DEV_DEPTH]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_INFLIGHT]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_QUEUED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_COST]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_RATE]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_WRITE_COST]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_DEV_IO_COST]	= { .type = NLA_U32, .maxlen = 4 },
};

/* Spec names, used when the kernel blames an attribute. */
static const char *const dev_attr_names[NVMET_QOS_A_DEV_MAX + 1] = {
	[NVMET_QOS_A_DEV_UNSPEC]	= "unspec",
	[NVMET_QOS_A_DEV_PAD]		= "pad",
	[NVMET_QOS_A_DEV_ID]		= "id",
	[NVMET_QOS_A_DEV_NAME]		= "name",
	[NVMET_QOS_A_DEV_DEPTH]		= "depth",
	[NVMET_QOS_A_DEV_INFLIGHT]	= "inflight",
	[NVMET_QOS_A_DEV_QUEUED]	= "queued",
	[NVMET_QOS_A_DEV_COST]		= "cost",
	[NVMET_QOS_A_DEV_RATE]		= "rate",
	[NVMET_QOS_A_DEV_WRITE_COST]	= "write-cost",
	[NVMET_QOS_A_DEV_IO_COST]	= "io-cost",
};

static const struct qos_attr_set dev_set = {
	.policy = dev_policy,
	.names = dev_attr_names,
	.maxtype = NVMET_QOS_A_DEV_MAX,
};

struct device {
	char name[DEV_NAME_MAX];
	uint32_t id;
	uint64_t val[NFIELDS];
	bool have[NFIELDS];
};

static int dev_from_attrs(struct nlattr **tb, void *obj)
{
	struct device *d = obj;

	/* The id is the key; a domain without it is a malformed reply. */
	if (!tb[NVMET_QOS_A_DEV_ID])
		return -EBADMSG;
	d->id = nla_get_u32(tb[NVMET_QOS_A_DEV_ID]);
	if (tb[NVMET_QOS_A_DEV_NAME])
		nla_strlcpy(d->name, tb[NVMET_QOS_A_DEV_NAME], sizeof(d->name));
	qos_nla_fields(tb, dev_fields, NFIELDS, d->val, d->have);
	return 0;
}

static int dev_cmp(const void *a, const void *b)
{
	const struct device *da = a, *db = b;

	return da->id < db->id ? -1 : da->id > db->id;
}

static unsigned int dev_major(uint32_t id)
{
	return id >> DEV_MINOR_BITS;
}

static unsigned int dev_minor(uint32_t id)
{
	return id & DEV_MINOR_MASK;
}

static int dev_print_json(const void *obj)
{
	const struct device *d = obj;

	fputs("{\"name\":", stdout);
	if (!d->name[0])
		fputs("null", stdout);
	else if (json_print_str(stdout, d->name))
		return -1;
	printf(",\"id\":%u,\"major\":%u,\"minor\":%u", (unsigned int)d->id,
	       dev_major(d->id), dev_minor(d->id));
	json_print_fields(stdout, dev_fields, NFIELDS, d->val, d->have);
	putchar('}');
	return 0;
}

static void dev_table_head(struct table *t)
{
	size_t i;

	table_add(t, "DEVICE");
	table_add(t, "ID");
	for (i = 0; i < NFIELDS; i++)
		if (dev_fields[i].title)
			table_add(t, dev_fields[i].title);
}

static void dev_table_row(struct table *t, const void *obj)
{
	const struct device *d = obj;
	char id[24];

	snprintf(id, sizeof(id), "%u:%u", dev_major(d->id), dev_minor(d->id));
	table_add(t, d->name[0] ? d->name : "-");
	table_add(t, id);
	table_add_fields(t, dev_fields, NFIELDS, d->val, d->have);
}

static const struct qos_obj dev_obj = {
	.set = &dev_set,
	.get_cmd = NVMET_QOS_CMD_DEV_GET,
	.name = "device",
	.list_key = "devices",
	.size = sizeof(struct device),
	.from_attrs = dev_from_attrs,
	.cmp = dev_cmp,
	.print_json = dev_print_json,
	/* DEVICE ID DEPTH INFLIGHT QUEUED RATE WRITE-COST IO-COST */
	.align = "lrrrrrrr",
	.table_head = dev_table_head,
	.table_row = dev_table_row,
};

int cmd_device_list(const struct cmd *cmd, int argc, char **argv)
{
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);
	return qos_obj_list(&dev_obj, json);
}
