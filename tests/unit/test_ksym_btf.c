// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BTF functions' index (lib/ksym/btf) and what a tracing_multi link makes
 * of a pattern's matches (ksym_db__each_btf(), ksym_db__btf_ids()): BTF
 * objects written here type by type (vmlinux's and a module's split one),
 * with a kallsyms and a list of sites written beside them, so that every
 * verdict has a function that earns it. The running kernel's BTF, where
 * there is one, is read too, and checked against what bpftool says of it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/btf.h>

#include <ksym/ksym.h>
#include "ksym_bfuncs.h"
#include "helpers.h"

/* (libbpf's, not the UAPI header's) */
#define BTF_INFO_ENC(kind, kflag, vlen) \
	((!!(kflag) << 31) | ((uint32_t)(kind) << 24) | ((vlen) & 0xffff))

/* A BTF object made type by type: a module's over base (NULL: vmlinux). */
struct bb {
	char types[4096];
	size_t tlen;
	char strs[1024];
	size_t slen;
	uint32_t str_base;	/* the base's string bytes: a module's offsets follow them */
	uint32_t next_id;
};

static void bb_init(struct bb *b, const struct bb *base)
{
	memset(b, 0, sizeof(*b));
	if (base) {
		b->str_base = base->slen;
		b->next_id = base->next_id;
	} else {
		b->slen = 1;	/* the empty string */
		b->next_id = 1;
	}
}

static uint32_t bb_str(struct bb *b, const char *s)
{
	uint32_t off = b->slen;

	if (!s)
		return 0;
	assert_true(b->slen + strlen(s) + 1 <= sizeof(b->strs));
	strcpy(b->strs + b->slen, s);
	b->slen += strlen(s) + 1;
	return b->str_base + off;
}

static void bb_put(struct bb *b, const void *p, size_t n)
{
	assert_true(b->tlen + n <= sizeof(b->types));
	memcpy(b->types + b->tlen, p, n);
	b->tlen += n;
}

/* a type with vlen words of extra (each a uint32_t), its id returned */
static uint32_t bb_type(struct bb *b, const char *name, int kind, uint32_t vlen, uint32_t sz_type,
			const uint32_t *extra, size_t words)
{
	struct btf_type t = { .name_off = bb_str(b, name), .info = BTF_INFO_ENC(kind, 0, vlen),
			      .size = sz_type };

	bb_put(b, &t, sizeof(t));
	if (words)
		bb_put(b, extra, words * 4);
	return b->next_id++;
}

/* a FUNC_PROTO returning ret, with n parameters of the types in args */
static uint32_t bb_proto(struct bb *b, uint32_t ret, const uint32_t *args, uint32_t n)
{
	uint32_t w[2 * 16];
	uint32_t i;

	for (i = 0; i < n; i++) {
		w[2 * i] = 0;
		w[2 * i + 1] = args[i];
	}
	return bb_type(b, NULL, BTF_KIND_FUNC_PROTO, n, ret, w, 2 * n);
}

/* the file's bytes: header, types, strings (malloc()ed, as parse takes them) */
static void *bb_bytes(const struct bb *b, size_t *len)
{
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(h), .type_off = 0,
		.type_len = b->tlen, .str_off = b->tlen, .str_len = b->slen,
	};
	char *p;

	*len = sizeof(h) + b->tlen + b->slen;
	p = malloc(*len);
	assert_non_null(p);
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), b->types, b->tlen);
	memcpy(p + sizeof(h) + b->tlen, b->strs, b->slen);
	return p;
}

/* The test kernel's vmlinux: each function's prototype earns one verdict. */
struct kernel_ids {
	uint32_t vfs_read, vfs_many, vfs_printf, vfs_big, vfs_pair, vfs_ret, vfs_float;
	uint32_t vfs_dup, vfs_dup2, rcu_note, do_exit, vfs_wide, vfs_slots, vfs_twin, last;
	uint32_t mod_fn, mod_twice;
};

static void make_kernel(struct bb *vm, struct bb *mod, struct kernel_ids *k)
{
	uint32_t i_int, i_ptr, i_big, i_pair, i_dbl, i_big_t, i_wide, ok, many, va, big, pair, ret, flt;
	uint32_t wide, slots, mp, enc = 32, enc128 = 128, thirteen[13], a[2];
	int i;

	bb_init(vm, NULL);
	i_int = bb_type(vm, "int", BTF_KIND_INT, 0, 4, &enc, 1);
	i_ptr = bb_type(vm, NULL, BTF_KIND_PTR, 0, i_int, NULL, 0);
	i_big = bb_type(vm, "big", BTF_KIND_STRUCT, 0, 24, NULL, 0);
	i_pair = bb_type(vm, "pair", BTF_KIND_STRUCT, 0, 16, NULL, 0);
	i_dbl = bb_type(vm, "double", 16 /* FLOAT */, 0, 8, NULL, 0);
	i_big_t = bb_type(vm, "big_t", BTF_KIND_TYPEDEF, 0, i_big, NULL, 0);
	i_wide = bb_type(vm, "__int128", BTF_KIND_INT, 0, 16, &enc128, 1);
	a[0] = i_int;
	a[1] = i_ptr;
	ok = bb_proto(vm, i_int, a, 2);
	for (i = 0; i < 13; i++)
		thirteen[i] = i_int;
	many = bb_proto(vm, 0, thirteen, 13);
	a[1] = 0;
	va = bb_proto(vm, i_int, a, 2);
	big = bb_proto(vm, i_int, &i_big_t, 1);
	pair = bb_proto(vm, i_int, &i_pair, 1);
	ret = bb_proto(vm, i_big, NULL, 0);
	flt = bb_proto(vm, i_int, &i_dbl, 1);
	wide = bb_proto(vm, i_wide, NULL, 0);
	/* 12 arguments, one a 16-byte struct: 13 of the trampoline's 8-byte slots */
	thirteen[11] = i_pair;
	slots = bb_proto(vm, i_int, thirteen, 12);
	k->vfs_read = bb_type(vm, "vfs_read", BTF_KIND_FUNC, 0, ok, NULL, 0);
	k->vfs_many = bb_type(vm, "vfs_many", BTF_KIND_FUNC, 1, many, NULL, 0);
	k->vfs_printf = bb_type(vm, "vfs_printf", BTF_KIND_FUNC, 1, va, NULL, 0);
	k->vfs_big = bb_type(vm, "vfs_big", BTF_KIND_FUNC, 0, big, NULL, 0);
	k->vfs_pair = bb_type(vm, "vfs_pair", BTF_KIND_FUNC, 0, pair, NULL, 0);
	k->vfs_ret = bb_type(vm, "vfs_ret", BTF_KIND_FUNC, 0, ret, NULL, 0);
	k->vfs_float = bb_type(vm, "vfs_float", BTF_KIND_FUNC, 0, flt, NULL, 0);
	k->vfs_dup = bb_type(vm, "vfs_dup", BTF_KIND_FUNC, 0, ok, NULL, 0);
	k->vfs_dup2 = bb_type(vm, "vfs_dup2", BTF_KIND_FUNC, 0, ok, NULL, 0);
	k->rcu_note = bb_type(vm, "rcu_note", BTF_KIND_FUNC, 0, ok, NULL, 0);
	k->do_exit = bb_type(vm, "do_exit", BTF_KIND_FUNC, 1, ok, NULL, 0);
	k->vfs_wide = bb_type(vm, "vfs_wide", BTF_KIND_FUNC, 0, wide, NULL, 0);
	k->vfs_slots = bb_type(vm, "vfs_slots", BTF_KIND_FUNC, 0, slots, NULL, 0);
	/* two static functions of one name, two prototypes: BTF keeps both */
	k->vfs_twin = bb_type(vm, "vfs_twin", BTF_KIND_FUNC, 0, ok, NULL, 0);
	k->last = bb_type(vm, "vfs_twin", BTF_KIND_FUNC, 0, pair, NULL, 0);

	/* the module's prototype takes vmlinux's types: a split BTF over it */
	bb_init(mod, vm);
	mp = bb_proto(mod, i_int, &i_ptr, 1);
	k->mod_fn = bb_type(mod, "mod_fn", BTF_KIND_FUNC, 0, mp, NULL, 0);
	k->mod_twice = bb_type(mod, "mod_twice", BTF_KIND_FUNC, 0, mp, NULL, 0);
}

static void test_index(void **state)
{
	struct ksym_bfuncs *v, *m;
	struct kernel_ids k;
	struct bb vm, mod;
	void *p;
	size_t len;
	uint32_t id;

	(void)state;
	make_kernel(&vm, &mod, &k);
	p = bb_bytes(&vm, &len);
	v = ksym_bfuncs__parse(p, len, NULL);
	assert_non_null(v);
	assert_int_equal(ksym_bfuncs__cnt(v), 15);
	assert_int_equal(ksym_bfuncs__start_id(v), 1);
	assert_int_equal(ksym_bfuncs__find(v, "vfs_read", &id), 1);
	assert_int_equal(id, k.vfs_read);
	assert_int_equal(ksym_bfuncs__find(v, "vfs_nothing", &id), 0);
	assert_int_equal(ksym_bfuncs__find(v, "int", &id), 0);	/* a type, not a FUNC */
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_read, false), KSYM_BPROTO_OK);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_many, false), KSYM_BPROTO_ARGS);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_printf, false), KSYM_BPROTO_VARARGS);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_big, false), KSYM_BPROTO_ARG);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_pair, false), KSYM_BPROTO_OK);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_ret, false), KSYM_BPROTO_RET);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_float, false), KSYM_BPROTO_ARG);
	/* a 16-byte return: passed at entry, not at return (fexit's ret_size > 8) */
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_wide, false), KSYM_BPROTO_OK);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_wide, true), KSYM_BPROTO_RET_SIZE);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_read, true), KSYM_BPROTO_OK);
	assert_int_equal(ksym_bfuncs__proto(v, k.vfs_slots, false), KSYM_BPROTO_ARGS);
	assert_int_equal(ksym_bfuncs__find(v, "vfs_twin", &id), 2);
	assert_int_equal(id, k.vfs_twin);
	assert_int_equal(ksym_bfuncs__proto(v, 1, false), KSYM_BPROTO_BAD);	/* not a FUNC */
	assert_int_equal(ksym_bfuncs__proto(v, 9999, false), KSYM_BPROTO_BAD);

	p = bb_bytes(&mod, &len);
	m = ksym_bfuncs__parse(p, len, v);
	assert_non_null(m);
	assert_int_equal(ksym_bfuncs__start_id(m), k.last + 1);
	assert_int_equal(ksym_bfuncs__cnt(m), 2);
	assert_int_equal(ksym_bfuncs__find(m, "mod_fn", &id), 1);
	assert_int_equal(id, k.mod_fn);
	assert_int_equal(ksym_bfuncs__find(m, "vfs_read", &id), 0);	/* vmlinux's, not its own */
	assert_int_equal(ksym_bfuncs__proto(m, k.mod_fn, false), KSYM_BPROTO_OK);
	ksym_bfuncs__free(m);
	ksym_bfuncs__free(v);
}

/* Cut short, a wrong magic, a kind unknown, a name past the strings: refused. */
static void test_malformed(void **state)
{
	struct kernel_ids k;
	struct bb vm, mod;
	struct btf_type *t;
	size_t len, cut;
	char *p;

	(void)state;
	make_kernel(&vm, &mod, &k);
	p = bb_bytes(&vm, &len);
	for (cut = 0; cut < len; cut += 7) {
		char *q = malloc(cut ? cut : 1);

		assert_non_null(q);
		memcpy(q, p, cut);
		errno = 0;
		assert_null(ksym_bfuncs__parse(q, cut, NULL));
		assert_int_equal(errno, EBADMSG);
	}
	p[0] ^= 1;
	assert_null(ksym_bfuncs__parse(p, len, NULL));
	assert_int_equal(errno, EBADMSG);

	p = bb_bytes(&vm, &len);
	t = (void *)(p + sizeof(struct btf_header));	/* the first type: "int" */
	t->info = BTF_INFO_ENC(31, 0, 0);
	assert_null(ksym_bfuncs__parse(p, len, NULL));

	p = bb_bytes(&vm, &len);
	t = (void *)(p + sizeof(struct btf_header) + vm.tlen - sizeof(*t));	/* vfs_twin */
	t->name_off = vm.slen + 5;
	assert_null(ksym_bfuncs__parse(p, len, NULL));
	assert_int_equal(errno, EBADMSG);
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/*
 * The kernel's symbols: vfs_dup twice, its traceable one second (the kernel's
 * lookup finds the first), vfs_dup2 twice with its traceable one first; a
 * module holding mod_twice twice; a module without BTF.
 */
static const char kallsyms[] =
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 T vfs_many\n"
	"ffffffff81003000 T vfs_printf\n"
	"ffffffff81004000 T vfs_big\n"
	"ffffffff81005000 T vfs_pair\n"
	"ffffffff81006000 T vfs_ret\n"
	"ffffffff81007000 T vfs_float\n"
	"ffffffff81008000 t vfs_dup\n"
	"ffffffff81009000 t vfs_dup\n"
	"ffffffff8100a000 t vfs_dup2\n"
	"ffffffff8100b000 t vfs_dup2\n"
	"ffffffff8100c000 T rcu_note\n"
	"ffffffff8100d000 T do_exit\n"
	"ffffffff8100e000 t vfs_clone.isra.0\n"
	"ffffffff8100f000 t vfs_twin\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0002000 t mod_twice\t[mymod]\n"
	"ffffffffc0003000 t mod_twice\t[mymod]\n"
	"ffffffffc0004000 t nb_fn\t[nobtf]\n";

static const char sites[] =
	"ffffffff81001000 vfs_read\n"
	"ffffffff81002000 vfs_many\n"
	"ffffffff81003000 vfs_printf\n"
	"ffffffff81004000 vfs_big\n"
	"ffffffff81005000 vfs_pair\n"
	"ffffffff81006000 vfs_ret\n"
	"ffffffff81007000 vfs_float\n"
	"ffffffff81009000 vfs_dup\n"
	"ffffffff8100a000 vfs_dup2\n"
	"ffffffff8100c000 rcu_note\n"
	"ffffffff8100d000 do_exit\n"
	"ffffffff8100e000 vfs_clone.isra.0\n"
	"ffffffff8100f000 vfs_twin\n"
	"ffffffffc0001000 mod_fn [mymod]\n"
	"ffffffffc0002000 mod_twice [mymod]\n"
	"ffffffffc0003000 mod_twice [mymod]\n"
	"ffffffffc0004000 nb_fn [nobtf]\n";

struct seen {
	char name[32];
	uint64_t addr;
	uint32_t id;
	enum ksym_btf_verdict v;
	unsigned int kcnt;
	size_t pattern;
} seen[64];
static size_t seen_n;

static int note(const struct ksym_btf_func *f, void *ctx)
{
	struct seen *s = &seen[seen_n++];

	(void)ctx;
	assert_true(seen_n < 64);
	snprintf(s->name, sizeof(s->name), "%s", f->site.sym.name);
	s->addr = f->site.loc;
	s->id = f->id;
	s->v = f->verdict;
	s->kcnt = f->kallsyms_cnt;
	s->pattern = f->site.pattern;
	assert_non_null(f->why);
	return 0;
}

static const struct seen *find_seen(const char *name, uint64_t addr, size_t pattern)
{
	size_t i;

	for (i = 0; i < seen_n; i++)
		if (!strcmp(seen[i].name, name) && (!addr || seen[i].addr == addr) &&
		    seen[i].pattern == pattern)
			return &seen[i];
	fail_msg("%s not walked", name);
	return NULL;
}

static struct ksym_db *make_db(const char *dir, const char *const *pats, size_t n)
{
	static char kpath[256], spath[256];
	struct ksym_db_opts o = { .sz = sizeof(o), .need = KSYM_DB_FUNCS, .no_cache = true };

	snprintf(kpath, sizeof(kpath), "%s/kallsyms", dir);
	snprintf(spath, sizeof(spath), "%s/sites", dir);
	o.kallsyms_path = kpath;
	o.funcs_addrs_path = spath;
	o.btf_dir = dir;
	o.patterns = pats;
	o.pattern_cnt = n;
	return ksym_db__new(&o);
}

static void test_verdicts(void **state)
{
	const char *pats[] = { "vfs_*", "rcu_*", "do_exit", "mod_*", "nb_*", "vfs_read" };
	char dir[] = "/tmp/ksym-btf.XXXXXX";
	struct ksym_btf_ids *sets;
	struct kernel_ids k;
	struct ksym_db *db;
	struct bb vm, mod;
	size_t len, n;
	void *p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_kernel(&vm, &mod, &k);
	p = bb_bytes(&vm, &len);
	write_file(dir, "vmlinux", p, len);
	free(p);
	p = bb_bytes(&mod, &len);
	write_file(dir, "mymod", p, len);
	free(p);
	write_file(dir, "kallsyms", kallsyms, strlen(kallsyms));
	write_file(dir, "sites", sites, strlen(sites));

	db = make_db(dir, pats, 6);
	assert_non_null(db);
	assert_int_equal(ksym_db__load(db), 0);
	seen_n = 0;
	assert_int_equal(ksym_db__each_btf(db, 0, note, NULL), 0);
	assert_int_equal(seen_n, 18);
	assert_int_equal(find_seen("vfs_read", 0, 0)->v, KSYM_BTF_OK);
	assert_int_equal(find_seen("vfs_read", 0, 0)->id, k.vfs_read);
	assert_int_equal(find_seen("vfs_read", 0, 5)->v, KSYM_BTF_SAME);
	assert_int_equal(find_seen("vfs_many", 0, 0)->v, KSYM_BTF_PROTO);
	assert_int_equal(find_seen("vfs_printf", 0, 0)->v, KSYM_BTF_PROTO);
	assert_int_equal(find_seen("vfs_big", 0, 0)->v, KSYM_BTF_PROTO);
	assert_int_equal(find_seen("vfs_pair", 0, 0)->v, KSYM_BTF_OK);
	assert_int_equal(find_seen("vfs_ret", 0, 0)->v, KSYM_BTF_PROTO);
	assert_int_equal(find_seen("vfs_float", 0, 0)->v, KSYM_BTF_PROTO);
	assert_int_equal(find_seen("vfs_dup", 0, 0)->v, KSYM_BTF_OTHER);
	assert_int_equal(find_seen("vfs_dup", 0, 0)->kcnt, 2);
	assert_int_equal(find_seen("vfs_dup2", 0, 0)->v, KSYM_BTF_OK);
	assert_int_equal(find_seen("vfs_dup2", 0, 0)->kcnt, 2);
	assert_int_equal(find_seen("vfs_clone.isra.0", 0, 0)->v, KSYM_BTF_NO_BTF);
	assert_int_equal(find_seen("vfs_twin", 0, 0)->v, KSYM_BTF_TWICE);
	assert_int_equal(find_seen("rcu_note", 0, 1)->v, KSYM_BTF_UNSAFE);
	assert_int_equal(find_seen("do_exit", 0, 2)->v, KSYM_BTF_OK);
	assert_int_equal(find_seen("mod_fn", 0, 3)->v, KSYM_BTF_OK);
	assert_int_equal(find_seen("mod_fn", 0, 3)->id, k.mod_fn);
	assert_int_equal(find_seen("mod_twice", 0xffffffffc0002000ull, 3)->v, KSYM_BTF_AMBIGUOUS);
	assert_int_equal(find_seen("mod_twice", 0xffffffffc0003000ull, 3)->v, KSYM_BTF_AMBIGUOUS);
	assert_int_equal(find_seen("nb_fn", 0, 4)->v, KSYM_BTF_NO_OBJECT);

	/* at return too: do_exit never returns */
	seen_n = 0;
	assert_int_equal(ksym_db__each_btf(db, KSYM_BTF_RETURN, note, NULL), 0);
	assert_int_equal(find_seen("do_exit", 0, 2)->v, KSYM_BTF_NORETURN);

	assert_int_equal(ksym_db__btf_ids(db, 0, &sets, &n), 0);
	assert_int_equal(n, 2);
	assert_null(sets[0].module);
	assert_int_equal(sets[0].cnt, 4);
	assert_int_equal(sets[0].ids[0], k.vfs_read);
	assert_int_equal(sets[0].ids[1], k.vfs_pair);
	assert_int_equal(sets[0].ids[2], k.vfs_dup2);
	assert_int_equal(sets[0].ids[3], k.do_exit);
	assert_string_equal(sets[1].module, "mymod");
	assert_int_equal(sets[1].cnt, 1);
	assert_int_equal(sets[1].ids[0], k.mod_fn);
	ksym_btf_ids__free(sets, n);
	ksym_db__free(db);

	/* nothing attachable: -ENOENT, with the reason */
	{
		const char *none[] = { "vfs_many", "rcu_*" };

		db = make_db(dir, none, 2);
		assert_int_equal(ksym_db__load(db), 0);
		assert_int_equal(ksym_db__btf_ids(db, 0, &sets, &n), -ENOENT);
		assert_null(sets);
		assert_non_null(strstr(ksym_db__errmsg(db), "by BTF id"));
		ksym_db__free(db);
	}

	/* no BTF at all: the load says so */
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/vmlinux", dir);
		unlink(path);
		db = make_db(dir, pats, 1);
		assert_int_equal(ksym_db__load(db), 0);
		assert_int_equal(ksym_db__btf_ids(db, 0, &sets, &n), -ENOENT);
		assert_non_null(strstr(ksym_db__errmsg(db), "cannot read the kernel's BTF"));
		ksym_db__free(db);
	}
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/*
 * The running kernel's BTF, where it has one: as many FUNCs as bpftool
 * counts, and vfs_read's id as bpftool gives it.
 */
static void test_running_kernel(void **state)
{
	struct ksym_bfuncs *f;
	char line[512];
	size_t funcs = 0, n;
	uint32_t id, want = 0;
	FILE *p;

	(void)state;
	f = ksym_bfuncs__load("/sys/kernel/btf/vmlinux", NULL);
	if (!f && (errno == ENOENT || errno == EACCES)) {
		print_message("# SKIP this kernel shows no BTF (/sys/kernel/btf/vmlinux)\n");
		skip();
	}
	assert_non_null(f);
	p = popen("bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null", "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned int i;

		if (sscanf(line, "[%u] FUNC '", &i) != 1 || !strstr(line, "] FUNC '"))
			continue;
		funcs++;
		if (strstr(line, "FUNC 'vfs_read' "))
			want = i;
	}
	if (pclose(p) || !funcs) {
		ksym_bfuncs__free(f);
		print_message("# SKIP bpftool cannot dump this kernel's BTF\n");
		skip();
	}
	assert_int_equal(ksym_bfuncs__cnt(f), funcs);
	n = ksym_bfuncs__find(f, "vfs_read", &id);
	assert_int_equal(n, 1);
	assert_int_equal(id, want);
	assert_int_equal(ksym_bfuncs__proto(f, id, false), KSYM_BPROTO_OK);
	ksym_bfuncs__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
