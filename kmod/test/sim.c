// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "sim.h"

struct sim_event {
	u64 at;
	struct nqs_req *req;		/* completion of this request */
	u64 think_host;			/* else: host index + 1 wakes up */
	bool worker;			/* else: the kicked worker runs */
	bool tick;			/* else: the budget device's tick */
	u32 wq;				/* the worker's queue, with dev_queues */
};

/* The simulated request: the scheduler's request plus where it came from. */
struct sim_req {
	struct nqs_req r;
	struct sim_host *host;
	u64 issued;
	u64 dispatched;		/* by the scheduler, to the device */
	u32 q;			/* the hardware queue it went to */
};

u32 sim_slices;

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void heap_push(struct sim *s, struct sim_event e)
{
	u32 i;

	if (s->nr_ev == s->cap_ev) {
		s->cap_ev = s->cap_ev ? 2 * s->cap_ev : 1024;
		s->ev = realloc(s->ev, s->cap_ev * sizeof(*s->ev));
		if (!s->ev)
			exit(2);
	}
	i = s->nr_ev++;
	while (i && s->ev[(i - 1) / 2].at > e.at) {
		s->ev[i] = s->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->ev[i] = e;
}

static struct sim_event heap_pop(struct sim *s)
{
	struct sim_event top = s->ev[0], last = s->ev[--s->nr_ev];
	u32 i = 0;

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= s->nr_ev)
			break;
		if (c + 1 < s->nr_ev && s->ev[c + 1].at < s->ev[c].at)
			c++;
		if (s->ev[c].at >= last.at)
			break;
		s->ev[i] = s->ev[c];
		i = c;
	}
	if (s->nr_ev)
		s->ev[i] = last;
	return top;
}

void sim_init(struct sim *s, u32 nr_classes, u32 nr_hosts, u64 dev_bps,
	      u64 dev_lat_ns)
{
	struct nqs_class_conf def = { .weight = 100 };
	u32 i;

	memset(s, 0, sizeof(*s));
	nqs_domain_init(&s->dom, 0);
	s->nr_classes = nr_classes;
	s->nr_hosts = nr_hosts;
	s->classes = xcalloc(nr_classes, sizeof(*s->classes));
	s->hosts = xcalloc(nr_hosts, sizeof(*s->hosts));
	s->dev_bps = dev_bps;
	s->dev_lat_ns = dev_lat_ns;
	s->rng = 0x2545f4914f6cdd1dULL;
	for (i = 0; i < nr_classes; i++)
		nqs_class_init(&s->classes[i], &def, 0);
	s->nr_slices = sim_slices;
	s->slices = xcalloc(s->nr_slices, sizeof(*s->slices));
	for (i = 0; i < s->nr_slices; i++)
		nqs_slice_init(&s->slices[i]);
	for (i = 0; i < nr_hosts; i++) {
		struct sim_host *h = &s->hosts[i];

		nqs_flow_init(&h->flow, &s->classes[i % nr_classes], 100);
		h->bs = 128 << 10;
		h->qd = 8;
		h->rng = 0x9e3779b97f4a7c15ULL * (i + 1);
	}
}

void sim_free(struct sim *s)
{
	u32 i;

	for (i = 0; i < s->nr_hosts; i++)
		free(s->hosts[i].lat_samples);
	free(s->hosts);
	free(s->classes);
	free(s->ev);
	free(s->dev_fifo);
	free(s->slices);
	for (i = 0; i < SIM_QUEUES_MAX; i++)
		free(s->q[i].fifo);
}

/* The module's glue (domain.c), in one thread: what takes its lock. */
void sim_reclaim(struct sim *s)
{
	u32 i;

	for (i = 0; i < s->nr_slices; i++)
		nqs_slice_reclaim(&s->dom, &s->slices[i], s->now);
}

static bool multi(const struct sim *s)
{
	return s->dev_slots && s->dev_queues > 1;
}

/* The hardware queue @h's submissions go to. */
static u32 queue_of(const struct sim *s, const struct sim_host *h)
{
	return multi(s) ? h->cpu % s->dev_queues : 0;
}

static struct nqs_slice *slice_of(struct sim *s, const struct sim_host *h)
{
	if (!s->nr_slices)
		return NULL;
	if (multi(s))
		return &s->slices[h->cpu % s->nr_slices];
	return &s->slices[(u32)(h - s->hosts) % s->nr_slices];
}

/* The slice of the CPU a completion of @q's request comes on. */
static struct nqs_slice *done_slice(struct sim *s, const struct sim_req *q)
{
	if (!s->nr_slices || !multi(s))
		return slice_of(s, q->host);
	return &s->slices[q->q % s->nr_slices];
}

static void settle(struct sim *s, struct sim_host *h, struct nqs_slice *sl)
{
	h->locked++;
	nqs_slice_settle(&s->dom, sl, s->now);
	if (nqs_leased_over(&s->dom))
		sim_reclaim(s);
}

static bool submit(struct sim *s, struct sim_host *h, struct nqs_req *r)
{
	struct nqs_slice *sl = slice_of(s, h);
	bool go;
	u32 i;

	if (sl && nqs_slice_submit(sl, r, s->now)) {
		s->fast_ios++;
		if (nqs_slice_due(sl, s->now))
			settle(s, h, sl);
		return true;
	}
	h->locked++;
	if (!sl)
		return nqs_submit(&s->dom, r, s->now);
	go = nqs_admit(&s->dom, r, s->now);
	switch (go ? NQS_TAKE_NONE :
		nqs_slice_refused(&s->dom, r->flow->cls, s->now)) {
	case NQS_TAKE_NONE:
		break;
	case NQS_TAKE_CLASS:
		for (i = 0; i < s->nr_slices; i++)
			nqs_slice_drop(&s->dom, &s->slices[i], r->flow->cls,
				       s->now);
		go = nqs_admit(&s->dom, r, s->now);
		break;
	case NQS_TAKE_ALL:
		sim_reclaim(s);
		go = nqs_admit(&s->dom, r, s->now);
		break;
	}
	if (go)
		nqs_slice_grant(&s->dom, sl, r->flow->cls, r->hwq,
				s->nr_slices, s->now);
	else
		nqs_hold(&s->dom, r, s->now);
	return go;
}

static void sim_complete(struct sim *s, struct sim_req *q, u64 lat)
{
	struct nqs_slice *sl = done_slice(s, q);
	struct sim_host *h = q->host;
	const struct nqs_req *r = &q->r;

	if (sl && nqs_slice_complete(sl, r, lat, s->now)) {
		if (nqs_slice_due(sl, s->now))
			settle(s, h, sl);
		return;
	}
	h->locked++;
	nqs_complete(&s->dom, r, lat, s->now);
	if (nqs_leased_over(&s->dom))
		sim_reclaim(s);
}

/*
 * Held work that finds no room may find it in the slices' leases. @q: the
 * queue of the worker that asks.
 */
static struct nqs_req *next_locked(struct sim *s, u32 q)
{
	u8 hwq = nqs_hwq(&s->dom, q);
	struct nqs_req *r;

	r = nqs_next(&s->dom, hwq, s->now);
	if (!r && nqs_slice_wanted(&s->dom)) {
		sim_reclaim(s);
		r = nqs_next(&s->dom, hwq, s->now);
	}
	return r;
}

/* Append @r to the ring @buf of @cap entries, @n of them from @head. */
static void ring_push(struct nqs_req ***buf, u32 *head, u32 *n, u32 *cap,
		      struct nqs_req *r)
{
	if (*head + *n == *cap) {
		if (*head) {
			memmove(*buf, *buf + *head, *n * sizeof(**buf));
			*head = 0;
		} else {
			*cap = *cap ? 2 * *cap : 256;
			*buf = realloc(*buf, *cap * sizeof(**buf));
			if (!*buf)
				exit(2);
		}
	}
	(*buf)[*head + (*n)++] = r;
}

static void fifo_push(struct sim *s, struct nqs_req *r)
{
	ring_push(&s->dev_fifo, &s->fifo_head, &s->fifo_n, &s->fifo_cap, r);
}

static struct nqs_req *fifo_pop(struct sim *s)
{
	if (!s->fifo_n)
		return NULL;
	s->fifo_n--;
	return s->dev_fifo[s->fifo_head++];
}

/* A request takes a free slot of the parallel device. */
static void slot_start(struct sim *s, struct nqs_req *r)
{
	struct sim_event e = { .at = s->now + s->dev_lat_ns, .req = r };

	s->dev_busy++;
	heap_push(s, e);
}

static s64 tick_bytes(const struct sim *s)
{
	return (s64)(s->dev_bps * s->dev_tick_ns / NQS_NSEC);
}

/*
 * The budget device takes a request if this tick's budget covers it; the
 * bytes of one that does not are taken all the same, which keeps the
 * device stopped until the next tick, as null_blk does.
 */
static void budget_try(struct sim *s, struct nqs_req *r)
{
	bool fits = !s->fifo_n && s->dev_budget >= (s64)r->bytes;

	s->dev_budget -= r->bytes;
	if (fits)
		slot_start(s, r);
	else
		fifo_push(s, r);
	if (!s->dev_ticking) {
		struct sim_event e = { .tick = true };

		e.at = (s->now / s->dev_tick_ns + 1) * s->dev_tick_ns;
		s->dev_ticking = true;
		heap_push(s, e);
	}
}

static void budget_tick(struct sim *s)
{
	struct nqs_req *r;

	s->dev_ticking = false;
	s->dev_budget = tick_bytes(s);
	while (s->fifo_n && s->dev_budget >= 0) {
		r = s->dev_fifo[s->fifo_head];
		s->dev_budget -= r->bytes;
		if (s->dev_budget < 0)
			break;
		fifo_pop(s);
		slot_start(s, r);
	}
	if (s->fifo_n) {
		struct sim_event e = { .at = s->now + s->dev_tick_ns, .tick = true };

		s->dev_ticking = true;
		heap_push(s, e);
	}
}

static void qfifo_push(struct sim_queue *q, struct nqs_req *r)
{
	ring_push(&q->fifo, &q->head, &q->n, &q->cap, r);
}

/*
 * A request for hardware queue @qi: a slot of that queue, or its wait.
 * True if it has to wait.
 */
static bool queue_start(struct sim *s, struct nqs_req *r, u32 qi)
{
	struct sim_queue *q = &s->q[qi];
	struct sim_event e = { .at = s->now + s->dev_lat_ns, .req = r };

	((struct sim_req *)r)->q = qi;
	if (q->busy < s->dev_slots) {
		q->busy++;
		heap_push(s, e);
		return false;
	}
	qfifo_push(q, r);
	return true;
}

/* Put a dispatched request on the device. */
static void device_start(struct sim *s, struct nqs_req *r)
{
	u64 svc = r->bytes * NQS_NSEC / s->dev_bps;
	struct sim_event e;

	((struct sim_req *)r)->dispatched = s->now;
	if (multi(s)) {
		queue_start(s, r, queue_of(s, ((struct sim_req *)r)->host));
		return;
	}
	if (s->dev_tick_ns) {
		budget_try(s, r);
		return;
	}
	if (s->dev_slots) {
		if (s->dev_busy < s->dev_slots)
			slot_start(s, r);
		else
			fifo_push(s, r);
		return;
	}
	if (r->write && s->dev_write_pct)
		svc = svc * s->dev_write_pct / 100;

	s->dev_free = (s->dev_free > s->now ? s->dev_free : s->now) + svc;
	e.at = s->dev_free + s->dev_lat_ns;
	e.req = r;
	e.think_host = 0;
	heap_push(s, e);
}

/* The device has taken more requests than it has room for. */
static bool device_full(const struct sim *s)
{
	return s->dev_queue_max && s->dev_busy + s->fifo_n > s->dev_queue_max;
}

/* CPU time of this thread: a call preempted by another process is not longer. */
static u64 cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (u64)t.tv_sec * NQS_NSEC + t.tv_nsec;
}

/*
 * nqs_next(), timed when asked to: the longest call is what a lock holds.
 * Its round robin's flow visits are counted too: a time that a loaded
 * machine may stretch, beside a count that only the code decides.
 */
static struct nqs_req *next(struct sim *s, u32 q)
{
	struct nqs_req *r;
	u64 t0, v0;

	if (!s->time_calls)
		return next_locked(s, q);
	v0 = nqs_rr_visits;
	t0 = cpu_ns();
	r = next_locked(s, q);
	s->call_max_ns = max(s->call_max_ns, cpu_ns() - t0);
	s->call_max_visits = max(s->call_max_visits, nqs_rr_visits - v0);
	return r;
}

static void kick(struct sim *s, u32 q);

/*
 * The worker of queue @qi (the only one without dev_queues). One that
 * finds nothing for its queue while another's would take a held request
 * kicks that one, as the module's dispatcher kicks a CPU of that queue.
 */
static void dispatch_held(struct sim *s, u32 qi)
{
	struct nqs_req *r;
	int other;
	u64 t;

	if (multi(s) ? s->q[qi].asleep : s->worker_asleep)
		return;
	while ((r = next(s, qi))) {
		s->sched_calls++;
		((struct sim_req *)r)->dispatched = s->now;
		if (multi(s)) {
			s->q[qi].dispatched++;
			if (queue_start(s, r, qi)) {
				s->q[qi].asleep = true;
				s->q[qi].sleeper = r;
				return;
			}
			continue;
		}
		device_start(s, r);
		if (device_full(s)) {
			s->worker_asleep = true;
			return;
		}
	}
	other = multi(s) ? nqs_hwq_elsewhere(&s->dom, nqs_hwq(&s->dom, qi),
					     s->now) : -1;
	if (other >= 0)
		kick(s, (u32)other);
	t = nqs_next_event(&s->dom, s->now);
	if (t && (!s->timer || t < s->timer)) {
		struct sim_event e = { .at = t > s->now ? t : s->now + 1000 };

		s->timer = e.at;
		s->timer_q = qi;
		heap_push(s, e);
	}
}

/* Something may be dispatchable: run @q's worker now or after its delay. */
static void kick(struct sim *s, u32 q)
{
	struct sim_event e = { .at = s->now + s->worker_ns, .worker = true,
			       .wq = q };
	u64 *at = multi(s) ? &s->q[q].worker_at : &s->worker_at;

	if (multi(s) ? s->q[q].asleep : s->worker_asleep)
		return;
	if (s->worker_exp) {
		double u = (rnd(&s->rng) >> 11) * (1.0 / 9007199254740992.0);

		e.at = s->now + (u64)(-log(1.0 - u) * s->worker_ns);
	}
	if (!s->worker_ns) {
		dispatch_held(s, q);
		return;
	}
	if (*at || !s->dom.nr_queued)
		return;
	*at = e.at;
	heap_push(s, e);
}

static void host_issue(struct sim *s, struct sim_host *h)
{
	struct sim_req *q = xcalloc(1, sizeof(*q));

	q->host = h;
	q->issued = s->now;
	q->r.flow = &h->flow;
	q->r.bytes = h->bs;
	q->r.write = rnd(&h->rng) % 100 < h->write_pct;
	q->r.hwq = nqs_hwq(&s->dom, queue_of(s, h));
	h->outstanding++;
	s->sched_calls++;
	if (submit(s, h, &q->r))
		device_start(s, &q->r);
}

static void record_latency(struct sim_host *h, u64 lat)
{
	if (!h->lat_samples)
		return;
	if (h->nr_lat == h->cap_lat)
		return;
	h->lat_samples[h->nr_lat++] = lat;
}

/*
 * A slot of queue @qi is free: the next request waiting for one takes it,
 * and a worker that waited with it goes on.
 */
static void queue_done(struct sim *s, u32 qi)
{
	struct sim_queue *q = &s->q[qi];
	struct nqs_req *r;

	q->busy--;
	if (!q->n)
		return;
	r = q->fifo[q->head++];
	q->n--;
	q->busy++;
	heap_push(s, (struct sim_event){ .at = s->now + s->dev_lat_ns,
					 .req = r });
	if (q->asleep && q->sleeper == r) {
		q->asleep = false;
		q->sleeper = NULL;
		dispatch_held(s, qi);
	}
}

static void complete(struct sim *s, struct sim_event *e)
{
	struct sim_req *q = (struct sim_req *)e->req;
	struct sim_host *h = q->host;
	u64 lat = s->now - q->issued;
	struct nqs_req *next;

	sim_complete(s, q, s->now - q->dispatched);
	if (multi(s)) {
		queue_done(s, q->q);
	} else if (s->dev_tick_ns) {
		s->dev_busy--;
	} else if (s->dev_slots) {
		s->dev_busy--;
		next = fifo_pop(s);
		if (next)
			slot_start(s, next);
		/* A sleeping worker wakes and goes on where it stopped. */
		if (s->worker_asleep && !device_full(s)) {
			s->worker_asleep = false;
			dispatch_held(s, 0);
		}
	}
	h->outstanding--;
	h->ios++;
	h->bytes += q->r.bytes;
	h->cost += q->r.cost;
	h->lat_sum += lat;
	if (lat > h->lat_max)
		h->lat_max = lat;
	record_latency(h, lat);
	free(q);
	while (h->outstanding < h->qd && !h->think_ns)
		host_issue(s, h);
	if (h->think_ns && h->outstanding < h->qd) {
		struct sim_event t = { .at = s->now + h->think_ns,
				       .think_host = (u64)(h - s->hosts) + 1 };
		heap_push(s, t);
	}
}

/* Every worker's turn (the one without dev_queues). */
static void dispatch_all(struct sim *s)
{
	u32 i;

	for (i = 0; i < (multi(s) ? s->dev_queues : 1); i++)
		dispatch_held(s, i);
}

void sim_start(struct sim *s)
{
	u32 i;

	if (s->dev_tick_ns)
		s->dev_budget = tick_bytes(s);
	for (i = 0; i < s->nr_hosts; i++)
		while (s->hosts[i].outstanding < s->hosts[i].qd)
			host_issue(s, &s->hosts[i]);
	dispatch_all(s);
}

void sim_run(struct sim *s, u64 until)
{
	u32 i;

	/* Hosts whose queue depth was raised since the last run. */
	for (i = 0; i < s->nr_hosts; i++)
		while (s->hosts[i].outstanding < s->hosts[i].qd &&
		       !s->hosts[i].think_ns)
			host_issue(s, &s->hosts[i]);
	dispatch_all(s);

	while (s->nr_ev && s->ev[0].at <= until) {
		struct sim_event e = heap_pop(s);
		u32 kq = 0;	/* the queue of the CPU it happens on */

		s->now = e.at;
		if (e.req) {
			kq = ((struct sim_req *)e.req)->q;
			complete(s, &e);
		} else if (e.think_host) {
			struct sim_host *h = &s->hosts[e.think_host - 1];

			kq = queue_of(s, h);
			if (h->outstanding < h->qd)
				host_issue(s, h);
		} else if (e.tick) {
			budget_tick(s);
		} else if (e.worker) {
			if (multi(s))
				s->q[e.wq].worker_at = 0;
			else
				s->worker_at = 0;
			dispatch_held(s, e.wq);
			continue;
		} else if (e.at == s->timer) {
			s->timer = 0;
			kq = s->timer_q;
		}
		kick(s, multi(s) ? kq : 0);
	}
	s->now = until;
}

void sim_reset_window(struct sim *s)
{
	u32 i;

	for (i = 0; i < s->nr_hosts; i++) {
		struct sim_host *h = &s->hosts[i];

		h->bytes = h->ios = h->cost = h->lat_sum = h->lat_max = 0;
		h->nr_lat = 0;
		h->locked = 0;
	}
}

double sim_class_share(const struct sim *s, u32 cls)
{
	u64 mine = 0, all = 0;
	u32 i;

	for (i = 0; i < s->nr_hosts; i++) {
		all += s->hosts[i].cost;
		if (s->hosts[i].flow.cls == &s->classes[cls])
			mine += s->hosts[i].cost;
	}
	return all ? 100.0 * mine / all : 0;
}

double sim_class_bps(const struct sim *s, u32 cls, u64 window_ns)
{
	u64 mine = 0;
	u32 i;

	for (i = 0; i < s->nr_hosts; i++)
		if (s->hosts[i].flow.cls == &s->classes[cls])
			mine += s->hosts[i].bytes;
	return mine * 1e9 / window_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

u64 sim_host_pct_lat(struct sim_host *h, double pct)
{
	u32 i;

	if (!h->nr_lat)
		return 0;
	qsort(h->lat_samples, h->nr_lat, sizeof(u64), cmp_u64);
	i = (u32)(pct / 100.0 * (h->nr_lat - 1));
	return h->lat_samples[i];
}
