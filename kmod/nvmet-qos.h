/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of nvmet-qos. Nothing here needs
 * nvmet's private header: only the glue (hook.c, admin.c) includes it.
 */
#ifndef _NVMET_QOS_H
#define _NVMET_QOS_H

#include <linux/types.h>
#include <linux/gfp.h>
#include "nvmet_qos.h"
#include "sched.h"

#define NQ_MAX_CLASSES		64
#define NQ_DEFAULT_CLASS	0
#define NQ_MAX_DOMAINS		1024
/* The name the hosts past the table's bound share; not a valid NQN. */
#define NQ_OVERFLOW_NQN		"(overflow)"
/*
 * The name requests run under when their controller did not authenticate
 * and their NQN's class admits authenticated controllers only (policy.c
 * nq_class_auth()); in default, not a valid NQN either.
 */
#define NQ_UNAUTH_NQN		"(unauthenticated)"
#define NQ_LAT_BUCKETS		NVMET_QOS_LAT_BUCKETS

struct genl_family;
struct netlink_ext_ack;
struct genl_info;
struct sk_buff;
struct nq_host;
struct nq_domain;
struct nq_flow;

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
	u64 queued;
	int class_id;
	u32 weight;
	u32 ctrls, ctrls_auth;	/* live controllers; authenticated */
};

/* The host table's bound and what reclaim and folding did. */
struct nq_hosts_info {
	u32 hosts, max_hosts;
	u64 reclaimed, folded;
	u64 flows, flows_reclaimed, flows_spilled;
	u64 unscheduled;	/* requests run unscheduled, memory short */
	u32 spare_trackers;	/* request trackers the CPUs keep (hook.c) */
};

/* hosts.c: the table of hosts seen, keyed by host NQN. */
int nq_hosts_init(void);
void nq_hosts_stop(void);
void nq_hosts_exit(void);
struct nq_host *nq_host_get(const char *nqn, gfp_t gfp);
void nq_host_ref(struct nq_host *host);
void nq_host_put(struct nq_host *host);
struct nq_host *nq_host_assign(const char *nqn);
void nq_host_unassign(struct nq_host *host);
struct nq_host *nq_host_find(const char *nqn);
struct nq_host *nq_host_connect(const char *nqn);
void nq_host_disconnect(const char *nqn, bool auth);
void nq_host_auth_changed(const char *nqn, int delta);
bool nq_host_auth_only(const struct nq_host *host);
struct nq_host *nq_host_overflow(void);
bool nq_host_dead(const struct nq_host *host);
void nq_host_flow_added(struct nq_host *host);
void nq_host_flow_removed(struct nq_host *host);
void nq_host_held(struct nq_host *host, int delta);
int nq_host_class_of(const char *nqn);
void nq_hosts_table(struct nq_hosts_info *info);
void nq_host_policy(const struct nq_host *host, int *class_id, u32 *weight);
void nq_host_set_policy(struct nq_host *host, int class_id, u32 weight);
void nq_hosts_reset_class(int class_id);
void nq_hosts_count(u32 counts[NQ_MAX_CLASSES]);
void nq_host_done(struct nq_host *host, bool counted, enum nq_dir dir,
		  u32 bytes, bool error);
int nq_host_snapshot_nqn(const char *nqn, struct nq_host_snapshot *snap);
const char *nq_host_nqn(const struct nq_host *host);
int nq_host_walk(u64 *pos,
		 int (*fn)(const struct nq_host_snapshot *snap, void *arg),
		 void *arg);

/* policy.c: the class table. Changes under nq_policy_lock(). */
int nq_policy_init(void);
void nq_policy_lock(void);
void nq_policy_unlock(void);
bool nq_class_conf(int id, u32 *gen, struct nqs_class_conf *conf);
int nq_class_find(const char *name);
bool nq_class_name(int id, char *name, size_t len);
void nq_class_label(int id, char *name, size_t len);
int nq_class_valid_name(const char *name, struct netlink_ext_ack *extack);
int nq_class_new(const char *name, const struct nqs_class_conf *conf,
		 struct netlink_ext_ack *extack);
void nq_class_update(int id, const struct nqs_class_conf *conf);
void nq_class_delete(int id);
void nq_class_get_conf(int id, struct nqs_class_conf *conf);
bool nq_class_auth(int id);

/* domain.c: scheduling domains (backing devices) and their flows. */
struct nq_dev_snapshot {
	u32 id;
	char name[32];
	u64 depth, inflight, queued, cost, rate, capacity;
	u64 admitted, completed;
	u64 fast;			/* of admitted, on a CPU's slice */
	u64 retried, forced;		/* held hold_max_ms (domain.c) */
	u32 write_pct, io_cost, tags;
	u32 queues;			/* hardware queues the tags are split over */
	u32 stripe_chunk;		/* bytes; 0: not striped */
	u32 nr_members;
	u32 members[NVMET_QOS_STRIPE_MEMBERS_MAX];	/* dev_t, in order */
};

/*
 * What a backing device serves at once: @tags requests (0: not known),
 * split evenly over @queues hardware queues that a submitter reaches by
 * its CPU, @map[cpu] (0 queues: one pool that every submitter reaches).
 */
struct nq_shape {
	u32 tags, queues;
	const unsigned int *map;
};

/*
 * disk.c: a member of a stripe, open for its shape (which holds until
 * it is closed).
 */
struct nq_member {
	void *handle;
	struct nq_shape shape;
};

int nq_member_open(u32 devt, struct nq_member *m);
void nq_member_close(struct nq_member *m);
struct gendisk;
struct nq_domain *nq_disk_domain(struct gendisk *disk);

/* What an admin sets on a device; only the fields flagged in @set. */
enum {
	NQ_DEV_SET_WRITE_COST	= 1 << 0,
	NQ_DEV_SET_IO_COST	= 1 << 1,
	NQ_DEV_SET_CAPACITY	= 1 << 2,
	NQ_DEV_SET_STRIPE	= 1 << 3,
};

struct nq_dev_conf {
	u32 set;
	u32 write_pct, io_cost;
	u64 capacity;
	/*
	 * A stripe: its chunk (0: none) and members, in order, and what
	 * they serve together (every member's tags, each member's queues
	 * and their map, which need only last the call).
	 */
	u32 stripe_chunk;
	u32 nr_members;
	u32 members[NVMET_QOS_STRIPE_MEMBERS_MAX];
	struct nq_shape stripe;
};

/* stripe.c: a dev-set request's stripe, and a reply's. */
struct genl_info;
struct sk_buff;
int nq_nl_stripe(struct genl_info *info, struct nq_dev_conf *conf,
		 struct nq_member *m);
void nq_stripe_close(struct nq_dev_conf *conf, struct nq_member *m);
int nq_nl_put_stripe(struct sk_buff *skb, const struct nq_dev_snapshot *s);

struct nq_class_stats {
	u64 ios, bytes[2], cost, queued;
};

/* retry.c: commands a domain asked hosts to send again; under its lock. */
#define NQ_RETRY_BITS	8
#define NQ_RETRY_MAX	4096

struct nq_retries {
	struct hlist_head b[1 << NQ_RETRY_BITS];
	unsigned int n;
};

void nq_retries_init(struct nq_retries *t);
void nq_retries_note(struct nq_retries *t, const void *host, u64 key,
		     u64 first_ns, u8 retried, u64 now);
bool nq_retries_take(struct nq_retries *t, const void *host, u64 key,
		     u64 now, u64 *first_ns, u8 *retried);
void nq_retries_exit(struct nq_retries *t);

/*
 * What a domain asks of the layer that hands it requests (hook.c), given
 * at init so that domains never call up into the nvmet glue by name.
 */
struct nq_req_ops {
	/* A held request's turn: executed, or aborted if its queue has died. */
	void (*execute)(struct nqs_req *r);
	/* A request held too long: its host is asked to send it again. */
	void (*retry)(struct nqs_req *r);
	/* Its controller or namespace is going away: release it now. */
	bool (*dying)(const struct nqs_req *r);
	/*
	 * What a retry of it repeats (struct nqs_req's key), asked for only
	 * when it is asked to be sent again or its domain has such requests
	 * out: most requests never need it.
	 */
	u64 (*key)(const struct nqs_req *r);
};

int nq_domains_init(const struct nq_req_ops *ops);
void nq_domains_exit(void);
struct nq_domain *nq_domain_get(u32 key, const char *name,
				const struct nq_shape *shape);
int nq_domain_configure(u32 key, const struct nq_dev_conf *conf,
			struct nq_dev_snapshot *snap,
			struct netlink_ext_ack *extack);
struct nq_domain *nq_domain_hinted(const struct nq_flow *hint, u32 key);
bool nq_domain_submit(struct nq_domain *d, struct nq_host *host,
		      struct nq_flow **hint, struct nqs_req *r, u64 *now);
void nq_domain_complete(struct nq_domain *d, struct nqs_req *r,
			u64 dispatch_ns);
void nq_domains_apply(void);
void nq_domains_bypass(void);
int nq_domain_walk(unsigned long *pos,
		   int (*fn)(const struct nq_dev_snapshot *snap, void *arg),
		   void *arg);
void nq_domains_drop_host(struct nq_host *host);
void nq_domains_table(struct nq_hosts_info *info);
void nq_domains_unscheduled(void);
void nq_domains_class_stats(int class_id, struct nq_class_stats *st);

/* stats.c, stats.h: what one host did on one device; under its flow's lock. */
struct nq_flow_stats {
	u64 ios[NQ_NR_DIRS], bytes[NQ_NR_DIRS], cost;
	u64 held_ios, held_ns;
	u64 lat_sum_ns;
	u64 lat[NQ_LAT_BUCKETS];
	u64 rate_bps, rate_iops;
	u64 tick_ns, tick_bytes, tick_ios;	/* at the last nq_stats_tick() */
};

void nq_stats_tick(struct nq_flow_stats *s, u64 now);

/* A copy of one flow's statistics, for netlink. */
struct nq_flow_snapshot {
	u32 dev_id;
	char dev_name[32];
	int class_id;
	u64 queued;
	bool idle;			/* no completion for two seconds */
	struct nq_flow_stats st;
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
};

int nq_flow_walk(u64 pos[2],
		 int (*fn)(const struct nq_flow_snapshot *snap, void *arg),
		 void *arg);

/* bind.c: attaching to nvmet, whenever it loads. */
int nq_hook_init(void);
void nq_hook_exit(void);
/* hook.c: the domains' way back to nvmet's requests (struct nq_req_ops). */
extern const struct nq_req_ops nq_hook_req_ops;
u32 nq_track_spares(void);

/* netlink.c: the generic netlink family and its messages. */
enum {
	NQ_MCGRP_EVENTS,
};

extern struct genl_family nq_genl_family;

int nq_netlink_init(void);
void nq_netlink_exit(void);
int nq_nl_fill_host(struct sk_buff *skb, const struct nq_host_snapshot *s,
		    u32 portid, u32 seq, int flags, u8 cmd);
int nq_nl_fill_class(struct sk_buff *skb, int id, const u32 *hosts,
		     u32 portid, u32 seq, int flags, u8 cmd);
int nq_nl_fill_dev(struct sk_buff *skb, const struct nq_dev_snapshot *s,
		   u32 portid, u32 seq, int flags, u8 cmd);

/*
 * events.c: notifications to the "events" group. Changes made over netlink
 * are notified by their handler (class ones under the policy lock, so they
 * reach listeners in the order they were made); controller events come from
 * the hook in any context and are sent from a work item.
 */
void nq_events_exit(void);
struct sk_buff *nq_event_class(int id, u8 cmd);
void nq_event_send(struct sk_buff *msg);
void nq_event_host(const char *nqn);
void nq_event_dev(const struct nq_dev_snapshot *snap);
struct sk_buff *nq_event_new(void);
struct sk_buff *nq_event_filled(struct sk_buff *msg, int ret);
/* What a controller event says of it (admin.c fills it from nvmet's). */
struct nq_ctrl_info {
	const char *hostnqn, *subsysnqn;
	u16 cntlid;
	u8 trtype;
	bool auth_required;	/* nvmet holds a key for the NQN */
	bool authenticated;	/* its admin queue completed DH-HMAC-CHAP */
};

void nq_event_ctrl(u8 cmd, const struct nq_ctrl_info *info);

/* cluster.c: this head's state in a cluster, as its daemon set it. */
int nq_cluster_get_doit(struct sk_buff *skb, struct genl_info *info);
int nq_cluster_set_doit(struct sk_buff *skb, struct genl_info *info);

/* ctrls.c: the controllers made while attached, and their authentication. */
bool nq_ctrl_add(const void *key, const char *nqn);
int nq_ctrl_set_auth(const void *key, const char *nqn, bool auth);
bool nq_ctrl_del(const void *key, const char *nqn);
struct nq_host *nq_ctrl_host(const void *key, struct nq_flow **hint);
void nq_ctrl_hint(const void *key, const struct nq_host *host,
		  struct nq_flow *hint);
void nq_ctrls_exit(void);

#endif /* _NVMET_QOS_H */
