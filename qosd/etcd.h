/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small etcd v3 client: the JSON gateway that every etcd 3.4 member
 * serves beside gRPC (POST /v3/kv/range and friends), over libcurl, with
 * json-c for the messages. Keys and values travel base64-encoded; etcd's
 * 64-bit integers travel as JSON strings.
 *
 * Several endpoints may be given (the members of one cluster): a call
 * that cannot reach one tries the next, and the one that answered is used
 * first next time.
 */
#ifndef NVMET_QOSD_ETCD_H
#define NVMET_QOSD_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETCD_ENDPOINTS_MAX	8

struct etcd {
	char *url[ETCD_ENDPOINTS_MAX];
	int n, cur;
	long timeout_ms;		/* per unary call and endpoint */
	char err[256];			/* why the last call failed */
};

struct etcd_kv {
	char *key, *value;		/* NUL-terminated copies; free() */
	size_t value_len;
	int64_t mod_revision;
	bool deleted;			/* a watch's DELETE event */
};

void etcd_kv_free(struct etcd_kv *kv);

/* @endpoints: "http://HOST:PORT[,http://HOST:PORT...]". */
int etcd_init(struct etcd *e, const char *endpoints, char *err, size_t len);
void etcd_exit(struct etcd *e);

/*
 * @key's value into @kv (absent: returns 1, @kv zeroed) and the store's
 * revision at the time into *@rev. -1 with e->err on failure.
 */
int etcd_get(struct etcd *e, const char *key, struct etcd_kv *kv,
	     int64_t *rev);
/*
 * Every key that starts with @prefix, in key order, into *@kvs (each
 * etcd_kv_free()d, the array free()d) and *@n; a malformed one is left
 * out. 0, or -1 with e->err.
 */
int etcd_get_prefix(struct etcd *e, const char *prefix,
		    struct etcd_kv **kvs, int *n);
/* @lease 0: none. */
int etcd_put(struct etcd *e, const char *key, const char *value,
	     int64_t lease);
int etcd_lease_grant(struct etcd *e, long ttl, int64_t *id);
/* Returns the lease's remaining TTL, 0 when it has expired, -1 on failure. */
long etcd_lease_keepalive(struct etcd *e, int64_t id);
int etcd_lease_revoke(struct etcd *e, int64_t id);

/*
 * A watch of one key from a revision on: a streamed POST /v3/watch that
 * etcd_watch_poll() drives. When it ends (the member went away, or the
 * revision was compacted), etcd_watch_poll() returns -1: the caller reads
 * the key again and starts a new watch from there.
 */
struct etcd_watch;

struct etcd_watch *etcd_watch_start(struct etcd *e, const char *key,
				    int64_t from);
/*
 * Wait up to @timeout_ms for events and call @fn on each, in order.
 * Returns 0 while the watch lives, -1 (with e->err) once it has ended.
 */
int etcd_watch_poll(struct etcd_watch *w, int timeout_ms,
		    void (*fn)(void *arg, const struct etcd_kv *kv), void *arg);
/* The endpoint (index in the list given) the watch reads from. */
int etcd_watch_at(const struct etcd_watch *w);
void etcd_watch_stop(struct etcd_watch *w);

#endif /* NVMET_QOSD_ETCD_H */
