// SPDX-License-Identifier: GPL-2.0
/*
 * The stripe an admin gives a device over netlink (dev-set's stripe-chunk
 * and stripe-member): an md RAID0 has no tags of its own, and what a
 * small read waits for is a tag on the drive below that holds its chunk.
 * Nothing exported names an array's members, their order or its chunk
 * (md keeps them in its private structures; sysfs shows them), so the
 * tool reads them from sysfs and says them here; this file checks them,
 * opens each member for its tags and queues, and gives the domain their
 * sum. A wrong stripe misplaces what the domain counts, never a request.
 */
#include <net/genetlink.h>

#include "nvmet-qos.h"

/* The members in the order given: each once, none the device itself. */
static int parse_members(struct genl_info *info, struct nq_dev_conf *conf)
{
	u32 dev = nla_get_u32(info->attrs[NVMET_QOS_A_DEV_ID]);
	struct nlattr *attr;
	int rem, i;

	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		u32 m;

		if (nla_type(attr) != NVMET_QOS_A_DEV_STRIPE_MEMBER)
			continue;
		m = nla_get_u32(attr);
		if (conf->nr_members == NVMET_QOS_STRIPE_MEMBERS_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "more than " __stringify(NVMET_QOS_STRIPE_MEMBERS_MAX) " stripe members");
			return -E2BIG;
		}
		if (m == dev) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "a device cannot be a member of its own stripe");
			return -EINVAL;
		}
		for (i = 0; i < conf->nr_members; i++) {
			if (conf->members[i] == m) {
				NL_SET_ERR_MSG_ATTR(info->extack, attr,
						    "stripe member given twice");
				return -EINVAL;
			}
		}
		conf->members[conf->nr_members++] = m;
	}
	return 0;
}

void nq_stripe_close(struct nq_dev_conf *conf, struct nq_member *m)
{
	u32 i;

	for (i = 0; i < conf->nr_members && m[i].handle; i++)
		nq_member_close(&m[i]);
}

/*
 * Open the members, which must be blk-mq disks alike (the same tags and
 * queues: the domain keeps one shape for all), and put what they serve
 * together in conf->stripe.
 */
static int open_members(struct genl_info *info, struct nq_dev_conf *conf,
			struct nq_member *m)
{
	u32 i;

	for (i = 0; i < conf->nr_members; i++) {
		if (nq_member_open(conf->members[i], &m[i])) {
			m[i].handle = NULL;
			NL_SET_ERR_MSG(info->extack,
				       "a stripe member is not a block device");
			goto err;
		}
		if (!m[i].shape.tags) {
			NL_SET_ERR_MSG(info->extack,
				       "a stripe member has no tags of its own (not a blk-mq disk)");
			goto err;
		}
		if (m[i].shape.tags != m[0].shape.tags ||
		    m[i].shape.queues != m[0].shape.queues) {
			NL_SET_ERR_MSG(info->extack,
				       "stripe members differ in their tags or hardware queues");
			goto err;
		}
	}
	conf->stripe = m[0].shape;
	conf->stripe.tags *= conf->nr_members;
	return 0;

err:
	nq_stripe_close(conf, m);
	return -EINVAL;
}

/*
 * The stripe of a dev-set request, if it gives one, into @conf, its
 * members open in @m (NVMET_QOS_STRIPE_MEMBERS_MAX of them, zeroed) until
 * nq_stripe_close(), for the shape to hold while the domain takes it.
 */
int nq_nl_stripe(struct genl_info *info, struct nq_dev_conf *conf,
		 struct nq_member *m)
{
	struct nlattr *chunk = info->attrs[NVMET_QOS_A_DEV_STRIPE_CHUNK];
	int ret;

	ret = parse_members(info, conf);
	if (ret)
		return ret;
	if (!chunk) {
		if (!conf->nr_members)
			return 0;
		NL_SET_ERR_MSG(info->extack, "stripe members need a stripe chunk");
		return -EINVAL;
	}
	conf->set |= NQ_DEV_SET_STRIPE;
	conf->stripe_chunk = nla_get_u32(chunk);
	if (conf->stripe_chunk % 512) {
		NL_SET_ERR_MSG_ATTR(info->extack, chunk,
				    "stripe chunk not a multiple of 512 bytes");
		return -EINVAL;
	}
	if (!conf->stripe_chunk) {
		if (!conf->nr_members)
			return 0;
		NL_SET_ERR_MSG_ATTR(info->extack, chunk,
				    "stripe members given with chunk 0, which unstripes the device");
		return -EINVAL;
	}
	if (conf->nr_members < 2) {
		NL_SET_ERR_MSG_ATTR(info->extack, chunk,
				    "a stripe needs 2 to " __stringify(NVMET_QOS_STRIPE_MEMBERS_MAX) " members");
		return -EINVAL;
	}
	return open_members(info, conf, m);
}

/* A device's stripe in a reply: its chunk (0: none) and members. */
int nq_nl_put_stripe(struct sk_buff *skb, const struct nq_dev_snapshot *s)
{
	u32 i;

	if (nla_put_u32(skb, NVMET_QOS_A_DEV_STRIPE_CHUNK, s->stripe_chunk))
		return -EMSGSIZE;
	for (i = 0; i < s->nr_members; i++)
		if (nla_put_u32(skb, NVMET_QOS_A_DEV_STRIPE_MEMBER,
				s->members[i]))
			return -EMSGSIZE;
	return 0;
}
