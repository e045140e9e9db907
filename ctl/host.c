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

static int host_from_attrs(struct nlattr **tb, struct host *h)
{
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

static int host_vec_add(struct nlattr **tb, void *arg)
{
	struct host *h = vec_push(arg, sizeof(*h));

	if (!h)
		return -ENOMEM;
	if (host_from_attrs(tb, h))
		return -EBADMSG;
	return 0;
}

/* For "show": keep the first reply, a do request should send only one. */
struct host_one {
	struct host h;
	bool found;
};

static int host_one_set(struct nlattr **tb, void *arg)
{
	struct host_one *one = arg;

	if (one->found)
		return 0;
	if (host_from_attrs(tb, &one->h))
		return -EBADMSG;
	one->found = true;
	return 0;
}

static int host_cmp(const void *a, const void *b)
{
	const struct host *ha = a, *hb = b;

	return strcmp(ha->nqn, hb->nqn);
}

static int host_print_json(const struct host *h)
{
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

/* Plain table with exact integers, so scripts and tests can compare them. */
static int host_print_table(const struct host *hosts, size_t n)
{
	char align[2 + NFIELDS + 1];
	struct table t;
	size_t i;
	int err;

	/* NQN and class to the left, every number to the right. */
	memset(align, 'r', sizeof(align) - 1);
	align[0] = align[1] = 'l';
	align[sizeof(align) - 1] = '\0';
	table_init(&t, align);

	table_add(&t, "HOST NQN");
	table_add(&t, "CLASS");
	for (i = 0; i < NFIELDS; i++)
		table_add(&t, host_fields[i].title);

	for (i = 0; i < n; i++) {
		table_add(&t, hosts[i].nqn);
		table_add(&t, hosts[i].have_class ? hosts[i].class : "-");
		table_add_fields(&t, host_fields, NFIELDS, hosts[i].val,
				 hosts[i].have);
	}
	err = table_print(&t, stdout);
	table_free(&t);
	return err;
}

static int host_print_list_json(const struct host *hosts, size_t n)
{
	size_t i;

	fputs("{\"hosts\":[", stdout);
	for (i = 0; i < n; i++) {
		if (i)
			putchar(',');
		if (host_print_json(&hosts[i]))
			return -1;
	}
	fputs("]}\n", stdout);
	return 0;
}

int cmd_host_list(const struct cmd *cmd, int argc, char **argv)
{
	struct vec hv = { 0 };
	struct qos_nl_status st;
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;
	bool json;
	int err;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;

	err = qos_nl_dump(&nl, NVMET_QOS_CMD_HOST_GET, &host_set, host_vec_add,
			  vec_reset, &hv, &st);
	if (err) {
		qos_nl_perror(&st, &host_set);
		goto out;
	}

	/* The kernel's order is hash order; sorted output diffs nicely. */
	if (hv.n)
		qsort(hv.v, hv.n, sizeof(struct host), host_cmp);
	err = json ? host_print_list_json(hv.v, hv.n) :
		     host_print_table(hv.v, hv.n);
	if (err) {
		fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
		goto out;
	}
	ret = QOS_EXIT_OK;
out:
	free(hv.v);
	qos_nl_close(&nl);
	return ret;
}

static int host_get_one(struct qos_nl *nl, const char *nqn,
			struct host_one *one)
{
	struct qos_nl_status st;
	struct nl_msg *msg;
	int err;

	msg = qos_nl_msg(nl, NVMET_QOS_CMD_HOST_GET, 0);
	if (!msg || nla_put_string(msg, NVMET_QOS_A_HOST_NQN, nqn) < 0) {
		nlmsg_free(msg);
		fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}

	err = qos_nl_exec(nl, msg, &host_set, host_one_set, one, &st);
	if (err == -ENOENT && !st.local && !st.msg[0]) {
		fprintf(stderr, "nvmet-qos: host \"%s\" not found\n", nqn);
		return err;
	}
	if (err) {
		qos_nl_perror(&st, &host_set);
		return err;
	}
	if (!one->found) {
		fprintf(stderr, "nvmet-qos: the kernel sent no reply for host \"%s\"\n",
			nqn);
		return -ENODATA;
	}
	return 0;
}

int cmd_host_show(const struct cmd *cmd, int argc, char **argv)
{
	struct host_one one = { .found = false };
	const char *nqn;
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;
	bool json;
	int err;

	json = cmd_parse_json(cmd, argc, argv);
	nqn = cmd_operand(cmd, argc, argv, "HOSTNQN");
	cmd_max_operands(cmd, argc, argv, 0);
	arg_nqn(nqn);

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;

	if (host_get_one(&nl, nqn, &one))
		goto out;

	if (json) {
		err = host_print_json(&one.h);
		putchar('\n');
	} else {
		err = host_print_table(&one.h, 1);
	}
	if (err) {
		fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
		goto out;
	}
	ret = QOS_EXIT_OK;
out:
	qos_nl_close(&nl);
	return ret;
}

/*
 * One HOST_SET or HOST_DEL request: @class may be NULL, @weight 0 for
 * "leave as it is". Everything was validated before we get here.
 */
static int host_change(uint8_t cmd, const char *nqn, const char *class,
		       uint32_t weight)
{
	char what[64];
	struct qos_nl nl;
	struct nl_msg *msg;
	int err;

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;

	msg = qos_nl_msg(&nl, cmd, 0);
	if (!msg || nla_put_string(msg, NVMET_QOS_A_HOST_NQN, nqn) < 0 ||
	    (class && nla_put_string(msg, NVMET_QOS_A_HOST_CLASS, class) < 0) ||
	    (weight && nla_put_u32(msg, NVMET_QOS_A_HOST_WEIGHT, weight) < 0)) {
		nlmsg_free(msg);
		fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
		qos_nl_close(&nl);
		return QOS_EXIT_ERROR;
	}
	/*
	 * A host need not exist to be assigned, so ENOENT there is about the
	 * class; elsewhere leave the wording to the kernel.
	 */
	if (class)
		snprintf(what, sizeof(what), "class \"%s\"", class);
	err = qos_nl_change(&nl, msg, &host_set, class ? what : NULL);
	qos_nl_close(&nl);
	return err ? QOS_EXIT_ERROR : QOS_EXIT_OK;
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
