// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos monitor": the family's events group, one line per event as it
 * happens: changes to hosts, classes and devices made by anyone, and the
 * controllers nvmet creates and tears down. Like "ip monitor", it runs until
 * interrupted (or --count events). Objects are decoded and shown exactly as
 * "list" shows them, so a new attribute needs no change here.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "nvmet_qos.h"
#include "nl.h"
#include "nvmet-qos.h"
#include "obj.h"
#include "parse.h"
#include "table.h"

static const struct nla_policy ctrl_policy[NVMET_QOS_A_CTRL_MAX + 1] = {
	[NVMET_QOS_A_CTRL_NQN]		= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_NQN_MAX_LEN + 1 },
	[NVMET_QOS_A_CTRL_SUBSYS_NQN]	= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_NQN_MAX_LEN + 1 },
	[NVMET_QOS_A_CTRL_CNTLID]	= { .type = NLA_U16, .maxlen = 2 },
	[NVMET_QOS_A_CTRL_TRTYPE]	= { .type = NLA_U8, .maxlen = 1 },
	[NVMET_QOS_A_CTRL_CLASS]	= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_CLASS_NAME_MAX_LEN + 1 },
	[NVMET_QOS_A_CTRL_AUTH_REQUIRED] = { .type = NLA_U8, .maxlen = 1 },
	[NVMET_QOS_A_CTRL_AUTHENTICATED] = { .type = NLA_U8, .maxlen = 1 },
};

/* What each notification is called (its spec name without "-ntf"). */
struct event_kind {
	uint8_t cmd;
	const char *name;
	const struct qos_obj *obj;	/* NULL: a controller event */
};

static const struct event_kind kinds[] = {
	{ NVMET_QOS_CMD_HOST_CHANGE_NTF,	"host-change",	&qos_host_obj },
	{ NVMET_QOS_CMD_CLASS_NEW_NTF,		"class-new",	&qos_class_obj },
	{ NVMET_QOS_CMD_CLASS_CHANGE_NTF,	"class-change",	&qos_class_obj },
	{ NVMET_QOS_CMD_CLASS_DEL_NTF,		"class-del",	&qos_class_obj },
	{ NVMET_QOS_CMD_DEV_CHANGE_NTF,		"dev-change",	&qos_dev_obj },
	{ NVMET_QOS_CMD_CTRL_CONNECT_NTF,	"ctrl-connect",	NULL },
	{ NVMET_QOS_CMD_CTRL_DISCONNECT_NTF,	"ctrl-disconnect", NULL },
	{ NVMET_QOS_CMD_CTRL_AUTH_NTF,		"ctrl-auth",	NULL },
	{ NVMET_QOS_CMD_CLUSTER_CHANGE_NTF,	"cluster-change", &qos_cluster_obj },
};

struct monitor {
	int family;
	bool json;
	uint64_t count, seen;	/* count 0: forever */
	int err;
};

/* NVMe-oF TRTYPE values, as nvmetcli and nvme-cli name them. */
static const char *trtype_name(uint64_t t)
{
	switch (t) {
	case 1:
		return "rdma";
	case 2:
		return "fc";
	case 3:
		return "tcp";
	case 254:
		return "loop";
	default:
		return NULL;
	}
}

/* Wall-clock time: UTC ISO 8601 for JSON, local hh:mm:ss.mmm for people. */
static void print_time(bool json)
{
	struct timeval tv;
	struct tm tm;
	char buf[32];

	gettimeofday(&tv, NULL);
	if (json) {
		gmtime_r(&tv.tv_sec, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
		printf("{\"time\":\"%s.%03ldZ\"", buf, (long)tv.tv_usec / 1000);
	} else {
		localtime_r(&tv.tv_sec, &tm);
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		printf("%s.%03ld", buf, (long)tv.tv_usec / 1000);
	}
}

static void print_head(const struct monitor *m, const char *event)
{
	print_time(m->json);
	if (m->json)
		printf(",\"event\":\"%s\"", event);
	else
		printf(" %-16s", event);
}

/* A table column title as a key: "READ IOS" -> read_ios. */
static void print_key(const char *title)
{
	for (; *title; title++)
		putchar(*title == ' ' ? '_' :
			(*title >= 'A' && *title <= 'Z') ? *title + 32 : *title);
}

/* The object's "list" row as key=value pairs on one line. */
static int print_obj_text(const struct qos_obj *o, const void *obj)
{
	struct table t;
	size_t i;

	table_init(&t, o->align);
	o->table_head(&t);
	o->table_row(&t, obj);
	if (t.oom || t.n != 2 * t.ncols) {
		table_free(&t);
		return -ENOMEM;
	}
	for (i = 0; i < t.ncols; i++) {
		putchar(' ');
		print_key(t.cells[i]);
		printf("=%s", t.cells[t.ncols + i]);
	}
	table_free(&t);
	return 0;
}

static int print_obj(const struct monitor *m, const struct event_kind *k,
		     struct nlattr **tb)
{
	const struct qos_obj *o = k->obj;
	void *obj = calloc(1, o->size);
	int err = -ENOMEM;

	if (!obj)
		return err;
	if (o->from_attrs(tb, obj)) {
		err = -EBADMSG;
		goto out;
	}
	print_head(m, k->name);
	if (m->json) {
		printf(",\"%s\":", o->name);
		err = o->print_json(obj);
		putchar('}');
	} else {
		err = print_obj_text(o, obj);
	}
out:
	free(obj);
	return err;
}

static void ctrl_str(struct nlattr **tb, int type, char *buf, size_t len)
{
	buf[0] = '\0';
	if (tb[type])
		nla_strlcpy(buf, tb[type], len);
}

/* "true", "false", or NULL where the module did not send it. */
static const char *ctrl_bool(struct nlattr **tb, int attr)
{
	if (!tb[attr])
		return NULL;
	return qos_nla_uint(tb[attr]) ? "true" : "false";
}

static int print_ctrl(const struct monitor *m, const struct event_kind *k,
		      struct nlattr **tb)
{
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1], sub[NVMET_QOS_NQN_MAX_LEN + 1];
	char cls[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	uint64_t cntlid, trtype;
	const char *tr, *req, *done;

	if (!tb[NVMET_QOS_A_CTRL_NQN])
		return -EBADMSG;
	ctrl_str(tb, NVMET_QOS_A_CTRL_NQN, nqn, sizeof(nqn));
	ctrl_str(tb, NVMET_QOS_A_CTRL_SUBSYS_NQN, sub, sizeof(sub));
	ctrl_str(tb, NVMET_QOS_A_CTRL_CLASS, cls, sizeof(cls));
	cntlid = tb[NVMET_QOS_A_CTRL_CNTLID] ?
		 qos_nla_uint(tb[NVMET_QOS_A_CTRL_CNTLID]) : 0;
	trtype = tb[NVMET_QOS_A_CTRL_TRTYPE] ?
		 qos_nla_uint(tb[NVMET_QOS_A_CTRL_TRTYPE]) : 0;
	tr = trtype_name(trtype);
	/* absent from a module older than authentication */
	req = ctrl_bool(tb, NVMET_QOS_A_CTRL_AUTH_REQUIRED);
	done = ctrl_bool(tb, NVMET_QOS_A_CTRL_AUTHENTICATED);

	print_head(m, k->name);
	if (m->json) {
		fputs(",\"ctrl\":{\"nqn\":", stdout);
		if (json_print_str(stdout, nqn))
			return -ENOMEM;
		fputs(",\"subsys_nqn\":", stdout);
		if (json_print_str(stdout, sub))
			return -ENOMEM;
		printf(",\"cntlid\":%llu,\"trtype\":%llu,\"transport\":",
		       (unsigned long long)cntlid, (unsigned long long)trtype);
		if (tr)
			printf("\"%s\"", tr);
		else
			fputs("null", stdout);
		fputs(",\"class\":", stdout);
		if (json_print_str(stdout, cls))
			return -ENOMEM;
		printf(",\"auth_required\":%s,\"authenticated\":%s}}",
		       req ? req : "null", done ? done : "null");
		return 0;
	}
	fputs(" nqn=", stdout);
	text_print_str(stdout, nqn, 0);
	fputs(" subsys=", stdout);
	text_print_str(stdout, sub, 0);
	printf(" cntlid=%llu transport=", (unsigned long long)cntlid);
	if (tr)
		fputs(tr, stdout);
	else
		printf("%llu", (unsigned long long)trtype);
	fputs(" class=", stdout);
	if (text_print_str(stdout, cls, 0))
		return -ENOMEM;
	if (req)
		printf(" auth-required=%s", *req == 't' ? "yes" : "no");
	if (done)
		printf(" authenticated=%s", *done == 't' ? "yes" : "no");
	return 0;
}

static const struct event_kind *kind_of(uint8_t cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].cmd == cmd)
			return &kinds[i];
	return NULL;
}

/* Only parsed: no request goes out with it that a name would explain. */
static const struct qos_attr_set ctrl_set = {
	.policy = ctrl_policy,
	.maxtype = NVMET_QOS_A_CTRL_MAX,
};

/* @gnlh's attributes parsed against @set, or NULL with errno set. */
static struct nlattr **parse_attrs(struct genlmsghdr *gnlh,
				   const struct qos_attr_set *set)
{
	struct nlattr **tb = qos_nla_alloc(set);

	if (!tb) {
		errno = ENOMEM;
		return NULL;
	}
	if (qos_nla_parse(tb, set, gnlh) < 0) {
		qos_nla_free(tb);
		errno = EBADMSG;
		return NULL;
	}
	return tb;
}

static int show_event(const struct monitor *m, struct genlmsghdr *gnlh)
{
	const struct event_kind *k = kind_of(gnlh->cmd);
	struct nlattr **tb;
	int err;

	if (!k) {
		/* From a newer module: say so rather than hide it. */
		print_head(m, "unknown");
		printf(m->json ? ",\"cmd\":%u}" : " cmd=%u", gnlh->cmd);
		return 0;
	}
	tb = parse_attrs(gnlh, k->obj ? k->obj->set : &ctrl_set);
	if (!tb)
		return -errno;
	err = k->obj ? print_obj(m, k, tb) : print_ctrl(m, k, tb);
	qos_nla_free(tb);
	return err;
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct monitor *m = arg;
	int err;

	if (nlh->nlmsg_type != m->family)
		return NL_SKIP;
	if (!genlmsg_valid_hdr(nlh, 0)) {
		fprintf(stderr, "nvmet-qos: malformed event: truncated header\n");
		return NL_SKIP;
	}
	err = show_event(m, nlmsg_data(nlh));
	if (err == -EBADMSG) {
		fprintf(stderr, "nvmet-qos: malformed event from the kernel\n");
		return NL_SKIP;
	}
	putchar('\n');
	/* Each event reaches a pipe or file as it happens. */
	fflush(stdout);
	if (err) {
		m->err = err;
		return NL_STOP;
	}
	m->seen++;
	return m->count && m->seen >= m->count ? NL_STOP : NL_OK;
}

/* The kernel dropped events for us (ENOBUFS): say so and go on. */
static void report_lost(const struct monitor *m)
{
	fprintf(stderr, "nvmet-qos: some events were lost (the kernel could not queue them)\n");
	print_head(m, "lost");
	if (m->json)
		putchar('}');
	putchar('\n');
	fflush(stdout);
}

static int subscribe(struct qos_nl *nl)
{
	int grp;

	grp = genl_ctrl_resolve_grp(nl->sk, NVMET_QOS_FAMILY_NAME,
				    NVMET_QOS_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(stderr, "nvmet-qos: the loaded module has no \"%s\" group: %s\n",
			NVMET_QOS_MCGRP_EVENTS, nl_geterror(grp));
		return -1;
	}
	/* A burst of connects must not overflow us while we print. */
	nl_socket_set_buffer_size(nl->sk, 1 << 22, 0);
	grp = nl_socket_add_membership(nl->sk, grp);
	if (grp < 0) {
		fprintf(stderr, "nvmet-qos: cannot join the events group: %s\n",
			nl_geterror(grp));
		return -1;
	}
	return 0;
}

/* Notifications carry sequence number 0, not one of our requests'. */
static int any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * SIGINT and SIGTERM end the monitor between two events, never inside one:
 * a fatal signal can cut a write to a file short at a page boundary and
 * leave a torn line for whoever reads the log. They are blocked except
 * while waiting for the next event, and libnl, which retries its recvmsg
 * on EINTR, only runs once one is there. @wait is the mask to wait with.
 */
static int catch_stop_signals(sigset_t *wait)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t stops;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &stops, wait) ||
	    sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) {
		fprintf(stderr, "nvmet-qos: cannot catch signals: %s\n",
			strerror(errno));
		return -1;
	}
	sigdelset(wait, SIGINT);
	sigdelset(wait, SIGTERM);
	return 0;
}

/* Wait for an event; false once a signal asked us to stop. */
static bool await_event(struct qos_nl *nl, const sigset_t *wait)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(nl->sk), .events = POLLIN };

	while (!stop && ppoll(&pfd, 1, NULL, wait) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "nvmet-qos: cannot wait for events: %s\n",
				strerror(errno));
			return false;
		}
	}
	return !stop;
}

static int listen_events(struct qos_nl *nl, struct monitor *m)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	sigset_t wait;
	int err;

	if (!cb) {
		fprintf(stderr, "nvmet-qos: out of memory\n");
		return QOS_EXIT_ERROR;
	}
	if (catch_stop_signals(&wait)) {
		nl_cb_put(cb);
		return QOS_EXIT_ERROR;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, m);
	while (!m->err && (!m->count || m->seen < m->count)) {
		if (!await_event(nl, &wait))
			break;
		err = nl_recvmsgs(nl->sk, cb);
		/* libnl reports the socket's ENOBUFS as NLE_NOMEM. */
		if (err == -NLE_NOMEM) {
			report_lost(m);
			continue;
		}
		if (err < 0) {
			fprintf(stderr, "nvmet-qos: cannot receive events: %s\n",
				nl_geterror(err));
			break;
		}
	}
	nl_cb_put(cb);
	if (m->err) {
		fprintf(stderr, "nvmet-qos: %s\n", strerror(-m->err));
		return QOS_EXIT_ERROR;
	}
	/* Signals arrive only in ppoll(): a stop follows no failure. */
	return stop || (m->count && m->seen >= m->count) ?
	       QOS_EXIT_OK : QOS_EXIT_ERROR;
}

static const struct option monitor_longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "count", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_monitor(const struct cmd *cmd, int argc, char **argv)
{
	struct monitor m = { 0 };
	struct qos_nl nl;
	int c, ret;

	while ((c = cmd_getopt(cmd, argc, argv, ":hjc:",
			       monitor_longopts)) != -1) {
		if (c == 'j')
			m.json = true;
		else if (c == 'c' && parse_uint(optarg, 1, UINT32_MAX, &m.count))
			usage_error("invalid --count '%s': want a positive integer",
				    optarg);
	}
	cmd_max_operands(cmd, argc, argv, 0);

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;
	m.family = nl.family;
	ret = subscribe(&nl) ? QOS_EXIT_ERROR : listen_events(&nl, &m);
	qos_nl_close(&nl);
	return ret;
}
