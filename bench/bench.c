// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every figure is a median over rounds, with ours and the reference measured
 * in the same run, rounds interleaved, so a noisy machine moves both alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksym/ksym.h>

#include "bench.h"
#include "bench_ref.h"
#include "clock.h"
#include "stats.h"

#define MAX_ROUNDS 64
#define SCAN_LOOKUPS 200	/* linear scans are slow: fewer of them */

/* xorshift: the same names and addresses on every run */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct input {
	const char *path;
	char *data;		/* the file as read once */
	size_t len;
	struct ref_syms ref;
	const char **distinct;	/* one pointer per distinct name (into ref) */
	size_t distinct_cnt;
	const char **hits;	/* names that exist */
	char **misses;		/* names that do not */
	uint64_t *addrs;
	size_t n;
};

struct row {
	const char *what;
	const char *unit;
	double ref;		/* < 0: no reference method */
	double ours;
	const char *in_reads;	/* a lookup row: its label in random reads */
};

#define MAX_ROWS 16

struct result {
	const char *path;
	size_t symbols;
	size_t bytes;
	struct row rows[MAX_ROWS];
	int nrows;
	double break_even;
	double mem_ns[2];	/* a random read within MEM_SMALL, MEM_LARGE bytes */
	long rss_ref_kib, rss_ours_kib;
	bool correct;
	char why[200];
};

static void add_row(struct result *r, const char *what, const char *unit, double ref, double ours)
{
	if (r->nrows < MAX_ROWS)
		r->rows[r->nrows++] = (struct row){ what, unit, ref, ours, NULL };
}

/* A lookup row, in ns, also printed in random reads under label. */
static void add_lookup_row(struct result *r, const char *what, const char *label, double ref,
			   double ours)
{
	int n = r->nrows;

	add_row(r, what, "ns", ref, ours);
	if (r->nrows > n)
		r->rows[n].in_reads = label;
}

static struct ksym_table *parse_copy(const struct input *in)
{
	char *buf = malloc(in->len + 1);

	if (!buf)
		return NULL;
	memcpy(buf, in->data, in->len + 1);
	return ksym_table__parse(KSYM_FMT_KALLSYMS, buf, in->len, NULL);
}

static int by_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ref_sym *)a)->name, ((const struct ref_sym *)b)->name);
}

static int prepare(struct input *in, size_t n)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, span;
	FILE *f;
	size_t i, j;
	int err;

	err = ksym__read_file(in->path, &in->data, &in->len);
	if (err)
		return err;
	f = fmemopen(in->data, in->len, "r");
	if (!f)
		return -errno;
	err = ref_syms__parse(f, &in->ref);
	fclose(f);
	if (err)
		return err;
	if (!in->ref.cnt)
		return -ENODATA;
	ref_syms__sort(&in->ref);
	in->n = n;
	in->hits = calloc(n, sizeof(*in->hits));
	in->misses = calloc(n, sizeof(*in->misses));
	in->addrs = calloc(n, sizeof(*in->addrs));
	if (!in->hits || !in->misses || !in->addrs)
		return -ENOMEM;
	/* uniform over distinct names: a tracer asks for a name, not for the 466th
	 * "__func__.0"; the sorted copy puts each name's first instance first */
	{
		struct ref_syms by_name = { .cnt = in->ref.cnt };
		size_t d = 0;

		by_name.v = malloc(in->ref.cnt * sizeof(*by_name.v));
		if (!by_name.v)
			return -ENOMEM;
		memcpy(by_name.v, in->ref.v, in->ref.cnt * sizeof(*by_name.v));
		qsort(by_name.v, by_name.cnt, sizeof(*by_name.v), by_name_cmp);
		in->distinct = malloc(in->ref.cnt * sizeof(*in->distinct));
		if (!in->distinct) {
			free(by_name.v);
			return -ENOMEM;
		}
		for (i = 0; i < by_name.cnt; i++)
			if (!i || strcmp(by_name.v[i].name, by_name.v[i - 1].name))
				in->distinct[d++] = by_name.v[i].name;
		in->distinct_cnt = d;
		free(by_name.v);
	}
	for (i = 0; i < n; i++) {
		const char *name = in->distinct[rng(&seed) % in->distinct_cnt];

		/* copies, as a caller holds the names it resolves (argv, a file it
		 * read): hits and misses alike, not pointers into the reference's table */
		in->hits[i] = strdup(name);
		/* a miss that shares the whole name but the end: full search depth */
		if (!in->hits[i] || asprintf(&in->misses[i], "%s.ksym_bench_miss", name) < 0)
			return -ENOMEM;
		/* an address inside a symbol, as a stack trace's are: uniform over
		 * the address range, most would fall in the gap before the modules */
		j = rng(&seed) % in->ref.cnt;
		span = j + 1 < in->ref.cnt ? in->ref.v[j + 1].addr - in->ref.v[j].addr : 1;
		in->addrs[i] = in->ref.v[j].addr + rng(&seed) % (span ? span : 1);
	}
	return 0;
}

static void release(struct input *in)
{
	size_t i;

	for (i = 0; in->misses && i < in->n; i++) {
		free(in->misses[i]);
		free(in->hits ? (char *)in->hits[i] : NULL);
	}
	free(in->misses);
	free(in->hits);
	free(in->distinct);
	free(in->addrs);
	ref_syms__free(&in->ref);
	free(in->data);
}

/* Both methods must agree before either is timed. */
static bool check(const struct input *in, struct ksym_table *t, char *why, size_t len)
{
	struct ksym s[8];
	size_t i;
	int n;

	if (ksym_table__cnt(t) != in->ref.cnt) {
		snprintf(why, len, "%zu symbols parsed, the reference has %zu", ksym_table__cnt(t),
			 in->ref.cnt);
		return false;
	}
	for (i = 0; i < in->n; i++) {
		const struct ref_sym *r = ref_syms__find(&in->ref, in->hits[i]);
		const struct ref_sym *ra = ref_syms__addr(&in->ref, in->addrs[i]);
		bool same = false;
		int j;

		if (i >= SCAN_LOOKUPS)
			r = NULL;	/* the linear reference is slow: check a sample */
		n = ksym_table__find(t, in->hits[i], NULL, s, 8);
		for (j = 0; r && j < n && j < 8; j++)
			same |= s[j].addr == r->addr;
		if (n < 1 || (r && !same)) {
			snprintf(why, len, "%s: lookups disagree", in->hits[i]);
			return false;
		}
		if (ksym_table__find(t, in->misses[i], NULL, s, 8) != 0) {
			snprintf(why, len, "%s: found, should not be", in->misses[i]);
			return false;
		}
		if (ksym_table__find_many(t, &in->hits[i], 1, s) != 1 || !n ||
		    ksym_table__find(t, in->hits[i], NULL, s + 1, 1) < 1 || s[0].addr != s[1].addr ||
		    ksym_table__find_many(t, (const char *const *)&in->misses[i], 1, s) != 0 ||
		    s[0].name) {
			snprintf(why, len, "%s: find_many disagrees with find", in->hits[i]);
			return false;
		}
		if (ksym_table__addr(t, in->addrs[i], s) || !ra || s[0].addr != ra->addr) {
			snprintf(why, len, "address %llx: lookups disagree",
				 (unsigned long long)in->addrs[i]);
			return false;
		}
	}
	return true;
}

struct match_ctx {
	size_t n;
};

static int count_match(const struct ksym *s, void *ctx)
{
	(void)s;
	((struct match_ctx *)ctx)->n++;
	return 0;
}

/*
 * Runs this binary with argv[1..] and reads the one line it prints. With
 * posix_spawn, not fork: a fork marks every page of this process copy-on-
 * write, and the rounds after it would pay a fault for each page they write
 * again (~11 us each on the VM this was built on).
 */
static int run_self(const char **argv, char *out, size_t len)
{
	posix_spawn_file_actions_t fa;
	char self[256];
	int pfd[2], status, err;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || pipe(pfd))
		return -1;
	self[n] = '\0';
	argv[0] = self;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	err = posix_spawn(&pid, self, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		return -1;
	}
	n = read(pfd[0], out, len - 1);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	out[n] = '\0';
	return 0;
}

static long rss_probe(const char *path, bool ref)
{
	const char *argv[] = { NULL, "bench", ref ? "--rss-probe-ref" : "--rss-probe", path,
			       NULL };
	char out[64];
	long kib;

	if (run_self(argv, out, sizeof(out)))
		return -1;
	kib = strtol(out, NULL, 10);
	return kib > 0 ? kib : -1;
}

/* VmHWM: peak RSS of this process image (ru_maxrss survives exec, VmHWM does not). */
static long vm_hwm_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * The cold rows run in a fresh process each: a new agent's first run meets
 * memory no earlier work has touched, and on some machines (this project's
 * build VM: ~10 us) a first-touched page costs more than parsing it. Measured
 * in-process, the reference read would reuse pages the bench freed before.
 */
enum cold_mode { COLD_RAW, COLD_RAW_HUGE, COLD_FULL, COLD_LIST };
static const char *const cold_modes[] = { "raw", "raw-huge", "full", "list" };

/*
 * The reference read done as well as ours is: into one range reserved up
 * front, in huge pages where the kernel allows them.
 */
static int read_huge(const char *path, size_t *lenp)
{
	const size_t cap = 1ul << 30;
	size_t len = 0;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (buf == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	madvise(buf, cap, MADV_HUGEPAGE);
	while ((n = read(fd, buf + len, cap - len < (1u << 20) ? cap - len : (1u << 20))) > 0 ||
	       (n < 0 && errno == EINTR))
		len += n > 0 ? n : 0;
	close(fd);
	munmap(buf, cap);
	*lenp = len;
	return n < 0 ? -errno : 0;
}

static double cold_probe(const char *path, enum cold_mode mode, const char *names_file)
{
	const char *argv[] = { NULL, "bench", "--cold-probe", cold_modes[mode], "--cold-names",
			       names_file, path, NULL };
	char out[64];

	if (run_self(argv, out, sizeof(out)))
		return -1;
	return strtod(out, NULL);
}

int bench__cold_probe(const char *path, const char *mode, const char *names_file)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .index = true };
	const char **names = NULL;
	struct ksym *out = NULL;
	struct ksym_table *t;
	size_t len, n = 0, i;
	char *buf, *p;
	uint64_t t0, ns;

	/* the names first, off the clock */
	if (ksym__read_file(names_file, &buf, &len))
		return 1;
	for (p = buf; *p; p++)
		n += *p == '\n';
	names = calloc(n + 1, sizeof(*names));
	out = calloc(n + 1, sizeof(*out));
	if (!names || !out)
		return 1;
	for (i = 0, p = strtok(buf, "\n"); p && i < n; p = strtok(NULL, "\n"))
		names[i++] = p;
	n = i;
	/* the caller's result array is the caller's memory, not the resolver's */
	memset(out, 0, n * sizeof(*out));
	t0 = now_ns();
	if (!strcmp(mode, "raw")) {
		char *b;
		size_t l;

		if (ksym__read_file(path, &b, &l))
			return 1;
		ns = now_ns() - t0;
		free(b);
	} else if (!strcmp(mode, "raw-huge")) {
		size_t l;

		if (read_huge(path, &l))
			return 1;
		ns = now_ns() - t0;
	} else {
		if (!strcmp(mode, "list")) {
			po.names = names;
			po.name_cnt = n;
		}
		t = ksym_table__load(KSYM_FMT_KALLSYMS, path, &po);
		if (!t || ksym_table__find_many(t, names, n, out) != (int)n)
			return 1;
		ns = now_ns() - t0;
		ksym_table__free(t);
	}
	printf("%llu\n", (unsigned long long)ns);
	free(names);
	free(out);
	free(buf);
	return 0;
}

int bench__rss_probe(const char *path, bool ref)
{
	if (ref) {
		struct ref_syms rs = {};
		FILE *f = fopen(path, "re");

		if (!f || ref_syms__parse(f, &rs))
			return 1;
		fclose(f);
		ref_syms__sort(&rs);
	} else {
		struct ksym_parse_opts po = { .sz = sizeof(po), .index = true };

		if (!ksym_table__load(KSYM_FMT_KALLSYMS, path, &po))
			return 1;
	}
	printf("%ld\n", vm_hwm_kib());
	return 0;
}

/*
 * What a random memory read costs on this machine right now: a VM shares its
 * last-level cache with neighbours, and the lookup rows move with it (2x and
 * more within an hour here). A pointer chase over one random cycle through a
 * buffer's cache lines, run in each round beside the rows it explains.
 */
#define MEM_SMALL (8ul << 20)
#define MEM_LARGE (32ul << 20)
#define MEM_STEPS 100000

struct chase {
	void **lines;
	size_t len;
};

static int chase_init(struct chase *c, size_t len)
{
	size_t n = len / 64, i, j;
	uint64_t seed = 0x2545f4914f6cdd1dull;
	uint32_t *perm;

	c->len = len;
	c->lines = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	perm = malloc(n * sizeof(*perm));
	if (c->lines == MAP_FAILED || !perm) {
		free(perm);
		return -ENOMEM;
	}
	madvise(c->lines, len, MADV_HUGEPAGE);
	for (i = 0; i < n; i++)
		perm[i] = i;
	/* Sattolo: one cycle through every line */
	for (i = n - 1; i > 0; i--) {
		uint32_t t;

		j = rng(&seed) % i;
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		c->lines[perm[i] * 8] = &c->lines[perm[(i + 1) % n] * 8];
	free(perm);
	return 0;
}

static double chase_ns(const struct chase *c)
{
	void **p = c->lines;
	uint64_t t0;
	size_t i;

	for (i = 0; i < MEM_STEPS / 4; i++)	/* into the cache what fits */
		p = *p;
	t0 = now_ns();
	for (i = 0; i < MEM_STEPS; i++)
		p = *p;
	return (now_ns() - t0 + (p == NULL)) / (double)MEM_STEPS;
}

static void chase_free(struct chase *c)
{
	if (c->lines && c->lines != MAP_FAILED)
		munmap(c->lines, c->len);
}

/*
 * The cache's resolve section gives the lists what the table gives them (want:
 * the table's answers to the hits), misses included, or its rows mean nothing.
 */
static bool same_as_table(const char *dir, const struct ksym_cache_key *key,
			  const struct input *in, const struct ksym *want, char *why, size_t len)
{
	struct ksym *got = calloc(in->n, sizeof(*got));
	struct ksym_answers *ans;
	bool ok = got != NULL;
	size_t i;

	ans = ok ? ksym_cache__resolve(dir, "bench", key, in->hits, in->n, got) : NULL;
	for (i = 0; ans && ok && i < in->n; i++) {
		const struct ksym *a = &want[i], *b = &got[i];

		ok = b->name && !strcmp(a->name, b->name) && a->addr == b->addr &&
		     a->size == b->size && a->type == b->type && a->flags == b->flags &&
		     !a->module == !b->module && (!a->module || !strcmp(a->module, b->module));
		if (!ok)
			snprintf(why, len, "%s: the cache's resolve section disagrees", in->hits[i]);
	}
	ksym_answers__free(ans);
	ans = ok ? ksym_cache__resolve(dir, "bench", key, (const char *const *)in->misses,
				       in->n, got) : NULL;
	for (i = 0; ans && ok && i < in->n; i++) {
		ok = !got[i].name;
		if (!ok)
			snprintf(why, len, "%s: found in the cache, should not be", in->misses[i]);
	}
	if (ok && !ans)
		snprintf(why, len, "cannot resolve from the cache: %s", strerror(errno));
	ok = ok && ans;
	ksym_answers__free(ans);
	free(got);
	return ok;
}

/* A warm row's answers came (and are let go): else the run is wrong, and says why. */
static bool answered(struct ksym_answers *a, const struct ksym *out, const char *why,
		     struct result *r)
{
	bool ok = a && out[0].name;

	if (!ok) {
		snprintf(r->why, sizeof(r->why), "%s", why);
		r->correct = false;
	}
	ksym_answers__free(a);
	return ok;
}

static int bench_one(const struct bench_opts *o, const char *path, struct result *r)
{
	double ref_parse[MAX_ROUNDS], ksym_parse[MAX_ROUNDS], index_ns[MAX_ROUNDS];
	double hit_ns[MAX_ROUNDS], miss_ns[MAX_ROUNDS], addr_ns[MAX_ROUNDS], raddr_ns[MAX_ROUNDS];
	double scan_ns[MAX_ROUNDS], rscan_ns[MAX_ROUNDS], glob_ns[MAX_ROUNDS], rglob_ns[MAX_ROUNDS];
	double raw_ns[MAX_ROUNDS], rawh_ns[MAX_ROUNDS], cold_ns[MAX_ROUNDS], coldl_ns[MAX_ROUNDS];
	double warm_ns[MAX_ROUNDS], warmt_ns[MAX_ROUNDS], warml_ns[MAX_ROUNDS];
	double mhit_ns[MAX_ROUNDS], mmiss_ns[MAX_ROUNDS];
	double mem_small[MAX_ROUNDS], mem_large[MAX_ROUNDS];
	struct chase small = {}, large = {};
	struct ksym *many = NULL;
	struct input in = { .path = path };
	struct ksym_cache_key key, keyl;
	struct ksym_table *t = NULL;
	char cache_dir[] = "/tmp/ksym-bench.XXXXXX", names_file[64], copy_file[64];
	struct ksym s[4];
	int round, err;
	size_t i, n = o->lookups;
	volatile size_t sink = 0;

	memset(r, 0, sizeof(*r));
	r->path = path;
	err = prepare(&in, n);
	if (err) {
		snprintf(r->why, sizeof(r->why), "cannot read %s: %s", path, strerror(-err));
		release(&in);
		return err;
	}
	r->symbols = in.ref.cnt;
	r->bytes = in.len;
	/* touched once here, so no round pays its page faults */
	many = calloc(n, sizeof(*many));
	if (!many || chase_init(&small, MEM_SMALL) || chase_init(&large, MEM_LARGE)) {
		chase_free(&small);
		chase_free(&large);
		free(many);
		release(&in);
		return -ENOMEM;
	}
	t = parse_copy(&in);
	if (!t || ksym_table__batch_begin(t)) {
		snprintf(r->why, sizeof(r->why), "cannot parse %s", path);
		release(&in);
		return -EINVAL;
	}
	r->correct = check(&in, t, r->why, sizeof(r->why));
	ksym_table__batch_end(t);
	if (!r->correct) {
		ksym_table__free(t);
		release(&in);
		return -EINVAL;
	}
	if (!mkdtemp(cache_dir) || ksym_cache__live_key(&key, path) ||
	    ksym_cache__store(cache_dir, "bench", &key, t)) {
		snprintf(r->why, sizeof(r->why), "cannot write a cache in /tmp");
		ksym_table__free(t);
		release(&in);
		return -EIO;
	}

	/* the same list again: its answers, under the list's key */
	ksym_cache__list_key(&keyl, &key, in.hits, n);
	err = ksym_table__batch_begin(t);
	if (!err && ksym_table__find_many(t, in.hits, n, many) != (int)n)
		err = -ENOENT;
	ksym_table__batch_end(t);
	if (!err && !same_as_table(cache_dir, &key, &in, many, r->why, sizeof(r->why))) {
		r->correct = false;
		err = -EINVAL;
		goto out;
	}
	if (err || ksym_cache__store_answers(cache_dir, "bench-list", &keyl, in.hits, n, many)) {
		snprintf(r->why, sizeof(r->why), "cannot write a list's answers in /tmp");
		ksym_table__free(t);
		release(&in);
		return -EIO;
	}

	/* the lookups run on the table as ksym_table__load() lays it out: from a copy */
	snprintf(copy_file, sizeof(copy_file), "%s/kallsyms", cache_dir);
	{
		FILE *cf = fopen(copy_file, "we");

		if (!cf || fwrite(in.data, 1, in.len, cf) != in.len || fclose(cf)) {
			snprintf(r->why, sizeof(r->why), "cannot write %s", copy_file);
			ksym_table__free(t);
			release(&in);
			return -EIO;
		}
	}

	/* the names for the cold runs, which happen in fresh processes */
	snprintf(names_file, sizeof(names_file), "%s/names", cache_dir);
	{
		FILE *nf = fopen(names_file, "we");
		size_t i;

		for (i = 0; nf && i < n; i++)
			fprintf(nf, "%s\n", in.hits[i]);
		if (!nf || fclose(nf)) {
			snprintf(r->why, sizeof(r->why), "cannot write %s", names_file);
			ksym_table__free(t);
			release(&in);
			return -EIO;
		}
	}

	for (round = 0; round < o->rounds; round++) {
		struct ksym_answers *ans;
		struct ksym_table *c;
		struct match_ctx mc = {};
		size_t glob_ref;
		uint64_t t0;
		FILE *f;

		mem_small[round] = chase_ns(&small);
		mem_large[round] = chase_ns(&large);
		/* parse: reference, then ours, on the same bytes in memory */
		{
			struct ref_syms rs = {};

			f = fmemopen(in.data, in.len, "r");
			t0 = now_ns();
			ref_syms__parse(f, &rs);
			ref_parse[round] = now_ns() - t0;
			fclose(f);
			ref_syms__free(&rs);
		}
		{
			char *buf = malloc(in.len + 1);

			memcpy(buf, in.data, in.len + 1);
			t0 = now_ns();
			c = ksym_table__parse(KSYM_FMT_KALLSYMS, buf, in.len, NULL);
			ksym_parse[round] = now_ns() - t0;
			t0 = now_ns();
			ksym_table__batch_begin(c);
			index_ns[round] = now_ns() - t0;
			ksym_table__free(c);
			c = ksym_table__load(KSYM_FMT_KALLSYMS, copy_file, NULL);
			if (!c || ksym_table__batch_begin(c)) {
				snprintf(r->why, sizeof(r->why), "cannot load %s", copy_file);
				r->correct = false;
				ksym_table__free(c);
				break;
			}
		}
		/* exact lookups inside a batch: hits, misses */
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sink += ksym_table__find(c, in.hits[i], NULL, s, 4);
		hit_ns[round] = (double)(now_ns() - t0) / n;
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sink += ksym_table__find(c, in.misses[i], NULL, s, 4);
		miss_ns[round] = (double)(now_ns() - t0) / n;
		/* the same names as a list (find_many): lookups overlapped */
		t0 = now_ns();
		sink += ksym_table__find_many(c, in.hits, n, many);
		mhit_ns[round] = (double)(now_ns() - t0) / n;
		t0 = now_ns();
		sink += ksym_table__find_many(c, (const char *const *)in.misses, n, many);
		mmiss_ns[round] = (double)(now_ns() - t0) / n;
		ksym_table__batch_end(c);
		/* outside a batch (scan) against the reference's linear scan */
		t0 = now_ns();
		for (i = 0; i < SCAN_LOOKUPS && i < n; i++)
			sink += ksym_table__find(c, in.hits[i], NULL, s, 4);
		scan_ns[round] = (double)(now_ns() - t0) / (i ? i : 1);
		t0 = now_ns();
		for (i = 0; i < SCAN_LOOKUPS && i < n; i++)
			sink += !!ref_syms__find(&in.ref, in.hits[i]);
		rscan_ns[round] = (double)(now_ns() - t0) / (i ? i : 1);
		/* address lookups */
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sink += ksym_table__addr(c, in.addrs[i], s);
		addr_ns[round] = (double)(now_ns() - t0) / n;
		t0 = now_ns();
		for (i = 0; i < n; i++)
			sink += !!ref_syms__addr(&in.ref, in.addrs[i]);
		raddr_ns[round] = (double)(now_ns() - t0) / n;
		/* a glob over every name */
		t0 = now_ns();
		ksym_table__match(c, "vfs_*", count_match, &mc);
		glob_ns[round] = now_ns() - t0;
		t0 = now_ns();
		glob_ref = ref_syms__match(&in.ref, "vfs_*");
		rglob_ns[round] = now_ns() - t0;
		/* the same answer first, or the timing means nothing */
		if (mc.n != glob_ref) {
			snprintf(r->why, sizeof(r->why), "glob vfs_*: %zu matches, the reference %zu",
				 mc.n, glob_ref);
			r->correct = false;
			ksym_table__free(c);
			break;
		}
		ksym_table__free(c);

		/* cold end to end (read, parse, index, lookups) against the raw read */
		raw_ns[round] = cold_probe(path, COLD_RAW, names_file);
		rawh_ns[round] = cold_probe(path, COLD_RAW_HUGE, names_file);
		cold_ns[round] = cold_probe(path, COLD_FULL, names_file);
		coldl_ns[round] = cold_probe(path, COLD_LIST, names_file);
		if (raw_ns[round] < 0 || rawh_ns[round] < 0 || cold_ns[round] < 0 ||
		    coldl_ns[round] < 0) {
			snprintf(r->why, sizeof(r->why), "a cold run in a fresh process failed");
			r->correct = false;
			break;
		}
		/* warm: a list the cache has not seen, from its resolve section */
		t0 = now_ns();
		ans = ksym_cache__resolve(cache_dir, "bench", &key, in.hits, n, many);
		warm_ns[round] = now_ns() - t0;
		if (!answered(ans, many, "the cache's resolve section failed", r))
			break;
		/* and through the whole table, loaded from the cache */
		t0 = now_ns();
		c = ksym_cache__load(cache_dir, "bench", &key);
		if (c)
			sink += ksym_table__find_many(c, in.hits, n, many);
		warmt_ns[round] = now_ns() - t0;
		ksym_table__free(c);
		/* warm, the same list: its answers */
		t0 = now_ns();
		ans = ksym_cache__load_answers(cache_dir, "bench-list", &keyl, in.hits, n, many);
		warml_ns[round] = now_ns() - t0;
		if (!answered(ans, many, "a list's answers did not load", r))
			break;
	}
	(void)sink;
	if (!r->correct) {
		err = -EINVAL;
		goto out;
	}

	add_row(r, "parse (in memory)", "ms", stats_median(ref_parse, o->rounds) / 1e6,
		stats_median(ksym_parse, o->rounds) / 1e6);
	add_row(r, "index build", "ms", -1, stats_median(index_ns, o->rounds) / 1e6);
	add_lookup_row(r, "exact lookup, hit", "hit", stats_median(rscan_ns, o->rounds),
		       stats_median(hit_ns, o->rounds));
	add_lookup_row(r, "exact lookup, miss", "miss", -1, stats_median(miss_ns, o->rounds));
	add_lookup_row(r, "exact lookups as a list, hit", "list hit",
		       stats_median(rscan_ns, o->rounds), stats_median(mhit_ns, o->rounds));
	add_lookup_row(r, "exact lookups as a list, miss", "list miss", -1,
		       stats_median(mmiss_ns, o->rounds));
	add_row(r, "exact lookup, no batch", "ns", stats_median(rscan_ns, o->rounds),
		stats_median(scan_ns, o->rounds));
	add_lookup_row(r, "address lookup", "address", stats_median(raddr_ns, o->rounds),
		       stats_median(addr_ns, o->rounds));
	add_row(r, "glob vfs_* (all names)", "ms", stats_median(rglob_ns, o->rounds) / 1e6,
		stats_median(glob_ns, o->rounds) / 1e6);
	{
		/* the cold rows go against the faster way to only read the file */
		double raw = stats_median(raw_ns, o->rounds) / 1e6;
		double rawh = stats_median(rawh_ns, o->rounds) / 1e6;
		double ref = raw < rawh ? raw : rawh;

		add_row(r, "raw read of the file (malloc'd buffer)", "ms", -1, raw);
		add_row(r, "raw read of the file (huge pages)", "ms", -1, rawh);
		add_row(r, "cold resolve (read+parse+index+lookups)", "ms", ref,
			stats_median(cold_ns, o->rounds) / 1e6);
		add_row(r, "cold resolve, names kept while parsing", "ms", ref,
			stats_median(coldl_ns, o->rounds) / 1e6);
	}
	add_row(r, "warm resolve (cache+lookups)", "ms", stats_median(warmt_ns, o->rounds) / 1e6,
		stats_median(warm_ns, o->rounds) / 1e6);
	add_row(r, "warm resolve, the same list again", "ms", -1,
		stats_median(warml_ns, o->rounds) / 1e6);
	/* a batch pays for its index after this many lookups */
	{
		double idx = stats_median(index_ns, o->rounds);
		double gain = stats_median(scan_ns, o->rounds) - stats_median(hit_ns, o->rounds);

		r->break_even = gain > 0 ? idx / gain : -1;
	}
	r->mem_ns[0] = stats_median(mem_small, o->rounds);
	r->mem_ns[1] = stats_median(mem_large, o->rounds);
	r->rss_ref_kib = rss_probe(path, true);
	r->rss_ours_kib = rss_probe(path, false);
	err = 0;
out:
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_dir);
		if (system(cmd))
			fprintf(stderr, "ksymattach: cannot remove %s\n", cache_dir);
	}
	ksym_table__free(t);
	release(&in);
	free(many);
	chase_free(&small);
	chase_free(&large);
	return err;
}

/*
 * The lookup rows in units of the memory's own latency: a lookup that must
 * read memory no cache holds costs at least one random read, whatever the
 * machine, and the ns rows move with it from run to run.
 */
static void print_in_reads(const struct result *r)
{
	const char *sep = "";
	int i;

	if (r->mem_ns[0] <= 0)
		return;
	printf("  ours in random reads within %lu MiB:", MEM_SMALL >> 20);
	for (i = 0; i < r->nrows; i++) {
		if (!r->rows[i].in_reads)
			continue;
		printf("%s %s %.2f", sep, r->rows[i].in_reads, r->rows[i].ours / r->mem_ns[0]);
		sep = ",";
	}
	printf("\n");
}

static void print_text(const struct bench_opts *o, const struct result *r)
{
	int i;

	printf("%s: %zu symbols, %.1f MiB; medians of %d rounds, %zu lookups a round\n"
	       "  (names drawn uniformly over distinct names, misses are hits plus a suffix)\n",
	       r->path, r->symbols, r->bytes / 1048576.0, o->rounds, o->lookups);
	printf("  reference: fscanf line loop (libbpf) + strdup, linear name scan and address\n"
	       "  bsearch (libbpf-tools trace_helpers), fnmatch; cold resolve's is the faster\n"
	       "  raw read; cold rows run in fresh processes; warm resolve's loads the whole\n"
	       "  table from the cache, ours reads the list's records only\n");
	printf("  memory meanwhile: a random read costs %.0f ns within %lu MiB, %.0f ns within\n"
	       "  %lu MiB (pointer chase in each round)\n",
	       r->mem_ns[0], MEM_SMALL >> 20, r->mem_ns[1], MEM_LARGE >> 20);
	printf("  %-42s %12s %12s %9s\n", "", "reference", "ksym", "ref/ksym");
	for (i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		char ref[32] = "-", ratio[32] = "-";

		if (w->ref >= 0) {
			snprintf(ref, sizeof(ref), "%.3f", w->ref);
			snprintf(ratio, sizeof(ratio), "%.2fx", w->ours > 0 ? w->ref / w->ours : 0);
		}
		printf("  %-42s %9s %2s %9.3f %2s %9s\n", w->what, ref, w->ref >= 0 ? w->unit : "",
		       w->ours, w->unit, ratio);
	}
	printf("  %-42s %9ld KiB %7ld KiB\n", "peak RSS (fresh process, parse+index)",
	       r->rss_ref_kib, r->rss_ours_kib);
	if (r->break_even > 0)
		printf("  batch break-even: %.0f lookups (index build / per-lookup saving)\n",
		       r->break_even);
	print_in_reads(r);
	printf("\n");
}

static void print_json(const struct bench_opts *o, const struct result *r, bool first)
{
	int i;

	printf("%s{\"file\":", first ? "" : ",");
	report__json_str(stdout, r->path);
	printf(",\"symbols\":%zu,\"bytes\":%zu,\"rounds\":%d,\"lookups\":%zu,\"rows\":[", r->symbols,
	       r->bytes, o->rounds, o->lookups);
	for (i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		printf("%s{\"what\":", i ? "," : "");
		report__json_str(stdout, w->what);
		printf(",\"unit\":\"%s\",\"ksym\":%.6f", w->unit, w->ours);
		if (w->ref >= 0)
			printf(",\"reference\":%.6f,\"ratio\":%.4f", w->ref,
			       w->ours > 0 ? w->ref / w->ours : 0);
		printf("}");
	}
	printf("],\"rss_kib\":{\"reference\":%ld,\"ksym\":%ld},\"batch_break_even\":%.0f,"
	       "\"random_read_ns\":{\"%luMiB\":%.1f,\"%luMiB\":%.1f}}",
	       r->rss_ref_kib, r->rss_ours_kib, r->break_even, MEM_SMALL >> 20, r->mem_ns[0],
	       MEM_LARGE >> 20, r->mem_ns[1]);
}

int bench__run(const struct bench_opts *o)
{
	static const char *const live[] = { "/proc/kallsyms" };
	const char *const *files = o->file_cnt ? o->files : live;
	size_t cnt = o->file_cnt ? o->file_cnt : 1, i;
	struct bench_opts opts = *o;
	struct result r;
	int fails = 0;

	if (opts.rounds <= 0 || opts.rounds > MAX_ROUNDS)
		opts.rounds = 5;
	if (!opts.lookups)
		opts.lookups = 10000;
	/*
	 * The in-memory rows measure the work, for both methods alike: memory
	 * freed by one round serves the next (no fresh mappings, whose first
	 * touch costs ~11 us a page on the VM this was built on). What a first
	 * run pays is the cold rows' business: they run in fresh processes.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	if (opts.format == REPORT_JSON)
		printf("{\"bench\":\"ksym\",\"inputs\":[");
	for (i = 0; i < cnt; i++) {
		if (bench_one(&opts, files[i], &r)) {
			fprintf(stderr, "ksymattach: bench %s: %s\n", files[i], r.why);
			fails++;
			continue;
		}
		if (opts.format == REPORT_JSON)
			print_json(&opts, &r, i == (size_t)fails);
		else
			print_text(&opts, &r);
	}
	if (opts.format == REPORT_JSON)
		printf("]}\n");
	return fails ? 1 : 0;
}
