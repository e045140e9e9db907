// SPDX-License-Identifier: GPL-2.0
/*
 * The policy tables: bandwidth classes by name and id.
 *
 * Class ids index the per-domain class state, so a class keeps its id for
 * life; a generation number tells a domain that an id was reused. Changes
 * come from netlink (process context) under policy_mutex; the I/O path
 * only ever copies a class's configuration, under class_lock, when a
 * domain first meets the class. Every change is then pushed to the
 * domains, which apply it to requests already queued.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "nvmet-qos.h"

struct nq_class {
	bool used;
	u32 gen;
	char name[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	struct nqs_class_conf conf;
};

static DEFINE_MUTEX(policy_mutex);
static DEFINE_SPINLOCK(class_lock);
static struct nq_class classes[NQ_MAX_CLASSES];
/* Classes that admit authenticated controllers only: read per request. */
static DECLARE_BITMAP(auth_classes, NQ_MAX_CLASSES);

static const struct nqs_class_conf default_conf = { .weight = 100 };

void nq_policy_lock(void)
{
	mutex_lock(&policy_mutex);
}

void nq_policy_unlock(void)
{
	mutex_unlock(&policy_mutex);
}

/* Copy class @id's configuration; false if the id is unused. */
bool nq_class_conf(int id, u32 *gen, struct nqs_class_conf *conf)
{
	unsigned long flags;
	bool used;

	spin_lock_irqsave(&class_lock, flags);
	used = classes[id].used;
	if (used) {
		*gen = classes[id].gen;
		*conf = classes[id].conf;
	}
	spin_unlock_irqrestore(&class_lock, flags);
	return used;
}

/* Under policy_mutex. */
int nq_class_find(const char *name)
{
	int i;

	for (i = 0; i < NQ_MAX_CLASSES; i++)
		if (classes[i].used && !strcmp(classes[i].name, name))
			return i;
	return -ENOENT;
}

/* Any context. */
bool nq_class_name(int id, char *name, size_t len)
{
	unsigned long flags;
	bool used;

	if (id < 0 || id >= NQ_MAX_CLASSES)
		return false;
	spin_lock_irqsave(&class_lock, flags);
	used = classes[id].used;
	if (used)
		strscpy(name, classes[id].name, len);
	spin_unlock_irqrestore(&class_lock, flags);
	return used;
}

/*
 * The name to show for a host's class: a class deleted under a reader
 * (its hosts are moving to default) reads as default.
 */
void nq_class_label(int id, char *name, size_t len)
{
	if (!nq_class_name(id, name, len))
		strscpy(name, NVMET_QOS_DEFAULT_CLASS, len);
}

int nq_class_valid_name(const char *name, struct netlink_ext_ack *extack)
{
	size_t i, len = strlen(name);

	if (!len || len > NVMET_QOS_CLASS_NAME_MAX_LEN) {
		NL_SET_ERR_MSG(extack, "class name must be 1 to 31 characters");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!isalnum(name[i]) && !strchr("_.-", name[i])) {
			NL_SET_ERR_MSG(extack,
				       "class name may only contain A-Z a-z 0-9 _ . -");
			return -EINVAL;
		}
	}
	return 0;
}

static void publish(int id, const struct nqs_class_conf *conf, bool used,
		    const char *name)
{
	unsigned long flags;

	spin_lock_irqsave(&class_lock, flags);
	if (used && !classes[id].used)
		classes[id].gen++;
	classes[id].used = used;
	if (name)
		strscpy(classes[id].name, name, sizeof(classes[id].name));
	classes[id].conf = *conf;
	if (used && conf->auth)
		set_bit(id, auth_classes);
	else
		clear_bit(id, auth_classes);
	spin_unlock_irqrestore(&class_lock, flags);
}

/*
 * Whether class @id admits only the requests of controllers that
 * authenticated. Lock-free: the I/O path asks it of every request.
 */
bool nq_class_auth(int id)
{
	return test_bit(id, auth_classes);
}

/* Under policy_mutex; @conf already validated. */
int nq_class_new(const char *name, const struct nqs_class_conf *conf,
		 struct netlink_ext_ack *extack)
{
	int i;

	if (nq_class_find(name) >= 0) {
		NL_SET_ERR_MSG(extack, "a class with this name exists");
		return -EEXIST;
	}
	for (i = 0; i < NQ_MAX_CLASSES; i++) {
		if (!classes[i].used) {
			publish(i, conf, true, name);
			return i;
		}
	}
	NL_SET_ERR_MSG(extack, "too many classes (at most 64)");
	return -ENOSPC;
}

/* Under policy_mutex. */
void nq_class_update(int id, const struct nqs_class_conf *conf)
{
	publish(id, conf, true, NULL);
}

/* Under policy_mutex; the caller moved the class's hosts away first. */
void nq_class_delete(int id)
{
	publish(id, &default_conf, false, NULL);
}

/* Under policy_mutex. */
void nq_class_get_conf(int id, struct nqs_class_conf *conf)
{
	*conf = classes[id].conf;
}

int nq_policy_init(void)
{
	publish(NQ_DEFAULT_CLASS, &default_conf, true, NVMET_QOS_DEFAULT_CLASS);
	return 0;
}
