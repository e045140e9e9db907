// SPDX-License-Identifier: GPL-2.0
/*
 * The table of hosts, keyed by the host NQN each controller presents.
 *
 * Any machine that reaches a port can present any number of NQNs, so the
 * table is bounded (max_hosts) and gives back what nobody needs: a host
 * with no controller, no assignment by an admin and nothing in flight is
 * reclaimed by a worker once it has been idle for a while. Past the
 * bound, or short of memory, a host is folded into one shared "overflow"
 * host, which is scheduled in the default class like any other: a flood
 * of NQNs can neither switch QoS off for later hosts nor grow memory
 * without limit. Discovery controllers create nothing. An idle host is
 * kept host_idle_secs (its counters with it, across a reconnect or a
 * reload of nvmet), unless the table is three quarters full.
 *
 * Lifetime: lookups are lock-free (RCU). The I/O path holds a reference
 * from lookup to completion, counted per CPU next to the host's counters
 * so that I/O never shares a cache line with another CPU. Reclaim unhashes
 * a host under hosts_lock, waits for an RCU grace period (after which no
 * lookup can return it, so its count only falls), has the domains drop its
 * flows, and frees it once the count is zero and no flow is left. The
 * policy lock keeps hosts found by netlink alive, as reclaim takes it too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stringhash.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "nvmet-qos.h"

/* A bucket per host at most at the default bound: one NQN compare. */
#define HOSTS_HASH_BITS	16
#define RECLAIM_PERIOD	HZ

static unsigned int max_hosts = 65536;
module_param(max_hosts, uint, 0444);
MODULE_PARM_DESC(max_hosts, "Hosts (NQNs) tracked at once; later ones share "
		 "the overflow host in the default class (default 65536)");

static unsigned int host_idle_secs = 60;
module_param(host_idle_secs, uint, 0644);
MODULE_PARM_DESC(host_idle_secs, "Seconds a host with no controller and no "
		 "assignment is kept after its last I/O; none once the table "
		 "is 3/4 full (default 60)");

struct host_stats {
	struct u64_stats_sync syncp;
	u64 ios[NQ_NR_DIRS];
	u64 bytes[NQ_NR_DIRS];
	u64 errors;
	long refs;		/* this CPU's gets minus puts */
};

struct nq_host {
	struct hlist_node hnode;	/* in hosts_hash while live */
	struct list_head lnode;		/* on hosts_list, then on dying */
	u64 seq;			/* creation order: a dump's cursor */
	u64 hashlen;			/* nqn_hashlen() */
	u16 class_id;			/* policy: WRITE_ONCE under policy_mutex */
	u16 weight;
	bool assigned;			/* by an admin: kept until deleted */
	bool dead;			/* unhashed by reclaim */
	u32 nr_ctrls;			/* live controllers; under hosts_lock */
	u32 nr_ctrls_auth;		/* of which authenticated; hosts_lock */
	atomic_t nr_flows;		/* flows that point at us */
	atomic_t queued;		/* requests held on any device */
	struct list_head dnode;		/* on dying, reclaim's own */
	u64 idle_mark;			/* activity seen by the last scan */
	unsigned long idle_since;	/* jiffies; 0: not idle */
	struct host_stats __percpu *stats;
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
};

static DEFINE_HASHTABLE(hosts_hash, HOSTS_HASH_BITS);
static LIST_HEAD(hosts_list);
static LIST_HEAD(dying);		/* reclaim's own; worker only */
static DEFINE_SPINLOCK(hosts_lock);
static unsigned int nr_hosts;		/* hashed, overflow excluded */
static u64 next_seq = 1;
static struct nq_host *overflow;	/* never freed before unload */
static bool overflow_listed;
static atomic64_t nr_reclaimed, nr_folded;
static struct delayed_work reclaim_work;
static bool stopping;

/*
 * The hash and length of @nqn's first NVMET_QOS_NQN_MAX_LEN characters
 * (nvmet takes one more from a raw connect). Every I/O looks its host
 * up by NQN: one word-at-a-time pass over it, not a strnlen(), a hash and
 * a strncmp() a byte at a time.
 */
static u64 nqn_hashlen(const char *nqn)
{
	char cut[NVMET_QOS_NQN_MAX_LEN + 1];
	u64 hl = hashlen_string(NULL, nqn);

	if (likely(hashlen_len(hl) <= NVMET_QOS_NQN_MAX_LEN))
		return hl;
	/* as its host keeps it, so that its own name finds it again */
	strscpy(cut, nqn, sizeof(cut));
	return hashlen_string(NULL, cut);
}

static struct nq_host *lookup(const char *nqn, u64 hl)
{
	struct nq_host *host;

	hash_for_each_possible_rcu(hosts_hash, host, hnode, hashlen_hash(hl))
		if (host->hashlen == hl &&
		    !memcmp(host->nqn, nqn, hashlen_len(hl)))
			return host;
	return NULL;
}

static void host_free(struct nq_host *host)
{
	free_percpu(host->stats);
	kfree(host);
}

static struct nq_host *host_alloc(const char *nqn, u64 hl, gfp_t gfp)
{
	struct nq_host *host;

	host = kzalloc(sizeof(*host), gfp);
	if (!host)
		return NULL;
	host->weight = 100;
	host->class_id = NQ_DEFAULT_CLASS;
	host->stats = alloc_percpu_gfp(struct host_stats, gfp);
	if (!host->stats) {
		kfree(host);
		return NULL;
	}
	host->hashlen = hl;
	strscpy(host->nqn, nqn, sizeof(host->nqn));
	return host;
}

static void get_ref(struct nq_host *host)
{
	if (host != overflow)
		this_cpu_inc(host->stats->refs);
}

/*
 * A reference for the I/O path on @host, found under RCU in a record that
 * keeps it (ctrls.c) rather than by its NQN.
 */
void nq_host_ref(struct nq_host *host)
{
	get_ref(host);
}

/*
 * Drop the I/O path's reference. The barrier orders what the request did
 * (a flow added for the host) before reclaim can see the count fall.
 */
void nq_host_put(struct nq_host *host)
{
	if (host == overflow)
		return;
	smp_wmb();
	this_cpu_dec(host->stats->refs);
}

/* A domain added or freed a flow of @host. */
void nq_host_flow_added(struct nq_host *host)
{
	atomic_inc(&host->nr_flows);
}

void nq_host_flow_removed(struct nq_host *host)
{
	atomic_dec(&host->nr_flows);
}

/*
 * A domain held (+1) or let go of (-1) a request of @host: kept here so
 * that reading a host's queue takes no domain's lock.
 */
void nq_host_held(struct nq_host *host, int delta)
{
	atomic_add(delta, &host->queued);
}

/* Under hosts_lock: list and hash @new, unless the table is full. */
static bool insert(struct nq_host *new)
{
	if (nr_hosts >= READ_ONCE(max_hosts))
		return false;
	new->seq = next_seq++;
	hash_add_rcu(hosts_hash, &new->hnode, hashlen_hash(new->hashlen));
	list_add_tail_rcu(&new->lnode, &hosts_list);
	nr_hosts++;
	return true;
}

/* Under hosts_lock: the overflow host, listed from its first use on. */
static struct nq_host *fold(void)
{
	atomic64_inc(&nr_folded);
	if (!overflow_listed) {
		overflow->seq = next_seq++;
		list_add_tail_rcu(&overflow->lnode, &hosts_list);
		overflow_listed = true;
	}
	return overflow;
}

/*
 * The live host of @nqn, created if @create, with a reference if @ref.
 * Past the bound or short of memory: the overflow host if @may_fold, else
 * NULL. Takes hosts_lock only to create; allocates nothing when full.
 */
static struct nq_host *host_get(const char *nqn, gfp_t gfp, bool create,
				bool may_fold, bool ref)
{
	struct nq_host *host, *new = NULL;
	unsigned long flags;
	u64 hl = nqn_hashlen(nqn);

	rcu_read_lock();
	host = lookup(nqn, hl);
	if (host && ref)
		get_ref(host);
	rcu_read_unlock();
	if (host || !create)
		return host;

	if (READ_ONCE(nr_hosts) < READ_ONCE(max_hosts))
		new = host_alloc(nqn, hl, gfp);
	spin_lock_irqsave(&hosts_lock, flags);
	host = lookup(nqn, hl);
	if (!host && new && insert(new)) {
		host = new;
		new = NULL;
	}
	if (!host && may_fold)
		host = fold();
	if (host && ref)
		get_ref(host);
	spin_unlock_irqrestore(&hosts_lock, flags);
	if (new)
		host_free(new);
	return host;
}

/*
 * The host a request of @nqn is scheduled as, with a reference the caller
 * drops with nq_host_put() when the request completes. Never NULL: past
 * the bound, or short of memory, it is the overflow host.
 */
struct nq_host *nq_host_get(const char *nqn, gfp_t gfp)
{
	return host_get(nqn, gfp, true, true, true);
}

/*
 * An admin assigns @nqn: its host, created if need be and kept until the
 * assignment is deleted; NULL if the table is full or memory short. Under
 * the policy lock, which keeps the host alive.
 */
struct nq_host *nq_host_assign(const char *nqn)
{
	struct nq_host *host = host_get(nqn, GFP_KERNEL, true, false, false);

	if (host)
		WRITE_ONCE(host->assigned, true);
	return host;
}

/* Under the policy lock: the host goes back to default, reclaimable. */
void nq_host_unassign(struct nq_host *host)
{
	nq_host_set_policy(host, NQ_DEFAULT_CLASS, 100);
	WRITE_ONCE(host->assigned, false);
}

/* A live host of @nqn or NULL; under the policy lock, which keeps it. */
struct nq_host *nq_host_find(const char *nqn)
{
	return host_get(nqn, 0, false, false, false);
}

/*
 * A controller of @nqn was made (not a discovery one): its host is kept
 * while it lives, and listed with its class before its first I/O. The
 * host counting it, or the overflow host, which counts none.
 */
struct nq_host *nq_host_connect(const char *nqn)
{
	struct nq_host *host;
	unsigned long flags;
	bool counted;

	do {
		/* RCU keeps a host that reclaim unhashes meanwhile */
		rcu_read_lock();
		host = host_get(nqn, GFP_ATOMIC, true, true, false);
		spin_lock_irqsave(&hosts_lock, flags);
		/* reclaim unhashes under this lock: count a live host only */
		counted = host == overflow || !host->dead;
		if (host != overflow && counted)
			host->nr_ctrls++;
		spin_unlock_irqrestore(&hosts_lock, flags);
		rcu_read_unlock();
	} while (!counted);
	return host;
}

/*
 * A controller of @nqn went (its admin queue was destroyed), counted
 * among the authenticated ones if @auth (ctrls.c keeps each one's).
 */
void nq_host_disconnect(const char *nqn, bool auth)
{
	struct nq_host *host;
	unsigned long flags;

	spin_lock_irqsave(&hosts_lock, flags);
	host = lookup(nqn, nqn_hashlen(nqn));
	/* 0 already: it connected before we were loaded */
	if (host && host->nr_ctrls) {
		host->nr_ctrls--;
		if (auth && host->nr_ctrls_auth)
			host->nr_ctrls_auth--;
	}
	spin_unlock_irqrestore(&hosts_lock, flags);
}

/* A controller of @nqn authenticated (+1), or a re-authentication failed. */
void nq_host_auth_changed(const char *nqn, int delta)
{
	struct nq_host *host;
	unsigned long flags;

	spin_lock_irqsave(&hosts_lock, flags);
	host = lookup(nqn, nqn_hashlen(nqn));
	if (host && (delta > 0 || host->nr_ctrls_auth))
		host->nr_ctrls_auth += delta;
	spin_unlock_irqrestore(&hosts_lock, flags);
}

/* Host NQNs never change. */
const char *nq_host_nqn(const struct nq_host *host)
{
	return host->nqn;
}

bool nq_host_dead(const struct nq_host *host)
{
	return READ_ONCE(host->dead);
}

struct nq_host *nq_host_overflow(void)
{
	return overflow;
}

/*
 * Whether @host's class admits only controllers that authenticated: the
 * others of its NQN run as NQ_UNAUTH_NQN (hook.c).
 */
bool nq_host_auth_only(const struct nq_host *host)
{
	return !nq_mutant(auth) && nq_class_auth(READ_ONCE(host->class_id));
}

void nq_host_policy(const struct nq_host *host, int *class_id, u32 *weight)
{
	*class_id = READ_ONCE(host->class_id);
	*weight = READ_ONCE(host->weight);
}

/* The class of @nqn's host: default if it is not in the table. */
int nq_host_class_of(const char *nqn)
{
	struct nq_host *host;
	int class_id = NQ_DEFAULT_CLASS;
	u32 weight;

	rcu_read_lock();
	host = lookup(nqn, nqn_hashlen(nqn));
	if (host)
		nq_host_policy(host, &class_id, &weight);
	rcu_read_unlock();
	return class_id;
}

/* Under policy_mutex. */
void nq_host_set_policy(struct nq_host *host, int class_id, u32 weight)
{
	WRITE_ONCE(host->class_id, class_id);
	WRITE_ONCE(host->weight, weight);
}

/* Under policy_mutex: hosts of a deleted class fall back to default. */
void nq_hosts_reset_class(int class_id)
{
	struct nq_host *host;

	rcu_read_lock();
	list_for_each_entry_rcu(host, &hosts_list, lnode)
		if (host->class_id == class_id)
			WRITE_ONCE(host->class_id, NQ_DEFAULT_CLASS);
	rcu_read_unlock();
}

/* Hosts seen or assigned, per class id (the overflow host once). */
void nq_hosts_count(u32 counts[NQ_MAX_CLASSES])
{
	struct nq_host *host;

	memset(counts, 0, sizeof(u32) * NQ_MAX_CLASSES);
	rcu_read_lock();
	list_for_each_entry_rcu(host, &hosts_list, lnode)
		counts[READ_ONCE(host->class_id)]++;
	rcu_read_unlock();
}

/*
 * A request of @host's completed: into its counters, if @counted, one of
 * @dir moving @bytes; then the I/O path's reference dropped, as by
 * nq_host_put(). One call for both, on every request's path, with
 * interrupts off: this CPU's counters stay this CPU's.
 */
void nq_host_done(struct nq_host *host, bool counted, enum nq_dir dir,
		  u32 bytes, bool error)
{
	struct host_stats *s;

	lockdep_assert_irqs_disabled();
	if (counted) {
		s = this_cpu_ptr(host->stats);
		u64_stats_update_begin(&s->syncp);
		s->ios[dir] += nq_mutant(host_count) && !s->ios[dir] ? 2 : 1;
		s->bytes[dir] += bytes;
		if (error)
			s->errors++;
		u64_stats_update_end(&s->syncp);
	}
	nq_host_put(host);
}

/* The host's counters, summed over CPUs. */
static void counters(struct nq_host *host, struct nq_host_snapshot *snap)
{
	int cpu, d;

	for_each_possible_cpu(cpu) {
		const struct host_stats *s = per_cpu_ptr(host->stats, cpu);
		u64 ios[NQ_NR_DIRS], bytes[NQ_NR_DIRS], errors;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (d = 0; d < NQ_NR_DIRS; d++) {
				ios[d] = s->ios[d];
				bytes[d] = s->bytes[d];
			}
			errors = s->errors;
		} while (u64_stats_fetch_retry(&s->syncp, start));

		for (d = 0; d < NQ_NR_DIRS; d++) {
			snap->ios[d] += ios[d];
			snap->bytes[d] += bytes[d];
		}
		snap->errors += errors;
	}
}

static void snapshot(struct nq_host *host, struct nq_host_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	strscpy(snap->nqn, host->nqn, sizeof(snap->nqn));
	nq_host_policy(host, &snap->class_id, &snap->weight);
	counters(host, snap);
	snap->queued = max(atomic_read(&host->queued), 0);
	snap->ctrls = READ_ONCE(host->nr_ctrls);
	snap->ctrls_auth = READ_ONCE(host->nr_ctrls_auth);
}

/* One host by NQN, "(overflow)" too once it has been used. */
int nq_host_snapshot_nqn(const char *nqn, struct nq_host_snapshot *snap)
{
	struct nq_host *host;
	int ret = -ENOENT;

	rcu_read_lock();
	if (!strcmp(nqn, NQ_OVERFLOW_NQN))
		host = READ_ONCE(overflow_listed) ? overflow : NULL;
	else
		host = lookup(nqn, nqn_hashlen(nqn));
	if (host) {
		snapshot(host, snap);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Call @fn on a snapshot of every host created after the one numbered
 * *@pos, in creation order, until @fn returns non-zero. Creation numbers
 * only grow and the list is kept in their order, so *@pos is a cursor that
 * stays valid while hosts come and go between the parts of a netlink dump.
 */
int nq_host_walk(u64 *pos,
		 int (*fn)(const struct nq_host_snapshot *snap, void *arg),
		 void *arg)
{
	struct nq_host_snapshot snap;
	struct nq_host *host;
	int ret = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(host, &hosts_list, lnode) {
		if (host->seq <= *pos)
			continue;
		snapshot(host, &snap);
		ret = fn(&snap, arg);
		if (ret)
			break;
		*pos = host->seq;
	}
	rcu_read_unlock();
	return ret;
}

void nq_hosts_table(struct nq_hosts_info *info)
{
	info->hosts = READ_ONCE(nr_hosts);
	info->max_hosts = READ_ONCE(max_hosts);
	info->reclaimed = atomic64_read(&nr_reclaimed);
	info->folded = atomic64_read(&nr_folded);
}

static long refs(struct nq_host *host)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(host->stats, cpu)->refs);
	return sum;
}

/* What the host has done so far: changes while it does I/O. */
static u64 activity(struct nq_host *host)
{
	struct nq_host_snapshot snap = { 0 };

	counters(host, &snap);
	return snap.ios[NQ_READ] + snap.ios[NQ_WRITE] + snap.errors;
}

/*
 * Whether nobody needs @host: no admin assignment, no live controller,
 * nothing in flight now and nothing done since the last scan (a host whose
 * controller connected before we were loaded has no count to go by), for
 * host_idle_secs, or at all under @pressure. Under the policy lock; only
 * the worker writes idle_mark and idle_since.
 */
static bool unneeded(struct nq_host *host, bool pressure)
{
	u64 mark;

	if (host == overflow || READ_ONCE(host->assigned) ||
	    READ_ONCE(host->nr_ctrls)) {
		host->idle_since = 0;
		return false;
	}
	mark = activity(host);
	if (mark != host->idle_mark || refs(host)) {
		host->idle_mark = mark;
		host->idle_since = 0;
		return false;
	}
	if (!host->idle_since)
		host->idle_since = jiffies ?: 1;
	return pressure ||
	       time_after_eq(jiffies, host->idle_since +
			     READ_ONCE(host_idle_secs) * HZ);
}

/* Under hosts_lock: no lookup finds @host from now on. */
static void unhash(struct nq_host *host)
{
	hash_del_rcu(&host->hnode);
	list_del_rcu(&host->lnode);
	WRITE_ONCE(host->dead, true);
	nr_hosts--;
	list_add_tail(&host->dnode, &dying);
}

/* Unhash every unneeded host; true if any. */
static bool collect(void)
{
	/* three quarters full: make room for the hosts to come */
	bool pressure = 4ULL * READ_ONCE(nr_hosts) >= 3ULL * READ_ONCE(max_hosts);
	struct nq_host *host;
	bool any = false;

	nq_policy_lock();
	rcu_read_lock();
	list_for_each_entry_rcu(host, &hosts_list, lnode) {
		if (!unneeded(host, pressure))
			continue;
		spin_lock_irq(&hosts_lock);
		/* a controller may have connected since */
		if (!host->nr_ctrls) {
			unhash(host);
			any = true;
		}
		spin_unlock_irq(&hosts_lock);
	}
	rcu_read_unlock();
	nq_policy_unlock();
	return any;
}

/*
 * Free the dying hosts nothing points at any more. After the grace period
 * that followed their unhashing no lookup returns them, so their reference
 * counts only fall; requests admitted before may still hold flows, which
 * the domains drop once they are empty.
 */
static void release(void)
{
	struct nq_host *host, *tmp;

	list_for_each_entry_safe(host, tmp, &dying, dnode) {
		if (refs(host))
			continue;
		smp_rmb();	/* pairs with nq_host_put() */
		if (atomic_read(&host->nr_flows))
			nq_domains_drop_host(host);
		if (atomic_read(&host->nr_flows))
			continue;
		list_del(&host->dnode);
		atomic64_inc(&nr_reclaimed);
		host_free(host);
	}
}

static void reclaim(struct work_struct *w)
{
	if (collect())
		synchronize_rcu();
	release();
	if (!READ_ONCE(stopping))
		schedule_delayed_work(&reclaim_work, RECLAIM_PERIOD);
}

int nq_hosts_init(void)
{
	overflow = host_alloc(NQ_OVERFLOW_NQN, 0, GFP_KERNEL);
	if (!overflow)
		return -ENOMEM;
	INIT_DELAYED_WORK(&reclaim_work, reclaim);
	schedule_delayed_work(&reclaim_work, RECLAIM_PERIOD);
	return 0;
}

/* Before the domains go: reclaim calls into them. */
void nq_hosts_stop(void)
{
	WRITE_ONCE(stopping, true);
	cancel_delayed_work_sync(&reclaim_work);
}

/* Called once no request and no netlink reader can reach a host any more. */
void nq_hosts_exit(void)
{
	struct nq_host *host, *tmp;

	nq_hosts_stop();
	list_for_each_entry_safe(host, tmp, &hosts_list, lnode) {
		list_del(&host->lnode);
		if (host != overflow)
			host_free(host);
	}
	list_for_each_entry_safe(host, tmp, &dying, dnode) {
		list_del(&host->dnode);
		host_free(host);
	}
	hash_init(hosts_hash);
	nr_hosts = 0;
	host_free(overflow);
	overflow = NULL;
	overflow_listed = false;
}
