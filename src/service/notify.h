/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sd_notify(3)'s protocol: newline-separated KEY=VALUE lines in one datagram
 * to the AF_UNIX socket $NOTIFY_SOCKET names ('@': the abstract namespace).
 * Written here because Debian ships no static libsystemd and the binary must
 * stay one file; the protocol is a documented interface of its own.
 */
#ifndef SERVICE_NOTIFY_H
#define SERVICE_NOTIFY_H

#include <stdint.h>

/* 0 sent, 0 when not run by systemd (no $NOTIFY_SOCKET), or -errno. */
int notify__send(const char *state);
int notify__sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The watchdog period systemd expects pings within ($WATCHDOG_USEC, for this
 * process); 0 when there is none. */
uint64_t notify__watchdog_usec(void);

#endif
