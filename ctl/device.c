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
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "nvmet_qos.h"
#include "nl.h"
#include "nvmet-qos.h"
#include "obj.h"
#include "parse.h"
#include "stripe.h"
#include "sysfs.h"
#include "table.h"

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
	{ NVMET_QOS_A_DEV_CAPACITY,	"capacity",	"CAPACITY",	VAL_LIMIT, true },
	{ NVMET_QOS_A_DEV_ADMITTED,	"admitted",	NULL,		VAL_PLAIN, true },
	{ NVMET_QOS_A_DEV_COMPLETED,	"completed",	NULL,		VAL_PLAIN, true },
	{ NVMET_QOS_A_DEV_TAGS,		"tags",		"TAGS",		VAL_PLAIN, true },
	{ NVMET_QOS_A_DEV_RETRIED,	"retried",	"RETRIED",	VAL_PLAIN, true },
	{ NVMET_QOS_A_DEV_FORCED,	"forced",	"FORCED",	VAL_PLAIN, true },
	{ NVMET_QOS_A_DEV_FAST,		"fast",		NULL,		VAL_PLAIN, true },
	{ NVMET_QOS_A_DEV_QUEUES,	"queues",	NULL,		VAL_PLAIN, true },
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
	[NVMET_QOS_A_DEV_CAPACITY]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_ADMITTED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_COMPLETED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_TAGS]		= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_DEV_RETRIED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_FORCED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_FAST]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_DEV_QUEUES]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_DEV_STRIPE_CHUNK]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_DEV_STRIPE_MEMBER]	= { .type = NLA_U32, .maxlen = 4 },
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
	[NVMET_QOS_A_DEV_CAPACITY]	= "capacity",
	[NVMET_QOS_A_DEV_ADMITTED]	= "admitted",
	[NVMET_QOS_A_DEV_COMPLETED]	= "completed",
	[NVMET_QOS_A_DEV_TAGS]		= "tags",
	[NVMET_QOS_A_DEV_RETRIED]	= "retried",
	[NVMET_QOS_A_DEV_FORCED]	= "forced",
	[NVMET_QOS_A_DEV_FAST]		= "fast",
	[NVMET_QOS_A_DEV_QUEUES]	= "queues",
	[NVMET_QOS_A_DEV_STRIPE_CHUNK]	= "stripe-chunk",
	[NVMET_QOS_A_DEV_STRIPE_MEMBER]	= "stripe-member",
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
	bool have_stripe;	/* false from a module older than stripes */
	struct stripe stripe;
};

int qos_stripe_from_attrs(struct nlattr **tb, struct stripe *s, bool *have)
{
	size_t n;

	memset(s, 0, sizeof(*s));
	*have = tb[NVMET_QOS_A_DEV_STRIPE_CHUNK] != NULL;
	if (!*have)
		return 0;
	s->chunk = nla_get_u32(tb[NVMET_QOS_A_DEV_STRIPE_CHUNK]);
	n = qos_nla_u32s(tb, NVMET_QOS_A_DEV_STRIPE_MEMBER, s->members,
			 ARRAY_SIZE(s->members));
	if (n > ARRAY_SIZE(s->members))
		return -EBADMSG;
	s->n = (unsigned int)n;
	return 0;
}

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
	return qos_stripe_from_attrs(tb, &d->stripe, &d->have_stripe);
}

static int dev_cmp(const void *a, const void *b)
{
	const struct device *da = a, *db = b;

	return da->id < db->id ? -1 : da->id > db->id;
}

void qos_device_label(uint32_t id, char *buf, size_t len)
{
	if (qos_device_name(id, buf, len))
		snprintf(buf, len, "%u:%u", kdev_major(id), kdev_minor(id));
}

/* ,"stripe_chunk":N,"stripe_members":["nvme0n1",...], null for neither. */
static int stripe_print_json(const struct device *d)
{
	char name[DEV_NAME_MAX];
	unsigned int i;

	if (!d->have_stripe) {
		fputs(",\"stripe_chunk\":null,\"stripe_members\":null", stdout);
		return 0;
	}
	printf(",\"stripe_chunk\":%u,\"stripe_members\":[", d->stripe.chunk);
	for (i = 0; i < d->stripe.n; i++) {
		qos_device_label(d->stripe.members[i], name, sizeof(name));
		if (i)
			putchar(',');
		if (json_print_str(stdout, name))
			return -1;
	}
	putchar(']');
	return 0;
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
	       kdev_major(d->id), kdev_minor(d->id));
	json_print_fields(stdout, dev_fields, NFIELDS, d->val, d->have);
	if (stripe_print_json(d))
		return -1;
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
	table_add(t, "STRIPE");
}

/*
 * As --stripe takes it, 64Ki:nvme0n1,nvme1n1, so that what "list" shows
 * can be given back; "-" where the device is not striped.
 */
static void stripe_cell(struct table *t, const struct device *d)
{
	char cell[NVMET_QOS_STRIPE_MEMBERS_MAX * DEV_NAME_MAX + 32];
	char name[DEV_NAME_MAX];
	size_t len;
	unsigned int i;

	if (!d->stripe.chunk) {
		table_add(t, "-");
		return;
	}
	len = fmt_binary(cell, sizeof(cell), d->stripe.chunk);
	for (i = 0; i < d->stripe.n && len < sizeof(cell); i++) {
		qos_device_label(d->stripe.members[i], name, sizeof(name));
		len += snprintf(cell + len, sizeof(cell) - len, "%c%s",
				i ? ',' : ':', name);
	}
	table_add(t, cell);
}

static void dev_table_row(struct table *t, const void *obj)
{
	const struct device *d = obj;
	char id[24];

	snprintf(id, sizeof(id), "%u:%u", kdev_major(d->id), kdev_minor(d->id));
	table_add(t, d->name[0] ? d->name : "-");
	table_add(t, id);
	table_add_fields(t, dev_fields, NFIELDS, d->val, d->have);
	stripe_cell(t, d);
}

const struct qos_obj qos_dev_obj = {
	.set = &dev_set,
	.get_cmd = NVMET_QOS_CMD_DEV_GET,
	.name = "device",
	.list_key = "devices",
	.size = sizeof(struct device),
	.from_attrs = dev_from_attrs,
	.cmp = dev_cmp,
	.print_json = dev_print_json,
	/*
	 * DEVICE ID DEPTH INFLIGHT QUEUED RATE WRITE-COST IO-COST CAPACITY
	 * TAGS RETRIED FORCED STRIPE
	 */
	.align = "lrrrrrrrrrrrl",
	.table_head = dev_table_head,
	.table_row = dev_table_row,
};

int cmd_device_list(const struct cmd *cmd, int argc, char **argv)
{
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);
	return qos_obj_list(&qos_dev_obj, json);
}

/* ---- set ---------------------------------------------------------------- */

int qos_device_resolve(const char *arg, uint32_t *id, char *why,
		       size_t whylen)
{
	struct stat st;

	if (!parse_devnum(arg, id)) {
		*id = sysfs_whole_disk(SYSFS_ROOT, *id);
		return 0;
	}
	if (!strchr(arg, '/')) {
		if (strlen(arg) >= DEV_NAME_MAX)
			snprintf(why, whylen, "device name longer than %d bytes",
				 DEV_NAME_MAX - 1);
		else if (sysfs_block_devnum(SYSFS_ROOT, arg, id))
			snprintf(why, whylen, "no block device named '%s' (give a name such as nvme0n1, MAJOR:MINOR or a path)",
				 arg);
		else
			return (*id = sysfs_whole_disk(SYSFS_ROOT, *id)), 0;
		return -ENODEV;
	}
	if (stat(arg, &st)) {
		snprintf(why, whylen, "cannot use '%s': %s", arg,
			 strerror(errno));
		return -ENODEV;
	}
	/* A file: the device of its file system, as nvmet's file backend. */
	if (!S_ISBLK(st.st_mode))
		st.st_rdev = st.st_dev;
	*id = sysfs_whole_disk(SYSFS_ROOT,
			       kdev_make(major(st.st_rdev), minor(st.st_rdev)));
	return 0;
}

int qos_device_name(uint32_t id, char *buf, size_t len)
{
	return sysfs_link_name(SYSFS_ROOT, buf, len, "dev/block/%u:%u",
			       kdev_major(id), kdev_minor(id)) ? -ENODEV : 0;
}

/* DEVICE on the command line; a usage error when it names nothing. */
static uint32_t arg_device(const char *arg)
{
	char why[160];
	uint32_t id;

	if (qos_device_resolve(arg, &id, why, sizeof(why)))
		usage_error("%s", why);
	return id;
}

struct dev_conf {
	uint32_t id;
	uint64_t capacity;
	uint32_t write_cost, io_cost;
	bool has_capacity, has_write_cost, has_io_cost, has_stripe;
	struct stripe stripe;
};

int qos_stripe_put(struct nl_msg *msg, const struct stripe *s)
{
	unsigned int i;

	if (nla_put_u32(msg, NVMET_QOS_A_DEV_STRIPE_CHUNK, s->chunk) < 0)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (nla_put_u32(msg, NVMET_QOS_A_DEV_STRIPE_MEMBER,
				s->members[i]) < 0)
			return -ENOMEM;
	return 0;
}

static int dev_put_conf(struct nl_msg *msg, const void *arg)
{
	const struct dev_conf *c = arg;

	if (nla_put_u32(msg, NVMET_QOS_A_DEV_ID, c->id) < 0 ||
	    (c->has_capacity &&
	     nla_put_u64(msg, NVMET_QOS_A_DEV_CAPACITY, c->capacity) < 0) ||
	    (c->has_write_cost &&
	     nla_put_u32(msg, NVMET_QOS_A_DEV_WRITE_COST, c->write_cost) < 0) ||
	    (c->has_io_cost &&
	     nla_put_u32(msg, NVMET_QOS_A_DEV_IO_COST, c->io_cost) < 0) ||
	    (c->has_stripe && qos_stripe_put(msg, &c->stripe)))
		return -ENOMEM;
	return 0;
}

enum { OPT_CAPACITY = 256, OPT_WRITE_COST, OPT_IO_COST, OPT_STRIPE };

static const struct option set_longopts[] = {
	{ "capacity",	required_argument, NULL, OPT_CAPACITY },
	{ "write-cost",	required_argument, NULL, OPT_WRITE_COST },
	{ "io-cost",	required_argument, NULL, OPT_IO_COST },
	{ "stripe",	required_argument, NULL, OPT_STRIPE },
	{ "help",	no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Values are checked once every option is read, so --help always wins. */
static void dev_conf_values(struct dev_conf *c, const char *capacity,
			    const char *write_cost, const char *io_cost)
{
	uint64_t v;

	if (capacity) {
		c->capacity = arg_rate("--capacity", capacity, false,
				       "bytes per second such as 2G or 500M, or 0 for none");
		if (c->capacity && c->capacity < NVMET_QOS_CAPACITY_MIN)
			usage_error("invalid --capacity '%s': below the smallest hint, 1M (use 0 for none)",
				    capacity);
		c->has_capacity = true;
	}
	if (write_cost) {
		if (parse_uint(write_cost, NVMET_QOS_WRITE_COST_MIN,
			       NVMET_QOS_WRITE_COST_MAX, &v))
			usage_error("invalid --write-cost '%s': want a percentage from %d to %d",
				    write_cost, NVMET_QOS_WRITE_COST_MIN,
				    NVMET_QOS_WRITE_COST_MAX);
		c->write_cost = (uint32_t)v;
		c->has_write_cost = true;
	}
	if (io_cost) {
		v = arg_size("--io-cost", io_cost, false,
			     "a size in bytes such as 4096 or 8Ki");
		if (v > NVMET_QOS_IO_COST_MAX)
			usage_error("invalid --io-cost '%s': at most 1Mi", io_cost);
		c->io_cost = (uint32_t)v;
		c->has_io_cost = true;
	}
}

/*
 * --stripe of device c->id, read from sysfs and checked before anything is
 * sent: a stripe the kernel took wrong would count requests on the wrong
 * drives without a word.
 */
static void dev_conf_stripe(struct dev_conf *c, const char *arg)
{
	static const struct stripe_env env = {
		.sysfs = SYSFS_ROOT,
		.resolve = qos_device_resolve,
	};
	char why[320];

	if (stripe_parse(&env, arg, c->id, &c->stripe, why, sizeof(why))) {
		if (!strcmp(arg, "auto"))
			usage_error("--stripe auto: %s", why);
		usage_error("invalid --stripe '%s': %s", arg, why);
	}
	c->has_stripe = true;
}

int cmd_device_set(const struct cmd *cmd, int argc, char **argv)
{
	const char *capacity = NULL, *write_cost = NULL, *io_cost = NULL;
	const char *stripe = NULL;
	struct dev_conf conf = { 0 };
	const char *arg;
	char what[DEV_NAME_MAX + 16];
	int c;

	while ((c = cmd_getopt(cmd, argc, argv, ":h", set_longopts)) != -1) {
		if (c == OPT_CAPACITY)
			capacity = optarg;
		else if (c == OPT_WRITE_COST)
			write_cost = optarg;
		else if (c == OPT_IO_COST)
			io_cost = optarg;
		else if (c == OPT_STRIPE)
			stripe = optarg;
	}
	arg = cmd_operand(cmd, argc, argv, "DEVICE");
	cmd_max_operands(cmd, argc, argv, 0);
	dev_conf_values(&conf, capacity, write_cost, io_cost);
	if (!capacity && !write_cost && !io_cost && !stripe)
		usage_error("device set: nothing to change, give at least one option (see 'nvmet-qos device set --help')");
	conf.id = arg_device(arg);
	if (stripe)
		dev_conf_stripe(&conf, stripe);
	snprintf(what, sizeof(what), "device %u:%u", kdev_major(conf.id),
		 kdev_minor(conf.id));
	return qos_obj_change(NVMET_QOS_CMD_DEV_SET, &dev_set, dev_put_conf,
			      &conf, what);
}
