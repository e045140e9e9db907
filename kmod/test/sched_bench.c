// SPDX-License-Identifier: GPL-2.0
/*
 * What the scheduler core costs per I/O, and how the module's locking of
 * it scales with CPUs: figures for "make bench", not tests (they pass or
 * fail nothing). The core is ../sched.c and ../depth.c, unchanged.
 *
 * Every run drives one domain the way the module does: a request is
 * offered with nqs_submit(); when as many are outstanding as the run
 * keeps (the hosts' queue depth), the oldest in flight completes with
 * nqs_complete() and, when that says a held read may go, nqs_next()
 * dispatches until nothing more may, as the module's dispatcher does.
 * Reads are 4 KiB and their "device" is a clock that moves 174 ns per
 * read, 23.5 GB/s.
 *
 * sched_bench [--json] [hosts|lock]: both, or the one named.
 *
 * hosts:  ns per I/O with 8, 512, 4,096 and 65,536 hosts in 8 classes,
 *         one thread, on the virtual clock, DEPTH reads outstanding (the
 *         core's depth binds, and some are held).
 * lock:   reads per second with 1, 2 and 4 threads on one domain under one
 *         spinlock, taken around each call as domain.c took d->lock
 *         before slices; the same domain with a slice per thread under a
 *         lock of its own (../lease.h), the domain's lock taken as
 *         ../fast.c takes it: once a batch, and where a slice cannot
 *         answer; and the same threads each on a domain of its own,
 *         sharing no lock, what the slices approach. Each domain has
 *         LOCK_DEPTH reads outstanding (on one shared, each thread its
 *         part), below any depth the core allows: nothing is held in
 *         either mode, so both measure the fast path alone, one submit
 *         and one completion per read, the path that should not take a
 *         device-wide lock.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../sched.h"
#include "../lease.h"

#define container_of(p, type, m) ((type *)((char *)(p) - offsetof(type, m)))

u64 nqs_mul_div_overflows;
u64 nqs_rr_visits;

#define CLASSES		8
#define DEPTH		256	/* outstanding per domain */
#define LOCK_DEPTH	16	/* the same, in the lock runs */
#define READ_NS		174	/* 4 KiB at 23.5 GB/s */
/*
 * Threads on one domain dispatch each other's held requests, as the
 * module's dispatchers do: a thread's rings take all the threads' reads.
 */
#define MAX_THREADS	4
#define RING		(DEPTH * MAX_THREADS)

struct run;

/* A read, and the run whose pool it returns to. */
struct breq {
	struct nqs_req q;
	struct run *owner;
};

struct run {
	struct nqs_domain dom;
	struct nqs_class cls[CLASSES];
	struct nqs_flow *flows;
	u32 nr_flows;
	struct breq reqs[DEPTH];
	struct nqs_req *free[DEPTH];
	u32 nr_free;
	/* reads of this run that other runs completed */
	pthread_spinlock_t back_lock;
	struct nqs_req *back[DEPTH];
	u32 nr_back;
	/* in flight, oldest first: a ring */
	struct nqs_req *fly[RING];
	u64 fly_at[RING];
	u32 fly_head, nr_fly;
	u64 vclock;		/* virtual: the device's clock */
	u64 *clock;		/* a clock shared under *lock, else &vclock */
	u64 rng;
	volatile int *stop;	/* set: the run ends */
	u32 threads;		/* on the shared domain */
	pthread_spinlock_t *lock;	/* NULL: this run's alone */
	u64 ios, held;
	/*
	 * Sliced: this thread's slice of the shared domain, under its own
	 * lock, and every thread's, for a reclaim (as ../../kmod/fast.c).
	 */
	struct nqs_slice *slice;
	pthread_spinlock_t slock;
	struct run **all;
};

static u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void lock(struct run *r)
{
	if (r->lock)
		pthread_spin_lock(r->lock);
}

static void unlock(struct run *r)
{
	if (r->lock)
		pthread_spin_unlock(r->lock);
}

/*
 * @nr_flows hosts in CLASSES classes of shares 10, 20, ... 80, keeping
 * @depth reads outstanding.
 */
static void run_init(struct run *r, struct nqs_domain *dom,
		     struct nqs_class *cls, u32 nr_flows, u32 depth, u64 seed)
{
	u32 i;

	memset(r, 0, sizeof(*r));
	r->rng = seed;
	r->vclock = 1;
	r->clock = &r->vclock;
	if (!dom) {
		dom = &r->dom;
		cls = r->cls;
		nqs_domain_init(dom, 1);
		for (i = 0; i < CLASSES; i++) {
			struct nqs_class_conf conf = { .weight = 10 * (i + 1) };

			nqs_class_init(&cls[i], &conf, 1);
		}
	}
	r->flows = calloc(nr_flows, sizeof(*r->flows));
	if (!r->flows) {
		perror("calloc");
		exit(2);
	}
	r->nr_flows = nr_flows;
	for (i = 0; i < nr_flows; i++)
		nqs_flow_init(&r->flows[i], &cls[i % CLASSES], 100);
	pthread_spin_init(&r->back_lock, PTHREAD_PROCESS_PRIVATE);
	for (i = 0; i < depth; i++) {
		r->reqs[i].owner = r;
		r->free[r->nr_free++] = &r->reqs[i].q;
	}
}

static void fly(struct run *r, struct nqs_req *q, u64 now)
{
	u32 tail = (r->fly_head + r->nr_fly++) % RING;

	r->fly[tail] = q;
	r->fly_at[tail] = now;
}

/* @q completed: to its run's pool, which may be another thread's. */
static void give_back(struct run *r, struct nqs_req *q)
{
	struct run *o = container_of(q, struct breq, q)->owner;

	if (o == r) {
		r->free[r->nr_free++] = q;
		return;
	}
	pthread_spin_lock(&o->back_lock);
	o->back[o->nr_back++] = q;
	pthread_spin_unlock(&o->back_lock);
}

/* Take back the reads other runs completed. */
static void take_back(struct run *r)
{
	if (!r->lock)
		return;
	pthread_spin_lock(&r->back_lock);
	while (r->nr_back)
		r->free[r->nr_free++] = r->back[--r->nr_back];
	pthread_spin_unlock(&r->back_lock);
}

/*
 * Sliced, under the domain's lock: the domain's clock, which no thread's
 * own (moved on its slice without the lock) may be ahead of.
 */
static u64 sync_now(struct run *r)
{
	if (r->slice && *r->clock < r->vclock)
		*r->clock = r->vclock;
	return *r->clock;
}

/* Under the domain's lock: every slice's lease back. */
static void reclaim_all(struct run *r, struct nqs_domain *dom, u64 now)
{
	u32 i;

	for (i = 0; i < r->threads; i++) {
		struct run *o = r->all[i];

		pthread_spin_lock(&o->slock);
		nqs_slice_reclaim(dom, o->slice, now);
		pthread_spin_unlock(&o->slock);
	}
}

/* Settle this thread's slice, as the module does every batch. */
static void settle(struct run *r, struct nqs_domain *dom)
{
	u64 now;

	lock(r);
	now = sync_now(r);
	pthread_spin_lock(&r->slock);
	nqs_slice_settle(dom, r->slice, now);
	pthread_spin_unlock(&r->slock);
	if (nqs_leased_over(dom))
		reclaim_all(r, dom, now);
	unlock(r);
}

/* Under the domain's lock: nqs_submit() as the module's slow path does it. */
static bool sliced_submit(struct run *r, struct nqs_domain *dom,
			  struct nqs_req *q, u64 now)
{
	bool go = nqs_admit(dom, q, now);

	if (!go && nqs_slice_refused(dom, q->flow->cls, now) != NQS_TAKE_NONE) {
		/* no ceilings here: every lease back */
		reclaim_all(r, dom, now);
		go = nqs_admit(dom, q, now);
	}
	if (!go) {
		nqs_hold(dom, q, now);
		return false;
	}
	pthread_spin_lock(&r->slock);
	nqs_slice_grant(dom, r->slice, q->flow->cls, 0, r->threads, now);
	pthread_spin_unlock(&r->slock);
	return true;
}

/* Dispatch what the core lets go now. */
static void drain(struct run *r, struct nqs_domain *dom)
{
	struct nqs_req *q;
	u64 now;

	for (;;) {
		lock(r);
		now = sync_now(r);
		q = nqs_next(dom, 0, now);
		if (!q && r->slice && nqs_slice_wanted(dom)) {
			reclaim_all(r, dom, now);
			q = nqs_next(dom, 0, now);
		}
		unlock(r);
		if (!q)
			break;
		fly(r, q, now);
	}
}

/* Complete the oldest in flight, then dispatch what that lets go. */
static void complete_one(struct run *r, struct nqs_domain *dom)
{
	struct nqs_req *q = r->fly[r->fly_head];
	u64 at = r->fly_at[r->fly_head], now;
	bool kick;

	r->fly_head = (r->fly_head + 1) % RING;
	r->nr_fly--;
	if (r->slice) {
		bool done, due;

		now = r->vclock > at ? r->vclock : at;
		pthread_spin_lock(&r->slock);
		done = nqs_slice_complete(r->slice, q, now - at, now);
		due = done && nqs_slice_due(r->slice, now);
		pthread_spin_unlock(&r->slock);
		if (done) {
			give_back(r, q);
			r->ios++;
			if (due)
				settle(r, dom);
			return;
		}
	}
	lock(r);
	now = sync_now(r);
	kick = nqs_due(nqs_complete(dom, q, now - at, now), now);
	if (r->slice && nqs_leased_over(dom))
		reclaim_all(r, dom, now);
	unlock(r);
	give_back(r, q);
	r->ios++;
	if (kick)
		drain(r, dom);
}

/* One read by a random host: submitted, and a completion once full. */
static void one_io(struct run *r, struct nqs_domain *dom)
{
	struct nqs_req *q;
	u64 now;
	bool go;

	while (!r->nr_free) {
		if (r->stop && *r->stop)
			return;
		take_back(r);
		if (r->nr_free)
			break;
		if (r->nr_fly) {
			complete_one(r, dom);
			continue;
		}
		/* none in flight here: time passes, held reads go */
		lock(r);
		*r->clock += 1000;
		unlock(r);
		drain(r, dom);
		if (r->lock && !r->nr_free && !r->nr_fly)
			usleep(1);	/* idle, as a CPU without work */
	}
	q = r->free[--r->nr_free];
	memset(q, 0, sizeof(*q));
	q->flow = &r->flows[rnd(&r->rng) % r->nr_flows];
	q->bytes = 4096;
	if (r->slice) {
		bool due;

		/* each thread's clock moves by its reads, the device's by all */
		now = r->vclock;
		r->vclock += READ_NS;
		pthread_spin_lock(&r->slock);
		go = nqs_slice_submit(r->slice, q, now);
		due = go && nqs_slice_due(r->slice, now);
		pthread_spin_unlock(&r->slock);
		if (go) {
			if (due)
				settle(r, dom);
			fly(r, q, now);
			return;
		}
	}
	lock(r);
	now = sync_now(r);
	go = r->slice ? sliced_submit(r, dom, q, now) : nqs_submit(dom, q, now);
	/* the device moves on by one read; shared, by one thread's */
	if (!r->slice)
		*r->clock += r->lock ? READ_NS / r->threads : READ_NS;
	unlock(r);
	if (go)
		fly(r, q, now);
	else
		r->held++;
}

static double cost_per_io(u32 hosts, u64 ios)
{
	struct run *r = malloc(sizeof(*r));
	u64 i, t0;
	double ns;

	if (!r)
		exit(2);
	run_init(r, NULL, NULL, hosts, DEPTH, 0x9e3779b97f4a7c15ULL);
	/* warm up: every flow seen, the depth settled */
	for (i = 0; i < ios / 4; i++)
		one_io(r, &r->dom);
	t0 = mono_ns();
	for (i = 0; i < ios; i++)
		one_io(r, &r->dom);
	ns = (double)(mono_ns() - t0) / ios;
	free(r->flows);
	free(r);
	return ns;
}

static bool json;

static void bench_hosts(void)
{
	static const u32 hosts[] = { 8, 512, 4096, 65536 };
	u32 i;

	if (json)
		printf("\"hosts\":[");
	else
		printf("# core cost per 4 KiB read (submit, complete, next), one thread\n"
		       "%-8s %10s\n", "hosts", "ns/io");
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		double ns = cost_per_io(hosts[i], 4000000);

		if (json)
			printf("%s{\"hosts\":%u,\"ns\":%.1f}", i ? "," : "",
			       hosts[i], ns);
		else
			printf("%-8u %10.1f\n", hosts[i], ns);
	}
	if (json)
		printf("]");
}

/* Cache-line aligned: threads' runs share no line but the domain's. */
struct thread_arg {
	struct run run;
	struct nqs_domain *dom;
	pthread_barrier_t *start;
	volatile int *stop;
} __attribute__((aligned(128)));

static void *thread_fn(void *p)
{
	struct thread_arg *a = p;

	pthread_barrier_wait(a->start);
	while (!*a->stop)
		one_io(&a->run, a->dom);
	return NULL;
}

enum mode { PER_THREAD, SHARED, SLICED };

/*
 * Reads per second of @nr threads for @secs: each on a domain of its own
 * (PER_THREAD), or on one domain under one lock (SHARED), each call of
 * the core under it, or the same domain with a slice per thread under a
 * lock of its own (SLICED), the domain's lock taken as the module takes
 * it then; *@held the share of them held. A shared domain's clock is
 * shared too, moved under the lock, so that each read costs the core the
 * same whatever the threads' timing.
 */
static double lock_rate(u32 nr, enum mode mode, double secs, double *held)
{
	struct thread_arg *a = aligned_alloc(128, nr * sizeof(*a));
	pthread_t *t = calloc(nr, sizeof(*t));
	struct run **all = calloc(nr, sizeof(*all));
	struct nqs_slice *sl = aligned_alloc(128, nr * 1024);
	bool shared = mode != PER_THREAD;
	pthread_spinlock_t lk;
	pthread_barrier_t start;
	struct nqs_domain dom;
	struct nqs_class cls[CLASSES];
	volatile int stop = 0;
	u64 clock = 1;
	struct timespec nap;
	u64 ios = 0, nheld = 0, t0;
	u32 i;

	if (!a || !t || !all || !sl || sizeof(*sl) > 1024)
		exit(2);
	memset(a, 0, nr * sizeof(*a));
	pthread_spin_init(&lk, PTHREAD_PROCESS_PRIVATE);
	pthread_barrier_init(&start, NULL, nr + 1);
	nqs_domain_init(&dom, 1);
	for (i = 0; i < CLASSES; i++) {
		struct nqs_class_conf conf = { .weight = 10 * (i + 1) };

		nqs_class_init(&cls[i], &conf, 1);
	}
	for (i = 0; i < nr; i++) {
		struct run *r = &a[i].run;

		run_init(r, shared ? &dom : NULL, shared ? cls : NULL,
			 512, shared ? LOCK_DEPTH / nr : LOCK_DEPTH,
			 0x2545f4914f6cdd1dULL * (i + 1));
		r->threads = nr;
		if (shared)
			r->clock = &clock;
		r->lock = shared ? &lk : NULL;
		r->stop = &stop;
		if (mode == SLICED) {
			/* a slice a cache line's multiple apart, as per-CPU data */
			r->slice = (struct nqs_slice *)((char *)sl + i * 1024);
			nqs_slice_init(r->slice);
			pthread_spin_init(&r->slock, PTHREAD_PROCESS_PRIVATE);
			r->all = all;
			all[i] = r;
		}
		a[i].dom = shared ? &dom : &r->dom;
		a[i].start = &start;
		a[i].stop = &stop;
	}
	for (i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, thread_fn, &a[i]);
	pthread_barrier_wait(&start);
	t0 = mono_ns();
	nap.tv_sec = (time_t)secs;
	nap.tv_nsec = (long)((secs - nap.tv_sec) * 1e9);
	nanosleep(&nap, NULL);
	stop = 1;
	for (i = 0; i < nr; i++) {
		pthread_join(t[i], NULL);
		ios += a[i].run.ios;
		nheld += a[i].run.held;
	}
	*held = ios ? (double)nheld / ios : 0;
	t0 = mono_ns() - t0;
	for (i = 0; i < nr; i++)
		free(a[i].run.flows);
	free(a);
	free(t);
	free(all);
	free(sl);
	return ios * 1e9 / t0;
}

static void bench_lock(void)
{
	static const u32 threads[] = { 1, 2, 4 };
	u32 i;

	if (json)
		printf("\"lock\":[");
	else
		printf("# 4 KiB reads/s through the core, threads on one domain under one\n"
		       "# spinlock (the module's d->lock before slices), the same with a\n"
		       "# slice per thread (the module's path now), and a domain per thread\n"
		       "%-8s %12s %6s %12s %6s %12s %6s\n", "threads", "one lock",
		       "held", "sliced", "held", "per-thread", "held");
	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		double hs, hl, hp;
		double sh = lock_rate(threads[i], SHARED, 2, &hs);
		double sl = lock_rate(threads[i], SLICED, 2, &hl);
		double pt = lock_rate(threads[i], PER_THREAD, 2, &hp);

		if (json)
			printf("%s{\"threads\":%u,\"shared\":%.0f,\"sliced\":%.0f,"
			       "\"per_thread\":%.0f,\"shared_held\":%.3f,"
			       "\"sliced_held\":%.3f,\"per_thread_held\":%.3f}",
			       i ? "," : "", threads[i], sh, sl, pt, hs, hl, hp);
		else
			printf("%-8u %12.0f %5.1f%% %12.0f %5.1f%% %12.0f %5.1f%%\n",
			       threads[i], sh, 100 * hs, sl, 100 * hl, pt, 100 * hp);
	}
	if (json)
		printf("]");
}

int main(int argc, char **argv)
{
	bool hosts = true, lock = true;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "hosts")) {
			lock = false;
		} else if (!strcmp(argv[i], "lock")) {
			hosts = false;
		} else {
			fprintf(stderr, "usage: sched_bench [--json] [hosts|lock]\n");
			return 2;
		}
	}
	if (json)
		printf("{\"cpus\":%ld,", sysconf(_SC_NPROCESSORS_ONLN));
	if (hosts)
		bench_hosts();
	if (json && hosts && lock)
		printf(",");
	if (lock)
		bench_lock();
	printf(json ? "}\n" : "");
	return 0;
}
