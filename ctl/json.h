/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for policy files. It keeps the line of every value,
 * so that "restore" can say which line of a file is wrong, which no JSON
 * library in Debian does for values. Pure: test_parse links it.
 */
#ifndef NVMET_QOS_JSON_H
#define NVMET_QOS_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY,
		 JSON_OBJECT };

struct json {
	enum json_type type;
	int line;		/* where the value starts, from 1 */
	char *key;		/* member name inside an object, else NULL */
	bool boolean;
	/* JSON_STRING: the decoded text; JSON_NUMBER: the number as written. */
	char *text;
	struct json *items;	/* array elements or object members */
	size_t n;
};

/*
 * Parse the NUL-terminated document @src (RFC 8259; nesting at most 32
 * deep; no NUL bytes inside strings). Returns the root, or NULL with
 * "LINE:COLUMN: reason" in @err. Free with json_free().
 */
struct json *json_parse(const char *src, char *err, size_t errlen);
void json_free(struct json *j);

/* "an object", "a string"...: for "want X, got Y" messages. */
const char *json_type_name(enum json_type type);

#endif /* NVMET_QOS_JSON_H */
