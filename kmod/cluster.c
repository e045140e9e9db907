// SPDX-License-Identifier: GPL-2.0
/*
 * This head's state in a cluster of heads: what the daemon that runs it
 * there (nvmet-qosd) says of it, with a note for the admin.
 *
 * The module enforces nothing by it: the daemon sets the slices of cluster
 * ceilings and the weights of cluster shares through the classes, like any
 * admin. It is kept here so that a head cut off from its cluster says so
 * where the rest of the head's QoS is seen: in "nvmet-qos cluster", and in
 * the events group, beside the class changes its fallback makes, to every
 * monitor and log shipper already listening there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "nvmet-qos.h"

static DEFINE_MUTEX(cluster_lock);
static u32 state;						/* under cluster_lock */
static char note[NVMET_QOS_CLUSTER_NOTE_MAX_LEN + 1];	/* under cluster_lock */

/* The state and note, into @msg for @cmd; under cluster_lock. */
static int fill_locked(struct sk_buff *msg, u32 portid, u32 seq, u8 cmd)
{
	void *hdr;

	lockdep_assert_held(&cluster_lock);
	hdr = genlmsg_put(msg, portid, seq, &nq_genl_family, 0, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, NVMET_QOS_A_CLUSTER_STATE, state) ||
	    nla_put_string(msg, NVMET_QOS_A_CLUSTER_NOTE, note)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

int nq_cluster_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&cluster_lock);
	ret = fill_locked(msg, info->snd_portid, info->snd_seq,
			  NVMET_QOS_CMD_CLUSTER_GET);
	mutex_unlock(&cluster_lock);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Set the state and note; notified only when either changed, so a daemon
 * that says the same thing again wakes nobody. The event is built and
 * sent under the lock, so that listeners get the changes in the order
 * made and the last one they get is the state in force.
 */
int nq_cluster_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	char want[sizeof(note)] = "";
	struct sk_buff *msg;
	bool changed;
	u32 st;

	if (GENL_REQ_ATTR_CHECK(info, NVMET_QOS_A_CLUSTER_STATE)) {
		NL_SET_ERR_MSG(info->extack, "no state given");
		return -EINVAL;
	}
	st = nla_get_u32(a[NVMET_QOS_A_CLUSTER_STATE]);
	if (a[NVMET_QOS_A_CLUSTER_NOTE])
		nla_strscpy(want, a[NVMET_QOS_A_CLUSTER_NOTE], sizeof(want));

	msg = nq_event_new();
	mutex_lock(&cluster_lock);
	changed = st != state || strcmp(want, note);
	state = st;
	strscpy(note, want, sizeof(note));
	if (changed && msg) {
		nq_event_send(nq_event_filled(msg, fill_locked(msg, 0, 0,
					NVMET_QOS_CMD_CLUSTER_CHANGE_NTF)));
		msg = NULL;
	}
	mutex_unlock(&cluster_lock);
	nlmsg_free(msg);
	if (changed)
		pr_info_ratelimited("cluster state %u%s%s\n", st,
				    *want ? ": " : "", want);
	return 0;
}
