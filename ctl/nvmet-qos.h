/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line front end of the nvmet-qos tool: dispatch table, option
 * handling and output helpers shared by every object (host, and later class,
 * device, stats, monitor).
 */
#ifndef NVMET_QOS_CLI_H
#define NVMET_QOS_CLI_H

#include <getopt.h>
#include <stdio.h>

#ifndef NVMET_QOS_VERSION
#define NVMET_QOS_VERSION "0.1.0"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes; scripts rely on them, so never renumber. */
enum {
	QOS_EXIT_OK	= 0,
	QOS_EXIT_ERROR	= 1,	/* runtime or kernel error */
	QOS_EXIT_USAGE	= 2,	/* bad command line, nothing was sent */
};

/*
 * One "nvmet-qos OBJECT VERB" command. run() gets argv[0] == VERB, parses
 * its own options with cmd_getopt() and returns an exit code.
 */
struct cmd {
	const char *object;
	const char *verb;
	int (*run)(const struct cmd *cmd, int argc, char **argv);
	const char *args;	/* synopsis after the verb */
	const char *summary;	/* one line for the command lists */
	const char *options;	/* option lines of the command's --help */
};

/* Option lines shared by commands that only take --json. */
#define QOS_OPTS_JSON \
	"  -j, --json    print JSON instead of a table\n" \
	"  -h, --help    show this help\n"

/*
 * getopt_long() wrapper: handles --help (usage on stdout, exit 0) and
 * unknown options or missing option arguments (one line on stderr, exit 2),
 * returns the other option characters, then -1. @shortopts must start
 * with ':' and contain 'h'. Operands start at optind afterwards.
 */
int cmd_getopt(const struct cmd *cmd, int argc, char **argv,
	       const char *shortopts, const struct option *longopts);

/* Refuse operands beyond the first @max ones (counted from optind). */
void cmd_max_operands(const struct cmd *cmd, int argc, char **argv, int max);

/* Print "nvmet-qos: <message>" on stderr and exit with QOS_EXIT_USAGE. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Flush stdout, report a write error if any, and exit. */
void qos_exit(int code) __attribute__((noreturn));

/* Quoted, escaped JSON string; returns -1 on allocation failure. */
int json_print_str(FILE *f, const char *s);

/* Terminal-safe text, left-aligned and padded to @width columns. */
int text_print_str(FILE *f, const char *s, int width);

/* Width of @s once text_print_str() escaped it. */
int text_width(const char *s);

/* Command handlers, one per table entry. */
int cmd_host_list(const struct cmd *cmd, int argc, char **argv);
int cmd_host_show(const struct cmd *cmd, int argc, char **argv);

#endif /* NVMET_QOS_CLI_H */
