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
 * Parse a byte count or byte rate such as "4096", "100M", "100MB", "1.5G" or
 * "64KiB" into @out. K (or k)/M/G/T are powers of 1000, as rates are quoted,
 * and Ki/Mi/Gi/Ti powers of 1024; an optional trailing 'B' is allowed, a
 * lower-case "b" (bits) or "m" (milli) is not. Returns 0, -EINVAL for malformed input
 * (including results that are not a whole number of bytes) or -ERANGE when
 * the value does not fit in 64 bits. @out is untouched on error.
 */
int parse_size(const char *s, uint64_t *out);

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

#endif /* NVMET_QOS_PARSE_H */
