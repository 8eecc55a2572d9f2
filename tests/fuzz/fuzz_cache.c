// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the cache loader. The input is a cache file; the
 * harness fixes its magic, version and key and recomputes both checksums, so
 * mutations reach the structural checks behind them (a checksum would stop
 * almost every mutation at the door). Whatever loads must answer queries.
 */
#include "../../lib/ksym/cache/run.c"
#include "../../lib/ksym/cache/answers.c"

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
	snprintf(path, sizeof(path), "%s/a", dir);
	unlink(path);
	rmdir(dir);
}

/* The run's file name in dir, from buf (which goes). */
static void write_input(const char *name, char *buf, size_t size)
{
	if (ksym_file_write(dir, name, buf, size))
		abort();
	free(buf);
}

/* The same bytes as a list's answers: header fixed likewise, a two-name list. */
static void answers(const struct ksym_cache_key *key, const uint8_t *data, size_t size)
{
	static const char *const names[] = { "vfs_read", "dup" };
	struct answers_hdr h;
	struct ksym_answers *a;
	struct ksym out[2];
	char *buf;

	if (size < sizeof(h) || !(buf = malloc(size)))
		return;
	memcpy(buf, data, size);
	memcpy(&h, buf, sizeof(h));
	memcpy(h.magic, ANSWERS_MAGIC, 8);
	h.version = ANSWERS_VERSION;
	h.rec_size = sizeof(struct answer_rec);
	h.key = *key;
	h.n = 2;
	h.payload_sum = ksym_sum64(buf + sizeof(h), size - sizeof(h));
	h.hdr_sum = answers_hdr_sum(&h);
	memcpy(buf, &h, sizeof(h));
	write_input("a", buf, size);
	a = ksym_cache__load_answers(dir, "a", key, names, 2, out);
	if (a && ((out[0].name && strcmp(out[0].name, "vfs_read")) ||
		  (out[1].name && strcmp(out[1].name, "dup"))))
		abort();	/* an answer for another name */
	ksym_answers__free(a);
}

/* The same file through its resolve section: whatever it finds is what was asked, in
 * the module asked for. */
static void resolve(const struct ksym_cache_key *key)
{
	static const char *const names[] = { "vfs_read", "dup", "9p:v9fs_kill_super", ":dup",
					     "_stext", "nope", "" };
	struct ksym out[7];
	struct ksym_answers *a;
	size_t i;

	a = ksym_cache__resolve(dir, "c", key, names, 7, out);
	for (i = 0; a && i < 7; i++) {
		const char *q = strchr(names[i], ':');

		if (!out[i].name)
			continue;
		if (out[i].name != (q ? q + 1 : names[i]))
			abort();	/* the name is the one asked */
		if (q && (q == names[i] ? out[i].module != NULL :
			  !out[i].module || strlen(out[i].module) != (size_t)(q - names[i]) ||
			  strncmp(out[i].module, names[i], q - names[i])))
			abort();	/* from another module */
	}
	ksym_answers__free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_cache_key key = { .boot_id = "fuzz", .release = "fuzz", .source = "fuzz" };
	struct ksym_table *t;
	struct cache_hdr h;
	struct ksym s, hit[4];
	size_t i, need;
	char *buf;

	/* once: mkdtemp's own random name may well start with an 'X' */
	if (!made && !(made = mkdtemp(dir)))
		abort();
	answers(&key, data, size);
	if (size < sizeof(h))
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memcpy(&h, buf, sizeof(h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.ent_size = sizeof(struct ksym_ent);
	h.key = key;
	/* both sums where the sizes allow them: the table's, the resolve head's */
	if (table_len(&h, &need) && need <= size) {
		h.payload_sum = ksym_sum64(buf + sizeof(h), need - sizeof(h));
		if (ksym_align8(need) <= size && h.res_head_len <= size - ksym_align8(need))
			h.res_head_sum = ksym_sum64(buf + ksym_align8(need), h.res_head_len);
	}
	h.hdr_sum = hdr_sum(&h);
	memcpy(buf, &h, sizeof(h));
	write_input("c", buf, size);

	resolve(&key);
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
