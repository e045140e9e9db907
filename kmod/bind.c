// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching to nvmet, and letting go of it.
 *
 * nvmet may load before or after us, and go while we stay: a tracepoint
 * module notifier binds hook.c's probes to each nvmet that comes, and
 * unbinds them when it goes, so that load order does not matter and
 * nothing links against nvmet's symbols. An nvmet is bound only if it
 * carries the nvmet_req_init CRC this module was built for. A kprobe on
 * nvmet_sq_destroy tells admin.c that an admin queue went.
 *
 * Safety of module unload rests on one counter, "pending" (hook.c):
 * requests whose req->execute points into this module, plus trampolines
 * still running. Unload first stops arming new requests, releases held
 * ones, hands back those not executed yet, then waits for pending to
 * drain, then for RCU and Tasks RCU, so that no CPU is still on the last
 * instructions of a trampoline, or about to call one whose address it read
 * before the hand-back (the same guarantees ftrace relies on to free its
 * trampolines).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/tracepoint.h>

#include "nvmet_abi.h"
#include "compat.h"
#include "glue.h"
#include "nvmet-qos.h"

struct binding {
	struct module *mod;
	struct tracepoint *tp_init;
	struct tracepoint *tp_complete;
	struct kprobe uninit_kp;
	struct kprobe sq_destroy_kp;	/* optional: events, host reclaim */
	bool sq_destroy_ok;
};

static DEFINE_MUTEX(bind_lock);
static struct binding bound;		/* under bind_lock */
static bool exiting;			/* under bind_lock */

/* nvmet's own test for "the admin queue of its controller". */
static int sq_destroy_pre(struct kprobe *kp, struct pt_regs *regs)
{
	nq_admin_sq_destroy((void *)regs_get_kernel_argument(regs, 0));
	return 0;
}

/*
 * nvmet_req_init's genksyms CRC covers the full layout of struct nvmet_req
 * and everything it points to. The build proved our copy of nvmet.h gives
 * the CRC the kernel's Module.symvers records; here we check the nvmet being
 * loaded carries that same CRC, so a rebuilt or foreign nvmet is refused.
 * Its CRC goes in *crc; false when it exports no versioned nvmet_req_init.
 */
static bool nvmet_crc(struct module *mod, u32 *crc)
{
#ifdef CONFIG_MODVERSIONS
	unsigned int i;

	for (i = 0; i < mod->num_gpl_syms; i++) {
		if (strcmp(nq_gpl_sym_name(mod, i), "nvmet_req_init"))
			continue;
		if (!mod->gpl_crcs)
			return false;
		*crc = mod->gpl_crcs[i];
		return true;
	}
	return false;
#else
	*crc = NQ_NVMET_REQ_INIT_CRC;
	return true;
#endif
}

static bool abi_matches(struct module *mod)
{
	u32 crc;

	if (!nvmet_crc(mod, &crc)) {
		pr_err("nvmet exports no versioned nvmet_req_init; not attaching\n");
		return false;
	}
	if (crc != NQ_NVMET_REQ_INIT_CRC) {
		pr_err("nvmet's nvmet_req_init has CRC 0x%08x, this module was built for 0x%08x: another nvmet build, whose requests it could misread; not attaching\n",
		       crc, NQ_NVMET_REQ_INIT_CRC);
		return false;
	}
	return true;
}

static struct tracepoint *find_tracepoint(struct module *mod, const char *name)
{
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp =
			tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

/*
 * Fill in and register @bound. The kprobe is registered in place: kprobes
 * stay linked into the kprobe table by address until unregistered.
 */
static int bind(struct module *mod)
{
	struct binding *b = &bound;
	int ret;

	if (!abi_matches(mod))
		return -ENOEXEC;
	b->tp_init = find_tracepoint(mod, "nvmet_req_init");
	b->tp_complete = find_tracepoint(mod, "nvmet_req_complete");
	if (!b->tp_init || !b->tp_complete) {
		pr_err("nvmet has no nvmet_req_init/nvmet_req_complete tracepoints; not attaching\n");
		ret = -ENOENT;
		goto err;
	}

	/* Disarming paths first, so no request is ever armed without them. */
	b->uninit_kp.symbol_name = "nvmet_req_uninit";
	b->uninit_kp.pre_handler = nq_uninit_pre;
	ret = register_kprobe(&b->uninit_kp);
	if (ret) {
		pr_err("cannot probe nvmet_req_uninit (%d); not attaching\n", ret);
		goto err;
	}
	ret = tracepoint_probe_register(b->tp_complete, nq_probe_complete, NULL);
	if (ret)
		goto err_kprobe;

	/* Without it QoS works; only disconnect events are missing. */
	b->sq_destroy_kp.symbol_name = "nvmet_sq_destroy";
	b->sq_destroy_kp.pre_handler = sq_destroy_pre;
	b->sq_destroy_ok = !register_kprobe(&b->sq_destroy_kp);
	if (!b->sq_destroy_ok)
		pr_warn("cannot probe nvmet_sq_destroy: no disconnect events, and hosts that connected stay in the table\n");
	ret = tracepoint_probe_register(b->tp_init, nq_probe_init, NULL);
	if (ret)
		goto err_complete;

	b->mod = mod;
	pr_info("attached to nvmet\n");
	return 0;

err_complete:
	if (b->sq_destroy_ok)
		unregister_kprobe(&b->sq_destroy_kp);
	tracepoint_probe_unregister(b->tp_complete, nq_probe_complete, NULL);
	tracepoint_synchronize_unregister();
err_kprobe:
	unregister_kprobe(&b->uninit_kp);
	pr_err("cannot attach to nvmet's tracepoints (%d)\n", ret);
err:
	memset(b, 0, sizeof(*b));
	return ret;
}

/*
 * Where an unload's time went, for the detach message: the waits that are
 * grace periods (stopping arming, Tasks RCU, unhooking) apart from the two
 * that are about requests, so that a slow unload says which it was.
 */
struct drain {
	unsigned int stop_ms;	/* to stop arming, a tracepoint grace period */
	unsigned int release_ms;	/* to release every held request */
	long handed_back;	/* armed, awaiting their transport, then */
	long requests;		/* still running through us after that */
	unsigned int drain_ms;	/* until none was */
	unsigned int rcu_ms;	/* then for RCU and Tasks RCU */
	unsigned int unhook_ms;	/* to let go of the rest of nvmet's hooks */
};

/* Milliseconds since *t, which moves on to now. */
static unsigned int lap(unsigned long *t)
{
	unsigned long now = jiffies;
	unsigned int ms = jiffies_to_msecs(now - *t);

	*t = now;
	return ms;
}

/*
 * Stop arming requests; those already armed still run through us. The
 * time it took goes in *d; returns when it ended, for the next lap().
 */
static unsigned long stop_arming(struct drain *d)
{
	unsigned long t = jiffies;

	tracepoint_probe_unregister(bound.tp_init, nq_probe_init, NULL);
	tracepoint_synchronize_unregister();
	d->stop_ms = lap(&t);
	return t;
}

static void wait_pending(struct drain *d)
{
	unsigned long start = jiffies, t = jiffies;
	long n;

	d->handed_back = nq_hand_back();
	d->requests = nq_pending_sum();
	while ((n = nq_pending_sum()) > 0) {
		if (time_after(jiffies, start + 10 * HZ)) {
			pr_info("waiting for %ld request(s) in flight through nvmet-qos\n",
				n);
			start = jiffies;
		}
		msleep(20);
	}
	d->drain_ms = lap(&t);
	/*
	 * No task may still be preempted on a trampoline's last instructions,
	 * or between reading a handed-back request's old handler and calling
	 * it. Tasks RCU waits for every task to block, however long another
	 * one runs without doing so (kmemleak's scan; soft-RoCE's work under
	 * TCG, 39 and 60 s seen); RCU covers the same in interrupt and
	 * softirq context (rdma's completions), where no task blocks.
	 */
	synchronize_rcu();
	synchronize_rcu_tasks();
	d->rcu_ms = lap(&t);
}

static void unbind(void)
{
	struct kprobe *kps[] = { &bound.uninit_kp, &bound.sq_destroy_kp };

	tracepoint_probe_unregister(bound.tp_complete, nq_probe_complete, NULL);
	/* Both at once: one RCU grace period rather than one each. */
	unregister_kprobes(kps, bound.sq_destroy_ok ? 2 : 1);
	tracepoint_synchronize_unregister();
	nq_untrack_all();
	memset(&bound, 0, sizeof(bound));
}

/*
 * Arming has stopped and held requests are released: hand back what the
 * transports have not executed, wait for the rest, let go of nvmet, and
 * say what the wait was for.
 */
static void detach(struct drain *d)
{
	unsigned long t;

	wait_pending(d);
	t = jiffies;
	unbind();
	d->unhook_ms = lap(&t);
	pr_info("detached from nvmet: %u ms to stop arming, %u ms to release held requests, %ld request(s) awaiting their transport handed back, %u ms for %ld request(s) running through nvmet-qos, %u ms for RCU and Tasks RCU, %u ms to unhook\n",
		d->stop_ms, d->release_ms, d->handed_back, d->drain_ms,
		d->requests, d->rcu_ms, d->unhook_ms);
}

static void nvmet_coming(struct module *mod)
{
	if (exiting || bound.mod)
		return;
	bind(mod);
}

/*
 * nvmet only unloads once every queue is gone, so nothing can be armed or in
 * flight; a non-zero count here is a bug in our bookkeeping.
 */
static void nvmet_going(struct module *mod)
{
	struct drain d = {};

	if (bound.mod != mod)
		return;
	stop_arming(&d);
	WARN_ON_ONCE(nq_pending_sum() != 0);
	detach(&d);
}

static int tp_module_notify(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	struct tp_module *tp_mod = data;

	if (strcmp(tp_mod->mod->name, "nvmet"))
		return NOTIFY_OK;

	mutex_lock(&bind_lock);
	if (val == MODULE_STATE_COMING)
		nvmet_coming(tp_mod->mod);
	else if (val == MODULE_STATE_GOING)
		nvmet_going(tp_mod->mod);
	mutex_unlock(&bind_lock);
	return NOTIFY_OK;
}

static struct notifier_block tp_module_nb = {
	.notifier_call = tp_module_notify,
};

int nq_hook_init(void)
{
	int ret = nq_track_init();

	if (ret)
		return ret;
	/* Calls us back at once for an nvmet that is already loaded. */
	ret = register_tracepoint_module_notifier(&tp_module_nb);
	if (ret)
		nq_track_exit();
	return ret;
}

/*
 * Unload waits for the requests that went through us rather than refusing:
 * they finish within their normal service time. The binding is torn down
 * before the notifier is unregistered because the notifier calls us with
 * the tracepoint module list mutex held, the reverse of our lock order.
 */
void nq_hook_exit(void)
{
	mutex_lock(&bind_lock);
	exiting = true;
	if (bound.mod) {
		struct drain d = {};
		unsigned long t = stop_arming(&d);

		/* Held requests go to nvmet now, whatever their class. */
		nq_domains_bypass();
		d.release_ms = lap(&t);
		detach(&d);
	}
	mutex_unlock(&bind_lock);

	unregister_tracepoint_module_notifier(&tp_module_nb);
	nq_track_exit();
}
