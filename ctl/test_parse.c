// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of parse.c, printed as KTAP; exits 1 if any test fails.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nvmet_qos.h"
#include "parse.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int test_no;
static int failures;

static void report(bool ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++test_no, name);
	if (!ok)
		failures++;
}

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

int main(void)
{
	int total = ARRAY_SIZE(size_cases) + 1 + 9 + ARRAY_SIZE(json_cases) +
		    ARRAY_SIZE(text_cases) + 3 + 5;

	printf("KTAP version 1\n1..%d\n", total);
	test_parse_size();
	test_nqn();
	test_escape(json_cases, ARRAY_SIZE(json_cases), json_escape);
	test_escape(text_cases, ARRAY_SIZE(text_cases), text_escape);
	test_truncation();
	test_fmt_u64();

	if (test_no != total) {
		printf("# planned %d tests but ran %d\n", total, test_no);
		return 1;
	}
	printf("# %d of %d tests passed\n", total - failures, total);
	return failures ? 1 : 0;
}
