// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O path's way into a domain: nq_domain_submit() and
 * nq_domain_complete() come here first, and take the device's lock
 * (domain.c) only where this CPU's slice cannot do without it. Each domain
 * has a slice per CPU (the core's lease.h), which holds a lease of the
 * device's room and of its classes' ceilings. While the device has room and
 * a class holds nothing, its requests are admitted and completed on their
 * CPU's slice under that slice's lock, which only that CPU takes but for a
 * reclaim; the domain's lock is taken once a batch, to settle the slice, not
 * twice a request. The host's statistics are kept under its flow's lock.
 *
 * Everything here runs with interrupts off (completions may come in
 * interrupt context), so the CPU's slice stays this CPU's: the callers
 * (hook.c) turn them off once for this and their own locks. Lock order:
 * d->lock, then a slice's, then a flow's.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>

#include "domain.h"
#include "stats.h"

/* Some 700 bytes a CPU, in atomic context on a device's first request. */
int nq_slices_alloc(struct nq_domain *d, gfp_t gfp)
{
	int cpu;

	d->slices = alloc_percpu_gfp(struct nq_slice, gfp);
	if (!d->slices)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct nq_slice *sl = per_cpu_ptr(d->slices, cpu);

		spin_lock_init(&sl->lock);
		nqs_slice_init(&sl->s);
	}
	return 0;
}

void nq_slices_free(struct nq_domain *d)
{
	free_percpu(d->slices);
}

/* Under d->lock. Walks the CPUs only while a slice holds a lease. */
void nq_slices_reclaim(struct nq_domain *d, u64 now)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct nq_slice *sl;

		if (!d->sched.nr_leases)
			return;
		sl = per_cpu_ptr(d->slices, cpu);
		spin_lock(&sl->lock);
		nqs_slice_reclaim(&d->sched, &sl->s, now);
		spin_unlock(&sl->lock);
	}
}

/* Under d->lock: no slice admits for @c, nor holds its tokens. */
static void slices_drop(struct nq_domain *d, struct nqs_class *c, u64 now)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct nq_slice *sl;

		if (!c->nr_leased)
			return;
		sl = per_cpu_ptr(d->slices, cpu);
		spin_lock(&sl->lock);
		nqs_slice_drop(&d->sched, &sl->s, c, now);
		spin_unlock(&sl->lock);
	}
}

/*
 * Under d->lock, nqs_admit() having refused @r: take back what the core
 * says may have kept it out, and ask again. False: hold it.
 */
bool nq_slices_refused(struct nq_domain *d, struct nqs_req *r, u64 now)
{
	struct nqs_class *c = r->flow->cls;

	switch (nqs_slice_refused(&d->sched, c, now)) {
	case NQS_TAKE_NONE:
		return false;
	case NQS_TAKE_CLASS:
		slices_drop(d, c, now);
		break;
	case NQS_TAKE_ALL:
		nq_slices_reclaim(d, now);
		break;
	}
	return nqs_admit(&d->sched, r, now);
}

/*
 * Under d->lock, with interrupts off, @c's request admitted: a lease for
 * the next ones on this CPU.
 */
void nq_slices_grant(struct nq_domain *d, struct nqs_class *c, u64 now)
{
	struct nq_slice *sl;

	if (d->bypass)
		return;
	sl = this_cpu_ptr(d->slices);
	spin_lock(&sl->lock);
	nqs_slice_grant(&d->sched, &sl->s, c, nq_cpu_hwq(d), num_online_cpus(),
			now);
	spin_unlock(&sl->lock);
}

/*
 * Under d->lock, the leases back: the queue each CPU reaches, @map[cpu]
 * of @queues (none: one pool).
 */
void nq_slices_map(struct nq_domain *d, u32 queues, const unsigned int *map)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(d->slices, cpu)->queue,
			   queues && map ? map[cpu] : 0);
}

/* With interrupts off: where the domain counts this CPU's requests. */
u8 nq_cpu_hwq(struct nq_domain *d)
{
	return nq_slice_hwq(d, this_cpu_ptr(d->slices));
}

/* An online CPU whose requests the domain counts in @hwq, or -1. */
int nq_hwq_cpu(struct nq_domain *d, u8 hwq)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (nq_slice_hwq(d, per_cpu_ptr(d->slices, cpu)) == hwq)
			return cpu;
	return -1;
}

/* Under d->lock: the requests the slices admitted and completed. */
void nq_slices_counts(struct nq_domain *d, u64 *admitted, u64 *completed)
{
	int cpu;

	*admitted = 0;
	*completed = 0;
	for_each_possible_cpu(cpu) {
		struct nq_slice *sl = per_cpu_ptr(d->slices, cpu);

		*admitted += READ_ONCE(sl->admitted);
		*completed += READ_ONCE(sl->completed);
	}
}

/* @r of @fl completed after @lat_ns: the host's statistics. */
static __always_inline void flow_done(struct nq_flow *fl,
				      const struct nqs_req *r, u64 lat_ns)
{
	spin_lock(&fl->lock);
	nq_stats_complete(&fl->stats, r, lat_ns);
	spin_unlock(&fl->lock);
	atomic_dec(&fl->inflight);
}

/* The same for the domain's completions under its lock (domain.c). */
void nq_flow_done(struct nq_flow *fl, const struct nqs_req *r, u64 lat_ns)
{
	flow_done(fl, r, lat_ns);
}

/*
 * With interrupts off, the slice's lock not held: charge what this CPU's
 * slice admitted and count what completed on it, then whatever the
 * domain needs after that. Out of line: once a batch.
 */
static noinline void settle(struct nq_domain *d, struct nq_slice *sl, u64 now)
{
	bool kick;

	spin_lock(&d->lock);
	spin_lock(&sl->lock);
	kick = nq_domain_wake(d, nqs_slice_settle(&d->sched, &sl->s, now), now);
	spin_unlock(&sl->lock);
	if (nqs_leased_over(&d->sched))
		nq_slices_reclaim(d, now);
	nq_domain_tick(d, now);
	spin_unlock(&d->lock);
	if (kick)
		nq_domain_kick(d);
}

/*
 * Admit @r of @fl on this CPU's slice. True: the caller executes it now,
 * and *@now is its dispatch time. False: the domain decides.
 */
static bool fast_submit(struct nq_domain *d, struct nq_flow *fl,
			struct nqs_req *r, u64 *now)
{
	struct nq_slice *sl;
	bool go, due = false;
	u64 t;

	lockdep_assert_irqs_disabled();
	sl = this_cpu_ptr(d->slices);
	spin_lock(&sl->lock);
	r->flow = &fl->f;
	r->retried = 0;
	r->hwq = nq_slice_hwq(d, sl);
	t = ktime_get_ns();
	go = nqs_slice_submit(&sl->s, r, t);
	if (go) {
		sl->admitted++;
		atomic_inc(&fl->inflight);
		due = nqs_slice_due(&sl->s, t);
	}
	spin_unlock(&sl->lock);
	if (due)
		settle(d, sl, t);
	*now = t;
	return go;
}

/*
 * With interrupts off: offer a request to its domain. True: the caller
 * executes it now (interrupts on again), and *@now is the domain's clock
 * for it (0: unscheduled). False: it is held and the domain's worker will
 * execute it. A host known on the device, with no retries asked, tries
 * this CPU's slice first; the domain's lock is taken only when the slice
 * cannot admit it. *@hint, a flow of @host or NULL, serves if it is
 * @host's on @d, and is set to the flow the request went by if that is
 * @host's own.
 */
bool nq_domain_submit(struct nq_domain *d, struct nq_host *host,
		      struct nq_flow **hint, struct nqs_req *r, u64 *now)
{
	struct nq_flow *fl = NULL;

	if (!READ_ONCE(d->bypass) && !READ_ONCE(d->retries.n)) {
		fl = *hint;
		if (!fl || fl->dom != d || fl->host != host)
			fl = nq_flow_find(d, host);
		if (fl) {
			*hint = fl;
			if (fast_submit(d, fl, r, now))
				return true;
		}
	}
	return nq_domain_admit(d, host, fl, hint, r, now);
}

/* @r completed after @lat_ns: true if this CPU's slice took it. */
static bool fast_complete(struct nq_domain *d, struct nqs_req *r, u64 lat_ns,
			  u64 now)
{
	struct nq_slice *sl;
	bool done, due = false;

	lockdep_assert_irqs_disabled();
	sl = this_cpu_ptr(d->slices);
	spin_lock(&sl->lock);
	done = nqs_slice_complete(&sl->s, r, lat_ns, now);
	if (done) {
		sl->completed++;
		due = nqs_slice_due(&sl->s, now);
	}
	spin_unlock(&sl->lock);
	if (done) {
		flow_done(nq_flow_of(r), r, lat_ns);
		if (due)
			settle(d, sl, now);
	}
	return done;
}

/*
 * With interrupts off: a request dispatched at @dispatch_ns (submit's or
 * execute's clock) is done, on this CPU's slice if it takes it, else under
 * the domain's lock.
 */
void nq_domain_complete(struct nq_domain *d, struct nqs_req *r,
			u64 dispatch_ns)
{
	u64 now, lat_ns;

	if (!r->flow)
		return;
	now = ktime_get_ns();
	lat_ns = now > dispatch_ns ? now - dispatch_ns : 0;
	if (!fast_complete(d, r, lat_ns, now))
		nq_domain_done(d, r, lat_ns, now);
}
