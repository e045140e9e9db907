// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet-qosd: one storage head's agent in a cluster of heads that share
 * one nvmet-qos policy, kept in etcd.
 *
 * It reads the policy (the JSON that "nvmet-qos save" writes) from
 * PREFIX/policy, applies it through "nvmet-qos restore", which changes
 * everything or nothing, and follows the key with a watch. Its status
 * (the revision applied, the last one refused and why) is published at
 * PREFIX/heads/NAME under a lease, so a head that stops is seen to stop.
 *
 * Each interval the status also carries each class's delivered rate,
 * IOPS and held requests, from the module's counters; and the head sets
 * its slice of each cluster ceiling (PREFIX/ceilings, ceiling.c) and its
 * weights for the cluster shares (PREFIX/shares, weights.c) from what
 * every head published.
 *
 * A policy the tool's checks refuse is logged with the reason and left
 * for good; one the kernel does not take is logged once and tried again,
 * less and less often. Either way the head keeps the policy it last
 * applied. A head that loses etcd keeps its policy too, and reads the
 * key again when a member answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "backend.h"
#include "ceiling.h"
#include "cluster.h"
#include "etcd.h"
#include "log.h"
#include "nvmet_qos.h"
#include "weights.h"

#ifndef NVMET_QOS_VERSION
#define NVMET_QOS_VERSION "unknown"
#endif

struct head {
	struct etcd etcd;
	struct backend be;
	struct ceilings ceil;
	struct weights wts;
	const char *prefix, *name, *tool;
	char policy_key[512], status_key[512], heads_prefix[512];
	bool said_bad_heads;		/* a head's status would not parse */
	double interval;		/* s */
	double recheck;			/* s */
	int64_t lease;
	int64_t seen;			/* mod_revision applied or refused */
	int64_t applied;		/* mod_revision last applied */
	int64_t refused;		/* mod_revision last not applied */
	double retry_s, retry_at;	/* when to try it again, if it may be */
	char why[512];			/* why @refused was */
	int watch_at;			/* endpoint of the last watch, -1 */
	bool etcd_lost;
	double lost_at;			/* since when etcd is away; 0: it is not */
	int state;			/* said to the module; -1: not known */
	bool state_failed;		/* the last try to say it failed */
	char state_note[256];
	char *policy;			/* the JSON of the policy applied */
	bool said_none;			/* "no policy yet" logged */
	bool dirty;			/* status to publish */
	/* the classes' counters at the last sample, and when it was taken */
	struct class_fig *figs;
	int nr_figs;			/* -1: the last sample failed */
	double figs_t;
	struct json_object *figs_obj;	/* the rates published, or NULL */
};

/* How often the policy key is read again besides the watch (default). */
#define RECHECK_S	10
/* A policy that was not applied is tried again at most this often. */
#define RETRY_MAX_S	600

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("nvmet-qosd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- applying a policy -------------------------------------------------- */

static void refuse(struct head *h, int64_t rev, const char *why,
		   const char *verb, const char *then)
{
	if (h->refused != rev)
		say("%s the policy of revision %" PRId64 ", keeping revision %" PRId64 "%s: %s",
		    verb, rev, h->applied, then, why);
	/*
	 * Tried again after a recheck interval, then twice as long each time: a
	 * refusal by the kernel repeats, and each try is a restore and its
	 * roll back.
	 */
	h->retry_s = h->refused == rev ? fmin(h->retry_s * 2, RETRY_MAX_S) :
					 h->recheck;
	h->retry_at = now_s() + h->retry_s;
	h->refused = rev;
	snprintf(h->why, sizeof(h->why), "%s", why);
}

/*
 * A policy the tool's checks refuse is refused for good: its revision is
 * not tried again. One that passes them but is not applied (the kernel
 * refused a change, the module is not loaded, the tool did not run) is
 * tried again at the rechecks (--recheck), less often each time it
 * fails again (refuse()), and logged once.
 */
static void apply(struct head *h, const struct etcd_kv *kv)
{
	int64_t rev = kv->mod_revision;
	char out[sizeof(h->why)], then[64];
	double t = 0;
	int rc;

	if (rev && rev == h->seen)
		return;
	h->dirty = true;
	if (kv->deleted) {
		h->seen = rev;
		say("%s deleted at revision %" PRId64 "; keeping the policy of revision %" PRId64,
		    h->policy_key, rev, h->applied);
		return;
	}
	if (strlen(kv->value) != kv->value_len) {
		rc = 1;
		snprintf(out, sizeof(out), "a NUL byte in the value, not a policy");
	} else {
		rc = h->be.ops->restore(h->be.ctx, kv->value, true, out,
					sizeof(out));
	}
	if (rc == 1) {
		h->seen = rev;
		refuse(h, rev, out, "refused", "");
		return;
	}
	if (rc == 0) {
		t = now_s();
		rc = h->be.ops->restore(h->be.ctx, kv->value, false, out,
					sizeof(out));
		t = now_s() - t;
	}
	if (rc) {
		snprintf(then, sizeof(then),
			 " (trying again in %.0f s, then less often)", h->recheck);
		refuse(h, rev, out, "could not apply", then);
		return;
	}
	h->seen = rev;
	h->applied = rev;
	free(h->policy);
	h->policy = strdup(kv->value);
	/* It put back its own ceilings and shares of the classes. */
	ceilings_policy(&h->ceil, &h->be, h->policy);
	weights_policy(&h->wts, &h->be, h->policy);
	say("applied the policy of revision %" PRId64 " in %.0f ms (%s)", rev,
	    t * 1000, out);
}

static void on_event(void *arg, const struct etcd_kv *kv)
{
	struct head *h = arg;

	if (!strcmp(kv->key, h->policy_key))
		apply(h, kv);
}

/* ---- status ------------------------------------------------------------- */

static const struct class_fig *fig_find(const struct class_fig *f, int n,
					const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/*
 * Each class's delivered rate since the last sample and what it holds
 * now, as a JSON object; NULL when there is no earlier sample to take a
 * rate from. A class whose counters went back (the module was loaded
 * again) is left out for this interval.
 */
static struct json_object *figures(struct head *h)
{
	struct json_object *o = NULL;
	struct class_fig *now;
	char why[256];
	double t = now_s(), dt;
	int i, n;

	n = h->be.ops->class_figs(h->be.ctx, &now, why, sizeof(why));
	/* The counters were read somewhere in the run: take its middle. */
	t = (t + now_s()) / 2;
	dt = t - h->figs_t;
	if (n < 0) {
		if (h->nr_figs >= 0)
			say("cannot read the classes' counters: %s", why);
		goto out;
	}
	if (h->nr_figs < 0 && h->figs_t)
		say("the classes' counters can be read again");
	if (h->nr_figs > 0 && dt > 0) {
		o = json_object_new_object();
		for (i = 0; i < n; i++) {
			const struct class_fig *p = fig_find(h->figs, h->nr_figs,
							     now[i].name);
			struct json_object *c;

			if (!p || now[i].bytes < p->bytes || now[i].ios < p->ios)
				continue;
			c = json_object_new_object();
			json_object_object_add(c, "rate_bps", json_object_new_uint64(
				(uint64_t)((now[i].bytes - p->bytes) / dt)));
			json_object_object_add(c, "iops", json_object_new_uint64(
				(uint64_t)((now[i].ios - p->ios) / dt)));
			json_object_object_add(c, "held",
					       json_object_new_uint64(now[i].held));
			json_object_object_add(o, now[i].name, c);
		}
	}
out:
	free(h->figs);
	h->figs = n < 0 ? NULL : now;
	h->nr_figs = n;
	h->figs_t = t;
	return o;
}

static char *status_json(struct head *h)
{
	struct json_object *o = json_object_new_object();
	char *s;

	json_object_object_add(o, "name", json_object_new_string(h->name));
	json_object_object_add(o, "applied_revision",
			       json_object_new_int64(h->applied));
	json_object_object_add(o, "refused_revision",
			       json_object_new_int64(h->refused));
	if (h->refused > h->applied)
		json_object_object_add(o, "refused_why",
				       json_object_new_string(h->why));
	json_object_object_add(o, "interval_ms",
			       json_object_new_int64((int64_t)(h->interval * 1000)));
	if (!h->figs_obj && (h->ceil.n || h->wts.n))
		h->figs_obj = json_object_new_object();
	if (h->figs_obj) {
		ceilings_status(&h->ceil, h->figs_obj);
		weights_status(&h->wts, h->figs_obj);
		json_object_object_add(o, "classes",
				       json_object_get(h->figs_obj));
	}
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

/*
 * Three intervals, and at least 5 s: a call that times out on one member
 * (a second each) before another answers must not cost the lease.
 */
static long lease_ttl(const struct head *h)
{
	return (long)fmax(5.0, ceil(3 * h->interval));
}

/*
 * Keep the lease alive (or take a new one) and publish the status: each
 * @tick of the interval with new figures, and between ticks when it
 * changed (a policy applied or refused) with the figures of the last.
 */
static int publish(struct head *h, bool tick)
{
	char *s;
	int err;

	if (tick) {
		json_object_put(h->figs_obj);
		h->figs_obj = figures(h);
		h->dirty = true;
	}

	if (h->lease) {
		long ttl = etcd_lease_keepalive(&h->etcd, h->lease);

		/* Unreachable, etcd_state() says so; expired, here. */
		if (ttl == 0)
			say("lease %" PRIx64 " expired; taking a new one",
			    h->lease);
		if (ttl <= 0) {
			h->lease = 0;
			h->dirty = true;
		}
	}
	if (!h->lease && etcd_lease_grant(&h->etcd, lease_ttl(h), &h->lease))
		return -1;
	if (!h->dirty)
		return 0;
	s = status_json(h);
	err = s ? etcd_put(&h->etcd, h->status_key, s, h->lease) : -1;
	free(s);
	if (!err)
		h->dirty = false;
	return err;
}

/* ---- the cluster's limits ---------------------------------------------- */

/*
 * Tell the module what this head is in the cluster, once for each change:
 * its admins see a fallback in "nvmet-qos cluster show" and in the events
 * that "nvmet-qos monitor" prints, beside the class changes it makes. A
 * failure is said once and tried again at the next call. What was said
 * is forgotten at each recheck (forget_state()), so that a module loaded
 * again, or a state an admin set, is put right within --recheck.
 */
static void set_state(struct head *h, int state, const char *note)
{
	char msg[256];

	if (state == h->state && !strcmp(note, h->state_note))
		return;
	if (h->be.ops->set_state(h->be.ctx, state, note, msg, sizeof(msg))) {
		if (!h->state_failed)
			say("could not set the module's cluster state to %s: %s",
			    backend_state_name(state), msg);
		h->state_failed = true;
		h->state = -1;
		return;
	}
	if (h->state_failed)
		say("the module's cluster state is set again: %s",
		    backend_state_name(state));
	h->state_failed = false;
	h->state = state;
	snprintf(h->state_note, sizeof(h->state_note), "%s", note);
}

static void forget_state(struct head *h)
{
	h->state = -1;
}

/*
 * Each interval: with etcd, the cluster ceilings and shares read and this
 * head's slices and weights set from every head's figures; cut off long
 * enough for the other heads to stop counting this one (@fall_back), the
 * static slices. Weights stay as they are while etcd is away.
 */
static void cluster_tick(struct head *h, bool ok, bool fall_back)
{
	struct heads hs;
	char note[256];

	if (!ok) {
		if (!fall_back)
			return;
		ceilings_fallback(&h->ceil, &h->be);
		if (h->applied)
			snprintf(note, sizeof(note),
				 "nvmet-qosd %s: etcd unreachable; keeping the policy of revision %" PRId64 ", static slices of cluster ceilings",
				 h->name, h->applied);
		else
			snprintf(note, sizeof(note),
				 "nvmet-qosd %s: etcd unreachable before any policy was applied",
				 h->name);
		set_state(h, NVMET_QOS_CLUSTER_STATE_FALLBACK, note);
		return;
	}
	snprintf(note, sizeof(note), "nvmet-qosd %s: following %s",
		 h->name, h->prefix);
	set_state(h, NVMET_QOS_CLUSTER_STATE_MEMBER, note);
	ceilings_read(&h->ceil, &h->etcd, &h->be);
	weights_read(&h->wts, &h->etcd, &h->be);
	if (!h->ceil.n && !h->wts.n)
		return;
	if (heads_read(&hs, &h->etcd, h->heads_prefix, h->status_key,
		       &h->said_bad_heads))
		return;
	ceilings_split(&h->ceil, &h->be, &hs);
	weights_set(&h->wts, &h->be, &hs);
	heads_free(&hs);
}

/* ---- the loop ----------------------------------------------------------- */

/* Read the policy and start a watch after it. NULL while etcd is away. */
static struct etcd_watch *resync(struct head *h)
{
	struct etcd_kv kv;
	int64_t rev;
	int ret;

	ret = etcd_get(&h->etcd, h->policy_key, &kv, &rev);
	if (ret < 0)
		return NULL;
	if (ret == 0)
		apply(h, &kv);
	else if (h->seen == 0 && !h->said_none)
		say("no policy at %s yet; waiting for one", h->policy_key);
	h->said_none |= ret == 1;
	etcd_kv_free(&kv);
	if (h->etcd.cur != h->watch_at)
		say("following %s from %s", h->policy_key,
		    h->etcd.url[h->etcd.cur]);
	h->watch_at = h->etcd.cur;
	return etcd_watch_start(&h->etcd, h->policy_key, rev + 1);
}

static void etcd_state(struct head *h, bool ok)
{
	if (ok && h->etcd_lost)
		say("etcd reachable again");
	else if (!ok && !h->etcd_lost)
		say("etcd unreachable (%s); keeping the policy of revision %" PRId64,
		    h->etcd.err, h->applied);
	h->etcd_lost = !ok;
}

/*
 * Read the key besides the watch: a policy not applied is tried again,
 * and a change the watch did not bring (its member cut off without
 * closing the connection) is caught. False when the watch must start
 * again.
 */
static bool recheck(struct head *h)
{
	struct etcd_kv kv;
	int64_t rev;
	bool missed;
	int ret;

	ret = etcd_get(&h->etcd, h->policy_key, &kv, &rev);
	missed = !ret && kv.mod_revision != h->refused;
	if (ret || kv.mod_revision == h->seen ||
	    (!missed && now_s() < h->retry_at)) {
		etcd_kv_free(&kv);
		return true;
	}
	if (missed)
		say("the watch did not bring revision %" PRId64 "; following again",
		    kv.mod_revision);
	apply(h, &kv);
	etcd_kv_free(&kv);
	return !missed;
}

static int run(struct head *h)
{
	struct etcd_watch *w = NULL;
	double next = 0, next_check = now_s() + h->recheck;

	while (!stop) {
		double t = now_s();

		if (!w) {
			w = resync(h);
			etcd_state(h, w != NULL);
		}
		if (w && t >= next_check) {
			next_check = t + h->recheck;
			forget_state(h);
			if (!recheck(h)) {
				etcd_watch_stop(w);
				w = NULL;
				continue;
			}
		}
		if (t >= next || (h->dirty && !h->etcd_lost)) {
			bool ok = !publish(h, t >= next);

			etcd_state(h, ok);
			if (ok)
				h->lost_at = 0;
			else if (!h->lost_at)
				h->lost_at = t;
			/*
			 * Cut off, a head keeps its slices until its lease has
			 * run out: until then the other heads still count it.
			 */
			if (t >= next)
				cluster_tick(h, ok,
					     !ok && t - h->lost_at >= lease_ttl(h));
			if (t >= next)
				next = t + h->interval;
			/*
			 * The member serving the watch may be the one gone:
			 * the call failed, or had to go to another member.
			 */
			if (w && (!ok || h->etcd.cur != etcd_watch_at(w))) {
				if (ok)
					say("%s did not answer; following from %s",
					    h->etcd.url[etcd_watch_at(w)],
					    h->etcd.url[h->etcd.cur]);
				etcd_watch_stop(w);
				w = NULL;
			}
		}
		if (!w) {
			usleep((useconds_t)(fmin(h->interval, 0.2) * 1e6));
			continue;
		}
		/* At most a second, so that a signal is not left waiting. */
		if (etcd_watch_poll(w, (int)fmax(1, fmin(next - now_s(), 1) * 1000),
				    on_event, h)) {
			say("%s; reading the policy again", h->etcd.err);
			etcd_watch_stop(w);
			w = NULL;
		}
	}
	etcd_watch_stop(w);
	set_state(h, NVMET_QOS_CLUSTER_STATE_NONE, "nvmet-qosd stopped");
	json_object_put(h->figs_obj);
	free(h->figs);
	ceilings_free(&h->ceil);
	weights_free(&h->wts);
	free(h->policy);
	if (h->lease)
		etcd_lease_revoke(&h->etcd, h->lease);
	return 0;
}

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: nvmet-qosd [OPTION]...\n"
"Apply the nvmet-qos policy kept in etcd to this storage head, and follow it.\n"
"\n"
"  -e, --endpoints URL[,URL]...  etcd members (default http://127.0.0.1:2379)\n"
"  -p, --prefix PREFIX     keys under PREFIX (default /nvmet-qos): the policy\n"
"                          at PREFIX/policy, cluster ceilings at\n"
"                          PREFIX/ceilings, cluster shares at\n"
"                          PREFIX/shares, this head's status at\n"
"                          PREFIX/heads/NAME\n"
"  -n, --name NAME         this head's name (default: the host name)\n"
"  -i, --interval SECONDS  how often the status, the slices of cluster\n"
"                          ceilings and the weights of cluster shares are\n"
"                          renewed (default 1)\n"
"  -r, --recheck SECONDS   how often the policy is read besides the watch,\n"
"                          and a policy not applied first tried again\n"
"                          (default 10)\n"
"  -t, --tool PATH         the nvmet-qos tool (default nvmet-qos)\n"
"  -h, --help              this help\n"
"  -V, --version           the version\n"
"\n"
"A policy is the JSON of \"nvmet-qos save\" (see nvmet-qos.json(5)). One the\n"
"tool refuses is logged and left; the head keeps the one it applied last.\n");
}

static const struct option longopts[] = {
	{ "endpoints",	required_argument, NULL, 'e' },
	{ "prefix",	required_argument, NULL, 'p' },
	{ "name",	required_argument, NULL, 'n' },
	{ "interval",	required_argument, NULL, 'i' },
	{ "recheck",	required_argument, NULL, 'r' },
	{ "tool",	required_argument, NULL, 't' },
	{ "help",	no_argument, NULL, 'h' },
	{ "version",	no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void bad_usage(const char *fmt, const char *arg)
{
	fputs("nvmet-qosd: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'nvmet-qosd --help'.\n", stderr);
	exit(2);
}

/* 0.1 to 3600 seconds, or a usage error naming @opt. */
static double seconds(const char *opt, const char *arg)
{
	char *end, msg[64];
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0.1 && v <= 3600)) {
		snprintf(msg, sizeof(msg), "%s \"%%s\": want 0.1 to 3600 seconds",
			 opt);
		bad_usage(msg, arg);
	}
	return v;
}

static bool name_ok(const char *s)
{
	return *s && strlen(s) < 128 && !strchr(s, '/');
}

int main(int argc, char **argv)
{
	const char *endpoints = "http://127.0.0.1:2379";
	struct head h = { .prefix = "/nvmet-qos", .tool = "nvmet-qos",
			  .state = -1, .interval = 1, .recheck = RECHECK_S, .watch_at = -1 };
	char host[256], err[256];
	struct sigaction sa = { .sa_handler = on_signal };
	int c, ret;

	while ((c = getopt_long(argc, argv, "e:p:n:i:r:t:hV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e': endpoints = optarg; break;
		case 'p': h.prefix = optarg; break;
		case 'n': h.name = optarg; break;
		case 't': h.tool = optarg; break;
		case 'i':
			h.interval = seconds("--interval", optarg);
			break;
		case 'r':
			h.recheck = seconds("--recheck", optarg);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': puts("nvmet-qosd " NVMET_QOS_VERSION); return 0;
		default: bad_usage("%s", "unknown option");
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument \"%s\"", argv[optind]);
	if (!h.name) {
		if (gethostname(host, sizeof(host)))
			bad_usage("%s", "no host name; give --name");
		host[sizeof(host) - 1] = '\0';
		h.name = host;
	}
	if (!name_ok(h.name))
		bad_usage("--name \"%s\": want 1 to 127 characters, no '/'",
			  h.name);
	if (h.prefix[0] != '/' || strlen(h.prefix) > 256)
		bad_usage("--prefix \"%s\": want a key starting with '/'",
			  h.prefix);
	if (etcd_init(&h.etcd, endpoints, err, sizeof(err)))
		bad_usage("--endpoints: %s", err);
	snprintf(h.policy_key, sizeof(h.policy_key), "%s/policy", h.prefix);
	snprintf(h.status_key, sizeof(h.status_key), "%s/heads/%s", h.prefix,
		 h.name);
	snprintf(h.heads_prefix, sizeof(h.heads_prefix), "%s/heads/",
		 h.prefix);
	ceilings_init(&h.ceil, h.prefix);
	weights_init(&h.wts, h.prefix);
	if (backend_open(&h.be, h.tool, err, sizeof(err)))
		bad_usage("--tool: %s", err);
	setvbuf(stderr, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	say("head %s following %s%s on %s", h.name, h.prefix, "/policy",
	    endpoints);
	ret = run(&h);
	etcd_exit(&h.etcd);
	curl_global_cleanup();
	return ret;
}
