// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos host ..." commands: per-host I/O counters.
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

/* Dumps the kernel flags as inconsistent are retried this many times. */
#define HOST_DUMP_TRIES 3

/* Counters in output order; adding one to the uapi is one line here. */
static const struct host_counter {
	int attr;
	const char *key;	/* --json key */
	const char *title;	/* table column */
} host_counters[] = {
	{ NVMET_QOS_A_HOST_READ_IOS,	"read_ios",	"READ IOS" },
	{ NVMET_QOS_A_HOST_WRITE_IOS,	"write_ios",	"WRITE IOS" },
	{ NVMET_QOS_A_HOST_READ_BYTES,	"read_bytes",	"READ BYTES" },
	{ NVMET_QOS_A_HOST_WRITE_BYTES,	"write_bytes",	"WRITE BYTES" },
	{ NVMET_QOS_A_HOST_ERRORS,	"errors",	"ERRORS" },
};

#define NCOUNTERS ARRAY_SIZE(host_counters)

/*
 * The NQN limit includes the NUL for libnl, hence + 1. Counters must be
 * exactly u64 as the spec says; anything else is a malformed reply.
 */
static const struct nla_policy host_policy[NVMET_QOS_A_HOST_MAX + 1] = {
	[NVMET_QOS_A_HOST_NQN]		= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_NQN_MAX_LEN + 1 },
	[NVMET_QOS_A_HOST_READ_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_WRITE_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_READ_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_WRITE_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_HOST_ERRORS]	= { .type = NLA_U64, .maxlen = 8 },
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
};

static const struct qos_attr_set host_set = {
	.policy = host_policy,
	.names = host_attr_names,
	.maxtype = NVMET_QOS_A_HOST_MAX,
};

static const struct option json_longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct host {
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
	uint64_t val[NCOUNTERS];
};

struct host_vec {
	struct host *v;
	size_t n, cap;
};

static int host_from_attrs(struct nlattr **tb, struct host *h)
{
	size_t i;

	/* A host without its key is useless; do not invent one. */
	if (!tb[NVMET_QOS_A_HOST_NQN])
		return -EBADMSG;
	nla_strlcpy(h->nqn, tb[NVMET_QOS_A_HOST_NQN], sizeof(h->nqn));

	/* An absent counter simply has not counted anything. */
	for (i = 0; i < NCOUNTERS; i++) {
		struct nlattr *nla = tb[host_counters[i].attr];

		h->val[i] = nla ? nla_get_u64(nla) : 0;
	}
	return 0;
}

static int host_vec_add(struct nlattr **tb, void *arg)
{
	struct host_vec *hv = arg;

	if (hv->n == hv->cap) {
		size_t cap = hv->cap ? 2 * hv->cap : 16;
		struct host *v = realloc(hv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		hv->v = v;
		hv->cap = cap;
	}
	if (host_from_attrs(tb, &hv->v[hv->n]))
		return -EBADMSG;
	hv->n++;
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
	size_t i;

	fputs("{\"nqn\":", stdout);
	if (json_print_str(stdout, h->nqn))
		return -1;
	for (i = 0; i < NCOUNTERS; i++)
		printf(",\"%s\":%llu", host_counters[i].key,
		       (unsigned long long)h->val[i]);
	putchar('}');
	return 0;
}

static int col_width(const struct host *hosts, size_t n, size_t col)
{
	size_t w = strlen(host_counters[col].title), i;

	for (i = 0; i < n; i++) {
		size_t len = fmt_u64(NULL, 0, hosts[i].val[col]);

		if (len > w)
			w = len;
	}
	return (int)w;
}

/* Plain table with exact integers, so scripts and tests can compare them. */
static int host_print_table(const struct host *hosts, size_t n)
{
	int nqn_w = strlen("HOST NQN"), w[NCOUNTERS];
	char num[24];
	size_t i, c;

	for (i = 0; i < n; i++)
		if (text_width(hosts[i].nqn) > nqn_w)
			nqn_w = text_width(hosts[i].nqn);
	for (c = 0; c < NCOUNTERS; c++)
		w[c] = col_width(hosts, n, c);

	printf("%-*s", nqn_w, "HOST NQN");
	for (c = 0; c < NCOUNTERS; c++)
		printf("  %*s", w[c], host_counters[c].title);
	putchar('\n');

	for (i = 0; i < n; i++) {
		if (text_print_str(stdout, hosts[i].nqn, nqn_w))
			return -1;
		for (c = 0; c < NCOUNTERS; c++) {
			fmt_u64(num, sizeof(num), hosts[i].val[c]);
			printf("  %*s", w[c], num);
		}
		putchar('\n');
	}
	return 0;
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

static bool parse_json_opt(const struct cmd *cmd, int argc, char **argv)
{
	bool json = false;
	int c;

	while ((c = cmd_getopt(cmd, argc, argv, ":hj", json_longopts)) != -1)
		if (c == 'j')
			json = true;
	return json;
}

static int host_dump(struct qos_nl *nl, struct host_vec *hv,
		     struct qos_nl_status *st)
{
	struct nl_msg *msg;
	int tries, err = -EINTR;

	for (tries = 0; tries < HOST_DUMP_TRIES && err == -EINTR; tries++) {
		/* A retried dump starts from scratch. */
		hv->n = 0;
		msg = qos_nl_msg(nl, NVMET_QOS_CMD_HOST_GET, NLM_F_DUMP);
		if (!msg)
			return qos_nl_fail(st, -ENOMEM);
		err = qos_nl_exec(nl, msg, &host_set, host_vec_add, hv, st);
	}
	return err;
}

int cmd_host_list(const struct cmd *cmd, int argc, char **argv)
{
	struct host_vec hv = { 0 };
	struct qos_nl_status st;
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;
	bool json;
	int err;

	json = parse_json_opt(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;

	err = host_dump(&nl, &hv, &st);
	if (err) {
		qos_nl_perror(&st, &host_set);
		goto out;
	}

	/* The kernel's order is hash order; sorted output diffs nicely. */
	if (hv.n)
		qsort(hv.v, hv.n, sizeof(*hv.v), host_cmp);
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
	char why[128];
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;
	bool json;
	int err;

	json = parse_json_opt(cmd, argc, argv);
	if (optind >= argc)
		usage_error("host show: missing HOSTNQN (see 'nvmet-qos host show --help')");
	cmd_max_operands(cmd, argc, argv, 1);
	nqn = argv[optind];
	if (nqn_validate(nqn, why, sizeof(why)))
		usage_error("%s", why);

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
