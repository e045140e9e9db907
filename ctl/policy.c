// SPDX-License-Identifier: GPL-2.0
/*
 * Policy files: checking one as the kernel would, and writing one that
 * reads back to the same bytes. See nvmet-qos.json(5) for the format.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "policy.h"
#include "table.h"

/* Where a check stands: the path of the field, for messages. */
struct ctx {
	char *err;
	size_t errlen;
	char path[64];		/* "classes[2]" */
};

static int bad(struct ctx *x, const struct json *j, const char *field,
	       const char *fmt, ...)
{
	size_t len;
	va_list ap;

	len = (size_t)snprintf(x->err, x->errlen, "%d: %s%s%s: ", j->line,
			       x->path, *x->path && field ? "." : "",
			       field ? field : "");
	if (len < x->errlen) {
		va_start(ap, fmt);
		vsnprintf(x->err + len, x->errlen - len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void pol_class_init(struct pol_class *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->share = POLICY_SHARE_DEFAULT;
}

void pol_host_init(struct pol_host *h, const char *nqn)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->nqn, sizeof(h->nqn), "%s", nqn);
	snprintf(h->class, sizeof(h->class), NVMET_QOS_DEFAULT_CLASS);
	h->weight = POLICY_WEIGHT_DEFAULT;
}

void pol_dev_init(struct pol_dev *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->write_cost = POLICY_WRITE_COST_DEFAULT;
	d->io_cost = POLICY_IO_COST_DEFAULT;
}

bool pol_class_equal(const struct pol_class *a, const struct pol_class *b)
{
	return !strcmp(a->name, b->name) && a->share == b->share &&
	       a->min_bps == b->min_bps && a->max_bps == b->max_bps &&
	       a->min_iops == b->min_iops && a->max_iops == b->max_iops &&
	       a->burst == b->burst && a->latency == b->latency &&
	       a->auth == b->auth;
}

static bool pol_dev_cost_equal(const struct pol_dev *a,
			       const struct pol_dev *b)
{
	return a->write_cost == b->write_cost && a->io_cost == b->io_cost &&
	       a->capacity == b->capacity;
}

bool pol_dev_satisfies(const struct pol_dev *now, const struct pol_dev *want)
{
	/* A device of a module older than stripes has none. */
	static const struct stripe none;

	return now->id == want->id && pol_dev_cost_equal(now, want) &&
	       (!want->has_stripe ||
		stripe_equal(now->has_stripe ? &now->stripe : &none,
			     &want->stripe));
}

bool pol_dev_reset(const struct pol_dev *now, const struct policy *want,
		   struct pol_dev *out)
{
	pol_dev_init(out, now->name);
	out->id = now->id;
	/* Only a stripe there: a module older than stripes takes none. */
	out->has_stripe = want->all_stripes && now->has_stripe &&
			  now->stripe.chunk;
	return !pol_dev_satisfies(now, out);
}

bool pol_class_is_default(const struct pol_class *c)
{
	struct pol_class d;

	pol_class_init(&d, c->name);
	return pol_class_equal(c, &d);
}

bool pol_host_is_default(const struct pol_host *h)
{
	return !strcmp(h->class, NVMET_QOS_DEFAULT_CLASS) &&
	       h->weight == POLICY_WEIGHT_DEFAULT;
}

bool pol_dev_is_default(const struct pol_dev *d)
{
	return d->write_cost == POLICY_WRITE_COST_DEFAULT &&
	       d->io_cost == POLICY_IO_COST_DEFAULT && !d->capacity &&
	       !(d->has_stripe && d->stripe.chunk);
}

void policy_free(struct policy *p)
{
	free(p->classes.v);
	free(p->hosts.v);
	free(p->devs.v);
	memset(p, 0, sizeof(*p));
}

/* ---- Reading values ----------------------------------------------------- */

enum num_kind { NUM_PLAIN, NUM_BYTES, NUM_COUNT, NUM_CHUNK };

static const char *const num_want[] = {
	[NUM_PLAIN] = "an integer",
	[NUM_BYTES] = "an integer or a string such as \"2G\" or \"64Ki\"",
	[NUM_COUNT] = "an integer or a string such as \"5K\"",
	[NUM_CHUNK] = "an integer or a string such as \"512k\"",
};

static int (*const num_parse[])(const char *s, uint64_t *out) = {
	[NUM_BYTES] = parse_size,
	[NUM_COUNT] = parse_count,
	[NUM_CHUNK] = parse_chunk,
};

/*
 * An integer in [@min, @max]. Byte amounts may also be strings with units
 * ("2G", "64Ki"), counts strings such as "5K" and chunks strings such as
 * "512k" (powers of 1024), as on the command line.
 */
static int get_uint(struct ctx *x, const struct json *j, enum num_kind kind,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	const char *want = num_want[kind];
	uint64_t v;
	int err;

	if (j->type == JSON_STRING && kind != NUM_PLAIN) {
		err = num_parse[kind](j->text, &v);
		if (err == -EINVAL)
			return bad(x, j, j->key, "want %s, got \"%s\"", want,
				   j->text);
	} else if (j->type == JSON_NUMBER) {
		err = parse_uint(j->text, 0, UINT64_MAX, &v);
		if (err == -EINVAL)
			return bad(x, j, j->key, "want %s, got %s", want,
				   j->text);
	} else {
		return bad(x, j, j->key, "want %s, got %s", want,
			   json_type_name(j->type));
	}
	if (err || v < min || v > max) {
		char lo[24], hi[24];

		fmt_u64(lo, sizeof(lo), min);
		fmt_u64(hi, sizeof(hi), max);
		return bad(x, j, j->key, "%s is out of range: want %s to %s",
			   j->text, lo, hi);
	}
	*out = v;
	return 0;
}

static int get_u32(struct ctx *x, const struct json *j, uint64_t min,
		   uint64_t max, uint32_t *out)
{
	uint64_t v;

	if (get_uint(x, j, NUM_PLAIN, min, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int get_str(struct ctx *x, const struct json *j, char *dst,
		   size_t size)
{
	if (j->type != JSON_STRING)
		return bad(x, j, j->key, "want a string, got %s",
			   json_type_name(j->type));
	if (strlen(j->text) >= size)
		return bad(x, j, j->key, "longer than %zu bytes", size - 1);
	memcpy(dst, j->text, strlen(j->text) + 1);
	return 0;
}

/*
 * Members of object @j, each at most once and each in @keys (NULL-ended);
 * the member named keys[i] goes to @out[i] (NULL if absent).
 */
static int get_members(struct ctx *x, const struct json *j,
		       const char *const *keys, const struct json **out)
{
	size_t i, k, nkeys = 0;
	char list[160] = "";

	if (j->type != JSON_OBJECT)
		return bad(x, j, NULL, "want an object, got %s",
			   json_type_name(j->type));
	while (keys[nkeys])
		out[nkeys++] = NULL;
	for (i = 0; i < j->n; i++) {
		for (k = 0; k < nkeys; k++)
			if (!strcmp(j->items[i].key, keys[k]))
				break;
		if (k < nkeys && out[k])
			return bad(x, &j->items[i], keys[k], "given twice");
		if (k < nkeys) {
			out[k] = &j->items[i];
			continue;
		}
		for (k = 0; k < nkeys; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", k ? ", " : "", keys[k]);
		return bad(x, &j->items[i], NULL,
			   "unknown field \"%s\" (known: %s)", j->items[i].key,
			   list);
	}
	return 0;
}

/* Member @key of object @obj, or @obj itself: where a message points. */
static const struct json *member(const struct json *obj, const char *key)
{
	size_t i;

	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->items[i].key, key))
			return &obj->items[i];
	return obj;
}

static int require(struct ctx *x, const struct json *obj,
		   const struct json *member, const char *key)
{
	if (!member)
		return bad(x, obj, NULL, "missing field \"%s\"", key);
	return 0;
}

/* ---- Classes, hosts and devices ----------------------------------------- */

enum { C_NAME, C_SHARE, C_MIN_BPS, C_MAX_BPS, C_MIN_IOPS, C_MAX_IOPS, C_BURST,
       C_LATENCY, C_AUTH, C_NKEYS };

static const char *const class_keys[] = {
	"name", "share", "min_bps", "max_bps", "min_iops", "max_iops", "burst",
	"latency", "auth", NULL
};

/* The rules of the kernel's class_conf_parse(), with the same words. */
static int class_check(struct ctx *x, const struct json *j,
		       const struct json **m, const struct pol_class *c)
{
	if (c->max_bps && c->min_bps > c->max_bps)
		return bad(x, m[C_MIN_BPS], "min_bps",
			   "the byte floor is above the byte ceiling (max_bps)");
	if (c->max_iops && c->min_iops > c->max_iops)
		return bad(x, m[C_MIN_IOPS], "min_iops",
			   "the IOPS floor is above the IOPS ceiling (max_iops)");
	if (c->burst && !c->max_bps)
		return bad(x, m[C_BURST], "burst",
			   "a burst needs a byte ceiling (max_bps)");
	if (c->auth && !strcmp(c->name, NVMET_QOS_DEFAULT_CLASS))
		return bad(x, m[C_AUTH], "auth",
			   "the default class admits every controller");
	(void)j;
	return 0;
}

static int class_parse(struct ctx *x, const struct json *j, struct pol_class *c)
{
	uint64_t *rates[] = { &c->min_bps, &c->max_bps, &c->min_iops,
			      &c->max_iops, &c->burst };
	const struct json *m[C_NKEYS];
	char why[160];
	int i;

	if (get_members(x, j, class_keys, m) ||
	    require(x, j, m[C_NAME], "name"))
		return -1;
	pol_class_init(c, "");
	c->line = j->line;
	if (get_str(x, m[C_NAME], c->name, sizeof(c->name)))
		return -1;
	if (class_name_validate(c->name, why, sizeof(why)))
		return bad(x, m[C_NAME], "name", "%s", why);
	if (m[C_SHARE] && get_u32(x, m[C_SHARE], 1, NVMET_QOS_SHARE_MAX,
				  &c->share))
		return -1;
	for (i = C_MIN_BPS; i <= C_BURST; i++) {
		enum num_kind kind = i == C_MIN_IOPS || i == C_MAX_IOPS ?
				     NUM_COUNT : NUM_BYTES;

		if (m[i] && get_uint(x, m[i], kind, 0, NVMET_QOS_RATE_MAX,
				     rates[i - C_MIN_BPS]))
			return -1;
	}
	if (m[C_LATENCY] && m[C_LATENCY]->type != JSON_BOOL)
		return bad(x, m[C_LATENCY], "latency",
			   "want true or false, got %s",
			   json_type_name(m[C_LATENCY]->type));
	c->latency = m[C_LATENCY] && m[C_LATENCY]->boolean;
	if (m[C_AUTH] && m[C_AUTH]->type != JSON_BOOL)
		return bad(x, m[C_AUTH], "auth",
			   "want true or false, got %s",
			   json_type_name(m[C_AUTH]->type));
	c->auth = m[C_AUTH] && m[C_AUTH]->boolean;
	return class_check(x, j, m, c);
}

enum { H_NQN, H_CLASS, H_WEIGHT, H_NKEYS };

static const char *const host_keys[] = { "nqn", "class", "weight", NULL };

static int host_parse(struct ctx *x, const struct json *j, struct pol_host *h)
{
	const struct json *m[H_NKEYS];
	char why[160];

	if (get_members(x, j, host_keys, m) ||
	    require(x, j, m[H_NQN], "nqn") ||
	    require(x, j, m[H_CLASS], "class"))
		return -1;
	pol_host_init(h, "");
	h->line = j->line;
	if (get_str(x, m[H_NQN], h->nqn, sizeof(h->nqn)))
		return -1;
	if (nqn_validate(h->nqn, why, sizeof(why)))
		return bad(x, m[H_NQN], "nqn", "%s", why);
	if (get_str(x, m[H_CLASS], h->class, sizeof(h->class)))
		return -1;
	if (m[H_WEIGHT] && get_u32(x, m[H_WEIGHT], 1, NVMET_QOS_SHARE_MAX,
				   &h->weight))
		return -1;
	return 0;
}

enum { D_NAME, D_WRITE_COST, D_IO_COST, D_CAPACITY, D_STRIPE_CHUNK,
       D_STRIPE_MEMBERS, D_NKEYS };

static const char *const dev_keys[] = {
	"name", "write_cost", "io_cost", "capacity", "stripe_chunk",
	"stripe_members", NULL
};

/* A device's name or a stripe member's: names survive a reboot, paths may not. */
static int dev_name_check(struct ctx *x, const struct json *j,
			  const char *field, const char *name)
{
	if (!name[0] || strchr(name, '/'))
		return bad(x, j, field,
			   "want a block device name such as nvme0n1, or MAJOR:MINOR");
	return 0;
}

/* "stripe_members": device names, in the array's order, into @d. */
static int dev_members_parse(struct ctx *x, const struct json *arr,
			     struct pol_dev *d)
{
	const struct json *item;
	char field[40], why[128];
	size_t i;

	if (arr->type != JSON_ARRAY)
		return bad(x, arr, "stripe_members",
			   "want an array of device names, got %s",
			   json_type_name(arr->type));
	if (stripe_check_count(arr->n, why, sizeof(why)))
		return bad(x, arr, "stripe_members", "%s", why);
	for (i = 0; i < arr->n; i++) {
		item = &arr->items[i];
		snprintf(field, sizeof(field), "stripe_members[%zu]", i);
		if (item->type != JSON_STRING)
			return bad(x, item, field, "want a string, got %s",
				   json_type_name(item->type));
		if (strlen(item->text) >= sizeof(d->members[i]))
			return bad(x, item, field, "longer than %zu bytes",
				   sizeof(d->members[i]) - 1);
		if (dev_name_check(x, item, field, item->text))
			return -1;
		strcpy(d->members[i], item->text);
	}
	d->nr_members = (unsigned int)arr->n;
	return 0;
}

/*
 * "stripe_chunk" (0: not striped) and, with a chunk, "stripe_members".
 * A device without them keeps the stripe it has: files saved before
 * stripes say nothing of them.
 */
static int dev_stripe_parse(struct ctx *x, const struct json *j,
			    const struct json **m, struct pol_dev *d)
{
	const struct json *arr = m[D_STRIPE_MEMBERS];
	char why[128];
	uint64_t chunk;

	if (!m[D_STRIPE_CHUNK])
		return arr ? bad(x, arr, "stripe_members",
				 "members need a stripe_chunk") : 0;
	if (get_uint(x, m[D_STRIPE_CHUNK], NUM_CHUNK, 0,
		     NVMET_QOS_STRIPE_CHUNK_MAX, &chunk))
		return -1;
	d->has_stripe = true;
	d->stripe.chunk = (uint32_t)chunk;
	if (!chunk)
		return arr && (arr->type != JSON_ARRAY || arr->n) ?
		       bad(x, arr, "stripe_members",
			   "members with stripe_chunk 0, which is no stripe") : 0;
	if (stripe_check_chunk(chunk, why, sizeof(why)))
		return bad(x, m[D_STRIPE_CHUNK], "stripe_chunk", "%s", why);
	if (require(x, j, arr, "stripe_members"))
		return -1;
	return dev_members_parse(x, arr, d);
}

static int dev_parse(struct ctx *x, const struct json *j, struct pol_dev *d)
{
	const struct json *m[D_NKEYS];
	uint64_t v;

	if (get_members(x, j, dev_keys, m) ||
	    require(x, j, m[D_NAME], "name"))
		return -1;
	pol_dev_init(d, "");
	d->line = j->line;
	if (get_str(x, m[D_NAME], d->name, sizeof(d->name)) ||
	    dev_name_check(x, m[D_NAME], "name", d->name))
		return -1;
	if (m[D_WRITE_COST] &&
	    get_u32(x, m[D_WRITE_COST], NVMET_QOS_WRITE_COST_MIN,
		    NVMET_QOS_WRITE_COST_MAX, &d->write_cost))
		return -1;
	if (m[D_IO_COST]) {
		if (get_uint(x, m[D_IO_COST], NUM_BYTES, 0,
			     NVMET_QOS_IO_COST_MAX, &v))
			return -1;
		d->io_cost = (uint32_t)v;
	}
	if (m[D_CAPACITY] &&
	    get_uint(x, m[D_CAPACITY], NUM_BYTES, 0, NVMET_QOS_RATE_MAX,
		     &d->capacity))
		return -1;
	if (d->capacity && d->capacity < NVMET_QOS_CAPACITY_MIN)
		return bad(x, m[D_CAPACITY], "capacity",
			   "below the smallest hint, 1M (use 0 for none)");
	return dev_stripe_parse(x, j, m, d);
}

/* ---- The file ----------------------------------------------------------- */

const struct pol_class *pol_class_find(const struct policy *p,
				       const char *name)
{
	size_t i;

	for (i = 0; i < p->classes.n; i++)
		if (!strcmp(pol_class_at(p, i)->name, name))
			return pol_class_at(p, i);
	return NULL;
}

const struct pol_host *pol_host_find(const struct policy *p, const char *nqn)
{
	size_t i;

	for (i = 0; i < p->hosts.n; i++)
		if (!strcmp(pol_host_at(p, i)->nqn, nqn))
			return pol_host_at(p, i);
	return NULL;
}

static int classes_parse(struct ctx *x, const struct json *arr,
			 struct policy *p)
{
	struct pol_class c;
	size_t i;

	for (i = 0; arr && i < arr->n; i++) {
		snprintf(x->path, sizeof(x->path), "classes[%zu]", i);
		if (class_parse(x, &arr->items[i], &c))
			return -1;
		if (pol_class_find(p, c.name) &&
		    (strcmp(c.name, NVMET_QOS_DEFAULT_CLASS) ||
		     pol_class_at(p, 0)->line))
			return bad(x, member(&arr->items[i], "name"), "name",
				   "class \"%s\" is defined twice", c.name);
		if (!strcmp(c.name, NVMET_QOS_DEFAULT_CLASS))
			*pol_class_at(p, 0) = c;
		else if (!vec_push(&p->classes, sizeof(c)))
			return bad(x, arr, NULL, "out of memory");
		else
			*pol_class_at(p, p->classes.n - 1) = c;
	}
	return 0;
}

static int hosts_parse(struct ctx *x, const struct json *arr, struct policy *p)
{
	const struct pol_host *twin;
	struct pol_host h, *slot;
	size_t i;

	for (i = 0; arr && i < arr->n; i++) {
		snprintf(x->path, sizeof(x->path), "hosts[%zu]", i);
		if (host_parse(x, &arr->items[i], &h))
			return -1;
		if (!pol_class_find(p, h.class))
			return bad(x, member(&arr->items[i], "class"), "class",
				   "no class \"%s\" in this file", h.class);
		twin = pol_host_find(p, h.nqn);
		if (twin)
			return bad(x, member(&arr->items[i], "nqn"), "nqn",
				   "host given twice (also on line %d)",
				   twin->line);
		slot = vec_push(&p->hosts, sizeof(h));
		if (!slot)
			return bad(x, arr, NULL, "out of memory");
		*slot = h;
	}
	return 0;
}

static int devs_parse(struct ctx *x, const struct json *arr, struct policy *p)
{
	struct pol_dev d, *slot;
	size_t i;

	for (i = 0; arr && i < arr->n; i++) {
		snprintf(x->path, sizeof(x->path), "devices[%zu]", i);
		if (dev_parse(x, &arr->items[i], &d))
			return -1;
		slot = vec_push(&p->devs, sizeof(d));
		if (!slot)
			return bad(x, arr, NULL, "out of memory");
		*slot = d;
	}
	return 0;
}

enum { T_VERSION, T_CLASSES, T_HOSTS, T_DEVICES, T_NKEYS };

static const char *const top_keys[] = {
	"version", "classes", "hosts", "devices", NULL
};

static int top_parse(struct ctx *x, const struct json *root, struct policy *p)
{
	const struct json *m[T_NKEYS];
	struct pol_class *def;
	uint32_t version;
	int i;

	if (get_members(x, root, top_keys, m) ||
	    require(x, root, m[T_VERSION], "version") ||
	    get_u32(x, m[T_VERSION], 0, UINT32_MAX, &version))
		return -1;
	if (version != POLICY_VERSION)
		return bad(x, m[T_VERSION], "version",
			   "this nvmet-qos reads version %d, not %u",
			   POLICY_VERSION, version);
	for (i = T_CLASSES; i <= T_DEVICES; i++)
		if (m[i] && m[i]->type != JSON_ARRAY)
			return bad(x, m[i], top_keys[i],
				   "want an array, got %s",
				   json_type_name(m[i]->type));
	/* The default class always exists; a file may only change it. */
	def = vec_push(&p->classes, sizeof(*def));
	if (!def)
		return bad(x, root, NULL, "out of memory");
	pol_class_init(def, NVMET_QOS_DEFAULT_CLASS);
	if (classes_parse(x, m[T_CLASSES], p) ||
	    hosts_parse(x, m[T_HOSTS], p) || devs_parse(x, m[T_DEVICES], p))
		return -1;
	return 0;
}

int policy_parse(const char *text, struct policy *p, char *err, size_t errlen)
{
	struct ctx x = { .err = err, .errlen = errlen };
	struct json *root;
	int ret;

	root = json_parse(text, err, errlen);
	if (!root)
		return -1;
	ret = top_parse(&x, root, p);
	json_free(root);
	if (ret)
		policy_free(p);
	return ret;
}

/* ---- Writing ------------------------------------------------------------ */

static int class_cmp(const void *a, const void *b)
{
	return class_name_cmp(((const struct pol_class *)a)->name,
			      ((const struct pol_class *)b)->name);
}

static int host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pol_host *)a)->nqn,
		      ((const struct pol_host *)b)->nqn);
}

static int dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pol_dev *)a)->name,
		      ((const struct pol_dev *)b)->name);
}

void policy_sort(struct policy *p)
{
	if (p->classes.n)
		qsort(p->classes.v, p->classes.n, sizeof(struct pol_class),
		      class_cmp);
	if (p->hosts.n)
		qsort(p->hosts.v, p->hosts.n, sizeof(struct pol_host),
		      host_cmp);
	if (p->devs.n)
		qsort(p->devs.v, p->devs.n, sizeof(struct pol_dev), dev_cmp);
}

static int print_str(FILE *f, const char *indent, const char *key,
		     const char *val, const char *end)
{
	fprintf(f, "%s\"%s\": ", indent, key);
	if (json_print_str(f, val))
		return -1;
	fputs(end, f);
	return 0;
}

static void print_u64(FILE *f, const char *key, uint64_t v, const char *end)
{
	char buf[24];

	fmt_u64(buf, sizeof(buf), v);
	fprintf(f, "      \"%s\": %s%s", key, buf, end);
}

static int class_print(FILE *f, const struct pol_class *c, bool last)
{
	fputs("    {\n", f);
	if (print_str(f, "      ", "name", c->name, ",\n"))
		return -1;
	print_u64(f, "share", c->share, ",\n");
	print_u64(f, "min_bps", c->min_bps, ",\n");
	print_u64(f, "max_bps", c->max_bps, ",\n");
	print_u64(f, "min_iops", c->min_iops, ",\n");
	print_u64(f, "max_iops", c->max_iops, ",\n");
	print_u64(f, "burst", c->burst, ",\n");
	/* only when set: a file that does not use it reads on any kernel */
	fprintf(f, "      \"latency\": %s%s\n", c->latency ? "true" : "false",
		c->auth ? ",\n      \"auth\": true" : "");
	fprintf(f, "    }%s\n", last ? "" : ",");
	return 0;
}

static int host_print(FILE *f, const struct pol_host *h, bool last)
{
	fputs("    {\n", f);
	if (print_str(f, "      ", "nqn", h->nqn, ",\n") ||
	    print_str(f, "      ", "class", h->class, ",\n"))
		return -1;
	print_u64(f, "weight", h->weight, "\n");
	fprintf(f, "    }%s\n", last ? "" : ",");
	return 0;
}

/* Only for a striped device: a file that has none reads on any kernel. */
static int stripe_print(FILE *f, const struct pol_dev *d)
{
	unsigned int i;

	print_u64(f, "stripe_chunk", d->stripe.chunk, ",\n");
	fputs("      \"stripe_members\": [", f);
	for (i = 0; i < d->nr_members; i++) {
		fputs(i ? ", " : "", f);
		if (json_print_str(f, d->members[i]))
			return -1;
	}
	fputs("]\n", f);
	return 0;
}

static int dev_print(FILE *f, const struct pol_dev *d, bool last)
{
	fputs("    {\n", f);
	if (print_str(f, "      ", "name", d->name, ",\n"))
		return -1;
	print_u64(f, "write_cost", d->write_cost, ",\n");
	print_u64(f, "io_cost", d->io_cost, ",\n");
	print_u64(f, "capacity", d->capacity,
		  d->has_stripe && d->stripe.chunk ? ",\n" : "\n");
	if (d->has_stripe && d->stripe.chunk && stripe_print(f, d))
		return -1;
	fprintf(f, "    }%s\n", last ? "" : ",");
	return 0;
}

int policy_print(FILE *f, const struct policy *p)
{
	size_t i;
	int ret = 0;

	fprintf(f, "{\n  \"version\": %d,\n  \"classes\": [\n", POLICY_VERSION);
	for (i = 0; !ret && i < p->classes.n; i++)
		ret = class_print(f, pol_class_at(p, i), i + 1 == p->classes.n);
	fputs("  ],\n  \"hosts\": [\n", f);
	for (i = 0; !ret && i < p->hosts.n; i++)
		ret = host_print(f, pol_host_at(p, i), i + 1 == p->hosts.n);
	fputs("  ],\n  \"devices\": [\n", f);
	for (i = 0; !ret && i < p->devs.n; i++)
		ret = dev_print(f, pol_dev_at(p, i), i + 1 == p->devs.n);
	fputs("  ]\n}\n", f);
	return ret;
}
