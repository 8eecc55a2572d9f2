/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The library's internals: the table's layout, and the functions its files
 * share (the readers of kernel memory, the build cache's layout). Nothing
 * outside lib/ksym includes this; the load's own state is in ksym_db.h.
 */
#ifndef KSYM_INTERNAL_H
#define KSYM_INTERNAL_H

#include <string.h>
#include <time.h>

#include <ksym/ksym.h>

/* The kernel's KSYM_NAME_LEN is 512 (with the NUL). */
#define KSYM_NAME_MAX 511

/* The phases' clock (the tool's src/common/clock.h is the same, on its side). */
static inline uint64_t ksym_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A 64-bit field at byte off of a struct read from kernel memory. */
static inline uint64_t ksym_get64(const unsigned char *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/*
 * A caller's opts (of any older size) into o, sized as this library's; the
 * stats they point at, or local: where a loader's counts go.
 */
static inline struct ksym_parse_stats *ksym_opts_copy(struct ksym_parse_opts *o,
						      const struct ksym_parse_opts *opts,
						      struct ksym_parse_stats *local)
{
	memset(o, 0, sizeof(*o));
	if (opts)
		memcpy(o, opts, opts->sz < sizeof(*o) ? opts->sz : sizeof(*o));
	o->sz = sizeof(*o);
	if (!o->stats)
		o->stats = local;
	return o->stats;
}

/*
 * One per symbol, in file order while parsing (the name index is built as the
 * file is read), in address order once finished: ksym_table__finish() moves
 * the few that are out of place (module symbols in /proc/kallsyms), stably,
 * and renames them in the index.
 */
struct ksym_ent {
	uint64_t addr;
	uint32_t name;		/* offset of the NUL-terminated name in buf */
	uint32_t size;		/* saturates at UINT32_MAX */
	uint16_t mod;		/* 0: vmlinux, else mods[mod - 1] */
	char type;
	uint8_t flags;
};

/*
 * A slot holds the name's offset beside its entry, so a hit loads the string and
 * the entry side by side instead of one after the other; and seven more hash
 * bits, so a probe rarely compares a string that is not the one.
 */
struct ksym_slot {
	uint32_t ref;		/* KSYM_IX_*: entry index + 1, chain bit, hash tag; 0 = empty */
	uint32_t name;		/* offset of the name in buf */
};

#define KSYM_IX_IDX	0x00ffffffu	/* entry index + 1 */
#define KSYM_IX_MORE	0x01000000u	/* dup_next of that entry continues the chain */
#define KSYM_IX_TAG	0xfe000000u	/* the hash's top seven bits */
#define KSYM_IX_MAX	KSYM_IX_IDX	/* entries an index can hold */

/*
 * Exact-name index: one slot per distinct name, holding its latest entry; the
 * others are chained by dup_next (same KSYM_IX_IDX | KSYM_IX_MORE encoding),
 * each to an earlier one, so a name without duplicates never touches dup_next.
 * Kernel tables hold hundreds of "__func__.0": as slots of their own they would
 * form probe runs that every lookup nearby has to walk. Chains only go
 * backwards, so even a corrupt one ends. Callers order what they find by address.
 */
struct ksym_index {
	struct ksym_slot *slots;
	uint32_t *dup_next;	/* entry -> the chain's next (KSYM_IX_IDX | KSYM_IX_MORE) */
	uint32_t mask;
	size_t used;		/* slots in use */
	size_t dup_cap;
};

struct ksym_akeys {
	size_t first;		/* address-order position of k[0] */
	uint64_t base;		/* the address k[] counts from */
	uint32_t k[];
};

struct ksym_table {
	char *buf;
	size_t len;
	size_t buf_cap;		/* from ksym_mem_alloc(buf_cap); 0: malloc()ed */
	struct ksym_ent *ents;	/* from ksym_mem_alloc(ent_cap entries) */
	size_t cnt;
	size_t ent_cap;
	/*
	 * The resolved symbols' addresses in address order, as offsets from the
	 * first: 4 bytes a symbol where an entry is 24, so an address search
	 * walks a twelfth of the entries' pages. Built by the first address
	 * lookup (a table loaded for names only never pays for it).
	 */
	struct ksym_akeys *akeys;
	uint32_t *mods;		/* offsets of module names in buf */
	size_t mod_cnt;
	enum ksym_format fmt;
	struct ksym_index ix;	/* alive between batch_begin and the last batch_end */
	int batch_refs;
	/* a cache file mapped read-only: everything above points into it */
	void *map;
	size_t map_len;
	/*
	 * A build cache used where it is mapped: entries hold offsets, and
	 * mod_base[mod] (0: vmlinux) is this boot's base of each (malloc()ed);
	 * KSYM_BASE_NONE: a module not loaded now, its entries unresolved.
	 */
	uint64_t *mod_base;
	/*
	 * Address-order position -> entry, where the file's groups are not in
	 * this boot's order (modules loaded in another order, some not at all):
	 * the unresolved first, then by address. NULL: the entries are in order.
	 * Moving 40k mapped entries and their index instead cost 2-6 times the
	 * whole load (measured in the TCG guest; most at a boot's first run).
	 */
	uint32_t *order;
};

#define KSYM_BASE_NONE UINT64_MAX

/* An entry's address: its own, or its offset from its base in a build cache. */
static inline uint64_t ksym_ent_addr(const struct ksym_table *t, const struct ksym_ent *e)
{
	if (!t->mod_base)
		return e->addr;
	return t->mod_base[e->mod] == KSYM_BASE_NONE ? 0 : e->addr + t->mod_base[e->mod];
}

/* Its flags: a build cache's entry of a module not loaded now is unresolved. */
static inline unsigned int ksym_ent_flags(const struct ksym_table *t, const struct ksym_ent *e)
{
	return t->mod_base && t->mod_base[e->mod] == KSYM_BASE_NONE ? e->flags | KSYM_F_UNRESOLVED
								     : e->flags;
}

/* The entry at address-order position pos. */
static inline const struct ksym_ent *ksym_ent_at(const struct ksym_table *t, size_t pos)
{
	return &t->ents[t->order ? t->order[pos] : pos];
}

static inline const char *ksym_ent_name(const struct ksym_table *t, const struct ksym_ent *e)
{
	return t->buf + e->name;
}

static inline const char *ksym_ent_mod(const struct ksym_table *t, const struct ksym_ent *e)
{
	return e->mod ? t->buf + t->mods[e->mod - 1] : NULL;
}

/* A function's kallsyms type: t/T, or w/W for a weak one. */
static inline bool ksym_type_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * Eight bytes a step, then a finalizer that mixes the high bits down: a
 * power-of-two table uses the low bits, and kernel names share long prefixes.
 * (Byte-at-a-time FNV cost a third of a lookup.)
 */
static inline uint32_t ksym_hash_len(const char *s, size_t len)
{
	const uint64_t K = 0xff51afd7ed558ccdull;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t rem = len % 8, i;
	bool whole = len >= 8;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * K;
		h ^= h >> 32;
	}
	/*
	 * The tail as the last eight bytes shifted down, where there are eight:
	 * copying up to seven bytes into a word stalled every lookup on a store
	 * that the load could not take its bytes from (a hit in a table that
	 * fits the cache: 51 ns before, 40-45 ns after, measured).
	 */
	if (rem && whole) {
		memcpy(&w, s + rem - 8, 8);
		w >>= 64 - 8 * rem;
	} else {
		for (w = 0, i = 0; i < rem; i++)
			w |= (uint64_t)(unsigned char)s[i] << 8 * i;
	}
	h = (h ^ w) * K;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ (h >> 32));
}

static inline uint32_t ksym_hash(const char *s)
{
	return ksym_hash_len(s, strlen(s));
}

/*
 * The chain of entries called name (hash h): its head, a KSYM_IX_IDX |
 * KSYM_IX_MORE value (entry index + 1 in KSYM_IX_IDX); 0: none.
 */
static inline uint32_t ksym_index_first(const struct ksym_table *t, const char *name, uint32_t h)
{
	const struct ksym_slot *slots = t->ix.slots;
	uint32_t s, m = t->ix.mask, tag = h & KSYM_IX_TAG, r;

	for (s = h & m; (r = slots[s].ref); s = (s + 1) & m) {
		if ((r & KSYM_IX_TAG) != tag)
			continue;
		/* the entry is what a hit needs next: fetch it while comparing */
		__builtin_prefetch(&t->ents[(r & KSYM_IX_IDX) - 1]);
		if (!strcmp(t->buf + slots[s].name, name))
			return r & (KSYM_IX_IDX | KSYM_IX_MORE);
	}
	return 0;
}

/* The chain's next after v, or 0. */
static inline uint32_t ksym_index_next(const struct ksym_table *t, uint32_t v)
{
	return v & KSYM_IX_MORE ? t->ix.dup_next[(v & KSYM_IX_IDX) - 1] : 0;
}

/*
 * Arrays that may be large (ksym_mem.c): a MiB and more in huge pages where
 * the kernel allows them. Zeroed when allocated; realloc and free must be
 * given the size last asked for.
 */
void *ksym_mem_alloc(size_t size);
void *ksym_mem_realloc(void *p, size_t old, size_t size);
void ksym_mem_free(void *p, size_t size);

/* Index building, also while parsing: init for about n entries, add in order. */
int ksym_index_init(struct ksym_index *ix, size_t n);
int ksym_index_add(struct ksym_index *ix, const struct ksym_table *t, uint32_t i);
/* Or all of t's entries at once (init included): faster than adding each in turn. */
int ksym_index_build(struct ksym_index *ix, const struct ksym_table *t);
void ksym_index_free(struct ksym_index *ix);

/*
 * A KALLSYMS table fed symbol by symbol (ksym_parse.c), filtered as a parse
 * with opts would: for the ksym iterator's records (names without a NUL in
 * them). A symbol the file format could not hold is counted malformed. ents/arena: sizes to start from.
 * end() frees the feed and returns the table, or NULL with errno (from err
 * where err is nonzero).
 */
struct ksym_feed;

struct ksym_feed *ksym_feed__new(const struct ksym_parse_opts *opts, size_t ents, size_t arena);
/* The same as a table of another format: KSYM_FMT_FUNCS_ADDRS (type 0) or KALLSYMS. */
struct ksym_feed *ksym_feed__new_fmt(enum ksym_format fmt, const struct ksym_parse_opts *opts,
				     size_t ents, size_t arena);
int ksym_feed__add(struct ksym_feed *f, uint64_t addr, char type, const char *name,
		   size_t name_len, const char *mod, size_t mod_len);
struct ksym_table *ksym_feed__end(struct ksym_feed *f, int err);
/*
 * Whether a symbol of this type whose name starts with head (len bytes: two,
 * or the whole name where it is shorter) can pass f's filters: a first look,
 * before a compressed name is expanded whole.
 */
bool ksym_feed__may_keep(const struct ksym_feed *f, char type, const char *head, size_t len);

/*
 * a's entries and b's as one new table, a's addresses made this boot's (a
 * rebased build cache), b's modules after a's: the build cache and the
 * modules it does not know, read live. Indexed; NULL with errno.
 */
struct ksym_table *ksym_table__merge(const struct ksym_table *a, const struct ksym_table *b);

/*
 * Marks (a bit per address-order position) the entries glob matches, as
 * ksym_table__match() would; then a new table of the marked ones, indexed, in
 * t's order with t's sizes and every module of t: what a set of patterns can
 * match, kept apart so that a run with the same patterns reads only that.
 */
int ksym_table__mark(const struct ksym_table *t, const char *glob, uint8_t *marks);
struct ksym_table *ksym_table__select(const struct ksym_table *t, const uint8_t *marks);

/* After parsing or changing addresses: entries into address order, sizes. */
int ksym_table__finish(struct ksym_table *t);

/* murmur3's finalizer: every input bit flips each output bit half the time */
static inline uint64_t ksym_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static inline uint32_t ksym_fold32(uint64_t x)
{
	return (uint32_t)(x ^ x >> 32);
}

/*
 * A cache file's resolve section (ksym_resolve.c): planned for a table (sizes,
 * record order, name prefixes), then written into len zeroed bytes; the first
 * head_len of them are for the caller to check whole, the records check
 * themselves as they are read.
 */
struct res_layout;

struct ksym_res_plan {
	uint32_t buckets, mods;
	size_t head_len, len;
	struct res_layout *l;
};

int ksym_res__plan(const struct ksym_table *t, struct ksym_res_plan *p);
void ksym_res__write(const struct ksym_table *t, const struct ksym_res_plan *p, char *out);
void ksym_res__plan_free(struct ksym_res_plan *p);

/* A section read back, its head checked: -EBADMSG where its offsets cannot be. */
struct ksym_res {
	const uint32_t *dir, *modoff, *pfxoff;
	const uint8_t *pfxlen;
	const char *str, *recs;
	size_t str_len, rec_len;
	uint32_t buckets, mods;
};

int ksym_res__open(struct ksym_res *x, const char *sec, size_t len, size_t head_len,
		   uint32_t buckets, uint32_t mods);
/*
 * ksym_table__find_many() over the section, but out[i].name is names[i] (after
 * any "mod:"): the records keep no whole names. The number found, or -EBADMSG
 * at the first damaged record read.
 */
int ksym_res__find_many(const struct ksym_res *x, const char *const *names, size_t n,
			struct ksym *out);

/*
 * Cache files (ksym_cache.c), shared with the build cache (ksym_build.c): the
 * checksum; dir/name mapped if it is a private regular file of ours at least
 * min bytes long (NULL with errno); the directory made or checked (ours,
 * closed to others); a file written whole or not at all; a mapped table's
 * offsets and chains checked.
 */
uint64_t ksym_sum64(const void *p, size_t len);
struct stat;
char *ksym_cache_map(const char *dir, const char *name, size_t min, struct stat *st,
		     bool populate, bool writable);
int ksym_cache_dir(const char *dir);
/* Written whole or not at all (a temporary renamed); in a cache directory. */
int ksym_cache_write(const char *dir, const char *name, const void *hdr, size_t hlen,
		     const void *pay, size_t plen);
/* The same for a file anywhere (an export). */
int ksym_file_write(const char *dir, const char *name, const void *buf, size_t len);
bool ksym_cache_valid(const struct ksym_table *t, uint64_t nslots);

/*
 * Raw vmlinux BTF (ksym_btf.c): FUNC func's id (0: none; func may be NULL) and,
 * for each of s, whether a struct of that name is there, its size and its
 * fields' byte offsets (-1: none, or a bitfield). -EOPNOTSUPP: a BTF kind
 * newer than this code, so nothing past it can be read.
 */
struct ksym_btf_struct {
	const char *name;
	const char *const *fields;
	size_t field_cnt;
	int *off;
	uint32_t size;
	bool found;
};

int ksym_btf__scan(const char *func, uint32_t *func_id, struct ksym_btf_struct *s, size_t cnt);
/* The same from a BTF file open at fd (read with pread: its offset is left alone). */
int ksym_btf__scan_fd(int fd, const char *func, uint32_t *func_id, struct ksym_btf_struct *s,
		      size_t cnt);

/* len bytes of kernel memory at addr in one segment of kc, whatever len is. */
int ksym_kcore__read_bulk(struct ksym_kcore *kc, uint64_t addr, void *buf, size_t len);

/*
 * A loaded module's symbols as /proc/kallsyms lists them, from the kernel's
 * own tables through kcore (ksym_modlive.c). The offsets are the build's
 * (from its BTF, kept in the build cache); -1 in any: unknown.
 */
enum { KSYM_MOD_NAME, KSYM_MOD_KALLSYMS, KSYM_MODK_SYMTAB, KSYM_MODK_NUM, KSYM_MODK_STRTAB,
       KSYM_MODK_TYPETAB, KSYM_MOD_OFF_CNT };

struct ksym_mod_btf {
	int32_t off[KSYM_MOD_OFF_CNT];
};

/* this kernel's offsets, from its BTF: -EOPNOTSUPP where one is missing */
int ksym_modlive__btf(struct ksym_mod_btf *b);
/*
 * Module mod's text symbols fed to f (its filter applies). -EPERM: its
 * address hidden (kptr_restrict=2); -ESTALE: what kcore holds there is not
 * that module (gone, or offsets of another build); -EBADMSG: tables no
 * kernel makes.
 */
int ksym_modlive__read(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod,
		       struct ksym_feed *f);
/*
 * A module's exports (its mod->syms) as (value, address of the name) pairs
 * sorted by value: with them a symbol's type is cased as /proc/kallsyms cases it.
 */
struct ksym_mod_exports {
	struct ksym_kcore *kc;
	uint64_t *v;
	size_t cnt;
};

/* The same with its struct module at at (the fuzzer's: no sysfs); ex may be NULL. */
int ksym_modlive__read_at(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod,
			  uint64_t at, const struct ksym_mod_exports *ex, struct ksym_feed *f);

/*
 * The running kernel's text symbols from its own tables through kc (ksym_kmem.c;
 * NULL: /proc/kcore opened for it), as /proc/kallsyms lists them but for the
 * trampolines and BPF programs listed after the modules. opts must ask for
 * text only (EINVAL). NULL with errno: EOPNOTSUPP no kallsyms in VMCOREINFO
 * (kernel < 6.0), ENOEXEC a struct layout not known here, EBADMSG tables unlike the
 * kernel's, EPROTO no form of address puts _stext where VMCOREINFO says, ESTALE
 * the module list changed under the walk, EINTR stopped;
 * kcore's own errors.
 */
struct ksym_table *ksym_kmem__load(struct ksym_kcore *kc, const struct ksym_parse_opts *opts);

/*
 * The same, and the addresses of vmlinux's variables named in vars (names of
 * two bytes or more; data, not text), looked up in the same walk: 0 where the
 * kernel has none, UINT64_MAX where it has more than one.
 */
struct ksym_kmem_var {
	const char *name;
	uint64_t addr;
};

struct ksym_table *ksym_kmem__load_vars(struct ksym_kcore *kc, const struct ksym_parse_opts *opts,
					struct ksym_kmem_var *vars, size_t var_cnt);

/*
 * The traceable functions as tracefs' available_filter_functions_addrs lists
 * them (KSYM_FMT_FUNCS_ADDRS: each record's address and its function's name),
 * from ftrace's records in memory through kc (ksym_ftrace.c); opts give only
 * stop. *syms (may be NULL): the kernel's text symbols the names came from.
 * NULL with errno: ksym_kmem__load()'s, and ENODATA no ftrace records (no
 * ftrace_pages_start), ENOEXEC their layout not in the kernel's BTF (or no
 * BTF), ESTALE the records changed under the read (a module loaded or unloaded).
 */
struct ksym_table *ksym_ftrace__load(struct ksym_kcore *kc, const struct ksym_parse_opts *opts,
				     struct ksym_table **syms);

/* Its steps, apart for the unit test: the records' layout from the kernel's BTF, */
#define KSYM_FTRACE_PAGE_MAX 64

struct ksym_ftrace_layout {
	int pg_next, pg_records, pg_index;	/* struct ftrace_page's fields */
	int rec_ip;				/* struct dyn_ftrace's */
	uint32_t pg_size, rec_size;
};

int ksym_ftrace__layout(struct ksym_ftrace_layout *l);
/*
 * every record's address on the chain from head (the address of
 * ftrace_pages_start), sorted (EBADMSG a chain no kernel makes, ESTALE one
 * that changed under the read, EINTR stopped),
 */
int ksym_ftrace__read(struct ksym_kcore *kc, const struct ksym_ftrace_layout *l, uint64_t head,
		      const volatile sig_atomic_t *stop, uint64_t **ips, size_t *cnt);
/*
 * and each named by the text symbol of syms at it or at most bound bytes
 * before it (4 where the kernel has ENDBR64s, else 0; the first of that
 * address's names), into f; a record no function starts at is left out.
 * EBADMSG: records, and none of them a function's.
 */
int ksym_ftrace__name(const struct ksym_table *syms, const uint64_t *ips, size_t n,
		      unsigned int bound, struct ksym_feed *f);

/* kcore's VMCOREINFO note, NUL-terminated (malloc()ed in *text); -ENOENT: none. */
int ksym_kcore__vmcoreinfo(struct ksym_kcore *kc, char **text);

/*
 * This boot's layout (ksym_build.c): the kernel's build ID and where its text
 * and each module's text start now. Everything else about a build is the same
 * at every boot.
 */
#define KSYM_BUILD_ID_MAX 20

struct ksym_layout_mod {
	char name[64];
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;		/* 0: no build ID, never cached */
	uint64_t base;		/* /proc/modules: the start of its text */
	bool loading;		/* its init not done: init text is listed too */
	bool in_file;		/* ksym_build__load(): the file has it, of this build */
};

struct ksym_layout {
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;
	uint64_t text;		/* _text */
	struct ksym_layout_mod *mods;
	size_t mod_cnt;
	/* kernel.kptr_restrict=2: /proc/modules shows every base as 0 (mods' base 0) */
	bool bases_hidden;
	/* the build's struct module layout: stored with the file, read back from it */
	struct ksym_mod_btf mod_btf;
	bool mod_btf_known;
};

/* _text from kc's map of the kernel image where kc is given (no kallsyms read). */
int ksym_layout__live(struct ksym_layout *l, const struct ksym_kcore *kc);
/* The same from /proc/modules' text as read already (one read where a run needs both). */
int ksym_layout__live_from(struct ksym_layout *l, const struct ksym_kcore *kc, const char *modules);
int ksym_cache__live_key_from(struct ksym_cache_key *key, const char *source, const char *modules);
/* The GNU build ID of an ELF notes file (/sys/kernel/notes, a module's note). */
int ksym_build_id_file(const char *path, uint8_t *id, uint8_t *id_len);
/* Where kcore maps the kernel image from: _text; 0 unknown. */
uint64_t ksym_kcore__text_base(const struct ksym_kcore *kc);
void ksym_layout__free(struct ksym_layout *l);

/* Where a text symbol's ftrace site check needs to know what is a trampoline. */
enum { KSYM_ANCHOR_STEXT, KSYM_ANCHOR_ETEXT, KSYM_ANCHOR_SINITTEXT, KSYM_ANCHOR_EINITTEXT,
       KSYM_ANCHOR_FTRACE_CALLER, KSYM_ANCHOR_FTRACE_REGS_CALLER, KSYM_ANCHOR_CNT };

/*
 * The build cache of l's build from dir, rebased onto l: a table of the
 * traceable functions at their ftrace sites, in address order, its index
 * built; anchors[] rebased (0: unknown). A module whose base is hidden is
 * treated as one not loaded: its entries stay unresolved. *unknown: loaded
 * modules the cache has not (or not of this build: in_file false), the first
 * of them named in names; l->mod_btf as the file has it. NULL with errno as
 * ksym_cache__load().
 */
struct ksym_table *ksym_build__load(const char *dir, struct ksym_layout *l,
				    uint64_t anchors[KSYM_ANCHOR_CNT], size_t *unknown, char *names,
				    size_t names_len);
/* t (functions at their sites, this boot's addresses) stored for l's build;
 * -EPERM where l's module bases are hidden (they would be stored as offsets from 0). */
int ksym_build__store(const char *dir, const struct ksym_layout *l, const struct ksym_table *t,
		      const uint64_t anchors[KSYM_ANCHOR_CNT], const char *source);
/* The same two under another file name (NULL: l's build's): a pattern set's file. */
int ksym_build__store_as(const char *dir, const char *file, const struct ksym_layout *l,
			 const struct ksym_table *t, const uint64_t anchors[KSYM_ANCHOR_CNT],
			 const char *source);
struct ksym_table *ksym_build__load_as(const char *dir, const char *file, struct ksym_layout *l,
				       uint64_t anchors[KSYM_ANCHOR_CNT], size_t *unknown,
				       char *names, size_t names_len);
/* A build cache from elsewhere checked as an import checks it (buf 8-aligned). */
bool ksym_build__valid(const char *buf, size_t len);
/*
 * Removes all but the newest keep build caches in dir (keep_name counts as
 * one), the pattern sets' files of those removed, and all but the newest
 * KSYM_MATCH_CACHE_KEEP of the rest.
 */
void ksym_build__prune(const char *dir, const char *keep_name, int keep);
/* Removes all but the keep newest regular files of dir whose names start with prefix. */
void ksym_prune_newest(const char *dir, const char *prefix, size_t keep);
/* l's build's cache file name in the cache directory ("build-<hex id>"). */
void ksym_build__name(const struct ksym_layout *l, char *buf, size_t len);

#endif
