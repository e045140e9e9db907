/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line front end of the nvmet-qos tool: dispatch table, option
 * handling and output helpers shared by every object (host, and later class,
 * device, stats, monitor).
 */
#ifndef NVMET_QOS_CLI_H
#define NVMET_QOS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
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

/* Parse the options of a command that only takes --json; true if given. */
bool cmd_parse_json(const struct cmd *cmd, int argc, char **argv);

/* The next operand, or a usage error naming @what as missing. */
const char *cmd_operand(const struct cmd *cmd, int argc, char **argv,
			const char *what);

/* Refuse operands beyond the first @max ones (counted from optind). */
void cmd_max_operands(const struct cmd *cmd, int argc, char **argv, int max);

/* Print "nvmet-qos: <message>" on stderr and exit with QOS_EXIT_USAGE. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Flush stdout, report a write error if any, and exit. */
void qos_exit(int code) __attribute__((noreturn));

/*
 * Checks of command-line values; each returns the value or ends in
 * usage_error() naming @what (an option such as "--share", or an operand).
 */
void arg_nqn(const char *nqn);
void arg_class_name(const char *name);
uint32_t arg_share(const char *what, const char *arg);
/* Bytes (rates, sizes) if !@count, else an I/O count; @hint gives examples. */
uint64_t arg_size(const char *what, const char *arg, bool count,
		  const char *hint);
/* arg_size() of a rate or burst, at most NVMET_QOS_RATE_MAX. */
uint64_t arg_rate(const char *what, const char *arg, bool count,
		  const char *hint);

/* Growable array of @size-byte elements. */
struct vec {
	void *v;
	size_t n, cap;
};

/* Append a zeroed element; NULL when out of memory. */
void *vec_push(struct vec *vec, size_t size);
/* Drop every element, keep the memory: a restart() for qos_nl_dump(). */
void vec_reset(void *vec);

/* Terminal-safe text, left-aligned and padded to @width columns. */
int text_print_str(FILE *f, const char *s, int width);

/* Width of @s once text_print_str() escaped it. */
int text_width(const char *s);

/* Command handlers, one per table entry. */
int cmd_host_list(const struct cmd *cmd, int argc, char **argv);
int cmd_host_show(const struct cmd *cmd, int argc, char **argv);
int cmd_host_table(const struct cmd *cmd, int argc, char **argv);
int cmd_host_assign(const struct cmd *cmd, int argc, char **argv);
int cmd_host_weight(const struct cmd *cmd, int argc, char **argv);
int cmd_host_unassign(const struct cmd *cmd, int argc, char **argv);
int cmd_class_add(const struct cmd *cmd, int argc, char **argv);
int cmd_class_set(const struct cmd *cmd, int argc, char **argv);
int cmd_class_del(const struct cmd *cmd, int argc, char **argv);
int cmd_class_list(const struct cmd *cmd, int argc, char **argv);
int cmd_class_show(const struct cmd *cmd, int argc, char **argv);
int cmd_device_list(const struct cmd *cmd, int argc, char **argv);
int cmd_device_set(const struct cmd *cmd, int argc, char **argv);
int cmd_stats(const struct cmd *cmd, int argc, char **argv);
int cmd_cluster_show(const struct cmd *cmd, int argc, char **argv);
int cmd_cluster_set(const struct cmd *cmd, int argc, char **argv);
int cmd_monitor(const struct cmd *cmd, int argc, char **argv);
int cmd_save(const struct cmd *cmd, int argc, char **argv);
int cmd_restore(const struct cmd *cmd, int argc, char **argv);

#endif /* NVMET_QOS_CLI_H */
