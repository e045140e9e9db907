// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling domains: one per backing device, each running the scheduler
 * core (sched.c, depth.c) under its own spinlock.
 *
 * Requests the core holds back are dispatched by dispatch.c.
 *
 * Domains live until module unload. A flow (one host on one domain) lives
 * until its host is reclaimed (hosts.c) and the flow is empty; a host that
 * is dying, or a flow that cannot be allocated, uses the domain's spill
 * flow, the overflow host's, so a request is scheduled whatever happens.
 * The I/O path looks both up under RCU and creates them with GFP_ATOMIC.
 * Both are hashed in tables sized for the most the module takes
 * (NQ_MAX_DOMAINS devices, 65,536 hosts on one or two devices each), so a
 * lookup costs about one entry whatever the number of hosts and devices.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/netlink.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "domain.h"
#include "mutant.h"

#define DOMAIN_HASH_BITS	10	/* NQ_MAX_DOMAINS */
#define FLOW_HASH_BITS		16

static LIST_HEAD(domains);
static DEFINE_HASHTABLE(domain_hash, DOMAIN_HASH_BITS);
static DEFINE_SPINLOCK(domains_lock);
/* Every flow, by host and domain; added under its domain's lock and this. */
static DEFINE_HASHTABLE(flow_hash, FLOW_HASH_BITS);
static DEFINE_SPINLOCK(flows_lock);
static int nr_domains;
static atomic64_t nr_flows, flows_reclaimed, flows_spilled;
/* Requests run unscheduled because memory was short (tracker or domain). */
static atomic64_t unscheduled;
static bool bypass_all;

static u64 now_ns(void)
{
	return ktime_get_ns();
}

/* Make sure class slot @id of @d mirrors the policy table; under d->lock. */
static struct nqs_class *domain_class(struct nq_domain *d, int id)
{
	struct nqs_class_conf conf;
	u32 gen;

	if (!nq_class_conf(id, &gen, &conf)) {
		id = NQ_DEFAULT_CLASS;
		nq_class_conf(id, &gen, &conf);
	}
	if (d->cls_gen[id] != gen) {
		/* A reused id: no flow can still point at the old class. */
		nq_slices_reclaim(d, now_ns());
		nqs_class_init(&d->cls[id], &conf, now_ns());
		d->cls_gen[id] = gen;
	}
	return &d->cls[id];
}

static unsigned long flow_key(const struct nq_domain *d,
			      const struct nq_host *host)
{
	return (unsigned long)host ^ hash_ptr(d, BITS_PER_LONG);
}

/* @host's flow on @d, or NULL; the caller keeps @host. */
struct nq_flow *nq_flow_find(struct nq_domain *d, struct nq_host *host)
{
	struct nq_flow *fl, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(flow_hash, fl, hnode, flow_key(d, host)) {
		if (fl->host == host && fl->dom == d) {
			found = fl;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Under d->lock: make @fl, numbered already, the flow of @host on @d. */
static void flow_add(struct nq_domain *d, struct nq_flow *fl,
		     struct nq_host *host)
{
	int class_id;
	u32 weight;

	nq_host_policy(host, &class_id, &weight);
	fl->host = host;
	fl->dom = d;
	nqs_flow_init(&fl->f, domain_class(d, class_id), weight);
	list_add_tail(&fl->lnode, &d->flow_list);
	spin_lock(&flows_lock);
	hash_add_rcu(flow_hash, &fl->hnode, flow_key(d, host));
	spin_unlock(&flows_lock);
}

/*
 * Under d->lock: the overflow host's flow, set up on first use. It works
 * whatever happens; short of memory, dumps do not show it.
 */
static struct nq_flow *spill(struct nq_domain *d)
{
	if (!d->spill.dom) {
		xa_store(&d->flows, 0, &d->spill, GFP_ATOMIC);
		flow_add(d, &d->spill, nq_host_overflow());
	}
	return &d->spill;
}

/*
 * Under d->lock, which also keeps two CPUs from adding one flow twice. A
 * dying host gets no new flow, so that once reclaim has dropped its flows
 * from a domain none comes back.
 */
static struct nq_flow *flow_get(struct nq_domain *d, struct nq_host *host)
{
	struct nq_flow *fl = nq_flow_find(d, host);

	if (fl)
		return fl;
	if (host == nq_host_overflow() || nq_host_dead(host))
		return spill(d);
	fl = kzalloc(sizeof(*fl), GFP_ATOMIC);
	if (fl) {
		spin_lock_init(&fl->lock);
		fl->seq = d->flow_seq + 1;
		if (xa_err(xa_store(&d->flows, fl->seq, fl, GFP_ATOMIC))) {
			kfree(fl);
			fl = NULL;
		}
	}
	if (!fl) {
		atomic64_inc(&flows_spilled);
		return spill(d);
	}
	d->flow_seq = fl->seq;
	flow_add(d, fl, host);
	nq_host_flow_added(host);
	atomic64_inc(&nr_flows);
	return fl;
}

/* Under d->lock: @fl is empty and its host is dying. */
static void flow_free(struct nq_domain *d, struct nq_flow *fl)
{
	list_del(&fl->lnode);
	xa_erase(&d->flows, fl->seq);
	spin_lock(&flows_lock);
	hash_del_rcu(&fl->hnode);
	spin_unlock(&flows_lock);
	/* for a dump that found it under RCU: gone */
	fl->dom = NULL;
	nqs_flow_exit(&fl->f);
	nq_host_flow_removed(fl->host);
	atomic64_dec(&nr_flows);
	atomic64_inc(&flows_reclaimed);
	/* nq_flow_find() may be walking its hash chain */
	kfree_rcu(fl, rcu);
}

/*
 * Reclaim: free the flows of dying @host that hold nothing. One still
 * holding requests is left for a later call.
 */
void nq_domains_drop_host(struct nq_host *host)
{
	struct nq_domain *d;
	struct nq_flow *fl;
	unsigned long flags;

	rcu_read_lock();
	list_for_each_entry_rcu(d, &domains, node) {
		spin_lock_irqsave(&d->lock, flags);
		fl = nq_flow_find(d, host);
		if (fl && !fl->f.nr_queued && !atomic_read(&fl->inflight))
			flow_free(d, fl);
		spin_unlock_irqrestore(&d->lock, flags);
	}
	rcu_read_unlock();
}

void nq_domains_table(struct nq_hosts_info *info)
{
	info->flows = atomic64_read(&nr_flows);
	info->flows_reclaimed = atomic64_read(&flows_reclaimed);
	info->flows_spilled = atomic64_read(&flows_spilled);
	info->unscheduled = atomic64_read(&unscheduled);
}

/* Bring one flow in line with its host's policy; under d->lock. */
static void flow_apply(struct nq_domain *d, struct nq_flow *fl)
{
	int class_id;
	u32 weight;

	nq_host_policy(fl->host, &class_id, &weight);
	fl->f.weight = weight;
	nqs_flow_set_class(&d->sched, &fl->f, domain_class(d, class_id));
}


/* Under RCU or domains_lock. */
static struct nq_domain *domain_find(u32 key)
{
	struct nq_domain *d;

	hash_for_each_possible_rcu(domain_hash, d, hnode, key,
				   lockdep_is_held(&domains_lock))
		if (d->key == key)
			return d;
	return NULL;
}

static void domain_free(struct nq_domain *d)
{
	nq_slices_free(d);
	nq_retries_exit(&d->retries);
	xa_destroy(&d->flows);
	kfree(d);
}

static struct nq_domain *domain_alloc(u32 key, const char *name, gfp_t gfp)
{
	struct nq_domain *d;

	if (nq_fault(nomem_io) && !gfpflags_allow_blocking(gfp))
		return NULL;
	d = kzalloc(sizeof(*d), gfp);
	if (!d)
		return NULL;
	/* Short of them in atomic context, the worker makes the domain. */
	if (nq_slices_alloc(d, gfp)) {
		kfree(d);
		return NULL;
	}
	d->key = key;
	if (name) {
		strscpy(d->name, name, sizeof(d->name));
		d->named = true;
	}
	spin_lock_init(&d->lock);
	spin_lock_init(&d->spill.lock);
	nqs_domain_init(&d->sched, now_ns());
	INIT_LIST_HEAD(&d->flow_list);
	nq_retries_init(&d->retries);
	/* taken under d->lock only, with interrupts off */
	xa_init_flags(&d->flows, XA_FLAGS_LOCK_IRQ);
	nq_dispatch_setup(d);
	d->bypass = READ_ONCE(bypass_all);
	d->rate_ns = now_ns();
	return d;
}

/*
 * A domain configured before its device did I/O has no name yet; the
 * first request brings it.
 */
static void domain_name(struct nq_domain *d, const char *name)
{
	unsigned long flags;

	spin_lock_irqsave(&d->lock, flags);
	if (!d->named) {
		strscpy(d->name, name, sizeof(d->name));
		WRITE_ONCE(d->named, true);
	}
	spin_unlock_irqrestore(&d->lock, flags);
}

/* Give @d the device's name if it has none yet (configured before I/O). */
static struct nq_domain *domain_named(struct nq_domain *d, const char *name)
{
	if (name && unlikely(!READ_ONCE(d->named)))
		domain_name(d, name);
	return d;
}

/* The domain of @key if there is one; under nothing. */
static struct nq_domain *domain_lookup(u32 key, const char *name)
{
	struct nq_domain *d;

	rcu_read_lock();
	d = domain_find(key);
	rcu_read_unlock();
	return d ? domain_named(d, name) : NULL;
}

/*
 * Add the domain of @key (or find it, added meanwhile); NULL if short of
 * memory or of slots.
 */
static struct nq_domain *domain_add(u32 key, const char *name, gfp_t gfp)
{
	struct nq_domain *d, *new;
	unsigned long flags;

	/* Past the bound, allocate nothing only to free it again. */
	if (READ_ONCE(nr_domains) >= NQ_MAX_DOMAINS)
		return NULL;
	new = domain_alloc(key, name, gfp);
	if (!new)
		return NULL;
	spin_lock_irqsave(&domains_lock, flags);
	d = domain_find(key);
	if (!d && nr_domains < NQ_MAX_DOMAINS) {
		list_add_tail_rcu(&new->node, &domains);
		hash_add_rcu(domain_hash, &new->hnode, key);
		nr_domains++;
		d = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&domains_lock, flags);
	if (new)
		domain_free(new);
	return d ? domain_named(d, name) : NULL;
}

/* Find or add the domain of @key; NULL if short of memory or of slots. */
static struct nq_domain *domain_get(u32 key, const char *name, gfp_t gfp)
{
	return domain_lookup(key, name) ?: domain_add(key, name, gfp);
}

/* Under d->lock, the slices reclaimed. */
static void shape_set(struct nq_domain *d, const struct nq_shape *shape)
{
	nqs_domain_set_tags(&d->sched, shape->tags);
	nq_slices_map(d, shape->queues, shape->map);
	nqs_domain_set_queues(&d->sched, shape->queues);
}

/*
 * Follow the device's tags and queues: a reset or an admin may change
 * them, and with their number the CPUs' queues.
 */
static void domain_shape(struct nq_domain *d, const struct nq_shape *shape)
{
	unsigned long flags;

	spin_lock_irqsave(&d->lock, flags);
	/* A stripe's shape is its members', not the device's own. */
	if (!d->sched.stripe_n) {
		nq_slices_reclaim(d, now_ns());
		shape_set(d, shape);
	}
	spin_unlock_irqrestore(&d->lock, flags);
}

/*
 * Stripe the domain over the members @conf gives, or not (chunk 0):
 * then its own shape comes back with its next request. Under d->lock,
 * the slices reclaimed.
 */
static void domain_stripe(struct nq_domain *d, const struct nq_dev_conf *conf)
{
	static const struct nq_shape none;

	d->stripe_chunk = conf->stripe_chunk;
	d->nr_members = conf->stripe_chunk ? conf->nr_members : 0;
	memcpy(d->members, conf->members, sizeof(d->members));
	shape_set(d, d->nr_members ? &conf->stripe : &none);
	nqs_domain_set_stripe(&d->sched, d->nr_members,
			      conf->stripe_chunk / 512);
}

/*
 * A domain the I/O path could not allocate (some 15 KB, and its slices
 * of some 700 bytes a CPU, in atomic context) is made by a worker that
 * may sleep for it, so that memory pressure costs a device its
 * scheduling for a moment, not for as long as it lasts, and its requests
 * do not retry the allocation one by one meanwhile. One device is
 * awaited at a time; the others retry.
 */
static DEFINE_SPINLOCK(wanted_lock);
static bool wanted_busy;
static u32 wanted_key;
static char wanted_name[sizeof_field(struct nq_domain, name)];

static void wanted_work_fn(struct work_struct *w)
{
	char name[sizeof_field(struct nq_domain, name)];
	u32 key;

	spin_lock_irq(&wanted_lock);
	key = wanted_key;
	strscpy(name, wanted_name, sizeof(name));
	spin_unlock_irq(&wanted_lock);
	domain_get(key, name[0] ? name : NULL, GFP_KERNEL);
	spin_lock_irq(&wanted_lock);
	WRITE_ONCE(wanted_busy, false);
	spin_unlock_irq(&wanted_lock);
}
static DECLARE_WORK(wanted_work, wanted_work_fn);

/* The worker is making @key's domain already. */
static bool domain_awaited(u32 key)
{
	unsigned long flags;
	bool awaited;

	if (!READ_ONCE(wanted_busy))
		return false;
	spin_lock_irqsave(&wanted_lock, flags);
	awaited = wanted_busy && wanted_key == key;
	spin_unlock_irqrestore(&wanted_lock, flags);
	return awaited;
}

/* Ask the worker for @key's domain, unless it is busy with another. */
static void domain_want(u32 key, const char *name)
{
	unsigned long flags;

	spin_lock_irqsave(&wanted_lock, flags);
	if (!wanted_busy) {
		WRITE_ONCE(wanted_busy, true);
		wanted_key = key;
		strscpy(wanted_name, name ?: "", sizeof(wanted_name));
		queue_work(nq_wq, &wanted_work);
	}
	spin_unlock_irqrestore(&wanted_lock, flags);
}

/* A request runs unscheduled because memory was short: counted. */
void nq_domains_unscheduled(void)
{
	atomic64_inc(&unscheduled);
}

/*
 * The domain of backing device @key, created on first use; NULL if short
 * of memory (counted, and made by the worker) or past NQ_MAX_DOMAINS: the
 * request then goes unscheduled. @shape: the device's tags and queues.
 */
struct nq_domain *nq_domain_get(u32 key, const char *name,
				const struct nq_shape *shape)
{
	struct nq_domain *d = domain_lookup(key, name);

	if (!d && !domain_awaited(key))
		d = domain_add(key, name, GFP_ATOMIC | __GFP_NOWARN);
	if (!d) {
		/* Past NQ_MAX_DOMAINS memory is not why, and no worker helps. */
		if (READ_ONCE(nr_domains) < NQ_MAX_DOMAINS) {
			domain_want(key, name);
			nq_domains_unscheduled();
		}
		return NULL;
	}
	if (unlikely(READ_ONCE(d->shape_due)))
		WRITE_ONCE(d->shape_due, false);
	if (unlikely(!READ_ONCE(d->sched.stripe_n) &&
		     (READ_ONCE(d->sched.tags) != shape->tags ||
		      READ_ONCE(d->sched.nr_hwq) != shape->queues)))
		domain_shape(d, shape);
	return d;
}

/*
 * The domain of @key, if @hint, a flow a controller's last request went
 * by (ctrls.c), is on it: the next request, most often to the same
 * device, then needs no lookup, neither of the domain nor of its flow.
 * NULL: look it up (nq_domain_get()), as also once a second, so that
 * the domain still follows its device's shape. The caller holds a
 * reference on the flow's host, which keeps the flow.
 */
struct nq_domain *nq_domain_hinted(const struct nq_flow *hint, u32 key)
{
	struct nq_domain *d = hint ? READ_ONCE(hint->dom) : NULL;

	if (!d || d->key != key || READ_ONCE(d->shape_due))
		return NULL;
	return d;
}

static void snapshot(struct nq_domain *d, struct nq_dev_snapshot *s);

/*
 * Apply an admin's settings to the domain of @key, creating it if its
 * device has not done I/O yet, and copy the result into @snap (for the
 * events group). Values were validated by the caller.
 */
int nq_domain_configure(u32 key, const struct nq_dev_conf *conf,
			struct nq_dev_snapshot *snap,
			struct netlink_ext_ack *extack)
{
	struct nq_domain *d = domain_get(key, NULL, GFP_KERNEL);
	struct nqs_cost cost;
	unsigned long flags;

	if (!d) {
		NL_SET_ERR_MSG(extack, "too many devices (at most "
			       __stringify(NQ_MAX_DOMAINS) ") or out of memory");
		return -ENOSPC;
	}
	spin_lock_irqsave(&d->lock, flags);
	nq_slices_reclaim(d, now_ns());
	cost = d->sched.cost;
	if (conf->set & NQ_DEV_SET_WRITE_COST)
		cost.write_pct = conf->write_pct;
	if (conf->set & NQ_DEV_SET_IO_COST)
		cost.io_cost = conf->io_cost;
	nqs_domain_set_cost(&d->sched, &cost);
	if (conf->set & NQ_DEV_SET_CAPACITY)
		nqs_domain_set_capacity(&d->sched, conf->capacity, now_ns());
	if (conf->set & NQ_DEV_SET_STRIPE)
		domain_stripe(d, conf);
	spin_unlock_irqrestore(&d->lock, flags);
	nq_domain_kick(d);
	snapshot(d, snap);
	return 0;
}

/*
 * With interrupts off: offer a request to its domain under its lock, the
 * slices having not taken it (nq_domain_submit()): @fl is @host's flow if
 * that was found, *@hint set to the flow the request went by if that is
 * @host's own.
 */
bool nq_domain_admit(struct nq_domain *d, struct nq_host *host,
		     struct nq_flow *fl, struct nq_flow **hint,
		     struct nqs_req *r, u64 *now)
{
	bool go, kick = false;
	u64 t;

	lockdep_assert_irqs_disabled();
	spin_lock(&d->lock);
	if (d->bypass) {
		/* Not scheduled: completion must not account it. */
		r->flow = NULL;
		spin_unlock(&d->lock);
		*now = 0;
		return true;
	}
	/* Found already: a host's requests hold it, so its flow stays. */
	if (!fl) {
		fl = flow_get(d, host);
		if (fl->host == host)
			*hint = fl;
	}
	atomic_inc(&fl->inflight);
	r->flow = &fl->f;
	d->admitted++;
	t = now_ns();
	/* A command this domain asked its host to send again keeps its place. */
	r->retried = 0;
	if (d->retries.n) {
		r->key = nq_req_key(r);
		nq_retries_take(&d->retries, fl->host, r->key, t, &r->first_ns,
				&r->retried);
	}
	r->hwq = nq_cpu_hwq(d);
	go = nqs_admit(&d->sched, r, t);
	if (!go)
		go = nq_slices_refused(d, r, t);
	if (go) {
		nq_slices_grant(d, r->flow->cls, t);
	} else {
		nqs_hold(&d->sched, r, t);
		nq_host_held(fl->host, 1);
		kick = nq_domain_wake(d, nqs_held_next(&d->sched, t), t);
	}
	spin_unlock(&d->lock);
	if (kick)
		nq_domain_kick(d);
	*now = t;
	return go;
}

/* Once a second or so, under d->lock: the rates. */
void nq_domain_tick(struct nq_domain *d, u64 now)
{
	struct nq_flow *fl;

	if (now - d->rate_ns < NSEC_PER_SEC)
		return;
	list_for_each_entry(fl, &d->flow_list, lnode) {
		spin_lock(&fl->lock);
		nq_stats_tick(&fl->stats, now);
		spin_unlock(&fl->lock);
	}
	d->rate = nqs_rate(d->sched.completed_cost - d->rate_cost,
			   now - d->rate_ns);
	d->rate_cost = d->sched.completed_cost;
	d->rate_ns = now;
	WRITE_ONCE(d->shape_due, true);
}

/* With interrupts off: @r done after @lat_ns, which no slice took. */
void nq_domain_done(struct nq_domain *d, struct nqs_req *r, u64 lat_ns,
		    u64 now)
{
	bool kick;

	lockdep_assert_irqs_disabled();
	spin_lock(&d->lock);
	d->completed++;
	kick = nq_domain_wake(d, nqs_complete(&d->sched, r, lat_ns, now), now);
	if (nqs_leased_over(&d->sched))
		nq_slices_reclaim(d, now);
	nq_flow_done(nq_flow_of(r), r, lat_ns);
	nq_domain_tick(d, now);
	spin_unlock(&d->lock);
	if (kick)
		nq_domain_kick(d);
}

/* Push the policy to every domain; queued requests follow at once. */
void nq_domains_apply(void)
{
	struct nq_domain *d;
	struct nq_flow *fl;
	unsigned long flags;
	int id;

	rcu_read_lock();
	list_for_each_entry_rcu(d, &domains, node) {
		spin_lock_irqsave(&d->lock, flags);
		nq_slices_reclaim(d, now_ns());
		for (id = 0; id < NQ_MAX_CLASSES; id++) {
			struct nqs_class_conf conf;
			u32 gen;

			if (d->cls_gen[id] && nq_class_conf(id, &gen, &conf) &&
			    gen == d->cls_gen[id])
				nqs_class_set_conf(&d->cls[id], &conf, now_ns());
		}
		list_for_each_entry(fl, &d->flow_list, lnode)
			flow_apply(d, fl);
		spin_unlock_irqrestore(&d->lock, flags);
		nq_domain_kick(d);
	}
	rcu_read_unlock();
}

/* Unload: stop holding requests and release every one held. */
void nq_domains_bypass(void)
{
	struct nq_domain *d;
	unsigned long flags;

	WRITE_ONCE(bypass_all, true);
	rcu_read_lock();
	list_for_each_entry_rcu(d, &domains, node) {
		spin_lock_irqsave(&d->lock, flags);
		d->bypass = true;
		nq_slices_reclaim(d, now_ns());
		spin_unlock_irqrestore(&d->lock, flags);
		nq_domain_kick(d);
	}
	rcu_read_unlock();
	flush_workqueue(nq_wq);
}

static void snapshot(struct nq_domain *d, struct nq_dev_snapshot *s)
{
	unsigned long flags;

	spin_lock_irqsave(&d->lock, flags);
	/* What is in flight, not what the slices hold room for. */
	nq_slices_reclaim(d, now_ns());
	s->id = d->key;
	strscpy(s->name, d->name, sizeof(s->name));
	s->depth = d->sched.depth;
	s->inflight = d->sched.inflight;
	s->queued = d->sched.nr_queued;
	s->cost = d->sched.completed_cost;
	s->rate = d->rate;
	s->write_pct = d->sched.cost.write_pct;
	s->io_cost = d->sched.cost.io_cost;
	s->capacity = d->sched.capacity.rate;
	nq_slices_counts(d, &s->fast, &s->completed);
	s->admitted = d->admitted + s->fast;
	s->completed += d->completed;
	s->retried = d->retried;
	s->forced = d->forced;
	s->tags = d->sched.tags;
	s->queues = d->sched.nr_hwq;
	s->stripe_chunk = d->stripe_chunk;
	s->nr_members = d->nr_members;
	memcpy(s->members, d->members, sizeof(s->members));
	spin_unlock_irqrestore(&d->lock, flags);
}

int nq_domain_walk(unsigned long *pos,
		   int (*fn)(const struct nq_dev_snapshot *snap, void *arg),
		   void *arg)
{
	struct nq_dev_snapshot snap;
	struct nq_domain *d;
	unsigned long idx = 0;
	int ret = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(d, &domains, node) {
		if (idx++ < *pos)
			continue;
		snapshot(d, &snap);
		ret = fn(&snap, arg);
		if (ret)
			break;
		(*pos)++;
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Copy @fl of @d into @snap: one flow per hold of the lock, however many
 * the device has. False if it went away (or, the spill flow, is unused).
 */
static bool flow_snapshot(struct nq_domain *d, struct nq_flow *fl,
			  struct nq_flow_snapshot *snap)
{
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&d->lock, flags);
	if (fl->dom == d) {
		snap->dev_id = d->key;
		strscpy(snap->dev_name, d->name, sizeof(snap->dev_name));
		snap->class_id = fl->f.cls - d->cls;
		snap->queued = fl->f.nr_queued;
		snap->idle = now_ns() - d->rate_ns > 2 * NSEC_PER_SEC;
		spin_lock(&fl->lock);
		snap->st = fl->stats;
		spin_unlock(&fl->lock);
		strscpy(snap->nqn, nq_host_nqn(fl->host), sizeof(snap->nqn));
		found = true;
	}
	spin_unlock_irqrestore(&d->lock, flags);
	return found;
}

/*
 * Mutant dump_walk: the walk a dump used to make for each flow it copied,
 * under the domain's lock with interrupts off, through the flows before
 * it in creation order.
 */
static void mutant_walk_to(struct nq_domain *d, unsigned long seq)
{
	struct nq_flow *fl;
	unsigned long flags;

	spin_lock_irqsave(&d->lock, flags);
	list_for_each_entry(fl, &d->flow_list, lnode)
		if (fl->seq >= seq)
			break;
	spin_unlock_irqrestore(&d->lock, flags);
}

/*
 * Every flow of every domain, from position @pos (domain, flow number),
 * which is advanced past each flow @fn accepted. Flows are numbered in
 * creation order and found by number, so a position stays valid between
 * calls while flows come and go, and resuming costs a lookup, not a walk.
 */
int nq_flow_walk(u64 pos[2],
		 int (*fn)(const struct nq_flow_snapshot *snap, void *arg),
		 void *arg)
{
	struct nq_flow_snapshot *snap;
	struct nq_domain *d;
	struct nq_flow *fl;
	unsigned long idx;
	u64 nr = 0;
	int ret = 0;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	rcu_read_lock();
	list_for_each_entry_rcu(d, &domains, node) {
		if (nr++ < pos[0])
			continue;
		xa_for_each_start(&d->flows, idx, fl, pos[1]) {
			if (nq_mutant(dump_walk))
				mutant_walk_to(d, idx);
			if (flow_snapshot(d, fl, snap)) {
				ret = fn(snap, arg);
				if (ret)
					goto out;
			}
			pos[1] = idx + 1;
		}
		pos[0]++;
		pos[1] = 0;
	}
out:
	rcu_read_unlock();
	kfree(snap);
	return ret;
}

void nq_domains_class_stats(int id, struct nq_class_stats *st)
{
	struct nq_domain *d;
	unsigned long flags;
	u32 gen;
	struct nqs_class_conf conf;

	memset(st, 0, sizeof(*st));
	if (!nq_class_conf(id, &gen, &conf))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(d, &domains, node) {
		spin_lock_irqsave(&d->lock, flags);
		/* What the slices admitted, charged. */
		nq_slices_reclaim(d, now_ns());
		if (d->cls_gen[id] == gen) {
			st->ios += d->cls[id].disp_ios;
			st->bytes[0] += d->cls[id].disp_bytes[0];
			st->bytes[1] += d->cls[id].disp_bytes[1];
			st->cost += d->cls[id].disp_cost;
			st->queued += d->cls[id].nr_queued;
		}
		spin_unlock_irqrestore(&d->lock, flags);
	}
	rcu_read_unlock();
}

int nq_domains_init(const struct nq_req_ops *ops)
{
	return nq_dispatch_init(ops);
}

/* Called once nothing can reach a domain any more. */
void nq_domains_exit(void)
{
	struct nq_domain *d, *dtmp;
	struct nq_flow *fl, *ftmp;

	/* Nothing asks for a domain any more: no new one after this. */
	cancel_work_sync(&wanted_work);
	list_for_each_entry_safe(d, dtmp, &domains, node) {
		nq_dispatch_stop(d);
		WARN_ON_ONCE(d->sched.nr_queued);
		list_for_each_entry_safe(fl, ftmp, &d->flow_list, lnode)
			if (fl != &d->spill)
				kfree(fl);
		list_del(&d->node);
		domain_free(d);
	}
	nq_dispatch_exit();
}
