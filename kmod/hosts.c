// SPDX-License-Identifier: GPL-2.0
/*
 * The table of hosts, keyed by the host NQN each controller presents.
 *
 * A host is created when it connects, on its first read or write, or when
 * it is assigned, and lives until the module is unloaded, so the I/O path
 * can keep a bare pointer to it without taking a reference. Lookups are
 * lock-free (RCU); creation takes a spinlock and may run in any context
 * the transports call execute from, so it never sleeps. Counters are per CPU: the I/O path never shares a cache line with
 * another CPU, and readers sum them without blocking I/O.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stringhash.h>
#include <linux/u64_stats_sync.h>

#include "nvmet-qos.h"

/* Bounds the memory a host NQN flood can make us allocate. */
#define MAX_HOSTS	65536
/* A bucket per host at most: the I/O path's lookup is one NQN compare. */
#define HOSTS_HASH_BITS	16

struct host_stats {
	struct u64_stats_sync syncp;
	u64 ios[NQ_NR_DIRS];
	u64 bytes[NQ_NR_DIRS];
	u64 errors;
};

struct nq_host {
	struct hlist_node hnode;	/* in hosts_hash */
	struct list_head lnode;		/* in hosts_list, creation order */
	u32 hash;
	u16 class_id;			/* policy: WRITE_ONCE under policy_mutex */
	u16 weight;
	struct host_stats __percpu *stats;
	char nqn[NVMET_QOS_NQN_MAX_LEN + 1];
};

static DEFINE_HASHTABLE(hosts_hash, HOSTS_HASH_BITS);
static LIST_HEAD(hosts_list);
static DEFINE_SPINLOCK(hosts_lock);
static unsigned int nr_hosts;

static u32 nqn_hash(const char *nqn)
{
	return full_name_hash(NULL, nqn, strnlen(nqn, NVMET_QOS_NQN_MAX_LEN));
}

static struct nq_host *lookup(const char *nqn, u32 hash)
{
	struct nq_host *host;

	hash_for_each_possible_rcu(hosts_hash, host, hnode, hash)
		if (host->hash == hash &&
		    !strncmp(host->nqn, nqn, NVMET_QOS_NQN_MAX_LEN))
			return host;
	return NULL;
}

static void host_free(struct nq_host *host)
{
	free_percpu(host->stats);
	kfree(host);
}

static struct nq_host *host_alloc(const char *nqn, u32 hash, gfp_t gfp)
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
	host->hash = hash;
	strscpy(host->nqn, nqn, sizeof(host->nqn));
	return host;
}

/*
 * Return the host for @nqn, creating it on first sight. Returns NULL only
 * when memory is short or the table is full; the I/O path then leaves the
 * request untracked rather than failing it.
 */
struct nq_host *nq_host_get(const char *nqn, gfp_t gfp)
{
	struct nq_host *host, *new;
	unsigned long flags;
	u32 hash = nqn_hash(nqn);

	rcu_read_lock();
	host = lookup(nqn, hash);
	rcu_read_unlock();
	if (host)
		return host;

	new = host_alloc(nqn, hash, gfp);
	if (!new)
		return NULL;

	spin_lock_irqsave(&hosts_lock, flags);
	host = lookup(nqn, hash);
	if (!host && nr_hosts < MAX_HOSTS) {
		hash_add_rcu(hosts_hash, &new->hnode, hash);
		list_add_tail_rcu(&new->lnode, &hosts_list);
		nr_hosts++;
		host = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&hosts_lock, flags);

	if (new)
		host_free(new);
	return host;
}

/* An existing host, or NULL. Hosts live until unload: no reference. */
struct nq_host *nq_host_find(const char *nqn)
{
	struct nq_host *host;

	rcu_read_lock();
	host = lookup(nqn, nqn_hash(nqn));
	rcu_read_unlock();
	return host;
}

/* Host NQNs never change and hosts live until unload. */
const char *nq_host_nqn(const struct nq_host *host)
{
	return host->nqn;
}

void nq_host_policy(const struct nq_host *host, int *class_id, u32 *weight)
{
	*class_id = READ_ONCE(host->class_id);
	*weight = READ_ONCE(host->weight);
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

/* Hosts seen or assigned, per class id. */
void nq_hosts_count(u32 counts[NQ_MAX_CLASSES])
{
	struct nq_host *host;

	memset(counts, 0, sizeof(u32) * NQ_MAX_CLASSES);
	rcu_read_lock();
	list_for_each_entry_rcu(host, &hosts_list, lnode)
		counts[READ_ONCE(host->class_id)]++;
	rcu_read_unlock();
}

void nq_host_account(struct nq_host *host, enum nq_dir dir, u32 bytes,
		     bool error)
{
	struct host_stats *s = get_cpu_ptr(host->stats);

	u64_stats_update_begin(&s->syncp);
	s->ios[dir]++;
	s->bytes[dir] += bytes;
	if (error)
		s->errors++;
	u64_stats_update_end(&s->syncp);
	put_cpu_ptr(host->stats);
}

static void snapshot(struct nq_host *host, struct nq_host_snapshot *snap)
{
	int cpu, d;

	memset(snap, 0, sizeof(*snap));
	strscpy(snap->nqn, host->nqn, sizeof(snap->nqn));
	snap->host = host;
	nq_host_policy(host, &snap->class_id, &snap->weight);
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

int nq_host_snapshot_nqn(const char *nqn, struct nq_host_snapshot *snap)
{
	struct nq_host *host;
	int ret = -ENOENT;

	rcu_read_lock();
	host = lookup(nqn, nqn_hash(nqn));
	if (host) {
		snapshot(host, snap);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Call @fn on a snapshot of every host from position *@pos on, in creation
 * order, until @fn returns non-zero. Hosts are only ever appended to
 * hosts_list, so the position is a stable cursor for a netlink dump that
 * spans several messages; on return it names the host @fn refused, or the
 * end of the list.
 */
int nq_host_walk(unsigned long *pos,
		 int (*fn)(const struct nq_host_snapshot *snap, void *arg),
		 void *arg)
{
	struct nq_host_snapshot snap;
	struct nq_host *host;
	unsigned long idx = 0;
	int ret = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(host, &hosts_list, lnode) {
		if (idx++ < *pos)
			continue;
		snapshot(host, &snap);
		ret = fn(&snap, arg);
		if (ret)
			break;
		(*pos)++;
	}
	rcu_read_unlock();
	return ret;
}

int nq_hosts_init(void)
{
	return 0;
}

/* Called once no request and no netlink reader can reach a host any more. */
void nq_hosts_exit(void)
{
	struct nq_host *host, *tmp;

	list_for_each_entry_safe(host, tmp, &hosts_list, lnode) {
		list_del(&host->lnode);
		host_free(host);
	}
	hash_init(hosts_hash);
	nr_hosts = 0;
}
