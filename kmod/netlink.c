// SPDX-License-Identifier: GPL-2.0
/*
 * The nvmet_qos generic netlink family (see uapi/nvmet_qos.yaml).
 *
 * Every operation has its own strict policy; operations that change state
 * need CAP_NET_ADMIN (GENL_ADMIN_PERM) and are validated completely before
 * anything changes. Every rejection says why in the extended ack. The
 * family is not netns-aware: nvmet itself is global, so only the initial
 * network namespace sees it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "compat.h"
#include "nvmet-qos.h"

#define NQN_POLICY { .type = NLA_NUL_STRING, .len = NVMET_QOS_NQN_MAX_LEN }
#define CLASS_NAME_POLICY \
	{ .type = NLA_NUL_STRING, .len = NVMET_QOS_CLASS_NAME_MAX_LEN }

static const struct nla_policy host_get_policy[NVMET_QOS_A_HOST_MAX + 1] = {
	[NVMET_QOS_A_HOST_NQN] = NQN_POLICY,
};

static const struct nla_policy host_set_policy[NVMET_QOS_A_HOST_MAX + 1] = {
	[NVMET_QOS_A_HOST_NQN] = NQN_POLICY,
	[NVMET_QOS_A_HOST_CLASS] = CLASS_NAME_POLICY,
	[NVMET_QOS_A_HOST_WEIGHT] =
		NLA_POLICY_RANGE(NLA_U32, 1, NVMET_QOS_SHARE_MAX),
};

static const struct nla_policy class_name_policy[NVMET_QOS_A_CLASS_MAX + 1] = {
	[NVMET_QOS_A_CLASS_NAME] = CLASS_NAME_POLICY,
};

/* Not const: Linux 6.1's NLA_POLICY_FULL_RANGE takes a plain pointer. */
static struct netlink_range_validation rate_range = {
	.max = NVMET_QOS_RATE_MAX,
};

#define RATE_POLICY NLA_POLICY_FULL_RANGE(NLA_U64, &rate_range)

static const struct nla_policy class_conf_policy[NVMET_QOS_A_CLASS_MAX + 1] = {
	[NVMET_QOS_A_CLASS_NAME] = CLASS_NAME_POLICY,
	[NVMET_QOS_A_CLASS_SHARE] =
		NLA_POLICY_RANGE(NLA_U32, 1, NVMET_QOS_SHARE_MAX),
	[NVMET_QOS_A_CLASS_MIN_BPS] = RATE_POLICY,
	[NVMET_QOS_A_CLASS_MAX_BPS] = RATE_POLICY,
	[NVMET_QOS_A_CLASS_MIN_IOPS] = RATE_POLICY,
	[NVMET_QOS_A_CLASS_MAX_IOPS] = RATE_POLICY,
	[NVMET_QOS_A_CLASS_BURST] = RATE_POLICY,
	[NVMET_QOS_A_CLASS_LATENCY] = NLA_POLICY_MAX(NLA_U8, 1),
	[NVMET_QOS_A_CLASS_AUTH] = NLA_POLICY_MAX(NLA_U8, 1),
};

static struct netlink_range_validation io_cost_range = {
	.max = NVMET_QOS_IO_COST_MAX,
};

static struct netlink_range_validation stripe_chunk_range = {
	.max = NVMET_QOS_STRIPE_CHUNK_MAX,
};

static const struct nla_policy dev_set_policy[NVMET_QOS_A_DEV_MAX + 1] = {
	[NVMET_QOS_A_DEV_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[NVMET_QOS_A_DEV_WRITE_COST] =
		NLA_POLICY_RANGE(NLA_U32, NVMET_QOS_WRITE_COST_MIN,
				 NVMET_QOS_WRITE_COST_MAX),
	[NVMET_QOS_A_DEV_IO_COST] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &io_cost_range),
	[NVMET_QOS_A_DEV_CAPACITY] = RATE_POLICY,
	[NVMET_QOS_A_DEV_STRIPE_CHUNK] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &stripe_chunk_range),
	[NVMET_QOS_A_DEV_STRIPE_MEMBER] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* A missing key attribute: flagged for tools, and said in words for people. */
#define REQUIRE(info, type, msg) ({					\
	int __missing = GENL_REQ_ATTR_CHECK(info, type);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG((info)->extack, msg);			\
	__missing;							\
})

/* Every attribute set numbers its pad attribute 1. */
static int put_u64(struct sk_buff *skb, int type, u64 val)
{
	BUILD_BUG_ON((int)NVMET_QOS_A_CLASS_PAD != (int)NVMET_QOS_A_HOST_PAD ||
		     (int)NVMET_QOS_A_DEV_PAD != (int)NVMET_QOS_A_HOST_PAD ||
		     (int)NVMET_QOS_A_STATS_PAD != (int)NVMET_QOS_A_HOST_PAD);
	return nla_put_u64_64bit(skb, type, val, NVMET_QOS_A_HOST_PAD);
}

int nq_nl_fill_host(struct sk_buff *skb, const struct nq_host_snapshot *s,
		    u32 portid, u32 seq, int flags, u8 cmd)
{
	char cls[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	void *hdr;

	nq_class_label(s->class_id, cls, sizeof(cls));

	hdr = genlmsg_put(skb, portid, seq, &nq_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, NVMET_QOS_A_HOST_NQN, s->nqn) ||
	    put_u64(skb, NVMET_QOS_A_HOST_READ_IOS, s->ios[NQ_READ]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_WRITE_IOS, s->ios[NQ_WRITE]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_READ_BYTES, s->bytes[NQ_READ]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_WRITE_BYTES, s->bytes[NQ_WRITE]) ||
	    put_u64(skb, NVMET_QOS_A_HOST_ERRORS, s->errors) ||
	    nla_put_string(skb, NVMET_QOS_A_HOST_CLASS, cls) ||
	    nla_put_u32(skb, NVMET_QOS_A_HOST_WEIGHT, s->weight) ||
	    put_u64(skb, NVMET_QOS_A_HOST_QUEUED, s->queued) ||
	    nla_put_u32(skb, NVMET_QOS_A_HOST_CTRLS, s->ctrls) ||
	    nla_put_u32(skb, NVMET_QOS_A_HOST_CTRLS_AUTH, s->ctrls_auth)) {
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

	if (REQUIRE(info, NVMET_QOS_A_HOST_NQN, "missing host NQN"))
		return -EINVAL;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	ret = nq_host_snapshot_nqn(nla_data(info->attrs[NVMET_QOS_A_HOST_NQN]),
				   snap);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[NVMET_QOS_A_HOST_NQN],
				    "no host with this NQN has connected or been assigned");
		goto out;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nq_nl_fill_host(msg, snap, info->snd_portid, info->snd_seq, 0,
			      NVMET_QOS_CMD_HOST_GET);
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
	struct nlattr **attrs = nq_dump_attrs(cb);

	if (attrs[NVMET_QOS_A_HOST_NQN]) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attrs[NVMET_QOS_A_HOST_NQN],
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

	return nq_nl_fill_host(ctx->skb, snap, NETLINK_CB(ctx->cb->skb).portid,
			       ctx->cb->nlh->nlmsg_seq, NLM_F_MULTI,
			       NVMET_QOS_CMD_HOST_GET);
}

/*
 * What a walk-based dumpit returns: a full message ends this part (netlink
 * calls us again for more), an empty one ends the dump.
 */
static int dump_result(struct sk_buff *skb, int ret)
{
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static int host_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx ctx = { .skb = skb, .cb = cb };
	u64 pos = cb->args[0];
	int ret;

	ret = nq_host_walk(&pos, dump_one, &ctx);
	cb->args[0] = pos;
	return dump_result(skb, ret);
}

/* Host assignment. */

static int host_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct nq_host *host;
	int class_id = -1, cur_class, ret = 0;
	u32 weight = 0, cur_weight;

	if (REQUIRE(info, NVMET_QOS_A_HOST_NQN, "missing host NQN"))
		return -EINVAL;
	if (!a[NVMET_QOS_A_HOST_CLASS] && !a[NVMET_QOS_A_HOST_WEIGHT]) {
		NL_SET_ERR_MSG(info->extack, "nothing to set: give a class, a weight or both");
		return -EINVAL;
	}
	if (!nla_len(a[NVMET_QOS_A_HOST_NQN]) ||
	    !*(char *)nla_data(a[NVMET_QOS_A_HOST_NQN])) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NVMET_QOS_A_HOST_NQN],
				    "empty host NQN");
		return -EINVAL;
	}
	if (!strcmp(nla_data(a[NVMET_QOS_A_HOST_NQN]), NQ_OVERFLOW_NQN)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NVMET_QOS_A_HOST_NQN],
				    "\"" NQ_OVERFLOW_NQN "\" is the hosts past max_hosts; it stays in default");
		return -EINVAL;
	}
	if (!strcmp(nla_data(a[NVMET_QOS_A_HOST_NQN]), NQ_UNAUTH_NQN)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NVMET_QOS_A_HOST_NQN],
				    "\"" NQ_UNAUTH_NQN "\" is the controllers that did not authenticate for a class that needs it; it stays in default");
		return -EINVAL;
	}
	if (a[NVMET_QOS_A_HOST_WEIGHT])
		weight = nla_get_u32(a[NVMET_QOS_A_HOST_WEIGHT]);

	nq_policy_lock();
	if (a[NVMET_QOS_A_HOST_CLASS]) {
		class_id = nq_class_find(nla_data(a[NVMET_QOS_A_HOST_CLASS]));
		if (class_id < 0) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[NVMET_QOS_A_HOST_CLASS],
					    "no class with this name");
			ret = -ENOENT;
			goto out;
		}
	}
	host = nq_host_assign(nla_data(a[NVMET_QOS_A_HOST_NQN]));
	if (!host) {
		NL_SET_ERR_MSG(info->extack, "host table full (module parameter max_hosts) or out of memory");
		ret = -ENOSPC;
		goto out;
	}
	nq_host_policy(host, &cur_class, &cur_weight);
	nq_host_set_policy(host, class_id >= 0 ? class_id : cur_class,
			   weight ?: cur_weight);
	nq_domains_apply();
	nq_event_host(nq_host_nqn(host));
out:
	nq_policy_unlock();
	return ret;
}

static int host_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nq_host *host;

	if (REQUIRE(info, NVMET_QOS_A_HOST_NQN, "missing host NQN"))
		return -EINVAL;
	nq_policy_lock();
	host = nq_host_find(nla_data(info->attrs[NVMET_QOS_A_HOST_NQN]));
	if (host) {
		nq_host_unassign(host);
		nq_domains_apply();
		nq_event_host(nq_host_nqn(host));
	}
	nq_policy_unlock();
	if (!host) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NVMET_QOS_A_HOST_NQN],
				    "no host with this NQN is known");
		return -ENOENT;
	}
	return 0;
}

/* Classes. */

int nq_nl_fill_class(struct sk_buff *skb, int id, const u32 *hosts,
		     u32 portid, u32 seq, int flags, u8 cmd)
{
	char name[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	struct nqs_class_conf k;
	struct nq_class_stats st;
	void *hdr;
	u32 gen;

	if (!nq_class_conf(id, &gen, &k) || !nq_class_name(id, name, sizeof(name)))
		return -ENOENT;
	nq_domains_class_stats(id, &st);
	hdr = genlmsg_put(skb, portid, seq, &nq_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, NVMET_QOS_A_CLASS_NAME, name) ||
	    nla_put_u32(skb, NVMET_QOS_A_CLASS_SHARE, k.weight) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_MIN_BPS, k.floor_bps) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_MAX_BPS, k.ceil_bps) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_MIN_IOPS, k.floor_iops) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_MAX_IOPS, k.ceil_iops) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_BURST, k.burst) ||
	    nla_put_u8(skb, NVMET_QOS_A_CLASS_LATENCY, k.latency) ||
	    nla_put_u8(skb, NVMET_QOS_A_CLASS_AUTH, k.auth) ||
	    nla_put_u32(skb, NVMET_QOS_A_CLASS_HOSTS, hosts[id]) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_READ_BYTES, st.bytes[0]) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_WRITE_BYTES, st.bytes[1]) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_IOS, st.ios) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_COST, st.cost) ||
	    put_u64(skb, NVMET_QOS_A_CLASS_QUEUED, st.queued)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int class_lookup(struct genl_info *info)
{
	struct nlattr *name = info->attrs[NVMET_QOS_A_CLASS_NAME];
	int id;

	if (REQUIRE(info, NVMET_QOS_A_CLASS_NAME, "missing class name"))
		return -EINVAL;
	id = nq_class_find(nla_data(name));
	if (id < 0)
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no class with this name");
	return id;
}

static int class_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 hosts[NQ_MAX_CLASSES];
	struct sk_buff *msg;
	int id, ret;

	nq_policy_lock();
	id = class_lookup(info);
	nq_policy_unlock();
	if (id < 0)
		return id;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	nq_hosts_count(hosts);
	ret = nq_nl_fill_class(msg, id, hosts, info->snd_portid, info->snd_seq,
			       0, NVMET_QOS_CMD_CLASS_GET);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int class_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	u32 hosts[NQ_MAX_CLASSES];
	int id, ret;

	nq_hosts_count(hosts);
	for (id = cb->args[0]; id < NQ_MAX_CLASSES; id++) {
		ret = nq_nl_fill_class(skb, id, hosts,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       NVMET_QOS_CMD_CLASS_GET);
		if (ret == -EMSGSIZE)
			break;
	}
	cb->args[0] = id;
	return skb->len;
}

/* Fold the attributes given into @k and check the result as a whole. */
static int class_conf_parse(struct genl_info *info, struct nqs_class_conf *k)
{
	struct nlattr **a = info->attrs;

	if (a[NVMET_QOS_A_CLASS_SHARE])
		k->weight = nla_get_u32(a[NVMET_QOS_A_CLASS_SHARE]);
	if (a[NVMET_QOS_A_CLASS_MIN_BPS])
		k->floor_bps = nla_get_u64(a[NVMET_QOS_A_CLASS_MIN_BPS]);
	if (a[NVMET_QOS_A_CLASS_MAX_BPS])
		k->ceil_bps = nla_get_u64(a[NVMET_QOS_A_CLASS_MAX_BPS]);
	if (a[NVMET_QOS_A_CLASS_MIN_IOPS])
		k->floor_iops = nla_get_u64(a[NVMET_QOS_A_CLASS_MIN_IOPS]);
	if (a[NVMET_QOS_A_CLASS_MAX_IOPS])
		k->ceil_iops = nla_get_u64(a[NVMET_QOS_A_CLASS_MAX_IOPS]);
	if (a[NVMET_QOS_A_CLASS_BURST])
		k->burst = nla_get_u64(a[NVMET_QOS_A_CLASS_BURST]);
	if (a[NVMET_QOS_A_CLASS_LATENCY])
		k->latency = nla_get_u8(a[NVMET_QOS_A_CLASS_LATENCY]);
	if (a[NVMET_QOS_A_CLASS_AUTH])
		k->auth = nla_get_u8(a[NVMET_QOS_A_CLASS_AUTH]);

	if (k->ceil_bps && k->floor_bps > k->ceil_bps) {
		NL_SET_ERR_MSG(info->extack, "the byte floor is above the byte ceiling");
		return -EINVAL;
	}
	if (k->ceil_iops && k->floor_iops > k->ceil_iops) {
		NL_SET_ERR_MSG(info->extack, "the IOPS floor is above the IOPS ceiling");
		return -EINVAL;
	}
	if (k->burst && !k->ceil_bps) {
		NL_SET_ERR_MSG(info->extack, "a burst needs a byte ceiling (max-bps)");
		return -EINVAL;
	}
	/* Admitting nobody but authenticated controllers, where none can be. */
	if (k->auth && !IS_ENABLED(CONFIG_NVME_TARGET_AUTH)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NVMET_QOS_A_CLASS_AUTH],
				    "this kernel's nvmet cannot authenticate hosts (CONFIG_NVME_TARGET_AUTH is not set)");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int class_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nqs_class_conf k = { .weight = 100 };
	const char *name;
	int ret;

	if (REQUIRE(info, NVMET_QOS_A_CLASS_NAME, "missing class name"))
		return -EINVAL;
	name = nla_data(info->attrs[NVMET_QOS_A_CLASS_NAME]);
	ret = nq_class_valid_name(name, info->extack);
	if (ret)
		return ret;
	ret = class_conf_parse(info, &k);
	if (ret)
		return ret;
	nq_policy_lock();
	ret = nq_class_new(name, &k, info->extack);
	if (ret >= 0 && nq_mutant(policy_lazy))
		nq_domains_apply();
	if (ret >= 0)
		nq_event_send(nq_event_class(ret, NVMET_QOS_CMD_CLASS_NEW_NTF));
	nq_policy_unlock();
	return ret < 0 ? ret : 0;
}

static int class_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nqs_class_conf k;
	int id, ret;

	nq_policy_lock();
	id = class_lookup(info);
	if (id < 0) {
		ret = id;
		goto out;
	}
	nq_class_get_conf(id, &k);
	ret = class_conf_parse(info, &k);
	if (ret)
		goto out;
	if (id == NQ_DEFAULT_CLASS && k.auth) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NVMET_QOS_A_CLASS_AUTH],
				    "the default class holds the controllers other classes do not admit; it admits every one");
		ret = -EINVAL;
		goto out;
	}
	nq_class_update(id, &k);
	if (!nq_mutant(policy_lazy))
		nq_domains_apply();
	nq_event_send(nq_event_class(id, NVMET_QOS_CMD_CLASS_CHANGE_NTF));
out:
	nq_policy_unlock();
	return ret;
}

static int class_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *ntf;
	int id, ret = 0;

	nq_policy_lock();
	id = class_lookup(info);
	if (id < 0) {
		ret = id;
		goto out;
	}
	if (id == NQ_DEFAULT_CLASS) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NVMET_QOS_A_CLASS_NAME],
				    "the default class cannot be deleted");
		ret = -EINVAL;
		goto out;
	}
	ntf = nq_event_class(id, NVMET_QOS_CMD_CLASS_DEL_NTF);
	/* Hosts first, so no domain can still map a flow to the class. */
	nq_hosts_reset_class(id);
	nq_domains_apply();
	nq_class_delete(id);
	nq_event_send(ntf);
out:
	nq_policy_unlock();
	return ret;
}

/* Devices. */

int nq_nl_fill_dev(struct sk_buff *skb, const struct nq_dev_snapshot *s,
		   u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nq_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NVMET_QOS_A_DEV_ID, s->id) ||
	    nla_put_string(skb, NVMET_QOS_A_DEV_NAME, s->name) ||
	    put_u64(skb, NVMET_QOS_A_DEV_DEPTH, s->depth) ||
	    put_u64(skb, NVMET_QOS_A_DEV_INFLIGHT, s->inflight) ||
	    put_u64(skb, NVMET_QOS_A_DEV_QUEUED, s->queued) ||
	    put_u64(skb, NVMET_QOS_A_DEV_COST, s->cost) ||
	    put_u64(skb, NVMET_QOS_A_DEV_RATE, s->rate) ||
	    nla_put_u32(skb, NVMET_QOS_A_DEV_WRITE_COST, s->write_pct) ||
	    nla_put_u32(skb, NVMET_QOS_A_DEV_IO_COST, s->io_cost) ||
	    put_u64(skb, NVMET_QOS_A_DEV_CAPACITY, s->capacity) ||
	    put_u64(skb, NVMET_QOS_A_DEV_ADMITTED, s->admitted) ||
	    put_u64(skb, NVMET_QOS_A_DEV_COMPLETED, s->completed) ||
	    nla_put_u32(skb, NVMET_QOS_A_DEV_TAGS, s->tags) ||
	    put_u64(skb, NVMET_QOS_A_DEV_RETRIED, s->retried) ||
	    put_u64(skb, NVMET_QOS_A_DEV_FORCED, s->forced) ||
	    put_u64(skb, NVMET_QOS_A_DEV_FAST, s->fast) ||
	    nla_put_u32(skb, NVMET_QOS_A_DEV_QUEUES, s->queues) ||
	    nq_nl_put_stripe(skb, s)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int dump_dev(const struct nq_dev_snapshot *s, void *arg)
{
	struct dump_ctx *ctx = arg;

	return nq_nl_fill_dev(ctx->skb, s, NETLINK_CB(ctx->cb->skb).portid,
			      ctx->cb->nlh->nlmsg_seq, NLM_F_MULTI,
			      NVMET_QOS_CMD_DEV_GET);
}

static int dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx ctx = { .skb = skb, .cb = cb };
	unsigned long pos = cb->args[0];
	int ret;

	ret = nq_domain_walk(&pos, dump_dev, &ctx);
	cb->args[0] = pos;
	return dump_result(skb, ret);
}

/* Statistics, one message per host per device. */

static int put_hist(struct sk_buff *skb, const u64 *lat)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, NVMET_QOS_A_STATS_LAT_HIST);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < NQ_LAT_BUCKETS; i++)
		if (put_u64(skb, i + 1, lat[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	nla_nest_end(skb, nest);
	return 0;
}

static int fill_stats(const struct nq_flow_snapshot *s, void *arg)
{
	const struct nq_flow_stats *st = &s->st;
	char cls[NVMET_QOS_CLASS_NAME_MAX_LEN + 1];
	struct dump_ctx *ctx = arg;
	struct sk_buff *skb = ctx->skb;
	void *hdr;

	nq_class_label(s->class_id, cls, sizeof(cls));
	hdr = genlmsg_put(skb, NETLINK_CB(ctx->cb->skb).portid,
			  ctx->cb->nlh->nlmsg_seq, &nq_genl_family,
			  NLM_F_MULTI, NVMET_QOS_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NVMET_QOS_A_STATS_DEV_ID, s->dev_id) ||
	    nla_put_string(skb, NVMET_QOS_A_STATS_DEV_NAME, s->dev_name) ||
	    nla_put_string(skb, NVMET_QOS_A_STATS_NQN, s->nqn) ||
	    nla_put_string(skb, NVMET_QOS_A_STATS_CLASS, cls) ||
	    put_u64(skb, NVMET_QOS_A_STATS_READ_IOS, st->ios[NQ_READ]) ||
	    put_u64(skb, NVMET_QOS_A_STATS_WRITE_IOS, st->ios[NQ_WRITE]) ||
	    put_u64(skb, NVMET_QOS_A_STATS_READ_BYTES, st->bytes[NQ_READ]) ||
	    put_u64(skb, NVMET_QOS_A_STATS_WRITE_BYTES, st->bytes[NQ_WRITE]) ||
	    put_u64(skb, NVMET_QOS_A_STATS_COST, st->cost) ||
	    put_u64(skb, NVMET_QOS_A_STATS_RATE_BPS, s->idle ? 0 : st->rate_bps) ||
	    put_u64(skb, NVMET_QOS_A_STATS_RATE_IOPS, s->idle ? 0 : st->rate_iops) ||
	    put_u64(skb, NVMET_QOS_A_STATS_QUEUED, s->queued) ||
	    put_u64(skb, NVMET_QOS_A_STATS_HELD_IOS, st->held_ios) ||
	    put_u64(skb, NVMET_QOS_A_STATS_HELD_NS, st->held_ns) ||
	    put_u64(skb, NVMET_QOS_A_STATS_LAT_SUM_NS, st->lat_sum_ns) ||
	    put_hist(skb, st->lat)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx ctx = { .skb = skb, .cb = cb };
	u64 pos[2] = { cb->args[0], cb->args[1] };
	int ret;

	ret = nq_flow_walk(pos, fill_stats, &ctx);
	cb->args[0] = pos[0];
	cb->args[1] = pos[1];
	return dump_result(skb, ret);
}

static int dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct nq_member members[NVMET_QOS_STRIPE_MEMBERS_MAX] = { 0 };
	struct nq_dev_conf conf = { 0 };
	struct nq_dev_snapshot snap;
	int ret;

	if (REQUIRE(info, NVMET_QOS_A_DEV_ID, "missing device id"))
		return -EINVAL;
	if (a[NVMET_QOS_A_DEV_WRITE_COST]) {
		conf.set |= NQ_DEV_SET_WRITE_COST;
		conf.write_pct = nla_get_u32(a[NVMET_QOS_A_DEV_WRITE_COST]);
	}
	if (a[NVMET_QOS_A_DEV_IO_COST]) {
		conf.set |= NQ_DEV_SET_IO_COST;
		conf.io_cost = nla_get_u32(a[NVMET_QOS_A_DEV_IO_COST]);
	}
	if (a[NVMET_QOS_A_DEV_CAPACITY]) {
		conf.set |= NQ_DEV_SET_CAPACITY;
		conf.capacity = nla_get_u64(a[NVMET_QOS_A_DEV_CAPACITY]);
		if (conf.capacity && conf.capacity < NVMET_QOS_CAPACITY_MIN) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[NVMET_QOS_A_DEV_CAPACITY],
					    "capacity hint below 1 MB/s; use 0 for none");
			return -ERANGE;
		}
	}
	ret = nq_nl_stripe(info, &conf, members);
	if (ret)
		return ret;
	if (!conf.set) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give a write cost, an I/O cost, a capacity or a stripe");
		return -EINVAL;
	}
	ret = nq_domain_configure(nla_get_u32(a[NVMET_QOS_A_DEV_ID]), &conf,
				  &snap, info->extack);
	nq_stripe_close(&conf, members);
	if (!ret)
		nq_event_dev(&snap);
	return ret;
}

/* The host table. */

/* Strict validation rejects every attribute: the request takes none. */
static const struct nla_policy table_get_policy[NVMET_QOS_A_TABLE_MAX + 1];

static int table_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nq_hosts_info t;
	struct sk_buff *msg;
	void *hdr;

	nq_hosts_table(&t);
	nq_domains_table(&t);
	t.spare_trackers = nq_track_spares();
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nq_genl_family, 0,
				NVMET_QOS_CMD_TABLE_GET);
	if (!hdr ||
	    nla_put_u32(msg, NVMET_QOS_A_TABLE_HOSTS, t.hosts) ||
	    nla_put_u32(msg, NVMET_QOS_A_TABLE_MAX_HOSTS, t.max_hosts) ||
	    put_u64(msg, NVMET_QOS_A_TABLE_HOSTS_RECLAIMED, t.reclaimed) ||
	    put_u64(msg, NVMET_QOS_A_TABLE_HOSTS_FOLDED, t.folded) ||
	    put_u64(msg, NVMET_QOS_A_TABLE_FLOWS, t.flows) ||
	    put_u64(msg, NVMET_QOS_A_TABLE_FLOWS_RECLAIMED, t.flows_reclaimed) ||
	    put_u64(msg, NVMET_QOS_A_TABLE_FLOWS_SPILLED, t.flows_spilled) ||
	    put_u64(msg, NVMET_QOS_A_TABLE_UNSCHEDULED, t.unscheduled) ||
	    nla_put_u32(msg, NVMET_QOS_A_TABLE_SPARE_TRACKERS, t.spare_trackers)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* This head's cluster state (cluster.c): the get takes no attribute. */
static const struct nla_policy cluster_get_policy[NVMET_QOS_A_CLUSTER_MAX + 1];

static const struct nla_policy cluster_set_policy[NVMET_QOS_A_CLUSTER_MAX + 1] = {
	[NVMET_QOS_A_CLUSTER_STATE] =
		NLA_POLICY_MAX(NLA_U32, NVMET_QOS_CLUSTER_STATE_FALLBACK),
	[NVMET_QOS_A_CLUSTER_NOTE] = {
		.type = NLA_NUL_STRING, .len = NVMET_QOS_CLUSTER_NOTE_MAX_LEN
	},
};

#define ADMIN_DO(_cmd, _doit, _policy, _max) {				\
	.cmd = _cmd, .doit = _doit, .policy = _policy, .maxattr = _max,	\
	.flags = GENL_ADMIN_PERM,					\
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
	ADMIN_DO(NVMET_QOS_CMD_HOST_SET, host_set_doit, host_set_policy,
		 NVMET_QOS_A_HOST_MAX),
	ADMIN_DO(NVMET_QOS_CMD_HOST_DEL, host_del_doit, host_get_policy,
		 NVMET_QOS_A_HOST_MAX),
	{
		.cmd = NVMET_QOS_CMD_CLASS_GET,
		.doit = class_get_doit,
		.dumpit = class_get_dumpit,
		.policy = class_name_policy,
		.maxattr = NVMET_QOS_A_CLASS_MAX,
	},
	ADMIN_DO(NVMET_QOS_CMD_CLASS_NEW, class_new_doit, class_conf_policy,
		 NVMET_QOS_A_CLASS_MAX),
	ADMIN_DO(NVMET_QOS_CMD_CLASS_SET, class_set_doit, class_conf_policy,
		 NVMET_QOS_A_CLASS_MAX),
	ADMIN_DO(NVMET_QOS_CMD_CLASS_DEL, class_del_doit, class_name_policy,
		 NVMET_QOS_A_CLASS_MAX),
	{
		.cmd = NVMET_QOS_CMD_DEV_GET,
		.dumpit = dev_get_dumpit,
	},
	ADMIN_DO(NVMET_QOS_CMD_DEV_SET, dev_set_doit, dev_set_policy,
		 NVMET_QOS_A_DEV_MAX),
	{
		.cmd = NVMET_QOS_CMD_STATS_GET,
		.dumpit = stats_get_dumpit,
	},
	{
		.cmd = NVMET_QOS_CMD_TABLE_GET,
		.doit = table_get_doit,
		.policy = table_get_policy,
		.maxattr = NVMET_QOS_A_TABLE_MAX,
	},
	{
		.cmd = NVMET_QOS_CMD_CLUSTER_GET,
		.doit = nq_cluster_get_doit,
		.policy = cluster_get_policy,
		.maxattr = NVMET_QOS_A_CLUSTER_MAX,
	},
	ADMIN_DO(NVMET_QOS_CMD_CLUSTER_SET, nq_cluster_set_doit,
		 cluster_set_policy, NVMET_QOS_A_CLUSTER_MAX),
};

static const struct genl_multicast_group nq_mcgrps[] = {
	[NQ_MCGRP_EVENTS] = { .name = NVMET_QOS_MCGRP_EVENTS },
};

struct genl_family nq_genl_family __ro_after_init = {
	.name = NVMET_QOS_FAMILY_NAME,
	.version = NVMET_QOS_FAMILY_VERSION,
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = nq_ops,
	.n_ops = ARRAY_SIZE(nq_ops),
	.mcgrps = nq_mcgrps,
	.n_mcgrps = ARRAY_SIZE(nq_mcgrps),
	.resv_start_op = NVMET_QOS_CMD_HOST_GET + 1,
};

int nq_netlink_init(void)
{
	return genl_register_family(&nq_genl_family);
}

void nq_netlink_exit(void)
{
	genl_unregister_family(&nq_genl_family);
}
