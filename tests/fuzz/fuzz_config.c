// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for ksymattach.conf: any bytes. Beyond not crashing: a
 * failure is a return value with one line in err and no config; a config has
 * only values the keys allow; stopping at the first problem and collecting
 * them all agree on the first; the same bytes loaded from a file give the same
 * answer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"

struct seen {
	unsigned int n;
	char first[KSA_CONFIG_ERR_MAX];
};

static void on_error(const char *msg, void *ctx)
{
	struct seen *s = ctx;

	if (!*msg || strchr(msg, '\n') || strncmp(msg, "<config>", 8))
		abort();
	if (!s->n++)
		snprintf(s->first, sizeof(s->first), "%s", msg);
}

static void check_config(const struct ksa_config *c)
{
	size_t i;

	if (!c->pattern_cnt || c->pattern_cnt > KSA_CONFIG_GLOBS_MAX ||
	    c->exclude_cnt > KSA_CONFIG_GLOBS_MAX)
		abort();
	for (i = 0; i < c->pattern_cnt; i++)
		if (ksym_glob_check(c->patterns[i], NULL, 0) || !c->pattern_lines[i] ||
		    (i && c->pattern_lines[i] <= c->pattern_lines[i - 1]))
			abort();
	for (i = 0; i < c->exclude_cnt; i++)
		if (ksym_glob_check(c->excludes[i], NULL, 0) || !c->exclude_lines[i])
			abort();
	if (c->duration_s < 0 || c->duration_s > 86400 || c->interval_s < 1 ||
	    c->interval_s > 3600 || !(c->stall_threshold_s > 0) || c->stall_threshold_s > 86400 ||
	    c->link_batch > 1000000 || c->top > 10000 || !c->reports_kept ||
	    c->reports_kept > 1000)
		abort();
	if (c->json_dir[0] != '/' || (c->prom_file && (c->prom_file[0] != '/' ||
	    strcmp(c->prom_file + strlen(c->prom_file) - 5, ".prom"))))
		abort();
	if ((unsigned int)c->mode > KATTACH_SESSION ||
	    (unsigned int)c->resolver > KATTACH_RES_KERNEL ||
	    (unsigned int)c->fallback > KATTACH_FALLBACK_KPROBE)
		abort();
}

/* The same bytes through ksa_config__load(): the same return and message. */
static void same_loaded(const uint8_t *data, size_t size, int want, const char *want_err)
{
	struct ksa_config_opts o = { .sz = sizeof(o), .name = "<config>" };
	struct ksa_config *c = NULL;
	char path[64], err[KSA_CONFIG_ERR_MAX];
	int fd = memfd_create("fuzz", MFD_CLOEXEC), ret;

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = ksa_config__load(path, &o, &c, err, sizeof(err));
	close(fd);
	if (ret != want || (ret && strcmp(err, want_err)) || !ret != !!c)
		abort();
	ksa_config__free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen seen = { 0 };
	struct ksa_config_opts all = {
		.sz = sizeof(all), .error_fn = on_error, .error_ctx = &seen,
	};
	struct ksa_config *c = (struct ksa_config *)&seen, *c2 = NULL;
	char err[KSA_CONFIG_ERR_MAX], err2[KSA_CONFIG_ERR_MAX];
	int ret, ret2;

	ret = ksa_config__parse(data, size, NULL, &c, err, sizeof(err));
	if (ret) {
		/* an error: nothing handed back, one line saying what */
		if (c != (struct ksa_config *)&seen || !*err || strchr(err, '\n') ||
		    strncmp(err, "<config>", 8) || (ret != -EINVAL && ret != -EFBIG))
			abort();
	} else {
		check_config(c);
	}
	ret2 = ksa_config__parse(data, size, &all, &c2, err2, sizeof(err2));
	if (ret2 != ret || (ret && (strcmp(err, err2) || strcmp(err, seen.first) || !seen.n)) ||
	    (!ret && seen.n) || seen.n > 51)
		abort();
	same_loaded(data, size, ret, err);
	if (!ret)
		ksa_config__free(c);
	ksa_config__free(c2);
	return 0;
}
