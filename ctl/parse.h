/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure parsing and formatting helpers of the nvmet-qos tool.
 *
 * Nothing here talks to netlink or touches global state, so test_parse can
 * link this file alone and exercise every edge case.
 */
#ifndef NVMET_QOS_PARSE_H
#define NVMET_QOS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Check a host NQN given on the command line before it goes to the kernel.
 * Returns 0, or -EINVAL with a one-line reason in @why (if @why is not NULL).
 */
int nqn_validate(const char *nqn, char *why, size_t whylen);

/*
 * Check a class name: 1 to NVMET_QOS_CLASS_NAME_MAX_LEN characters of
 * [A-Za-z0-9_.-]. Returns 0, or -EINVAL with a one-line reason in @why.
 */
int class_name_validate(const char *name, char *why, size_t whylen);

/*
 * Order of classes in lists and saved files: "default" first, as every
 * host starts there; then by name.
 */
int class_name_cmp(const char *a, const char *b);

/*
 * Parse a plain decimal integer (digits only) into @out. Returns 0, -EINVAL
 * for anything else, or -ERANGE when the value lies outside [@min, @max].
 * @out is untouched on error.
 */
int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Parse a byte count or byte rate such as "4096", "100M", "100MB", "1.5G" or
 * "64KiB" into @out. K (or k)/M/G/T are powers of 1000, as rates are quoted,
 * and Ki/Mi/Gi/Ti powers of 1024; an optional trailing 'B' is allowed, a
 * lower-case "b" (bits) or "m" (milli) is not. Returns 0, -EINVAL for malformed input
 * (including results that are not a whole number of bytes) or -ERANGE when
 * the value does not fit in 64 bits. @out is untouched on error.
 */
int parse_size(const char *s, uint64_t *out);

/*
 * A stripe's chunk: parse_size(), but K (or k), M, G and T are powers of
 * 1024 too, as md ("512k chunks" in /proc/mdstat) and mdadm --chunk
 * write chunks. Taken as powers of 1000, "64k" would be 64000 bytes, a
 * multiple of 512 the kernel takes, and most requests would be counted
 * on the wrong drive.
 */
int parse_chunk(const char *s, uint64_t *out);

/*
 * A count such as an I/O rate: parse_size() without 'B' or the binary
 * prefixes, so "5000", "5K" and "1.5M" are fine but "4KiB" is not.
 */
int parse_count(const char *s, uint64_t *out);

/*
 * Split one line of a batch file into words, in place, as a shell splits a
 * simple command: blanks separate words; inside '...' every byte is
 * literal, inside "..." too but for \" and \\; outside quotes a backslash
 * makes the next byte literal; a word that starts with # starts a comment.
 * Stores at most @max pointers into @line in @words. Returns the number of
 * words, -E2BIG if there are more than @max, or -EINVAL for an unended
 * quote or a backslash at the end of the line.
 */
int split_words(char *line, char **words, size_t max);

/* The kernel's dev_t as the uapi carries it: MAJOR << 20 | MINOR. */
#define KDEV_MINOR_BITS	20
#define KDEV_MAJOR_MAX	4095

static inline uint32_t kdev_make(uint32_t major, uint32_t minor)
{
	return major << KDEV_MINOR_BITS | minor;
}

static inline unsigned int kdev_major(uint32_t id)
{
	return id >> KDEV_MINOR_BITS;
}

static inline unsigned int kdev_minor(uint32_t id)
{
	return id & ((1U << KDEV_MINOR_BITS) - 1);
}

/*
 * Parse a device number "MAJOR:MINOR" (decimal) into the kernel's dev_t
 * encoding, kdev_make(). Returns 0, -EINVAL for malformed input or
 * -ERANGE when MAJOR >= 4096 or MINOR >= 2^20. @out is untouched on error.
 */
int parse_devnum(const char *s, uint32_t *out);

/*
 * The formatters below have snprintf() semantics: they return the length of
 * the full result (without the NUL), write at most @size bytes including a
 * terminating NUL, and accept dst == NULL with size == 0 to measure.
 */

/* Body of a JSON string (without the quotes); invalid UTF-8 becomes U+FFFD. */
size_t json_escape(char *dst, size_t size, const char *src);

/* Terminal-safe text: bytes outside printable ASCII become \xNN. */
size_t text_escape(char *dst, size_t size, const char *src);

/* Decimal representation of @v, exact for the whole u64 range. */
size_t fmt_u64(char *dst, size_t size, uint64_t v);

/*
 * Human-readable @v in powers of 1000 (K, M, G, T, P, E): exact when the
 * unit divides it ("100M"), else rounded to one decimal ("1.5G"); below
 * 1000 the plain number.
 */
size_t fmt_human(char *dst, size_t size, uint64_t v);

/*
 * @v exactly, in the largest power of 1024 that divides it: "64Ki",
 * "1Mi", "1536"; what parse_chunk() and parse_size() read back.
 */
size_t fmt_binary(char *dst, size_t size, uint64_t v);

/*
 * Quantile @q (0 < q <= 1) of a log2 latency histogram of @n buckets as the
 * kernel sends it (bucket 0: under 2 us; bucket i: [2^i, 2^(i+1)) us; the
 * last one open-ended), in ns, interpolated linearly inside its bucket.
 * 0 for an empty histogram; the lower bound of the last bucket if the
 * quantile falls there.
 */
uint64_t hist_quantile_ns(const uint64_t *h, size_t n, double q);

/* A duration for people: "850ns", "12us", "1.5ms", "2.25s". */
size_t fmt_duration(char *dst, size_t size, uint64_t ns);

#endif /* NVMET_QOS_PARSE_H */
