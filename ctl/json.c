// SPDX-License-Identifier: GPL-2.0
/*
 * Recursive-descent JSON reader that remembers lines; see json.h.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define MAX_DEPTH	32

struct reader {
	const char *s;
	size_t pos;
	int line;
	size_t line_start;	/* offset of the current line, for columns */
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

static struct json *parse_value(struct reader *r, struct json *out);

static void fail(struct reader *r, const char *fmt, ...)
{
	int col = (int)(r->pos - r->line_start) + 1;
	size_t len;
	va_list ap;

	if (r->failed)
		return;
	r->failed = true;
	len = (size_t)snprintf(r->err, r->errlen, "%d:%d: ", r->line, col);
	if (len >= r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + len, r->errlen - len, fmt, ap);
	va_end(ap);
}

static void skip_space(struct reader *r)
{
	for (;;) {
		char c = r->s[r->pos];

		if (c == '\n') {
			r->line++;
			r->line_start = r->pos + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		r->pos++;
	}
}

/* What the reader stands on, for "unexpected X" messages. */
static void fail_unexpected(struct reader *r, const char *want)
{
	unsigned char c = (unsigned char)r->s[r->pos];

	if (!c)
		fail(r, "%s, got the end of the file", want);
	else if (c >= 0x20 && c < 0x7f)
		fail(r, "%s, got '%c'", want, c);
	else
		fail(r, "%s, got byte 0x%02x", want, c);
}

static bool accept(struct reader *r, char c)
{
	skip_space(r);
	if (r->s[r->pos] != c)
		return false;
	r->pos++;
	return true;
}

/* Append one UTF-8 encoded code point to @dst. */
static size_t put_utf8(char *dst, uint32_t cp)
{
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xc0 | cp >> 6);
		dst[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xe0 | cp >> 12);
		dst[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		dst[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	dst[0] = (char)(0xf0 | cp >> 18);
	dst[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	dst[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	dst[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int hex4(struct reader *r, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = r->s[r->pos];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
		r->pos++;
	}
	*out = v;
	return 0;
}

/* After "\u": one code point, a surrogate pair counting as one. */
static int unicode_escape(struct reader *r, uint32_t *cp)
{
	uint32_t lo;

	if (hex4(r, cp)) {
		fail(r, "\\u needs four hex digits");
		return -1;
	}
	if (*cp >= 0xdc00 && *cp <= 0xdfff) {
		fail(r, "unpaired low surrogate \\u%04x", *cp);
		return -1;
	}
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (strncmp(r->s + r->pos, "\\u", 2)) {
			fail(r, "high surrogate \\u%04x without its low half", *cp);
			return -1;
		}
		r->pos += 2;
		if (hex4(r, &lo) || lo < 0xdc00 || lo > 0xdfff) {
			fail(r, "high surrogate \\u%04x without its low half", *cp);
			return -1;
		}
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!*cp) {
		fail(r, "\\u0000 is not allowed in strings");
		return -1;
	}
	return 0;
}

static int escape(struct reader *r, char *dst, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char c = r->s[r->pos++];
	const char *p = c ? strchr(from, c) : NULL;
	uint32_t cp;

	if (p) {
		dst[(*len)++] = to[p - from];
		return 0;
	}
	if (c != 'u') {
		r->pos--;
		fail_unexpected(r, "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
		return -1;
	}
	if (unicode_escape(r, &cp))
		return -1;
	*len += put_utf8(dst + *len, cp);
	return 0;
}

/* Bytes up to the closing quote; decoded text is never longer. */
static size_t string_span(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '"')
		n += s[n] == '\\' && s[n + 1] ? 2 : 1;
	return n;
}

/* At the opening quote. */
static char *parse_string(struct reader *r)
{
	size_t len = 0;
	unsigned char c;
	char *dst;

	dst = malloc(string_span(r->s + ++r->pos) + 1);
	if (!dst) {
		fail(r, "out of memory");
		return NULL;
	}
	while ((c = (unsigned char)r->s[r->pos]) != '"') {
		if (c < 0x20) {
			if (c)
				fail(r, "control character 0x%02x in a string (escape it)", c);
			else
				fail(r, "string not closed");
			goto err;
		}
		r->pos++;
		if (c != '\\')
			dst[len++] = (char)c;
		else if (escape(r, dst, &len))
			goto err;
	}
	r->pos++;
	dst[len] = '\0';
	return dst;
err:
	free(dst);
	return NULL;
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* The grammar of RFC 8259 section 6; the value stays text. */
static int parse_number(struct reader *r, struct json *j)
{
	const char *s = r->s + r->pos;
	size_t n = 0, d;

	if (s[n] == '-')
		n++;
	d = digits(s + n);
	if (!d || (d > 1 && s[n] == '0'))
		goto bad;
	n += d;
	if (s[n] == '.') {
		d = digits(s + ++n);
		if (!d)
			goto bad;
		n += d;
	}
	if (s[n] == 'e' || s[n] == 'E') {
		n++;
		if (s[n] == '+' || s[n] == '-')
			n++;
		d = digits(s + n);
		if (!d)
			goto bad;
		n += d;
	}
	j->text = strndup(s, n);
	if (!j->text) {
		fail(r, "out of memory");
		return -1;
	}
	r->pos += n;
	return 0;
bad:
	fail(r, "malformed number");
	return -1;
}

static struct json *push(struct reader *r, struct json *parent)
{
	struct json *items;

	/* Grow one by one: policy files are small, and this stays simple. */
	items = realloc(parent->items, (parent->n + 1) * sizeof(*items));
	if (!items) {
		fail(r, "out of memory");
		return NULL;
	}
	parent->items = items;
	memset(&items[parent->n], 0, sizeof(*items));
	return &items[parent->n++];
}

/* At '[' or '{'. */
static int parse_container(struct reader *r, struct json *j, bool object)
{
	char close = object ? '}' : ']';
	struct json *item;

	if (++r->depth > MAX_DEPTH) {
		fail(r, "nested deeper than %d levels", MAX_DEPTH);
		return -1;
	}
	r->pos++;
	if (accept(r, close))
		goto done;
	do {
		item = push(r, j);
		if (!item)
			return -1;
		skip_space(r);
		if (object) {
			if (r->s[r->pos] != '"') {
				fail_unexpected(r, "expected a member name in quotes");
				return -1;
			}
			item->key = parse_string(r);
			if (!item->key)
				return -1;
			if (!accept(r, ':')) {
				fail_unexpected(r, "expected ':' after a member name");
				return -1;
			}
		}
		if (!parse_value(r, item))
			return -1;
	} while (accept(r, ','));
	if (!accept(r, close)) {
		fail_unexpected(r, object ? "expected ',' or '}'" :
				"expected ',' or ']'");
		return -1;
	}
done:
	r->depth--;
	return 0;
}

static int parse_word(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(r->s + r->pos, word, n)) {
		fail_unexpected(r, "expected a value");
		return -1;
	}
	r->pos += n;
	return 0;
}

static struct json *parse_value(struct reader *r, struct json *j)
{
	int ret;

	skip_space(r);
	j->line = r->line;
	switch (r->s[r->pos]) {
	case '{':
		j->type = JSON_OBJECT;
		ret = parse_container(r, j, true);
		break;
	case '[':
		j->type = JSON_ARRAY;
		ret = parse_container(r, j, false);
		break;
	case '"':
		j->type = JSON_STRING;
		j->text = parse_string(r);
		ret = j->text ? 0 : -1;
		break;
	case 't':
		j->type = JSON_BOOL;
		j->boolean = true;
		ret = parse_word(r, "true");
		break;
	case 'f':
		j->type = JSON_BOOL;
		ret = parse_word(r, "false");
		break;
	case 'n':
		j->type = JSON_NULL;
		ret = parse_word(r, "null");
		break;
	default:
		j->type = JSON_NUMBER;
		if (r->s[r->pos] == '-' ||
		    (r->s[r->pos] >= '0' && r->s[r->pos] <= '9')) {
			ret = parse_number(r, j);
		} else {
			fail_unexpected(r, "expected a value");
			ret = -1;
		}
	}
	return ret ? NULL : j;
}

static void json_free_members(struct json *j)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		json_free_members(&j->items[i]);
	free(j->items);
	free(j->key);
	free(j->text);
}

void json_free(struct json *j)
{
	if (!j)
		return;
	json_free_members(j);
	free(j);
}

struct json *json_parse(const char *src, char *err, size_t errlen)
{
	struct reader r = { .s = src, .line = 1, .err = err, .errlen = errlen };
	struct json *root = calloc(1, sizeof(*root));

	if (!root) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!parse_value(&r, root))
		goto err;
	skip_space(&r);
	if (src[r.pos]) {
		fail_unexpected(&r, "expected the end of the file after the value");
		goto err;
	}
	return root;
err:
	json_free(root);
	return NULL;
}

const char *json_type_name(enum json_type type)
{
	static const char *const names[] = {
		[JSON_NULL] = "null", [JSON_BOOL] = "a boolean",
		[JSON_NUMBER] = "a number", [JSON_STRING] = "a string",
		[JSON_ARRAY] = "an array", [JSON_OBJECT] = "an object",
	};

	return names[type];
}
