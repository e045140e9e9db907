/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the files of the nvmet glue: hook.c and admin.c, which alone
 * include nvmet's private header, and bind.c, which attaches them to
 * nvmet. Nothing else may include this one.
 */
#ifndef _NVMET_QOS_GLUE_H
#define _NVMET_QOS_GLUE_H

struct kprobe;
struct nvme_command;
struct nvmet_req;
struct nvmet_sq;
struct pt_regs;

/* admin.c */
bool nq_sq_authenticated(struct nvmet_sq *sq);
void nq_admin_complete(struct nvmet_req *req);
void nq_admin_sq_destroy(struct nvmet_sq *sq);

/* hook.c: the probes bind.c attaches, and the requests they track. */
void nq_probe_init(void *data, struct nvmet_req *req,
		   struct nvme_command *cmd);
void nq_probe_complete(void *data, struct nvmet_req *req);
int nq_uninit_pre(struct kprobe *kp, struct pt_regs *regs);
long nq_hand_back(void);
long nq_pending_sum(void);
void nq_untrack_all(void);
int nq_track_init(void);
void nq_track_exit(void);

#endif /* _NVMET_QOS_GLUE_H */
