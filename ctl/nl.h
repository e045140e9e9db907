/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink plumbing of the nvmet-qos tool: socket setup, request and
 * reply loop, and decoding of the kernel's extended acks.
 */
#ifndef NVMET_QOS_NL_H
#define NVMET_QOS_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

struct nl_sock;

struct qos_nl {
	struct nl_sock *sk;
	int family;
};

/* How one attribute set is parsed and named in messages. */
struct qos_attr_set {
	const struct nla_policy *policy;
	const char *const *names;	/* indexed by type, as in the yaml spec */
	int maxtype;
};

/*
 * Called once per reply message with its attributes parsed against the set's
 * policy (tb[type] is NULL when absent). Return 0, or a negative errno to
 * abort: -EBADMSG for a reply that makes no sense, -ENOMEM and so on.
 */
typedef int (*qos_reply_fn)(struct nlattr **tb, void *arg);

/* Outcome of one request, filled by qos_nl_exec(). */
struct qos_nl_status {
	int err;		/* 0, or a negative errno */
	bool local;		/* err was detected here, not by the kernel */
	char msg[256];		/* extended ack message, or our own text */
	int bad_attr;		/* attribute the kernel blamed, or -1 */
	int miss_attr;		/* attribute the kernel missed, or -1 */
};

/* Returns 0, or prints why and returns -1. */
int qos_nl_open(struct qos_nl *nl);
void qos_nl_close(struct qos_nl *nl);

/* New request for @cmd; @flags is 0 for "do" or NLM_F_DUMP. NULL on ENOMEM. */
struct nl_msg *qos_nl_msg(const struct qos_nl *nl, uint8_t cmd, int flags);

/*
 * Send @msg (consumed), feed every reply to @fn and wait for the final ack
 * or end of dump. Returns st->err. A dump that the kernel flagged as
 * inconsistent (objects changed under it) fails with -EINTR after all its
 * replies were delivered, so the caller may start over.
 */
int qos_nl_exec(struct qos_nl *nl, struct nl_msg *msg,
		const struct qos_attr_set *set, qos_reply_fn fn, void *arg,
		struct qos_nl_status *st);

/* Record a local failure (-ENOMEM...) in @st for qos_nl_perror(); returns @err. */
int qos_nl_fail(struct qos_nl_status *st, int err);

/* Print a failed status as one "nvmet-qos: ..." line on stderr. */
void qos_nl_perror(const struct qos_nl_status *st,
		   const struct qos_attr_set *set);

#endif /* NVMET_QOS_NL_H */
