// SPDX-License-Identifier: GPL-2.0
/*
 * What a domain remembers of the commands it asked hosts to send again.
 *
 * A request held for hold_max_ms is completed with Command Interrupted,
 * which a host retries (Linux: at once, up to nvme_core.max_retries), so
 * that no host times out on a request QoS holds. The retry is a new
 * request to nvmet, on whichever queue the host picks, with a new command
 * identifier. What makes it the same command is its host and its content
 * (opcode, namespace, range: nq_hook's key). This table keeps, per such
 * command, when the host first sent it and how often it was asked, so the
 * retry keeps its place in line and the count of retries asked stays
 * below what the host allows.
 *
 * Entries are taken by the retry, normally within milliseconds, or dropped
 * once RETRY_TTL_NS old by the next note or take that passes their bucket.
 * The table is bounded: when full, a command is not noted, and its retry
 * goes to the back of the line as a new command would (hold_retries still
 * bounds what it is asked). Of two outstanding commands of one host with
 * the same content, the first to come back takes the older place. All
 * under the domain's lock.
 */
#include <linux/hash.h>
#include <linux/slab.h>

#include "nvmet-qos.h"

#define RETRY_TTL_NS	(10 * NSEC_PER_SEC)

struct retry {
	struct hlist_node node;
	const void *host;
	u64 key;
	u64 first_ns;		/* when the host first sent the command */
	u64 noted_ns;
	u8 retried;
};

static struct hlist_head *bucket(struct nq_retries *t, const void *host,
				 u64 key)
{
	return &t->b[hash_64(key ^ (unsigned long)host, NQ_RETRY_BITS)];
}

static void drop(struct nq_retries *t, struct retry *e)
{
	hlist_del(&e->node);
	kfree(e);
	t->n--;
}

/* Drop the entries of @head that are older than RETRY_TTL_NS. */
static void purge(struct nq_retries *t, struct hlist_head *head, u64 now)
{
	struct hlist_node *tmp;
	struct retry *e;

	hlist_for_each_entry_safe(e, tmp, head, node)
		if (now - e->noted_ns > RETRY_TTL_NS)
			drop(t, e);
}

void nq_retries_init(struct nq_retries *t)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(t->b); i++)
		INIT_HLIST_HEAD(&t->b[i]);
	t->n = 0;
}

void nq_retries_note(struct nq_retries *t, const void *host, u64 key,
		     u64 first_ns, u8 retried, u64 now)
{
	struct hlist_head *head = bucket(t, host, key);
	struct retry *e;

	purge(t, head, now);
	if (t->n >= NQ_RETRY_MAX)
		return;
	e = kmalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return;
	*e = (struct retry){ .host = host, .key = key, .first_ns = first_ns,
			     .noted_ns = now, .retried = retried };
	hlist_add_head(&e->node, head);
	t->n++;
}

bool nq_retries_take(struct nq_retries *t, const void *host, u64 key,
		     u64 now, u64 *first_ns, u8 *retried)
{
	struct hlist_head *head = bucket(t, host, key);
	struct retry *e, *best = NULL;

	purge(t, head, now);
	hlist_for_each_entry(e, head, node)
		if (e->host == host && e->key == key &&
		    (!best || e->first_ns < best->first_ns))
			best = e;
	if (!best)
		return false;
	*first_ns = best->first_ns;
	*retried = best->retried;
	drop(t, best);
	return true;
}

void nq_retries_exit(struct nq_retries *t)
{
	struct hlist_node *tmp;
	struct retry *e;
	int i;

	for (i = 0; i < ARRAY_SIZE(t->b); i++)
		hlist_for_each_entry_safe(e, tmp, &t->b[i], node)
			drop(t, e);
}
