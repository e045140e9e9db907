// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of json.c and policy.c: the reader, the checks of a policy
 * file with the line and field they name, and the save format's round
 * trip. Printed as KTAP; exits 1 if any test fails.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "ktap.h"
#include "parse.h"
#include "policy.h"

/* JSON the reader refuses, and the start of its message (LINE:COLUMN). */
static const struct { const char *name, *in, *err; } bad_json[] = {
	{ "json_empty",		"",			"1:1: expected a value, got the end" },
	{ "json_trailing_comma", "[1,]",		"1:4: expected a value, got ']'" },
	{ "json_unclosed_string", "\"abc",		"1:5: string not closed" },
	{ "json_control_char",	"\"a\tb\"",		"1:3: control character 0x09" },
	{ "json_bad_escape",	"\"\\x\"",		"1:3: expected an escape" },
	{ "json_short_unicode",	"\"\\u12\"",		"1:6: \\u needs four hex digits" },
	{ "json_lone_low_surrogate", "\"\\udc00\"",	"1:8: unpaired low surrogate" },
	{ "json_lone_high_surrogate", "\"\\ud800x\"",	"1:8: high surrogate \\ud800 without" },
	{ "json_nul_escape",	"\"\\u0000\"",		"1:8: \\u0000 is not allowed" },
	{ "json_leading_zero",	"01",			"1:1: malformed number" },
	{ "json_bare_minus",	"-",			"1:1: malformed number" },
	{ "json_bad_fraction",	"1.",			"1:1: malformed number" },
	{ "json_bad_word",	"nul",			"1:1: expected a value, got 'n'" },
	{ "json_two_values",	"1 2",			"1:3: expected the end of the file" },
	{ "json_unquoted_key",	"{a:1}",		"1:2: expected a member name" },
	{ "json_missing_colon",	"{\"a\" 1}",		"1:6: expected ':'" },
	{ "json_missing_comma",	"{\"a\":1\n \"b\":2}",	"2:2: expected ',' or '}'" },
	{ "json_unclosed_array", "[1,\n2",		"2:2: expected ',' or ']', got the end" },
	{ "json_binary",	"\x01",			"1:1: expected a value, got byte 0x01" },
	{ "json_too_deep",
	  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	  "1:33: nested deeper than 32 levels" },
};

static void test_bad_json(void)
{
	char err[200];
	struct json *j;
	size_t i;

	for (i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++) {
		err[0] = '\0';
		j = json_parse(bad_json[i].in, err, sizeof(err));
		report(!j && !strncmp(err, bad_json[i].err,
				      strlen(bad_json[i].err)),
		       bad_json[i].name);
		if (j || strncmp(err, bad_json[i].err, strlen(bad_json[i].err)))
			printf("# got \"%s\"\n", err);
		json_free(j);
	}
}

static void test_json_values(void)
{
	const char *in = "{\n \"s\": \"\\u00e9\\ud83d\\ude00\\n\\/\",\n"
			 " \"a\": [true, false, null, -1.5e3],\n \"o\": {}\n}";
	char err[200] = "";
	struct json *j = json_parse(in, err, sizeof(err));
	bool ok;

	ok = j && j->type == JSON_OBJECT && j->n == 3 && j->line == 1;
	report(ok, "json_object_members");
	ok = ok && !strcmp(j->items[0].key, "s") && j->items[0].line == 2 &&
	     !strcmp(j->items[0].text, "\xc3\xa9\xf0\x9f\x98\x80\n/");
	report(ok, "json_string_escapes_to_utf8");
	ok = ok && j->items[1].type == JSON_ARRAY && j->items[1].n == 4 &&
	     j->items[1].items[0].boolean && !j->items[1].items[1].boolean &&
	     j->items[1].items[2].type == JSON_NULL &&
	     !strcmp(j->items[1].items[3].text, "-1.5e3") &&
	     j->items[1].items[3].line == 3;
	report(ok, "json_array_values_and_lines");
	ok = ok && j->items[2].type == JSON_OBJECT && !j->items[2].n &&
	     j->items[2].line == 4;
	report(ok, "json_empty_object");
	json_free(j);
}

/*
 * What the tool writes, its reader takes back byte for byte: the strings
 * json_escape() escapes beyond JSON's minimum (DEL, C1 controls, U+2028,
 * U+2029) among plain UTF-8 and the escapes JSON requires.
 */
static void test_escape_round_trip(void)
{
	static const char *const in[] = {
		"nqn.2014-08.org.nvmexpress:uuid:1", "a\"b\\c\nd\te\x7f",
		"\xc2\x80\xc2\x85\xc2\x9b\xc2\x9f\xc2\xa0",
		"x\xe2\x80\xa8y\xe2\x80\xa9z", "caf\xc3\xa9 \xf0\x9f\x98\x80",
	};
	char buf[128], err[200];
	struct json *j;
	bool ok = true;
	size_t i, len;

	for (i = 0; ok && i < sizeof(in) / sizeof(in[0]); i++) {
		buf[0] = '"';
		len = json_escape(buf + 1, sizeof(buf) - 2, in[i]);
		ok = len + 3 <= sizeof(buf);
		if (ok)
			strcpy(buf + 1 + len, "\"");
		j = ok ? json_parse(buf, err, sizeof(err)) : NULL;
		ok = j && j->type == JSON_STRING && !strcmp(j->text, in[i]);
		if (!ok)
			printf("# case %zu: %s\n", i, j ? buf : err);
		json_free(j);
	}
	report(ok, "json_escape_round_trip");
}

#define GOOD \
	"{\n" \
	"  \"version\": 1,\n" \
	"  \"classes\": [\n" \
	"    { \"name\": \"training\", \"share\": 30, \"max_bps\": \"2G\",\n" \
	"      \"burst\": \"64Mi\", \"auth\": true },\n" \
	"    { \"name\": \"inference\", \"share\": 70, \"latency\": true,\n" \
	"      \"min_iops\": \"5K\", \"max_iops\": 100000 },\n" \
	"    { \"name\": \"default\", \"share\": 10 }\n" \
	"  ],\n" \
	"  \"hosts\": [\n" \
	"    { \"nqn\": \"nqn.2014-08.org.nvmexpress:uuid:b\", \"class\": \"training\" },\n" \
	"    { \"nqn\": \"nqn.2014-08.org.nvmexpress:uuid:a\", \"class\": \"inference\",\n" \
	"      \"weight\": 200 }\n" \
	"  ],\n" \
	"  \"devices\": [ { \"name\": \"nvme1n1\", \"write_cost\": 300 },\n" \
	"                 { \"name\": \"8:0\", \"capacity\": \"1.5G\" } ]\n" \
	"}\n"

/* Policy files that must be refused, and the start of the message. */
static const struct { const char *name, *in, *err; } bad_policy[] = {
	{ "policy_not_object",	"[]",			"1: : want an object, got an array" },
	{ "policy_no_version",	"{}",			"1: : missing field \"version\"" },
	{ "policy_version_2",	"{\"version\": 2}",	"1: version: this nvmet-qos reads version 1, not 2" },
	{ "policy_unknown_top",	"{\"version\": 1, \"class\": []}",
	  "1: : unknown field \"class\" (known: version, classes, hosts, devices)" },
	{ "policy_classes_not_array", "{\"version\": 1,\n\"classes\": {}}",
	  "2: classes: want an array, got an object" },
	{ "policy_class_no_name", "{\"version\": 1, \"classes\": [{}]}",
	  "1: classes[0]: missing field \"name\"" },
	{ "policy_class_bad_name", "{\"version\": 1, \"classes\": [{\"name\": \"a b\"}]}",
	  "1: classes[0].name: class name has an invalid character ' '" },
	{ "policy_class_twice",	"{\"version\": 1, \"classes\": [{\"name\": \"a\"},\n{\"share\": 1,\n\"name\": \"a\"}]}",
	  "3: classes[1].name: class \"a\" is defined twice" },
	{ "policy_default_twice", "{\"version\": 1, \"classes\": [{\"name\": \"default\"},{\"name\": \"default\"}]}",
	  "1: classes[1].name: class \"default\" is defined twice" },
	{ "policy_share_zero",	"{\"version\": 1, \"classes\": [{\"name\": \"a\",\n\"share\": 0}]}",
	  "2: classes[0].share: 0 is out of range: want 1 to 1000" },
	{ "policy_share_string", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"share\": \"30\"}]}",
	  "1: classes[0].share: want an integer, got a string" },
	{ "policy_share_fraction", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"share\": 1.5}]}",
	  "1: classes[0].share: want an integer, got 1.5" },
	{ "policy_rate_above_max", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"max_bps\": \"1025Ti\"}]}",
	  "1: classes[0].max_bps: 1025Ti is out of range: want 0 to 1125899906842624" },
	{ "policy_rate_bad_unit", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"max_bps\": \"2Gb\"}]}",
	  "1: classes[0].max_bps: want an integer or a string such as \"2G\"" },
	{ "policy_iops_binary_unit", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"max_iops\": \"4Ki\"}]}",
	  "1: classes[0].max_iops: want an integer or a string such as \"5K\"" },
	{ "policy_floor_above_ceiling", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"min_bps\": 2, \"max_bps\": 1}]}",
	  "1: classes[0].min_bps: the byte floor is above the byte ceiling" },
	{ "policy_iops_floor_above_ceiling", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"min_iops\": 2, \"max_iops\": 1}]}",
	  "1: classes[0].min_iops: the IOPS floor is above the IOPS ceiling" },
	{ "policy_burst_without_ceiling", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"burst\": 1}]}",
	  "1: classes[0].burst: a burst needs a byte ceiling" },
	{ "policy_latency_not_bool", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"latency\": 1}]}",
	  "1: classes[0].latency: want true or false, got a number" },
	{ "policy_auth_not_bool", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"auth\": \"yes\"}]}",
	  "1: classes[0].auth: want true or false, got a string" },
	{ "policy_auth_on_default", "{\"version\": 1, \"classes\": [{\"name\": \"default\", \"auth\": true}]}",
	  "1: classes[0].auth: the default class admits every controller" },
	{ "policy_field_twice", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"share\": 1, \"share\": 2}]}",
	  "1: classes[0].share: given twice" },
	{ "policy_unknown_class_field", "{\"version\": 1, \"classes\": [{\"name\": \"a\", \"shares\": 1}]}",
	  "1: classes[0]: unknown field \"shares\"" },
	{ "policy_host_no_class", "{\"version\": 1, \"hosts\": [{\"nqn\": \"nqn.x\"}]}",
	  "1: hosts[0]: missing field \"class\"" },
	{ "policy_host_unknown_class", "{\"version\": 1, \"hosts\": [{\"nqn\": \"nqn.x\",\n\"class\": \"gold\"}]}",
	  "2: hosts[0].class: no class \"gold\" in this file" },
	{ "policy_host_bad_nqn", "{\"version\": 1, \"hosts\": [{\"nqn\": \"\", \"class\": \"default\"}]}",
	  "1: hosts[0].nqn: " },
	{ "policy_host_weight_zero", "{\"version\": 1, \"hosts\": [{\"nqn\": \"nqn.x\", \"class\": \"default\", \"weight\": 0}]}",
	  "1: hosts[0].weight: 0 is out of range: want 1 to 1000" },
	{ "policy_host_twice",	"{\"version\": 1, \"hosts\": [{\"nqn\": \"nqn.x\", \"class\": \"default\"},\n{\"class\": \"default\",\n\"nqn\": \"nqn.x\"}]}",
	  "3: hosts[1].nqn: host given twice (also on line 1)" },
	{ "policy_dev_path",	"{\"version\": 1, \"devices\": [{\"name\": \"/dev/sda\"}]}",
	  "1: devices[0].name: want a block device name" },
	{ "policy_dev_write_cost", "{\"version\": 1, \"devices\": [{\"name\": \"sda\", \"write_cost\": 5}]}",
	  "1: devices[0].write_cost: 5 is out of range: want 10 to 1000" },
	{ "policy_dev_io_cost",	"{\"version\": 1, \"devices\": [{\"name\": \"sda\", \"io_cost\": \"2Mi\"}]}",
	  "1: devices[0].io_cost: 2Mi is out of range: want 0 to 1048576" },
	{ "policy_dev_small_capacity", "{\"version\": 1, \"devices\": [{\"name\": \"sda\", \"capacity\": 999999}]}",
	  "1: devices[0].capacity: below the smallest hint, 1M" },
	{ "policy_error_at_end", GOOD "x", "18:1: expected the end of the file" },
	{ "policy_stripe_members_alone", "{\"version\": 1, \"devices\": [{\"name\": \"md0\",\n\"stripe_members\": [\"a\", \"b\"]}]}",
	  "2: devices[0].stripe_members: members need a stripe_chunk" },
	{ "policy_stripe_chunk_alone", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": 512}]}",
	  "1: devices[0]: missing field \"stripe_members\"" },
	{ "policy_stripe_chunk_not_512", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": 1000, \"stripe_members\": [\"a\", \"b\"]}]}",
	  "1: devices[0].stripe_chunk: a chunk of 1000 bytes is not a multiple of 512" },
	{ "policy_stripe_chunk_above_1Gi", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": \"2Gi\", \"stripe_members\": [\"a\", \"b\"]}]}",
	  "1: devices[0].stripe_chunk: 2Gi is out of range: want 0 to 1073741824" },
	{ "policy_stripe_chunk_bits", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": \"64kb\", \"stripe_members\": [\"a\", \"b\"]}]}",
	  "1: devices[0].stripe_chunk: want an integer or a string such as \"512k\", got \"64kb\"" },
	{ "policy_stripe_zero_with_members", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": 0, \"stripe_members\": [\"a\", \"b\"]}]}",
	  "1: devices[0].stripe_members: members with stripe_chunk 0, which is no stripe" },
	{ "policy_stripe_one_member", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": \"64k\", \"stripe_members\": [\"a\"]}]}",
	  "1: devices[0].stripe_members: 1 member: a stripe has 2 to 16" },
	{ "policy_stripe_17_members", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": \"64k\", \"stripe_members\": "
	  "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\",\"n\",\"o\",\"p\",\"q\"]}]}",
	  "1: devices[0].stripe_members: 17 members: a stripe has 2 to 16" },
	{ "policy_stripe_members_not_array", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": 512, \"stripe_members\": \"a,b\"}]}",
	  "1: devices[0].stripe_members: want an array of device names, got a string" },
	{ "policy_stripe_member_number", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": 512, \"stripe_members\": [\"a\",\n5]}]}",
	  "2: devices[0].stripe_members[1]: want a string, got a number" },
	{ "policy_stripe_member_path", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe_chunk\": 512, \"stripe_members\": [\"a\", \"/dev/b\"]}]}",
	  "1: devices[0].stripe_members[1]: want a block device name" },
	{ "policy_stripe_unknown_field", "{\"version\": 1, \"devices\": [{\"name\": \"md0\", \"stripe\": \"64k:a,b\"}]}",
	  "1: devices[0]: unknown field \"stripe\" (known: name, write_cost, io_cost, capacity, stripe_chunk, stripe_members)" },
};

static void test_bad_policy(void)
{
	struct policy p = { 0 };
	char err[400];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bad_policy) / sizeof(bad_policy[0]); i++) {
		err[0] = '\0';
		ret = policy_parse(bad_policy[i].in, &p, err, sizeof(err));
		report(ret && !p.classes.n && !strncmp(err, bad_policy[i].err,
					strlen(bad_policy[i].err)),
		       bad_policy[i].name);
		if (!ret || strncmp(err, bad_policy[i].err,
				    strlen(bad_policy[i].err)))
			printf("# got \"%s\"\n", err);
		policy_free(&p);
	}
}

static char *print_string(const struct policy *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (policy_print(f, p)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* @text parsed and sorted into @p; false, saying why, if it is refused. */
static bool parse_sorted(const char *text, struct policy *p)
{
	char err[400] = "";

	if (policy_parse(text, p, err, sizeof(err))) {
		printf("# %s\n", err);
		return false;
	}
	policy_sort(p);
	return true;
}

/* What save writes once @text (NULL: none) is restored: @q, printed. */
static char *reprint(const char *text, struct policy *q)
{
	return text && parse_sorted(text, q) ? print_string(q) : NULL;
}

static void test_good_policy(void)
{
	struct policy p = { 0 }, q = { 0 };
	const struct pol_class *c;
	char err[400] = "";
	char *first = NULL, *second = NULL;
	bool ok;

	ok = parse_sorted(GOOD, &p) && p.classes.n == 3 && p.hosts.n == 2 &&
	     p.devs.n == 2;
	report(ok, "policy_good_counts");

	c = ok ? pol_class_at(&p, 0) : NULL;
	ok = ok && !strcmp(c->name, "default") && c->share == 10 &&
	     c->line == 8 && !strcmp(pol_class_at(&p, 1)->name, "inference");
	report(ok, "policy_default_first_then_by_name");
	c = ok ? pol_class_at(&p, 2) : NULL;
	ok = ok && c->max_bps == 2000000000 && c->burst == 64 << 20 &&
	     !c->min_bps && !c->latency && pol_class_at(&p, 1)->latency &&
	     pol_class_at(&p, 1)->min_iops == 5000 && c->auth &&
	     !pol_class_at(&p, 1)->auth;
	report(ok, "policy_units_and_defaults");
	ok = ok && !strcmp(pol_host_at(&p, 0)->nqn,
			   "nqn.2014-08.org.nvmexpress:uuid:a") &&
	     pol_host_at(&p, 0)->weight == 200 &&
	     pol_host_at(&p, 1)->weight == 100 &&
	     pol_host_at(&p, 1)->line == 11;
	report(ok, "policy_hosts_sorted_weight_default");
	ok = ok && !strcmp(pol_dev_at(&p, 0)->name, "8:0") &&
	     pol_dev_at(&p, 0)->capacity == 1500000000 &&
	     pol_dev_at(&p, 0)->write_cost == 200 &&
	     pol_dev_at(&p, 1)->io_cost == 4096 &&
	     pol_dev_at(&p, 1)->write_cost == 300;
	report(ok, "policy_devices_defaults");

	/* What save writes reads back to the same policy and the same bytes. */
	first = ok ? print_string(&p) : NULL;
	second = reprint(first, &q);
	report(second && !strcmp(first, second), "policy_round_trip_bytes");
	ok = second && p.classes.n == q.classes.n;
	for (size_t i = 0; ok && i < p.classes.n; i++)
		ok = pol_class_equal(pol_class_at(&p, i), pol_class_at(&q, i));
	report(ok, "policy_round_trip_values");
	free(first);
	free(second);
	policy_free(&p);
	policy_free(&q);

	ok = !policy_parse("{\"version\": 1}", &p, err, sizeof(err)) &&
	     p.classes.n == 1 && pol_class_is_default(pol_class_at(&p, 0)) &&
	     !p.hosts.n && !p.devs.n;
	report(ok, "policy_version_only_is_the_empty_policy");
	policy_free(&p);
}

/* Devices striped or not, and one that leaves its stripe alone. */
#define STRIPED \
	"{\n" \
	"  \"version\": 1,\n" \
	"  \"devices\": [\n" \
	"    { \"name\": \"md127\", \"stripe_chunk\": \"512k\",\n" \
	"      \"stripe_members\": [\"nvme2n1\", \"nvme0n1\", \"259:1\"] },\n" \
	"    { \"name\": \"md1\", \"stripe_chunk\": 0, \"stripe_members\": [] },\n" \
	"    { \"name\": \"md2\", \"io_cost\": 0 }\n" \
	"  ]\n" \
	"}\n"

static void test_stripe_policy(void)
{
	struct policy p = { 0 }, q = { 0 };
	const struct pol_dev *d;
	char *first = NULL, *second = NULL;
	bool ok;

	ok = parse_sorted(STRIPED, &p);
	/* Sorted by name: md1, md127, md2. */
	d = ok && p.devs.n == 3 ? pol_dev_at(&p, 1) : NULL;
	ok = d && !strcmp(d->name, "md127") && d->has_stripe &&
	     d->stripe.chunk == 524288 && d->nr_members == 3 &&
	     !strcmp(d->members[0], "nvme2n1") &&
	     !strcmp(d->members[2], "259:1") && !pol_dev_is_default(d);
	report(ok, "policy_stripe_members_in_order");
	ok = ok && pol_dev_at(&p, 0)->has_stripe &&
	     !pol_dev_at(&p, 0)->stripe.chunk &&
	     pol_dev_is_default(pol_dev_at(&p, 0)) &&
	     !pol_dev_at(&p, 2)->has_stripe;
	report(ok, "policy_stripe_none_and_absent");

	/* A stripe is written only where there is one. */
	first = ok ? print_string(&p) : NULL;
	report(first && strstr(first, "      \"capacity\": 0,\n"
			       "      \"stripe_chunk\": 524288,\n"
			       "      \"stripe_members\": [\"nvme2n1\", \"nvme0n1\", \"259:1\"]\n"
			       "    }") &&
	       strstr(first, "stripe") == strstr(first, "stripe_chunk\": 524288"),
	       "policy_stripe_written_for_striped_only");
	second = reprint(first, &q);
	report(second && !strcmp(first, second) &&
	       pol_dev_at(&q, 1)->stripe.chunk == 524288 &&
	       pol_dev_at(&q, 1)->nr_members == 3 &&
	       !pol_dev_at(&q, 0)->has_stripe && !pol_dev_at(&q, 2)->has_stripe,
	       "policy_stripe_round_trip");
	free(first);
	free(second);
	policy_free(&p);
	policy_free(&q);

	/* A file from before stripes reads and writes as it did. */
	first = parse_sorted(GOOD, &p) ? print_string(&p) : NULL;
	report(first && !pol_dev_at(&p, 0)->has_stripe &&
	       !pol_dev_at(&p, 1)->has_stripe && !strstr(first, "stripe"),
	       "policy_file_without_stripes_unchanged");
	free(first);
	policy_free(&p);
}

/* Device @now as the kernel has it, md127 on 2 drives, default costs. */
static void striped_dev(struct pol_dev *d, bool striped)
{
	pol_dev_init(d, "md127");
	d->id = 9 << 20 | 127;
	d->has_stripe = striped;
	if (striped)
		d->stripe = (struct stripe){ 65536, 2, { 259 << 20, 259 << 20 | 1 } };
}

/* What restore sends for a device, and what it leaves alone. */
static void test_stripe_apply(void)
{
	const struct policy file = { 0 }, kernel = { .all_stripes = true };
	struct pol_dev now, want, out;

	striped_dev(&now, true);
	striped_dev(&want, false);
	report(pol_dev_satisfies(&now, &want), "apply_file_without_stripe_leaves_it");
	striped_dev(&want, true);
	report(pol_dev_satisfies(&now, &want), "apply_same_stripe_no_change");
	want.stripe.members[0] = now.stripe.members[1];
	want.stripe.members[1] = now.stripe.members[0];
	report(!pol_dev_satisfies(&now, &want), "apply_member_order_changes");
	want.stripe = (struct stripe){ 0 };
	report(!pol_dev_satisfies(&now, &want), "apply_chunk_0_unstripes");
	striped_dev(&now, false);	/* a module older than stripes */
	report(pol_dev_satisfies(&now, &want), "apply_chunk_0_older_module_no_change");
	striped_dev(&want, true);
	report(!pol_dev_satisfies(&now, &want), "apply_stripe_goes_to_older_module");

	striped_dev(&now, true);
	report(!pol_dev_reset(&now, &file, &out), "reset_by_file_leaves_stripe");
	report(pol_dev_reset(&now, &kernel, &out) && out.has_stripe &&
	       !out.stripe.chunk && !out.stripe.n, "reset_putting_back_unstripes");
	now.io_cost = 0;
	report(pol_dev_reset(&now, &file, &out) && !out.has_stripe &&
	       out.io_cost == POLICY_IO_COST_DEFAULT, "reset_by_file_cost_only");
}

int main(void)
{
	int total = sizeof(bad_json) / sizeof(bad_json[0]) + 5 +
		    sizeof(bad_policy) / sizeof(bad_policy[0]) + 8 + 5 + 9;

	ktap_plan(total);
	test_bad_json();
	test_json_values();
	test_escape_round_trip();
	test_bad_policy();
	test_good_policy();
	test_stripe_policy();
	test_stripe_apply();
	return ktap_finish(total);
}
