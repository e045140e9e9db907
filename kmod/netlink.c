// SPDX-License-Identifier: GPL-2.0
/*
 * The nvmet_qos generic netlink family (see uapi/nvmet_qos.yaml).
 *
 * Every operation has its own strict policy; operations that change state
 * will carry GENL_ADMIN_PERM. The family is not netns-aware: nvmet itself
 * is global, so only the initial network namespace may see it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "nvmet-qos.h"

static const struct nla_policy host_get_policy[NVMET_QOS_A_HOST_MAX + 1] = {
	[NVMET_QOS_A_HOST_NQN] = { .type = NLA_NUL_STRING,
				   .len = NVMET_QOS_NQN_MAX_LEN },
};

static struct genl_family nq_family;

static int put_u64(struct sk_buff *skb, int type, u64 val)
{
	return nla_put_u64_64bit(skb, type, val, NVMET_QOS_A_HOST_PAD);
}

static int fill_host(struct sk_buff *skb, const struct nq_host_snapshot *s,
		     u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nq_family, flags,
			  NVMET_QOS_CMD_HOST_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, NVMET_QOS_A_HOST_NQN, s->nqn) ||
	    put_u64(skb, NVMET_QOS_A_HOST_READ_IOS, s->ios[NQ_READ]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_WRITE_IOS, s->ios[NQ_WRITE]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_READ_BYTES, s->bytes[NQ_READ]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_WRITE_BYTES, s->bytes[NQ_WRITE]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_ERRORS, s->errors)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int host_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nq_host_snapshot *snap;
	struct sk_buff *msg;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, NVMET_QOS_A_HOST_NQN))
		return -EINVAL;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	ret = nq_host_snapshot_nqn(nla_data(info->attrs[NVMET_QOS_A_HOST_NQN]),
				   snap);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[NVMET_QOS_A_HOST_NQN],
				    "no host with this NQN has done I/O");
		goto out;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = fill_host(msg, snap, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	ret = genlmsg_reply(msg, info);
out:
	kfree(snap);
	return ret;
}

static int host_get_dump_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);

	if (info->attrs[NVMET_QOS_A_HOST_NQN]) {
		NL_SET_ERR_MSG_ATTR(cb->extack, info->attrs[NVMET_QOS_A_HOST_NQN],
				    "a host dump takes no NQN; use a do request for one host");
		return -EINVAL;
	}
	return 0;
}

struct dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

static int dump_one(const struct nq_host_snapshot *snap, void *arg)
{
	struct dump_ctx *ctx = arg;

	return fill_host(ctx->skb, snap, NETLINK_CB(ctx->cb->skb).portid,
			 ctx->cb->nlh->nlmsg_seq, NLM_F_MULTI);
}

static int host_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx ctx = { .skb = skb, .cb = cb };
	unsigned long pos = cb->args[0];
	int ret;

	ret = nq_host_walk(&pos, dump_one, &ctx);
	cb->args[0] = pos;
	/* A full message ends this part; netlink calls us again for more. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static const struct genl_ops nq_ops[] = {
	{
		.cmd = NVMET_QOS_CMD_HOST_GET,
		.doit = host_get_doit,
		.start = host_get_dump_start,
		.dumpit = host_get_dumpit,
		.policy = host_get_policy,
		.maxattr = NVMET_QOS_A_HOST_MAX,
	},
};

static struct genl_family nq_family __ro_after_init = {
	.name = NVMET_QOS_FAMILY_NAME,
	.version = NVMET_QOS_FAMILY_VERSION,
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = nq_ops,
	.n_ops = ARRAY_SIZE(nq_ops),
	.resv_start_op = NVMET_QOS_CMD_HOST_GET + 1,
};

int nq_netlink_init(void)
{
	return genl_register_family(&nq_family);
}

void nq_netlink_exit(void)
{
	genl_unregister_family(&nq_family);
}
