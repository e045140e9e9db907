// SPDX-License-Identifier: GPL-2.0
/*
 * etcd v3 over its JSON gateway; see etcd.h. Base64 is OpenSSL's, JSON
 * json-c's, HTTP libcurl's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "etcd.h"

/*
 * The largest reply taken: a policy is at most 16 MiB, like a file, and
 * 21.4 MiB in base64 inside its JSON.
 */
#define REPLY_MAX	(24u << 20)

struct buf {
	char *p;
	size_t len, cap;
	bool overflow;
};

struct etcd_watch {
	struct etcd *e;
	CURLM *multi;
	CURL *easy;
	struct curl_slist *hdr;
	char *body;
	struct json_tokener *tok;
	struct json_object *pending;	/* parsed, not yet handed out */
	int at;				/* the endpoint it reads from */
	bool mid;			/* inside a message */
	bool ended;
};

static void set_err(struct etcd *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->err, sizeof(e->err), fmt, ap);
	va_end(ap);
}

/*
 * @o's member @name if it has type @type, else NULL: a reply is read
 * only as far as it has the shape etcd gives it, whatever sent it.
 */
static struct json_object *member(struct json_object *o, const char *name,
				  enum json_type type)
{
	struct json_object *v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

static const char *member_str(struct json_object *o, const char *name)
{
	return json_object_get_string(member(o, name, json_type_string));
}

/* ---- base64 ------------------------------------------------------------- */

static char *b64_encode(const char *s, size_t len)
{
	char *out = malloc(4 * ((len + 2) / 3) + 1);

	if (out)
		EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)s,
				(int)len);
	return out;
}

/* Decoded and NUL-terminated; NULL if @s is not base64. */
static char *b64_decode(const char *s, size_t *outlen)
{
	size_t len = strlen(s), pad = 0;
	char *out;
	int n;

	if (len % 4)
		return NULL;
	out = malloc(len / 4 * 3 + 1);
	if (!out)
		return NULL;
	n = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)s,
			    (int)len);
	if (n < 0) {
		free(out);
		return NULL;
	}
	/* EVP_DecodeBlock counts the padding's bytes as zeroes. */
	while (pad < 2 && len > pad && s[len - 1 - pad] == '=')
		pad++;
	*outlen = (size_t)n - pad;
	out[*outlen] = '\0';
	return out;
}

/* ---- HTTP --------------------------------------------------------------- */

static size_t buf_write(char *data, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	size_t len = size * n;
	char *p;

	if (b->len + len + 1 > REPLY_MAX) {
		b->overflow = true;
		return 0;
	}
	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;

		p = realloc(b->p, cap);
		if (!p)
			return 0;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
	return len;
}

int etcd_init(struct etcd *e, const char *endpoints, char *err, size_t len)
{
	char *list, *tok, *save = NULL;

	memset(e, 0, sizeof(*e));
	/*
	 * etcd answers in milliseconds; a member that takes a second is
	 * stuck or cut off, and the next one is asked.
	 */
	e->timeout_ms = 1000;
	list = strdup(endpoints);
	if (!list)
		return -1;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (e->n == ETCD_ENDPOINTS_MAX) {
			snprintf(err, len, "more than %d endpoints",
				 ETCD_ENDPOINTS_MAX);
			goto fail;
		}
		if (strncmp(tok, "http://", 7) && strncmp(tok, "https://", 8)) {
			snprintf(err, len, "endpoint \"%s\": want http://HOST:PORT",
				 tok);
			goto fail;
		}
		e->url[e->n++] = strdup(tok);
	}
	free(list);
	if (!e->n) {
		snprintf(err, len, "no endpoint given");
		return -1;
	}
	return 0;
fail:
	free(list);
	etcd_exit(e);
	return -1;
}

void etcd_exit(struct etcd *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		free(e->url[i]);
	e->n = 0;
}

static CURL *request(const char *url, const char *path, const char *body,
		     struct curl_slist *hdr, struct buf *out)
{
	char full[512];
	CURL *c = curl_easy_init();

	if (!c)
		return NULL;
	snprintf(full, sizeof(full), "%s%s", url, path);
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, buf_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	return c;
}

/* An error reply of the gateway ({"error": ...}) as text, or NULL. */
static const char *reply_error(struct json_object *o)
{
	struct json_object *err;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "error", &err))
		return NULL;
	return member_str(err, "message") ?: json_object_get_string(err) ?:
	       "an error";
}

/*
 * POST @req to @path on the first endpoint that answers, starting with
 * the last one that did. Returns the reply (json_object_put() it), or
 * NULL with e->err.
 */
static struct json_object *call(struct etcd *e, const char *path,
				struct json_object *req)
{
	struct curl_slist *hdr;
	const char *body = json_object_to_json_string_ext(req,
						JSON_C_TO_STRING_PLAIN);
	struct json_object *reply = NULL;
	int i;

	hdr = curl_slist_append(NULL, "Content-Type: application/json");
	for (i = 0; i < e->n && !reply; i++) {
		int at = (e->cur + i) % e->n;
		struct buf out = { 0 };
		long code = 0;
		CURLcode rc;
		CURL *c;

		c = request(e->url[at], path, body, hdr, &out);
		if (!c) {
			set_err(e, "out of memory");
			break;
		}
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, e->timeout_ms);
		rc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_cleanup(c);
		if (rc != CURLE_OK) {
			set_err(e, "%s: %s", e->url[at], curl_easy_strerror(rc));
			free(out.p);
			continue;
		}
		reply = out.p ? json_tokener_parse(out.p) : NULL;
		if (!reply)
			set_err(e, "%s%s: HTTP %ld, not JSON", e->url[at], path,
				code);
		else if (reply_error(reply) || code != 200) {
			/* A member without a leader says so: ask another. */
			set_err(e, "%s%s: HTTP %ld: %s", e->url[at], path, code,
				reply_error(reply) ?: "no message");
			json_object_put(reply);
			reply = NULL;
		}
		if (reply)
			e->cur = at;
		free(out.p);
	}
	curl_slist_free_all(hdr);
	return reply;
}

/* ---- messages ----------------------------------------------------------- */

static int64_t get_i64(struct json_object *o, const char *name)
{
	struct json_object *v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, name, &v))
		return 0;
	/* etcd's int64s are strings; json-c converts either (0 if neither). */
	if (!json_object_is_type(v, json_type_string) &&
	    !json_object_is_type(v, json_type_int))
		return 0;
	return json_object_get_int64(v);
}

static void add_b64(struct json_object *o, const char *name, const char *s,
		    size_t len)
{
	char *b = b64_encode(s, len);

	json_object_object_add(o, name, json_object_new_string(b ? b : ""));
	free(b);
}

void etcd_kv_free(struct etcd_kv *kv)
{
	free(kv->key);
	free(kv->value);
	memset(kv, 0, sizeof(*kv));
}

/* A KeyValue message into @kv. */
static int kv_parse(struct json_object *o, struct etcd_kv *kv)
{
	const char *k = member_str(o, "key"), *v = member_str(o, "value");
	size_t len = 0;

	memset(kv, 0, sizeof(*kv));
	if (!k)
		return -1;
	kv->key = b64_decode(k, &len);
	/* proto3 leaves out an empty value */
	kv->value = v ? b64_decode(v, &kv->value_len) : strdup("");
	kv->mod_revision = get_i64(o, "mod_revision");
	if (!kv->key || !kv->value) {
		etcd_kv_free(kv);
		return -1;
	}
	return 0;
}

/*
 * A range request for @key (and up to @end, when not NULL): the reply's
 * kvs array in *@kvs, and the store's revision in *@rev. The reply (which
 * owns *@kvs) or NULL with e->err.
 */
static struct json_object *range(struct etcd *e, const char *key,
				 const char *end, struct json_object **kvs,
				 int64_t *rev)
{
	struct json_object *req = json_object_new_object(), *reply, *hdr;

	add_b64(req, "key", key, strlen(key));
	if (end)
		add_b64(req, "range_end", end, strlen(end));
	reply = call(e, "/v3/kv/range", req);
	json_object_put(req);
	if (!reply)
		return NULL;
	hdr = member(reply, "header", json_type_object);
	*rev = get_i64(hdr, "revision");
	if (!*rev) {
		set_err(e, "a range reply without a revision");
		json_object_put(reply);
		return NULL;
	}
	*kvs = member(reply, "kvs", json_type_array);
	return reply;
}

int etcd_get(struct etcd *e, const char *key, struct etcd_kv *kv,
	     int64_t *rev)
{
	struct json_object *reply, *kvs;
	int ret = 1;

	memset(kv, 0, sizeof(*kv));
	reply = range(e, key, NULL, &kvs, rev);
	if (!reply)
		return -1;
	if (kvs && json_object_array_length(kvs) > 0) {
		ret = kv_parse(json_object_array_get_idx(kvs, 0), kv);
		if (ret)
			set_err(e, "a malformed key-value in etcd's reply");
	}
	json_object_put(reply);
	return ret;
}

int etcd_get_prefix(struct etcd *e, const char *prefix,
		    struct etcd_kv **out, int *n)
{
	struct json_object *reply, *kvs;
	char *end = strdup(prefix);
	size_t len = strlen(prefix), i, nr = 0;
	int64_t rev;

	*out = NULL;
	*n = 0;
	/* The keys that start with @prefix: up to it with its last byte + 1. */
	if (!end || !len || (unsigned char)end[len - 1] == 0xff) {
		free(end);
		set_err(e, "no range for prefix \"%s\"", prefix);
		return -1;
	}
	end[len - 1]++;
	reply = range(e, prefix, end, &kvs, &rev);
	free(end);
	if (!reply)
		return -1;
	if (kvs)
		nr = json_object_array_length(kvs);
	*out = calloc(nr ? nr : 1, sizeof(**out));
	if (!*out) {
		json_object_put(reply);
		set_err(e, "out of memory");
		return -1;
	}
	for (i = 0; i < nr; i++)
		if (!kv_parse(json_object_array_get_idx(kvs, i), &(*out)[*n]))
			(*n)++;
	json_object_put(reply);
	return 0;
}

int etcd_put(struct etcd *e, const char *key, const char *value,
	     int64_t lease)
{
	struct json_object *req = json_object_new_object(), *reply;

	add_b64(req, "key", key, strlen(key));
	add_b64(req, "value", value, strlen(value));
	if (lease)
		json_object_object_add(req, "lease",
				       json_object_new_int64(lease));
	reply = call(e, "/v3/kv/put", req);
	json_object_put(req);
	json_object_put(reply);
	return reply ? 0 : -1;
}

int etcd_lease_grant(struct etcd *e, long ttl, int64_t *id)
{
	struct json_object *req = json_object_new_object(), *reply;

	json_object_object_add(req, "TTL", json_object_new_int64(ttl));
	reply = call(e, "/v3/lease/grant", req);
	json_object_put(req);
	if (!reply)
		return -1;
	*id = get_i64(reply, "ID");
	json_object_put(reply);
	if (!*id) {
		set_err(e, "lease grant: no ID in the reply");
		return -1;
	}
	return 0;
}

long etcd_lease_keepalive(struct etcd *e, int64_t id)
{
	struct json_object *req = json_object_new_object(), *reply, *res;
	long ttl;

	json_object_object_add(req, "ID", json_object_new_int64(id));
	reply = call(e, "/v3/lease/keepalive", req);
	json_object_put(req);
	if (!reply)
		return -1;
	/* A stream of one message: {"result": {"TTL": ...}}. */
	res = member(reply, "result", json_type_object) ?: reply;
	ttl = (long)get_i64(res, "TTL");
	json_object_put(reply);
	return ttl;
}

int etcd_lease_revoke(struct etcd *e, int64_t id)
{
	struct json_object *req = json_object_new_object(), *reply;

	json_object_object_add(req, "ID", json_object_new_int64(id));
	reply = call(e, "/v3/lease/revoke", req);
	json_object_put(req);
	json_object_put(reply);
	return reply ? 0 : -1;
}

/* ---- watch -------------------------------------------------------------- */

/* Bytes of the stream: complete messages are parsed one after another. */
static size_t watch_write(char *data, size_t size, size_t n, void *arg)
{
	struct etcd_watch *w = arg;
	size_t len = size * n, off = 0;

	while (off < len) {
		struct json_object *o;
		enum json_tokener_error jerr;

		/* Between messages: the newline that ends each. */
		if (!w->mid && strchr(" \t\r\n", data[off])) {
			off++;
			continue;
		}
		o = json_tokener_parse_ex(w->tok, data + off, (int)(len - off));
		jerr = json_tokener_get_error(w->tok);
		w->mid = jerr == json_tokener_continue;
		if (w->mid)
			return len;
		if (!o) {
			set_err(w->e, "watch: %s", json_tokener_error_desc(jerr));
			w->ended = true;
			return 0;
		}
		off += json_tokener_get_parse_end(w->tok);
		json_tokener_reset(w->tok);
		if (!w->pending)
			w->pending = json_object_new_array();
		json_object_array_add(w->pending, o);
	}
	return len;
}

struct etcd_watch *etcd_watch_start(struct etcd *e, const char *key,
				    int64_t from)
{
	struct json_object *req = json_object_new_object(), *create;
	struct etcd_watch *w = calloc(1, sizeof(*w));

	if (!w)
		goto fail;
	w->e = e;
	create = json_object_new_object();
	add_b64(create, "key", key, strlen(key));
	json_object_object_add(create, "start_revision",
			       json_object_new_int64(from));
	json_object_object_add(req, "create_request", create);
	w->body = strdup(json_object_to_json_string_ext(req,
						JSON_C_TO_STRING_PLAIN));
	w->tok = json_tokener_new();
	w->hdr = curl_slist_append(NULL, "Content-Type: application/json");
	/*
	 * A member that loses its leader ends the watch ("hasleader", gRPC
	 * metadata through the gateway): it would hear of no change.
	 */
	w->hdr = curl_slist_append(w->hdr, "Grpc-Metadata-hasleader: true");
	w->multi = curl_multi_init();
	w->at = e->cur;
	w->easy = request(e->url[w->at], "/v3/watch", w->body, w->hdr, NULL);
	if (!w->body || !w->tok || !w->multi || !w->easy)
		goto fail;
	curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, watch_write);
	curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
	/* A member whose machine died sends nothing, not even a reset. */
	curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPIDLE, 2L);
	curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPINTVL, 1L);
	curl_multi_add_handle(w->multi, w->easy);
	json_object_put(req);
	return w;
fail:
	json_object_put(req);
	set_err(e, "watch: out of memory");
	etcd_watch_stop(w);
	return NULL;
}

/* Hand out the parsed messages' events, up to one that ends the watch. */
static void watch_deliver(struct etcd_watch *w,
			 void (*fn)(void *arg, const struct etcd_kv *kv),
			 void *arg)
{
	size_t i, j, n = w->pending ? json_object_array_length(w->pending) : 0;

	for (i = 0; i < n && !w->ended; i++) {
		struct json_object *m = json_object_array_get_idx(w->pending, i);
		struct json_object *res, *evs, *v;

		res = member(m, "result", json_type_object);
		if (!res) {
			set_err(w->e, "watch: %s", reply_error(m) ?: "no result");
			w->ended = true;
			break;
		}
		v = member(res, "canceled", json_type_boolean);
		if (v && json_object_get_boolean(v)) {
			set_err(w->e, "watch canceled: %s (compacted at %" PRId64 ")",
				member_str(res, "cancel_reason") ?: "no reason",
				get_i64(res, "compact_revision"));
			w->ended = true;
			break;
		}
		evs = member(res, "events", json_type_array);
		for (j = 0; evs && j < json_object_array_length(evs); j++) {
			struct json_object *ev = json_object_array_get_idx(evs, j);
			const char *type = member_str(ev, "type");
			struct etcd_kv kv;

			if (kv_parse(member(ev, "kv", json_type_object), &kv)) {
				/* A change we cannot read: read the key again. */
				set_err(w->e, "watch: an event without a key");
				w->ended = true;
				break;
			}
			kv.deleted = type && !strcmp(type, "DELETE");
			fn(arg, &kv);
			etcd_kv_free(&kv);
		}
	}
	json_object_put(w->pending);
	w->pending = NULL;
}

int etcd_watch_poll(struct etcd_watch *w, int timeout_ms,
		    void (*fn)(void *arg, const struct etcd_kv *kv), void *arg)
{
	int running = 0;
	CURLMsg *msg;
	int left;

	curl_multi_perform(w->multi, &running);
	if (!w->pending && running)
		curl_multi_poll(w->multi, NULL, 0, timeout_ms, NULL);
	curl_multi_perform(w->multi, &running);
	while ((msg = curl_multi_info_read(w->multi, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		if (!w->ended && msg->data.result == CURLE_OK)
			set_err(w->e, "%s ended the watch", w->e->url[w->at]);
		else if (!w->ended)
			set_err(w->e, "watch on %s ended: %s", w->e->url[w->at],
				curl_easy_strerror(msg->data.result));
		w->ended = true;
	}
	if (!running && !w->ended) {
		set_err(w->e, "watch ended");
		w->ended = true;
	}
	/* Events received before the end still count. */
	watch_deliver(w, fn, arg);
	return w->ended ? -1 : 0;
}

int etcd_watch_at(const struct etcd_watch *w)
{
	return w->at;
}

void etcd_watch_stop(struct etcd_watch *w)
{
	if (!w)
		return;
	if (w->multi && w->easy)
		curl_multi_remove_handle(w->multi, w->easy);
	if (w->easy)
		curl_easy_cleanup(w->easy);
	if (w->multi)
		curl_multi_cleanup(w->multi);
	curl_slist_free_all(w->hdr);
	if (w->tok)
		json_tokener_free(w->tok);
	json_object_put(w->pending);
	free(w->body);
	free(w);
}
