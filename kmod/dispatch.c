// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch of the requests a domain holds back.
 *
 * They are dispatched from a workqueue, never from the completion path:
 * completions may run in interrupt context, while nvmet's execute handlers
 * submit bios and may sleep. A timer kicks the domain when a ceiling
 * refills and, while anything is held, every RELEASE_SCAN_NS to let go of
 * requests whose queue or namespace is being torn down, so that
 * nvmet_sq_destroy() never waits on us (the glue aborts those of a dying
 * queue and executes those of a namespace being disabled).
 *
 * A saturated device with held work is fed by several work items at once,
 * one per CPU up to NQ_MAX_DISPATCHERS: a kick from CPU n queues item
 * n mod dispatchers, and each pops one request at a time under the
 * domain's lock and executes it outside. One item alone would submit, and
 * sleep in submit_bio(), on one CPU for the whole device. The items run
 * on an unbound workqueue, on whichever CPUs it picks, not necessarily the
 * kicking one. Order across items is not kept, as nvmet keeps none across
 * its own queues either.
 *
 * Where the device's tags are split over hardware queues (the core's
 * nqs_domain_set_queues()), a submitter reaches only its CPU's queue, so
 * the items are bound: item n mod dispatchers runs on CPU n, on a per-CPU
 * workqueue, and asks the core for what may go to that CPU's queue. One
 * that finds nothing there while another queue would take a held request
 * (nqs_hwq_elsewhere()) kicks the item of a CPU of that queue. With more
 * CPUs than items, CPUs n and n + NQ_MAX_DISPATCHERS share one, which
 * runs where it was queued first.
 *
 * No request is held longer than hold_max_ms at a time: one that has been
 * is answered Command Interrupted, which the host sends again (retry.c
 * keeps its place in line), so that QoS never makes a host's I/O time
 * out. A host allows only so many retries (Linux: 5); once hold_retries
 * were asked of a command, it is dispatched at its next expiry whatever
 * its class's limits, and charged: a debt its class repays.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#include "domain.h"

#define RELEASE_SCAN_NS		(20 * NSEC_PER_MSEC)

/*
 * Below the 30 s I/O timeout of Linux hosts (nvme_core.io_timeout), with
 * room for the trip. Lower it for hosts with shorter timeouts.
 */
static unsigned int hold_max_ms = 25000;
module_param(hold_max_ms, uint, 0644);
MODULE_PARM_DESC(hold_max_ms, "Longest a request is held at a time before its host is asked to send it again (Command Interrupted), in ms; 0: no bound (default 25000)");

/* Linux hosts retry a command 5 times (nvme_core.max_retries). */
static unsigned int hold_retries = 5;
module_param(hold_retries, uint, 0644);
MODULE_PARM_DESC(hold_retries, "Times a host is asked to send one command again before it is dispatched past its class's limits (default 5, Linux's nvme_core.max_retries)");

static unsigned int dispatchers;
module_param(dispatchers, uint, 0644);
MODULE_PARM_DESC(dispatchers, "Work items that may dispatch one device's held requests at once (0: one per online CPU; at most " __stringify(NQ_MAX_DISPATCHERS) "; default 0); a device with tags per hardware queue has one per CPU, bound to it");

struct workqueue_struct *nq_wq;
/* Bound: the dispatchers of devices whose tags are per queue. */
static struct workqueue_struct *cpu_wq;
/* How held requests go back to nvmet (hook.c), given at init. */
static const struct nq_req_ops *req_ops;

/* What a retry of @r repeats (nq_req_ops.key), for the retry table. */
u64 nq_req_key(const struct nqs_req *r)
{
	return req_ops->key(r);
}

/* How many work items dispatch a domain's held requests now. */
static u32 dispatchers_now(void)
{
	u32 n = READ_ONCE(dispatchers) ?: num_online_cpus();

	return clamp_t(u32, n, 1, NQ_MAX_DISPATCHERS);
}

/* Wake the item of @cpu, on @cpu: it submits to that CPU's queue. */
static void kick_on(struct nq_domain *d, int cpu)
{
	queue_work_on(cpu, cpu_wq, &d->bound[cpu % NQ_MAX_DISPATCHERS].work);
}

/*
 * Something may be ready to run: wake the item of the kicking CPU. Kicks
 * come from admission, completion and the timer, so a device busy on
 * several CPUs is dispatched from as many items.
 */
void nq_domain_kick(struct nq_domain *d)
{
	int cpu = raw_smp_processor_id();

	if (READ_ONCE(d->sched.nr_hwq) > 1) {
		kick_on(d, cpu);
		return;
	}
	queue_work(nq_wq, &d->disp[cpu % dispatchers_now()].work);
}

static enum hrtimer_restart domain_timer(struct hrtimer *t)
{
	nq_domain_kick(container_of(t, struct nq_domain, timer));
	return HRTIMER_NORESTART;
}

static bool req_dying(const struct nqs_req *r)
{
	return req_ops->dying(r);
}

/*
 * Pop one held request whose queue is going away; under d->lock. @hwq:
 * the queue this CPU submits to.
 */
static struct nqs_req *pop_dying(struct nq_domain *d, u8 hwq)
{
	struct nq_flow *fl;

	list_for_each_entry(fl, &d->flow_list, lnode) {
		struct nqs_req *r;

		if (!fl->f.nr_queued)
			continue;
		if (d->bypass)
			return nqs_flow_pop(&d->sched, &fl->f, NULL, hwq);
		if (nq_mutant(dying_held))
			continue;
		r = nqs_flow_find(&fl->f, req_dying);
		if (r)
			return nqs_flow_pop(&d->sched, &fl->f, r, hwq);
	}
	return NULL;
}

/*
 * A request held hold_max_ms, under d->lock: asked to be sent again
 * (*@retry), or dispatched past its limits once hold_retries were asked.
 * One asked to be sent again leaves the books here, as it will be
 * neither executed nor completed through the scheduler.
 */
static struct nqs_req *expire(struct nq_domain *d, u64 now, u8 hwq,
			      bool *retry)
{
	struct nqs_req *r;
	struct nq_flow *fl;
	bool dispatched;

	r = nqs_expire(&d->sched, now,
		       (u64)READ_ONCE(hold_max_ms) * NSEC_PER_MSEC,
		       min(READ_ONCE(hold_retries), 255U), hwq, &dispatched);
	if (!r)
		return NULL;
	fl = nq_flow_of(r);
	if (dispatched) {
		d->forced++;
		return r;
	}
	r->key = nq_req_key(r);
	nq_retries_note(&d->retries, fl->host, r->key, r->first_ns,
			r->retried + 1, now);
	d->retried++;
	d->completed++;
	atomic_dec(&fl->inflight);
	nq_host_held(fl->host, -1);
	r->flow = NULL;
	*retry = true;
	return r;
}

/*
 * Under d->lock, with requests held and none to run before @t (0: none
 * before a completion): the timer is set for @t or the next scan,
 * whichever is first, unless it is already set for earlier.
 */
static void arm(struct nq_domain *d, u64 t, u64 now)
{
	if (d->stopping)
		return;
	if (!t || t > d->scan_at)
		t = d->scan_at;
	if (d->timer_at > now && d->timer_at <= t)
		return;
	d->timer_at = t;
	hrtimer_start(&d->timer, ns_to_ktime(t), HRTIMER_MODE_ABS);
}

/*
 * Under d->lock, after a completion or a request held on submission, with
 * nqs_held_next() @t: whether a dispatcher must come now. Else the timer
 * is set for when a held request may go, so that completions while only
 * capped classes hold requests do not each send a work item to find
 * nothing. A scan that is due counts as work now.
 */
bool nq_domain_wake(struct nq_domain *d, u64 t, u64 now)
{
	if (!d->sched.nr_queued)
		return false;
	if (nqs_due(t, now) || now >= d->scan_at)
		return true;
	arm(d, t, now);
	return false;
}

/*
 * The next request to execute: first any held request whose queue is going
 * away (looked for every RELEASE_SCAN_NS, and always when bypassing), then
 * what the scheduler allows. With nothing to run while requests are held,
 * arm the timer for the next ceiling refill or scan, whichever is first,
 * and kick a CPU of another queue if that one would take a request.
 */
static struct nqs_req *next_request(struct nq_domain *d, bool *retry)
{
	struct nqs_req *r = NULL;
	unsigned long flags;
	u64 now = ktime_get_ns();
	int other = -1;
	u8 hwq;

	*retry = false;
	spin_lock_irqsave(&d->lock, flags);
	hwq = nq_cpu_hwq(d);
	if (d->bypass || now >= d->scan_at) {
		r = pop_dying(d, hwq);
		if (!r && !d->bypass)
			r = expire(d, now, hwq, retry);
		if (!r)
			d->scan_at = now + RELEASE_SCAN_NS;
	}
	if (!r)
		r = nqs_next(&d->sched, hwq, now);
	if (!r && nqs_slice_wanted(&d->sched)) {
		/* The room is in the slices' leases. */
		nq_slices_reclaim(d, now);
		r = nqs_next(&d->sched, hwq, now);
	}
	if (r && !*retry)
		nq_host_held(nq_flow_of(r)->host, -1);
	if (!r && d->sched.nr_queued) {
		/* What it is set for is stale: it has fired, or is later. */
		d->timer_at = 0;
		arm(d, nqs_next_event(&d->sched, now), now);
		other = nqs_hwq_elsewhere(&d->sched, hwq, now);
		if (other >= 0 && !d->stopping)
			other = nq_hwq_cpu(d, other);
		else
			other = -1;
	}
	spin_unlock_irqrestore(&d->lock, flags);
	if (other >= 0)
		kick_on(d, other);
	return r;
}

static void dispatch_work(struct work_struct *w)
{
	struct nq_domain *d = container_of(w, struct nq_dispatcher, work)->dom;
	struct nqs_req *r;
	bool retry;

	while ((r = next_request(d, &retry))) {
		if (retry)
			req_ops->retry(r);
		else
			req_ops->execute(r);
		cond_resched();
	}
}

void nq_dispatch_setup(struct nq_domain *d)
{
	int i;

	for (i = 0; i < NQ_MAX_DISPATCHERS; i++) {
		d->disp[i].dom = d;
		INIT_WORK(&d->disp[i].work, dispatch_work);
		d->bound[i].dom = d;
		INIT_WORK(&d->bound[i].work, dispatch_work);
	}
	hrtimer_init(&d->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	d->timer.function = domain_timer;
}

/*
 * Nothing is held and nothing can kick @d any more: stop its dispatch. A
 * work item still running could arm the timer after it was cancelled, and
 * the timer queue an item after the items were: once stopping is set
 * under the lock no item arms it, so the timer queues none after its
 * cancel.
 */
void nq_dispatch_stop(struct nq_domain *d)
{
	unsigned long flags;
	int i, pass;

	spin_lock_irqsave(&d->lock, flags);
	d->stopping = true;
	spin_unlock_irqrestore(&d->lock, flags);
	hrtimer_cancel(&d->timer);
	/*
	 * An item that saw stopping unset may kick a bound item of another
	 * queue once it has let go of the lock, after that one's cancel:
	 * the second pass cancels what the first one's items kicked, and
	 * those, seeing stopping, kick none.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < NQ_MAX_DISPATCHERS; i++) {
			cancel_work_sync(&d->disp[i].work);
			cancel_work_sync(&d->bound[i].work);
		}
	}
}

int nq_dispatch_init(const struct nq_req_ops *ops)
{
	req_ops = ops;
	nq_wq = alloc_workqueue("nvmet_qos", WQ_UNBOUND | WQ_HIGHPRI |
				WQ_MEM_RECLAIM, 0);
	if (!nq_wq)
		return -ENOMEM;
	cpu_wq = alloc_workqueue("nvmet_qos_cpu", WQ_HIGHPRI | WQ_MEM_RECLAIM,
				 0);
	if (!cpu_wq) {
		destroy_workqueue(nq_wq);
		return -ENOMEM;
	}
	return 0;
}

void nq_dispatch_exit(void)
{
	destroy_workqueue(cpu_wq);
	destroy_workqueue(nq_wq);
}
