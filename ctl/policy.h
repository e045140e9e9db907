/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole policy of a storage head as "save" writes it and "restore"
 * reads it: classes, host assignments and device settings. The file format
 * is documented in nvmet-qos.json(5). Pure: test_parse links it.
 */
#ifndef NVMET_QOS_POLICY_H
#define NVMET_QOS_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nvmet_qos.h"
#include "nvmet-qos.h"
#include "stripe.h"

#define POLICY_VERSION		1
#define POLICY_DEV_NAME_MAX	64	/* a block device name, or MAJOR:MINOR */

/* Defaults of what a file may leave out; the kernel's defaults too. */
#define POLICY_SHARE_DEFAULT	100
#define POLICY_WEIGHT_DEFAULT	100
#define POLICY_WRITE_COST_DEFAULT 200
#define POLICY_IO_COST_DEFAULT	4096

struct pol_class {
	char name[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	uint32_t share;
	uint64_t min_bps, max_bps, min_iops, max_iops, burst;
	bool latency;
	bool auth;		/* authenticated controllers only */
	int line;		/* in the file; 0 when read from the kernel */
};

struct pol_host {
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
	char class[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	uint32_t weight;
	int line;
};

struct pol_dev {
	char name[POLICY_DEV_NAME_MAX];
	uint32_t id;		/* dev_t, kdev_make(); set by the caller */
	uint32_t write_cost, io_cost;
	uint64_t capacity;
	/*
	 * The stripe, where the file (or the kernel) gives one: without it
	 * the device's stripe is left as it is. Members by name, which is
	 * what survives a reboot; stripe.members and stripe.n are set by
	 * the caller, as @id is.
	 */
	bool has_stripe;
	struct stripe stripe;
	unsigned int nr_members;
	char members[NVMET_QOS_STRIPE_MEMBERS_MAX][POLICY_DEV_NAME_MAX];
	int line;
};

/* Vectors of the structs above; the default class is always classes[0]. */
struct policy {
	struct vec classes, hosts, devs;
	/*
	 * Read from the kernel, which gives every device's stripe: a device
	 * it lacks is not striped. A file that lacks a device leaves its
	 * stripe alone.
	 */
	bool all_stripes;
};

static inline struct pol_class *pol_class_at(const struct policy *p, size_t i)
{
	return &((struct pol_class *)p->classes.v)[i];
}

static inline struct pol_host *pol_host_at(const struct policy *p, size_t i)
{
	return &((struct pol_host *)p->hosts.v)[i];
}

static inline struct pol_dev *pol_dev_at(const struct policy *p, size_t i)
{
	return &((struct pol_dev *)p->devs.v)[i];
}

void policy_free(struct policy *p);

/* The class named @name, the host with NQN @nqn; NULL if there is none. */
const struct pol_class *pol_class_find(const struct policy *p,
				       const char *name);
const struct pol_host *pol_host_find(const struct policy *p, const char *nqn);

/* A class, host or device with the defaults of a file that names only it. */
void pol_class_init(struct pol_class *c, const char *name);
void pol_host_init(struct pol_host *h, const char *nqn);
void pol_dev_init(struct pol_dev *d, const char *name);

/* Whether they differ from what the kernel has without a policy. */
bool pol_class_is_default(const struct pol_class *c);
bool pol_host_is_default(const struct pol_host *h);
bool pol_dev_is_default(const struct pol_dev *d);

bool pol_class_equal(const struct pol_class *a, const struct pol_class *b);

/*
 * Whether device @now, as the kernel has it, is already as @want says:
 * the same cost model and, where @want gives one, the same stripe.
 */
bool pol_dev_satisfies(const struct pol_dev *now, const struct pol_dev *want);

/*
 * What device @now goes back to when policy @want lacks it: the default
 * cost model, and no stripe if @want says every device's. False when
 * @now is that already.
 */
bool pol_dev_reset(const struct pol_dev *now, const struct policy *want,
		   struct pol_dev *out);

/*
 * Check the text of a policy file and fill @p (empty before). Everything
 * the kernel would refuse is found here, except device names, which the
 * caller resolves: pol_dev.id is left 0. Returns 0, or -1 with
 * "LINE: FIELD: reason" in @err (FIELD such as classes[2].share).
 */
int policy_parse(const char *text, struct policy *p, char *err, size_t errlen);

/*
 * Sort into the order "save" writes (default class, then by name; hosts by
 * NQN; devices by name) so that equal policies print the same bytes.
 */
void policy_sort(struct policy *p);

/* The file "save" writes; -1 when out of memory. */
int policy_print(FILE *f, const struct policy *p);

#endif /* NVMET_QOS_POLICY_H */
