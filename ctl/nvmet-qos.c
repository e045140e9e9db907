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

#include "nvmet_qos.h"
#include "nvmet-qos.h"
#include "parse.h"

static const struct cmd cmds[] = {
	{
		.object = "host", .verb = "list", .run = cmd_host_list,
		.args = "[--json]",
		.summary = "list every host nvmet-qos has seen, with its I/O counters",
		.options = QOS_OPTS_JSON,
	},
	{
		.object = "host", .verb = "show", .run = cmd_host_show,
		.args = "HOSTNQN [--json]",
		.summary = "show the I/O counters of one host",
		.options = QOS_OPTS_JSON,
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

void qos_exit(int code)
{
	/* "nvmet-qos host list > /dev/full" must not report success. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nvmet-qos: cannot write output: %s\n",
			strerror(errno));
		if (code == QOS_EXIT_OK)
			code = QOS_EXIT_ERROR;
	}
	exit(code);
}

static void print_cmd_line(FILE *f, const struct cmd *c, bool with_object)
{
	char syn[128];

	snprintf(syn, sizeof(syn), "%s%s%s %s", with_object ? c->object : "",
		 with_object ? " " : "", c->verb, c->args);
	fprintf(f, "  %-28s %s\n", syn, c->summary);
}

static void main_usage(FILE *f)
{
	size_t i;

	fputs("Usage: nvmet-qos [-h | --help] [-V | --version]\n"
	      "       nvmet-qos OBJECT COMMAND [ARGS...]\n"
	      "\n"
	      "Per-host quality of service for the Linux NVMe-oF target.\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		print_cmd_line(f, &cmds[i], true);
	fputs("\n"
	      "Use --help after OBJECT or COMMAND for details.\n"
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
			print_cmd_line(f, &cmds[i], false);
}

static void cmd_usage(FILE *f, const struct cmd *c)
{
	fprintf(f, "Usage: nvmet-qos %s %s %s\n\n", c->object, c->verb,
		c->args);
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
		usage_error("%s %s: unexpected argument '%s'", cmd->object,
			    cmd->verb, argv[optind + max]);
}

int json_print_str(FILE *f, const char *s)
{
	size_t len = json_escape(NULL, 0, s);
	char *buf = malloc(len + 1);

	if (!buf)
		return -1;
	json_escape(buf, len + 1, s);
	fprintf(f, "\"%s\"", buf);
	free(buf);
	return 0;
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
		usage_error("unknown option '%s' (see 'nvmet-qos --help')",
			    argv[i]);
	}
	if (i >= argc)
		usage_error("missing OBJECT (see 'nvmet-qos --help')");

	qos_exit(dispatch(argc - i, argv + i));
}
