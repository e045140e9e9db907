// SPDX-License-Identifier: GPL-2.0
/*
 * Pure parsing and formatting helpers of the nvmet-qos tool.
 *
 * Character classes are tested by hand instead of with <ctype.h> so that the
 * result never depends on the user's locale.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nvmet_qos.h"
#include "parse.h"

/* Bounded output buffer shared by the snprintf-like formatters. */
struct sbuf {
	char *buf;
	size_t size;
	size_t len;	/* length of the full result, may exceed size */
};

static void sb_putc(struct sbuf *sb, char c)
{
	if (sb->len + 1 < sb->size)
		sb->buf[sb->len] = c;
	sb->len++;
}

static void sb_puts(struct sbuf *sb, const char *s)
{
	while (*s)
		sb_putc(sb, *s++);
}

static void sb_put_hex(struct sbuf *sb, const char *prefix, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	sb_puts(sb, prefix);
	sb_putc(sb, hex[c >> 4]);
	sb_putc(sb, hex[c & 0xf]);
}

static size_t sb_finish(struct sbuf *sb)
{
	if (sb->size)
		sb->buf[sb->len < sb->size ? sb->len : sb->size - 1] = '\0';
	return sb->len;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_print(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

int nqn_validate(const char *nqn, char *why, size_t whylen)
{
	char dummy[1];
	size_t len, i;

	/* Let callers that only want the verdict pass NULL. */
	if (!why) {
		why = dummy;
		whylen = sizeof(dummy);
	}

	if (!nqn || !*nqn) {
		snprintf(why, whylen, "host NQN is empty");
		return -EINVAL;
	}

	len = strlen(nqn);
	if (len > NVMET_QOS_NQN_MAX_LEN) {
		snprintf(why, whylen,
			 "host NQN is %zu bytes long, the maximum is %d",
			 len, NVMET_QOS_NQN_MAX_LEN);
		return -EINVAL;
	}

	/*
	 * nvmet itself takes any bytes, but an NQN that cannot be typed or
	 * printed safely is almost certainly a quoting mistake in a script.
	 */
	for (i = 0; i < len; i++) {
		unsigned char c = nqn[i];

		if (!is_print(c)) {
			snprintf(why, whylen,
				 "host NQN has a non-printable byte 0x%02x at offset %zu",
				 c, i);
			return -EINVAL;
		}
	}
	return 0;
}

static bool is_class_char(char c)
{
	return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       c == '_' || c == '.' || c == '-';
}

int class_name_validate(const char *name, char *why, size_t whylen)
{
	char dummy[1];
	size_t len, i;

	if (!why) {
		why = dummy;
		whylen = sizeof(dummy);
	}

	if (!name || !*name) {
		snprintf(why, whylen, "class name is empty");
		return -EINVAL;
	}

	/* A stray character says more than the length it happens to give. */
	for (i = 0; name[i]; i++) {
		unsigned char c = name[i];

		if (is_class_char(c))
			continue;
		if (is_print(c))
			snprintf(why, whylen,
				 "class name has an invalid character '%c' at offset %zu (allowed: A-Z a-z 0-9 _ . -)",
				 c, i);
		else
			snprintf(why, whylen,
				 "class name has an invalid byte 0x%02x at offset %zu (allowed: A-Z a-z 0-9 _ . -)",
				 c, i);
		return -EINVAL;
	}

	len = i;
	if (len > NVMET_QOS_CLASS_NAME_MAX_LEN) {
		snprintf(why, whylen,
			 "class name is %zu characters long, the maximum is %d",
			 len, NVMET_QOS_CLASS_NAME_MAX_LEN);
		return -EINVAL;
	}
	return 0;
}

int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t val = 0;
	bool overflow = false;

	if (!s || !is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		unsigned int d = *s - '0';

		if (val > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			val = val * 10 + d;
	}
	if (*s)
		return -EINVAL;
	if (overflow || val < min || val > max)
		return -ERANGE;
	*out = val;
	return 0;
}

int parse_devnum(const char *s, uint32_t *out)
{
	char major[16];
	const char *colon;
	uint64_t ma, mi;
	int err;

	if (!s)
		return -EINVAL;
	colon = strchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(major))
		return -EINVAL;
	memcpy(major, s, colon - s);
	major[colon - s] = '\0';
	err = parse_uint(major, 0, UINT64_MAX, &ma);
	if (!err)
		err = parse_uint(colon + 1, 0, UINT64_MAX, &mi);
	if (err)
		return err;
	if (ma > KDEV_MAJOR_MAX || mi >= (1U << KDEV_MINOR_BITS))
		return -ERANGE;
	*out = kdev_make((uint32_t)ma, (uint32_t)mi);
	return 0;
}

/* Power of the unit prefix: SI "k" and the customary "K" are both kilo. */
static int prefix_exp(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 1;
	case 'M':
		return 2;
	case 'G':
		return 3;
	case 'T':
		return 4;
	}
	return 0;
}

/*
 * Multiplier of a size suffix. Lower-case "m" (milli) and "b" (bits, as in
 * "Mb") are refused: taking them as mega or bytes would silently be off by
 * a factor of a million or eight.
 */
static int parse_suffix(const char *p, uint64_t base, uint64_t *mult)
{
	int exp;

	*mult = 1;
	if (!strcmp(p, "") || !strcmp(p, "B"))
		return 0;

	exp = prefix_exp(*p++);
	if (!exp)
		return -EINVAL;
	if (*p == 'i') {
		base = 1024;
		p++;
	}
	if (*p == 'B')
		p++;
	if (*p)
		return -EINVAL;

	while (exp--)
		*mult *= base;
	return 0;
}

/*
 * Exact value of 0.<digits> * mult, without floating point. Walking the
 * digits from the last one, carry = (digit * mult + carry) / 10 ends as the
 * wanted product; once a division leaves a remainder the product cannot be
 * whole any more, which we reject rather than round. carry stays below mult,
 * so 9 * mult + carry cannot overflow for mult <= 1024^4.
 */
static int scale_fraction(const char *start, const char *end, uint64_t mult,
			  uint64_t *out)
{
	uint64_t carry = 0, v;

	while (end > start) {
		end--;
		v = (uint64_t)(*end - '0') * mult + carry;
		if (v % 10)
			return -EINVAL;
		carry = v / 10;
	}
	*out = carry;
	return 0;
}

/* parse_size() with K, M, G and T powers of @base unless followed by 'i'. */
static int parse_size_base(const char *s, uint64_t base, uint64_t *out)
{
	const char *p = s, *frac = NULL, *frac_end = NULL;
	uint64_t val = 0, mult, part = 0;
	bool overflow = false;
	int err;

	/* No sign, no blanks: "-1" must never wrap to a huge limit. */
	if (!s || !is_digit(*p))
		return -EINVAL;

	/* Keep scanning after an overflow so garbage still wins as -EINVAL. */
	for (; is_digit(*p); p++) {
		unsigned int d = *p - '0';

		if (val > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			val = val * 10 + d;
	}

	if (*p == '.') {
		frac = ++p;
		while (is_digit(*p))
			p++;
		frac_end = p;
		if (frac == frac_end)
			return -EINVAL;
	}

	err = parse_suffix(p, base, &mult);
	if (err)
		return err;

	if (overflow || val > UINT64_MAX / mult)
		return -ERANGE;
	val *= mult;

	if (frac) {
		err = scale_fraction(frac, frac_end, mult, &part);
		if (err)
			return err;
		if (part > UINT64_MAX - val)
			return -ERANGE;
		val += part;
	}

	*out = val;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	return parse_size_base(s, 1000, out);
}

int parse_chunk(const char *s, uint64_t *out)
{
	return parse_size_base(s, 1024, out);
}

int parse_count(const char *s, uint64_t *out)
{
	/* "4KiB" I/Os per second is a mistake, not a count. */
	if (s && (strchr(s, 'B') || strchr(s, 'i')))
		return -EINVAL;
	return parse_size(s, out);
}

/*
 * Length of the well-formed UTF-8 sequence starting at @s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0. Reading
 * ahead is safe because the terminating NUL is never a continuation byte.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;

	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;

	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The code point of a valid two- or three-byte sequence that JSON allows
 * raw but a consumer may not take as text: C1 controls (U+0080..U+009F,
 * U+009B is CSI to some terminals; U+0085 ends a line to Unicode-aware
 * splitters) and U+2028/U+2029, which end a line for the same splitters
 * (Python's str.splitlines()) and a string for pre-ES2019 JavaScript.
 * Returns 0 for everything else.
 */
static unsigned int json_unsafe(const unsigned char *s, size_t len)
{
	if (len == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
		return s[1];
	if (len == 3 && s[0] == 0xe2 && s[1] == 0x80 &&
	    (s[2] == 0xa8 || s[2] == 0xa9))
		return 0x2000 | (s[2] - 0x80);
	return 0;
}

size_t json_escape(char *dst, size_t size, const char *src)
{
	struct sbuf sb = { .buf = dst, .size = size };
	const unsigned char *s = (const unsigned char *)src;
	unsigned int cp;
	size_t n;

	while (*s) {
		if (*s == '"' || *s == '\\') {
			sb_putc(&sb, '\\');
			sb_putc(&sb, *s++);
		} else if (*s < 0x20 || *s == 0x7f) {
			/* DEL is legal JSON, but escaping it keeps output tty-safe. */
			sb_put_hex(&sb, "\\u00", *s++);
		} else if (*s < 0x80) {
			sb_putc(&sb, *s++);
		} else if ((n = utf8_len(s)) && (cp = json_unsafe(s, n))) {
			sb_put_hex(&sb, "\\u", cp >> 8);
			sb_put_hex(&sb, "", cp & 0xff);
			s += n;
		} else if (n) {
			while (n--)
				sb_putc(&sb, *s++);
		} else {
			/* Invalid UTF-8 would make the whole document invalid. */
			sb_puts(&sb, "\\ufffd");
			s++;
		}
	}
	return sb_finish(&sb);
}

size_t text_escape(char *dst, size_t size, const char *src)
{
	struct sbuf sb = { .buf = dst, .size = size };
	const unsigned char *s = (const unsigned char *)src;

	for (; *s; s++) {
		if (is_print(*s))
			sb_putc(&sb, *s);
		else
			sb_put_hex(&sb, "\\x", *s);
	}
	return sb_finish(&sb);
}

size_t fmt_u64(char *dst, size_t size, uint64_t v)
{
	struct sbuf sb = { .buf = dst, .size = size };
	char digits[20];	/* UINT64_MAX has 20 digits */
	int n = 0;

	do {
		digits[n++] = '0' + v % 10;
		v /= 10;
	} while (v);

	while (n)
		sb_putc(&sb, digits[--n]);
	return sb_finish(&sb);
}

/* Tenths of @v / @unit, rounded half up; never overflows for unit <= 10^18. */
static uint64_t tenths(uint64_t v, uint64_t unit)
{
	return v / unit * 10 + (v % unit * 10 + unit / 2) / unit;
}

size_t fmt_human(char *dst, size_t size, uint64_t v)
{
	static const char suffix[] = "KMGTPE";
	struct sbuf sb = { .buf = dst, .size = size };
	uint64_t unit = 1, t;
	char num[24];
	int i = -1;

	/* Largest unit not above v; UINT64_MAX is about 18.4E. */
	while (i < (int)sizeof(suffix) - 2 && v / unit >= 1000) {
		unit *= 1000;
		i++;
	}
	if (i < 0) {
		fmt_u64(num, sizeof(num), v);
		sb_puts(&sb, num);
		return sb_finish(&sb);
	}

	t = tenths(v, unit);
	/* 999.95K rounds to 1000.0K: say 1.0M instead. */
	if (t >= 10000 && i < (int)sizeof(suffix) - 2) {
		unit *= 1000;
		i++;
		t = tenths(v, unit);
	}

	if (v % unit == 0) {
		fmt_u64(num, sizeof(num), v / unit);
		sb_puts(&sb, num);
	} else {
		fmt_u64(num, sizeof(num), t / 10);
		sb_puts(&sb, num);
		sb_putc(&sb, '.');
		sb_putc(&sb, '0' + t % 10);
	}
	sb_putc(&sb, suffix[i]);
	return sb_finish(&sb);
}

size_t fmt_binary(char *dst, size_t size, uint64_t v)
{
	static const char suffix[] = "KMGTPE";
	struct sbuf sb = { .buf = dst, .size = size };
	char num[24];
	int i = -1;

	while (i < (int)sizeof(suffix) - 2 && v && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	fmt_u64(num, sizeof(num), v);
	sb_puts(&sb, num);
	if (i >= 0) {
		sb_putc(&sb, suffix[i]);
		sb_putc(&sb, 'i');
	}
	return sb_finish(&sb);
}

uint64_t hist_quantile_ns(const uint64_t *h, size_t n, double q)
{
	uint64_t total = 0, cum = 0;
	double target, lo, hi;
	size_t i;

	for (i = 0; i < n; i++)
		total += h[i];
	if (!total || !n)
		return 0;
	target = q * (double)total;
	for (i = 0; i < n; i++) {
		if (!h[i] || (double)(cum + h[i]) < target) {
			cum += h[i];
			continue;
		}
		lo = i ? (double)(1ULL << i) : 0;
		if (i == n - 1)
			return (uint64_t)(lo * 1000);
		hi = (double)(1ULL << (i + 1));
		return (uint64_t)((lo + (hi - lo) * (target - cum) / h[i]) * 1000);
	}
	return (uint64_t)((double)(1ULL << (n - 1)) * 1000);
}

size_t fmt_duration(char *dst, size_t size, uint64_t ns)
{
	if (ns < 1000)
		return snprintf(dst, size, "%lluns", (unsigned long long)ns);
	if (ns < 10000)
		return snprintf(dst, size, "%.1fus", ns / 1e3);
	if (ns < 1000000)
		return snprintf(dst, size, "%.0fus", ns / 1e3);
	if (ns < 1000000000)
		return snprintf(dst, size, "%.1fms", ns / 1e6);
	return snprintf(dst, size, "%.2fs", ns / 1e9);
}

int class_name_cmp(const char *a, const char *b)
{
	bool da = !strcmp(a, NVMET_QOS_DEFAULT_CLASS);
	bool db = !strcmp(b, NVMET_QOS_DEFAULT_CLASS);

	if (da != db)
		return da ? -1 : 1;
	return strcmp(a, b);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* One quoted part of a word at @r (on its opening quote); NULL if unended. */
static char *copy_quoted(char *r, char **w)
{
	char q = *r++;

	while (*r != q) {
		if (!*r)
			return NULL;
		if (q == '"' && *r == '\\' && (r[1] == '"' || r[1] == '\\'))
			r++;
		*(*w)++ = *r++;
	}
	return r + 1;
}

int split_words(char *line, char **words, size_t max)
{
	char *r = line, *w = line;
	size_t n = 0;

	for (;;) {
		while (is_blank(*r))
			r++;
		if (!*r || *r == '#')
			return (int)n;
		if (n == max)
			return -E2BIG;
		words[n++] = w;
		while (*r && !is_blank(*r)) {
			if (*r == '\'' || *r == '"') {
				r = copy_quoted(r, &w);
				if (!r)
					return -EINVAL;
			} else if (*r == '\\') {
				if (!r[1] || r[1] == '\n' || r[1] == '\r')
					return -EINVAL;
				*w++ = r[1];
				r += 2;
			} else {
				*w++ = *r++;
			}
		}
		/* w never passes r, so the word can end where r was. */
		if (*r)
			r++;
		*w++ = '\0';
	}
}
