/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scheduling domain's insides, shared by domain.c (lookup, admission,
 * completion, configuration) and dispatch.c (the requests it held).
 * Nothing else sees them.
 */
#ifndef NQ_DOMAIN_H
#define NQ_DOMAIN_H

#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "nvmet-qos.h"
#include "lease.h"

/*
 * Held requests of one domain are dispatched by up to this many work items
 * at once, one per CPU that last kicked it (dispatch.c).
 */
#define NQ_MAX_DISPATCHERS	16

struct nq_flow {
	struct nqs_flow f;
	struct nq_host *host;
	struct nq_domain *dom;
	struct hlist_node hnode;	/* in flow_hash */
	struct list_head lnode;		/* on dom->flow_list */
	struct rcu_head rcu;
	u64 seq;			/* creation order in the domain */
	atomic_t inflight;		/* admitted, not completed */
	/*
	 * Completions on the CPUs of the host's queues update @stats at
	 * once, each under its slice's lock alone: this lock is the host's,
	 * never the device's. Under d->lock where both are taken.
	 */
	spinlock_t lock;
	struct nq_flow_stats stats;
};

/*
 * One CPU's slice of a domain (lease.h): admission and completion while
 * the device has room take its lock, not the domain's. Its counters are
 * the domain's admitted and completed, for the requests it took.
 */
struct nq_slice {
	spinlock_t lock;
	struct nqs_slice s;
	u64 admitted, completed;
	u32 queue;			/* the device's queue this CPU reaches */
};

struct nq_dispatcher {
	struct work_struct work;
	struct nq_domain *dom;
};

struct nq_domain {
	struct list_head node;		/* on domains */
	struct hlist_node hnode;	/* in domain_hash */
	u32 key;
	char name[32];
	bool named;			/* name known (set by I/O, not netlink) */
	spinlock_t lock;
	struct nqs_domain sched;
	struct nqs_class cls[NQ_MAX_CLASSES];
	u32 cls_gen[NQ_MAX_CLASSES];	/* 0: slot not initialised */
	struct list_head flow_list;	/* in creation order */
	/*
	 * Flows by creation number, the spill flow at 0: a dump resumes at
	 * a number and copies one flow per hold of the lock.
	 */
	struct xarray flows;
	u64 flow_seq;
	struct nq_flow spill;		/* the overflow host's; dom set once used */
	struct nq_slice __percpu *slices;
	struct nq_dispatcher disp[NQ_MAX_DISPATCHERS];
	/*
	 * The items bound to CPUs, for tags per queue: apart from @disp, so
	 * that no item is ever queued on both workqueues, where a cancel
	 * would wait for one run only.
	 */
	struct nq_dispatcher bound[NQ_MAX_DISPATCHERS];
	struct hrtimer timer;
	u64 timer_at;			/* what the timer was set for */
	u64 scan_at;			/* next look for dying queues */
	bool bypass;
	bool stopping;			/* dispatch ending: arm no timer */
	/*
	 * Set each second: requests that came by a hint (nq_domain_hinted())
	 * look the domain up again once, which follows the device's shape.
	 */
	bool shape_due;
	/* Requests scheduled and their completions: equal once idle. */
	u64 admitted, completed;
	/* Held hold_max_ms: asked to be sent again, dispatched past limits */
	u64 retried, forced;
	struct nq_retries retries;	/* commands asked to be sent again */
	/* completion rate over the last second */
	u64 rate, rate_cost, rate_ns;
	/* The stripe an admin gave (chunk in bytes, 0: none), for replies. */
	u32 stripe_chunk;
	u32 nr_members;
	u32 members[NVMET_QOS_STRIPE_MEMBERS_MAX];
};

static inline struct nq_flow *nq_flow_of(const struct nqs_req *r)
{
	return container_of(r->flow, struct nq_flow, f);
}

/* Where @d counts the requests of the CPU whose slice @sl is. */
static inline u8 nq_slice_hwq(struct nq_domain *d, struct nq_slice *sl)
{
	return nqs_hwq(&d->sched, READ_ONCE(sl->queue));
}

/* domain.c */
void nq_domain_tick(struct nq_domain *d, u64 now);
struct nq_flow *nq_flow_find(struct nq_domain *d, struct nq_host *host);
bool nq_domain_admit(struct nq_domain *d, struct nq_host *host,
		     struct nq_flow *fl, struct nq_flow **hint,
		     struct nqs_req *r, u64 *now);
void nq_domain_done(struct nq_domain *d, struct nqs_req *r, u64 lat_ns,
		    u64 now);

/* fast.c: the per-CPU slices, and the I/O path's way through them */
int nq_slices_alloc(struct nq_domain *d, gfp_t gfp);
void nq_slices_free(struct nq_domain *d);
void nq_slices_reclaim(struct nq_domain *d, u64 now);
bool nq_slices_refused(struct nq_domain *d, struct nqs_req *r, u64 now);
void nq_slices_grant(struct nq_domain *d, struct nqs_class *c, u64 now);
void nq_slices_counts(struct nq_domain *d, u64 *admitted, u64 *completed);
void nq_slices_map(struct nq_domain *d, u32 queues, const unsigned int *map);
u8 nq_cpu_hwq(struct nq_domain *d);
int nq_hwq_cpu(struct nq_domain *d, u8 hwq);
void nq_flow_done(struct nq_flow *fl, const struct nqs_req *r, u64 lat_ns);

/* dispatch.c */
extern struct workqueue_struct *nq_wq;
void nq_dispatch_setup(struct nq_domain *d);
void nq_dispatch_stop(struct nq_domain *d);
void nq_domain_kick(struct nq_domain *d);
u64 nq_req_key(const struct nqs_req *r);
bool nq_domain_wake(struct nq_domain *d, u64 t, u64 now);
int nq_dispatch_init(const struct nq_req_ops *ops);
void nq_dispatch_exit(void);

#endif
