// SPDX-License-Identifier: GPL-2.0
/*
 * The backend of a real head: the nvmet-qos tool ("restore", "class list
 * --json", "class set"), run as a child with a deadline. The tool is the
 * one way into the module, so the daemon needs neither netlink nor the
 * policy's parser of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "backend.h"

/* What a run keeps of the tool's output: "class list" of 64 classes fits. */
#define OUT_MAX		(1u << 20)
/* A run that takes longer is stuck (a restore of a whole policy: ~0.1 s). */
#define TOOL_TIMEOUT_S	60

/* The first line of @s, without its newline, in @dst. */
static void first_line(char *dst, size_t len, const char *s)
{
	size_t n = strcspn(s, "\n");

	snprintf(dst, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

/*
 * Read @fd to its end into *@out (NUL-terminated), keeping at most
 * OUT_MAX bytes: the rest is read and dropped, since a tool cut off by a
 * closed pipe would die halfway through its changes. False if the end
 * did not come within TOOL_TIMEOUT_S.
 */
static bool slurp(int fd, char **out)
{
	struct timespec t0, t;
	size_t got = 0, cap = 4096;
	char sink[512], *p;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*out = malloc(cap);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long left;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = TOOL_TIMEOUT_S * 1000L - (t.tv_sec - t0.tv_sec) * 1000L -
		       (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (left <= 0)
			return false;
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return false;
		if (*out && got + 1 == cap && cap < OUT_MAX) {
			p = realloc(*out, cap * 2);
			if (p) {
				*out = p;
				cap *= 2;
			}
		}
		if (*out && got + 1 < cap)
			n = read(fd, *out + got, cap - 1 - got);
		else
			n = read(fd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (*out && got + 1 < cap)
			got += (size_t)n;
	}
	if (*out)
		(*out)[got] = '\0';
	return true;
}

/*
 * Run TOOL with @args (NULL-terminated, without the program's name),
 * @in on its stdin (NULL: none). Returns its exit status (-1 if it could
 * not run, or died of a signal); both output streams in *@out, which the
 * caller frees (NULL when out of memory).
 */
static int run(const char *tool, const char *const args[], const char *in,
	       char **out)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, status;
	const char *argv[8] = { tool };
	size_t len = in ? strlen(in) : 0, off = 0;
	ssize_t n;
	bool done;
	pid_t pid;
	int i;

	*out = NULL;
	for (i = 0; i < 6 && args[i]; i++)
		argv[i + 1] = args[i];
	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC))
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (!pid) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(pout[1], 2);
		execvp(tool, (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	/* The tool reads all of its input before it writes a word. */
	while (off < len && (n = write(pin[1], in + off, len - off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;		/* it exited early: its output says why */
		off += (size_t)n;
	}
	close(pin[1]);
	done = slurp(pout[0], out);
	close(pout[0]);
	if (!done) {
		kill(pid, SIGKILL);
		free(*out);
		if (asprintf(out, "%s %s did not finish in %d s; killed", tool,
			     args[0], TOOL_TIMEOUT_S) < 0)
			*out = NULL;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!done)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
fail:
	i = errno;
	for (n = 0; n < 2; n++) {
		if (pin[n] >= 0)
			close(pin[n]);
		if (pout[n] >= 0)
			close(pout[n]);
	}
	if (asprintf(out, "cannot start %s: %s", tool, strerror(i)) < 0)
		*out = NULL;
	return -1;
}

/* run(), with the first line of what the tool said into @msg. */
static int run_said(const char *tool, const char *const args[],
		    const char *in, char *msg, size_t len)
{
	char *out;
	int rc;

	rc = run(tool, args, in, &out);
	first_line(msg, len, out ? out : "out of memory");
	free(out);
	return rc;
}

static int restore(void *tool, const char *text, bool check, char *msg,
		   size_t len)
{
	static const char *const apply[] = { "restore", "-", NULL };
	static const char *const only_check[] = { "restore", "--check", "-",
						  NULL };

	return run_said(tool, check ? only_check : apply, text, msg, len);
}
static uint64_t u64_of(struct json_object *o, const char *name)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, name, &v))
		return 0;
	return json_object_get_uint64(v);
}

static int class_figs(void *tool, struct class_fig **figs, char *msg,
		      size_t len)
{
	static const char *const args[] = { "class", "list", "--json", NULL };
	struct json_object *root = NULL, *arr;
	char *out;
	size_t i, n = 0;
	int rc;

	*figs = NULL;
	rc = run(tool, args, NULL, &out);
	if (rc || !out) {
		first_line(msg, len, out ? out : "out of memory");
		free(out);
		return -1;
	}
	root = json_tokener_parse(out);
	free(out);
	if (!root || !json_object_object_get_ex(root, "classes", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		snprintf(msg, len, "class list --json: no \"classes\" array");
		json_object_put(root);
		return -1;
	}
	n = json_object_array_length(arr);
	*figs = calloc(n ? n : 1, sizeof(**figs));
	if (!*figs) {
		json_object_put(root);
		snprintf(msg, len, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(arr, i), *name;
		struct class_fig *f = &(*figs)[i];

		if (json_object_object_get_ex(c, "name", &name))
			snprintf(f->name, sizeof(f->name), "%s",
				 json_object_get_string(name));
		f->bytes = u64_of(c, "read_bytes") + u64_of(c, "write_bytes");
		f->ios = u64_of(c, "ios");
		f->held = u64_of(c, "queued");
	}
	json_object_put(root);
	return (int)n;
}

/* "class set CLASS OPTION VALUE": 0, or -1 with the tool's first line. */
static int class_set(const char *tool, const char *cls, const char *opt,
		     uint64_t value, char *msg, size_t len)
{
	char v[24];
	const char *const args[] = { "class", "set", cls, opt, v, NULL };

	snprintf(v, sizeof(v), "%" PRIu64, value);
	return run_said(tool, args, NULL, msg, len) ? -1 : 0;
}

static int set_max(void *tool, const char *cls, uint64_t bps, char *msg,
		   size_t len)
{
	return class_set(tool, cls, "--max", bps, msg, len);
}

static int set_share(void *tool, const char *cls, uint32_t share, char *msg,
		     size_t len)
{
	return class_set(tool, cls, "--share", share, msg, len);
}

static int set_state(void *tool, int state, const char *note, char *msg,
		     size_t len)
{
	const char *const args[] = { "cluster", "set",
				     backend_state_name(state), "--note",
				     note, NULL };

	return run_said(tool, args, NULL, msg, len) ? -1 : 0;
}

static const struct backend_ops tool_ops = {
	.restore = restore,
	.class_figs = class_figs,
	.set_max = set_max,
	.set_share = set_share,
	.set_state = set_state,
};

int backend_open(struct backend *be, const char *spec, char *err,
		 size_t len)
{
	(void)err;
	(void)len;
	be->ops = &tool_ops;
	be->ctx = (void *)spec;
	return 0;
}
