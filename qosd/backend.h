/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What nvmet-qosd does to the head it runs on, behind an ops table: on a
 * storage head the nvmet-qos tool (tool.c), the one way into the module;
 * in the tests of several heads the scheduler core on a simulated device
 * (simhead.c). The daemon's logic above it is the same for both.
 */
#ifndef NVMET_QOSD_BACKEND_H
#define NVMET_QOSD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLASS_NAME_MAX	64

/* One class's counters, cumulative since the module loaded. */
struct class_fig {
	char name[CLASS_NAME_MAX + 1];
	uint64_t bytes;		/* read and written */
	uint64_t ios;
	uint64_t held;		/* requests held back now */
};

struct backend_ops {
	/*
	 * Apply a policy (the JSON of "nvmet-qos save"), all of it or none;
	 * with @check, only check it. Returns 0, 1 when the policy itself is
	 * refused, another value when it could not be applied; one line
	 * saying what happened in @msg.
	 */
	int (*restore)(void *ctx, const char *text, bool check, char *msg,
		       size_t len);
	/* The classes' counters now, into *@figs (free() it), or -1. */
	int (*class_figs)(void *ctx, struct class_fig **figs, char *msg,
			  size_t len);
	/* Set a class's ceiling (bytes/s on each device; 0: none). 0 or -1. */
	int (*set_max)(void *ctx, const char *cls, uint64_t bps, char *msg,
		       size_t len);
	/* Set a class's share (its weight, 1 to 1000). 0 or -1. */
	int (*set_share)(void *ctx, const char *cls, uint32_t share, char *msg,
			 size_t len);
	/*
	 * Say what the head is in the cluster (enum nvmet_qos_cluster_state)
	 * and why, where the head's admins see it: the module's cluster
	 * state and events. 0 or -1.
	 */
	int (*set_state)(void *ctx, int state, const char *note, char *msg,
			 size_t len);
};

/* A state of set_state() by the name the tool takes: "member". */
static inline const char *backend_state_name(int state)
{
	static const char *const names[] = { "none", "member", "fallback" };

	return state >= 0 && state < 3 ? names[state] : "?";
}

struct backend {
	const struct backend_ops *ops;
	void *ctx;
};

/*
 * Open the backend the program was built with: @spec is the tool's path
 * (nvmet-qosd's --tool) or the simulated head's description. 0, or -1
 * with the reason in @err.
 */
int backend_open(struct backend *be, const char *spec, char *err,
		 size_t len);

#endif /* NVMET_QOSD_BACKEND_H */
