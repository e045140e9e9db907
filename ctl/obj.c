// SPDX-License-Identifier: GPL-2.0
/*
 * Reading, printing and changing objects the same way for every command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "obj.h"

/* Our own allocation failures, as qos_nl_perror() words the kernel's. */
static void print_nomem(void)
{
	fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
}

/* ---- Reading ------------------------------------------------------------ */

struct dump_vec {
	const struct qos_obj *o;
	struct vec *vec;
};

static int dump_vec_add(struct nlattr **tb, void *arg)
{
	struct dump_vec *d = arg;
	void *obj = vec_push(d->vec, d->o->size);

	if (!obj)
		return -ENOMEM;
	return d->o->from_attrs(tb, obj) ? -EBADMSG : 0;
}

static void dump_vec_reset(void *arg)
{
	struct dump_vec *d = arg;

	vec_reset(d->vec);
}

int qos_obj_dump(struct qos_nl *nl, const struct qos_obj *o, struct vec *vec)
{
	struct dump_vec d = { .o = o, .vec = vec };
	struct qos_nl_status st;
	int err;

	err = qos_nl_dump(nl, o->get_cmd, o->set, dump_vec_add, dump_vec_reset,
			  &d, &st);
	if (err) {
		qos_nl_perror(&st, o->set);
		return err;
	}
	/* The kernel's order is hash order; sorted output diffs nicely. */
	if (o->cmp && vec->n)
		qsort(vec->v, vec->n, o->size, o->cmp);
	return 0;
}

/* A do request should send only one reply; keep the first. */
struct get_one {
	const struct qos_obj *o;
	void *obj;
	bool found;
};

static int get_one_set(struct nlattr **tb, void *arg)
{
	struct get_one *one = arg;

	if (one->found)
		return 0;
	if (one->o->from_attrs(tb, one->obj))
		return -EBADMSG;
	one->found = true;
	return 0;
}

int qos_obj_get(struct qos_nl *nl, const struct qos_obj *o, const char *key,
		void *obj)
{
	struct get_one one = { .o = o, .obj = obj, .found = false };
	struct qos_nl_status st;
	struct nl_msg *msg;
	int err;

	/* As zeroed as the objects of a dump, whatever the reply lacks. */
	memset(obj, 0, o->size);
	msg = qos_nl_msg(nl, o->get_cmd, 0);
	if (!msg || nla_put_string(msg, o->key_attr, key) < 0) {
		nlmsg_free(msg);
		print_nomem();
		return -ENOMEM;
	}

	err = qos_nl_exec(nl, msg, o->set, get_one_set, &one, &st);
	if (err == -ENOENT && !st.local && !st.msg[0]) {
		fprintf(stderr, "nvmet-qos: %s \"%s\" not found\n", o->name, key);
		return err;
	}
	if (err) {
		qos_nl_perror(&st, o->set);
		return err;
	}
	if (!one.found) {
		fprintf(stderr, "nvmet-qos: the kernel sent no reply for %s \"%s\"\n",
			o->name, key);
		return -ENODATA;
	}
	return 0;
}

/* ---- Printing ----------------------------------------------------------- */

static int print_table(const struct qos_obj *o, const void *v, size_t n)
{
	struct table t;
	size_t i;
	int err;

	table_init(&t, o->align);
	o->table_head(&t);
	for (i = 0; i < n; i++)
		o->table_row(&t, (const char *)v + i * o->size);
	err = table_print(&t, stdout);
	table_free(&t);
	return err;
}

static int print_list_json(const struct qos_obj *o, const void *v, size_t n)
{
	size_t i;

	printf("{\"%s\":[", o->list_key);
	for (i = 0; i < n; i++) {
		if (i)
			putchar(',');
		if (o->print_json((const char *)v + i * o->size))
			return -1;
	}
	fputs("]}\n", stdout);
	return 0;
}

int qos_obj_print_list(const struct qos_obj *o, const void *v, size_t n,
		       bool json)
{
	int err;

	err = json ? print_list_json(o, v, n) : print_table(o, v, n);
	if (err) {
		print_nomem();
		return QOS_EXIT_ERROR;
	}
	return QOS_EXIT_OK;
}

int qos_obj_print_one(const struct qos_obj *o, const void *obj, bool json)
{
	int err;

	if (!json)
		return qos_obj_print_list(o, obj, 1, false);
	err = o->print_json(obj);
	putchar('\n');
	if (err) {
		print_nomem();
		return QOS_EXIT_ERROR;
	}
	return QOS_EXIT_OK;
}

int qos_obj_get_plain(uint8_t cmd, const struct qos_attr_set *set,
		      qos_reply_fn fn, void *arg, const bool *found,
		      const char *what)
{
	struct qos_nl_status st;
	struct qos_nl nl;
	struct nl_msg *msg;
	int ret = -1;

	if (qos_nl_open(&nl))
		return -1;
	msg = qos_nl_msg(&nl, cmd, 0);
	if (!msg)
		print_nomem();
	else if (qos_nl_exec(&nl, msg, set, fn, arg, &st))
		qos_nl_perror(&st, set);
	else if (!*found)
		fprintf(stderr, "nvmet-qos: the kernel sent no %s\n", what);
	else
		ret = 0;
	qos_nl_close(&nl);
	return ret;
}

/* ---- Whole commands ----------------------------------------------------- */

int qos_obj_list(const struct qos_obj *o, bool json)
{
	struct vec vec = { 0 };
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;
	if (!qos_obj_dump(&nl, o, &vec)) {
		if (o->prepare)
			o->prepare(vec.v, vec.n);
		ret = qos_obj_print_list(o, vec.v, vec.n, json);
	}
	free(vec.v);
	qos_nl_close(&nl);
	return ret;
}

int qos_obj_show(const struct qos_obj *o, const char *key, void *obj,
		 bool json)
{
	struct qos_nl nl;
	int ret = QOS_EXIT_ERROR;

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;
	if (!qos_obj_get(&nl, o, key, obj))
		ret = qos_obj_print_one(o, obj, json);
	qos_nl_close(&nl);
	return ret;
}

int qos_obj_change(uint8_t cmd, const struct qos_attr_set *set,
		   int (*put)(struct nl_msg *msg, const void *arg),
		   const void *arg, const char *what)
{
	struct qos_nl nl;
	struct nl_msg *msg;
	int err;

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;

	msg = qos_nl_msg(&nl, cmd, 0);
	if (!msg || put(msg, arg)) {
		nlmsg_free(msg);
		print_nomem();
		qos_nl_close(&nl);
		return QOS_EXIT_ERROR;
	}
	err = qos_nl_change(&nl, msg, set, what);
	qos_nl_close(&nl);
	return err ? QOS_EXIT_ERROR : QOS_EXIT_OK;
}
