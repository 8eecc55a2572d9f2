// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The running kernel's cache key: its boot (boot_id), its release, and a hash
 * of the modules loaded (/proc/modules' names and bases). A cache file is
 * this boot's, with these modules, or it is passed over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_cachefile.h"

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Module names, sizes and load addresses; use counts change too often to key on. */
static uint64_t modules_hash(const char *modules)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char *buf, *line, *save = NULL;
	size_t len;

	if (modules ? !(buf = strdup(modules)) : ksym__read_file("/proc/modules", &buf, &len))
		return h;	/* no module support: nothing can change */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64], state[16];
		unsigned long size, addr;

		/* name size refcount deps state addr ("-" refcount: no module unloading) */
		if (sscanf(line, "%63s %lu %*s %*s %15s %lx", name, &size, state, &addr) != 4)
			continue;
		for (const char *c = name; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = (h ^ size) * 0x100000001b3ull;
		h = (h ^ addr) * 0x100000001b3ull;
	}
	free(buf);
	return h;
}

int ksym_cache__live_key(struct ksym_cache_key *key, const char *source)
{
	return ksym_cache__live_key_from(key, source, NULL);
}

int ksym_cache__live_key_from(struct ksym_cache_key *key, const char *source, const char *modules)
{
	struct utsname u;
	int err;

	memset(key, 0, sizeof(*key));
	err = read_small("/proc/sys/kernel/random/boot_id", key->boot_id, sizeof(key->boot_id));
	if (err)
		return err;
	if (uname(&u))
		return -errno;
	snprintf(key->release, sizeof(key->release), "%s", u.release);
	snprintf(key->source, sizeof(key->source), "%s", source);
	key->modules_hash = modules_hash(modules);
	return 0;
}

void ksym_cache__list_key(struct ksym_cache_key *key, const struct ksym_cache_key *base,
			  const char *const *names, size_t n)
{
	uint64_t h = ksym_fmix64(n);
	size_t i;

	for (i = 0; i < n; i++) {
		const char *c;

		/* names end in NUL: "ab","c" and "a","bc" differ */
		for (c = names[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = ksym_fmix64(h ^ 0xff);
	}
	*key = *base;
	snprintf(key->source, sizeof(key->source), "%.40s list %016llx", base->source,
		 (unsigned long long)h);
}

bool ksym_cache_key_eq(const struct ksym_cache_key *a, const struct ksym_cache_key *b)
{
	return !strncmp(a->boot_id, b->boot_id, sizeof(a->boot_id)) &&
	       !strncmp(a->release, b->release, sizeof(a->release)) &&
	       !strncmp(a->source, b->source, sizeof(a->source)) &&
	       a->modules_hash == b->modules_hash;
}
