// SPDX-License-Identifier: GPL-2.0
/*
 * "cluster show" and "cluster set": this head's state in a cluster of
 * heads, as the daemon running it there (nvmet-qosd) sets it, and the
 * object "monitor" decodes from cluster-change events.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "nvmet_qos.h"
#include "nvmet-qos.h"
#include "obj.h"

static const char *const state_names[] = {
	[NVMET_QOS_CLUSTER_STATE_NONE]		= "none",
	[NVMET_QOS_CLUSTER_STATE_MEMBER]	= "member",
	[NVMET_QOS_CLUSTER_STATE_FALLBACK]	= "fallback",
};

#define NSTATES ARRAY_SIZE(state_names)

static const struct nla_policy cluster_policy[NVMET_QOS_A_CLUSTER_MAX + 1] = {
	[NVMET_QOS_A_CLUSTER_STATE]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_CLUSTER_NOTE]	= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_CLUSTER_NOTE_MAX_LEN + 1 },
};

static const char *const cluster_attr_names[NVMET_QOS_A_CLUSTER_MAX + 1] = {
	[NVMET_QOS_A_CLUSTER_UNSPEC]	= "unspec",
	[NVMET_QOS_A_CLUSTER_STATE]	= "state",
	[NVMET_QOS_A_CLUSTER_NOTE]	= "note",
};

static const struct qos_attr_set cluster_set = {
	.policy = cluster_policy,
	.names = cluster_attr_names,
	.maxtype = NVMET_QOS_A_CLUSTER_MAX,
};

struct cluster {
	uint32_t state;
	char note[NVMET_QOS_CLUSTER_NOTE_MAX_LEN + 1];
	bool found;
};

/* A state a newer module may send is shown by its number. */
static const char *state_name(uint32_t s, char *buf, size_t len)
{
	if (s < NSTATES)
		return state_names[s];
	snprintf(buf, len, "%u", s);
	return buf;
}

static int cluster_from_attrs(struct nlattr **tb, void *obj)
{
	struct cluster *c = obj;

	if (!tb[NVMET_QOS_A_CLUSTER_STATE])
		return -EBADMSG;
	c->state = (uint32_t)qos_nla_uint(tb[NVMET_QOS_A_CLUSTER_STATE]);
	c->note[0] = '\0';
	if (tb[NVMET_QOS_A_CLUSTER_NOTE])
		nla_strlcpy(c->note, tb[NVMET_QOS_A_CLUSTER_NOTE],
			    sizeof(c->note));
	c->found = true;
	return 0;
}

static int cluster_print_json(const void *obj)
{
	const struct cluster *c = obj;
	char num[16];

	printf("{\"state\":\"%s\",\"note\":",
	       state_name(c->state, num, sizeof(num)));
	if (json_print_str(stdout, c->note))
		return -1;
	putchar('}');
	return 0;
}

static void cluster_table_head(struct table *t)
{
	table_add(t, "STATE");
	table_add(t, "NOTE");
}

static void cluster_table_row(struct table *t, const void *obj)
{
	const struct cluster *c = obj;
	char num[16];

	table_add(t, state_name(c->state, num, sizeof(num)));
	table_add(t, c->note[0] ? c->note : "-");
}

const struct qos_obj qos_cluster_obj = {
	.set = &cluster_set,
	.get_cmd = NVMET_QOS_CMD_CLUSTER_GET,
	.name = "cluster",
	.size = sizeof(struct cluster),
	.from_attrs = cluster_from_attrs,
	.print_json = cluster_print_json,
	.align = "ll",
	.table_head = cluster_table_head,
	.table_row = cluster_table_row,
};

/* ---- show --------------------------------------------------------------- */

int cmd_cluster_show(const struct cmd *cmd, int argc, char **argv)
{
	struct cluster c = { 0 };
	bool json;

	json = cmd_parse_json(cmd, argc, argv);
	cmd_max_operands(cmd, argc, argv, 0);
	if (qos_obj_get_plain(NVMET_QOS_CMD_CLUSTER_GET, &cluster_set,
			      cluster_from_attrs, &c, &c.found, "cluster state"))
		return QOS_EXIT_ERROR;
	return qos_obj_print_one(&qos_cluster_obj, &c, json);
}

/* ---- set ---------------------------------------------------------------- */

static const struct option set_longopts[] = {
	{ "note", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int put_cluster(struct nl_msg *msg, const void *arg)
{
	const struct cluster *c = arg;

	return nla_put_u32(msg, NVMET_QOS_A_CLUSTER_STATE, c->state) ||
	       nla_put_string(msg, NVMET_QOS_A_CLUSTER_NOTE, c->note);
}

int cmd_cluster_set(const struct cmd *cmd, int argc, char **argv)
{
	struct cluster c = { 0 };
	const char *state;
	size_t i;
	int opt;

	while ((opt = cmd_getopt(cmd, argc, argv, ":hn:", set_longopts)) != -1) {
		if (strlen(optarg) > NVMET_QOS_CLUSTER_NOTE_MAX_LEN)
			usage_error("--note: %zu bytes, more than %d",
				    strlen(optarg),
				    NVMET_QOS_CLUSTER_NOTE_MAX_LEN);
		strcpy(c.note, optarg);
	}
	state = cmd_operand(cmd, argc, argv, "STATE");
	cmd_max_operands(cmd, argc, argv, 0);
	for (i = 0; i < NSTATES; i++)
		if (!strcmp(state, state_names[i]))
			break;
	if (i == NSTATES)
		usage_error("invalid STATE '%s': want none, member or fallback",
			    state);
	c.state = (uint32_t)i;
	return qos_obj_change(NVMET_QOS_CMD_CLUSTER_SET, &cluster_set,
			      put_cluster, &c, NULL);
}
