// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of parse.c, printed as KTAP; exits 1 if any test fails.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "nvmet_qos.h"
#include "parse.h"
#include "table.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct size_case {
	const char *name;
	const char *in;
	int err;
	uint64_t val;
} size_cases[] = {
	{ "size_zero",			"0",		0, 0 },
	{ "size_plain",			"4096",		0, 4096 },
	{ "size_leading_zeros",		"007",		0, 7 },
	{ "size_bytes_suffix",		"512B",		0, 512 },
	{ "size_k_upper",		"1K",		0, 1000 },
	{ "size_k_lower",		"1k",		0, 1000 },
	{ "size_100M_decimal",		"100M",		0, 100000000 },
	{ "size_100MB_decimal",		"100MB",	0, 100000000 },
	{ "size_1.5G",			"1.5G",		0, 1500000000 },
	{ "size_2T",			"2T",		0, 2000000000000ULL },
	{ "size_1.001K",		"1.001K",	0, 1001 },
	{ "size_trailing_frac_zeros",	"1.500000000000000000000G", 0, 1500000000 },
	{ "size_Ki",			"1Ki",		0, 1024 },
	{ "size_KiB",			"1KiB",		0, 1024 },
	{ "size_1.5Gi",			"1.5Gi",	0, 1610612736 },
	{ "size_Ti",			"1Ti",		0, 1099511627776ULL },
	{ "size_half_Ki",		"0.5Ki",	0, 512 },
	{ "size_long_exact_fraction",	"0.0009765625Mi", 0, 1024 },
	{ "size_2^-40_Ti",		"0.0000000000009094947017729282379150390625Ti", 0, 1 },
	{ "size_u64_max",		"18446744073709551615", 0, UINT64_MAX },
	{ "size_u64_max_with_fraction",	"18446744073.709551615G", 0, UINT64_MAX },
	{ "size_u64_max_plus_1",	"18446744073709551616", -ERANGE, 0 },
	{ "size_huge_digits",		"99999999999999999999999", -ERANGE, 0 },
	{ "size_mult_overflow",		"18446744073709552K", -ERANGE, 0 },
	{ "size_fraction_overflow",	"18446744073.709551616G", -ERANGE, 0 },
	{ "size_2^64_Ti",		"16777216Ti",	-ERANGE, 0 },
	{ "size_empty",			"",		-EINVAL, 0 },
	{ "size_negative",		"-1",		-EINVAL, 0 },
	{ "size_plus_sign",		"+1",		-EINVAL, 0 },
	{ "size_leading_space",		" 1",		-EINVAL, 0 },
	{ "size_trailing_space",	"1 ",		-EINVAL, 0 },
	{ "size_fractional_bytes",	"1.5",		-EINVAL, 0 },
	{ "size_fractional_bytes_K",	"1.0001K",	-EINVAL, 0 },
	{ "size_fractional_bytes_Ki",	"1.1Ki",	-EINVAL, 0 },
	{ "size_dot_no_digits",		"1.",		-EINVAL, 0 },
	{ "size_dot_first",		".5K",		-EINVAL, 0 },
	{ "size_two_dots",		"1.2.3",	-EINVAL, 0 },
	{ "size_bits",			"1Mb",		-EINVAL, 0 },
	{ "size_milli",			"1m",		-EINVAL, 0 },
	{ "size_peta",			"1P",		-EINVAL, 0 },
	{ "size_B_before_prefix",	"1BK",		-EINVAL, 0 },
	{ "size_double_suffix",		"1KK",		-EINVAL, 0 },
	{ "size_iB_without_prefix",	"1iB",		-EINVAL, 0 },
	{ "size_trailing_garbage",	"1KiBx",	-EINVAL, 0 },
	{ "size_exponent",		"1e3",		-EINVAL, 0 },
	{ "size_hex",			"0x10",		-EINVAL, 0 },
	{ "size_letters",		"abc",		-EINVAL, 0 },
	{ "size_garbage_beats_overflow", "99999999999999999999999x", -EINVAL, 0 },
};

static void test_parse_size(void)
{
	const uint64_t canary = 0x5a5a5a5a5a5a5a5aULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(size_cases); i++) {
		const struct size_case *c = &size_cases[i];
		uint64_t v = canary;
		int err = parse_size(c->in, &v);
		bool ok = err == c->err && v == (err ? canary : c->val);

		if (!ok)
			printf("# parse_size(\"%s\") = %d, %" PRIu64
			       "; want %d, %" PRIu64 "\n",
			       c->in, err, v, c->err, c->val);
		report(ok, c->name);
	}
	report(parse_size(NULL, NULL) == -EINVAL, "size_null");
}

static void test_nqn(void)
{
	char nqn[NVMET_QOS_NQN_MAX_LEN + 2], why[128];

	memset(nqn, 'a', NVMET_QOS_NQN_MAX_LEN);
	nqn[NVMET_QOS_NQN_MAX_LEN] = '\0';
	report(nqn_validate(nqn, why, sizeof(why)) == 0, "nqn_222_bytes_ok");

	nqn[NVMET_QOS_NQN_MAX_LEN] = 'a';
	nqn[NVMET_QOS_NQN_MAX_LEN + 1] = '\0';
	report(nqn_validate(nqn, why, sizeof(why)) == -EINVAL &&
	       !strcmp(why, "host NQN is 223 bytes long, the maximum is 222"),
	       "nqn_223_bytes_rejected");

	report(nqn_validate("nqn.2014-08.org.nvmexpress:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
			    NULL, 0) == 0, "nqn_uuid_ok");
	report(nqn_validate("nqn.2024-01.io.example:host one", NULL, 0) == 0,
	       "nqn_space_ok");
	report(nqn_validate("", why, sizeof(why)) == -EINVAL &&
	       !strcmp(why, "host NQN is empty"), "nqn_empty_rejected");
	report(nqn_validate(NULL, NULL, 0) == -EINVAL, "nqn_null_rejected");
	report(nqn_validate("nqn.x\n", why, sizeof(why)) == -EINVAL &&
	       !strcmp(why, "host NQN has a non-printable byte 0x0a at offset 5"),
	       "nqn_newline_rejected");
	report(nqn_validate("nqn.\x7f", NULL, 0) == -EINVAL, "nqn_del_rejected");
	report(nqn_validate("nqn.\xc3\xa9", NULL, 0) == -EINVAL,
	       "nqn_non_ascii_rejected");
}

static const struct esc_case {
	const char *name;
	const char *in;
	const char *out;
} json_cases[] = {
	{ "json_plain",		"nqn.2014-08.org.nvmexpress:uuid:1", "nqn.2014-08.org.nvmexpress:uuid:1" },
	{ "json_empty",		"",		"" },
	{ "json_quote",		"a\"b",		"a\\\"b" },
	{ "json_backslash",	"a\\b",		"a\\\\b" },
	{ "json_slash_kept",	"a/b",		"a/b" },
	{ "json_newline",	"a\nb",		"a\\u000ab" },
	{ "json_tab",		"\t",		"\\u0009" },
	{ "json_ctrl_01",	"\x01",		"\\u0001" },
	{ "json_ctrl_1f",	"\x1f",		"\\u001f" },
	{ "json_del",		"\x7f",		"\\u007f" },
	{ "json_utf8_2byte",	"caf\xc3\xa9",	"caf\xc3\xa9" },
	{ "json_utf8_4byte",	"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
	{ "json_c1_first",	"\xc2\x80",	"\\u0080" },
	{ "json_c1_nel",	"a\xc2\x85" "b", "a\\u0085b" },
	{ "json_c1_csi",	"\xc2\x9b",	"\\u009b" },
	{ "json_after_c1_kept",	"\xc2\xa0",	"\xc2\xa0" },
	{ "json_line_sep",	"a\xe2\x80\xa8" "b", "a\\u2028b" },
	{ "json_para_sep",	"\xe2\x80\xa9", "\\u2029" },
	{ "json_before_sep_kept", "\xe2\x80\xa7", "\xe2\x80\xa7" },
	{ "json_after_sep_kept", "\xe2\x80\xaa", "\xe2\x80\xaa" },
	{ "json_invalid_byte",	"a\xffz",	"a\\ufffdz" },
	{ "json_truncated_utf8", "a\xc3",	"a\\ufffd" },
	{ "json_overlong",	"\xc0\xaf",	"\\ufffd\\ufffd" },
	{ "json_surrogate",	"\xed\xa0\x80",	"\\ufffd\\ufffd\\ufffd" },
	{ "json_above_10ffff",	"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" },
}, text_cases[] = {
	{ "text_plain",		"nqn.a:b",	"nqn.a:b" },
	{ "text_backslash_kept", "a\\b",	"a\\b" },
	{ "text_escape_ctrl",	"a\x1b[2Jb",	"a\\x1b[2Jb" },
	{ "text_escape_high",	"\xc3\xa9",	"\\xc3\\xa9" },
};

static void test_escape(const struct esc_case *cases, size_t n,
			size_t (*fn)(char *, size_t, const char *))
{
	char buf[256];
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = fn(buf, sizeof(buf), cases[i].in);
		report(len == strlen(cases[i].out) &&
		       !strcmp(buf, cases[i].out), cases[i].name);
	}
}

/* snprintf() semantics: full length returned, output cut and terminated. */
static void test_truncation(void)
{
	char buf[8];

	memset(buf, 'X', sizeof(buf));
	report(json_escape(buf, 5, "a\nb") == 8 && !strcmp(buf, "a\\u0") &&
	       buf[5] == 'X', "json_truncated_output");
	report(json_escape(NULL, 0, "\"\"") == 4, "json_measure_only");
	report(text_escape(buf, 1, "abc") == 3 && buf[0] == '\0',
	       "text_size_one");
}

static void test_fmt_u64(void)
{
	char buf[32];

	report(fmt_u64(buf, sizeof(buf), 0) == 1 && !strcmp(buf, "0"),
	       "fmt_u64_zero");
	report(fmt_u64(buf, sizeof(buf), 1000000) == 7 &&
	       !strcmp(buf, "1000000"), "fmt_u64_million");
	report(fmt_u64(buf, sizeof(buf), UINT64_MAX) == 20 &&
	       !strcmp(buf, "18446744073709551615"), "fmt_u64_max");
	report(fmt_u64(buf, 3, 12345) == 5 && !strcmp(buf, "12"),
	       "fmt_u64_truncated");
	report(fmt_u64(NULL, 0, 9999999999ULL) == 10, "fmt_u64_measure_only");
}

static const struct class_case {
	const char *name;
	const char *in;
	const char *why;	/* NULL: valid */
} class_cases[] = {
	{ "class_default",	"default",	NULL },
	{ "class_all_chars",	"Gold_tier-2.a", NULL },
	{ "class_one_char",	"x",		NULL },
	{ "class_digits_only",	"42",		NULL },
	{ "class_leading_dash",	"-x",		NULL },
	{ "class_31_chars",	"abcdefghijklmnopqrstuvwxyz01234", NULL },
	{ "class_32_chars",	"abcdefghijklmnopqrstuvwxyz012345",
	  "class name is 32 characters long, the maximum is 31" },
	{ "class_empty",	"",		"class name is empty" },
	{ "class_space",	"gold tier",
	  "class name has an invalid character ' ' at offset 4 (allowed: A-Z a-z 0-9 _ . -)" },
	{ "class_slash",	"a/b",
	  "class name has an invalid character '/' at offset 1 (allowed: A-Z a-z 0-9 _ . -)" },
	{ "class_newline",	"gold\n",
	  "class name has an invalid byte 0x0a at offset 4 (allowed: A-Z a-z 0-9 _ . -)" },
	{ "class_utf8",		"caf\xc3\xa9",
	  "class name has an invalid byte 0xc3 at offset 3 (allowed: A-Z a-z 0-9 _ . -)" },
	{ "class_long_and_bad",	"abcdefghijklmnopqrstuvwxyz012345!",
	  "class name has an invalid character '!' at offset 32 (allowed: A-Z a-z 0-9 _ . -)" },
};

static void test_class_name(void)
{
	char why[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(class_cases); i++) {
		const struct class_case *c = &class_cases[i];
		int err = class_name_validate(c->in, why, sizeof(why));
		bool ok = c->why ? err == -EINVAL && !strcmp(why, c->why) :
				   err == 0;

		if (!ok)
			printf("# class_name_validate(\"%s\") = %d, \"%s\"\n",
			       c->in, err, err ? why : "");
		report(ok, c->name);
	}
	report(class_name_validate(NULL, NULL, 0) == -EINVAL, "class_null");
}

static const struct uint_case {
	const char *name;
	const char *in;
	int err;
	uint64_t val;
} uint_cases[] = {
	{ "uint_min",		"1",		0, 1 },
	{ "uint_max",		"1000",		0, 1000 },
	{ "uint_leading_zero",	"0100",		0, 100 },
	{ "uint_zero",		"0",		-ERANGE, 0 },
	{ "uint_above",		"1001",		-ERANGE, 0 },
	{ "uint_overflow",	"18446744073709551616", -ERANGE, 0 },
	{ "uint_negative",	"-1",		-EINVAL, 0 },
	{ "uint_plus",		"+1",		-EINVAL, 0 },
	{ "uint_suffix",	"1K",		-EINVAL, 0 },
	{ "uint_fraction",	"1.0",		-EINVAL, 0 },
	{ "uint_space",		"1 ",		-EINVAL, 0 },
	{ "uint_empty",		"",		-EINVAL, 0 },
};

static void test_parse_uint(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uint_cases); i++) {
		const struct uint_case *c = &uint_cases[i];
		uint64_t v = 7;
		int err = parse_uint(c->in, 1, 1000, &v);

		report(err == c->err && v == (err ? 7 : c->val), c->name);
	}
	report(parse_uint(NULL, 0, 1, NULL) == -EINVAL, "uint_null");
}

static const struct {
	const char *name, *in;
	int err;
	uint32_t val;
} devnum_cases[] = {
	{ "devnum_sda",		"8:0",		0, 8U << 20 },
	{ "devnum_nvme",	"259:3",	0, 259U << 20 | 3 },
	{ "devnum_max",		"4095:1048575",	0, 0xffffffffU },
	{ "devnum_major_big",	"4096:0",	-ERANGE, 0 },
	{ "devnum_minor_big",	"8:1048576",	-ERANGE, 0 },
	{ "devnum_overflow",	"8:18446744073709551616", -ERANGE, 0 },
	{ "devnum_no_colon",	"8",		-EINVAL, 0 },
	{ "devnum_no_minor",	"8:",		-EINVAL, 0 },
	{ "devnum_no_major",	":0",		-EINVAL, 0 },
	{ "devnum_two_colons",	"8:0:1",	-EINVAL, 0 },
	{ "devnum_name",	"sda",		-EINVAL, 0 },
	{ "devnum_negative",	"-8:0",		-EINVAL, 0 },
	{ "devnum_long_major",	"00000000000000008:0", -EINVAL, 0 },
};

static void test_parse_devnum(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(devnum_cases); i++) {
		uint32_t v = 7;
		int err = parse_devnum(devnum_cases[i].in, &v);

		report(err == devnum_cases[i].err &&
		       v == (err ? 7 : devnum_cases[i].val), devnum_cases[i].name);
	}
	report(parse_devnum(NULL, NULL) == -EINVAL, "devnum_null");
}

static void test_hist(void)
{
	uint64_t h[24] = { 0 };
	char buf[16];

	report(hist_quantile_ns(h, 24, 0.99) == 0, "hist_empty");
	h[10] = 100;			/* 100 requests in [1024, 2048) us */
	report(hist_quantile_ns(h, 24, 0.5) == 1536000, "hist_mid_bucket");
	report(hist_quantile_ns(h, 24, 1.0) == 2048000, "hist_top_of_bucket");
	h[0] = 100;			/* and 100 under 2 us */
	report(hist_quantile_ns(h, 24, 0.25) == 1000, "hist_bucket_zero");
	report(hist_quantile_ns(h, 24, 0.75) == 1536000, "hist_second_bucket");
	h[23] = 200;			/* half of all in the open-ended bucket */
	report(hist_quantile_ns(h, 24, 0.99) == (1ULL << 23) * 1000, "hist_open_bucket");
	fmt_duration(buf, sizeof(buf), 850);
	report(!strcmp(buf, "850ns"), "duration_ns");
	fmt_duration(buf, sizeof(buf), 4200);
	report(!strcmp(buf, "4.2us"), "duration_us_fraction");
	fmt_duration(buf, sizeof(buf), 512000);
	report(!strcmp(buf, "512us"), "duration_us");
	fmt_duration(buf, sizeof(buf), 1536000);
	report(!strcmp(buf, "1.5ms"), "duration_ms");
	fmt_duration(buf, sizeof(buf), 2250000000ULL);
	report(!strcmp(buf, "2.25s"), "duration_s");
}

static const struct size_case count_cases[] = {
	{ "count_plain",	"5000",		0, 5000 },
	{ "count_K",		"20K",		0, 20000 },
	{ "count_1.5M",		"1.5M",		0, 1500000 },
	{ "count_zero",		"0",		0, 0 },
	{ "count_Ki",		"4Ki",		-EINVAL, 0 },
	{ "count_B",		"4KB",		-EINVAL, 0 },
	{ "count_plain_B",	"4B",		-EINVAL, 0 },
	{ "count_negative",	"-5",		-EINVAL, 0 },
	{ "count_overflow",	"18446744073709552K", -ERANGE, 0 },
};

/* Chunks: every prefix a power of 1024, as md writes them. */
static const struct size_case chunk_cases[] = {
	{ "chunk_plain",	"4096",		0, 4096 },
	{ "chunk_k",		"64k",		0, 65536 },
	{ "chunk_K",		"512K",		0, 524288 },
	{ "chunk_KB",		"512KB",	0, 524288 },
	{ "chunk_Ki",		"32Ki",		0, 32768 },
	{ "chunk_KiB",		"32KiB",	0, 32768 },
	{ "chunk_M",		"1M",		0, 1048576 },
	{ "chunk_half_K",	"0.5K",		0, 512 },
	{ "chunk_G",		"1G",		0, 1073741824 },
	{ "chunk_fraction_bytes", "1.1K",	-EINVAL, 0 },
	{ "chunk_bits",		"64kb",		-EINVAL, 0 },
	{ "chunk_garbage",	"64x",		-EINVAL, 0 },
	{ "chunk_empty",	"",		-EINVAL, 0 },
	{ "chunk_overflow",	"16777216T",	-ERANGE, 0 },
};

/* @cases through @parse, which must leave its output alone on error. */
static void test_size_cases(const struct size_case *cases, size_t n,
			    int (*parse)(const char *s, uint64_t *out))
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct size_case *c = &cases[i];
		uint64_t v = 7;
		int err = parse(c->in, &v);

		report(err == c->err && v == (err ? 7 : c->val), c->name);
	}
}

static const struct human_case {
	const char *name;
	uint64_t in;
	const char *out;
} human_cases[] = {
	{ "human_zero",		0,		"0" },
	{ "human_999",		999,		"999" },
	{ "human_1K",		1000,		"1K" },
	{ "human_1.5K",		1500,		"1.5K" },
	{ "human_round_down",	1049,		"1.0K" },
	{ "human_round_up",	1050,		"1.1K" },
	{ "human_4Ki",		4096,		"4.1K" },
	{ "human_100M",		100000000,	"100M" },
	{ "human_1.5G",		1500000000,	"1.5G" },
	{ "human_999.9K",	999949,		"999.9K" },
	{ "human_carry_to_M",	999950,		"1.0M" },
	{ "human_999K_exact",	999000,		"999K" },
	{ "human_2T",		2000000000000ULL, "2T" },
	{ "human_1P",		1000000000000000ULL, "1P" },
	{ "human_1E",		1000000000000000000ULL, "1E" },
	{ "human_u64_max",	UINT64_MAX,	"18.4E" },
};

/* Exact, in the largest power of 1024 that divides it: chunks as given. */
static const struct human_case binary_cases[] = {
	{ "binary_zero",	0,		"0" },
	{ "binary_512",		512,		"512" },
	{ "binary_1536",	1536,		"1536" },
	{ "binary_64Ki",	65536,		"64Ki" },
	{ "binary_1Mi",		1048576,	"1Mi" },
	{ "binary_1.5Mi_as_Ki",	1572864,	"1536Ki" },
	{ "binary_1Gi",		1073741824,	"1Gi" },
	{ "binary_2^60",	1ULL << 60,	"1Ei" },
	{ "binary_2^63",	1ULL << 63,	"8Ei" },
};

static void test_fmt_cases(const struct human_case *cases, size_t n,
			   size_t (*fmt)(char *dst, size_t size, uint64_t v),
			   const char *fn)
{
	char buf[32];
	size_t i, len;

	for (i = 0; i < n; i++) {
		const struct human_case *c = &cases[i];
		bool ok;

		len = fmt(buf, sizeof(buf), c->in);
		ok = len == strlen(c->out) && !strcmp(buf, c->out);
		if (!ok)
			printf("# %s(%" PRIu64 ") = \"%s\"; want \"%s\"\n",
			       fn, c->in, buf, c->out);
		report(ok, c->name);
	}
}

static void test_fmt_human(void)
{
	char buf[32];

	test_fmt_cases(human_cases, ARRAY_SIZE(human_cases), fmt_human,
		       "fmt_human");
	report(fmt_human(buf, 3, 1500) == 4 && !strcmp(buf, "1."),
	       "human_truncated");
	report(fmt_human(NULL, 0, UINT64_MAX) == 5, "human_measure_only");
}

/* Render @t into a string; NULL if that failed. */
static char *table_string(const struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = table_print(t, f);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_table(void)
{
	struct table t;
	char *out;

	table_init(&t, "lrl");
	table_add(&t, "NAME");
	table_add(&t, "MAX");
	table_add(&t, "LAT");
	table_add(&t, "gold\x1b");
	table_add_val(&t, VAL_LIMIT, 1500000000, true);
	table_add_val(&t, VAL_BOOL, 1, true);
	table_add(&t, "x");
	table_add_val(&t, VAL_LIMIT, 0, true);
	table_add_val(&t, VAL_PLAIN, 5, false);
	out = table_string(&t);
	report(out && !strcmp(out, "NAME       MAX  LAT\n"
				   "gold\\x1b  1.5G  yes\n"
				   "x            -  -\n"), "table_layout");
	free(out);

	/* A row left incomplete is a bug, not a table. */
	table_add(&t, "y");
	out = table_string(&t);
	report(!out, "table_incomplete_row");
	free(out);
	table_free(&t);

	table_init(&t, "r");
	table_add_val(&t, VAL_PERCENT, 200, true);
	table_add_val(&t, VAL_HUMAN, 0, true);
	out = table_string(&t);
	report(out && !strcmp(out, "200%\n   0\n"), "table_percent_human");
	free(out);
	table_free(&t);
}

static void test_json_val(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f) {
		json_print_val(f, "a", VAL_LIMIT, 0, true);
		json_print_val(f, "b", VAL_BOOL, 1, true);
		json_print_val(f, "c", VAL_HUMAN, UINT64_MAX, true);
		json_print_val(f, "d", VAL_PLAIN, 3, false);
		fclose(f);
	}
	report(buf && !strcmp(buf, ",\"a\":0,\"b\":true,\"c\":18446744073709551615,\"d\":null"),
	       "json_raw_values");
	free(buf);
}

static const struct split_case {
	const char *name;
	const char *in;
	int ret;
	const char *want;	/* the words joined by '|' */
} split_cases[] = {
	{ "split_empty",		"",				0, "" },
	{ "split_blank",		" \t\r\n",			0, "" },
	{ "split_comment",		"  # class del gold\n",	0, "" },
	{ "split_words",		"class add gold --share 30\n",	5, "class|add|gold|--share|30" },
	{ "split_tabs_crlf",		"host\tlist\r\n",		2, "host|list" },
	{ "split_trailing_comment",	"class del a # old\n",		3, "class|del|a" },
	{ "split_hash_inside_word",	"class del a#b\n",		3, "class|del|a#b" },
	{ "split_single_quotes",	"host show 'nqn.x:host one'",	3, "host|show|nqn.x:host one" },
	{ "split_double_quotes",	"a \"b \\\" \\\\ c\"",		2, "a|b \" \\ c" },
	{ "split_double_keeps_others",	"\"a\\nb\"",			1, "a\\nb" },
	{ "split_single_no_escapes",	"'a\\'",			1, "a\\" },
	{ "split_glued_parts",		"a'b c'\"d\"e",			1, "ab cde" },
	{ "split_empty_quotes",		"x '' \"\"",			3, "x||" },
	{ "split_backslash",		"a\\ b c",			2, "a b|c" },
	{ "split_unended_single",	"host show 'nqn",		-EINVAL, NULL },
	{ "split_unended_double",	"host show \"nqn\\\"",		-EINVAL, NULL },
	{ "split_trailing_backslash",	"host list \\",		-EINVAL, NULL },
	{ "split_backslash_newline",	"host list \\\n",		-EINVAL, NULL },
	{ "split_at_max",		"1 2 3 4 5 6",			6, "1|2|3|4|5|6" },
	{ "split_over_max",		"1 2 3 4 5 6 7",			-E2BIG, NULL },
};

static void test_split_words(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(split_cases); i++) {
		const struct split_case *c = &split_cases[i];
		char line[64], got[64] = "", *words[6];
		int j, n;

		snprintf(line, sizeof(line), "%s", c->in);
		n = split_words(line, words, ARRAY_SIZE(words));
		for (j = 0; j < n; j++) {
			if (j)
				strcat(got, "|");
			strcat(got, words[j]);
		}
		if (n != c->ret || (n >= 0 && strcmp(got, c->want)))
			printf("# %s: %d words \"%s\"\n", c->name, n, got);
		report(n == c->ret && (n < 0 || !strcmp(got, c->want)), c->name);
	}
}

int main(void)
{
	int total = ARRAY_SIZE(size_cases) + 1 + 9 + ARRAY_SIZE(json_cases) +
		    ARRAY_SIZE(text_cases) + 3 + 5 +
		    ARRAY_SIZE(class_cases) + 1 + ARRAY_SIZE(uint_cases) + 1 +
		    ARRAY_SIZE(devnum_cases) + 1 + 11 +
		    ARRAY_SIZE(count_cases) + ARRAY_SIZE(human_cases) + 2 +
		    3 + 1 + ARRAY_SIZE(split_cases) +
		    ARRAY_SIZE(chunk_cases) + ARRAY_SIZE(binary_cases);

	ktap_plan(total);
	test_parse_size();
	test_nqn();
	test_escape(json_cases, ARRAY_SIZE(json_cases), json_escape);
	test_escape(text_cases, ARRAY_SIZE(text_cases), text_escape);
	test_truncation();
	test_fmt_u64();
	test_class_name();
	test_parse_uint();
	test_parse_devnum();
	test_hist();
	test_size_cases(count_cases, ARRAY_SIZE(count_cases), parse_count);
	test_size_cases(chunk_cases, ARRAY_SIZE(chunk_cases), parse_chunk);
	test_fmt_human();
	test_fmt_cases(binary_cases, ARRAY_SIZE(binary_cases), fmt_binary,
		       "fmt_binary");
	test_table();
	test_json_val();
	test_split_words();

	return ktap_finish(total);
}
