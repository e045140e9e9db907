// SPDX-License-Identifier: GPL-2.0
/*
 * Hooking the distribution's unmodified nvmet: its requests.
 *
 * With admin.c, the only files that include nvmet's private header. This
 * one probes nvmet's own tracepoints, which fire for every command (bind.c
 * attaches the probes to each nvmet that loads):
 *
 *   nvmet_req_init      after a command was parsed, before nvmet takes its
 *                       reference on the submission queue. For the commands
 *                       that move data or work the device on I/O queues
 *                       (read, write, zone append, write zeroes, dataset
 *                       management, flush) we point req->execute at one of
 *                       our trampolines ("arming" the request).
 *   nvmet_req_complete  when the response is queued. A request still armed
 *                       here never ran (nvmet_req_init failed after the probe
 *                       ran); one we executed has its per-request state here.
 *
 * A transport may also abandon an initialised request without executing or
 * completing it (nvmet_req_uninit(), e.g. when a queue dies while a write
 * waits for its data). There is no tracepoint for that, so a kprobe on
 * nvmet_req_uninit disarms such requests.
 *
 * Every request we armed is in the request hash until it completes (or is
 * disarmed): its trampoline and completion find it there, and unload can
 * hand back those a transport has not executed yet (a write whose data the
 * host has not sent, perhaps never will): their req->execute goes back to
 * nvmet's handler, and unload waits for no host.
 *
 * The completion probe also tells admin.c about controllers: the commands
 * of admin queues that complete (a connect made one, authentication).
 *
 * "pending" counts the requests whose req->execute points into this
 * module, plus trampolines still running: the one counter the safety of
 * module unload rests on (bind.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/kprobes.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "nvmet.h"
#include "compat.h"
#include "glue.h"
#include "nvmet-qos.h"

/* Distinct handlers: bdev and file read/write, flush, dsm, write zeroes, zone append. */
#define NR_SLOTS	16
/*
 * Requests are hashed from arming to completion, one insertion and one
 * removal each. Held ones stay hashed, though their domain reaches them:
 * a second insertion per request would cost more than their share of the
 * chains, which the transports' queue depths bound like the others'.
 */
#define REQ_HASH_BITS	12

typedef void (*execute_fn)(struct nvmet_req *req);

/* State of one request from arming to completion. */
struct tracked {
	union {
		struct hlist_node node;	/* in req_hash: from arming on */
		struct tracked *next;	/* on a CPU's spares */
	};
	struct nvmet_req *req;
	execute_fn fn;			/* nvmet's handler */
	bool armed;			/* req->execute is our trampoline;
					 * changes under the bucket lock */
	struct nq_host *host;
	struct nq_domain *dom;		/* NULL: not scheduled */
	struct nqs_req sreq;
	u64 dispatch_ns;
	bool counted;			/* in the host's read/write counters */
};

/*
 * A completion may come in interrupt context, so a bucket's lock is taken
 * with interrupts off, by spin_lock() in a probe or trampoline that turned
 * them off once for its tracker, the bucket and the domain together.
 */
struct req_bucket {
	spinlock_t lock;
	struct hlist_head head;
};

/* The original execute handler behind each trampoline. */
static execute_fn orig_execute[NR_SLOTS];
static DEFINE_SPINLOCK(slot_lock);

static long __percpu *pending;
static struct kmem_cache *tracked_cache;
/*
 * Trackers are taken in atomic context for every request. Short of
 * memory they come from a reserve, which every free refills first, so
 * that a spell of memory pressure does not turn scheduling off: as many
 * requests as the reserve holds stay scheduled however long it lasts.
 * Past it a request runs unscheduled, and is counted (host table).
 */
#define TRACKED_RESERVE		1024
static mempool_t *tracked_pool;
/*
 * A CPU keeps a few trackers freed on it for its next requests: most
 * requests complete where they were armed, and taking one from a list
 * and giving it back cost some three hundred instructions fewer than the
 * slab's allocation and free (docs/design.md, "Instructions per read").
 * The reserve is refilled before them.
 */
#define CPU_SPARES		32
struct spares {
	struct tracked *head;
	unsigned int n;
};
static struct spares __percpu *spares;
static struct req_bucket req_hash[1 << REQ_HASH_BITS];

/*
 * With interrupts off, as the tracker's whole way is, so that the probes
 * turn them off once for this and the request hash's lock together.
 */
static __always_inline struct tracked *tracked_get(void)
{
	struct spares *sp = this_cpu_ptr(spares);
	struct tracked *t = sp->head;

	lockdep_assert_irqs_disabled();
	if (!t)
		return mempool_alloc(tracked_pool, GFP_ATOMIC);
	sp->head = t->next;
	sp->n--;
	return t;
}

/*
 * With interrupts off: to this CPU's spares, unless the reserve is short
 * of one or they are full.
 */
static __always_inline void tracked_put(struct tracked *t)
{
	struct spares *sp = this_cpu_ptr(spares);

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(tracked_pool->curr_nr) < tracked_pool->min_nr ||
	    sp->n >= CPU_SPARES) {
		mempool_free(t, tracked_pool);
		return;
	}
	t->next = sp->head;
	sp->head = t;
	sp->n++;
}

/* The trackers the CPUs keep now (host table): slab objects in no request. */
u32 nq_track_spares(void)
{
	u32 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(spares, cpu)->n);
	return n;
}

/* Once no probe can run: the spares back to the slab. */
static void spares_free(void)
{
	struct tracked *t;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct spares *sp = per_cpu_ptr(spares, cpu);

		while ((t = sp->head)) {
			sp->head = t->next;
			mempool_free(t, tracked_pool);
		}
		sp->n = 0;
	}
}

static void pending_dec(void)
{
	this_cpu_dec(*pending);
}

long nq_pending_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(pending, cpu));
	return sum;
}

static struct req_bucket *bucket_of(const struct nvmet_req *req)
{
	return &req_hash[hash_ptr(req, REQ_HASH_BITS)];
}

/*
 * The scheduling domain of a namespace: its whole disk, so partitions share
 * one budget; for a file, the disk (or device) of its file system. The
 * domain of @hint (host_of()) if that is the namespace's, without a
 * lookup.
 */
static struct nq_domain *domain_of(struct nvmet_ns *ns,
				   const struct nq_flow *hint)
{
	struct gendisk *disk = NULL;
	struct super_block *sb = NULL;
	struct nq_domain *d;

	if (ns->bdev) {
		disk = ns->bdev->bd_disk;
	} else {
		if (!ns->file)
			return NULL;
		sb = file_inode(ns->file)->i_sb;
		if (sb->s_bdev)
			disk = sb->s_bdev->bd_disk;
	}
	d = nq_domain_hinted(hint, disk ? disk_devt(disk) : sb->s_dev);
	if (d)
		return d;
	if (disk)
		return nq_disk_domain(disk);
	return nq_domain_get(sb->s_dev, sb->s_id, &(struct nq_shape){ 0 });
}

/*
 * What a host's retry of @cmd repeats: its opcode, namespace and dwords
 * 10-15 (range, length), not its command identifier or data pointer.
 */
static u64 command_key(const struct nvme_command *cmd)
{
	const __le32 *dw = (const __le32 *)cmd;
	u32 k[8] = { cmd->common.opcode, le32_to_cpu(cmd->common.nsid) };
	int i;

	for (i = 0; i < 6; i++)
		k[2 + i] = le32_to_cpu(dw[10 + i]);
	return (u64)jhash2(k, ARRAY_SIZE(k), 0) << 32 |
	       jhash2(k, ARRAY_SIZE(k), 1);
}

/*
 * Where on its disk a command's range starts, in 512-byte sectors, for a
 * striped device's members; a file's offsets are not its disk's.
 */
static u64 sector_of(const struct nvmet_req *req, __le64 slba)
{
	if (!req->ns->bdev)
		return NQS_SECTOR_ANY;
	return (le64_to_cpu(slba) << (req->ns->blksize_shift - SECTOR_SHIFT)) +
	       get_start_sect(req->ns->bdev);
}

/*
 * What a command costs the device, for the cost model (docs/design.md):
 * reads, writes and zone appends move their data; a write zeroes writes
 * its range (a device may write every block, and a class must not get
 * around its byte ceiling with it); a dataset management command costs
 * the fixed I/O cost per range, and a flush the fixed cost once, and
 * neither counts against byte ceilings. Every command counts one I/O
 * against IOPS ceilings. Only data movers go in the host's read and write
 * counters.
 */
static void shape(const struct nvmet_req *req, struct tracked *t)
{
	const struct nvme_command *cmd = req->cmd;

	t->sreq.bytes = 0;
	t->sreq.write = true;
	t->sreq.ops = 1;
	t->sreq.sector = NQS_SECTOR_ANY;
	t->counted = true;
	switch (cmd->common.opcode) {
	case nvme_cmd_read:
		t->sreq.write = false;
		fallthrough;
	case nvme_cmd_write:
	case nvme_cmd_zone_append:
		t->sreq.bytes = req->transfer_len;
		t->sreq.sector = sector_of(req, cmd->rw.slba);
		break;
	case nvme_cmd_write_zeroes:
		t->sreq.bytes = min_t(u64, (u64)(le16_to_cpu(cmd->write_zeroes.length) + 1)
				      << req->ns->blksize_shift, U32_MAX);
		t->sreq.sector = sector_of(req, cmd->write_zeroes.slba);
		break;
	case nvme_cmd_dsm:
		t->sreq.ops = le32_to_cpu(cmd->dsm.nr) + 1;
		t->counted = false;
		break;
	default:
		t->counted = false;
		break;
	}
}

/* The commands shape() knows; the others are left alone. */
static bool scheduled(u8 opcode)
{
	switch (opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_zone_append:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
	case nvme_cmd_flush:
		return true;
	}
	return false;
}

/*
 * The host @req runs as, with a reference: its controller's NQN's (kept
 * with the controller's record, else looked up by the NQN), unless that
 * NQN's class admits authenticated controllers only and @req's queue did
 * not authenticate: then the unauthenticated host, in default. A machine
 * that claims a training server's NQN gets no more than default. True in
 * *@kept where the host is the record's, and then *@hint is the flow the
 * record keeps (NULL: none yet).
 */
static struct nq_host *host_of(struct nvmet_req *req, struct nq_flow **hint,
			       bool *kept)
{
	struct nvmet_ctrl *ctrl = req->sq->ctrl;
	struct nq_host *host = nq_ctrl_host(ctrl, hint);

	*kept = host != NULL;
	if (!host)
		host = nq_host_get(ctrl->hostnqn, GFP_ATOMIC);
	if (!nq_host_auth_only(host) || nq_sq_authenticated(req->sq))
		return host;
	*hint = NULL;
	*kept = false;
	nq_host_put(host);
	return nq_host_get(NQ_UNAUTH_NQN, GFP_ATOMIC);
}

/* What scheduling @t needs, once the transport executes it (host_of()). */
static void track(struct tracked *t, struct nq_flow **hint, bool *kept)
{
	struct nvmet_req *req = t->req;

	t->host = host_of(req, hint, kept);
	t->dom = domain_of(req->ns, *hint);
	shape(req, t);
	t->sreq.flow = NULL;
}

/*
 * With interrupts off: offer @t to its domain; true: execute it now, at
 * *@now. Where the flow it went by is not the one its controller's record
 * kept, the record keeps this one for the next request.
 */
static bool submit(struct tracked *t, u64 *now)
{
	struct nvmet_req *req = t->req;
	struct nq_flow *hint, *was;
	bool go, kept;

	track(t, &hint, &kept);
	if (!t->dom || percpu_ref_is_dying(&req->sq->ref))
		return true;
	was = hint;
	go = nq_domain_submit(t->dom, t->host, &hint, &t->sreq, now);
	/*
	 * Only from a request executed now, whose tracker and host reference
	 * stay until it has run: a held one may have been dispatched and
	 * completed by now, its host perhaps reclaimed, its address reused.
	 */
	if (go && kept && hint != was)
		nq_ctrl_hint(req->sq->ctrl, t->host, hint);
	return go;
}

/*
 * With interrupts off: hash @t so that its trampoline, completion or
 * uninit finds it: O(1), no walk. nvmet reuses a request only after
 * completing or uninitialising it, each of which takes the entry out
 * (unbind() drops the rest), so there is never an older entry of the same
 * request to replace.
 */
static __always_inline void hash_tracked(struct tracked *t)
{
	struct req_bucket *b = bucket_of(t->req);

	spin_lock(&b->lock);
	hlist_add_head(&t->node, &b->head);
	spin_unlock(&b->lock);
}

/* Under @b's lock: @req's entry in @b, any or only an armed one. */
static __always_inline struct tracked *find(struct req_bucket *b,
					    const struct nvmet_req *req,
					    bool armed_only)
{
	struct tracked *t;

	hlist_for_each_entry(t, &b->head, node)
		if (t->req == req && (t->armed || !armed_only))
			return t;
	return NULL;
}

/*
 * With interrupts off: @req's armed entry, now no longer armed, left in
 * the hash for its completion; NULL if unload handed @req back (or never
 * armed it).
 */
static __always_inline struct tracked *claim(struct nvmet_req *req)
{
	struct req_bucket *b = bucket_of(req);
	struct tracked *t;

	spin_lock(&b->lock);
	t = find(b, req, true);
	if (t)
		t->armed = false;
	spin_unlock(&b->lock);
	return t;
}

/*
 * With interrupts off: take @req's entry out of the hash, any or only an
 * armed one. Inline: every request's completion comes through it.
 */
static __always_inline struct tracked *untrack(struct nvmet_req *req,
					       bool armed_only)
{
	struct req_bucket *b = bucket_of(req);
	struct tracked *t;

	spin_lock(&b->lock);
	t = find(b, req, armed_only);
	if (t)
		hlist_del(&t->node);
	spin_unlock(&b->lock);
	return t;
}

/* Our probes are off nvmet (unbind()): drop what is still tracked. */
void nq_untrack_all(void)
{
	struct tracked *t;
	struct hlist_node *tmp;
	int i;

	for (i = 0; i < ARRAY_SIZE(req_hash); i++) {
		spin_lock_irq(&req_hash[i].lock);
		hlist_for_each_entry_safe(t, tmp, &req_hash[i].head, node) {
			hlist_del(&t->node);
			if (!t->armed)
				nq_host_put(t->host);
			tracked_put(t);
		}
		spin_unlock_irq(&req_hash[i].lock);
	}
	/* nvmet's text may go away: forget its handlers. */
	memset(orig_execute, 0, sizeof(orig_execute));
}

/*
 * Run nvmet's handler for a request, dispatched at @now (its domain's
 * clock, read once for both); it may complete before this returns.
 */
static void execute(struct tracked *t, u64 now)
{
	struct nvmet_req *req = t->req;
	execute_fn fn = t->fn;

	t->dispatch_ns = now;
	fn(req);
	pending_dec();
}

/*
 * Complete a held request with @status instead of executing it.
 * nvmet_req_complete() is taken with symbol_get() for the call only, so
 * nvmet-qos neither depends on nvmet nor pins it. The completion passes
 * probe_complete() like any other, which frees it.
 */
static void complete_held(struct tracked *t, u16 status)
{
	void (*complete)(struct nvmet_req *req, u16 status);

	complete = symbol_get(nvmet_req_complete);
	if (WARN_ON_ONCE(!complete)) {
		/* nvmet going with a queue alive: cannot happen */
		execute(t, ktime_get_ns());
		return;
	}
	t->dispatch_ns = ktime_get_ns();
	complete(t->req, status);
	symbol_put(nvmet_req_complete);
	pending_dec();
}

/*
 * A held request whose submission queue is dying: its host gave up on it
 * (an I/O timeout, a reset, a path lost) and, under multipath, has already
 * retried it elsewhere. Executing it now could write over data the host
 * has written since, so it is completed with an abort status and never
 * reaches the device. It is accounted to its domain and host (as an
 * error).
 */
static void abort_held(struct tracked *t)
{
	complete_held(t, NVME_SC_ABORT_REQ);
}

/*
 * A request held hold_max_ms (domain.c): Command Interrupted, which the
 * host retries with no Do Not Retry bit set; its domain has already taken
 * it off its books, and it moved no data, so the host's counters do not
 * count it either.
 */
static void req_retry(struct nqs_req *r)
{
	struct tracked *t = container_of(r, struct tracked, sreq);

	t->counted = false;
	complete_held(t, NVME_SC_CMD_INTERRUPTED);
}

/*
 * Called by a domain's worker for a request it held back: executed, or
 * aborted if its queue died while it was held. Checked here, at the last
 * moment, so that no held request reaches the device after its queue died
 * whichever way the worker found it.
 */
static void req_execute(struct nqs_req *r)
{
	struct tracked *t = container_of(r, struct tracked, sreq);

	if (percpu_ref_is_dying(&t->req->sq->ref))
		abort_held(t);
	else
		execute(t, ktime_get_ns());
}

/*
 * Held requests pin their submission queue and their namespace: release
 * them when either dies (a controller going away, a namespace being
 * disabled, which waits for every request that holds it).
 */
static bool req_dying(const struct nqs_req *r)
{
	const struct tracked *t = container_of(r, struct tracked, sreq);

	return percpu_ref_is_dying(&t->req->sq->ref) ||
	       percpu_ref_is_dying(&t->req->ns->ref);
}

static u64 req_key(const struct nqs_req *r)
{
	return command_key(container_of(r, struct tracked, sreq)->req->cmd);
}

const struct nq_req_ops nq_hook_req_ops = {
	.execute = req_execute,
	.retry = req_retry,
	.dying = req_dying,
	.key = req_key,
};

/*
 * Runs in whatever context the transport executes commands from (a
 * workqueue for tcp, completion context for rdma): must not sleep. A
 * request the domain holds back stays "pending" until its worker
 * executes it. Interrupts are off from the claim to the domain's answer,
 * once for the bucket's, the slice's and the domain's locks; nvmet's
 * handler runs with them on.
 */
static void trampoline(struct nvmet_req *req, int slot)
{
	unsigned long flags;
	struct tracked *t;
	u64 now = 0;
	bool go;

	local_irq_save(flags);
	t = claim(req);
	if (!t) {
		local_irq_restore(flags);
		/*
		 * Handed back by unload after the transport read our address:
		 * nvmet's, unscheduled, as it would have been a moment later.
		 * Unload waits out this call with its grace periods.
		 */
		READ_ONCE(orig_execute[slot])(req);
		return;
	}
	req->execute = t->fn;
	go = submit(t, &now);
	local_irq_restore(flags);
	/* 0 when not scheduled, and then nothing reads the dispatch time */
	if (go)
		execute(t, now);
}

#define TRAMPOLINE(n) \
	static void trampoline_##n(struct nvmet_req *req) { trampoline(req, n); }
TRAMPOLINE(0) TRAMPOLINE(1) TRAMPOLINE(2) TRAMPOLINE(3)
TRAMPOLINE(4) TRAMPOLINE(5) TRAMPOLINE(6) TRAMPOLINE(7)
TRAMPOLINE(8) TRAMPOLINE(9) TRAMPOLINE(10) TRAMPOLINE(11)
TRAMPOLINE(12) TRAMPOLINE(13) TRAMPOLINE(14) TRAMPOLINE(15)

static const execute_fn trampolines[NR_SLOTS] = {
	trampoline_0, trampoline_1, trampoline_2, trampoline_3,
	trampoline_4, trampoline_5, trampoline_6, trampoline_7,
	trampoline_8, trampoline_9, trampoline_10, trampoline_11,
	trampoline_12, trampoline_13, trampoline_14, trampoline_15,
};

/* The slot whose trampoline calls @fn, claiming a free one on first use. */
static int slot_for(execute_fn fn)
{
	unsigned long flags;
	int i, ret = -1;

	for (i = 0; i < NR_SLOTS; i++)
		if (READ_ONCE(orig_execute[i]) == fn)
			return i;

	spin_lock_irqsave(&slot_lock, flags);
	for (i = 0; i < NR_SLOTS; i++) {
		if (orig_execute[i] == fn || !orig_execute[i]) {
			WRITE_ONCE(orig_execute[i], fn);
			ret = i;
			break;
		}
	}
	spin_unlock_irqrestore(&slot_lock, flags);
	return ret;
}

/*
 * With interrupts off: undo the arming of @t, whose request will not come
 * through us.
 */
static void disarm(struct tracked *t)
{
	WRITE_ONCE(t->req->execute, t->fn);
	tracked_put(t);
	pending_dec();
}

void nq_probe_init(void *data, struct nvmet_req *req,
		   struct nvme_command *cmd)
{
	u8 opcode = cmd->common.opcode;
	unsigned long flags;
	struct tracked *t;
	int slot;

	if (!req->sq->qid || !req->sq->ctrl || !req->ns || !req->execute)
		return;
	if (!scheduled(opcode))
		return;
	slot = slot_for(req->execute);
	if (slot < 0)
		return;
	local_irq_save(flags);
	t = tracked_get();
	if (t) {
		t->req = req;
		t->fn = req->execute;
		t->armed = true;
		this_cpu_inc(*pending);
		req->execute = trampolines[slot];
		hash_tracked(t);
	}
	local_irq_restore(flags);
	/* Past the reserve the request runs unscheduled, but runs. */
	if (!t)
		nq_domains_unscheduled();
}

/* With interrupts off: @t's request, executed by its trampoline, is done. */
static void finish(struct tracked *t)
{
	if (t->dom)
		nq_domain_complete(t->dom, &t->sreq, t->dispatch_ns);
	nq_host_done(t->host, t->counted, t->sreq.write ? NQ_WRITE : NQ_READ,
		     t->sreq.bytes, t->req->cqe->status != 0);
	tracked_put(t);
}

void nq_probe_complete(void *data, struct nvmet_req *req)
{
	unsigned long flags;
	struct tracked *t;

	if (!req->sq->qid) {
		nq_admin_complete(req);
		return;
	}
	local_irq_save(flags);
	t = untrack(req, false);
	/* Armed still: nvmet_req_init() failed after our probe armed it. */
	if (t && t->armed)
		disarm(t);
	else if (t)
		finish(t);
	local_irq_restore(flags);
}

int nq_uninit_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long flags;
	struct tracked *t;

	local_irq_save(flags);
	t = untrack((struct nvmet_req *)regs_get_kernel_argument(regs, 0), true);
	if (t)
		disarm(t);
	local_irq_restore(flags);
	return 0;
}

/*
 * Arming has stopped: give every request still armed back to nvmet's own
 * handler. Its transport has not executed it and may not for a long time
 * (a write whose data the host withholds); it will run unscheduled when
 * it does. The trampoline, on the bucket lock too, takes a request or
 * finds it handed back, never both.
 */
long nq_hand_back(void)
{
	struct tracked *t;
	struct hlist_node *tmp;
	long n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(req_hash); i++) {
		spin_lock_irq(&req_hash[i].lock);
		hlist_for_each_entry_safe(t, tmp, &req_hash[i].head, node) {
			if (!t->armed)
				continue;
			hlist_del(&t->node);
			disarm(t);
			n++;
		}
		spin_unlock_irq(&req_hash[i].lock);
	}
	return n;
}

/* The reserve's allocator: the slab, unless a fault build fails it. */
static void *tracked_alloc(gfp_t gfp, void *cache)
{
	if (nq_fault(nomem_io) && !gfpflags_allow_blocking(gfp))
		return NULL;
	return kmem_cache_alloc(cache, gfp);
}

/* The request hash, the count of pending requests, the trackers' reserve. */
int nq_track_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(req_hash); i++) {
		spin_lock_init(&req_hash[i].lock);
		INIT_HLIST_HEAD(&req_hash[i].head);
	}
	pending = alloc_percpu(long);
	if (!pending)
		return -ENOMEM;
	tracked_cache = KMEM_CACHE(tracked, 0);
	if (!tracked_cache) {
		ret = -ENOMEM;
		goto err_pending;
	}
	tracked_pool = mempool_create(TRACKED_RESERVE, tracked_alloc,
				      mempool_free_slab, tracked_cache);
	if (!tracked_pool) {
		ret = -ENOMEM;
		goto err_cache;
	}
	spares = alloc_percpu(struct spares);
	if (!spares) {
		ret = -ENOMEM;
		goto err_pool;
	}
	return 0;

err_pool:
	mempool_destroy(tracked_pool);
err_cache:
	kmem_cache_destroy(tracked_cache);
err_pending:
	free_percpu(pending);
	return ret;
}

void nq_track_exit(void)
{
	spares_free();
	free_percpu(spares);
	mempool_destroy(tracked_pool);
	kmem_cache_destroy(tracked_cache);
	free_percpu(pending);
}
