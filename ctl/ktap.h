/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output of the tool's unit-test programs: a plan, one line per
 * test, and an exit status that fails when a test failed or the plan was
 * not met.
 */
#ifndef NVMET_QOS_KTAP_H
#define NVMET_QOS_KTAP_H

#include <stdbool.h>
#include <stdio.h>

static int test_no;
static int failures;

static inline void ktap_plan(int total)
{
	printf("KTAP version 1\n1..%d\n", total);
}

static inline void report(bool ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++test_no, name);
	if (!ok)
		failures++;
}

/* The exit status of main(). */
static inline int ktap_finish(int total)
{
	if (test_no != total) {
		printf("# planned %d tests but ran %d\n", total, test_no);
		return 1;
	}
	printf("# %d of %d tests passed\n", total - failures, total);
	return failures ? 1 : 0;
}

#endif /* NVMET_QOS_KTAP_H */
