/* SPDX-License-Identifier: GPL-2.0 */
/* nvmet-qosd's log: one line on stderr, which systemd's journal keeps. */
#ifndef NVMET_QOSD_LOG_H
#define NVMET_QOSD_LOG_H

__attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...);

#endif /* NVMET_QOSD_LOG_H */
