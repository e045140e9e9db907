/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the two files of the nvmet glue (hook.c, admin.c), which alone
 * include nvmet's private header: nothing else may include this one.
 */
#ifndef _NVMET_QOS_GLUE_H
#define _NVMET_QOS_GLUE_H

struct nvmet_req;
struct nvmet_sq;

/* admin.c */
bool nq_sq_authenticated(struct nvmet_sq *sq);
void nq_admin_complete(struct nvmet_req *req);
void nq_admin_sq_destroy(struct nvmet_sq *sq);

#endif /* _NVMET_QOS_GLUE_H */
