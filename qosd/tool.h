/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What nvmet-qosd asks of the nvmet-qos tool: apply a policy ("restore",
 * which changes all of it or nothing) and read the classes' counters
 * ("class list --json"). The tool is the one way into the module, so the
 * daemon needs neither netlink nor the policy's parser of its own.
 */
#ifndef NVMET_QOSD_TOOL_H
#define NVMET_QOSD_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOOL_CLASS_NAME_MAX	64

/*
 * Run "TOOL restore -" (with @check, "restore --check -": the policy
 * checked, nothing applied) with @text on its stdin. Returns its exit
 * status, -1 if it could not run, died or did not finish within a
 * minute; the first line of its output in @msg.
 */
int tool_restore(const char *tool, const char *text, bool check, char *msg,
		 size_t len);

/* One class's counters, cumulative since the module loaded. */
struct class_fig {
	char name[TOOL_CLASS_NAME_MAX + 1];
	uint64_t bytes;		/* read and written */
	uint64_t ios;
	uint64_t held;		/* requests held back now */
};

/*
 * The classes' counters now, into *@figs (free() it). Returns how many,
 * or -1 with the reason in @msg.
 */
int tool_class_figs(const char *tool, struct class_fig **figs, char *msg,
		    size_t len);

#endif /* NVMET_QOSD_TOOL_H */
