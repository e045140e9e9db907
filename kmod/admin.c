// SPDX-License-Identifier: GPL-2.0
/*
 * What nvmet's admin queues tell of controllers, for the host table and
 * the events group: a connect command that succeeded made one, the
 * commands of DH-HMAC-CHAP authenticate it, and the destruction of its
 * admin queue (a kprobe of bind.c's on nvmet_sq_destroy) ends it. With
 * hook.c the only file that includes nvmet's private header.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>

#include "nvmet.h"
#include "glue.h"
#include "nvmet-qos.h"

/*
 * Whether nvmet requires DH-HMAC-CHAP of @ctrl: it holds a key for the
 * NQN, and runs no command on a queue of it but authentication until that
 * queue proved the host has the key.
 */
static bool ctrl_auth(struct nvmet_ctrl *ctrl)
{
#ifdef CONFIG_NVME_TARGET_AUTH
	return READ_ONCE(ctrl->host_key);
#else
	return false;
#endif
}

/* Whether @sq, a queue of a live controller, completed DH-HMAC-CHAP. */
bool nq_sq_authenticated(struct nvmet_sq *sq)
{
#ifdef CONFIG_NVME_TARGET_AUTH
	return READ_ONCE(sq->authenticated) && ctrl_auth(sq->ctrl);
#else
	return false;
#endif
}

static u8 ctrl_trtype(const struct nvmet_ctrl *ctrl)
{
	return ctrl->port ? ctrl->port->disc_addr.trtype : 0;
}

/* What a controller event says of @ctrl. */
static void ctrl_info(struct nvmet_ctrl *ctrl, bool authenticated,
		      struct nq_ctrl_info *info)
{
	info->hostnqn = ctrl->hostnqn;
	info->subsysnqn = ctrl->subsysnqn;
	info->cntlid = ctrl->cntlid;
	info->trtype = ctrl_trtype(ctrl);
	info->auth_required = ctrl_auth(ctrl);
	info->authenticated = authenticated;
}

/*
 * A connect command for an admin queue that succeeded: nvmet made a
 * controller (and set sq->ctrl). The host gets its entry now, so it is
 * listed, with its class, before its first I/O, and keeps it while the
 * controller lives. A discovery controller moves no data: it makes no
 * entry, so that discovering cannot fill the table.
 */
static void note_connect(struct nvmet_req *req)
{
	struct nvme_command *cmd = req->cmd;
	struct nvmet_ctrl *ctrl = req->sq->ctrl;
	struct nq_ctrl_info info;

	if (cmd->fabrics.fctype != nvme_fabrics_type_connect ||
	    cmd->connect.qid || req->cqe->status || !ctrl)
		return;
	if (!nvmet_is_disc_subsys(ctrl->subsys) &&
	    !nq_ctrl_add(ctrl, ctrl->hostnqn))
		pr_warn_ratelimited("controller %u of %s: no memory to track its authentication; counted as not authenticated\n",
				    ctrl->cntlid, ctrl->hostnqn);
	ctrl_info(ctrl, false, &info);
	nq_event_ctrl(NVMET_QOS_CMD_CTRL_CONNECT_NTF, &info);
}

/*
 * An authentication command of an admin queue completed: the controller
 * may have authenticated, or failed to re-authenticate. Its host's count
 * and an event follow each change; nvmet sets sq->authenticated before
 * it completes the command that ends the exchange.
 */
static void note_auth(struct nvmet_req *req)
{
	struct nvmet_ctrl *ctrl = req->sq->ctrl;
	struct nq_ctrl_info info;
	bool now;
	int delta;

	if (!ctrl || nvmet_is_disc_subsys(ctrl->subsys))
		return;
	now = nq_sq_authenticated(req->sq);
	delta = nq_ctrl_set_auth(ctrl, ctrl->hostnqn, now);
	if (!delta)
		return;
	ctrl_info(ctrl, now, &info);
	nq_event_ctrl(NVMET_QOS_CMD_CTRL_AUTH_NTF, &info);
}

/* A command of an admin queue completed: the ones about controllers. */
void nq_admin_complete(struct nvmet_req *req)
{
	if (req->cmd->common.opcode != nvme_fabrics_command)
		return;
	switch (req->cmd->fabrics.fctype) {
	case nvme_fabrics_type_connect:
		note_connect(req);
		break;
	case nvme_fabrics_type_auth_send:
	case nvme_fabrics_type_auth_receive:
		note_auth(req);
		break;
	}
}

/* @sq is being destroyed: nvmet's own test for "its controller's admin queue". */
void nq_admin_sq_destroy(struct nvmet_sq *sq)
{
	struct nvmet_ctrl *ctrl = READ_ONCE(sq->ctrl);
	struct nq_ctrl_info info;
	bool was = false;

	if (!ctrl || !ctrl->sqs || ctrl->sqs[0] != sq)
		return;
	if (!nvmet_is_disc_subsys(ctrl->subsys))
		was = nq_ctrl_del(ctrl, ctrl->hostnqn);
	ctrl_info(ctrl, was, &info);
	nq_event_ctrl(NVMET_QOS_CMD_CTRL_DISCONNECT_NTF, &info);
}
