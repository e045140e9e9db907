// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos class ..." commands: bandwidth classes, their shares, floors,
 * ceilings and counters.
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

/* Positions in class_fields[] that the share percentage needs. */
enum { CF_SHARE, CF_MIN_BPS, CF_MAX_BPS, CF_MIN_IOPS, CF_MAX_IOPS, CF_BURST,
       CF_LATENCY, CF_AUTH, CF_HOSTS, CF_READ, CF_WRITE, CF_IOS, CF_COST, CF_QUEUED,
       NFIELDS };

/* Output order after the name; SHARE% goes right after SHARE. */
static const struct field class_fields[NFIELDS] = {
	[CF_SHARE]	= { NVMET_QOS_A_CLASS_SHARE,	"share",	"SHARE",	VAL_PLAIN, false },
	[CF_MIN_BPS]	= { NVMET_QOS_A_CLASS_MIN_BPS,	"min_bps",	"MIN",		VAL_LIMIT, false },
	[CF_MAX_BPS]	= { NVMET_QOS_A_CLASS_MAX_BPS,	"max_bps",	"MAX",		VAL_LIMIT, false },
	[CF_MIN_IOPS]	= { NVMET_QOS_A_CLASS_MIN_IOPS,	"min_iops",	"MIN-IOPS",	VAL_LIMIT, false },
	[CF_MAX_IOPS]	= { NVMET_QOS_A_CLASS_MAX_IOPS,	"max_iops",	"MAX-IOPS",	VAL_LIMIT, false },
	[CF_BURST]	= { NVMET_QOS_A_CLASS_BURST,	"burst",	"BURST",	VAL_LIMIT, false },
	[CF_LATENCY]	= { NVMET_QOS_A_CLASS_LATENCY,	"latency",	"LAT",		VAL_BOOL, false },
	[CF_AUTH]	= { NVMET_QOS_A_CLASS_AUTH,	"auth",		"AUTH",		VAL_BOOL, false },
	[CF_HOSTS]	= { NVMET_QOS_A_CLASS_HOSTS,	"hosts",	"HOSTS",	VAL_PLAIN, false },
	[CF_READ]	= { NVMET_QOS_A_CLASS_READ_BYTES, "read_bytes",	"READ",		VAL_HUMAN, false },
	[CF_WRITE]	= { NVMET_QOS_A_CLASS_WRITE_BYTES, "write_bytes", "WRITE",	VAL_HUMAN, false },
	[CF_IOS]	= { NVMET_QOS_A_CLASS_IOS,	"ios",		NULL,		VAL_PLAIN, false },
	[CF_COST]	= { NVMET_QOS_A_CLASS_COST,	"cost",		NULL,		VAL_PLAIN, false },
	[CF_QUEUED]	= { NVMET_QOS_A_CLASS_QUEUED,	"queued",	"QUEUED",	VAL_PLAIN, false },
};

static const struct nla_policy class_policy[NVMET_QOS_A_CLASS_MAX + 1] = {
	[NVMET_QOS_A_CLASS_NAME]	= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_CLASS_NAME_MAX_LEN + 1 },
	[NVMET_QOS_A_CLASS_SHARE]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_CLASS_MIN_BPS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_MAX_BPS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_MIN_IOPS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_MAX_IOPS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_BURST]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_LATENCY]	= { .type = NLA_U8, .maxlen = 1 },
	[NVMET_QOS_A_CLASS_AUTH]	= { .type = NLA_U8, .maxlen = 1 },
	[NVMET_QOS_A_CLASS_HOSTS]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_CLASS_READ_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_WRITE_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_IOS]		= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_COST]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_CLASS_QUEUED]	= { .type = NLA_U64, .maxlen = 8 },
};

/* Spec names, used when the kernel blames an attribute. */
static const char *const class_attr_names[NVMET_QOS_A_CLASS_MAX + 1] = {
	[NVMET_QOS_A_CLASS_UNSPEC]	= "unspec",
	[NVMET_QOS_A_CLASS_PAD]		= "pad",
	[NVMET_QOS_A_CLASS_NAME]	= "name",
	[NVMET_QOS_A_CLASS_SHARE]	= "share",
	[NVMET_QOS_A_CLASS_MIN_BPS]	= "min-bps",
	[NVMET_QOS_A_CLASS_MAX_BPS]	= "max-bps",
	[NVMET_QOS_A_CLASS_MIN_IOPS]	= "min-iops",
	[NVMET_QOS_A_CLASS_MAX_IOPS]	= "max-iops",
	[NVMET_QOS_A_CLASS_BURST]	= "burst",
	[NVMET_QOS_A_CLASS_LATENCY]	= "latency",
	[NVMET_QOS_A_CLASS_HOSTS]	= "hosts",
	[NVMET_QOS_A_CLASS_READ_BYTES]	= "read-bytes",
	[NVMET_QOS_A_CLASS_WRITE_BYTES]	= "write-bytes",
	[NVMET_QOS_A_CLASS_IOS]		= "ios",
	[NVMET_QOS_A_CLASS_COST]	= "cost",
	[NVMET_QOS_A_CLASS_QUEUED]	= "queued",
	[NVMET_QOS_A_CLASS_AUTH]	= "auth",
};

static const struct qos_attr_set class_set = {
	.policy = class_policy,
	.names = class_attr_names,
	.maxtype = NVMET_QOS_A_CLASS_MAX,
};

struct qclass {
	char name[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	uint64_t val[NFIELDS];
	bool have[NFIELDS];
	uint64_t share_sum;	/* base of SHARE%, set once all are read */
};

/* ---- Reading replies ---------------------------------------------------- */

static int class_from_attrs(struct nlattr **tb, void *obj)
{
	struct qclass *c = obj;

	if (!tb[NVMET_QOS_A_CLASS_NAME])
		return -EBADMSG;
	nla_strlcpy(c->name, tb[NVMET_QOS_A_CLASS_NAME], sizeof(c->name));
	qos_nla_fields(tb, class_fields, NFIELDS, c->val, c->have);
	return 0;
}

static int class_cmp(const void *a, const void *b)
{
	return class_name_cmp(((const struct qclass *)a)->name,
			      ((const struct qclass *)b)->name);
}

/*
 * Sum of the shares of the classes that have hosts, the base of SHARE%.
 * @shown, if not NULL, replaces its namesake in @v: "show" reads it apart
 * from the dump, and both should agree with each other.
 */
static uint64_t share_sum(const struct qclass *v, size_t n,
			  const struct qclass *shown)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct qclass *c = &v[i];

		if (shown && !strcmp(c->name, shown->name))
			continue;
		if (c->val[CF_HOSTS])
			sum += c->val[CF_SHARE];
	}
	if (shown && shown->val[CF_HOSTS])
		sum += shown->val[CF_SHARE];
	return sum;
}

/* Share in % of the sum with one decimal, or false when it has no hosts. */
static bool share_pct(const struct qclass *c, char *buf, size_t len)
{
	if (!c->val[CF_HOSTS] || !c->share_sum)
		return false;
	snprintf(buf, len, "%.1f", 100.0 * c->val[CF_SHARE] / c->share_sum);
	return true;
}

/* "list": every class is shown, so the sum is over the dump alone. */
static void class_prepare(void *v, size_t n)
{
	struct qclass *c = v;
	uint64_t sum = share_sum(c, n, NULL);
	size_t i;

	for (i = 0; i < n; i++)
		c[i].share_sum = sum;
}

/* ---- Output ------------------------------------------------------------- */

static int class_print_json(const void *obj)
{
	const struct qclass *c = obj;
	char pct[32];

	fputs("{\"name\":", stdout);
	if (json_print_str(stdout, c->name))
		return -1;
	json_print_fields(stdout, class_fields, CF_SHARE + 1, c->val, c->have);
	printf(",\"share_pct\":%s", share_pct(c, pct, sizeof(pct)) ?
	       pct : "null");
	json_print_fields(stdout, class_fields + CF_MIN_BPS,
			  NFIELDS - CF_MIN_BPS, c->val + CF_MIN_BPS,
			  c->have + CF_MIN_BPS);
	putchar('}');
	return 0;
}

static void class_table_head(struct table *t)
{
	size_t i;

	table_add(t, "CLASS");
	table_add(t, class_fields[CF_SHARE].title);
	table_add(t, "SHARE%");
	for (i = CF_MIN_BPS; i < NFIELDS; i++)
		if (class_fields[i].title)
			table_add(t, class_fields[i].title);
}

static void class_table_row(struct table *t, const void *obj)
{
	const struct qclass *c = obj;
	char pct[32];

	table_add(t, c->name);
	table_add_fields(t, class_fields, CF_SHARE + 1, c->val, c->have);
	table_add(t, share_pct(c, pct, sizeof(pct)) ? pct : "-");
	table_add_fields(t, class_fields + CF_MIN_BPS, NFIELDS - CF_MIN_BPS,
			 c->val + CF_MIN_BPS, c->have + CF_MIN_BPS);
}

/* ---- list and show ------------------------------------------------------ */

const struct qos_obj qos_class_obj = {
	.set = &class_set,
	.get_cmd = NVMET_QOS_CMD_CLASS_GET,
	.key_attr = NVMET_QOS_A_CLASS_NAME,
	.name = "class",
	.list_key = "classes",
	.size = sizeof(struct qclass),
	.from_attrs = class_from_attrs,
	.cmp = class_cmp,
	.prepare = class_prepare,
	.print_json = class_print_json,
	/* CLASS SHARE SHARE% MIN MAX MIN-IOPS MAX-IOPS BURST LAT AUTH HOSTS READ WRITE
	 * QUEUED */
	.align = "lrrrrrrrllrrrr",
	.table_head = class_table_head,
	.table_row = class_table_row,
};

int cmd_class_list(const struct cmd *cmd, int argc, char **argv)
{
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);
	return qos_obj_list(&qos_class_obj, json);
}

int cmd_class_show(const struct cmd *cmd, int argc, char **argv)
{
	struct vec cv = { 0 };
	struct qclass c;
	const char *name;
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	name = cmd_operand(cmd, argc, argv, "NAME");
	cmd_max_operands(cmd, argc, argv, 0);
	arg_class_name(name);

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;

	/* The class itself, then every class for the base of SHARE%. */
	if (!qos_obj_get(&nl, &qos_class_obj, name, &c) &&
	    !qos_obj_dump(&nl, &qos_class_obj, &cv)) {
		c.share_sum = share_sum(cv.v, cv.n, &c);
		ret = qos_obj_print_one(&qos_class_obj, &c, json);
	}
	free(cv.v);
	qos_nl_close(&nl);
	return ret;
}

int qos_class_shares(struct qos_nl *nl, struct vec *out)
{
	struct vec cv = { 0 };
	const struct qclass *c;
	struct class_share *cs;
	size_t i;
	int ret;

	ret = qos_obj_dump(nl, &qos_class_obj, &cv);
	for (i = 0; !ret && i < cv.n; i++) {
		c = (const struct qclass *)cv.v + i;
		cs = vec_push(out, sizeof(*cs));
		if (!cs) {
			ret = -ENOMEM;
			break;
		}
		snprintf(cs->name, sizeof(cs->name), "%s", c->name);
		cs->share = (uint32_t)c->val[CF_SHARE];
	}
	free(cv.v);
	return ret;
}

/* ---- add, set, del ------------------------------------------------------ */

/* Options that take a byte or I/O amount; 0 means none (burst: default). */
static const struct limit_opt {
	int attr;
	const char *opt;
	bool count;		/* I/Os, not bytes */
	const char *hint;
} limit_opts[] = {
	{ NVMET_QOS_A_CLASS_MIN_BPS,	"--min",	false,
	  "bytes per second such as 100M, 1.5G or 512Mi" },
	{ NVMET_QOS_A_CLASS_MAX_BPS,	"--max",	false,
	  "bytes per second such as 100M, 1.5G or 512Mi" },
	{ NVMET_QOS_A_CLASS_MIN_IOPS,	"--min-iops",	true,
	  "I/Os per second such as 5000 or 20K" },
	{ NVMET_QOS_A_CLASS_MAX_IOPS,	"--max-iops",	true,
	  "I/Os per second such as 5000 or 20K" },
	{ NVMET_QOS_A_CLASS_BURST,	"--burst",	false,
	  "a size in bytes such as 4M or 256Ki" },
};

#define NLIMITS ARRAY_SIZE(limit_opts)
enum { L_MIN_BPS, L_MAX_BPS, L_MIN_IOPS, L_MAX_IOPS, L_BURST };

/* Long-only options; values above any character. */
enum { OPT_SHARE = 256, OPT_LATENCY, OPT_NO_LATENCY, OPT_AUTH, OPT_NO_AUTH,
       OPT_LIMIT };

#define CLASS_LONGOPTS \
	{ "share",	required_argument, NULL, OPT_SHARE }, \
	{ "min",	required_argument, NULL, OPT_LIMIT + L_MIN_BPS }, \
	{ "max",	required_argument, NULL, OPT_LIMIT + L_MAX_BPS }, \
	{ "min-iops",	required_argument, NULL, OPT_LIMIT + L_MIN_IOPS }, \
	{ "max-iops",	required_argument, NULL, OPT_LIMIT + L_MAX_IOPS }, \
	{ "burst",	required_argument, NULL, OPT_LIMIT + L_BURST }, \
	{ "latency",	no_argument, NULL, OPT_LATENCY }, \
	{ "auth",	no_argument, NULL, OPT_AUTH }, \
	{ "help",	no_argument, NULL, 'h' }

static const struct option add_longopts[] = {
	CLASS_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static const struct option set_longopts[] = {
	CLASS_LONGOPTS,
	{ "no-latency",	no_argument, NULL, OPT_NO_LATENCY },
	{ "no-auth",	no_argument, NULL, OPT_NO_AUTH },
	{ NULL, 0, NULL, 0 }
};

/* What the command line asked for; only what was given is sent. */
struct class_conf {
	uint32_t share;			/* 0: not given */
	uint64_t limit[NLIMITS];
	bool has_limit[NLIMITS];
	int latency;			/* -1: not given, else 0 or 1 */
	int auth;			/* the same */
	bool any;
};

/* A floor above its ceiling given in the same command cannot be meant. */
static void conf_check_order(const struct class_conf *conf, int lo, int hi)
{
	if (conf->has_limit[lo] && conf->has_limit[hi] && conf->limit[hi] &&
	    conf->limit[lo] > conf->limit[hi])
		usage_error("%s %llu is above %s %llu", limit_opts[lo].opt,
			    (unsigned long long)conf->limit[lo],
			    limit_opts[hi].opt,
			    (unsigned long long)conf->limit[hi]);
}

/* Check the values once every option is read, so --help always wins. */
static void conf_values(struct class_conf *conf, const char *share,
			const char *const *limit)
{
	const struct limit_opt *l;
	size_t i;

	if (share)
		conf->share = arg_share("--share", share);
	for (i = 0; i < NLIMITS; i++) {
		if (!limit[i])
			continue;
		l = &limit_opts[i];
		conf->limit[i] = arg_rate(l->opt, limit[i], l->count, l->hint);
		conf->has_limit[i] = true;
	}
	conf_check_order(conf, L_MIN_BPS, L_MAX_BPS);
	conf_check_order(conf, L_MIN_IOPS, L_MAX_IOPS);
}

static void class_parse_opts(const struct cmd *cmd, int argc, char **argv,
			     const struct option *longopts,
			     struct class_conf *conf)
{
	const char *share = NULL, *limit[NLIMITS] = { NULL };
	bool lat_on = false, lat_off = false, auth_on = false, auth_off = false;
	int c;

	memset(conf, 0, sizeof(*conf));
	while ((c = cmd_getopt(cmd, argc, argv, ":h", longopts)) != -1) {
		conf->any = true;
		if (c == OPT_SHARE)
			share = optarg;
		else if (c == OPT_LATENCY)
			lat_on = true;
		else if (c == OPT_NO_LATENCY)
			lat_off = true;
		else if (c == OPT_AUTH)
			auth_on = true;
		else if (c == OPT_NO_AUTH)
			auth_off = true;
		else if (c >= OPT_LIMIT && c < OPT_LIMIT + (int)NLIMITS)
			limit[c - OPT_LIMIT] = optarg;
	}

	if (lat_on && lat_off)
		usage_error("--latency and --no-latency exclude each other");
	conf->latency = lat_on ? 1 : lat_off ? 0 : -1;
	if (auth_on && auth_off)
		usage_error("--auth and --no-auth exclude each other");
	conf->auth = auth_on ? 1 : auth_off ? 0 : -1;
	conf_values(conf, share, limit);
}

static int class_put_conf(struct nl_msg *msg, const char *name,
			  const struct class_conf *conf)
{
	size_t i;

	if (nla_put_string(msg, NVMET_QOS_A_CLASS_NAME, name) < 0)
		return -ENOMEM;
	if (conf->share &&
	    nla_put_u32(msg, NVMET_QOS_A_CLASS_SHARE, conf->share) < 0)
		return -ENOMEM;
	for (i = 0; i < NLIMITS; i++)
		if (conf->has_limit[i] &&
		    nla_put_u64(msg, limit_opts[i].attr, conf->limit[i]) < 0)
			return -ENOMEM;
	if (conf->latency >= 0 &&
	    nla_put_u8(msg, NVMET_QOS_A_CLASS_LATENCY, (uint8_t)conf->latency) < 0)
		return -ENOMEM;
	if (conf->auth >= 0 &&
	    nla_put_u8(msg, NVMET_QOS_A_CLASS_AUTH, (uint8_t)conf->auth) < 0)
		return -ENOMEM;
	return 0;
}

/* What class_change() sends. */
struct class_req {
	const char *name;
	const struct class_conf *conf;
};

static int class_put_req(struct nl_msg *msg, const void *arg)
{
	const struct class_req *r = arg;

	return class_put_conf(msg, r->name, r->conf);
}

/* Send one class request; @conf is NULL for a delete. */
static int class_change(uint8_t cmd, const char *name,
			const struct class_conf *conf)
{
	static const struct class_conf none = { .latency = -1, .auth = -1 };
	const struct class_req req = { name, conf ? conf : &none };
	char what[64];

	/* A class that is not there can only be the one named. */
	snprintf(what, sizeof(what), "class \"%s\"", name);
	return qos_obj_change(cmd, &class_set, class_put_req, &req,
			      cmd == NVMET_QOS_CMD_CLASS_NEW ? NULL : what);
}

static const char *class_name_operand(const struct cmd *cmd, int argc,
				      char **argv)
{
	const char *name = cmd_operand(cmd, argc, argv, "NAME");

	cmd_max_operands(cmd, argc, argv, 0);
	arg_class_name(name);
	return name;
}

int cmd_class_add(const struct cmd *cmd, int argc, char **argv)
{
	struct class_conf conf;
	const char *name;

	class_parse_opts(cmd, argc, argv, add_longopts, &conf);
	name = class_name_operand(cmd, argc, argv);
	/* Without --latency the kernel's default (not sensitive) applies. */
	return class_change(NVMET_QOS_CMD_CLASS_NEW, name, &conf);
}

int cmd_class_set(const struct cmd *cmd, int argc, char **argv)
{
	struct class_conf conf;
	const char *name;

	class_parse_opts(cmd, argc, argv, set_longopts, &conf);
	name = class_name_operand(cmd, argc, argv);
	if (!conf.any)
		usage_error("class set: nothing to change, give at least one option (see 'nvmet-qos class set --help')");
	return class_change(NVMET_QOS_CMD_CLASS_SET, name, &conf);
}

static const struct option help_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_class_del(const struct cmd *cmd, int argc, char **argv)
{
	const char *name;

	while (cmd_getopt(cmd, argc, argv, ":h", help_longopts) != -1)
		;
	name = class_name_operand(cmd, argc, argv);
	return class_change(NVMET_QOS_CMD_CLASS_DEL, name, NULL);
}
