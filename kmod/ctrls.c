// SPDX-License-Identifier: GPL-2.0
/*
 * The controllers nvmet made while we were attached, by address, each
 * with whether its admin queue has authenticated: a host's count of
 * authenticated controllers then rises and falls by the same controller,
 * whatever nvmet's keys did in between (a key added after a controller
 * was made, and its host re-authenticating; a re-authentication that
 * failed). Every change a controller makes to its host's counts goes
 * through here. A controller made before we attached, or whose record
 * could not be allocated, has none and counts as not authenticated.
 *
 * A record also keeps its controller's host, so that the I/O path finds a
 * request's host by its controller's address, without hashing the NQN
 * (hook.c). The host stays while the record does: it counts the
 * controller (nq_host_connect()), and reclaim takes no host a controller
 * counts. Records are looked up under RCU, the reference taken in the
 * same read section (the I/O path's: its interrupts are off, which a grace
 * period waits out as it does rcu_read_lock()): a request that found a
 * record did so before the controller's count fell, so before reclaim
 * could unhash the host, and reclaim's grace period after that waits for
 * it to hold the reference.
 *
 * A record also keeps the flow its controller's last request went by
 * (domain.c's, opaque here), so that the next one, most often to the
 * same namespace, finds its domain and flow without a lookup. The flow is
 * its host's, and a host's flows are freed only once reclaim has
 * unhashed the host and no reference is left: as long as the record can
 * be found, the flow stays, and the reference a request takes keeps it
 * after that.
 */
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "nvmet-qos.h"

#define CTRLS_HASH_BITS	10

struct ctrl_rec {
	struct hlist_node node;
	struct rcu_head rcu;
	const void *key;
	struct nq_host *host;		/* NULL: the overflow host, looked up */
	struct nq_flow *hint;		/* of @host, set by the I/O path */
	bool auth;
};

static DEFINE_HASHTABLE(recs, CTRLS_HASH_BITS);
static DEFINE_SPINLOCK(recs_lock);

/* Under recs_lock or RCU. */
static struct ctrl_rec *lookup(const void *key)
{
	struct ctrl_rec *r;

	hash_for_each_possible_rcu(recs, r, node, hash_ptr(key, CTRLS_HASH_BITS),
				   lockdep_is_held(&recs_lock))
		if (r->key == key)
			return r;
	return NULL;
}

/*
 * Controller @key of host @nqn was made; any context. The host counts it
 * from now on; false if memory was short for its record.
 */
bool nq_ctrl_add(const void *key, const char *nqn)
{
	struct ctrl_rec *r = kzalloc(sizeof(*r), GFP_ATOMIC);
	struct nq_host *host = nq_host_connect(nqn);
	struct ctrl_rec *stale;
	unsigned long flags;

	if (r) {
		r->key = key;
		/*
		 * The overflow host is not kept: once the table has room,
		 * the controller's requests find a host of their own by NQN.
		 */
		r->host = host == nq_host_overflow() ? NULL : host;
	}
	spin_lock_irqsave(&recs_lock, flags);
	/*
	 * A record of this address outlived its controller only if we could
	 * not probe controllers' ends (bind.c): its host keeps the count,
	 * as such hosts do, but this controller's requests must not find it.
	 */
	stale = lookup(key);
	if (stale)
		hash_del_rcu(&stale->node);
	if (r)
		hash_add_rcu(recs, &r->node, hash_ptr(key, CTRLS_HASH_BITS));
	spin_unlock_irqrestore(&recs_lock, flags);
	if (stale)
		kfree_rcu(stale, rcu);
	return r != NULL;
}

/*
 * Controller @key's admin queue, of host @nqn, is now authenticated or
 * not: +1 or -1 when that changed, 0 when not (or @key has no record).
 * The host's count follows under our lock, so that it cannot cross the
 * controller's removal: nvmet may complete an authentication command
 * after its admin queue's destruction began.
 */
int nq_ctrl_set_auth(const void *key, const char *nqn, bool auth)
{
	unsigned long flags;
	struct ctrl_rec *r;
	int delta = 0;

	spin_lock_irqsave(&recs_lock, flags);
	r = lookup(key);
	if (r && r->auth != auth) {
		r->auth = auth;
		delta = auth ? 1 : -1;
		nq_host_auth_changed(nqn, delta);
	}
	spin_unlock_irqrestore(&recs_lock, flags);
	return delta;
}

/*
 * Controller @key of host @nqn goes: the host counts it no more, as
 * authenticated if it was, which this returns.
 */
bool nq_ctrl_del(const void *key, const char *nqn)
{
	unsigned long flags;
	struct ctrl_rec *r;
	bool auth = false;

	spin_lock_irqsave(&recs_lock, flags);
	r = lookup(key);
	if (r) {
		hash_del_rcu(&r->node);
		auth = r->auth;
	}
	nq_host_disconnect(nqn, auth);
	spin_unlock_irqrestore(&recs_lock, flags);
	if (r)
		kfree_rcu(r, rcu);
	return auth;
}

/*
 * The host of controller @key with a reference (as nq_host_get() gives
 * one), or NULL: no record, or its host is the overflow host. *@hint is
 * the flow of that host that the record keeps (NULL: none yet), valid
 * while the reference is held. With interrupts off: a read section.
 */
struct nq_host *nq_ctrl_host(const void *key, struct nq_flow **hint)
{
	struct nq_host *host = NULL;
	struct ctrl_rec *r;

	lockdep_assert_irqs_disabled();
	*hint = NULL;
	r = lookup(key);
	if (r && r->host) {
		host = r->host;
		nq_host_ref(host);
		*hint = READ_ONCE(r->hint);
	}
	return host;
}

/*
 * Controller @key's request went by @hint, a flow of @host: kept for the
 * next, unless the controller at @key is now another host's (its address
 * reused), whose requests must never reach another host's flow. With
 * interrupts off, as nq_ctrl_host().
 */
void nq_ctrl_hint(const void *key, const struct nq_host *host,
		  struct nq_flow *hint)
{
	struct ctrl_rec *r;

	lockdep_assert_irqs_disabled();
	r = lookup(key);
	if (r && r->host == host)
		WRITE_ONCE(r->hint, hint);
}

/* Once no probe can run: the records of controllers still there. */
void nq_ctrls_exit(void)
{
	struct hlist_node *tmp;
	struct ctrl_rec *r;
	int bkt;

	hash_for_each_safe(recs, bkt, tmp, r, node) {
		hash_del(&r->node);
		kfree(r);
	}
}
