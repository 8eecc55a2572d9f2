/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fleet service: what ksymattach-boot.service and ksymattach.service run.
 *
 *	ksymattach boot		attach what the config names, measure the stall, write
 *				the boot report, the Prometheus file and a journal
 *				line, warm the /run cache, detach
 *	ksymattach daemon	stay attached, rewrite the outputs every interval,
 *				reload the config on SIGHUP, detach on SIGTERM
 *
 * Both return the process's exit status: 0, 1 (the attach failed), 78 (the
 * config), or 128 + the signal that stopped a boot measurement.
 */
#ifndef SERVICE_H
#define SERVICE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ksym/ksym.h>

#include "config.h"

struct service_opts {
	size_t sz;			/* sizeof(struct service_opts) */
	const char *config_path;	/* re-read at every reload */
	/* The command line's options, applied over the file's at every (re)load. */
	void (*override)(struct ksa_config *c, void *ctx);
	void *override_ctx;
	const struct ksym_db_opts *sources;	/* no_cache follows the config's cache */
	const char *kernel;		/* release, for the reports */
	const char *version;
	const volatile sig_atomic_t *stop;	/* SIGINT, SIGTERM */
	const volatile sig_atomic_t *reload;	/* SIGHUP (daemon) */
	/* Where the boot measurement leaves its stall for the daemon's metrics. */
	const char *runtime_dir;	/* NULL: KSYM_CACHE_DIR */
};

int service__boot(const struct service_opts *opts);
int service__daemon(const struct service_opts *opts);
/* ksymattach-watch.service: every process's attach for the config's watch_window
 * from early in the boot; its report, Prometheus file and journal lines. */
int service__boot_watch(const struct service_opts *opts);

/* Shared by both (service.c). */
int service__load_config(const struct service_opts *o, struct ksa_config **out);
const char *service__boot_id(void);	/* 32 hex digits, as journalctl shows it */
double service__unix_now(void);
/* The boot stall the boot measurement recorded this boot; < 0: none. */
double service__boot_stall(const struct service_opts *o);
int service__record_boot_stall(const struct service_opts *o, double secs);
void service__log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where configuration management drops build caches for the boot unit to import. */
#define KSA_IMPORT_DIR "/var/lib/ksymattach/import"
void service__import_build_caches(const struct service_opts *o);
/* Keeps the newest `keep` PREFIX*.json in dir; the rest, oldest first, are
 * removed, never current (a clock set back would make it the oldest). */
void service__prune_reports(const char *dir, const char *prefix, size_t keep,
			    const char *current);
/*
 * Sleeps until deadline (CLOCK_MONOTONIC ns) or until a signal sets *stop or
 * *reload (either may be NULL): one that comes just before the sleep is not
 * slept through.
 */
void service__sleep_until(const volatile sig_atomic_t *stop,
			  const volatile sig_atomic_t *reload, uint64_t deadline);

#endif
