// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the cache loader. The input is a cache file; the
 * harness fixes its magic, version and key and recomputes both checksums, so
 * mutations reach the structural checks behind them (a checksum would stop
 * almost every mutation at the door). Whatever loads must answer queries.
 */
#include "../../src/ksym_cache.c"

static char dir[] = "/tmp/ksym-fuzz-cache.XXXXXX";
static const char *made;

/* the runs' directory goes when the fuzzer exits */
static void __attribute__((destructor)) cleanup(void)
{
	char path[128];

	if (!made)
		return;
	snprintf(path, sizeof(path), "%s/c", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_cache_key key = { .boot_id = "fuzz", .release = "fuzz", .source = "fuzz" };
	struct ksym_table *t;
	struct cache_hdr h;
	char path[128], *buf;
	struct ksym s, hit[4];
	size_t i;
	int fd;

	if (size < sizeof(h))
		return 0;
	/* once: mkdtemp's own random name may well start with an 'X' */
	if (!made && !(made = mkdtemp(dir)))
		abort();
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memcpy(&h, buf, sizeof(h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.ent_size = sizeof(struct ksym_ent);
	h.key = key;
	h.payload_sum = sum64(buf + sizeof(h), size - sizeof(h));
	h.hdr_sum = hdr_sum(&h);
	memcpy(buf, &h, sizeof(h));
	snprintf(path, sizeof(path), "%s/c", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write_all(fd, buf, size))
		abort();
	close(fd);
	free(buf);

	t = ksym_cache__load(dir, "c", &key);
	if (!t)
		return 0;
	for (i = 0; i < ksym_table__cnt(t); i++) {
		if (ksym_table__at(t, i, &s))
			abort();
		ksym_table__find(t, s.name, NULL, hit, 4);
		ksym_table__addr(t, s.addr, hit);
	}
	ksym_table__free(t);
	return 0;
}
