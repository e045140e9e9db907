// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos host ..." commands: per-host I/O counters and class membership.
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

/*
 * Values in output order after the NQN and class; adding one to the uapi is
 * one line here. Fields newer than the first kernel are optional: an old
 * module does not send them, and 0 would be a lie for the weight.
 */
static const struct field host_fields[] = {
	{ NVMET_QOS_A_HOST_WEIGHT,	"weight",	"WEIGHT",	VAL_PLAIN, true },
	{ NVMET_QOS_A_HOST_READ_IOS,	"read_ios",	"READ IOS",	VAL_PLAIN, false },
	{ NVMET_QOS_A_HOST_WRITE_IOS,	"write_ios",	"WRITE IOS",	VAL_PLAIN, false },
	{ NVMET_QOS_A_HOST_READ_BYTES,	"read_bytes",	"READ BYTES",	VAL_PLAIN, false },
	{ NVMET_QOS_A_HOST_WRITE_BYTES,	"write_bytes",	"WRITE BYTES",	VAL_PLAIN, false },
	{ NVMET_QOS_A_HOST_ERRORS,	"errors",	"ERRORS",	VAL_PLAIN, false },
	{ NVMET_QOS_A_HOST_QUEUED,	"queued",	"QUEUED",	VAL_PLAIN, true },
	{ NVMET_QOS_A_HOST_CTRLS,	"ctrls",	"CTRLS",	VAL_PLAIN, true },
	{ NVMET_QOS_A_HOST_CTRLS_AUTH,	"ctrls_auth",	"AUTHED",	VAL_PLAIN, true },
};

#define NFIELDS ARRAY_SIZE(host_fields)

/*
 * String limits include the NUL for libnl, hence + 1. Integers must be
 * exactly as wide as the spec says; anything else is a malformed reply.
 */
static const struct nla_policy host_policy[NVMET_QOS_A_HOST_MAX + 1] = {
	[NVMET_QOS_A_HOST_NQN]		= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_NQN_MAX_LEN + 1 },
	[NVMET_QOS_A_HOST_READ_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_WRITE_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_READ_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_WRITE_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_ERRORS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_CLASS]	= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_CLASS_NAME_MAX_LEN + 1 },
	[NVMET_QOS_A_HOST_WEIGHT]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_HOST_QUEUED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_CTRLS]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_HOST_CTRLS_AUTH]	= { .type = NLA_U32, .maxlen = 4 },
};

/* Spec names, used when the kernel blames an attribute. */
static const char *const host_attr_names[NVMET_QOS_A_HOST_MAX + 1] = {
	[NVMET_QOS_A_HOST_UNSPEC]	= "unspec",
	[NVMET_QOS_A_HOST_PAD]		= "pad",
	[NVMET_QOS_A_HOST_NQN]		= "nqn",
	[NVMET_QOS_A_HOST_READ_IOS]	= "read-ios",
	[NVMET_QOS_A_HOST_WRITE_IOS]	= "write-ios",
	[NVMET_QOS_A_HOST_READ_BYTES]	= "read-bytes",
	[NVMET_QOS_A_HOST_WRITE_BYTES]	= "write-bytes",
	[NVMET_QOS_A_HOST_ERRORS]	= "errors",
	[NVMET_QOS_A_HOST_CLASS]	= "class",
	[NVMET_QOS_A_HOST_WEIGHT]	= "weight",
	[NVMET_QOS_A_HOST_QUEUED]	= "queued",
	[NVMET_QOS_A_HOST_CTRLS]	= "ctrls",
	[NVMET_QOS_A_HOST_CTRLS_AUTH]	= "ctrls-auth",
};

static const struct qos_attr_set host_set = {
	.policy = host_policy,
	.names = host_attr_names,
	.maxtype = NVMET_QOS_A_HOST_MAX,
};

struct host {
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
	char class[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	bool have_class;
	uint64_t val[NFIELDS];
	bool have[NFIELDS];
};

static int host_from_attrs(struct nlattr **tb, void *obj)
{
	struct host *h = obj;

	/* A host without its key is useless; do not invent one. */
	if (!tb[NVMET_QOS_A_HOST_NQN])
		return -EBADMSG;
	nla_strlcpy(h->nqn, tb[NVMET_QOS_A_HOST_NQN], sizeof(h->nqn));

	h->have_class = tb[NVMET_QOS_A_HOST_CLASS];
	if (h->have_class)
		nla_strlcpy(h->class, tb[NVMET_QOS_A_HOST_CLASS],
			    sizeof(h->class));

	/* An absent counter simply has not counted anything. */
	qos_nla_fields(tb, host_fields, NFIELDS, h->val, h->have);
	return 0;
}

static int host_cmp(const void *a, const void *b)
{
	const struct host *ha = a, *hb = b;

	return strcmp(ha->nqn, hb->nqn);
}

static int host_print_json(const void *obj)
{
	const struct host *h = obj;

	fputs("{\"nqn\":", stdout);
	if (json_print_str(stdout, h->nqn))
		return -1;
	fputs(",\"class\":", stdout);
	if (!h->have_class)
		fputs("null", stdout);
	else if (json_print_str(stdout, h->class))
		return -1;
	json_print_fields(stdout, host_fields, NFIELDS, h->val, h->have);
	putchar('}');
	return 0;
}

/* NQN and class to the left, every number to the right. */
static const char host_align[] = "llrrrrrrrrr";
_Static_assert(sizeof(host_align) == 2 + NFIELDS + 1,
	       "host_align needs one column per field");

static void host_table_head(struct table *t)
{
	size_t i;

	table_add(t, "HOST NQN");
	table_add(t, "CLASS");
	for (i = 0; i < NFIELDS; i++)
		table_add(t, host_fields[i].title);
}

/* Plain table with exact integers, so scripts and tests can compare them. */
static void host_table_row(struct table *t, const void *obj)
{
	const struct host *h = obj;

	table_add(t, h->nqn);
	table_add(t, h->have_class ? h->class : "-");
	table_add_fields(t, host_fields, NFIELDS, h->val, h->have);
}

const struct qos_obj qos_host_obj = {
	.set = &host_set,
	.get_cmd = NVMET_QOS_CMD_HOST_GET,
	.key_attr = NVMET_QOS_A_HOST_NQN,
	.name = "host",
	.list_key = "hosts",
	.size = sizeof(struct host),
	.from_attrs = host_from_attrs,
	.cmp = host_cmp,
	.print_json = host_print_json,
	.align = host_align,
	.table_head = host_table_head,
	.table_row = host_table_row,
};

int cmd_host_list(const struct cmd *cmd, int argc, char **argv)
{
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);
	return qos_obj_list(&qos_host_obj, json);
}

int cmd_host_show(const struct cmd *cmd, int argc, char **argv)
{
	struct host h;
	const char *nqn;
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	nqn = cmd_operand(cmd, argc, argv, "HOSTNQN");
	cmd_max_operands(cmd, argc, argv, 0);
	arg_nqn(nqn);
	return qos_obj_show(&qos_host_obj, nqn, &h, json);
}

/* What host_change() sends. */
struct host_req {
	const char *nqn;
	const char *class;
	uint32_t weight;
};

static int host_put_req(struct nl_msg *msg, const void *arg)
{
	const struct host_req *r = arg;

	if (nla_put_string(msg, NVMET_QOS_A_HOST_NQN, r->nqn) < 0)
		return -ENOMEM;
	if (r->class &&
	    nla_put_string(msg, NVMET_QOS_A_HOST_CLASS, r->class) < 0)
		return -ENOMEM;
	if (r->weight &&
	    nla_put_u32(msg, NVMET_QOS_A_HOST_WEIGHT, r->weight) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * One HOST_SET or HOST_DEL request: @class may be NULL, @weight 0 for
 * "leave as it is". Everything was validated before we get here.
 */
static int host_change(uint8_t cmd, const char *nqn, const char *class,
		       uint32_t weight)
{
	const struct host_req req = { nqn, class, weight };
	char what[64];

	/*
	 * A host need not exist to be assigned, so ENOENT there is about the
	 * class; elsewhere leave the wording to the kernel.
	 */
	if (class)
		snprintf(what, sizeof(what), "class \"%s\"", class);
	return qos_obj_change(cmd, &host_set, host_put_req, &req,
			      class ? what : NULL);
}

static const struct option assign_longopts[] = {
	{ "weight", required_argument, NULL, 'w' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_host_assign(const struct cmd *cmd, int argc, char **argv)
{
	const char *nqn, *class, *weight_arg = NULL;
	uint32_t weight = 0;
	int c;

	while ((c = cmd_getopt(cmd, argc, argv, ":hw:", assign_longopts)) != -1)
		if (c == 'w')
			weight_arg = optarg;
	nqn = cmd_operand(cmd, argc, argv, "HOSTNQN");
	class = cmd_operand(cmd, argc, argv, "CLASS");
	cmd_max_operands(cmd, argc, argv, 0);

	arg_nqn(nqn);
	arg_class_name(class);
	if (weight_arg)
		weight = arg_share("--weight", weight_arg);

	return host_change(NVMET_QOS_CMD_HOST_SET, nqn, class, weight);
}

static const struct option help_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_host_weight(const struct cmd *cmd, int argc, char **argv)
{
	const char *nqn, *weight;

	while (cmd_getopt(cmd, argc, argv, ":h", help_longopts) != -1)
		;
	nqn = cmd_operand(cmd, argc, argv, "HOSTNQN");
	weight = cmd_operand(cmd, argc, argv, "weight");
	cmd_max_operands(cmd, argc, argv, 0);

	arg_nqn(nqn);
	return host_change(NVMET_QOS_CMD_HOST_SET, nqn, NULL,
			   arg_share("weight", weight));
}

int cmd_host_unassign(const struct cmd *cmd, int argc, char **argv)
{
	const char *nqn;

	while (cmd_getopt(cmd, argc, argv, ":h", help_longopts) != -1)
		;
	nqn = cmd_operand(cmd, argc, argv, "HOSTNQN");
	cmd_max_operands(cmd, argc, argv, 0);

	arg_nqn(nqn);
	return host_change(NVMET_QOS_CMD_HOST_DEL, nqn, NULL, 0);
}

/* ---- table -------------------------------------------------------------- */

static const struct field table_fields[] = {
	{ NVMET_QOS_A_TABLE_HOSTS,		"hosts",		"HOSTS",	VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_MAX_HOSTS,		"max_hosts",		"MAX",		VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_HOSTS_RECLAIMED,	"hosts_reclaimed",	"RECLAIMED",	VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_HOSTS_FOLDED,	"hosts_folded",		"FOLDED",	VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_FLOWS,		"flows",		"FLOWS",	VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_FLOWS_RECLAIMED,	"flows_reclaimed",	"FLOWS-RECLAIMED", VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_FLOWS_SPILLED,	"flows_spilled",	"FLOWS-SPILLED", VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_UNSCHEDULED,	"unscheduled",		"UNSCHEDULED",	VAL_PLAIN, false },
	{ NVMET_QOS_A_TABLE_SPARE_TRACKERS,	"spare_trackers",	"SPARES",	VAL_PLAIN, false },
};

#define NTFIELDS ARRAY_SIZE(table_fields)

static const struct nla_policy table_policy[NVMET_QOS_A_TABLE_MAX + 1] = {
	[NVMET_QOS_A_TABLE_HOSTS]		= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_TABLE_MAX_HOSTS]		= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_TABLE_HOSTS_RECLAIMED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_TABLE_HOSTS_FOLDED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_TABLE_FLOWS]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_TABLE_FLOWS_RECLAIMED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_TABLE_FLOWS_SPILLED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_TABLE_UNSCHEDULED]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_TABLE_SPARE_TRACKERS]	= { .type = NLA_U32, .maxlen = 4 },
};

static const char *const table_attr_names[NVMET_QOS_A_TABLE_MAX + 1] = {
	[NVMET_QOS_A_TABLE_UNSPEC]		= "unspec",
	[NVMET_QOS_A_TABLE_PAD]			= "pad",
	[NVMET_QOS_A_TABLE_HOSTS]		= "hosts",
	[NVMET_QOS_A_TABLE_MAX_HOSTS]		= "max-hosts",
	[NVMET_QOS_A_TABLE_HOSTS_RECLAIMED]	= "hosts-reclaimed",
	[NVMET_QOS_A_TABLE_HOSTS_FOLDED]	= "hosts-folded",
	[NVMET_QOS_A_TABLE_FLOWS]		= "flows",
	[NVMET_QOS_A_TABLE_FLOWS_RECLAIMED]	= "flows-reclaimed",
	[NVMET_QOS_A_TABLE_FLOWS_SPILLED]	= "flows-spilled",
	[NVMET_QOS_A_TABLE_UNSCHEDULED]		= "unscheduled",
	[NVMET_QOS_A_TABLE_SPARE_TRACKERS]	= "spare-trackers",
};

static const struct qos_attr_set table_set = {
	.policy = table_policy,
	.names = table_attr_names,
	.maxtype = NVMET_QOS_A_TABLE_MAX,
};

struct host_table {
	uint64_t val[NTFIELDS];
	bool have[NTFIELDS];
	bool found;
};

static int table_reply(struct nlattr **tb, void *arg)
{
	struct host_table *t = arg;

	if (!tb[NVMET_QOS_A_TABLE_MAX_HOSTS])
		return -EBADMSG;
	qos_nla_fields(tb, table_fields, NTFIELDS, t->val, t->have);
	t->found = true;
	return 0;
}

static int print_host_table(const struct host_table *ht, bool json)
{
	struct table t;
	size_t i;
	int err;

	if (json) {
		fputs("{\"table\":{", stdout);
		for (i = 0; i < NTFIELDS; i++)
			printf("%s\"%s\":%llu", i ? "," : "", table_fields[i].key,
			       (unsigned long long)ht->val[i]);
		puts("}}");
		return QOS_EXIT_OK;
	}
	table_init(&t, "rrrrrrr");
	for (i = 0; i < NTFIELDS; i++)
		table_add(&t, table_fields[i].title);
	table_add_fields(&t, table_fields, NTFIELDS, ht->val, ht->have);
	err = table_print(&t, stdout);
	table_free(&t);
	return err ? QOS_EXIT_ERROR : QOS_EXIT_OK;
}

int cmd_host_table(const struct cmd *cmd, int argc, char **argv)
{
	struct host_table ht = { 0 };
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);
	if (qos_obj_get_plain(NVMET_QOS_CMD_TABLE_GET, &table_set, table_reply,
			      &ht, &ht.found, "host table"))
		return QOS_EXIT_ERROR;
	return print_host_table(&ht, json);
}
