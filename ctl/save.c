// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos save" and "nvmet-qos restore": the whole policy to and from a
 * JSON file (nvmet-qos.json(5)).
 *
 * restore makes the kernel's policy equal to the file's. The file is
 * checked completely first, devices resolved included, so a file with an
 * error changes nothing. The kernel has no transaction across requests, so
 * the changes then go one request at a time; should the kernel refuse one
 * (a limit the tool does not know, another admin changing the policy at the
 * same moment), the policy read before is put back the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "nvmet_qos.h"
#include "nl.h"
#include "nvmet-qos.h"
#include "obj.h"
#include "parse.h"
#include "policy.h"
#include "stripe.h"

/* Policy files are small; this only stops a wrong path such as a disk. */
#define POLICY_FILE_MAX	(16 << 20)

/* ---- Reading the kernel's policy ---------------------------------------- */

static uint64_t u64_or(struct nlattr *nla, uint64_t dflt)
{
	return nla ? qos_nla_uint(nla) : dflt;
}

static int class_reply(struct nlattr **tb, void *arg)
{
	struct policy *p = arg;
	struct pol_class *c;

	if (!tb[NVMET_QOS_A_CLASS_NAME])
		return -EBADMSG;
	c = vec_push(&p->classes, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pol_class_init(c, "");
	nla_strlcpy(c->name, tb[NVMET_QOS_A_CLASS_NAME], sizeof(c->name));
	c->share = (uint32_t)u64_or(tb[NVMET_QOS_A_CLASS_SHARE], c->share);
	c->min_bps = u64_or(tb[NVMET_QOS_A_CLASS_MIN_BPS], 0);
	c->max_bps = u64_or(tb[NVMET_QOS_A_CLASS_MAX_BPS], 0);
	c->min_iops = u64_or(tb[NVMET_QOS_A_CLASS_MIN_IOPS], 0);
	c->max_iops = u64_or(tb[NVMET_QOS_A_CLASS_MAX_IOPS], 0);
	c->burst = u64_or(tb[NVMET_QOS_A_CLASS_BURST], 0);
	c->latency = u64_or(tb[NVMET_QOS_A_CLASS_LATENCY], 0);
	c->auth = u64_or(tb[NVMET_QOS_A_CLASS_AUTH], 0);
	return 0;
}

/* Hosts that only connected are not policy: default class, weight 100. */
static int host_reply(struct nlattr **tb, void *arg)
{
	struct policy *p = arg;
	struct pol_host h, *slot;

	if (!tb[NVMET_QOS_A_HOST_NQN])
		return -EBADMSG;
	pol_host_init(&h, "");
	nla_strlcpy(h.nqn, tb[NVMET_QOS_A_HOST_NQN], sizeof(h.nqn));
	if (tb[NVMET_QOS_A_HOST_CLASS])
		nla_strlcpy(h.class, tb[NVMET_QOS_A_HOST_CLASS],
			    sizeof(h.class));
	h.weight = (uint32_t)u64_or(tb[NVMET_QOS_A_HOST_WEIGHT], h.weight);
	if (pol_host_is_default(&h))
		return 0;
	slot = vec_push(&p->hosts, sizeof(h));
	if (!slot)
		return -ENOMEM;
	*slot = h;
	return 0;
}

/* The stripe of a reply, its members by the names that survive a reboot. */
static int dev_reply_stripe(struct nlattr **tb, struct pol_dev *d)
{
	unsigned int i;

	if (qos_stripe_from_attrs(tb, &d->stripe, &d->has_stripe))
		return -EBADMSG;
	d->nr_members = d->stripe.n;
	for (i = 0; i < d->stripe.n; i++)
		qos_device_label(d->stripe.members[i], d->members[i],
				 sizeof(d->members[i]));
	return 0;
}

/*
 * Likewise devices with the default cost model, no capacity hint and no
 * stripe.
 */
static int dev_reply(struct nlattr **tb, void *arg)
{
	struct policy *p = arg;
	struct pol_dev d, *slot;

	if (!tb[NVMET_QOS_A_DEV_ID])
		return -EBADMSG;
	pol_dev_init(&d, "");
	d.id = nla_get_u32(tb[NVMET_QOS_A_DEV_ID]);
	/*
	 * A name is what survives a reboot. The kernel names a device when
	 * it first does I/O, so sysfs comes first; MAJOR:MINOR for a file
	 * system without a block device.
	 */
	if (qos_device_name(d.id, d.name, sizeof(d.name)) &&
	    tb[NVMET_QOS_A_DEV_NAME])
		nla_strlcpy(d.name, tb[NVMET_QOS_A_DEV_NAME], sizeof(d.name));
	if (!d.name[0])
		snprintf(d.name, sizeof(d.name), "%u:%u", kdev_major(d.id),
			 kdev_minor(d.id));
	d.write_cost = (uint32_t)u64_or(tb[NVMET_QOS_A_DEV_WRITE_COST],
					d.write_cost);
	d.io_cost = (uint32_t)u64_or(tb[NVMET_QOS_A_DEV_IO_COST], d.io_cost);
	d.capacity = u64_or(tb[NVMET_QOS_A_DEV_CAPACITY], 0);
	if (dev_reply_stripe(tb, &d))
		return -EBADMSG;
	if (pol_dev_is_default(&d))
		return 0;
	slot = vec_push(&p->devs, sizeof(d));
	if (!slot)
		return -ENOMEM;
	*slot = d;
	return 0;
}

static void restart_classes(void *arg)
{
	vec_reset(&((struct policy *)arg)->classes);
}

static void restart_hosts(void *arg)
{
	vec_reset(&((struct policy *)arg)->hosts);
}

static void restart_devs(void *arg)
{
	vec_reset(&((struct policy *)arg)->devs);
}

/* The kernel's policy into @p (empty before), sorted. Prints why if not. */
static int policy_read(struct qos_nl *nl, struct policy *p)
{
	static const struct {
		const struct qos_obj *obj;
		qos_reply_fn fn;
		void (*restart)(void *arg);
	} parts[] = {
		{ &qos_class_obj, class_reply, restart_classes },
		{ &qos_host_obj, host_reply, restart_hosts },
		{ &qos_dev_obj, dev_reply, restart_devs },
	};
	struct qos_nl_status st;
	size_t i;

	p->all_stripes = true;
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		if (qos_nl_dump(nl, parts[i].obj->get_cmd, parts[i].obj->set,
				parts[i].fn, parts[i].restart, p, &st)) {
			qos_nl_perror(&st, parts[i].obj->set);
			policy_free(p);
			return -1;
		}
	}
	policy_sort(p);
	return 0;
}

/* ---- Making the kernel's policy equal to another ------------------------ */

struct applier {
	struct qos_nl *nl;
	const char *file;	/* for messages; NULL when putting back */
	bool dry_run;		/* print the changes instead */
	int changes;
};

/*
 * Send @msg, or print @what with --dry-run. On failure say which entry of
 * the file (line @line) or of the old policy it was, and the kernel's words.
 */
static int change(struct applier *a, struct nl_msg *msg,
		  const struct qos_obj *obj, int line, const char *fmt, ...)
{
	char what[320], why[320];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	a->changes++;
	if (a->dry_run) {
		nlmsg_free(msg);
		printf("%s\n", what);
		return 0;
	}
	if (!msg) {
		fprintf(stderr, "nvmet-qos: out of memory\n");
		return -ENOMEM;
	}
	err = qos_nl_request(a->nl, msg, obj->set, NULL, why, sizeof(why));
	if (!err)
		return 0;
	if (a->file && line)
		fprintf(stderr, "nvmet-qos: %s:%d: %s: %s\n", a->file, line,
			what, why);
	else
		fprintf(stderr, "nvmet-qos: %s%s: %s\n",
			a->file ? "" : "putting back the old policy: ", what,
			why);
	return err;
}

/*
 * @old: the kernel's class of that name, if any. auth goes only where it
 * is or was set, so that a policy without it applies to a module older
 * than the attribute.
 */
static struct nl_msg *class_msg(struct applier *a, uint8_t cmd,
				const struct pol_class *c,
				const struct pol_class *old)
{
	struct nl_msg *msg = qos_nl_msg(a->nl, cmd, 0);

	if (!msg)
		return NULL;
	if (nla_put_string(msg, NVMET_QOS_A_CLASS_NAME, c->name) < 0 ||
	    (cmd != NVMET_QOS_CMD_CLASS_DEL &&
	     (nla_put_u32(msg, NVMET_QOS_A_CLASS_SHARE, c->share) < 0 ||
	      nla_put_u64(msg, NVMET_QOS_A_CLASS_MIN_BPS, c->min_bps) < 0 ||
	      nla_put_u64(msg, NVMET_QOS_A_CLASS_MAX_BPS, c->max_bps) < 0 ||
	      nla_put_u64(msg, NVMET_QOS_A_CLASS_MIN_IOPS, c->min_iops) < 0 ||
	      nla_put_u64(msg, NVMET_QOS_A_CLASS_MAX_IOPS, c->max_iops) < 0 ||
	      nla_put_u64(msg, NVMET_QOS_A_CLASS_BURST, c->burst) < 0 ||
	      nla_put_u8(msg, NVMET_QOS_A_CLASS_LATENCY, c->latency) < 0 ||
	      ((c->auth || (old && old->auth)) &&
	       nla_put_u8(msg, NVMET_QOS_A_CLASS_AUTH, c->auth) < 0)))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct nl_msg *host_msg(struct applier *a, uint8_t cmd,
			       const struct pol_host *h)
{
	struct nl_msg *msg = qos_nl_msg(a->nl, cmd, 0);

	if (!msg)
		return NULL;
	if (nla_put_string(msg, NVMET_QOS_A_HOST_NQN, h->nqn) < 0 ||
	    (cmd == NVMET_QOS_CMD_HOST_SET &&
	     (nla_put_string(msg, NVMET_QOS_A_HOST_CLASS, h->class) < 0 ||
	      nla_put_u32(msg, NVMET_QOS_A_HOST_WEIGHT, h->weight) < 0))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* The stripe only where @d gives one, so that others keep theirs. */
static struct nl_msg *dev_msg(struct applier *a, const struct pol_dev *d)
{
	struct nl_msg *msg = qos_nl_msg(a->nl, NVMET_QOS_CMD_DEV_SET, 0);

	if (!msg)
		return NULL;
	if (nla_put_u32(msg, NVMET_QOS_A_DEV_ID, d->id) < 0 ||
	    nla_put_u32(msg, NVMET_QOS_A_DEV_WRITE_COST, d->write_cost) < 0 ||
	    nla_put_u32(msg, NVMET_QOS_A_DEV_IO_COST, d->io_cost) < 0 ||
	    nla_put_u64(msg, NVMET_QOS_A_DEV_CAPACITY, d->capacity) < 0 ||
	    (d->has_stripe && qos_stripe_put(msg, &d->stripe))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static const struct pol_dev *find_dev(const struct policy *p, uint32_t id)
{
	size_t i;

	for (i = 0; i < p->devs.n; i++)
		if (pol_dev_at(p, i)->id == id)
			return pol_dev_at(p, i);
	return NULL;
}

/*
 * Classes: change those in both, delete the ones @want lacks (before
 * creating, so that a full table has room), then create the new ones.
 * Hosts of a deleted class are in default until the host step.
 */
static int apply_classes(struct applier *a, const struct policy *cur,
			 const struct policy *want)
{
	const struct pol_class *c, *old;
	size_t i;
	int err;

	for (i = 0; i < want->classes.n; i++) {
		c = pol_class_at(want, i);
		old = pol_class_find(cur, c->name);
		if (!old || pol_class_equal(old, c))
			continue;
		err = change(a, class_msg(a, NVMET_QOS_CMD_CLASS_SET, c, old),
			     &qos_class_obj, c->line, "set class \"%s\"",
			     c->name);
		if (err)
			return err;
	}
	for (i = 0; i < cur->classes.n; i++) {
		c = pol_class_at(cur, i);
		if (pol_class_find(want, c->name))
			continue;
		err = change(a, class_msg(a, NVMET_QOS_CMD_CLASS_DEL, c, NULL),
			     &qos_class_obj, 0, "delete class \"%s\"", c->name);
		if (err)
			return err;
	}
	for (i = 0; i < want->classes.n; i++) {
		c = pol_class_at(want, i);
		if (pol_class_find(cur, c->name))
			continue;
		err = change(a, class_msg(a, NVMET_QOS_CMD_CLASS_NEW, c, NULL),
			     &qos_class_obj, c->line, "create class \"%s\"",
			     c->name);
		if (err)
			return err;
	}
	return 0;
}

static int apply_hosts(struct applier *a, const struct policy *cur,
		       const struct policy *want)
{
	const struct pol_host *h, *old;
	size_t i;
	int err;

	for (i = 0; i < want->hosts.n; i++) {
		h = pol_host_at(want, i);
		old = pol_host_find(cur, h->nqn);
		/* The file names only existing classes, so none was deleted. */
		if (old && !strcmp(old->class, h->class) &&
		    old->weight == h->weight)
			continue;
		err = change(a, host_msg(a, NVMET_QOS_CMD_HOST_SET, h),
			     &qos_host_obj, h->line,
			     "assign host \"%s\" to class \"%s\" with weight %u",
			     h->nqn, h->class, h->weight);
		if (err)
			return err;
	}
	for (i = 0; i < cur->hosts.n; i++) {
		h = pol_host_at(cur, i);
		if (pol_host_find(want, h->nqn))
			continue;
		err = change(a, host_msg(a, NVMET_QOS_CMD_HOST_DEL, h),
			     &qos_host_obj, 0, "unassign host \"%s\"", h->nqn);
		if (err)
			return err;
	}
	return 0;
}

/* Devices @want lacks go back to the defaults (see pol_dev_reset()). */
static int apply_devs(struct applier *a, const struct policy *cur,
		      const struct policy *want)
{
	const struct pol_dev *d, *old;
	struct pol_dev dflt;
	size_t i;
	int err;

	for (i = 0; i < want->devs.n; i++) {
		d = pol_dev_at(want, i);
		old = find_dev(cur, d->id);
		if (old ? pol_dev_satisfies(old, d) : pol_dev_is_default(d))
			continue;
		err = change(a, dev_msg(a, d), &qos_dev_obj, d->line,
			     "set device %s (%u:%u)", d->name,
			     kdev_major(d->id), kdev_minor(d->id));
		if (err)
			return err;
	}
	for (i = 0; i < cur->devs.n; i++) {
		d = pol_dev_at(cur, i);
		if (find_dev(want, d->id) || !pol_dev_reset(d, want, &dflt))
			continue;
		err = change(a, dev_msg(a, &dflt), &qos_dev_obj, 0,
			     "reset device %s (%u:%u) to the defaults", d->name,
			     kdev_major(d->id), kdev_minor(d->id));
		if (err)
			return err;
	}
	return 0;
}

static int apply(struct applier *a, const struct policy *cur,
		 const struct policy *want)
{
	int err;

	err = apply_classes(a, cur, want);
	if (!err)
		err = apply_hosts(a, cur, want);
	if (!err)
		err = apply_devs(a, cur, want);
	return err;
}

/* After a refused change: from whatever the kernel has now back to @old. */
static int put_back(struct qos_nl *nl, const struct policy *old)
{
	struct applier a = { .nl = nl };
	struct policy now = { 0 };
	int err;

	if (policy_read(nl, &now))
		return -1;
	err = apply(&a, &now, old);
	policy_free(&now);
	return err;
}

/* ---- Files -------------------------------------------------------------- */

/* The whole of @path ("-" for stdin) as a string. Prints why if not. */
static char *read_file(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, n;
	char *buf;

	if (!f) {
		fprintf(stderr, "nvmet-qos: cannot open %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	buf = malloc(POLICY_FILE_MAX + 1);
	if (!buf) {
		fprintf(stderr, "nvmet-qos: out of memory\n");
		goto out;
	}
	while ((n = fread(buf + len, 1, POLICY_FILE_MAX + 1 - len, f)) > 0)
		len += n;
	if (ferror(f) || len > POLICY_FILE_MAX) {
		fprintf(stderr, ferror(f) ? "nvmet-qos: cannot read %s: %s\n" :
			"nvmet-qos: %s: larger than 16 MiB, not a policy file\n",
			path, strerror(errno));
		goto err;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		fprintf(stderr, "nvmet-qos: %s: a NUL byte at offset %zu, not a policy file\n",
			path, strlen(buf));
		goto err;
	}
	goto out;
err:
	free(buf);
	buf = NULL;
out:
	if (f != stdin)
		fclose(f);
	return buf;
}

/* A device's stripe members, by name, to the device numbers of their disks. */
static int resolve_members(const char *file, size_t i, struct pol_dev *d)
{
	char why[200];
	unsigned int k;
	uint32_t id;

	d->stripe.n = 0;
	for (k = 0; k < d->nr_members; k++) {
		if (qos_device_resolve(d->members[k], &id, why, sizeof(why)) ||
		    stripe_add_member(&d->stripe, d->id, id, why, sizeof(why))) {
			fprintf(stderr, "nvmet-qos: %s:%d: devices[%zu].stripe_members[%u]: %s\n",
				file, d->line, i, k, why);
			return -1;
		}
	}
	return 0;
}

/* Device names to device numbers; two names of one disk are an error. */
static int resolve_devices(const char *file, struct policy *p)
{
	const struct pol_dev *other;
	struct pol_dev *d;
	char why[160];
	size_t i;

	for (i = 0; i < p->devs.n; i++) {
		d = pol_dev_at(p, i);
		if (qos_device_resolve(d->name, &d->id, why, sizeof(why))) {
			fprintf(stderr, "nvmet-qos: %s:%d: devices[%zu].name: %s\n",
				file, d->line, i, why);
			return -1;
		}
		if (resolve_members(file, i, d))
			return -1;
		other = find_dev(p, d->id);
		if (other != d) {
			fprintf(stderr, "nvmet-qos: %s:%d: devices[%zu].name: \"%s\" is the same device as \"%s\" on line %d\n",
				file, d->line, i, d->name, other->name,
				other->line);
			return -1;
		}
	}
	return 0;
}

/*
 * A host listed in default with weight 100 is one the file does not
 * assign, as save would write it: it is unassigned if it was assigned.
 */
static void drop_default_hosts(struct policy *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->hosts.n; i++)
		if (!pol_host_is_default(pol_host_at(p, i)))
			*pol_host_at(p, n++) = *pol_host_at(p, i);
	p->hosts.n = n;
}

/* @path's policy, checked, into @p. Prints why if it is not valid. */
static int load(const char *path, struct policy *p)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	char err[400];
	char *text;
	int ret;

	text = read_file(path);
	if (!text)
		return -1;
	ret = policy_parse(text, p, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, "nvmet-qos: %s:%s\n", name, err);
		return -1;
	}
	if (resolve_devices(name, p)) {
		policy_free(p);
		return -1;
	}
	drop_default_hosts(p);
	policy_sort(p);
	return 0;
}

/*
 * Replace @path with @p's text: a temporary file beside it, flushed to the
 * disk, then renamed, so a crash leaves the old file or the new one.
 */
static int write_file(const char *path, const struct policy *p)
{
	char tmp[PATH_MAX];
	bool ok;
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "nvmet-qos: %s: path too long\n", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "nvmet-qos: cannot create %s: %s\n", tmp,
			strerror(errno));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		goto err;
	}
	errno = 0;
	ok = !fchmod(fd, 0644) && !policy_print(f, p) && !fflush(f) &&
	     !fsync(fd);
	if (fclose(f))
		ok = false;
	if (ok && !rename(tmp, path))
		return 0;
err:
	fprintf(stderr, "nvmet-qos: cannot write %s: %s\n", path,
		strerror(errno ? errno : ENOMEM));
	unlink(tmp);
	return -1;
}

/* ---- Commands ----------------------------------------------------------- */

static const struct option save_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_save(const struct cmd *cmd, int argc, char **argv)
{
	struct policy p = { 0 };
	const char *path = "-";
	struct qos_nl nl;
	int ret;

	while (cmd_getopt(cmd, argc, argv, ":h", save_longopts) != -1)
		;
	if (optind < argc)
		path = argv[optind++];
	cmd_max_operands(cmd, argc, argv, 0);

	if (qos_nl_open(&nl))
		return QOS_EXIT_ERROR;
	ret = policy_read(&nl, &p);
	qos_nl_close(&nl);
	if (ret)
		return QOS_EXIT_ERROR;
	if (!strcmp(path, "-"))
		ret = policy_print(stdout, &p);
	else
		ret = write_file(path, &p);
	policy_free(&p);
	return ret ? QOS_EXIT_ERROR : QOS_EXIT_OK;
}

enum { OPT_CHECK = 256, OPT_DRY_RUN };

static const struct option restore_longopts[] = {
	{ "check",	no_argument, NULL, OPT_CHECK },
	{ "dry-run",	no_argument, NULL, OPT_DRY_RUN },
	{ "help",	no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void print_summary(const char *verb, const char *path,
			  const struct policy *p, int changes)
{
	printf("%s %s: %zu class%s, %zu host%s, %zu device%s", verb,
	       strcmp(path, "-") ? path : "<stdin>",
	       p->classes.n, p->classes.n == 1 ? "" : "es",
	       p->hosts.n, p->hosts.n == 1 ? "" : "s",
	       p->devs.n, p->devs.n == 1 ? "" : "s");
	if (changes >= 0)
		printf("; %d change%s", changes, changes == 1 ? "" : "s");
	putchar('\n');
}

/* Apply @want; on a refusal put @old back. Returns an exit code. */
static int restore(struct qos_nl *nl, const char *path,
		   const struct policy *want, bool dry_run)
{
	struct applier a = { .nl = nl, .file = path, .dry_run = dry_run };
	struct policy old = { 0 };
	int ret = QOS_EXIT_OK;

	if (!strcmp(path, "-"))
		a.file = "<stdin>";
	if (policy_read(nl, &old))
		return QOS_EXIT_ERROR;
	if (!apply(&a, &old, want)) {
		if (!dry_run)
			print_summary("restored", path, want, a.changes);
		goto out;
	}
	ret = QOS_EXIT_ERROR;
	if (put_back(nl, &old))
		fprintf(stderr, "nvmet-qos: the policy is now partly %s's; see 'nvmet-qos save'\n",
			a.file);
	else
		fprintf(stderr, "nvmet-qos: the policy was put back as it was; nothing changed\n");
out:
	policy_free(&old);
	return ret;
}

int cmd_restore(const struct cmd *cmd, int argc, char **argv)
{
	bool check = false, dry_run = false;
	struct policy want = { 0 };
	const char *path;
	struct qos_nl nl;
	int c, ret;

	while ((c = cmd_getopt(cmd, argc, argv, ":h", restore_longopts)) != -1) {
		if (c == OPT_CHECK)
			check = true;
		else if (c == OPT_DRY_RUN)
			dry_run = true;
	}
	path = cmd_operand(cmd, argc, argv, "FILE");
	cmd_max_operands(cmd, argc, argv, 0);
	if (check && dry_run)
		usage_error("--check and --dry-run exclude each other");

	if (load(path, &want))
		return QOS_EXIT_ERROR;
	if (check) {
		print_summary("valid", path, &want, -1);
		policy_free(&want);
		return QOS_EXIT_OK;
	}
	ret = QOS_EXIT_ERROR;
	if (!qos_nl_open(&nl)) {
		ret = restore(&nl, path, &want, dry_run);
		qos_nl_close(&nl);
	}
	policy_free(&want);
	return ret;
}
