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
 * A policy the tool refuses (malformed, or refused by the kernel) is
 * logged with the tool's reason and left: the head keeps the policy it
 * last applied. A head that loses etcd keeps its policy too, and reads
 * the key again when a member answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "etcd.h"

#ifndef NVMET_QOS_VERSION
#define NVMET_QOS_VERSION "unknown"
#endif

#define TOOL_OUT_MAX	4096

struct head {
	struct etcd etcd;
	const char *prefix, *name, *tool;
	char policy_key[512], status_key[512];
	double interval;		/* s */
	int64_t lease;
	int64_t seen;			/* mod_revision last handled */
	int64_t applied;		/* mod_revision last applied */
	int64_t refused;		/* mod_revision last refused */
	char why[512];			/* why @refused was */
	bool etcd_lost;
	bool dirty;			/* status to publish */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void say(const char *fmt, ...)
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

/*
 * Run "TOOL restore -" with @text on its stdin. Returns its exit status
 * (-1 if it could not run); its output (both streams) in @out.
 */
static int run_restore(const char *tool, const char *text, char *out,
		       size_t outlen)
{
	int in[2], res[2], status;
	size_t len = strlen(text), off = 0, got = 0;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(in, O_CLOEXEC) || pipe2(res, O_CLOEXEC)) {
		snprintf(out, outlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(out, outlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		dup2(in[0], 0);
		dup2(res[1], 1);
		dup2(res[1], 2);
		execlp(tool, tool, "restore", "-", (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(res[1]);
	/* The tool reads all of its input before it writes a word. */
	while (off < len && (n = write(in[1], text + off, len - off)) > 0)
		off += (size_t)n;
	close(in[1]);
	/*
	 * Read to the end, keeping what fits: a tool cut off by a closed
	 * pipe would die halfway through its changes.
	 */
	for (;;) {
		char sink[512];

		if (got < outlen - 1)
			n = read(res[0], out + got, outlen - 1 - got);
		else
			n = read(res[0], sink, sizeof(sink));
		if (n <= 0)
			break;
		if (got < outlen - 1)
			got += (size_t)n;
	}
	out[got] = '\0';
	close(res[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first line of @s, without its newline, in @dst. */
static void first_line(char *dst, size_t len, const char *s)
{
	size_t n = strcspn(s, "\n");

	snprintf(dst, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

static void apply(struct head *h, const struct etcd_kv *kv)
{
	char out[TOOL_OUT_MAX];
	double t = 0;
	int rc;

	if (kv->mod_revision && kv->mod_revision == h->seen)
		return;
	h->seen = kv->mod_revision;
	h->dirty = true;
	if (kv->deleted) {
		say("%s deleted at revision %" PRId64 "; keeping the policy of revision %" PRId64,
		    h->policy_key, kv->mod_revision, h->applied);
		return;
	}
	if (strlen(kv->value) != kv->value_len) {
		rc = 1;
		snprintf(out, sizeof(out), "a NUL byte in the value, not a policy");
	} else {
		t = now_s();
		rc = run_restore(h->tool, kv->value, out, sizeof(out));
		t = now_s() - t;
	}
	if (rc == 0) {
		h->applied = kv->mod_revision;
		first_line(h->why, sizeof(h->why), out);
		say("applied the policy of revision %" PRId64 " in %.0f ms (%s)",
		    kv->mod_revision, t * 1000, h->why);
		h->why[0] = '\0';
		return;
	}
	h->refused = kv->mod_revision;
	first_line(h->why, sizeof(h->why), out);
	say("refused the policy of revision %" PRId64 ", keeping revision %" PRId64 ": %s",
	    kv->mod_revision, h->applied, h->why);
}

static void on_event(void *arg, const struct etcd_kv *kv)
{
	struct head *h = arg;

	if (!strcmp(kv->key, h->policy_key))
		apply(h, kv);
}

/* ---- status ------------------------------------------------------------- */

static char *status_json(const struct head *h)
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
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static long lease_ttl(const struct head *h)
{
	return (long)fmax(2.0, ceil(3 * h->interval));
}

/* Keep the lease alive (or take a new one) and publish the status. */
static int publish(struct head *h)
{
	char *s;
	int err;

	if (h->lease && etcd_lease_keepalive(&h->etcd, h->lease) <= 0) {
		if (!h->etcd_lost)
			say("lease %" PRIx64 " lost: %s", h->lease,
			    h->etcd.err[0] ? h->etcd.err : "expired");
		h->lease = 0;
		h->dirty = true;
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
	else if (h->seen == 0)
		say("no policy at %s yet; waiting for one", h->policy_key);
	etcd_kv_free(&kv);
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

static int run(struct head *h)
{
	struct etcd_watch *w = NULL;
	double next = 0;

	while (!stop) {
		double t = now_s();

		if (!w) {
			w = resync(h);
			etcd_state(h, w != NULL);
		}
		if (t >= next) {
			bool ok = !publish(h);

			etcd_state(h, ok);
			next = t + h->interval;
			/* The member serving the watch may be the one gone. */
			if (!ok && w) {
				etcd_watch_stop(w);
				w = NULL;
			}
		}
		if (!w) {
			usleep((useconds_t)(fmin(h->interval, 0.2) * 1e6));
			continue;
		}
		if (etcd_watch_poll(w, (int)fmax(1, (next - now_s()) * 1000),
				    on_event, h)) {
			say("%s; reading the policy again", h->etcd.err);
			etcd_watch_stop(w);
			w = NULL;
		}
		if (h->dirty)
			next = 0;
	}
	etcd_watch_stop(w);
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
"                          at PREFIX/policy, this head's status at\n"
"                          PREFIX/heads/NAME\n"
"  -n, --name NAME         this head's name (default: the host name)\n"
"  -i, --interval SECONDS  how often the status is renewed (default 1)\n"
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

static bool name_ok(const char *s)
{
	return *s && strlen(s) < 128 && !strchr(s, '/');
}

int main(int argc, char **argv)
{
	const char *endpoints = "http://127.0.0.1:2379";
	struct head h = { .prefix = "/nvmet-qos", .tool = "nvmet-qos",
			  .interval = 1 };
	char host[256], err[256], *end;
	struct sigaction sa = { .sa_handler = on_signal };
	int c, ret;

	while ((c = getopt_long(argc, argv, "e:p:n:i:t:hV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e': endpoints = optarg; break;
		case 'p': h.prefix = optarg; break;
		case 'n': h.name = optarg; break;
		case 't': h.tool = optarg; break;
		case 'i':
			errno = 0;
			h.interval = strtod(optarg, &end);
			if (errno || *end || !(h.interval >= 0.1 &&
					       h.interval <= 3600))
				bad_usage("--interval \"%s\": want 0.1 to 3600 seconds",
					  optarg);
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
