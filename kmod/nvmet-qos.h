/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of nvmet-qos. Nothing here needs
 * nvmet's private header: only hook.c includes it.
 */
#ifndef _NVMET_QOS_H
#define _NVMET_QOS_H

#include <linux/types.h>
#include "nvmet_qos.h"

struct netlink_ext_ack;
struct nq_host;

enum nq_dir {
	NQ_READ,
	NQ_WRITE,
	NQ_NR_DIRS,
};

/* A point-in-time copy of one host's counters, summed over CPUs. */
struct nq_host_snapshot {
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
	u64 ios[NQ_NR_DIRS];
	u64 bytes[NQ_NR_DIRS];
	u64 errors;
};

/* hosts.c: the table of hosts seen, keyed by host NQN. */
int nq_hosts_init(void);
void nq_hosts_exit(void);
struct nq_host *nq_host_get(const char *nqn);
void nq_host_account(struct nq_host *host, enum nq_dir dir, u32 bytes,
		     bool error);
int nq_host_snapshot_nqn(const char *nqn, struct nq_host_snapshot *snap);
int nq_host_walk(unsigned long *pos,
		 int (*fn)(const struct nq_host_snapshot *snap, void *arg),
		 void *arg);

/* hook.c: attaching to nvmet. */
int nq_hook_init(void);
void nq_hook_exit(void);

/* netlink.c: the generic netlink family. */
int nq_netlink_init(void);
void nq_netlink_exit(void);

#endif /* _NVMET_QOS_H */
