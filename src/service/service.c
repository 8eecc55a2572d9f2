// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the boot measurement and the daemon share: config, ids, the journal. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "service.h"

int service__load_config(const struct service_opts *o, struct ksa_config **out)
{
	char err[KSA_CONFIG_ERR_MAX];
	struct ksa_config *c;

	if (ksa_config__load(o->config_path, NULL, &c, err, sizeof(err))) {
		service__log("%s", err);
		return -EINVAL;
	}
	if (o->override)
		o->override(c, o->override_ctx);
	*out = c;
	return 0;
}

const char *service__boot_id(void)
{
	static char id[33];
	char raw[64];
	size_t i, n = 0;
	FILE *f;

	if (id[0])
		return id;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f || !fgets(raw, sizeof(raw), f)) {
		if (f)
			fclose(f);
		return "unknown";
	}
	fclose(f);
	for (i = 0; raw[i] && n < 32; i++)
		if ((raw[i] >= '0' && raw[i] <= '9') || (raw[i] >= 'a' && raw[i] <= 'f'))
			id[n++] = raw[i];
	id[n] = '\0';
	return id;
}

double service__unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The journal takes a unit's stdout line by line; stderr likewise. */
void service__log(const char *fmt, ...)
{
	va_list ap;

	fputs("ksymattach: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void stall_path(const struct service_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s/boot-stall", o->runtime_dir ? o->runtime_dir : KSYM_CACHE_DIR);
}

struct stall_line {
	const char *boot_id;
	double secs;
};

static int fill_stall(FILE *f, void *ctx)
{
	const struct stall_line *l = ctx;

	fprintf(f, "%s %.9f\n", l->boot_id, l->secs);
	return 0;
}

int service__record_boot_stall(const struct service_opts *o, double secs)
{
	struct stall_line l = { service__boot_id(), secs };
	char path[4096];

	stall_path(o, path, sizeof(path));
	mkdir(o->runtime_dir ? o->runtime_dir : KSYM_CACHE_DIR, 0755);
	return atomic__write(path, 0644, fill_stall, &l);
}

double service__boot_stall(const struct service_opts *o)
{
	char path[4096], id[40];
	double secs;
	FILE *f;
	int n;

	stall_path(o, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%39s %lf", id, &secs);
	fclose(f);
	/* another boot's (a /run that survived): not this boot's stall */
	return n == 2 && !strcmp(id, service__boot_id()) && secs >= 0 ? secs : -1;
}

/*
 * The signals are blocked between the check of the flags and the wait, and
 * ppoll unblocks them atomically.
 */
void service__sleep_until(const volatile sig_atomic_t *stop,
			  const volatile sig_atomic_t *reload, uint64_t deadline)
{
	sigset_t block, old;
	struct timespec ts, now;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &now);
	t = now.tv_sec * 1000000000ull + now.tv_nsec;
	if (t >= deadline)
		return;
	ts.tv_sec = (deadline - t) / 1000000000ull;
	ts.tv_nsec = (deadline - t) % 1000000000ull;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!(stop && *stop) && !(reload && *reload))
		ppoll(NULL, 0, &ts, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * Build caches that configuration management dropped in KSA_IMPORT_DIR: the
 * running build's is installed (one journal line) where this node has none of
 * its own yet, others' are left for the nodes of their build, damaged ones named.
 */
void service__import_build_caches(const struct service_opts *o)
{
	const char *dir = o->sources->build_cache_dir;
	char path[512];
	struct dirent *d;
	DIR *dp = opendir(KSA_IMPORT_DIR);
	int err;

	if (!dp)
		return;
	/* this node's own file, once it has one, is at least as complete */
	if (ksym_build__have(dir)) {
		closedir(dp);
		return;
	}
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || d->d_type != DT_REG)
			continue;
		snprintf(path, sizeof(path), "%s/%s", KSA_IMPORT_DIR, d->d_name);
		err = ksym_build__import(dir, path);
		if (!err)
			printf("imported the build cache %s for this kernel\n", path);
		else if (err != -ESTALE)
			service__log("cannot import the build cache %s: %s", path,
				     err == -EBADMSG ? "not a ksymattach build cache, or damaged" :
				     strerror(-err));
	}
	closedir(dp);
	fflush(stdout);
}

static int by_mtime(const void *x, const void *y)
{
	const struct stat *a = x, *b = y;

	if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
		return a->st_mtim.tv_sec < b->st_mtim.tv_sec ? -1 : 1;
	return a->st_mtim.tv_nsec < b->st_mtim.tv_nsec ? -1 : a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

void service__prune_reports(const char *dir, const char *prefix, size_t keep,
			    const char *current)
{
	const char *cur = strrchr(current, '/') ? strrchr(current, '/') + 1 : current;
	struct old {
		struct stat st;	/* first: by_mtime compares it */
		char name[64];
	} *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	size_t plen = strlen(prefix);
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, prefix, plen) || len < plen + 5 || len >= sizeof(v->name) ||
		    strcmp(e->d_name + len - 5, ".json") || !strcmp(e->d_name, cur))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (fstatat(dirfd(d), e->d_name, &v[n].st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(v[n].st.st_mode))
			continue;
		memcpy(v[n].name, e->d_name, len + 1);
		n++;
	}
	/* (keep counts the current one, which is not in v) */
	if (keep && n > keep - 1) {
		qsort(v, n, sizeof(*v), by_mtime);
		for (i = 0; i < n - (keep - 1); i++)
			unlinkat(dirfd(d), v[i].name, 0);
	}
	closedir(d);
	free(v);
}
