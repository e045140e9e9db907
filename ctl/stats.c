// SPDX-License-Identifier: GPL-2.0
/*
 * "nvmet-qos stats": what every class and host gets on every device, as a
 * table, JSON, the Prometheus text format, or a table redrawn every few
 * seconds. The kernel sends one record per host per device (a flow);
 * classes are the sums of their hosts' flows.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "nvmet_qos.h"
#include "nl.h"
#include "nvmet-qos.h"
#include "obj.h"
#include "parse.h"
#include "table.h"

#define NB	NVMET_QOS_LAT_BUCKETS

enum { SF_READ_IOS, SF_WRITE_IOS, SF_READ_BYTES, SF_WRITE_BYTES, SF_COST,
       SF_RATE_BPS, SF_RATE_IOPS, SF_QUEUED, SF_HELD_IOS, SF_HELD_NS,
       SF_LAT_SUM, NSF };

/* Counters that a watch turns into differences; the rest are levels. */
static const bool sf_counter[NSF] = {
	[SF_READ_IOS] = true, [SF_WRITE_IOS] = true, [SF_READ_BYTES] = true,
	[SF_WRITE_BYTES] = true, [SF_COST] = true, [SF_HELD_IOS] = true,
	[SF_HELD_NS] = true, [SF_LAT_SUM] = true,
};

static const struct field stat_fields[NSF] = {
	[SF_READ_IOS]	= { NVMET_QOS_A_STATS_READ_IOS,	"read_ios",	NULL, VAL_PLAIN, false },
	[SF_WRITE_IOS]	= { NVMET_QOS_A_STATS_WRITE_IOS, "write_ios",	NULL, VAL_PLAIN, false },
	[SF_READ_BYTES]	= { NVMET_QOS_A_STATS_READ_BYTES, "read_bytes",	NULL, VAL_PLAIN, false },
	[SF_WRITE_BYTES] = { NVMET_QOS_A_STATS_WRITE_BYTES, "write_bytes", NULL, VAL_PLAIN, false },
	[SF_COST]	= { NVMET_QOS_A_STATS_COST,	"cost",		NULL, VAL_PLAIN, false },
	[SF_RATE_BPS]	= { NVMET_QOS_A_STATS_RATE_BPS,	"rate_bps",	NULL, VAL_PLAIN, false },
	[SF_RATE_IOPS]	= { NVMET_QOS_A_STATS_RATE_IOPS, "rate_iops",	NULL, VAL_PLAIN, false },
	[SF_QUEUED]	= { NVMET_QOS_A_STATS_QUEUED,	"queued",	NULL, VAL_PLAIN, false },
	[SF_HELD_IOS]	= { NVMET_QOS_A_STATS_HELD_IOS,	"held_ios",	NULL, VAL_PLAIN, false },
	[SF_HELD_NS]	= { NVMET_QOS_A_STATS_HELD_NS,	"held_ns",	NULL, VAL_PLAIN, false },
	[SF_LAT_SUM]	= { NVMET_QOS_A_STATS_LAT_SUM_NS, "lat_sum_ns",	NULL, VAL_PLAIN, false },
};

static const struct nla_policy stats_policy[NVMET_QOS_A_STATS_MAX + 1] = {
	[NVMET_QOS_A_STATS_DEV_ID]	= { .type = NLA_U32, .maxlen = 4 },
	[NVMET_QOS_A_STATS_DEV_NAME]	= { .type = NLA_STRING, .maxlen = 64 },
	[NVMET_QOS_A_STATS_NQN]		= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_NQN_MAX_LEN + 1 },
	[NVMET_QOS_A_STATS_CLASS]	= { .type = NLA_STRING,
					    .maxlen = NVMET_QOS_CLASS_NAME_MAX_LEN + 1 },
	[NVMET_QOS_A_STATS_READ_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_WRITE_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_READ_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_WRITE_BYTES]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_COST]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_RATE_BPS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_RATE_IOPS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_QUEUED]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_HELD_IOS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_HELD_NS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_LAT_SUM_NS]	= { .type = NLA_U64, .maxlen = 8 },
	[NVMET_QOS_A_STATS_LAT_HIST]	= { .type = NLA_NESTED },
};

static const char *const stats_attr_names[NVMET_QOS_A_STATS_MAX + 1] = {
	[NVMET_QOS_A_STATS_UNSPEC]	= "unspec",
	[NVMET_QOS_A_STATS_PAD]		= "pad",
	[NVMET_QOS_A_STATS_DEV_ID]	= "dev-id",
	[NVMET_QOS_A_STATS_DEV_NAME]	= "dev-name",
	[NVMET_QOS_A_STATS_NQN]		= "nqn",
	[NVMET_QOS_A_STATS_CLASS]	= "class",
	[NVMET_QOS_A_STATS_READ_IOS]	= "read-ios",
	[NVMET_QOS_A_STATS_WRITE_IOS]	= "write-ios",
	[NVMET_QOS_A_STATS_READ_BYTES]	= "read-bytes",
	[NVMET_QOS_A_STATS_WRITE_BYTES]	= "write-bytes",
	[NVMET_QOS_A_STATS_COST]	= "cost",
	[NVMET_QOS_A_STATS_RATE_BPS]	= "rate-bps",
	[NVMET_QOS_A_STATS_RATE_IOPS]	= "rate-iops",
	[NVMET_QOS_A_STATS_QUEUED]	= "queued",
	[NVMET_QOS_A_STATS_HELD_IOS]	= "held-ios",
	[NVMET_QOS_A_STATS_HELD_NS]	= "held-ns",
	[NVMET_QOS_A_STATS_LAT_SUM_NS]	= "lat-sum-ns",
	[NVMET_QOS_A_STATS_LAT_HIST]	= "lat-hist",
};

static const struct qos_attr_set stats_set = {
	.policy = stats_policy,
	.names = stats_attr_names,
	.maxtype = NVMET_QOS_A_STATS_MAX,
};

/* One flow from the kernel, or the sum of a class's flows on a device. */
struct row {
	uint32_t dev_id;
	char dev[64];
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];	/* empty for a class row */
	char cls[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	uint64_t val[NSF];
	bool have[NSF];
	uint64_t hist[NB];
	double share_pct, got_pct;		/* class rows */
	uint32_t share;
};

static int row_from_attrs(struct nlattr **tb, void *obj)
{
	struct row *r = obj;
	struct nlattr *a;
	int rem;

	if (!tb[NVMET_QOS_A_STATS_DEV_ID] || !tb[NVMET_QOS_A_STATS_NQN])
		return -EBADMSG;
	r->dev_id = nla_get_u32(tb[NVMET_QOS_A_STATS_DEV_ID]);
	if (tb[NVMET_QOS_A_STATS_DEV_NAME])
		nla_strlcpy(r->dev, tb[NVMET_QOS_A_STATS_DEV_NAME], sizeof(r->dev));
	if (!r->dev[0])
		snprintf(r->dev, sizeof(r->dev), "%u:%u", kdev_major(r->dev_id),
			 kdev_minor(r->dev_id));
	nla_strlcpy(r->nqn, tb[NVMET_QOS_A_STATS_NQN], sizeof(r->nqn));
	if (tb[NVMET_QOS_A_STATS_CLASS])
		nla_strlcpy(r->cls, tb[NVMET_QOS_A_STATS_CLASS], sizeof(r->cls));
	qos_nla_fields(tb, stat_fields, NSF, r->val, r->have);
	if (tb[NVMET_QOS_A_STATS_LAT_HIST])
		nla_for_each_nested(a, tb[NVMET_QOS_A_STATS_LAT_HIST], rem)
			if (nla_type(a) >= 1 && nla_type(a) <= NB &&
			    nla_len(a) == 8)
				r->hist[nla_type(a) - 1] = nla_get_u64(a);
	return 0;
}

/* By device, class, host: a class's rows follow each other. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;
	int c = strcmp(ra->dev, rb->dev);

	if (!c)
		c = strcmp(ra->cls, rb->cls);
	return c ? c : strcmp(ra->nqn, rb->nqn);
}

static const struct qos_obj stats_obj = {
	.set = &stats_set,
	.get_cmd = NVMET_QOS_CMD_STATS_GET,
	.name = "statistics",
	.size = sizeof(struct row),
	.from_attrs = row_from_attrs,
	.cmp = row_cmp,
};

/* ---- what the command line asked for ----------------------------------- */

struct stats_opts {
	const char *cls, *nqn;
	bool json, prometheus;
	unsigned int watch, count;
};

/* One view: flows (filtered) and their class sums, per interval or total. */
struct view {
	struct vec hosts, classes;
	double interval;		/* seconds; 0: totals since the start */
};

static uint64_t row_ios(const struct row *r)
{
	return r->val[SF_READ_IOS] + r->val[SF_WRITE_IOS];
}

/* What GOT% compares: recent cost in a watch, else the smoothed rate. */
static uint64_t row_activity(const struct row *r, const struct view *v)
{
	return v->interval ? r->val[SF_COST] : r->val[SF_RATE_BPS];
}

static const struct row *find_flow(const struct vec *prev, const struct row *r)
{
	const struct row *p = prev->v;
	size_t i;

	for (i = 0; i < prev->n; i++)
		if (p[i].dev_id == r->dev_id && !strcmp(p[i].nqn, r->nqn))
			return &p[i];
	return NULL;
}

/* @r becomes what happened since @p, over @secs seconds. */
static void row_delta(struct row *r, const struct row *p, double secs)
{
	size_t i;

	for (i = 0; i < NSF; i++)
		if (sf_counter[i])
			r->val[i] -= p ? p->val[i] : 0;
	for (i = 0; i < NB; i++)
		r->hist[i] -= p ? p->hist[i] : 0;
	r->val[SF_RATE_BPS] = (uint64_t)((r->val[SF_READ_BYTES] +
					  r->val[SF_WRITE_BYTES]) / secs);
	r->val[SF_RATE_IOPS] = (uint64_t)(row_ios(r) / secs);
}

static void row_add(struct row *sum, const struct row *r)
{
	size_t i;

	for (i = 0; i < NSF; i++) {
		sum->val[i] += r->val[i];
		sum->have[i] |= r->have[i];
	}
	for (i = 0; i < NB; i++)
		sum->hist[i] += r->hist[i];
}

static uint32_t share_of(const struct vec *shares, const char *cls)
{
	const struct class_share *s = shares->v;
	size_t i;

	for (i = 0; i < shares->n; i++)
		if (!strcmp(s[i].name, cls))
			return s[i].share;
	return 0;
}

/* SHARE% and GOT% of the class rows of the device starting at @first. */
static void device_shares(struct row *first, size_t n, const struct view *v)
{
	uint64_t shares = 0, act = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		act += row_activity(&first[i], v);
		if (row_activity(&first[i], v) || first[i].val[SF_QUEUED])
			shares += first[i].share;
	}
	for (i = 0; i < n; i++) {
		bool busy = row_activity(&first[i], v) || first[i].val[SF_QUEUED];

		first[i].share_pct = busy && shares ? 100.0 * first[i].share / shares : 0;
		first[i].got_pct = act ? 100.0 * row_activity(&first[i], v) / act : 0;
	}
}

/*
 * Build the view from a sorted dump: differences against @prev when it is
 * given, filters applied to hosts; classes sum every host of theirs on the
 * device (also hosts filtered out by --host).
 */
static int build_view(struct view *v, struct vec *flows, const struct vec *prev,
		      double secs, const struct vec *shares,
		      const struct stats_opts *o)
{
	struct row *f = flows->v, *c = NULL;
	size_t i, dev_first = 0;

	v->interval = prev ? secs : 0;
	for (i = 0; i < flows->n; i++) {
		struct row r = f[i];	/* the dump stays raw for the next turn */

		if (prev)
			row_delta(&r, find_flow(prev, &r), secs);
		if (!c || c->dev_id != r.dev_id || strcmp(c->cls, r.cls)) {
			if (c && c->dev_id != r.dev_id) {
				device_shares((struct row *)v->classes.v + dev_first,
					      v->classes.n - dev_first, v);
				dev_first = v->classes.n;
			}
			c = vec_push(&v->classes, sizeof(*c));
			if (!c)
				return -ENOMEM;
			c->dev_id = r.dev_id;
			strcpy(c->dev, r.dev);
			strcpy(c->cls, r.cls);
			c->share = share_of(shares, c->cls);
		}
		row_add(c, &r);
		if ((o->cls && strcmp(o->cls, r.cls)) ||
		    (o->nqn && strcmp(o->nqn, r.nqn)))
			continue;
		if (!vec_push(&v->hosts, sizeof(struct row)))
			return -ENOMEM;
		((struct row *)v->hosts.v)[v->hosts.n - 1] = r;
	}
	if (c)
		device_shares((struct row *)v->classes.v + dev_first,
			      v->classes.n - dev_first, v);
	return 0;
}

/* ---- output ------------------------------------------------------------- */

static uint64_t row_delay(const struct row *r)
{
	return row_ios(r) ? r->val[SF_HELD_NS] / row_ios(r) : 0;
}

static void add_duration(struct table *t, uint64_t ns, bool have)
{
	char buf[32];

	if (!have) {
		table_add(t, "-");
		return;
	}
	fmt_duration(buf, sizeof(buf), ns);
	table_add(t, buf);
}

static void add_pct(struct table *t, double pct)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f%%", pct);
	table_add(t, buf);
}

/* RATE IOPS QUEUED DELAY P50 P99 P99.9, common to both tables. */
static void add_common(struct table *t, const struct row *r)
{
	bool lat = row_ios(r) > 0;

	table_add_val(t, VAL_HUMAN, r->val[SF_RATE_BPS], true);
	table_add_val(t, VAL_HUMAN, r->val[SF_RATE_IOPS], true);
	table_add_val(t, VAL_PLAIN, r->val[SF_QUEUED], true);
	add_duration(t, row_delay(r), lat);
	add_duration(t, hist_quantile_ns(r->hist, NB, 0.5), lat);
	add_duration(t, hist_quantile_ns(r->hist, NB, 0.99), lat);
	add_duration(t, hist_quantile_ns(r->hist, NB, 0.999), lat);
}

static const char *const common_titles[] = {
	"RATE", "IOPS", "QUEUED", "DELAY", "P50", "P99", "P99.9",
};

static int print_rows(const struct vec *rows, bool hosts,
		      const struct stats_opts *o)
{
	const struct row *r = rows->v;
	struct table t;
	size_t i, j;
	int ret;

	table_init(&t, hosts ? "lllrrrrrrr" : "llrrrrrrrrr");
	table_add(&t, "DEVICE");
	table_add(&t, hosts ? "HOST" : "CLASS");
	if (hosts) {
		table_add(&t, "CLASS");
	} else {
		table_add(&t, "SHARE");
		table_add(&t, "GOT");
	}
	for (j = 0; j < ARRAY_SIZE(common_titles); j++)
		table_add(&t, common_titles[j]);
	for (i = 0; i < rows->n; i++) {
		if (!hosts && o->cls && strcmp(o->cls, r[i].cls))
			continue;
		table_add(&t, r[i].dev);
		table_add(&t, hosts ? r[i].nqn : r[i].cls);
		if (hosts) {
			table_add(&t, r[i].cls);
		} else {
			add_pct(&t, r[i].share_pct);
			add_pct(&t, r[i].got_pct);
		}
		add_common(&t, &r[i]);
	}
	ret = table_print(&t, stdout);
	table_free(&t);
	return ret;
}

static int json_row(const struct row *r, bool host)
{
	size_t i;

	fputs("{\"device\":", stdout);
	if (json_print_str(stdout, r->dev))
		return -1;
	printf(",\"device_id\":%u,\"class\":", (unsigned int)r->dev_id);
	if (json_print_str(stdout, r->cls))
		return -1;
	if (host) {
		fputs(",\"host\":", stdout);
		if (json_print_str(stdout, r->nqn))
			return -1;
	} else {
		printf(",\"share\":%u,\"share_pct\":%.2f,\"got_pct\":%.2f",
		       (unsigned int)r->share, r->share_pct, r->got_pct);
	}
	json_print_fields(stdout, stat_fields, NSF, r->val, r->have);
	printf(",\"delay_ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"p999_ns\":%llu,\"lat_hist\":[",
	       (unsigned long long)row_delay(r),
	       (unsigned long long)hist_quantile_ns(r->hist, NB, 0.5),
	       (unsigned long long)hist_quantile_ns(r->hist, NB, 0.99),
	       (unsigned long long)hist_quantile_ns(r->hist, NB, 0.999));
	for (i = 0; i < NB; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)r->hist[i]);
	fputs("]}", stdout);
	return 0;
}

static int print_json(const struct view *v, const struct stats_opts *o)
{
	const struct row *r;
	size_t i;
	bool first = true;

	if (v->interval)
		printf("{\"interval_s\":%.3f,\"classes\":[", v->interval);
	else
		fputs("{\"interval_s\":null,\"classes\":[", stdout);
	for (i = 0, r = v->classes.v; i < v->classes.n; i++) {
		if (o->cls && strcmp(o->cls, r[i].cls))
			continue;
		if (!first)
			putchar(',');
		first = false;
		if (json_row(&r[i], false))
			return -1;
	}
	fputs("],\"hosts\":[", stdout);
	for (i = 0, r = v->hosts.v; i < v->hosts.n; i++) {
		if (i)
			putchar(',');
		if (json_row(&r[i], true))
			return -1;
	}
	fputs("]}\n", stdout);
	return 0;
}

/* A Prometheus label value: backslash, quote and newline escaped. */
static void prom_label(const char *name, const char *val, bool last)
{
	printf("%s=\"", name);
	for (; *val; val++) {
		if (*val == '\\' || *val == '"')
			printf("\\%c", *val);
		else if (*val == '\n')
			fputs("\\n", stdout);
		else
			putchar(*val);
	}
	printf("\"%s", last ? "" : ",");
}

static void prom_labels(const struct row *r, const char *le)
{
	putchar('{');
	prom_label("device", r->dev, false);
	prom_label("class", r->cls, false);
	prom_label("host", r->nqn, !le);
	if (le)
		prom_label("le", le, true);
	putchar('}');
}

static const struct prom_metric {
	int sf;
	const char *name, *type, *help;
	double scale;
} prom_metrics[] = {
	{ SF_READ_IOS, "nvmet_qos_read_ios_total", "counter", "Reads completed.", 1 },
	{ SF_WRITE_IOS, "nvmet_qos_write_ios_total", "counter", "Writes completed.", 1 },
	{ SF_READ_BYTES, "nvmet_qos_read_bytes_total", "counter", "Bytes read.", 1 },
	{ SF_WRITE_BYTES, "nvmet_qos_write_bytes_total", "counter", "Bytes written.", 1 },
	{ SF_COST, "nvmet_qos_cost_total", "counter", "Cost units completed (bytes of reads).", 1 },
	{ SF_HELD_IOS, "nvmet_qos_held_ios_total", "counter", "Requests held back by the QoS before they ran.", 1 },
	{ SF_HELD_NS, "nvmet_qos_held_seconds_total", "counter", "Time requests were held back by the QoS.", 1e-9 },
	{ SF_RATE_BPS, "nvmet_qos_rate_bytes", "gauge", "Bytes per second, smoothed over the last seconds.", 1 },
	{ SF_RATE_IOPS, "nvmet_qos_rate_ios", "gauge", "I/Os per second, smoothed over the last seconds.", 1 },
	{ SF_QUEUED, "nvmet_qos_queued", "gauge", "Requests held back now.", 1 },
};

static void prom_hist(const struct row *r)
{
	uint64_t cum = 0;
	char le[32];
	size_t i;

	for (i = 0; i < NB - 1; i++) {
		cum += r->hist[i];
		snprintf(le, sizeof(le), "%g", (double)(2ULL << i) * 1e-6);
		fputs("nvmet_qos_latency_seconds_bucket", stdout);
		prom_labels(r, le);
		printf(" %llu\n", (unsigned long long)cum);
	}
	cum += r->hist[NB - 1];
	fputs("nvmet_qos_latency_seconds_bucket", stdout);
	prom_labels(r, "+Inf");
	printf(" %llu\nnvmet_qos_latency_seconds_sum", (unsigned long long)cum);
	prom_labels(r, NULL);
	printf(" %.9f\nnvmet_qos_latency_seconds_count", r->val[SF_LAT_SUM] * 1e-9);
	prom_labels(r, NULL);
	printf(" %llu\n", (unsigned long long)cum);
}

/* Hosts only: class totals are a sum(by (device, class)) away. */
static void print_prometheus(const struct view *v)
{
	const struct row *r = v->hosts.v;
	const struct prom_metric *m;
	size_t i, j;

	for (j = 0; j < ARRAY_SIZE(prom_metrics); j++) {
		m = &prom_metrics[j];
		printf("# HELP %s %s\n# TYPE %s %s\n", m->name, m->help,
		       m->name, m->type);
		for (i = 0; i < v->hosts.n; i++) {
			fputs(m->name, stdout);
			prom_labels(&r[i], NULL);
			if (m->scale == 1)
				printf(" %llu\n", (unsigned long long)r[i].val[m->sf]);
			else
				printf(" %.9f\n", r[i].val[m->sf] * m->scale);
		}
	}
	puts("# HELP nvmet_qos_latency_seconds Completion latency from arrival at nvmet, time held included.\n"
	     "# TYPE nvmet_qos_latency_seconds histogram");
	for (i = 0; i < v->hosts.n; i++)
		prom_hist(&r[i]);
}

static int print_view(const struct view *v, const struct stats_opts *o)
{
	if (o->prometheus) {
		print_prometheus(v);
		return 0;
	}
	if (o->json)
		return print_json(v, o);
	if (!o->nqn && print_rows(&v->classes, false, o))
		return -1;
	if (!o->nqn)
		putchar('\n');
	return print_rows(&v->hosts, true, o);
}

/* ---- the command -------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum { OPT_CLASS = 256, OPT_HOST, OPT_PROM, OPT_WATCH, OPT_COUNT };

static const struct option stats_longopts[] = {
	{ "json",	no_argument, NULL, 'j' },
	{ "class",	required_argument, NULL, OPT_CLASS },
	{ "host",	required_argument, NULL, OPT_HOST },
	{ "prometheus",	no_argument, NULL, OPT_PROM },
	{ "watch",	required_argument, NULL, OPT_WATCH },
	{ "count",	required_argument, NULL, OPT_COUNT },
	{ "help",	no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static unsigned int arg_uint(const char *what, const char *arg, unsigned int min)
{
	uint64_t v;

	if (parse_uint(arg, min, 86400, &v))
		usage_error("invalid %s '%s': want an integer from %u to 86400",
			    what, arg, min);
	return (unsigned int)v;
}

static void parse_stats_opts(const struct cmd *cmd, int argc, char **argv,
			     struct stats_opts *o)
{
	const char *watch = NULL, *count = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = cmd_getopt(cmd, argc, argv, ":hj", stats_longopts)) != -1) {
		if (c == 'j')
			o->json = true;
		else if (c == OPT_CLASS)
			o->cls = optarg;
		else if (c == OPT_HOST)
			o->nqn = optarg;
		else if (c == OPT_PROM)
			o->prometheus = true;
		else if (c == OPT_WATCH)
			watch = optarg;
		else if (c == OPT_COUNT)
			count = optarg;
	}
	cmd_max_operands(cmd, argc, argv, 0);
	if (o->cls)
		arg_class_name(o->cls);
	if (o->nqn)
		arg_nqn(o->nqn);
	if (watch)
		o->watch = arg_uint("--watch", watch, 1);
	if (count)
		o->count = arg_uint("--count", count, 1);
	if (o->json && o->prometheus)
		usage_error("--json and --prometheus exclude each other");
	if (o->watch && o->prometheus)
		usage_error("--prometheus prints one scrape; leave out --watch");
	if (count && !watch)
		usage_error("--count needs --watch");
}

/* One dump of flows and class shares; prints why and returns < 0 if not. */
static int sample(struct vec *flows, struct vec *shares)
{
	struct qos_nl nl;
	int ret;

	vec_reset(flows);
	vec_reset(shares);
	if (qos_nl_open(&nl))
		return -1;
	ret = qos_obj_dump(&nl, &stats_obj, flows);
	if (!ret) {
		ret = qos_class_shares(&nl, shares);
		if (ret == -ENOMEM)
			fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
	}
	qos_nl_close(&nl);
	return ret;
}

static void view_free(struct view *v)
{
	free(v->hosts.v);
	free(v->classes.v);
	memset(v, 0, sizeof(*v));
}

int cmd_stats(const struct cmd *cmd, int argc, char **argv)
{
	struct vec flows = { 0 }, prev = { 0 }, shares = { 0 }, tmp;
	struct stats_opts o;
	struct view v = { 0 };
	double t, t_prev = 0;
	unsigned int n = 0;
	int ret = QOS_EXIT_ERROR;

	parse_stats_opts(cmd, argc, argv, &o);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (;;) {
		if (sample(&flows, &shares))
			goto out;
		t = now_s();
		if (build_view(&v, &flows, o.watch && n ? &prev : NULL,
			       t - t_prev, &shares, &o)) {
			fprintf(stderr, "nvmet-qos: %s\n", strerror(ENOMEM));
			goto out;
		}
		if (o.watch && !o.json)
			printf("\033[H\033[2Jnvmet-qos stats every %us%s\n\n",
			       o.watch, n ? "" : " (first: totals since start)");
		if (print_view(&v, &o)) {
			fprintf(stderr, "nvmet-qos: cannot print statistics\n");
			goto out;
		}
		fflush(stdout);
		view_free(&v);
		n++;
		if (!o.watch || stop || (o.count && n >= o.count))
			break;
		/* The raw dump is the base of the next differences. */
		tmp = prev;
		prev = flows;
		flows = tmp;
		t_prev = t;
		sleep(o.watch);
		if (stop)
			break;
	}
	ret = QOS_EXIT_OK;
out:
	view_free(&v);
	free(flows.v);
	free(prev.v);
	free(shares.v);
	return ret;
}
