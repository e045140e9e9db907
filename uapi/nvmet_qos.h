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

	__NVMET_QOS_A_HOST_MAX,
	NVMET_QOS_A_HOST_MAX = (__NVMET_QOS_A_HOST_MAX - 1)
};

enum {
	NVMET_QOS_CMD_UNSPEC,
	NVMET_QOS_CMD_HOST_GET,		/* do: one host by NQN; dump: every host */

	__NVMET_QOS_CMD_MAX,
	NVMET_QOS_CMD_MAX = (__NVMET_QOS_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_NVMET_QOS_H */
