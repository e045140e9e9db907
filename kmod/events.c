// SPDX-License-Identifier: GPL-2.0
/*
 * The "events" multicast group: changes to the policy, and controllers
 * nvmet creates and tears down, as they happen.
 *
 * Nothing is built while nobody listens. Changes made over netlink are
 * notified by their handler, in process context. Controller events come
 * from nvmet's completion tracepoint and from a kprobe, where we must not
 * sleep; they are copied into a bounded queue that a work item sends, so a
 * storm of connects with a slow listener costs events, never unbounded
 * memory. Whatever is lost is reported to listeners the netlink way: their
 * next receive fails with ENOBUFS.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "nvmet-qos.h"

#define MAX_QUEUED	1024

struct ctrl_event {
	struct list_head node;
	u8 cmd;
	u8 trtype;
	u16 cntlid;
	bool auth_required;
	bool authenticated;
	char hostnqn[NVMET_QOS_NQN_MAX_LEN + 1];
	char subsysnqn[NVMET_QOS_NQN_MAX_LEN + 1];
};

static LIST_HEAD(queue);
static DEFINE_SPINLOCK(queue_lock);
static unsigned int nr_queued;		/* under queue_lock */
static unsigned long nr_lost;		/* under queue_lock */
static bool stopped;			/* under queue_lock */

static void send_queued(struct work_struct *work);
static DECLARE_WORK(send_work, send_queued);

/* Safe in any context: a test of the group's listener bitmap. */
static bool listening(void)
{
	return genl_has_listeners(&nq_genl_family, &init_net, NQ_MCGRP_EVENTS);
}

static void report_lost(void)
{
	genl_set_err(&nq_genl_family, &init_net, 0, NQ_MCGRP_EVENTS, -ENOBUFS);
}

void nq_event_send(struct sk_buff *msg)
{
	if (msg)
		genlmsg_multicast(&nq_genl_family, msg, 0, NQ_MCGRP_EVENTS,
				  GFP_KERNEL);
}

/* A message to send later with nq_event_send(), or NULL. */
struct sk_buff *nq_event_new(void)
{
	struct sk_buff *msg;

	if (!listening())
		return NULL;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		report_lost();
	return msg;
}

/* @msg once filled with status @ret: NULL (and listeners told) if not. */
struct sk_buff *nq_event_filled(struct sk_buff *msg, int ret)
{
	if (!ret)
		return msg;
	nlmsg_free(msg);
	report_lost();
	return NULL;
}

/*
 * The class as it is now. A deletion builds its message before the class
 * goes and sends it after, so listeners see what was deleted.
 */
struct sk_buff *nq_event_class(int id, u8 cmd)
{
	u32 hosts[NQ_MAX_CLASSES];
	struct sk_buff *msg = nq_event_new();

	if (!msg)
		return NULL;
	nq_hosts_count(hosts);
	return nq_event_filled(msg, nq_nl_fill_class(msg, id, hosts, 0, 0, 0, cmd));
}

void nq_event_host(const char *nqn)
{
	struct nq_host_snapshot *snap;
	struct sk_buff *msg = nq_event_new();
	int ret = -ENOMEM;

	if (!msg)
		return;
	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (snap)
		ret = nq_host_snapshot_nqn(nqn, snap);
	if (!ret)
		ret = nq_nl_fill_host(msg, snap, 0, 0, 0,
				      NVMET_QOS_CMD_HOST_CHANGE_NTF);
	kfree(snap);
	nq_event_send(nq_event_filled(msg, ret));
}

void nq_event_dev(const struct nq_dev_snapshot *snap)
{
	struct sk_buff *msg = nq_event_new();
	int ret;

	if (!msg)
		return;
	ret = nq_nl_fill_dev(msg, snap, 0, 0, 0, NVMET_QOS_CMD_DEV_CHANGE_NTF);
	nq_event_send(nq_event_filled(msg, ret));
}

static int fill_ctrl(struct sk_buff *msg, const struct ctrl_event *ev)
{
	char cls[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	void *hdr;

	nq_class_label(nq_host_class_of(ev->hostnqn), cls, sizeof(cls));

	hdr = genlmsg_put(msg, 0, 0, &nq_genl_family, 0, ev->cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(msg, NVMET_QOS_A_CTRL_NQN, ev->hostnqn) ||
	    nla_put_string(msg, NVMET_QOS_A_CTRL_SUBSYS_NQN, ev->subsysnqn) ||
	    nla_put_u16(msg, NVMET_QOS_A_CTRL_CNTLID, ev->cntlid) ||
	    nla_put_u8(msg, NVMET_QOS_A_CTRL_TRTYPE, ev->trtype) ||
	    nla_put_string(msg, NVMET_QOS_A_CTRL_CLASS, cls) ||
	    nla_put_u8(msg, NVMET_QOS_A_CTRL_AUTH_REQUIRED, ev->auth_required) ||
	    nla_put_u8(msg, NVMET_QOS_A_CTRL_AUTHENTICATED, ev->authenticated)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static struct ctrl_event *dequeue(unsigned long *lost)
{
	struct ctrl_event *ev;

	spin_lock_irq(&queue_lock);
	ev = list_first_entry_or_null(&queue, struct ctrl_event, node);
	if (ev) {
		list_del(&ev->node);
		nr_queued--;
	}
	*lost = nr_lost;
	nr_lost = 0;
	spin_unlock_irq(&queue_lock);
	return ev;
}

static void send_queued(struct work_struct *work)
{
	struct ctrl_event *ev;
	struct sk_buff *msg;
	unsigned long lost;

	for (;;) {
		ev = dequeue(&lost);
		if (lost) {
			pr_warn_ratelimited("%lu controller event(s) lost: queue full or out of memory\n",
					    lost);
			report_lost();
		}
		if (!ev)
			return;
		msg = nq_event_new();
		if (msg)
			nq_event_send(nq_event_filled(msg, fill_ctrl(msg, ev)));
		kfree(ev);
		cond_resched();
	}
}

/* From the hook, in any context. */
void nq_event_ctrl(u8 cmd, const struct nq_ctrl_info *info)
{
	struct ctrl_event *ev;
	unsigned long flags;

	if (!listening())
		return;
	ev = kmalloc(sizeof(*ev), GFP_ATOMIC);
	if (ev) {
		ev->cmd = cmd;
		ev->trtype = info->trtype;
		ev->cntlid = info->cntlid;
		ev->auth_required = info->auth_required;
		ev->authenticated = info->authenticated;
		strscpy(ev->hostnqn, info->hostnqn, sizeof(ev->hostnqn));
		strscpy(ev->subsysnqn, info->subsysnqn, sizeof(ev->subsysnqn));
	}

	spin_lock_irqsave(&queue_lock, flags);
	if (ev && !stopped && nr_queued < MAX_QUEUED) {
		list_add_tail(&ev->node, &queue);
		nr_queued++;
		schedule_work(&send_work);
		ev = NULL;
	} else if (!stopped) {
		nr_lost++;
		schedule_work(&send_work);
	}
	spin_unlock_irqrestore(&queue_lock, flags);
	kfree(ev);
}

/* After the hook is gone: nothing queues any more. */
void nq_events_exit(void)
{
	struct ctrl_event *ev, *tmp;

	spin_lock_irq(&queue_lock);
	stopped = true;
	spin_unlock_irq(&queue_lock);
	cancel_work_sync(&send_work);
	list_for_each_entry_safe(ev, tmp, &queue, node)
		kfree(ev);
	INIT_LIST_HEAD(&queue);
	nr_queued = 0;
}
