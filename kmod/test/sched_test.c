// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests and simulations of the scheduler core (kmod/sched.c,
 * kmod/depth.c and kmod/lease.c), the same files the module compiles.
 * KTAP output; exits non-zero on failure.
 *
 *   sched_test            run every test
 *   sched_test NAME...    run the tests whose names contain a NAME
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

static int nr_tests, nr_failed;

void result(bool ok, const char *name)
{
	nr_tests++;
	if (!ok)
		nr_failed++;
	printf("%s %d %s\n", ok ? "ok" : "not ok", nr_tests, name);
}

void set_weight(struct sim *s, u32 cls, u32 w)
{
	struct nqs_class_conf k = s->classes[cls].conf;

	k.weight = w;
	sim_reclaim(s);
	nqs_class_set_conf(&s->classes[cls], &k, s->now);
}

/* Run a warm-up, then a measured window; returns the window length. */
u64 measure(struct sim *s, u64 warm, u64 window)
{
	sim_run(s, s->now + warm);
	sim_reset_window(s);
	sim_run(s, s->now + window);
	return window;
}

bool near(double got, double want, double tol, const char *what)
{
	bool ok = fabs(got - want) <= tol;

	printf("# %s: %.2f (want %.2f +- %.2f)\n", what, got, want, tol);
	return ok;
}

static void test_shares_30_70(void)
{
	struct sim s;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	set_weight(&s, 0, 30);
	set_weight(&s, 1, 70);
	sim_start(&s);
	measure(&s, 2 * SEC, 10 * SEC);
	ok = near(sim_class_share(&s, 0), 30, 1, "class 30 share %");
	ok &= near(sim_class_share(&s, 1), 70, 1, "class 70 share %");
	result(ok, "shares 30/70 with two saturating hosts");
	sim_free(&s);
}

static void test_shares_mixed_profiles(void)
{
	struct sim s;
	bool ok = true;
	const u32 w[3] = { 20, 30, 50 };
	u32 i;

	sim_init(&s, 3, 3, 200 * MB, 100000);
	for (i = 0; i < 3; i++)
		set_weight(&s, i, w[i]);
	s.hosts[0].bs = 1 << 20;		/* sequential 1 MiB reads */
	s.hosts[1].bs = 128 << 10;		/* 80/20 mixed */
	s.hosts[1].write_pct = 20;
	s.hosts[2].bs = 256 << 10;		/* writes */
	s.hosts[2].write_pct = 100;
	sim_start(&s);
	measure(&s, 2 * SEC, 10 * SEC);
	for (i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof(what), "class %u share of cost %%", w[i]);
		ok &= near(sim_class_share(&s, i), w[i], 1, what);
	}
	result(ok, "shares 20/30/50 across read, mixed and write profiles");
	sim_free(&s);
}

static void test_work_conserving(void)
{
	struct sim s;
	double alone, both;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	set_weight(&s, 0, 30);
	set_weight(&s, 1, 70);
	s.hosts[1].qd = 0;			/* the 70% class is idle */
	sim_start(&s);
	measure(&s, 1 * SEC, 5 * SEC);
	alone = sim_class_bps(&s, 0, 5 * SEC);
	s.hosts[1].qd = 8;
	measure(&s, 1 * SEC, 5 * SEC);
	both = sim_class_bps(&s, 0, 5 * SEC) + sim_class_bps(&s, 1, 5 * SEC);
	ok = near(100.0 * alone / (100 * MB), 100, 5,
		  "idle peer: 30% class gets % of the device");
	ok &= near(100.0 * both / (100 * MB), 100, 5,
		   "contention: aggregate % of the device");
	result(ok, "work conserving: an idle class's share goes to the active one");
	sim_free(&s);
}

/*
 * The module dispatches held requests from a workqueue, which runs some
 * time after the completion that made room. On a device that serves in
 * ticks (null_blk's mbps throttle: a budget every 20 ms, the VM tests'
 * device), the latency of whatever misses a tick's budget is the rest of
 * the tick, so the latency rule alone settles on a depth of one request;
 * the device must still get its whole budget while requests are held,
 * however slow the worker, and shares must hold.
 */
static void test_work_conserving_worker_delay(void)
{
	/* fixed delays, then random ones (exponential) of the same means */
	static const u64 delay_us[] = { 0, 300, 1000, 3000, 5000,
					300, 1000, 3000 };
	const u32 first_random = 5;
	const u64 dev = 50ULL << 20;
	bool ok = true;
	u32 i;

	for (i = 0; i < sizeof(delay_us) / sizeof(delay_us[0]); i++) {
		struct sim s;
		char what[96];
		double pct;

		sim_init(&s, 2, 2, dev, 20000);
		set_weight(&s, 0, 30);
		set_weight(&s, 1, 70);
		s.dev_tick_ns = 20 * MS;
		s.worker_ns = delay_us[i] * 1000;
		s.worker_exp = i >= first_random;
		s.hosts[0].qd = 16;
		s.hosts[1].qd = 0;
		sim_start(&s);
		measure(&s, 2 * SEC, 5 * SEC);
		pct = 100.0 * sim_class_bps(&s, 0, 5 * SEC) / dev;
		snprintf(what, sizeof(what),
			 "worker delay %s%llu us: lone class gets %% of the device",
			 s.worker_exp ? "mean " : "",
			 (unsigned long long)delay_us[i]);
		ok &= near(pct, 100, 2, what);
		s.hosts[1].qd = 16;
		measure(&s, 2 * SEC, 5 * SEC);
		pct = 100.0 * (sim_class_bps(&s, 0, 5 * SEC) +
			       sim_class_bps(&s, 1, 5 * SEC)) / dev;
		snprintf(what, sizeof(what),
			 "worker delay %s%llu us: both classes get %% of the device",
			 s.worker_exp ? "mean " : "",
			 (unsigned long long)delay_us[i]);
		ok &= near(pct, 100, 2, what);
		snprintf(what, sizeof(what),
			 "worker delay %s%llu us: 30%% class share %%",
			 s.worker_exp ? "mean " : "",
			 (unsigned long long)delay_us[i]);
		ok &= near(sim_class_share(&s, 0), 30, 2, what);
		sim_free(&s);
	}
	result(ok, "work conserving on a tick-budget device whatever the worker's delay");
}

/*
 * Shares hold while the worker is late, as long as the hosts keep more
 * outstanding than the depth's floor, twice what the device completes in
 * the worker's delay: then some of it is held, and held work leaves in
 * the shares' order. Two hosts of 8 reads of 128 KiB (2 MiB) in classes
 * of 90 and 10 on a 100 MB/s device that serves in parallel, the worker
 * late by a random delay. At a mean of 2 ms the floor is most of the
 * 2 MiB and the 90 class gets 83%; from 5 ms on, nothing is held and the
 * device serves the hosts by their depths, 50% each (docs/design.md).
 */
static void test_shares_late_worker(void)
{
	static const u64 delay_us[] = { 200, 500, 1000 };
	char what[96];
	bool ok = true;
	size_t i;

	for (i = 0; i < sizeof(delay_us) / sizeof(delay_us[0]); i++) {
		struct sim s;

		sim_init(&s, 2, 2, 100 * MB, 200000);
		set_weight(&s, 0, 90);
		set_weight(&s, 1, 10);
		s.worker_ns = delay_us[i] * 1000;
		s.worker_exp = true;
		sim_start(&s);
		measure(&s, 1 * SEC, 20 * SEC);
		snprintf(what, sizeof(what),
			 "worker late by a mean %llu us: 90%% class share %%",
			 (unsigned long long)delay_us[i]);
		ok &= near(sim_class_share(&s, 0), 90, 2, what);
		snprintf(what, sizeof(what),
			 "worker late by a mean %llu us: %% of the device",
			 (unsigned long long)delay_us[i]);
		ok &= near((sim_class_bps(&s, 0, 20 * SEC) +
			    sim_class_bps(&s, 1, 20 * SEC)) / MB, 100, 2, what);
		sim_free(&s);
	}
	result(ok, "shares hold when the worker is late, the hosts queuing more than the depth's floor");
}

static void test_ceiling(void)
{
	struct nqs_class_conf k = { .weight = 70, .ceil_bps = 20 * MB };
	struct sim s;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	set_weight(&s, 0, 30);
	nqs_class_set_conf(&s.classes[1], &k, 0);
	s.hosts[0].qd = 0;
	sim_start(&s);
	measure(&s, 1 * SEC, 5 * SEC);
	ok = near(sim_class_bps(&s, 1, 5 * SEC) / MB, 20, 1,
		  "capped class alone, MB/s");
	s.hosts[0].qd = 8;
	measure(&s, 1 * SEC, 5 * SEC);
	ok &= near(sim_class_bps(&s, 1, 5 * SEC) / MB, 20, 1,
		   "capped class with a peer, MB/s");
	ok &= near(sim_class_bps(&s, 0, 5 * SEC) / MB, 80, 4,
		   "peer gets the rest, MB/s");
	result(ok, "ceiling holds with and without contention");
	sim_free(&s);
}

/*
 * A slow device that serves in parallel, as emulated NVMe drives of 48 ms a
 * request and 6 tags do (051): each epoch's probe of the least depth may
 * not hold the device at one request for most of a second. It did, 8
 * windows of 8 completions at 48 ms each: a class capped at 8 MB/s moved
 * 4.8, and two saturating hosts kept the device 82% busy.
 */
static void test_slow_device(void)
{
	struct nqs_class_conf k = { .weight = 70, .ceil_bps = 8 * MB };
	double dev = 6.0 * (128 << 10) / 0.048 / MB, got;
	struct sim s;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 48 * MS);
	s.dev_slots = 6;
	nqs_domain_set_tags(&s.dom, s.dev_slots);
	s.hosts[0].qd = 16;
	s.hosts[1].qd = 16;
	sim_start(&s);
	measure(&s, 1 * SEC, 10 * SEC);
	got = sim_class_bps(&s, 0, 10 * SEC) + sim_class_bps(&s, 1, 10 * SEC);
	ok = near(100 * got / MB / dev, 100, 5,
		  "two hosts on a 48 ms, 6-slot device: % of what it serves");
	sim_reclaim(&s);
	nqs_class_set_conf(&s.classes[1], &k, s.now);
	s.hosts[0].qd = 0;
	measure(&s, 2 * SEC, 10 * SEC);
	ok &= near(sim_class_bps(&s, 1, 10 * SEC) / MB, 8, 0.4,
		   "class capped at 8 MB/s alone on it, MB/s");
	result(ok, "a slow parallel device stays busy and ceilings hold on it");
	sim_free(&s);
}

/*
 * One class @k, one host of @bs-byte reads at @qd, the worker late by a
 * mean of @delay_ms: 30 s measured after 2 s.
 */
static void run_late(struct sim *s, const struct nqs_class_conf *k, u32 bs,
		     u32 qd, u64 delay_ms)
{
	sim_init(s, 1, 1, 50 * MB, 200000);
	nqs_class_set_conf(&s->classes[0], k, 0);
	s->hosts[0].bs = bs;
	s->hosts[0].qd = qd;
	s->worker_ns = delay_ms * MS;
	s->worker_exp = true;
	sim_start(s);
	measure(s, 2 * SEC, 30 * SEC);
}

/*
 * A ceiling holds when the dispatch of held requests is late: a worker
 * that runs a random time after its kick (mean 2 to 50 ms, some far
 * longer), as on a loaded machine or a VM whose CPUs the hypervisor
 * takes away. 128 KiB reads at 6 MB/s: the default burst, 256 KiB, is
 * 43 ms of the ceiling; a release later than that lost the rest, 11% of
 * the ceiling at a mean of 25 ms, 31% at 50.
 */
static void test_ceiling_late_worker(void)
{
	static const u64 delay_ms[] = { 2, 10, 25, 50 };
	struct nqs_class_conf k = { .weight = 100, .ceil_bps = 6000000 };
	struct nqs_class_conf ki = { .weight = 100, .ceil_iops = 500 };
	char what[96];
	struct sim s;
	bool ok = true;
	size_t i;

	for (i = 0; i < sizeof(delay_ms) / sizeof(delay_ms[0]); i++) {
		run_late(&s, &k, 128 << 10, 16, delay_ms[i]);
		snprintf(what, sizeof(what),
			 "MB/s of a 6 MB/s ceiling, worker late by a mean %llu ms",
			 (unsigned long long)delay_ms[i]);
		ok &= near(sim_class_bps(&s, 0, 30 * SEC) / 1e6, 6, 0.06, what);
		sim_free(&s);
	}
	/*
	 * An IOPS ceiling the same: 500 IOPS, a burst of 20 ms (10 reads);
	 * at depth 64, as 16 would bound it below 16 / 25 ms.
	 */
	run_late(&s, &ki, 4096, 64, 25);
	ok &= near(s.hosts[0].ios / 30.0, 500, 5,
		   "IOPS of a 500 IOPS ceiling, worker late by a mean 25 ms");
	sim_free(&s);
	result(ok, "a ceiling holds when its held requests are released late");
}

/* An IOPS ceiling holds, for requests far below the byte rates around. */
static void test_iops_ceiling(void)
{
	struct nqs_class_conf k = { .weight = 100, .ceil_iops = 500 };
	struct sim s;
	bool ok;

	sim_init(&s, 1, 1, 100 * MB, 200000);
	nqs_class_set_conf(&s.classes[0], &k, 0);
	s.hosts[0].bs = 4096;
	s.hosts[0].qd = 16;
	sim_start(&s);
	measure(&s, 1 * SEC, 5 * SEC);
	ok = near(s.hosts[0].ios / 5.0, 500, 5, "4 KiB reads at --max-iops 500, a second");
	result(ok, "IOPS ceiling holds");
	sim_free(&s);
}

/*
 * A class that idled moves its burst at once, then its ceiling: 2 MB/s
 * with an 8 MB burst gives 10 MB in the first second and 2 MB/s after.
 */
static void test_burst(void)
{
	struct nqs_class_conf k = { .weight = 100, .ceil_bps = 2 * MB,
				    .burst = 8 * MB };
	struct sim s;
	bool ok;

	sim_init(&s, 1, 1, 100 * MB, 200000);
	nqs_class_set_conf(&s.classes[0], &k, 0);
	s.hosts[0].qd = 0;
	sim_start(&s);
	sim_run(&s, 5 * SEC);
	s.hosts[0].qd = 4;
	sim_reset_window(&s);
	sim_run(&s, s.now + 1 * SEC);
	ok = near(s.hosts[0].bytes / (double)MB, 10, 0.5,
		  "MB in the first second after idling");
	measure(&s, 1 * SEC, 4 * SEC);
	ok &= near(sim_class_bps(&s, 0, 4 * SEC) / MB, 2, 0.1,
		   "MB/s once the burst is spent");
	result(ok, "burst after idling, then the ceiling");
	sim_free(&s);
}

static void test_floor(void)
{
	struct nqs_class_conf k = { .weight = 10, .floor_bps = 40 * MB };
	struct sim s;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	set_weight(&s, 0, 90);
	nqs_class_set_conf(&s.classes[1], &k, 0);
	sim_start(&s);
	measure(&s, 1 * SEC, 5 * SEC);
	ok = near(sim_class_bps(&s, 1, 5 * SEC) / MB, 40, 2,
		  "10% class with a 40 MB/s floor, MB/s");
	result(ok, "floor holds against a larger-share class");
	sim_free(&s);
}

/* With a capacity hint below what the device does, shares are of the hint. */
static void test_capacity_hint(void)
{
	struct sim s;
	u64 cost = 0, win;
	bool ok;
	u32 i;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	set_weight(&s, 0, 30);
	set_weight(&s, 1, 70);
	nqs_domain_set_capacity(&s.dom, 40 * MB, 0);
	sim_start(&s);
	win = measure(&s, 1 * SEC, 5 * SEC);
	for (i = 0; i < s.nr_hosts; i++)
		cost += s.hosts[i].cost;
	ok = near(cost * 1e9 / win / MB, 40, 0.5, "cost units/s, MB");
	ok &= near(sim_class_share(&s, 0), 30, 1, "class 30 share % of the hint");
	sim_reclaim(&s);
	nqs_domain_set_capacity(&s.dom, 0, s.now);
	measure(&s, 1 * SEC, 5 * SEC);
	ok &= near((sim_class_bps(&s, 0, 5 * SEC) + sim_class_bps(&s, 1, 5 * SEC)) / MB,
		   100, 5, "hint removed: aggregate MB/s");
	result(ok, "capacity hint caps the domain and shares are kept of it");
	sim_free(&s);
}

/*
 * A device on which writes take 4x a read's time, and the cost model told
 * so: equal shares give the writer a quarter of the reader's bytes, i.e.
 * equal device time.
 */
static void test_write_cost(void)
{
	struct nqs_cost k = { .write_pct = 400, .io_cost = 4096 };
	double want = (128.0 * 1024 + 4096) / (4 * 128.0 * 1024 + 4096);
	struct sim s;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	s.dev_write_pct = 400;
	nqs_domain_set_cost(&s.dom, &k);
	s.hosts[1].write_pct = 100;
	sim_start(&s);
	measure(&s, 1 * SEC, 5 * SEC);
	ok = near(sim_class_share(&s, 0), 50, 1, "reader's share of cost %");
	ok &= near(sim_class_bps(&s, 1, 5 * SEC) / sim_class_bps(&s, 0, 5 * SEC),
		   want, 0.02, "writer's bytes / reader's bytes");
	result(ok, "write cost factor: shares count writes at their cost");
	sim_free(&s);
}

/*
 * p99 of 4 KiB QD1 reads of a latency class on a device serving @slots
 * requests at once for @slot_ns each, alone and next to a bulk class with
 * 128 requests of @bs outstanding. @stock: the scheduler never holds
 * anything back, so everything queues in the device's FIFO, as with stock
 * nvmet. @worker_ns, if not 0: the module's case on a blk-mq disk with an
 * I/O scheduler. The device takes twice its slots, the worker (late by
 * @worker_ns on average) sleeps when it dispatches one more, and the
 * core knows the slots as tags.
 */
static void latency_p99(bool stock, u64 worker_ns, u32 slots, u64 slot_ns,
			u32 bs, u64 *alone, u64 *contended, double *bulk)
{
	struct nqs_class_conf k = { .weight = 30, .latency = true };
	struct sim s;

	sim_init(&s, 2, 2, 100 * MB, slot_ns);
	s.dev_slots = slots;
	nqs_class_set_conf(&s.classes[0], &k, 0);
	set_weight(&s, 1, 70);
	if (stock)
		s.dom.depth = s.dom.depth_min = s.dom.depth_max = 1ULL << 50;
	if (worker_ns) {
		s.dev_queue_max = 2 * slots;
		s.worker_ns = worker_ns;
		s.worker_exp = true;
		if (!stock)
			nqs_domain_set_tags(&s.dom, s.dev_slots);
	}
	s.hosts[0].bs = 4 << 10;
	s.hosts[0].qd = 1;
	s.hosts[0].cap_lat = 1 << 16;
	s.hosts[0].lat_samples = calloc(s.hosts[0].cap_lat, sizeof(u64));
	s.hosts[1].bs = bs;
	s.hosts[1].qd = 0;
	sim_start(&s);
	measure(&s, 1 * SEC, 10 * SEC);
	*alone = sim_host_pct_lat(&s.hosts[0], 99);
	s.hosts[1].qd = 128;
	measure(&s, 2 * SEC, 20 * SEC);
	*contended = sim_host_pct_lat(&s.hosts[0], 99);
	*bulk = sim_class_bps(&s, 1, 20 * SEC);
	sim_free(&s);
}

/*
 * Judge one latency class scenario against stock; true if it holds.
 * @bulk_pct: what the bulk class should keep of stock's throughput, +- @tol.
 */
static bool latency_case(u64 worker_ns, u32 slots, u64 slot_ns, u32 bs,
			 double bulk_pct, double tol)
{
	double bulk, sbulk;
	u64 a, c, sa, sc;
	bool ok;

	latency_p99(false, worker_ns, slots, slot_ns, bs, &a, &c, &bulk);
	latency_p99(true, worker_ns, slots, slot_ns, bs, &sa, &sc, &sbulk);
	printf("# stock: p99 %llu us alone, %llu us contended (%.2fx)\n",
	       (unsigned long long)sa / 1000, (unsigned long long)sc / 1000,
	       (double)sc / sa);
	ok = near((double)c / a, 1.0, 0.5,
		  "latency class: contended p99 / uncontended p99");
	ok &= near(100.0 * bulk / sbulk, bulk_pct, tol,
		   "bulk class throughput, % of stock's");
	return ok;
}

/* The headroom it needs costs the bulk class about one slot of 8. */
static void test_latency_class(void)
{
	result(latency_case(0, 8, 4 * MS, 128 << 10, 87.5, 12.5),
	       "latency class keeps its p99 within 1.5x on a parallel device");
}

/*
 * 019's device (8 slots of 8 ms, 32 KiB bulk reads) as the module meets
 * it: a worker that sleeps for the device's requests hides the device's
 * queue from the depth, and only the tags keep a slot free. (Without them
 * the contended p99 is 1.59x.) The bulk class then loses the slot kept
 * free, the worker's delay before it refills one of the other seven, and
 * the probe's drain: about a fifth.
 */
static void test_latency_class_tags(void)
{
	result(latency_case(MS / 5, 8, 8 * MS, 32 << 10, 80, 10),
	       "latency class keeps its p99 within 1.5x where the worker sleeps for a request");
}

/*
 * A slow device of few slots whose tags the core does not know, as an md
 * array over the VM's emulated NVMe drives (6 slots of 24 ms, 128 KiB
 * bulk reads). The depth settles where the device queues about twice
 * its slots; when the latency class's cap could not go below half of
 * that, all 6 slots stayed busy with bulk reads, and one of them was in
 * the way of the small read's p99 (2x). The bulk class gives up one
 * slot and more, as its cap moves in eighths.
 */
static void test_latency_slow(void)
{
	result(latency_case(0, 6, 24 * MS, 128 << 10, 70, 10),
	       "latency class keeps its p99 within 1.5x on a slow device of few slots");
}

/*
 * 019's device again, with a dispatcher late by 2 ms on average (an
 * emulated head busy with its hosts' traffic). A latency class's read
 * that is next in line anyway goes at once, not after the worker: when
 * it waited for the worker, its p99 was 2.05x. The bulk class waits for
 * it: the tags keep the device from queueing, so each slot a bulk read
 * leaves idles until the worker comes, and the class keeps about 60% of
 * stock's rate (73% with the 0.2 ms worker above).
 */
static void test_latency_late_worker(void)
{
	result(latency_case(2 * MS, 8, 8 * MS, 32 << 10, 60, 10),
	       "latency class keeps its p99 within 1.5x beside a late dispatcher");
}

/*
 * The emulated NVMe drive of 051 with one queue: 6 tags of 24 ms, 32 KiB
 * bulk reads, the dispatcher late by 2 ms. The bulk class fills the tags
 * but the one kept, and its last read admitted below the limit may pass
 * it by a whole read. The small read must still find room: when it
 * needed the limit plus an eighth, the contended p99 was 1.63x (1.34x
 * with the 0.2 ms worker).
 */
static void test_latency_tags_slow(void)
{
	result(latency_case(2 * MS, 6, 24 * MS, 32 << 10, 60, 10),
	       "latency class keeps its p99 within 1.5x on a device of 6 tags of 24 ms");
}

/*
 * 053's drives with deeper queues: 12 tags of 96 ms, known to the core,
 * 32 KiB bulk reads, a dispatcher late by 0.2 ms. A probe at the least
 * depth lasts several of those 96 ms, and one each epoch left the bulk
 * class 68% of stock's bytes (78% in the VM, on md over 4 such drives).
 * Spaced by their own length (depth.c), probes cost about a
 * thirty-second: 82%, of the 92% the tag kept for the latency class
 * leaves.
 */
static void test_latency_deep_slow(void)
{
	result(latency_case(MS / 5, 12, 96 * MS, 32 << 10, 85, 7),
	       "latency class keeps its p99 within 1.5x on a slow device of 12 tags");
}

static void test_live_change(void)
{
	struct sim s;
	bool ok;

	sim_init(&s, 2, 2, 100 * MB, 200000);
	sim_start(&s);
	measure(&s, 1 * SEC, 2 * SEC);
	ok = near(sim_class_share(&s, 0), 50, 1, "before change %");
	set_weight(&s, 0, 30);
	set_weight(&s, 1, 70);
	sim_run(&s, s.now + 100 * MS);
	sim_reset_window(&s);
	sim_run(&s, s.now + 900 * MS);
	ok &= near(sim_class_share(&s, 0), 30, 1.5, "100-1000 ms after change %");
	result(ok, "live share change takes effect within 1 s");
	sim_free(&s);
}

/* Hosts move between classes and the class bookkeeping stays balanced. */
static void test_reassign_balance(void)
{
	struct sim s;
	u32 i, step;
	bool ok = true;

	sim_init(&s, 4, 32, 100 * MB, 100000);
	sim_start(&s);
	for (step = 0; step < 200; step++) {
		struct sim_host *h = &s.hosts[(step * 7) % s.nr_hosts];

		sim_reclaim(&s);
		nqs_flow_set_class(&s.dom, &h->flow, &s.classes[step % 4]);
		sim_run(&s, s.now + 5 * MS);
	}
	for (i = 0; i < s.nr_hosts; i++)
		s.hosts[i].qd = 0;
	sim_run(&s, s.now + 2 * SEC);
	sim_reclaim(&s);
	ok &= s.dom.nr_queued == 0 && s.dom.inflight == 0 &&
	      s.dom.inflight_ios == 0;
	for (i = 0; i < 4; i++)
		ok &= s.classes[i].nr_queued == 0;
	printf("# after 200 reassignments: queued %llu, in flight %llu\n",
	       (unsigned long long)s.dom.nr_queued,
	       (unsigned long long)s.dom.inflight_ios);
	result(ok, "reassignment under load keeps queues and depth balanced");
	sim_free(&s);
}

/* The scale the field asks for: 512 hosts in 8 classes on 23.5 GB/s. */
static void test_scale(void)
{
	const u32 w[8] = { 5, 10, 15, 20, 25, 30, 40, 55 };
	u32 i, sum = 0;
	double worst = 0;
	struct sim s;

	sim_init(&s, 8, 512, 23500 * MB, 100000);
	for (i = 0; i < 8; i++) {
		set_weight(&s, i, w[i]);
		sum += w[i];
	}
	for (i = 0; i < 512; i++) {
		s.hosts[i].bs = (i % 3 == 0) ? (1 << 20) : (128 << 10);
		s.hosts[i].qd = 4;
	}
	sim_start(&s);
	measure(&s, 200 * MS, 1 * SEC);
	for (i = 0; i < 8; i++) {
		double err = fabs(sim_class_share(&s, i) - 100.0 * w[i] / sum);

		if (err > worst)
			worst = err;
	}
	printf("# 512 hosts, 8 classes, 23.5 GB/s: worst class share error %.3f pp\n",
	       worst);
	result(worst <= 1.0, "share error <= 1 pp with 512 hosts in 8 classes");
	sim_free(&s);
}

static int perf_open(void)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(pe),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);
}

static u64 perf_read(int fd)
{
	u64 v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * Scheduling cost per I/O (submit + next + complete) at 8, 512, 4,096 and
 * 65,536 hosts in 8 classes: instructions where the CPU's counter is
 * readable, nanoseconds always. Per-host work is O(1) (round robin within
 * a class), so the cost must not grow anywhere near linearly with hosts:
 * 8,192x the hosts may cost at most 4x per I/O (the simulator's own event
 * heap grows with the requests outstanding, and its memory with hosts).
 */
static void test_cost_scaling(void)
{
	const u32 hosts[4] = { 8, 512, 4096, 65536 };
	double ns[4], ins[4];
	int fd = perf_open();
	u32 i;

	for (i = 0; i < 4; i++) {
		struct timespec a, b;
		struct sim s;
		u64 calls, i0;

		sim_init(&s, 8, hosts[i], 23500 * MB, 100000);
		for (u32 h = 0; h < hosts[i]; h++)
			s.hosts[h].qd = 2;
		sim_start(&s);
		sim_run(&s, 50 * MS);
		calls = s.sched_calls;
		if (fd >= 0) {
			ioctl(fd, PERF_EVENT_IOC_RESET, 0);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		i0 = perf_read(fd);
		clock_gettime(CLOCK_MONOTONIC, &a);
		sim_run(&s, s.now + 200 * MS);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		calls = s.sched_calls - calls;
		ns[i] = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / calls;
		ins[i] = fd >= 0 ? (double)(perf_read(fd) - i0) / calls : 0;
		printf("# %5u hosts: %.0f ns, %.0f instructions per scheduler call, simulator included (%llu calls)\n",
		       hosts[i], ns[i], ins[i], (unsigned long long)calls);
		sim_free(&s);
	}
	if (fd < 0)
		printf("# instruction counter not available here (perf_event_open); time only\n");
	else
		close(fd);
	result(fd >= 0 ? ins[3] <= 4 * ins[0] : ns[3] <= 8 * ns[0],
	       "per-I/O scheduling cost does not grow linearly with hosts");
}

/*
 * A test of the sims run again with 4 slices: requests admitted and
 * completed as the module's CPUs do when the device has room.
 */
#define SLICED(name)							\
	{ "slices4_" #name, sliced_##name }
#define SLICED_FN(name)							\
	static void sliced_##name(void)					\
	{								\
		sim_slices = 4;						\
		test_##name();						\
		sim_slices = 0;						\
	}
SLICED_FN(shares_30_70)
SLICED_FN(shares_mixed_profiles)
SLICED_FN(work_conserving)
SLICED_FN(ceiling)
SLICED_FN(iops_ceiling)
SLICED_FN(slow_device)
SLICED_FN(burst)
SLICED_FN(floor)
SLICED_FN(capacity_hint)
SLICED_FN(latency_class)
SLICED_FN(latency_class_tags)
SLICED_FN(live_change)
SLICED_FN(reassign_balance)

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "shares_30_70", test_shares_30_70 },
	{ "shares_mixed_profiles", test_shares_mixed_profiles },
	{ "work_conserving", test_work_conserving },
	{ "work_conserving_worker_delay", test_work_conserving_worker_delay },
	{ "shares_late_worker", test_shares_late_worker },
	{ "ceiling", test_ceiling },
	{ "ceiling_late_worker", test_ceiling_late_worker },
	{ "iops_ceiling", test_iops_ceiling },
	{ "slow_device", test_slow_device },
	{ "burst", test_burst },
	{ "floor", test_floor },
	{ "capacity_hint", test_capacity_hint },
	{ "write_cost", test_write_cost },
	{ "latency_class", test_latency_class },
	{ "latency_class_tags", test_latency_class_tags },
	{ "latency_slow", test_latency_slow },
	{ "latency_deep_slow", test_latency_deep_slow },
	{ "latency_late_worker", test_latency_late_worker },
	{ "latency_tags_slow", test_latency_tags_slow },
	{ "live_change", test_live_change },
	{ "reassign_balance", test_reassign_balance },
	{ "scale", test_scale },
	{ "cost_scaling", test_cost_scaling },
	{ "vtime_wrap", test_vtime_wrap },
	{ "rates", test_rates },
	{ "op_cost", test_op_cost },
	{ "extremes", test_extremes },
	{ "drr_bounded", test_drr_bounded },
	{ "host_weights", test_host_weights },
	{ "latency_vs_floor", test_latency_vs_floor },
	{ "hold_bound", test_hold_bound },
	{ "capped_fast", test_capped_fast },
	{ "complete_kick", test_complete_kick },
	{ "latency_fast", test_latency_fast },
	/* The same guarantees with admission through slices (slice_test.c). */
	SLICED(shares_30_70),
	SLICED(shares_mixed_profiles),
	SLICED(work_conserving),
	SLICED(ceiling),
	SLICED(iops_ceiling),
	SLICED(slow_device),
	SLICED(burst),
	SLICED(floor),
	SLICED(capacity_hint),
	SLICED(latency_class),
	SLICED(latency_class_tags),
	SLICED(live_change),
	SLICED(reassign_balance),
	{ "slices_fast", test_slices_fast },
	{ "slices_books", test_slices_books },
	{ "slices_ceilings", test_slices_ceilings },
	{ "queues_apart", test_queues_apart },
	{ "queues_together", test_queues_together },
	{ "queues_sliced", test_queues_sliced },
	{ "queues_elsewhere", test_queues_elsewhere },
	{ "stripe_rules", test_stripe_rules },
	{ "stripe_wide", test_stripe_wide },
};

static bool chosen(const char *name, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return true;
	return argc < 2;
}

/* The plan counts the tests that will run, so it matches their results. */
int main(int argc, char **argv)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		n += chosen(tests[i].name, argc, argv);
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (chosen(tests[i].name, argc, argv))
			tests[i].fn();
	printf("# %d/%d passed\n", nr_tests - nr_failed, nr_tests);
	return nr_failed || nr_tests != (int)n ? 1 : 0;
}
