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

#include "table.h"

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

/*
 * Tables of parsed attributes, tb[type] NULL when absent, as every
 * qos_reply_fn gets them. nla_parse() leaves in tb[type] the last of the
 * attributes of a type the kernel repeats (multi-attr), so a table also
 * keeps the attributes it was parsed from, for qos_nla_u32s().
 */
struct genlmsghdr;
/* A table for @set, NULL when out of memory; free it with qos_nla_free(). */
struct nlattr **qos_nla_alloc(const struct qos_attr_set *set);
void qos_nla_free(struct nlattr **tb);
/* @gnlh's attributes into @tb; 0 or a negative libnl error. */
int qos_nla_parse(struct nlattr **tb, const struct qos_attr_set *set,
		  struct genlmsghdr *gnlh);
/*
 * Every u32 attribute of type @type that @tb was parsed from, in order,
 * the first @max into @out. Returns how many there are, which may be
 * more than @max.
 */
size_t qos_nla_u32s(struct nlattr **tb, int type, uint32_t *out, size_t max);

/* Value of an integer attribute of 1, 2, 4 or 8 bytes (policy-checked). */
uint64_t qos_nla_uint(const struct nlattr *nla);

/*
 * Values of @n fields from a parsed reply: an absent attribute is 0 and, if
 * the field is optional, marked as not there.
 */
void qos_nla_fields(struct nlattr **tb, const struct field *f, size_t n,
		    uint64_t *val, bool *have);

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

/*
 * Dump @cmd into @fn. A dump the kernel flags as inconsistent is started
 * over, after @restart(@arg) dropped what was collected, a few times.
 */
int qos_nl_dump(struct qos_nl *nl, uint8_t cmd, const struct qos_attr_set *set,
		qos_reply_fn fn, void (*restart)(void *arg), void *arg,
		struct qos_nl_status *st);

/*
 * Send a request that changes state and expects no reply but the ack.
 * Prints why on failure; an -ENOENT without a kernel message is reported as
 * "@what not found" if @what is not NULL. Returns 0 or a negative errno.
 */
int qos_nl_change(struct qos_nl *nl, struct nl_msg *msg,
		  const struct qos_attr_set *set, const char *what);

/* qos_nl_change() that leaves the reason in @why instead of printing it. */
int qos_nl_request(struct qos_nl *nl, struct nl_msg *msg,
		   const struct qos_attr_set *set, const char *what,
		   char *why, size_t len);

/* Record a local failure (-ENOMEM...) in @st for qos_nl_perror(); returns @err. */
int qos_nl_fail(struct qos_nl_status *st, int err);

/*
 * A failed status as one line of text: the kernel's message if it sent
 * one; "@what not found" for -ENOENT if @what is not NULL.
 */
void qos_nl_strerror(const struct qos_nl_status *st,
		     const struct qos_attr_set *set, const char *what,
		     char *buf, size_t len);

/* Print a failed status as one "nvmet-qos: ..." line on stderr. */
void qos_nl_perror(const struct qos_nl_status *st,
		   const struct qos_attr_set *set);

#endif /* NVMET_QOS_NL_H */
