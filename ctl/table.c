// SPDX-License-Identifier: GPL-2.0
/*
 * Column-aligned text tables and shared value formats.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "table.h"

void table_init(struct table *t, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncols = strlen(align);
}

void table_add(struct table *t, const char *s)
{
	size_t len = text_escape(NULL, 0, s);
	char *cell;

	if (t->oom)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **cells = realloc(t->cells, cap * sizeof(*cells));

		if (!cells)
			goto oom;
		t->cells = cells;
		t->cap = cap;
	}
	cell = malloc(len + 1);
	if (!cell)
		goto oom;
	text_escape(cell, len + 1, s);
	t->cells[t->n++] = cell;
	return;
oom:
	t->oom = true;
}

void table_add_val(struct table *t, enum val_fmt fmt, uint64_t v, bool have)
{
	char buf[32];

	if (!have || (fmt == VAL_LIMIT && !v)) {
		table_add(t, "-");
		return;
	}
	switch (fmt) {
	case VAL_PLAIN:
		fmt_u64(buf, sizeof(buf), v);
		break;
	case VAL_HUMAN:
	case VAL_LIMIT:
		fmt_human(buf, sizeof(buf), v);
		break;
	case VAL_BOOL:
		strcpy(buf, v ? "yes" : "no");
		break;
	case VAL_PERCENT:
		fmt_u64(buf, sizeof(buf) - 1, v);
		strcat(buf, "%");
		break;
	}
	table_add(t, buf);
}

void table_add_fields(struct table *t, const struct field *f, size_t n,
		      const uint64_t *val, const bool *have)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].title)
			table_add_val(t, f[i].fmt, val[i], have[i]);
}

static size_t col_width(const struct table *t, size_t col)
{
	size_t w = 0, i, len;

	for (i = col; i < t->n; i += t->ncols) {
		len = strlen(t->cells[i]);
		if (len > w)
			w = len;
	}
	return w;
}

int table_print(const struct table *t, FILE *f)
{
	size_t *w, i, c;

	if (t->oom || !t->ncols || t->n % t->ncols)
		return -1;
	w = calloc(t->ncols, sizeof(*w));
	if (!w)
		return -1;
	for (c = 0; c < t->ncols; c++)
		w[c] = col_width(t, c);

	for (i = 0; i < t->n; i++) {
		const char *s = t->cells[i];
		bool last;

		c = i % t->ncols;
		last = c == t->ncols - 1;
		if (c)
			fputs("  ", f);
		if (t->align[c] == 'r')
			fprintf(f, "%*s", (int)w[c], s);
		else
			fprintf(f, "%-*s", last ? 0 : (int)w[c], s);
		if (last)
			fputc('\n', f);
	}
	free(w);
	return 0;
}

void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->n = t->cap = 0;
}

void json_print_val(FILE *f, const char *key, enum val_fmt fmt, uint64_t v,
		    bool have)
{
	fprintf(f, ",\"%s\":", key);
	if (!have)
		fputs("null", f);
	else if (fmt == VAL_BOOL)
		fputs(v ? "true" : "false", f);
	else
		fprintf(f, "%llu", (unsigned long long)v);
}

void json_print_fields(FILE *f, const struct field *fields, size_t n,
		       const uint64_t *val, const bool *have)
{
	size_t i;

	for (i = 0; i < n; i++)
		json_print_val(f, fields[i].key, fields[i].fmt, val[i], have[i]);
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
