/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Column-aligned text tables and the value formats shared by the table and
 * JSON output of every object. Pure: no netlink, so test_parse links it.
 */
#ifndef NVMET_QOS_TABLE_H
#define NVMET_QOS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How a number is shown in a table; JSON always prints the raw integer. */
enum val_fmt {
	VAL_PLAIN,	/* exact integer: 1234567 */
	VAL_HUMAN,	/* powers of 1000: 1.2M, 0 stays 0 */
	VAL_LIMIT,	/* as VAL_HUMAN, but 0 (no limit) is "-" */
	VAL_BOOL,	/* yes/no; true/false in JSON */
	VAL_PERCENT,	/* 200% */
};

/* One reply attribute shown as a column and/or a JSON key. */
struct field {
	int attr;
	const char *key;	/* --json key */
	const char *title;	/* table column, NULL for JSON only */
	enum val_fmt fmt;
	bool optional;		/* newer than the first kernel: absent is "-", null */
};

/*
 * Cells are added row by row, left to right, the titles first. Allocation
 * failures are remembered and reported by table_print(), so callers need not
 * check every table_add().
 */
struct table {
	const char *align;	/* one 'l' or 'r' per column */
	size_t ncols;
	char **cells;
	size_t n, cap;
	bool oom;
};

void table_init(struct table *t, const char *align);
/* A cell, made terminal-safe with text_escape(). */
void table_add(struct table *t, const char *s);
/* A number in @fmt, or "-" if !@have (an attribute the kernel did not send). */
void table_add_val(struct table *t, enum val_fmt fmt, uint64_t v, bool have);
/* Two blanks between columns, no trailing blanks. -1 if memory ran out. */
int table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

/* A cell for each field that has a title. */
void table_add_fields(struct table *t, const struct field *f, size_t n,
		      const uint64_t *val, const bool *have);

/* ,"key":value (null if !@have); the key is printed as given. */
void json_print_val(FILE *f, const char *key, enum val_fmt fmt, uint64_t v,
		    bool have);

/* json_print_val() of every field. */
void json_print_fields(FILE *f, const struct field *fields, size_t n,
		       const uint64_t *val, const bool *have);

/* Quoted, escaped JSON string; returns -1 on allocation failure. */
int json_print_str(FILE *f, const char *s);

#endif /* NVMET_QOS_TABLE_H */
