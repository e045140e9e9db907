// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing of the nvmet-qos tool.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "nvmet_qos.h"
#include "nl.h"

/* Dumps the kernel flags as inconsistent are retried this many times. */
#define QOS_DUMP_TRIES 3

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* State of one request while its replies come in. */
struct qos_nl_req {
	struct nl_msg *msg;		/* what we sent, to decode error offsets */
	const struct qos_attr_set *set;
	struct nlattr **tb;
	qos_reply_fn fn;
	void *arg;
	struct qos_nl_status *st;
	int family;
	bool done;
};

static void set_local(struct qos_nl_status *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_local(struct qos_nl_status *st, int err, const char *fmt, ...)
{
	va_list ap;

	st->err = err;
	st->local = true;
	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
	va_end(ap);
}

/* A table of qos_nla_alloc(): what it was parsed from, then tb itself. */
struct nla_table {
	struct nlattr *head;
	int len;
	struct nlattr *tb[];
};

static struct nla_table *table_of(struct nlattr **tb)
{
	return (struct nla_table *)((char *)tb - offsetof(struct nla_table, tb));
}

struct nlattr **qos_nla_alloc(const struct qos_attr_set *set)
{
	struct nla_table *t;

	t = calloc(1, sizeof(*t) + (set->maxtype + 1) * sizeof(t->tb[0]));
	return t ? t->tb : NULL;
}

void qos_nla_free(struct nlattr **tb)
{
	if (tb)
		free(table_of(tb));
}

int qos_nla_parse(struct nlattr **tb, const struct qos_attr_set *set,
		  struct genlmsghdr *gnlh)
{
	struct nla_table *t = table_of(tb);

	t->head = genlmsg_attrdata(gnlh, 0);
	t->len = genlmsg_attrlen(gnlh, 0);
	return nla_parse(tb, set->maxtype, t->head, t->len, set->policy);
}

size_t qos_nla_u32s(struct nlattr **tb, int type, uint32_t *out, size_t max)
{
	struct nla_table *t = table_of(tb);
	struct nlattr *nla;
	size_t n = 0;
	int rem;

	/* nla_parse() checked each against the policy: 4 bytes. */
	nla_for_each_attr(nla, t->head, t->len, rem) {
		if (nla_type(nla) != type)
			continue;
		if (n < max)
			out[n] = nla_get_u32(nla);
		n++;
	}
	return n;
}

uint64_t qos_nla_uint(const struct nlattr *nla)
{
	switch (nla_len(nla)) {
	case 1:
		return nla_get_u8(nla);
	case 2:
		return nla_get_u16(nla);
	case 4:
		return nla_get_u32(nla);
	default:
		return nla_get_u64(nla);
	}
}

void qos_nla_fields(struct nlattr **tb, const struct field *f, size_t n,
		    uint64_t *val, bool *have)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct nlattr *nla = tb[f[i].attr];

		val[i] = nla ? qos_nla_uint(nla) : 0;
		have[i] = nla || !f[i].optional;
	}
}

int qos_nl_fail(struct qos_nl_status *st, int err)
{
	memset(st, 0, sizeof(*st));
	st->bad_attr = -1;
	st->miss_attr = -1;
	set_local(st, err, "%s", strerror(-err));
	return err;
}

int qos_nl_open(struct qos_nl *nl)
{
	int one = 1;
	int err;

	nl->family = -1;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		fprintf(stderr, "nvmet-qos: out of memory\n");
		return -1;
	}

	err = genl_connect(nl->sk);
	if (err < 0) {
		fprintf(stderr, "nvmet-qos: cannot open a generic netlink socket: %s\n",
			nl_geterror(err));
		goto fail;
	}

	/*
	 * Best effort: kernels before 4.12 lack extended acks and we then
	 * print strerror() alone. CAP_ACK keeps the kernel from echoing the
	 * whole request back, which we do not need as we keep our own copy.
	 */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));

	nl->family = genl_ctrl_resolve(nl->sk, NVMET_QOS_FAMILY_NAME);
	if (nl->family == -NLE_OBJ_NOTFOUND) {
		fprintf(stderr, "nvmet-qos: generic netlink family \"%s\" not found (is the nvmet-qos module loaded?)\n",
			NVMET_QOS_FAMILY_NAME);
		goto fail;
	}
	if (nl->family < 0) {
		fprintf(stderr, "nvmet-qos: cannot resolve generic netlink family \"%s\": %s\n",
			NVMET_QOS_FAMILY_NAME, nl_geterror(nl->family));
		goto fail;
	}
	return 0;

fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return -1;
}

void qos_nl_close(struct qos_nl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *qos_nl_msg(const struct qos_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, NVMET_QOS_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Type of the attribute at byte @offs of our request, as the kernel reports
 * it in NLMSGERR_ATTR_OFFS, or -1 if the offset does not land on one.
 */
static int attr_at_offset(struct nl_msg *msg, uint32_t offs)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	const struct nlattr *nla;

	if (offs < NLMSG_HDRLEN + GENL_HDRLEN || offs % NLA_ALIGNTO ||
	    offs > nlh->nlmsg_len || nlh->nlmsg_len - offs < NLA_HDRLEN)
		return -1;
	nla = (const struct nlattr *)((const char *)nlh + offs);
	return nla->nla_type & NLA_TYPE_MASK;
}

/*
 * Extended ack TLVs that start @off bytes into the payload of @nlh (an
 * NLMSG_ERROR or NLMSG_DONE). Malformed TLVs are ignored: the errno alone
 * still tells the story.
 */
static void parse_ext_ack(struct qos_nl_req *req, struct nlmsghdr *nlh,
			  size_t off)
{
	static const struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG]		= { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS]		= { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_TYPE]	= { .type = NLA_U32 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct qos_nl_status *st = req->st;
	size_t len = nlh->nlmsg_len - NLMSG_HDRLEN;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(nlh) + off),
		      (int)(len - off), policy) < 0)
		return;

	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(st->msg, tb[NLMSGERR_ATTR_MSG], sizeof(st->msg));
	if (tb[NLMSGERR_ATTR_OFFS])
		st->bad_attr = attr_at_offset(req->msg,
					      nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		st->miss_attr = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	/* libnl hands us the payload; the header sits right before it. */
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct qos_nl_req *req = arg;
	size_t off;

	(void)who;
	req->st->err = e->error < 0 ? e->error : -e->error;
	req->done = true;

	/*
	 * Without NLM_F_CAPPED the kernel echoes our whole request before the
	 * TLVs, padded to NLMSG_ALIGN; a length shorter than a header would
	 * be nonsense, so we then skip the TLVs instead of misreading them.
	 */
	if (nlh->nlmsg_flags & NLM_F_CAPPED)
		off = sizeof(*e);
	else if (e->msg.nlmsg_len >= sizeof(e->msg))
		off = sizeof(e->error) + NLMSG_ALIGN(e->msg.nlmsg_len);
	else
		return NL_STOP;

	parse_ext_ack(req, nlh, off);
	return NL_STOP;
}

/* Success ack; it may still carry a warning from the kernel. */
static int on_ack(struct nl_msg *msg, void *arg)
{
	struct qos_nl_req *req = arg;

	parse_ext_ack(req, nlmsg_hdr(msg), sizeof(struct nlmsgerr));
	if (req->st->msg[0])
		fprintf(stderr, "nvmet-qos: warning: %s\n", req->st->msg);
	req->st->msg[0] = '\0';
	req->st->bad_attr = -1;
	req->st->miss_attr = -1;
	req->done = true;
	return NL_STOP;
}

/* End of a dump: a dump that fails half way carries its errno here. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct qos_nl_req *req = arg;
	int err;

	req->done = true;
	if (nlmsg_datalen(nlh) < (int)sizeof(err))
		return NL_STOP;

	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err < 0) {
		req->st->err = err;
		parse_ext_ack(req, nlh, sizeof(err));
	}
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct qos_nl_req *req = arg;
	const struct qos_attr_set *set = req->set;
	struct genlmsghdr *gnlh;
	int err;

	/* Not from our family: nothing we could make sense of. */
	if (nlh->nlmsg_type != req->family)
		return NL_SKIP;

	if (!genlmsg_valid_hdr(nlh, 0)) {
		set_local(req->st, -EBADMSG, "%s",
			  "malformed reply from the kernel: truncated header");
		return NL_STOP;
	}
	gnlh = nlmsg_data(nlh);
	err = qos_nla_parse(req->tb, set, gnlh);
	if (err < 0) {
		set_local(req->st, -EBADMSG,
			  "malformed reply from the kernel: %s",
			  nl_geterror(err));
		return NL_STOP;
	}

	err = req->fn(req->tb, req->arg);
	if (err) {
		set_local(req->st, err, "%s", err == -EBADMSG ?
			  "malformed reply from the kernel" : strerror(-err));
		return NL_STOP;
	}
	return NL_OK;
}

int qos_nl_exec(struct qos_nl *nl, struct nl_msg *msg,
		const struct qos_attr_set *set, qos_reply_fn fn, void *arg,
		struct qos_nl_status *st)
{
	struct qos_nl_req req = {
		.msg = msg, .set = set, .fn = fn, .arg = arg, .st = st,
		.family = nl->family,
	};
	struct nl_cb *cb = NULL;
	int err;

	memset(st, 0, sizeof(*st));
	st->bad_attr = -1;
	st->miss_attr = -1;

	req.tb = qos_nla_alloc(set);
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!req.tb || !cb) {
		set_local(st, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &req);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);

	err = nl_send_auto(nl->sk, msg);
	if (err < 0) {
		set_local(st, -EIO, "cannot send netlink request: %s",
			  nl_geterror(err));
		goto out;
	}

	while (!req.done && !st->err) {
		err = nl_recvmsgs(nl->sk, cb);
		if (err == -NLE_DUMP_INTR && !st->err) {
			set_local(st, -EINTR, "%s",
				  "the kernel's list changed during the dump, try again");
		} else if (err < 0 && !st->err) {
			set_local(st, -EIO, "cannot receive netlink reply: %s",
				  nl_geterror(err));
		}
		if (err < 0)
			break;
	}

out:
	nl_cb_put(cb);
	qos_nla_free(req.tb);
	nlmsg_free(msg);
	return st->err;
}

int qos_nl_dump(struct qos_nl *nl, uint8_t cmd, const struct qos_attr_set *set,
		qos_reply_fn fn, void (*restart)(void *arg), void *arg,
		struct qos_nl_status *st)
{
	struct nl_msg *msg;
	int tries, err = -EINTR;

	for (tries = 0; tries < QOS_DUMP_TRIES && err == -EINTR; tries++) {
		/* A retried dump starts from scratch. */
		restart(arg);
		msg = qos_nl_msg(nl, cmd, NLM_F_DUMP);
		if (!msg)
			return qos_nl_fail(st, -ENOMEM);
		err = qos_nl_exec(nl, msg, set, fn, arg, st);
	}
	return err;
}

/* Changes are answered by an ack alone; ignore anything else. */
static int ignore_reply(struct nlattr **tb, void *arg)
{
	(void)tb;
	(void)arg;
	return 0;
}

static const char *attr_name(const struct qos_attr_set *set, int type,
			     char *buf, size_t len)
{
	if (set && type >= 0 && type <= set->maxtype && set->names[type])
		return set->names[type];
	snprintf(buf, len, "%d", type);
	return buf;
}

int qos_nl_request(struct qos_nl *nl, struct nl_msg *msg,
		   const struct qos_attr_set *set, const char *what,
		   char *why, size_t len)
{
	struct qos_nl_status st;
	int err;

	err = qos_nl_exec(nl, msg, set, ignore_reply, NULL, &st);
	if (err)
		qos_nl_strerror(&st, set, what, why, len);
	return err;
}

int qos_nl_change(struct qos_nl *nl, struct nl_msg *msg,
		  const struct qos_attr_set *set, const char *what)
{
	char why[320];
	int err;

	err = qos_nl_request(nl, msg, set, what, why, sizeof(why));
	if (err)
		fprintf(stderr, "nvmet-qos: %s\n", why);
	return err;
}

void qos_nl_strerror(const struct qos_nl_status *st,
		     const struct qos_attr_set *set, const char *what,
		     char *buf, size_t len)
{
	const char *how = "invalid";
	char num[16];
	int type = st->bad_attr;

	if (st->local) {
		snprintf(buf, len, "%s", st->msg);
		return;
	}
	/* The kernel's own words come first and are given verbatim. */
	if (st->msg[0]) {
		snprintf(buf, len, "%s (%s)", st->msg, strerror(-st->err));
		return;
	}
	if (st->err == -ENOENT && what) {
		snprintf(buf, len, "%s not found", what);
		return;
	}
	if (st->err == -EPERM) {
		snprintf(buf, len, "%s (changes need CAP_NET_ADMIN)",
			 strerror(EPERM));
		return;
	}
	/* Without words, an attribute pointer still says what was wrong. */
	if (st->miss_attr >= 0) {
		how = "missing";
		type = st->miss_attr;
	}
	if (type >= 0)
		snprintf(buf, len, "%s attribute %s (%s)", how,
			 attr_name(set, type, num, sizeof(num)),
			 strerror(-st->err));
	else
		snprintf(buf, len, "%s", strerror(-st->err));
}

void qos_nl_perror(const struct qos_nl_status *st,
		   const struct qos_attr_set *set)
{
	char buf[320];

	qos_nl_strerror(st, set, NULL, buf, sizeof(buf));
	fprintf(stderr, "nvmet-qos: %s\n", buf);
}
