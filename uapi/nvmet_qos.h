/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * nvmet-qos generic netlink API.
 *
 * Kept in step with uapi/nvmet_qos.yaml, which documents every attribute.
 * Shared by the kernel module (kmod/) and the nvmet-qos tool (ctl/).
 */
#ifndef _UAPI_LINUX_NVMET_QOS_H
#define _UAPI_LINUX_NVMET_QOS_H

#define NVMET_QOS_FAMILY_NAME		"nvmet_qos"
#define NVMET_QOS_FAMILY_VERSION	1

/* Longest host NQN nvmet accepts, without the terminating NUL (NVMF_NQN_SIZE - 1). */
#define NVMET_QOS_NQN_MAX_LEN		222
/* Class names: 1 to 31 characters of [A-Za-z0-9_.-]. */
#define NVMET_QOS_CLASS_NAME_MAX_LEN	31
/* Shares (class) and weights (host within its class): 1 to 1000. */
#define NVMET_QOS_SHARE_MAX		1000
/* Device cost model: write cost in % of a read, fixed cost per I/O in bytes. */
#define NVMET_QOS_WRITE_COST_MIN	10
#define NVMET_QOS_WRITE_COST_MAX	1000
#define NVMET_QOS_IO_COST_MAX		1048576
/* A striped device (RAID0): at most 16 members, chunks of at most 1 GiB. */
#define NVMET_QOS_STRIPE_MEMBERS_MAX	16
#define NVMET_QOS_STRIPE_CHUNK_MAX	1073741824
/*
 * Largest rate (bytes or I/Os per second, floors, ceilings and capacity
 * hints) and burst: 2^50, about 1.1 PB/s. It keeps the engine's token
 * arithmetic far from 64-bit overflow.
 */
#define NVMET_QOS_RATE_MAX		1125899906842624ULL
/* Smallest capacity hint, cost units (bytes of reads) per second; 0 is none. */
#define NVMET_QOS_CAPACITY_MIN		1000000
/*
 * Completion latency histogram: bucket 0 counts requests under 2 us,
 * bucket i (1 <= i < LAT_BUCKETS - 1) those in [2^i, 2^(i+1)) us, and the
 * last one everything from 2^(LAT_BUCKETS - 1) us (about 8.4 s) up.
 */
#define NVMET_QOS_LAT_BUCKETS		24
/* Longest cluster note, without the terminating NUL. */
#define NVMET_QOS_CLUSTER_NOTE_MAX_LEN	255

/* A head's state in a cluster of heads; the module enforces nothing by it. */
enum nvmet_qos_cluster_state {
	NVMET_QOS_CLUSTER_STATE_NONE,		/* no daemon set one, or it left */
	NVMET_QOS_CLUSTER_STATE_MEMBER,		/* following the cluster */
	NVMET_QOS_CLUSTER_STATE_FALLBACK,	/* cut off: last policy, static slices */
};
/* The class every host belongs to until assigned elsewhere. */
#define NVMET_QOS_DEFAULT_CLASS		"default"

/*
 * Attribute set "host": one connected-or-seen host, identified by its host NQN.
 * Counters cover read and write commands on I/O queues that completed while
 * nvmet-qos was bound to nvmet; they are never reset while the module is loaded.
 */
enum {
	NVMET_QOS_A_HOST_UNSPEC,
	NVMET_QOS_A_HOST_PAD,		/* alignment padding for u64 attributes */
	NVMET_QOS_A_HOST_NQN,		/* string: host NQN */
	NVMET_QOS_A_HOST_READ_IOS,	/* u64: read commands completed */
	NVMET_QOS_A_HOST_WRITE_IOS,	/* u64: write commands completed */
	NVMET_QOS_A_HOST_READ_BYTES,	/* u64: bytes read */
	NVMET_QOS_A_HOST_WRITE_BYTES,	/* u64: bytes written */
	NVMET_QOS_A_HOST_ERRORS,	/* u64: read/write commands completed with an error status */
	NVMET_QOS_A_HOST_CLASS,		/* string: class the host is assigned to */
	NVMET_QOS_A_HOST_WEIGHT,	/* u32: weight within its class, 1-1000 (default 100) */
	NVMET_QOS_A_HOST_QUEUED,	/* u64: requests held back now */
	NVMET_QOS_A_HOST_CTRLS,		/* u32: live controllers of this NQN (reply only) */
	NVMET_QOS_A_HOST_CTRLS_AUTH,	/* u32: of those, the ones that authenticated (reply only) */

	__NVMET_QOS_A_HOST_MAX,
	NVMET_QOS_A_HOST_MAX = (__NVMET_QOS_A_HOST_MAX - 1)
};

/*
 * Attribute set "class": a bandwidth class. Rates are per backing device
 * (scheduling domain). A limit of 0 means none.
 */
enum {
	NVMET_QOS_A_CLASS_UNSPEC,
	NVMET_QOS_A_CLASS_PAD,
	NVMET_QOS_A_CLASS_NAME,		/* string: 1-31 chars of [A-Za-z0-9_.-] */
	NVMET_QOS_A_CLASS_SHARE,	/* u32: weight, 1-1000 */
	NVMET_QOS_A_CLASS_MIN_BPS,	/* u64: floor, bytes/s */
	NVMET_QOS_A_CLASS_MAX_BPS,	/* u64: ceiling, bytes/s */
	NVMET_QOS_A_CLASS_MIN_IOPS,	/* u64: floor, I/Os per second */
	NVMET_QOS_A_CLASS_MAX_IOPS,	/* u64: ceiling, I/Os per second */
	NVMET_QOS_A_CLASS_BURST,	/* u64: bytes a class may run above its ceiling */
	NVMET_QOS_A_CLASS_LATENCY,	/* u8: 1 = latency-sensitive */
	NVMET_QOS_A_CLASS_HOSTS,	/* u32: hosts assigned (reply only) */
	NVMET_QOS_A_CLASS_READ_BYTES,	/* u64: bytes read by its hosts (reply only) */
	NVMET_QOS_A_CLASS_WRITE_BYTES,	/* u64: bytes written by its hosts (reply only) */
	NVMET_QOS_A_CLASS_IOS,		/* u64: I/Os dispatched (reply only) */
	NVMET_QOS_A_CLASS_COST,		/* u64: cost units dispatched (reply only) */
	NVMET_QOS_A_CLASS_QUEUED,	/* u64: requests held back now (reply only) */
	NVMET_QOS_A_CLASS_AUTH,		/* u8: 1 = authenticated controllers only */

	__NVMET_QOS_A_CLASS_MAX,
	NVMET_QOS_A_CLASS_MAX = (__NVMET_QOS_A_CLASS_MAX - 1)
};

/*
 * Attribute set "device": one scheduling domain (a backing block device).
 * Cost units are bytes of reads: a request costs its bytes (times the write
 * cost for writes) plus the I/O cost.
 */
enum {
	NVMET_QOS_A_DEV_UNSPEC,
	NVMET_QOS_A_DEV_PAD,
	NVMET_QOS_A_DEV_ID,		/* u32: dev_t of the whole disk (or file system) */
	NVMET_QOS_A_DEV_NAME,		/* string: e.g. "nvme0n1" */
	NVMET_QOS_A_DEV_DEPTH,		/* u64: cost units the engine lets in flight */
	NVMET_QOS_A_DEV_INFLIGHT,	/* u64: cost units in flight now */
	NVMET_QOS_A_DEV_QUEUED,		/* u64: requests held back now */
	NVMET_QOS_A_DEV_COST,		/* u64: cost units completed */
	NVMET_QOS_A_DEV_RATE,		/* u64: cost units per second, last second */
	NVMET_QOS_A_DEV_WRITE_COST,	/* u32: write cost, % of a read of the same size */
	NVMET_QOS_A_DEV_IO_COST,	/* u32: fixed cost per I/O, in bytes */
	NVMET_QOS_A_DEV_CAPACITY,	/* u64: capacity hint, cost units/s; 0: sensed */
	NVMET_QOS_A_DEV_ADMITTED,	/* u64: requests the engine took in */
	NVMET_QOS_A_DEV_COMPLETED,	/* u64: of those, completed; equal when idle */
	NVMET_QOS_A_DEV_TAGS,		/* u32: requests the device serves at once; 0: unknown */
	NVMET_QOS_A_DEV_RETRIED,	/* u64: held hold_max_ms, host asked to send again */
	NVMET_QOS_A_DEV_FORCED,		/* u64: held hold_max_ms, retries spent, dispatched */
	NVMET_QOS_A_DEV_FAST,		/* u64: of admitted, on their CPU's slice */
	NVMET_QOS_A_DEV_QUEUES,		/* u32: hardware queues the tags are split over; 0: one pool */
	NVMET_QOS_A_DEV_STRIPE_CHUNK,	/* u32: striped device's chunk, bytes; 0: not striped */
	NVMET_QOS_A_DEV_STRIPE_MEMBER,	/* u32, multi: a member's dev_t, in the array's order */

	__NVMET_QOS_A_DEV_MAX,
	NVMET_QOS_A_DEV_MAX = (__NVMET_QOS_A_DEV_MAX - 1)
};

/*
 * Attribute set "stats": one host on one device (a flow). Counters cover
 * requests nvmet-qos scheduled on that device since the host's first
 * request there; latency is from the request's arrival at nvmet's execute
 * step (time held included) to its completion.
 */
enum {
	NVMET_QOS_A_STATS_UNSPEC,
	NVMET_QOS_A_STATS_PAD,
	NVMET_QOS_A_STATS_DEV_ID,	/* u32: dev_t of the device, as in "device" */
	NVMET_QOS_A_STATS_DEV_NAME,	/* string: the device's name */
	NVMET_QOS_A_STATS_NQN,		/* string: host NQN */
	NVMET_QOS_A_STATS_CLASS,	/* string: the host's class now */
	NVMET_QOS_A_STATS_READ_IOS,	/* u64: reads completed */
	NVMET_QOS_A_STATS_WRITE_IOS,	/* u64: writes completed */
	NVMET_QOS_A_STATS_READ_BYTES,	/* u64: bytes read */
	NVMET_QOS_A_STATS_WRITE_BYTES,	/* u64: bytes written */
	NVMET_QOS_A_STATS_COST,		/* u64: cost units completed */
	NVMET_QOS_A_STATS_RATE_BPS,	/* u64: bytes/s, smoothed over seconds */
	NVMET_QOS_A_STATS_RATE_IOPS,	/* u64: I/Os per second, smoothed */
	NVMET_QOS_A_STATS_QUEUED,	/* u64: requests held back now */
	NVMET_QOS_A_STATS_HELD_IOS,	/* u64: requests that were held back */
	NVMET_QOS_A_STATS_HELD_NS,	/* u64: total time requests were held, ns */
	NVMET_QOS_A_STATS_LAT_SUM_NS,	/* u64: sum of completion latencies, ns */
	NVMET_QOS_A_STATS_LAT_HIST,	/* nest: u64 count of bucket i as type i + 1 */

	__NVMET_QOS_A_STATS_MAX,
	NVMET_QOS_A_STATS_MAX = (__NVMET_QOS_A_STATS_MAX - 1)
};

/*
 * Attribute set "ctrl": a controller nvmet created for a host (the host
 * connected) or is tearing down (it disconnected, or its connection died).
 */
enum {
	NVMET_QOS_A_CTRL_UNSPEC,
	NVMET_QOS_A_CTRL_PAD,
	NVMET_QOS_A_CTRL_NQN,		/* string: host NQN */
	NVMET_QOS_A_CTRL_SUBSYS_NQN,	/* string: NQN of the subsystem connected to */
	NVMET_QOS_A_CTRL_CNTLID,	/* u16: controller ID nvmet gave it */
	NVMET_QOS_A_CTRL_TRTYPE,	/* u8: transport, NVMe-oF TRTYPE (1 rdma, 2 fc, 3 tcp, 254 loop) */
	NVMET_QOS_A_CTRL_CLASS,		/* string: the host's class when the event was sent */
	NVMET_QOS_A_CTRL_AUTH_REQUIRED,	/* u8: 1 = nvmet requires DH-HMAC-CHAP of it */
	NVMET_QOS_A_CTRL_AUTHENTICATED,	/* u8: 1 = its admin queue completed DH-HMAC-CHAP */

	__NVMET_QOS_A_CTRL_MAX,
	NVMET_QOS_A_CTRL_MAX = (__NVMET_QOS_A_CTRL_MAX - 1)
};

/*
 * Attribute set "table": the host table's bound, and what reclaim and
 * folding did since load.
 */
enum {
	NVMET_QOS_A_TABLE_UNSPEC,
	NVMET_QOS_A_TABLE_PAD,
	NVMET_QOS_A_TABLE_HOSTS,		/* u32: hosts in the table, overflow excluded */
	NVMET_QOS_A_TABLE_MAX_HOSTS,		/* u32: the bound (module parameter max_hosts) */
	NVMET_QOS_A_TABLE_HOSTS_RECLAIMED,	/* u64: idle hosts forgotten */
	NVMET_QOS_A_TABLE_HOSTS_FOLDED,		/* u64: connects and requests run as the overflow host */
	NVMET_QOS_A_TABLE_FLOWS,		/* u64: flows allocated now */
	NVMET_QOS_A_TABLE_FLOWS_RECLAIMED,	/* u64: flows freed with their host */
	NVMET_QOS_A_TABLE_FLOWS_SPILLED,	/* u64: flow allocations failed, spill flow used */
	NVMET_QOS_A_TABLE_UNSCHEDULED,		/* u64: requests run unscheduled, memory short */
	NVMET_QOS_A_TABLE_SPARE_TRACKERS,	/* u32: request trackers kept by the CPUs */

	__NVMET_QOS_A_TABLE_MAX,
	NVMET_QOS_A_TABLE_MAX = (__NVMET_QOS_A_TABLE_MAX - 1)
};

/*
 * Attribute set "cluster": this head's state in a cluster of heads, as the
 * daemon running it there (nvmet-qosd) set it.
 */
enum {
	NVMET_QOS_A_CLUSTER_UNSPEC,
	NVMET_QOS_A_CLUSTER_STATE,	/* u32: enum nvmet_qos_cluster_state */
	NVMET_QOS_A_CLUSTER_NOTE,	/* string: why, for an admin; empty for none */

	__NVMET_QOS_A_CLUSTER_MAX,
	NVMET_QOS_A_CLUSTER_MAX = (__NVMET_QOS_A_CLUSTER_MAX - 1)
};

/* The multicast group of notifications (the *_NTF commands). */
#define NVMET_QOS_MCGRP_EVENTS		"events"

enum {
	NVMET_QOS_CMD_UNSPEC,
	NVMET_QOS_CMD_HOST_GET,		/* do: one host by NQN; dump: every host */
	NVMET_QOS_CMD_HOST_SET,		/* assign a host to a class and/or set its weight */
	NVMET_QOS_CMD_HOST_DEL,		/* unassign: back to the default class */
	NVMET_QOS_CMD_CLASS_GET,	/* do: one class by name; dump: every class */
	NVMET_QOS_CMD_CLASS_NEW,	/* create a class */
	NVMET_QOS_CMD_CLASS_SET,	/* change attributes given, keep the others */
	NVMET_QOS_CMD_CLASS_DEL,	/* delete; its hosts fall back to default */
	NVMET_QOS_CMD_DEV_GET,		/* dump: every scheduling domain */
	NVMET_QOS_CMD_DEV_SET,		/* set a device's cost model, capacity hint, stripe */
	NVMET_QOS_CMD_STATS_GET,	/* dump: every host on every device */
	NVMET_QOS_CMD_HOST_CHANGE_NTF,	/* notification: a host's class or weight was set (attrs: host) */
	NVMET_QOS_CMD_CLASS_NEW_NTF,	/* notification: a class was created (attrs: class) */
	NVMET_QOS_CMD_CLASS_CHANGE_NTF,	/* notification: a class was changed (attrs: class) */
	NVMET_QOS_CMD_CLASS_DEL_NTF,	/* notification: a class was deleted (attrs: class, as it was) */
	NVMET_QOS_CMD_DEV_CHANGE_NTF,	/* notification: a device's settings were changed (attrs: device) */
	NVMET_QOS_CMD_CTRL_CONNECT_NTF,	/* notification: nvmet created a controller (attrs: ctrl) */
	NVMET_QOS_CMD_CTRL_DISCONNECT_NTF, /* notification: nvmet tears a controller down (attrs: ctrl) */
	NVMET_QOS_CMD_TABLE_GET,	/* do: the host table's bound and counters */
	NVMET_QOS_CMD_CTRL_AUTH_NTF,	/* notification: a controller authenticated, or lost it (attrs: ctrl) */
	NVMET_QOS_CMD_CLUSTER_GET,	/* do: this head's cluster state and note */
	NVMET_QOS_CMD_CLUSTER_SET,	/* set this head's cluster state and note */
	NVMET_QOS_CMD_CLUSTER_CHANGE_NTF, /* notification: the cluster state or note changed (attrs: cluster) */

	__NVMET_QOS_CMD_MAX,
	NVMET_QOS_CMD_MAX = (__NVMET_QOS_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_NVMET_QOS_H */
