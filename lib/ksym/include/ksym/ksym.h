/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ksym: kernel symbol tables, parsed once, looked up fast.
 *
 * A table is built from one source (/proc/kallsyms, a tracefs function list, a
 * System.map) in a single pass over the file as read, with no per-line
 * allocation and no scanf: only the names are kept, NUL-terminated in one arena
 * (the front of the buffer itself when parsing memory). Entries are kept in
 * address order (symbols at one address in file order).
 *
 * Lookups:
 * - by address: binary search, always available;
 * - by exact name: a linear scan outside a batch, O(1) inside one. A batch
 *   (ksym_table__batch_begin/end, refcounted) builds a hash index of the names on
 *   demand and drops it when the last user ends it, as the kernel series' transient
 *   index does; open a batch around any run of more than a few name lookups;
 * - by glob: '*', '?', '[...]' (ranges, '!' or '^' negation) over names.
 *
 * Every pointer in a struct ksym points into the table and lives as long as it.
 * Functions return negative errno on failure.
 */
#ifndef KSYM_H
#define KSYM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* libksym's version: the tool and the package carry the same one. */
#define KSYM_VERSION_MAJOR 0
#define KSYM_VERSION_MINOR 2
#define KSYM_VERSION_PATCH 0
#define KSYM_VERSION "0.2.0"

/* The version of the library linked in, which may differ from the header's. */
const char *ksym_version(void);

struct ksym_table;

enum ksym_format {
	KSYM_FMT_KALLSYMS,	/* "addr type name[\t[module]]": /proc/kallsyms */
	KSYM_FMT_SYSTEM_MAP,	/* "addr type name": System.map, vmlinux only */
	KSYM_FMT_FUNCS,		/* "name [module]": available_filter_functions */
	KSYM_FMT_FUNCS_ADDRS,	/* "addr name [module]": ..._addrs (Linux >= 6.5) */
	KSYM_FMT_BLACKLIST,	/* "0xstart-0xend\tname [module]": kprobes/blacklist */
};

/* Per-symbol flags. */
enum {
	KSYM_F_UNRESOLVED = 1 << 0,	/* FUNCS entry with no address yet */
	KSYM_F_TRACEABLE = 1 << 1,	/* listed by ftrace */
	KSYM_F_BLACKLISTED = 1 << 2,	/* in the kprobe blacklist */
	KSYM_F_AMBIGUOUS = 1 << 3,	/* joined by name where kallsyms has a different
					   number of same-named functions */
};

struct ksym {
	uint64_t addr;
	uint64_t size;		/* up to the next symbol of the same module; 0 = unknown */
	const char *name;
	const char *module;	/* NULL for vmlinux */
	char type;		/* kallsyms type letter; 0 when the source has none */
	unsigned int flags;	/* KSYM_F_* */
};

#define KSYM_MAX_BAD_LINES 4

struct ksym_parse_stats {
	size_t lines;		/* lines seen */
	size_t symbols;		/* entries kept */
	size_t skipped;		/* well-formed lines deliberately left out */
	size_t malformed;	/* lines that could not be parsed */
	size_t bad_line[KSYM_MAX_BAD_LINES];	/* first malformed line numbers (1-based) */
	bool all_zero;		/* every address was 0: kptr_restrict or no CAP_SYSLOG */
	/*
	 * ksym_table__load(): time spent reading (with a reader thread, until the
	 * file's end arrived) and parsing besides (the rest of it ran meanwhile).
	 */
	uint64_t read_ns;
	uint64_t parse_ns;
};

struct ksym_parse_opts {
	size_t sz;			/* sizeof(struct ksym_parse_opts) */
	struct ksym_parse_stats *stats;	/* out, optional */
	bool text_only;			/* KALLSYMS: keep only t/T/w/W symbols */
	/*
	 * Build the exact-name index while parsing, as if ksym_table__batch_begin()
	 * had been called (pair it with ksym_table__batch_end()): one pass over
	 * the lines instead of a second one over the entries.
	 */
	bool index;
	/*
	 * Keep only symbols whose name starts with one of these (NULL: all): for
	 * a caller that knows what it will look for. Lines left out are not
	 * looked at beyond their first columns.
	 */
	const char *const *prefixes;
	size_t prefix_cnt;
	/*
	 * And (or alone) these exact names ("mod:name" keeps every "name"): a
	 * list resolved once needs no index over the whole table, only a lookup
	 * of each line's name in a small set of its own, as ftrace_lookup_symbols()
	 * does in the kernel.
	 */
	const char *const *names;
	size_t name_cnt;
	/*
	 * Nonzero (a signal handler's flag) stops a load between two pieces of
	 * the file: NULL with errno EINTR, within a piece's read and parse.
	 */
	const volatile sig_atomic_t *stop;
};

/*
 * Bounds on any input, far above any real kernel's (a 6.12 /proc/kallsyms with
 * modules is 7 MiB, its longest line under 600 bytes): a larger file, or one
 * that never ends (a device, a FIFO that keeps writing), fails with -EFBIG
 * once this much is read; a longer line is malformed and skipped without
 * being held in memory.
 */
#define KSYM_INPUT_MAX (256u << 20)
#define KSYM_LINE_MAX 4096

/*
 * Read a whole file (works for procfs/tracefs files that report size 0) into a
 * malloc()ed, NUL-terminated buffer; -EFBIG once more than KSYM_INPUT_MAX, or
 * max for ksym__read_file_max(), is read.
 */
int ksym__read_file(const char *path, char **buf, size_t *len);
int ksym__read_file_max(const char *path, size_t max, char **buf, size_t *len);

/*
 * Parse buf[0..len) and take ownership of buf (malloc()ed; its front becomes
 * the table's names, the rest is given back; freed with the table).
 * Malformed lines are counted in opts->stats and skipped, never guessed at. A
 * KALLSYMS/SYSTEM_MAP/FUNCS_ADDRS source whose addresses are all zero gives
 * -EPERM (stats->all_zero set). Returns NULL with errno set on error.
 */
struct ksym_table *ksym_table__parse(enum ksym_format fmt, char *buf, size_t len,
				     const struct ksym_parse_opts *opts);
/*
 * The same table from a file, read through a small ring of buffers (memory as
 * large as the file is never touched). A file generated as it is read (procfs,
 * tracefs: size 0) or a pipe is read by a second thread a chunk ahead while this
 * one parses (on a machine with more than one CPU). stats->read_ns/parse_ns
 * tell where the time went.
 */
struct ksym_table *ksym_table__load(enum ksym_format fmt, const char *path,
				    const struct ksym_parse_opts *opts);
void ksym_table__free(struct ksym_table *t);

size_t ksym_table__cnt(const struct ksym_table *t);
/* i-th symbol in address order (unresolved FUNCS entries sort first, addr 0). */
int ksym_table__at(const struct ksym_table *t, size_t i, struct ksym *out);

/* Build/drop the exact-name index; nests. Lookups work without it, only slower. */
int ksym_table__batch_begin(struct ksym_table *t);
void ksym_table__batch_end(struct ksym_table *t);

/*
 * Every symbol called name; module NULL matches any, "" vmlinux only, "mod" that
 * module. With module NULL, "mod:name" restricts to mod (kernel names have no
 * ':'). Fills the lowest-addressed max (at most 64) into out, in address order
 * (unresolved entries last), and returns the total count (0: none).
 */
int ksym_table__find(const struct ksym_table *t, const char *name, const char *module,
		     struct ksym *out, size_t max);

/*
 * ksym_table__find(names[i], NULL, &out[i], 1) for every i, with the memory
 * accesses of neighbouring lookups overlapped: for resolving lists of names,
 * inside a batch. out[i].name is NULL where names[i] was not found. Returns the
 * number found.
 */
int ksym_table__find_many(const struct ksym_table *t, const char *const *names, size_t n,
			  struct ksym *out);

/* The symbol containing addr (greatest addr' <= addr); -ENOENT below the first. */
int ksym_table__addr(const struct ksym_table *t, uint64_t addr, struct ksym *out);

/* Calls fn for every symbol whose name matches glob ("mod:glob" restricts to a
 * module, ":glob" to vmlinux), in address order;
 * stops when fn returns nonzero and returns that value, else 0. */
typedef int (*ksym_fn)(const struct ksym *sym, void *ctx);
int ksym_table__match(const struct ksym_table *t, const char *glob, ksym_fn fn, void *ctx);

/* Calls fn for every symbol in name order (ties: address order); stops like
 * ksym_table__match(). Sorts a temporary index: O(n log n) a call. */
int ksym_table__iter_names(const struct ksym_table *t, ksym_fn fn, void *ctx);

/*
 * Give every unresolved FUNCS entry of funcs the address of the same-named text
 * symbol of the same module in kallsyms; the k-th duplicate in funcs takes the
 * k-th in kallsyms (both in address order). Entries with no counterpart stay
 * unresolved; where the counts differ the entries are flagged KSYM_F_AMBIGUOUS.
 * Returns the number still unresolved.
 */
int ksym_table__resolve(struct ksym_table *funcs, struct ksym_table *kallsyms);

/* "name+0x1c/0x150 [mod]" for addr, as the kernel's %pS prints it. */
int ksym__snprint(char *buf, size_t len, const struct ksym *sym, uint64_t addr);

/*
 * The running kernel's symbols through its ksym BPF iterator (Linux >= 6.0): the
 * table /proc/kallsyms would give (same symbols, order, types, modules), with
 * real addresses even where kernel.kptr_restrict=2 shows zeros to root. The
 * filters of opts (text_only, prefixes, names) run in the kernel as well: a
 * symbol they drop is walked, not written. Needs CAP_BPF and CAP_PERFMON (or
 * CAP_SYS_ADMIN). NULL with errno: EOPNOTSUPP no ksym iterator (kernel < 6.0),
 * ENOENT no vmlinux BTF, EPERM a capability missing, EINVAL/EACCES the program
 * refused; the others as ksym_table__load().
 */
struct ksym_table *ksym_table__load_iter(const struct ksym_parse_opts *opts);

/*
 * The running kernel's text symbols from its own compressed table in memory,
 * read through /proc/kcore where its VMCOREINFO note says the table is (Linux
 * >= 6.0), each name expanded only as far as the filters of opts need; the
 * loaded modules' from their struct modules. The text symbols /proc/kallsyms
 * lists (same addresses, types, names, modules, order), but for ftrace's and
 * BPF's trampolines and BPF programs; real addresses whatever
 * kernel.kptr_restrict says. opts->text_only is required (EINVAL). Needs
 * CAP_SYS_RAWIO (root) and no kernel lockdown. NULL with errno: EOPNOTSUPP
 * no table in VMCOREINFO (kernel < 6.0), ENOEXEC struct module not laid out
 * as known here, EBADMSG a table unlike the kernel's, EPROTO no single form of its addresses
 * (absolute, base-relative, with absolute per-CPU, place-relative) puts _stext
 * where VMCOREINFO says, ESTALE the module list changed while it was read,
 * EINTR opts->stop set; EACCES/EPERM kcore refused.
 */
struct ksym_table *ksym_table__load_kmem(const struct ksym_parse_opts *opts);

/* A vmlinux (or any ELF) symbol table, through libelf. */
struct ksym_table *ksym_table__load_elf(const char *path, const struct ksym_parse_opts *opts);

/*
 * Kernel text through /proc/kcore (x86-64, arm64), for where ftrace can attach:
 * reading a few bytes at each candidate function is far cheaper for the kernel
 * than producing tracefs' lists. Needs CAP_SYS_RAWIO; a locked-down kernel
 * refuses it. Candidates read in address order share page-sized reads.
 */
struct ksym_kcore;

struct ksym_kcore *ksym_kcore__open(const char *path);	/* NULL: /proc/kcore */
void ksym_kcore__close(struct ksym_kcore *kc);
/* len <= 64 bytes of kernel memory at addr; -EFAULT where kcore maps none. */
int ksym_kcore__read(struct ksym_kcore *kc, uint64_t addr, void *buf, size_t len);
/* The next read goes to the kernel again (text being patched has changed). */
void ksym_kcore__forget(struct ksym_kcore *kc);
/*
 * The ftrace call site in the first len (>= 9, 12 on arm64) bytes of a
 * function at addr, read as this build's architecture writes it: its offset,
 * or -1 for none (always -1 where this build reads no text). x86-64: 0, or 4
 * past ENDBR64; where the site is a call, or a jmp into the module area (a
 * BPF trampoline of an fexit: something traces the function now), *call is
 * its target, which the caller must check is an ftrace or BPF trampoline. arm64: 4 past the "mov x9, x30" ftrace wrote at the entry, 8
 * with a BTI before it; *call is a call's target, ftrace's mark needing no
 * check. Else *call is 0. -EAGAIN (x86-64): an int3 over what may be a call
 * being patched in or out (*call: where that call goes): read the text again.
 */
int ksym__ftrace_site(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call);

/*
 * The cache: a table with its name index, persisted so that a later run on the
 * same boot skips the kernel's symbol files. A cache file is used only when it is
 * a regular root-owned 0600 file (opened with O_NOFOLLOW) whose magic, version,
 * key and checksum all match; it is written to a temporary file and renamed.
 * The key is the boot id, kernel release and a hash of the loaded modules (names,
 * sizes, addresses), so a module load or unload invalidates it.
 */
#define KSYM_CACHE_DIR "/run/ksymattach"

struct ksym_cache_key {
	char boot_id[40];
	char release[65];
	char source[64];	/* what the table was built from */
	uint64_t modules_hash;
};

/* The key of the running kernel for a table built from source. */
int ksym_cache__live_key(struct ksym_cache_key *key, const char *source);
/*
 * Returns the cached table or NULL with errno: ENOENT (none), ESTALE (another
 * key), EBADMSG (truncated, corrupt, wrong version), EPERM (owner, mode, not a
 * regular file or a symlink). The table is read-only: ksym_table__resolve()
 * refuses it, and its index is always present.
 */
struct ksym_table *ksym_cache__load(const char *dir, const char *name,
				    const struct ksym_cache_key *key);
int ksym_cache__store(const char *dir, const char *name, const struct ksym_cache_key *key,
		      const struct ksym_table *t);
/*
 * The key of a table that holds only a list's names (parsed with
 * ksym_parse_opts.names): base's, with a hash of the list (in its order) added
 * to the source, so that the table answers only that list. An agent that
 * restarts resolves the same names each time; their table is a fraction of the
 * whole one to check and map.
 */
void ksym_cache__list_key(struct ksym_cache_key *key, const struct ksym_cache_key *base,
			  const char *const *names, size_t n);

/*
 * A list's answers (what ksym_table__find_many() gave it; a NULL name: not
 * found) stored in list order, with each query as asked. Loading them for the
 * same list, name for name (any other list: ESTALE), fills out[] as the lookups
 * did: no table is built or mapped, nothing is looked up. The names and modules
 * in out[] live until ksym_answers__free(). Other errors as ksym_cache__load().
 */
struct ksym_answers;

int ksym_cache__store_answers(const char *dir, const char *name, const struct ksym_cache_key *key,
			      const char *const *names, size_t n, const struct ksym *answers);
struct ksym_answers *ksym_cache__load_answers(const char *dir, const char *name,
					      const struct ksym_cache_key *key,
					      const char *const *names, size_t n, struct ksym *out);
void ksym_answers__free(struct ksym_answers *a);

/*
 * A list resolved from a table's cache file (ksym_cache__store()) without
 * loading the table: each name's answer is read from a few lines of the file
 * beside the table, and those lines are checked before they are used (a hit
 * checks its own records, a miss its bucket's), not the whole file first. out[]
 * as ksym_table__find_many() fills it, except that out[i].name is the name as
 * asked (in names[i], after any "mod:"); modules live until ksym_answers__free().
 * A damaged record read on the way fails the whole list: NULL with EBADMSG,
 * out[] undefined; other errors as ksym_cache__load().
 */
struct ksym_answers *ksym_cache__resolve(const char *dir, const char *name,
					 const struct ksym_cache_key *key,
					 const char *const *names, size_t n, struct ksym *out);

/*
 * The build cache: the traceable functions of one kernel build (its build ID,
 * /sys/kernel/notes; each module by its own), kept across boots as offsets
 * from their bases (vmlinux's _text, each module's text), so that the first
 * run of every boot of that build is a warm one. Never a boot's addresses:
 * they would tell a reader of the file the boot's KASLR slide. Checked as the
 * /run cache is (owner, mode, O_NOFOLLOW, magic, version, checksum, offsets);
 * the few newest builds are kept. A rebased function is used only once its
 * ftrace site is found in the kernel text (/proc/kcore) where the file says.
 */
#define KSYM_BUILD_CACHE_DIR "/var/cache/ksymattach"
#define KSYM_BUILD_CACHE_KEEP 4
/*
 * A db given patterns also keeps what they matched, apart from the whole
 * table: /run's funcs-<hash> and the build cache's match-<build id>-<hash>
 * (a build cache of those functions). A later run with the same patterns, in
 * the same order, reads that instead: tens of entries to check and map, not
 * tens of thousands. The newest pattern sets (by use) are kept in each
 * directory: the daemon asks one set per pattern group.
 */
#define KSYM_MATCH_CACHE_KEEP 64

/*
 * The running build's cache from dir (NULL: KSYM_BUILD_CACHE_DIR) to path, a
 * 0600 file written whole: for other nodes that boot the same build. -ENOENT:
 * none yet; -ESTALE, -EBADMSG, -EPERM as ksym_cache__load().
 */
int ksym_build__export(const char *dir, const char *path);
/*
 * path checked whole and installed in dir as the running build's cache:
 * -EBADMSG damaged or not a build cache, -ESTALE another build's.
 */
int ksym_build__import(const char *dir, const char *path);
/* Whether dir holds a usable cache of the running build. */
bool ksym_build__have(const char *dir);

/*
 * The kernel's symbols, as a tracer needs them: the sources chosen, read once,
 * cached across runs. Live sources are the defaults; any explicit file bypasses
 * the cache.
 */
struct ksym_db;

enum {
	KSYM_DB_FUNCS = 1 << 0,		/* traceable functions, with addresses */
	KSYM_DB_KALLSYMS = 1 << 1,	/* every symbol (sym and addr queries) */
	KSYM_DB_BLACKLIST = 1 << 2,	/* flag blacklisted functions */
};

enum ksym_phase {
	KSYM_PH_READ,		/* reading files (or the cache) */
	KSYM_PH_PARSE,
	KSYM_PH_INDEX,		/* name index, funcs/kallsyms join, cache check */
	KSYM_PH_STORE,		/* writing the cache (ksym_db__flush) */
	KSYM_PH_CNT,
};

struct ksym_db_opts {
	size_t sz;			/* sizeof(struct ksym_db_opts) */
	unsigned int need;		/* KSYM_DB_* */
	const char *kallsyms_path;	/* NULL: /proc/kallsyms */
	const char *system_map_path;	/* a System.map instead of kallsyms */
	const char *vmlinux_path;	/* an ELF symbol table instead of kallsyms */
	const char *funcs_path;		/* available_filter_functions format */
	const char *funcs_addrs_path;	/* available_filter_functions_addrs format */
	const char *blacklist_path;	/* NULL: debugfs kprobes/blacklist */
	const char *tracefs_path;	/* NULL: /sys/kernel/tracing, then debugfs */
	const char *cache_dir;		/* NULL: KSYM_CACHE_DIR */
	bool no_cache;
	/*
	 * Without readable tracefs lists, serve FUNCS from kallsyms text symbols,
	 * traceability unknown (ksym_db__traceability_known() is false), with a
	 * warning; without it that is an error. Attaching needs the lists.
	 */
	bool allow_unknown_traceability;
	/*
	 * Where traceable functions come from (live sources only). AUTO: kallsyms
	 * checked through kcore where it can be read (x86-64 and arm64, not
	 * locked down),
	 * else tracefs; for a whole table, ftrace's records in memory first.
	 */
	enum ksym_funcs_from {
		KSYM_FUNCS_AUTO,
		KSYM_FUNCS_TRACEFS,	/* available_filter_functions[_addrs] */
		KSYM_FUNCS_KALLSYMS,	/* /proc/kallsyms text + call sites in /proc/kcore */
		KSYM_FUNCS_FTRACE,	/* ftrace's records and the kernel's table, in memory */
	} funcs_from;
	/*
	 * The globs the caller will match (mod:glob as for ksym_table__match), or
	 * none: a table read fresh may then hold only what they can match, and
	 * only what they match is cached when flushing (the whole table only
	 * where it was read whole).
	 */
	const char *const *patterns;
	size_t pattern_cnt;
	bool verbose;			/* also report stale caches and skipped lines */
	/* Warnings (one line, no newline); NULL: "ksym: warning: ..." on stderr. */
	void (*warn)(const char *msg);
	/*
	 * With kallsyms_path: a core file of the kernel that file comes from
	 * (offline checks of a captured pair, tests), read as /proc/kcore is for
	 * the live kernel: FUNCS from its text symbols and call sites. Never
	 * cached.
	 */
	const char *kcore_path;
	/* As ksym_parse_opts.stop, for every file the load reads: -EINTR. */
	const volatile sig_atomic_t *stop;
	/*
	 * FUNCS from the cache or not at all (-ENOENT): for callers that must
	 * answer in milliseconds, such as shell completion, and would rather
	 * answer nothing than read the kernel's files. The /run cache, else the
	 * build cache: the whole table, where a run read it whole (or what the
	 * patterns matched, where a run with them kept it).
	 */
	bool cache_only;
	/*
	 * The build cache's directory (NULL: KSYM_BUILD_CACHE_DIR); no_cache skips
	 * it too. no_build_cache: not read (it was found wrong), written anew.
	 */
	const char *build_cache_dir;
	bool no_build_cache;
	/*
	 * Neither read nor write the /run cache, only the build cache: a boot's
	 * first run, measured on any later one (--compare's ksym-boot row).
	 */
	bool no_run_cache;
	/*
	 * Where the live symbol table comes from. AUTO: for text symbols the
	 * kernel's table in memory (ksym_table__load_kmem) where it can be read,
	 * else the ksym BPF iterator (ksym_table__load_iter), else /proc/kallsyms
	 * (a verbose warning says why at each step); ITER, KMEM: that source or
	 * an error.
	 */
	enum ksym_syms_from {
		KSYM_SYMS_AUTO,
		KSYM_SYMS_ITER,
		KSYM_SYMS_KALLSYMS,
		KSYM_SYMS_KMEM,
	} syms_from;
	/*
	 * Verbose lines that say which way the load went, not that something is
	 * wrong: a source this kernel does not have, passed over (one line, no
	 * newline). NULL: "ksym: ..." on stderr.
	 */
	void (*note)(const char *msg);
	/* Where the kernel's BTF objects are (NULL: /sys/kernel/btf). */
	const char *btf_dir;
};

struct ksym_db *ksym_db__new(const struct ksym_db_opts *opts);
/* Loads what opts->need asks for; on error ksym_db__errmsg() says why. */
int ksym_db__load(struct ksym_db *db);
/* Loads what need adds to opts->need, once it is known to be needed. */
int ksym_db__load_more(struct ksym_db *db, unsigned int need);
/*
 * Writes the caches the load built. Deferred so that a tracer can attach first:
 * call it once the time-critical part is done; ksym_db__free() calls it too.
 */
void ksym_db__flush(struct ksym_db *db);
void ksym_db__free(struct ksym_db *db);

struct ksym_table *ksym_db__funcs(const struct ksym_db *db);
struct ksym_table *ksym_db__kallsyms(const struct ksym_db *db);
/* "available_filter_functions_addrs", "available_filter_functions+kallsyms", ... */
const char *ksym_db__funcs_source(const struct ksym_db *db);
bool ksym_db__traceability_known(const struct ksym_db *db);
/*
 * Where ftrace attaches to the function sym (from FUNCS or KALLSYMS): 1 with
 * *loc set (the symbol, or past its ENDBR64), 0 when it cannot be traced, a
 * negative errno when that is unknown. FUNCS entries of a kallsyms+kcore db are
 * only candidates: ask this before handing one to the kernel. -ESTALE: FUNCS
 * came from the build cache and this function's site is not where it says;
 * the file is gone, and a db loaded again reads the kernel's symbols
 * (ksym_db__each_match() and ksym_db__sites() do that themselves).
 */
int ksym_db__ftrace_loc(struct ksym_db *db, const struct ksym *sym, uint64_t *loc);

/* A function a pattern matched, and where ftrace attaches to it. */
struct ksym_site {
	struct ksym sym;
	uint64_t loc;		/* the site (the symbol's address where traceability is unknown) */
	int site;		/* 1: a site at loc; 0: none, no function the kernel traces;
				 * -ENODATA: traceability unknown */
	size_t pattern;		/* which of opts.patterns matched it */
	/*
	 * The function's own address, kallsyms' (loc is at it or just past
	 * it): what bpftool names in a link, and what kprobe.multi maps to the
	 * site itself. 0 where the db does not know it (a source that lists
	 * sites only, such as tracefs' available_filter_functions_addrs).
	 */
	uint64_t entry;
};

typedef int (*ksym_site_fn)(const struct ksym_site *s, void *ctx);

/*
 * Every function opts.patterns match, pattern by pattern, with its site as
 * ksym_db__ftrace_loc() finds it, to fn (FUNCS loaded first where they are
 * not). A build cache found wrong on the way is dealt with here: its file is
 * removed and FUNCS are loaded again, cold, before fn has seen a function.
 * fn's error stops the walk and is returned; on an error of the walk's own,
 * ksym_db__errmsg() says why.
 */
int ksym_db__each_match(struct ksym_db *db, ksym_site_fn fn, void *ctx);
/*
 * The addresses of every function opts.patterns match, sorted and each once,
 * as bpf_kprobe_multi_opts.addrs takes them: each function's own address
 * where the db knows it (struct ksym_site.entry: the kernel maps it to the
 * ftrace site, and bpftool names it in the link), else its site.
 * malloc()ed in *addrs (the caller frees it), *cnt of them. -ENOENT where no
 * traceable function matches.
 */
int ksym_db__sites(struct ksym_db *db, unsigned long **addrs, size_t *cnt);

/*
 * tracing_multi links (fentry.multi, fexit.multi, fsession.multi) take BTF
 * FUNC ids, not addresses, one link per BTF object, and the kernel looks each
 * id's name up in kallsyms itself: a name held twice finds the first. Why a
 * function a pattern matched is left out of such a link:
 */
enum ksym_btf_verdict {
	KSYM_BTF_OK,
	KSYM_BTF_NO_SITE,	/* no ftrace site: the kernel refuses the whole link */
	KSYM_BTF_NO_BTF,	/* no FUNC of its name in its object's BTF (a clone, asm) */
	KSYM_BTF_PROTO,		/* a trampoline cannot take its prototype */
	KSYM_BTF_UNSAFE,	/* a trampoline on it recurses or the kernel denies it */
	KSYM_BTF_NORETURN,	/* never returns: no fexit or fsession */
	KSYM_BTF_OTHER,		/* its name finds another function in kallsyms */
	KSYM_BTF_AMBIGUOUS,	/* a module's name held twice: which one is unknown */
	KSYM_BTF_SAME,		/* its id is in the link already (an alias, two patterns) */
	KSYM_BTF_NO_OBJECT,	/* its module has no BTF */
	KSYM_BTF_TWICE,		/* its object's BTF has two FUNCs of its name */
	KSYM_BTF_VERDICT_CNT,
};

/* A function a pattern matched, and what a tracing_multi link makes of it. */
struct ksym_btf_func {
	struct ksym_site site;		/* as ksym_db__each_match() gives it */
	uint32_t id;			/* its BTF FUNC id in its object; 0: none */
	enum ksym_btf_verdict verdict;
	unsigned int kallsyms_cnt;	/* symbols of its name in its object (> 1: held twice) */
	const char *why;		/* the verdict in words */
};

typedef int (*ksym_btf_fn)(const struct ksym_btf_func *f, void *ctx);

enum {
	KSYM_BTF_RETURN = 1 << 0,	/* attached at return too: fexit, fsession */
};

/*
 * Every function opts.patterns match, as ksym_db__each_match() walks them,
 * with its BTF id and verdict, to fn. Loads KALLSYMS (the kernel's lookup by
 * name is checked against it) and the BTF of vmlinux and of each module a
 * match is in.
 */
int ksym_db__each_btf(struct ksym_db *db, unsigned int flags, ksym_btf_fn fn, void *ctx);

/* One tracing_multi link's worth: the ids of one BTF object. */
struct ksym_btf_ids {
	const char *module;		/* NULL: vmlinux */
	uint32_t *ids;			/* sorted, each once */
	size_t cnt;
};

/*
 * The ids of every function opts.patterns match whose verdict is OK, one set
 * per BTF object (vmlinux's first), as link_create.tracing_multi takes them.
 * -ENOENT where none is OK. Free with ksym_btf_ids__free().
 */
int ksym_db__btf_ids(struct ksym_db *db, unsigned int flags, struct ksym_btf_ids **sets,
		     size_t *cnt);
void ksym_btf_ids__free(struct ksym_btf_ids *sets, size_t cnt);

/* In the kprobe blacklist (needs KSYM_DB_BLACKLIST; false when unknown). */
bool ksym_db__blacklisted(const struct ksym_db *db, uint64_t addr);
bool ksym_db__blacklist_known(const struct ksym_db *db);
/* FUNCS rebased from the build cache (the first run of a boot of a known build). */
bool ksym_db__from_build_cache(const struct ksym_db *db);
/* Whether FUNCS / KALLSYMS came from the cache. */
bool ksym_db__from_cache(const struct ksym_db *db, unsigned int which);
uint64_t ksym_db__phase_ns(const struct ksym_db *db, enum ksym_phase ph);
const char *ksym_db__errmsg(const struct ksym_db *db);

/*
 * Whether this process has capability cap (<linux/capability.h>) in effect, as
 * /proc/self/status says; for errors that name the one missing. True where it
 * cannot tell.
 */
bool ksym__capable(int cap);

/*
 * The kernel's lockdown level, as /sys/kernel/security/lockdown says: "none",
 * "integrity" or "confidentiality" (which refuses /proc/kcore, tracefs, BPF
 * reads of kernel memory and classic kprobes, not kprobe.multi); NULL where it
 * cannot tell (no securityfs, no lockdown LSM).
 */
const char *ksym__lockdown(void);

/* glob(3)-style match of one string; exported for callers and tests. */
bool ksym_glob_match(const char *glob, const char *str);
/* True when glob has no wildcard, so an exact lookup can serve it. */
bool ksym_glob_is_literal(const char *glob);
/* True when pattern is one function's name: no wildcard and no "mod:" part. */
bool ksym_glob_is_name(const char *pattern);

/* The longest function name (KSYM_NAME_LEN - 1) and "mod:" part a pattern may have. */
#define KSYM_GLOB_NAME_MAX 511
#define KSYM_GLOB_MODULE_MAX 63

/*
 * Whether pattern ("glob", "mod:glob" or ":glob") can match a kernel function
 * at all: 0, or -EINVAL and why in why (cut to why_sz; why may be NULL):
 * whitespace, a character no function name has, a glob as the module part,
 * a bracket expression that matches none of a name's characters.
 */
int ksym_glob_check(const char *pattern, char *why, size_t why_sz);

#endif
