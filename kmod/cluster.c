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

/* The state and note as they are now, into @msg for @cmd. */
int nq_cluster_fill(struct sk_buff *msg, u32 portid, u32 seq, u8 cmd)
{
	void *hdr;
	int ret = 0;

	hdr = genlmsg_put(msg, portid, seq, &nq_genl_family, 0, cmd);
	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&cluster_lock);
	if (nla_put_u32(msg, NVMET_QOS_A_CLUSTER_STATE, state) ||
	    nla_put_string(msg, NVMET_QOS_A_CLUSTER_NOTE, note))
		ret = -EMSGSIZE;
	mutex_unlock(&cluster_lock);
	if (ret) {
		genlmsg_cancel(msg, hdr);
		return ret;
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
	ret = nq_cluster_fill(msg, info->snd_portid, info->snd_seq,
			      NVMET_QOS_CMD_CLUSTER_GET);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Set the state and note; notified only when either changed, so a daemon
 * that says the same thing again each interval wakes nobody.
 */
int nq_cluster_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	char want[sizeof(note)] = "";
	bool changed;
	u32 st;

	if (GENL_REQ_ATTR_CHECK(info, NVMET_QOS_A_CLUSTER_STATE)) {
		NL_SET_ERR_MSG(info->extack, "no state given");
		return -EINVAL;
	}
	st = nla_get_u32(a[NVMET_QOS_A_CLUSTER_STATE]);
	if (a[NVMET_QOS_A_CLUSTER_NOTE])
		nla_strscpy(want, a[NVMET_QOS_A_CLUSTER_NOTE], sizeof(want));

	mutex_lock(&cluster_lock);
	changed = st != state || strcmp(want, note);
	state = st;
	strscpy(note, want, sizeof(note));
	mutex_unlock(&cluster_lock);
	if (changed) {
		pr_info_ratelimited("cluster state %u%s%s\n", st,
				    *want ? ": " : "", want);
		nq_event_cluster();
	}
	return 0;
}
