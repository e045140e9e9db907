/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands of every object (host, class, device) have in common:
 * one netlink socket per command, a dump collected into a sorted vector or
 * one object read by its key, printed as a table or as JSON, and requests
 * that change state and expect only an ack.
 */
#ifndef NVMET_QOS_OBJ_H
#define NVMET_QOS_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl.h"
#include "nvmet-qos.h"
#include "table.h"

/* How one kind of object is read from the kernel and printed. */
struct qos_obj {
	const struct qos_attr_set *set;
	uint8_t get_cmd;		/* dumped by "list", done by "show" */
	int key_attr;			/* string key of a "show" request */
	const char *name;		/* in messages: host "nqn.x" not found */
	const char *list_key;		/* "list --json": {"hosts":[...]} */
	size_t size;			/* bytes of one object */
	/* Fill @obj from one reply; nonzero if the reply is malformed. */
	int (*from_attrs)(struct nlattr **tb, void *obj);
	/* Order of "list", NULL to keep the kernel's. */
	int (*cmp)(const void *a, const void *b);
	/* Called on the sorted list before it is printed, or NULL. */
	void (*prepare)(void *v, size_t n);
	/* One object as a JSON object, no newline; -1 when out of memory. */
	int (*print_json)(const void *obj);
	/* Table: one 'l' or 'r' per column, the title row, one row each. */
	const char *align;
	void (*table_head)(struct table *t);
	void (*table_row)(struct table *t, const void *obj);
};

/* The objects (host.c, class.c, device.c, cluster.c), also decoded by "monitor". */
extern const struct qos_obj qos_host_obj, qos_class_obj, qos_dev_obj,
	qos_cluster_obj;

/* Every object of @o into @vec, sorted. Prints why and returns < 0 if not. */
int qos_obj_dump(struct qos_nl *nl, const struct qos_obj *o, struct vec *vec);

/*
 * The object named @key into @obj (o->size bytes). Prints why and returns
 * < 0 on failure, including when the kernel answered with no object.
 */
int qos_obj_get(struct qos_nl *nl, const struct qos_obj *o, const char *key,
		void *obj);

/*
 * Send @cmd, a "do" that takes no attribute, on a socket of its own, and
 * feed its reply to @fn, which sets *@found. Prints why (the kernel sent
 * no @what, ...) and returns < 0 on failure.
 */
int qos_obj_get_plain(uint8_t cmd, const struct qos_attr_set *set,
		      qos_reply_fn fn, void *arg, const bool *found,
		      const char *what);

/* @n objects (JSON: {"list_key":[...]}) or one object; return an exit code. */
int qos_obj_print_list(const struct qos_obj *o, const void *v, size_t n,
		       bool json);
int qos_obj_print_one(const struct qos_obj *o, const void *obj, bool json);

/* "list" and "show" of @o once the command line was checked: exit codes. */
int qos_obj_list(const struct qos_obj *o, bool json);
int qos_obj_show(const struct qos_obj *o, const char *key, void *obj,
		 bool json);

/*
 * Send @cmd with the attributes @put(msg, @arg) adds on a socket of its own.
 * @what is as for qos_nl_change(). Returns an exit code.
 */
int qos_obj_change(uint8_t cmd, const struct qos_attr_set *set,
		   int (*put)(struct nl_msg *msg, const void *arg),
		   const void *arg, const char *what);

/*
 * A device as "nvme0n1", "MAJOR:MINOR", a device node, or any file or
 * directory of a file system that backs file namespaces, into the dev_t of
 * the whole disk the engine schedules. Returns 0, or -ENODEV with a reason
 * in @why.
 */
int qos_device_resolve(const char *arg, uint32_t *id, char *why,
		       size_t whylen);

/*
 * The name sysfs gives block device @id now (nvme0n1), which is what
 * qos_device_resolve() takes back. Returns 0, or -ENODEV if it has none.
 */
int qos_device_name(uint32_t id, char *buf, size_t len);

/* qos_device_name(), or MAJOR:MINOR where sysfs has no name for @id. */
void qos_device_label(uint32_t id, char *buf, size_t len);

/*
 * The stripe of a device reply into @s, *@have false (and @s zero) from
 * a module older than stripes. -EBADMSG for more members than a stripe
 * has.
 */
struct stripe;
int qos_stripe_from_attrs(struct nlattr **tb, struct stripe *s, bool *have);

/* @s as dev-set's stripe-chunk and stripe-members; -ENOMEM if not. */
int qos_stripe_put(struct nl_msg *msg, const struct stripe *s);

/* The name and share of every class (class.c), for "stats". */
struct class_share {
	char name[32];
	uint32_t share;
};

int qos_class_shares(struct qos_nl *nl, struct vec *out);

#endif /* NVMET_QOS_OBJ_H */
