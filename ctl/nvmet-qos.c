// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet-qos: control tool for per-host QoS of the Linux NVMe-oF target.
 *
 * Commands are "nvmet-qos OBJECT VERB [ARGS]". Every command is one entry of
 * cmds[] below, which drives dispatch and all help texts, so a new object
 * only needs its handlers and table lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmet_qos.h"
#include "nvmet-qos.h"
#include "parse.h"

/* Shared by "class add" and "class set"; see cmds[] for the rest. */
#define CLASS_OPTS_HELP \
	"  -h, --help          show this help\n" \
	"\n" \
	"NAME is 1 to 31 characters of A-Z a-z 0-9 _ . -\n" \
	"K, M, G and T are powers of 1000: 100M = 100000000.\n" \
	"Ki, Mi, Gi and Ti are powers of 1024: 64Ki = 65536.\n" \
	"RATE and SIZE may end in B (100MB); --min-iops and --max-iops take\n" \
	"K, M, G and T only.\n" \
	"Rates are bytes (or I/Os) per second per backing device: --max 100M\n" \
	"lets the class move 100 MB/s on each device its hosts use, not in total.\n"

#define CLASS_ADD_OPTS \
	"      --share N       weight under contention, 1-1000 (default 100)\n" \
	"      --min RATE      floor in bytes per second (default none)\n" \
	"      --max RATE      ceiling in bytes per second (default none)\n" \
	"      --min-iops N    floor in I/Os per second (default none)\n" \
	"      --max-iops N    ceiling in I/Os per second (default none)\n" \
	"      --burst SIZE    bytes the class may move above --max after idling\n" \
	"                      (default 20 ms at the --max rate, at least 256Ki)\n" \
	"      --latency       latency-sensitive: its small requests (up to 32KiB)\n" \
	"                      go first while the class is within its share\n" \
	"      --auth          admit only controllers that nvmet authenticated\n" \
	"                      (DH-HMAC-CHAP); the others of the class's NQNs run\n" \
	"                      as the host (unauthenticated) in default\n" \
	CLASS_OPTS_HELP

#define CLASS_SET_OPTS \
	"      --share N       weight under contention, 1-1000\n" \
	"      --min RATE      floor in bytes per second, 0 for none\n" \
	"      --max RATE      ceiling in bytes per second, 0 for none\n" \
	"      --min-iops N    floor in I/Os per second, 0 for none\n" \
	"      --max-iops N    ceiling in I/Os per second, 0 for none\n" \
	"      --burst SIZE    bytes the class may move above --max after idling,\n" \
	"                      0 for the default (20 ms at the --max rate, at\n" \
	"                      least 256Ki)\n" \
	"      --latency       mark the class latency-sensitive: its small\n" \
	"                      requests (up to 32KiB) go first within its share\n" \
	"      --no-latency    clear that mark\n" \
	"      --auth          admit only controllers that nvmet authenticated\n" \
	"                      (DH-HMAC-CHAP); the others run as (unauthenticated)\n" \
	"      --no-auth       admit every controller of the class's NQNs\n" \
	CLASS_OPTS_HELP \
	"At least one option is required; what is not given stays as it is.\n"

#define HELP_ONLY \
	"  -h, --help    show this help\n"

static const struct cmd cmds[] = {
	{
		.object = "host", .verb = "list", .run = cmd_host_list,
		.args = "[--json]",
		.summary = "list hosts, their class and counters",
		.options = QOS_OPTS_JSON,
	},
	{
		.object = "host", .verb = "show", .run = cmd_host_show,
		.args = "HOSTNQN [--json]",
		.summary = "show the class and counters of a host",
		.options = QOS_OPTS_JSON,
	},
	{
		.object = "host", .verb = "table", .run = cmd_host_table,
		.args = "[--json]",
		.summary = "show the host table's bound and what reclaim did",
		.options = QOS_OPTS_JSON
			"\n"
			"HOSTS are in the table now, of at most MAX (module parameter\n"
			"max_hosts). A host with no controller, no assignment and\n"
			"nothing in flight is forgotten once idle for host_idle_secs,\n"
			"or at once when the table is 3/4 full (RECLAIMED). Past MAX,\n"
			"connects and requests of new hosts run as the host \"(overflow)\"\n"
			"in the default class (FOLDED). FLOWS are hosts on devices;\n"
			"FLOWS-SPILLED could not be allocated and ran as (overflow).\n"
			"UNSCHEDULED requests ran without scheduling, memory short;\n"
			"SPARES are request trackers the CPUs keep for their next\n"
			"requests (at most 32 a CPU).\n",
	},
	{
		.object = "host", .verb = "assign", .run = cmd_host_assign,
		.args = "HOSTNQN CLASS [--weight N]",
		.summary = "put a host in a class",
		.options =
			"      --weight N    weight of the host among the hosts of\n"
			"                    its class, 1-1000 (default: unchanged;\n"
			"                    100 for a host not assigned before)\n"
			"  -h, --help        show this help\n"
			"\n"
			"The host need not have connected yet; CLASS must exist.\n"
			"Requests it has queued follow it within 100 ms.\n",
	},
	{
		.object = "host", .verb = "weight", .run = cmd_host_weight,
		.args = "HOSTNQN N",
		.summary = "set the weight of a host in its class",
		.options = HELP_ONLY
			"\n"
			"N is 1 to 1000: the hosts of a class share it in proportion\n"
			"to their weights. The host keeps its class.\n",
	},
	{
		.object = "host", .verb = "unassign", .run = cmd_host_unassign,
		.args = "HOSTNQN",
		.summary = "put a host back in the default class",
		.options = HELP_ONLY
			"\n"
			"The host also gets back the default weight, 100.\n",
	},
	{
		.object = "class", .verb = "add", .run = cmd_class_add,
		.args = "NAME [OPTION...]",
		.summary = "create a bandwidth class",
		.options = CLASS_ADD_OPTS,
	},
	{
		.object = "class", .verb = "set", .run = cmd_class_set,
		.args = "NAME OPTION...",
		.summary = "change some options of a class",
		.options = CLASS_SET_OPTS,
	},
	{
		.object = "class", .verb = "del", .run = cmd_class_del,
		.args = "NAME",
		.summary = "delete a class",
		.options = HELP_ONLY
			"\n"
			"Its hosts fall back to the default class, which cannot be\n"
			"deleted.\n",
	},
	{
		.object = "class", .verb = "list", .run = cmd_class_list,
		.args = "[--json]",
		.summary = "list classes with limits and counters",
		.options = QOS_OPTS_JSON,
	},
	{
		.object = "class", .verb = "show", .run = cmd_class_show,
		.args = "NAME [--json]",
		.summary = "show one class with its counters",
		.options = QOS_OPTS_JSON,
	},
	{
		.object = "device", .verb = "list", .run = cmd_device_list,
		.args = "[--json]",
		.summary = "list the backing devices scheduled",
		.options = QOS_OPTS_JSON,
	},
	{
		.object = "device", .verb = "set", .run = cmd_device_set,
		.args = "DEVICE OPTION...",
		.summary = "set a device's cost model, capacity hint or stripe",
		.options =
			"      --capacity RATE    the device's capacity in bytes of reads per\n"
			"                         second; the engine dispatches no more and keeps\n"
			"                         shares of it. 0 (the default) senses it instead\n"
			"      --write-cost PCT   a write costs PCT% of a read of the same size,\n"
			"                         10-1000 (default 200)\n"
			"      --io-cost SIZE     fixed cost of every I/O in bytes, at most 1Mi\n"
			"                         (default 4096)\n"
			"      --stripe STRIPE    DEVICE stripes chunks over drives (RAID0):\n"
			"                         auto reads an md RAID0's chunk and members\n"
			"                         from sysfs; CHUNK:MEMBER,MEMBER,... gives them\n"
			"                         (dm-stripe); none: not striped (the default)\n"
			"  -h, --help             show this help\n"
			"\n"
			"DEVICE is a block device name (nvme0n1), MAJOR:MINOR, a device node\n"
			"(/dev/nvme0n1p2) or, for file-backed namespaces, a file or directory\n"
			"on their file system. Partitions count as their whole disk, which is\n"
			"what the engine schedules. A device may be set before it does I/O.\n"
			"K, M, G and T are powers of 1000, Ki, Mi, Gi and Ti powers of 1024.\n"
			"A request costs its size (times PCT/100 for a write) plus the I/O\n"
			"cost; a new cost model applies to requests that arrive after it.\n"
			"At least one option is required; what is not given stays as it is.\n"
			"\n"
			"md has no tags of its own. Told the stripe, the engine counts each\n"
			"request on the drives its range spans, and a latency class keeps\n"
			"its tags on every drive. Give it after assembling the array and\n"
			"after replacing a member. CHUNK is bytes, a multiple of 512 up to\n"
			"1Gi; its K, M and G are powers of 1024, as md writes chunks (64k =\n"
			"65536). MEMBERs are given as DEVICE is, 2 to 16, in the array's\n"
			"order (md's rd0, rd1, ...). auto refuses members of unequal sizes\n"
			"in whole chunks, as md counts them: md lays such an array out in\n"
			"zones, which a stripe does not follow.\n",
	},
	{
		.object = "stats", .verb = "", .run = cmd_stats,
		.args = "[OPTION...]",
		.summary = "per-class and per-host rates, QoS delay and latency",
		.options =
			"  -j, --json          print JSON instead of tables\n"
			"      --class CLASS   only this class (and its hosts)\n"
			"      --host HOSTNQN  only this host\n"
			"      --watch SECS    redraw every SECS seconds, with rates,\n"
			"                      shares and latency of that interval\n"
			"      --count N       with --watch: stop after N screens\n"
			"      --prometheus    print the Prometheus text format (for\n"
			"                      node_exporter's textfile collector)\n"
			"  -h, --help          show this help\n"
			"\n"
			"Rows are per backing device. SHARE is the class's share among\n"
			"the classes busy on that device, GOT what it got: of the\n"
			"smoothed byte rate, or with --watch of the cost units of the\n"
			"interval. DELAY is the mean time a request was held back by\n"
			"the QoS; P50, P99 and P99.9 are completion latencies from\n"
			"arrival at nvmet, read from a log2 histogram (so within a\n"
			"factor of two, interpolated). Without --watch, counters and\n"
			"latencies cover everything since the host's first request.\n",
	},
	{
		.object = "cluster", .verb = "show", .run = cmd_cluster_show,
		.args = "[--json]",
		.summary = "show this head's state in a cluster of heads",
		.options = QOS_OPTS_JSON
			"\n"
			"STATE is what the daemon running this head in a cluster\n"
			"(nvmet-qosd) says of it: none (no daemon said anything since\n"
			"the module was loaded, or it stopped), member (it follows the\n"
			"cluster's policy and limits) or fallback (it lost the cluster:\n"
			"it keeps its last policy, on static slices of the cluster\n"
			"ceilings). NOTE says why. The module enforces nothing by it.\n",
	},
	{
		.object = "cluster", .verb = "set", .run = cmd_cluster_set,
		.args = "STATE [--note TEXT]",
		.summary = "set this head's cluster state (for nvmet-qosd)",
		.options =
			"  -n, --note TEXT  why, for an admin (up to 255 bytes; default\n"
			"                   none)\n"
			"  -h, --help       show this help\n"
			"\n"
			"STATE is none, member or fallback (see 'cluster show --help').\n"
			"nvmet-qosd sets it; a change is sent to 'monitor' as a\n"
			"cluster-change event. Needs CAP_NET_ADMIN.\n",
	},
	{
		.object = "monitor", .verb = "", .run = cmd_monitor,
		.args = "[--json] [--count N]",
		.summary = "print events as they happen",
		.options =
			"  -j, --json       one JSON object per line\n"
			"  -c, --count N    exit after N events (default: run until\n"
			"                   SIGINT or SIGTERM, which end it between\n"
			"                   two events, with status 0)\n"
			"  -h, --help       show this help\n"
			"\n"
			"Events: host-change (a host assigned, weighted or unassigned),\n"
			"class-new, class-change, class-del, dev-change (device settings),\n"
			"ctrl-connect and ctrl-disconnect (controllers nvmet creates and\n"
			"tears down, i.e. hosts connecting and going away, whatever the\n"
			"reason; auth-required=yes when nvmet holds a key for the NQN,\n"
			"authenticated=yes once the host proved it holds it), ctrl-auth\n"
			"(a controller authenticated, or failed to re-authenticate),\n"
			"cluster-change (this head's cluster state, as 'cluster show').\n"
			"Objects are shown with the fields of 'list'. Hosts\n"
			"moved to default by a class deletion have no host-change of\n"
			"their own. If the kernel had to drop events, a 'lost' event and\n"
			"a warning on stderr say so. Any user may monitor.\n",
	},
	{
		.object = "save", .verb = "", .run = cmd_save,
		.args = "[FILE]",
		.summary = "write the whole policy as JSON",
		.options = HELP_ONLY
			"\n"
			"Writes classes, host assignments and device settings to\n"
			"FILE (replaced atomically, mode 0644) or, without FILE or\n"
			"with -, to standard output, in the format of\n"
			"nvmet-qos.json(5). Hosts in the default class with weight\n"
			"100 and devices with the default settings are left out.\n"
			"Saving twice the same policy gives the same bytes.\n",
	},
	{
		.object = "restore", .verb = "", .run = cmd_restore,
		.args = "[--check | --dry-run] FILE",
		.summary = "make the policy that of a saved file",
		.options =
			"      --check      only check FILE (and its devices)\n"
			"      --dry-run    print the changes, make none\n"
			"  -h, --help       show this help\n"
			"\n"
			"FILE (- for standard input) replaces the whole policy:\n"
			"classes, assignments and device settings it lacks are\n"
			"deleted, unassigned and reset. FILE is checked completely\n"
			"first; an error names its line and field and changes\n"
			"nothing. Should the kernel refuse a change, the policy\n"
			"read before is put back. See nvmet-qos.json(5).\n",
	},
};

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("nvmet-qos: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	qos_exit(QOS_EXIT_USAGE);
}

/*
 * Set in a batch's child. Its exit must not run stdio's cleanup of the
 * batch file, which it shares with the parent: glibc then moves the
 * shared file offset back to where the parent's stream stands, and the
 * parent would read the lines after it a second time.
 */
static bool batch_child;

void qos_exit(int code)
{
	/* "nvmet-qos host list > /dev/full" must not report success. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nvmet-qos: cannot write output: %s\n",
			strerror(errno));
		if (code == QOS_EXIT_OK)
			code = QOS_EXIT_ERROR;
	}
	if (batch_child) {
		fflush(stderr);
		_exit(code);
	}
	exit(code);
}

static int synopsis(char *buf, size_t len, const struct cmd *c,
		    bool with_object)
{
	const char *obj = with_object || !*c->verb ? c->object : "";
	const char *sep1 = *obj && *c->verb ? " " : "";

	return snprintf(buf, len, "%s%s%s %s", obj, sep1, c->verb, c->args);
}

/* Widest synopsis of the commands listed, for one aligned column. */
static int synopsis_width(const char *object)
{
	int w = 0, len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (object && strcmp(cmds[i].object, object))
			continue;
		len = synopsis(NULL, 0, &cmds[i], !object);
		if (len > w)
			w = len;
	}
	return w;
}

static void print_cmd_line(FILE *f, const struct cmd *c, bool with_object,
			   int width)
{
	char syn[128];

	synopsis(syn, sizeof(syn), c, with_object);
	fprintf(f, "  %-*s  %s\n", width, syn, c->summary);
}

static void main_usage(FILE *f)
{
	size_t i;

	fputs("Usage: nvmet-qos [-h | --help] [-V | --version]\n"
	      "       nvmet-qos OBJECT COMMAND [ARGS...]\n"
	      "       nvmet-qos -b | --batch FILE [--force]\n"
	      "\n"
	      "Per-host quality of service for the Linux NVMe-oF target.\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		print_cmd_line(f, &cmds[i], true, synopsis_width(NULL));
	fputs("\n"
	      "Use --help after OBJECT or COMMAND for details.\n"
	      "\n"
	      "--batch runs the commands of FILE (- for standard input), one per\n"
	      "line, without starting the program anew for each; # starts a\n"
	      "comment, quotes work as in the shell. It stops at the first command\n"
	      "that fails, or with --force goes on and exits with the status of\n"
	      "the first failure. Commands before a failure stay done: for an\n"
	      "all-or-nothing change of the whole policy use restore.\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime or kernel error, 2 usage error.\n",
	      f);
}

static void object_usage(FILE *f, const char *object)
{
	size_t i;

	fprintf(f, "Usage: nvmet-qos %s COMMAND [ARGS...]\n\nCommands:\n",
		object);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].object, object))
			print_cmd_line(f, &cmds[i], false,
				       synopsis_width(object));
}

static void cmd_usage(FILE *f, const struct cmd *c)
{
	fprintf(f, "Usage: nvmet-qos %s%s%s %s\n\n", c->object,
		*c->verb ? " " : "", c->verb, c->args);
	/* Capitalise the summary, which the lists print in lower case. */
	fprintf(f, "%c%s.\n", c->summary[0] & ~0x20, c->summary + 1);
	if (c->options)
		fprintf(f, "\nOptions:\n%s", c->options);
}

/* Name of the option getopt just rejected, as the user typed it. */
static void bad_option(char **argv, int missing_arg)
{
	const char *arg = argv[optind - 1];
	bool is_long = !strncmp(arg, "--", 2);
	int len = (int)strcspn(arg, "=");

	if (missing_arg && !is_long)
		usage_error("option '-%c' needs an argument", optopt);
	if (missing_arg)
		usage_error("option '%s' needs an argument", arg);
	/* optopt is set for a known long option given "=value" too. */
	if (optopt && is_long && arg[len])
		usage_error("option '%.*s' takes no argument", len, arg);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", arg);
}

int cmd_getopt(const struct cmd *cmd, int argc, char **argv,
	       const char *shortopts, const struct option *longopts)
{
	int c;

	/* Our own one-line messages replace getopt's. */
	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	switch (c) {
	case 'h':
		cmd_usage(stdout, cmd);
		qos_exit(QOS_EXIT_OK);
	case '?':
	case ':':
		bad_option(argv, c == ':');
	}
	return c;
}

void cmd_max_operands(const struct cmd *cmd, int argc, char **argv, int max)
{
	if (argc - optind > max)
		usage_error("%s%s%s: unexpected argument '%s'", cmd->object,
			    *cmd->verb ? " " : "", cmd->verb, argv[optind + max]);
}

static const struct option json_longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

bool cmd_parse_json(const struct cmd *cmd, int argc, char **argv)
{
	bool json = false;
	int c;

	while ((c = cmd_getopt(cmd, argc, argv, ":hj", json_longopts)) != -1)
		if (c == 'j')
			json = true;
	return json;
}

const char *cmd_operand(const struct cmd *cmd, int argc, char **argv,
			const char *what)
{
	const char *sep = *cmd->verb ? " " : "";

	if (optind >= argc)
		usage_error("%s%s%s: missing %s (see 'nvmet-qos %s%s%s --help')",
			    cmd->object, sep, cmd->verb, what, cmd->object,
			    sep, cmd->verb);
	return argv[optind++];
}

void arg_nqn(const char *nqn)
{
	char why[128];

	if (nqn_validate(nqn, why, sizeof(why)))
		usage_error("%s", why);
}

void arg_class_name(const char *name)
{
	char why[160];

	if (class_name_validate(name, why, sizeof(why)))
		usage_error("%s", why);
}

uint32_t arg_share(const char *what, const char *arg)
{
	uint64_t v;

	if (parse_uint(arg, 1, NVMET_QOS_SHARE_MAX, &v))
		usage_error("invalid %s '%s': want an integer from 1 to %d",
			    what, arg, NVMET_QOS_SHARE_MAX);
	return (uint32_t)v;
}

uint64_t arg_size(const char *what, const char *arg, bool count,
		  const char *hint)
{
	uint64_t v;
	int err;

	err = count ? parse_count(arg, &v) : parse_size(arg, &v);
	if (err == -ERANGE)
		usage_error("invalid %s '%s': too large", what, arg);
	if (err)
		usage_error("invalid %s '%s': want %s", what, arg, hint);
	return v;
}

uint64_t arg_rate(const char *what, const char *arg, bool count,
		  const char *hint)
{
	uint64_t v = arg_size(what, arg, count, hint);

	if (v > NVMET_QOS_RATE_MAX)
		usage_error("invalid %s '%s': above the largest, 1024Ti (2^50)",
			    what, arg);
	return v;
}

int text_width(const char *s)
{
	return (int)text_escape(NULL, 0, s);
}

int text_print_str(FILE *f, const char *s, int width)
{
	size_t len = text_escape(NULL, 0, s);
	char *buf = malloc(len + 1);

	if (!buf)
		return -1;
	text_escape(buf, len + 1, s);
	fprintf(f, "%-*s", width, buf);
	free(buf);
	return 0;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* argv[0] is the object. */
static int dispatch(int argc, char **argv)
{
	const char *object = argv[0];
	bool known = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		known |= !strcmp(cmds[i].object, object);
	if (!known)
		usage_error("unknown object '%s' (see 'nvmet-qos --help')",
			    object);
	/* An object with a verb-less command takes options right away. */
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].object, object) && !*cmds[i].verb)
			return cmds[i].run(&cmds[i], argc, argv);

	if (argc < 2)
		usage_error("missing command after '%s' (see 'nvmet-qos %s --help')",
			    object, object);
	if (is_help(argv[1])) {
		object_usage(stdout, object);
		return QOS_EXIT_OK;
	}
	if (argv[1][0] == '-')
		usage_error("unknown option '%s' (see 'nvmet-qos %s --help')",
			    argv[1], object);

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].object, object) &&
		    !strcmp(cmds[i].verb, argv[1]))
			return cmds[i].run(&cmds[i], argc - 1, argv + 1);

	usage_error("unknown command '%s %s' (see 'nvmet-qos %s --help')",
		    object, argv[1], object);
}

/*
 * One batch command in a child of its own: it behaves exactly as on the
 * command line (a usage error exits, getopt starts afresh, nothing leaks
 * between lines) without exec'ing the program and loading libnl again,
 * which is most of a command's cost on a busy storage head.
 */
static int run_child(int argc, char **argv)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "nvmet-qos: cannot fork: %s\n", strerror(errno));
		return QOS_EXIT_ERROR;
	}
	if (!pid) {
		batch_child = true;
		qos_exit(dispatch(argc, argv));
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "nvmet-qos: waitpid: %s\n", strerror(errno));
			return QOS_EXIT_ERROR;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "nvmet-qos: command killed by signal %d\n",
		WTERMSIG(status));
	return QOS_EXIT_ERROR;
}

#define BATCH_MAX_WORDS 64

/* One line of a batch: its exit status, 0 for a blank or comment line. */
static int batch_line(const char *path, size_t lineno, char *line,
		      ssize_t len)
{
	char *words[BATCH_MAX_WORDS + 1];
	int n;

	if ((size_t)len != strlen(line)) {
		fprintf(stderr, "nvmet-qos: %s:%zu: NUL byte in the line\n",
			path, lineno);
		return QOS_EXIT_USAGE;
	}
	n = split_words(line, words, BATCH_MAX_WORDS);
	if (n == -E2BIG)
		fprintf(stderr, "nvmet-qos: %s:%zu: more than %d words\n",
			path, lineno, BATCH_MAX_WORDS);
	else if (n < 0)
		fprintf(stderr, "nvmet-qos: %s:%zu: unended quote or backslash at the end of the line\n",
			path, lineno);
	if (n < 0)
		return QOS_EXIT_USAGE;
	if (!n)
		return QOS_EXIT_OK;
	words[n] = NULL;
	return run_child(n, words);
}

static int run_batch(const char *path, bool force)
{
	bool std = !strcmp(path, "-");
	const char *name = std ? "<stdin>" : path;
	FILE *f = std ? stdin : fopen(path, "r");
	size_t lineno = 0, cap = 0, failed = 0;
	char *line = NULL;
	int rc, first = QOS_EXIT_OK;
	ssize_t len;

	if (!f) {
		fprintf(stderr, "nvmet-qos: cannot open %s: %s\n", path,
			strerror(errno));
		return QOS_EXIT_ERROR;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		rc = batch_line(name, ++lineno, line, len);
		if (!rc)
			continue;
		failed++;
		if (first == QOS_EXIT_OK)
			first = rc;
		fprintf(stderr, "nvmet-qos: %s:%zu: failed%s\n", name, lineno,
			force ? "" : "; stopped there, the lines before it are done");
		if (!force)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "nvmet-qos: cannot read %s: %s\n", name,
			strerror(errno));
		first = QOS_EXIT_ERROR;
	}
	if (force && failed)
		fprintf(stderr, "nvmet-qos: %s: %zu of %zu lines failed\n", name,
			failed, lineno);
	free(line);
	if (!std)
		fclose(f);
	return first;
}

/* "-b FILE", "--batch FILE" or "--batch=FILE", then at most "--force". */
static int batch_main(int argc, char **argv)
{
	const char *path = NULL;
	bool force = false;
	int i = 1;

	if (!strncmp(argv[0], "--batch=", 8))
		path = argv[0] + 8;
	else if (argc > 1)
		path = argv[i++];
	if (!path || !*path)
		usage_error("--batch: missing FILE (see 'nvmet-qos --help')");
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--force"))
			usage_error("--batch: unexpected argument '%s'", argv[i]);
		force = true;
	}
	return run_batch(path, force);
}

static bool is_batch(const char *arg)
{
	return !strcmp(arg, "-b") || !strcmp(arg, "--batch") ||
	       !strncmp(arg, "--batch=", 8);
}

int main(int argc, char **argv)
{
	int i;

	/* Only global options here; the rest belongs to the command. */
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (is_help(argv[i])) {
			main_usage(stdout);
			qos_exit(QOS_EXIT_OK);
		}
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("nvmet-qos %s (netlink family %s version %d)\n",
			       NVMET_QOS_VERSION, NVMET_QOS_FAMILY_NAME,
			       NVMET_QOS_FAMILY_VERSION);
			qos_exit(QOS_EXIT_OK);
		}
		if (is_batch(argv[i]))
			qos_exit(batch_main(argc - i, argv + i));
		usage_error("unknown option '%s' (see 'nvmet-qos --help')",
			    argv[i]);
	}
	if (i >= argc)
		usage_error("missing OBJECT (see 'nvmet-qos --help')");

	qos_exit(dispatch(argc - i, argv + i));
}
