// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymattach: attach kprobe.multi / kprobe.session programs to kernel functions
 * resolved in userspace, and report where the attach time goes.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "attach.h"
#include "bench.h"
#include "compare.h"
#include "cache.h"
#include "patterns.h"
#include "query.h"
#include "report.h"
#include "service.h"
#include "watchcmd.h"

/* The config's default place, under the SYSCONFDIR the package builds with. */
#define KSA_CONFIG_DEFAULT KSA_SYSCONFDIR "/ksymattach/ksymattach.conf"

#define MAX_ARGS 4096

enum command {
	CMD_ATTACH,	/* default: -p GLOB ... */
	CMD_SYM,
	CMD_ADDR,
	CMD_BENCH,
	CMD_RESOLVE,	/* resolve PATTERN...: addresses for scripts */
	CMD_COMPLETE,	/* complete PREFIX: shell completion, from the cache */
	CMD_BOOT,	/* the boot measurement (ksymattach-boot.service) */
	CMD_DAEMON,	/* ksymattach.service */
	CMD_CHECK_CONFIG,
	CMD_CACHE,	/* the build cache: export, import */
	CMD_WATCH,	/* every process's attach, seen from the kernel */
	CMD_BOOT_WATCH,	/* ksymattach-watch.service */
};

/* Options given on the command line, which override the config file's keys. */
enum {
	GIVEN_MODE = 1 << 0,
	GIVEN_RESOLVER = 1 << 1,
	GIVEN_FALLBACK = 1 << 2,
	GIVEN_LINKS = 1 << 3,
	GIVEN_DURATION = 1 << 4,
	GIVEN_TOP = 1 << 5,
};

static struct env {
	enum command cmd;
	struct patterns patterns;
	const char *args[MAX_ARGS];	/* sym/addr operands */
	size_t arg_cnt;
	double duration;
	bool list;
	bool compare;
	bool kernel_model;
	bool verbose;
	bool no_cache;
	enum report_format format;
	enum kattach_mode mode;
	enum kattach_resolver resolver;
	enum kattach_fallback fallback;
	size_t link_batch;
	size_t top;
	size_t max_procs;	/* watch */
	const char *kallsyms;
	const char *system_map;
	const char *vmlinux;
	const char *funcs;
	const char *funcs_addrs;
	enum ksym_funcs_from funcs_from;
	enum ksym_syms_from syms_from;
	const char *blacklist;
	const char *cache_dir;
	const char *build_cache_dir;
	const char *config;
	unsigned int given;	/* GIVEN_* */
	int rounds;
	size_t lookups;
	const char *rss_probe;
	bool rss_probe_ref;
	const char *cold_probe, *cold_names;
} env = {
	.top = 20,
};

const char *argp_program_version = "ksymattach " KSA_VERSION;
static const char args_doc[] =
	"[sym NAME... | addr ADDR... | resolve PATTERN... | bench [FILE...] | boot | daemon |\n"
	"cache export FILE | cache import FILE... | watch | boot-watch]";
static const char doc[] =
"Attach BPF kprobes to kernel functions by address, resolved in userspace.\n"
"\n"
"USAGE: ksymattach -p GLOB [-p GLOB ...] [-d SECONDS] [-o json]\n"
"       ksymattach sym NAME...      ksymattach addr ADDR...\n"
"       ksymattach resolve PATTERN... [-o json]\n"
"       ksymattach boot|daemon|boot-watch [--config FILE]\n"
"       ksymattach --check-config [FILE]\n"
"       ksymattach cache export FILE             ksymattach cache import FILE...\n"
"       ksymattach watch [-d SECONDS] [-o text|json|prom]\n"
"\n"
"EXAMPLES:\n"
"    ksymattach -p 'vfs_*'            # attach, report phase times, detach\n"
"    ksymattach -p 'vfs_*' -d 5       # count hits for 5 seconds\n"
"    ksymattach -l -p 'tcp_v4_*'      # list the matching functions only\n"
"    ksymattach sym vfs_read 9p:v9fs_set_super\n"
"    ksymattach addr ffffffff81234567 -o json\n"
"    ksymattach resolve 'tcp_*'       # one address a line, for scripts\n"
"    ksymattach bench                 # lookup layer vs the fscanf method\n"
"    ksymattach watch -d 60           # which process attached what, and its stall\n";

enum {
	OPT_KALLSYMS = 0x100,
	OPT_SYSTEM_MAP,
	OPT_VMLINUX,
	OPT_FUNCS,
	OPT_FUNCS_ADDRS,
	OPT_BLACKLIST,
	OPT_NO_CACHE,
	OPT_CACHE_DIR,
	OPT_ROUNDS,
	OPT_LOOKUPS,
	OPT_RSS_PROBE,
	OPT_RSS_PROBE_REF,
	OPT_COLD_PROBE,
	OPT_COLD_NAMES,
	OPT_LINK_PER_FUNC,
	OPT_BATCH,
	OPT_COMPARE,
	OPT_FALLBACK,
	OPT_NO_FALLBACK,
	OPT_KERNEL_MODEL,
	OPT_SOURCE,
	OPT_CONFIG,
	OPT_CHECK_CONFIG,
	OPT_BUILD_CACHE_DIR,
	OPT_MAX_PROCS,
};

static const struct argp_option opts[] = {
	{ "pattern", 'p', "GLOB", 0, "Function name or glob ('*', '?', '[..]'); "
				     "'mod:name' for a module; @FILE: one per line; repeatable", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stay attached this long (0: attach and detach)", 0 },
	{ "list", 'l', NULL, 0, "Resolve and list the matching functions, attach nothing", 0 },
	{ "mode", 'm', "MODE", 0, "multi (kprobe.multi, default), session (kprobe.session), "
				  "fentry, fexit or fsession (their .multi links: Linux >= 7.2)", 0 },
	{ "output", 'o', "FORMAT", 0, "text (default), json or prom (Prometheus)", 0 },
	{ "resolver", 'r', "R", 0, "ksym (default: addresses), libbpf (stock libbpf resolves) "
				   "or kernel (names to the kernel)", 0 },
	{ "link-per-func", OPT_LINK_PER_FUNC, NULL, 0, "One link per function", 0 },
	{ "batch", OPT_BATCH, "N", 0, "N functions per link", 0 },
	{ "fallback", OPT_FALLBACK, "kprobe", 0, "Classic kprobes, one per function, even where "
						 "kprobe.multi exists (automatic where it does not)", 0 },
	{ "no-fallback", OPT_NO_FALLBACK, NULL, 0, "Fail where kprobe.multi is missing", 0 },
	{ "compare", OPT_COMPARE, NULL, 0, "Attach and detach with every resolver in turn "
					   "(--rounds, default 5) and compare the phases", 0 },
	{ "top", 'n', "N", 0, "Text output: show the N busiest functions (default 20, 0: all)", 0 },
	{ "kallsyms", OPT_KALLSYMS, "FILE", 0, "Symbols from FILE, not /proc/kallsyms", 1 },
	{ "system-map", OPT_SYSTEM_MAP, "FILE", 0, "Symbols from a System.map", 1 },
	{ "vmlinux", OPT_VMLINUX, "FILE", 0, "Symbols from an ELF symbol table (vmlinux)", 1 },
	{ "funcs", OPT_FUNCS, "FILE", 0, "Traceable functions from FILE "
					 "(available_filter_functions format)", 1 },
	{ "funcs-addrs", OPT_FUNCS_ADDRS, "FILE", 0, "Traceable functions with addresses from "
						     "FILE (available_filter_functions_addrs)", 1 },
	{ "source", OPT_SOURCE, "kmem|iter|kallsyms|tracefs|ftrace", 0, "Traceable functions from "
		"the kernel's symbols checked in /proc/kcore, read from the kernel's table in its "
		"memory, through the ksym BPF iterator or from /proc/kallsyms; from tracefs' "
		"lists; or from ftrace's records in memory (default: kmem, else the iterator, else "
		"kallsyms, where kcore is readable; ftrace's records for the whole kernel)", 1 },
	{ "blacklist", OPT_BLACKLIST, "FILE", 0, "kprobe blacklist from FILE", 1 },
	{ "no-cache", OPT_NO_CACHE, NULL, 0, "Neither read nor write the symbol cache "
					     "(" KSYM_CACHE_DIR ")", 1 },
	{ "cache-dir", OPT_CACHE_DIR, "DIR", OPTION_HIDDEN, "Cache directory (tests)", 1 },
	{ "max-procs", OPT_MAX_PROCS, "N", OPTION_HIDDEN, "watch: records kept at most (tests)", 1 },
	{ "build-cache-dir", OPT_BUILD_CACHE_DIR, "DIR", OPTION_HIDDEN,
	  "Build cache directory (tests)", 1 },
	{ "config", OPT_CONFIG, "FILE", 0, "boot, daemon, boot-watch: the config file (default "
					   KSA_CONFIG_DEFAULT "); options given here override it", 2 },
	{ "check-config", OPT_CHECK_CONFIG, NULL, 0, "Check the config file (operand, or "
						     "--config, or the default) and exit: 0 or 78", 2 },
	{ "rounds", OPT_ROUNDS, "N", 0, "bench, --compare: medians over N rounds (default 5)", 2 },
	{ "lookups", OPT_LOOKUPS, "N", 0, "bench: lookups a round (default 10000)", 2 },
	{ "kernel-model", OPT_KERNEL_MODEL, NULL, 0, "bench: the kernel's kallsyms table and the "
						     "lookup series' variants, rebuilt from FILE", 2 },
	{ "rss-probe", OPT_RSS_PROBE, "FILE", OPTION_HIDDEN, "bench helper", 2 },
	{ "rss-probe-ref", OPT_RSS_PROBE_REF, "FILE", OPTION_HIDDEN, "bench helper", 2 },
	{ "cold-probe", OPT_COLD_PROBE, "MODE", OPTION_HIDDEN, "bench helper", 2 },
	{ "cold-names", OPT_COLD_NAMES, "FILE", OPTION_HIDDEN, "bench helper", 2 },
	{ "verbose", 'v', NULL, 0, "Verbose output, including libbpf's log", 2 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 2 },
	{},
};

/* One line, exit 64 (EX_USAGE), as argp would but without its second line. */
static void __attribute__((format(printf, 2, 3), noreturn))
usage_error(struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", state->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	exit(64);
}

/* -p GLOB, or -p @FILE: a file of them (patterns.c). */
static void add_pattern(struct argp_state *state, const char *arg)
{
	char why[640];
	int err;

	if (!*arg)
		usage_error(state, "empty pattern");
	if (arg[0] == '@') {
		if (!arg[1])
			usage_error(state, "-p @FILE: no file named");
		if (patterns__read_file(&env.patterns, arg + 1, why, sizeof(why)))
			usage_error(state, "%s", why);
		return;
	}
	/* the config's own check: a pattern no function name can match says why */
	if (ksym_glob_check(arg, why, sizeof(why)))
		usage_error(state, "pattern '%s' can never match: %s", arg, why);
	err = patterns__add(&env.patterns, arg);
	if (err)
		usage_error(state, "%s", err == -E2BIG ? "too many patterns" : strerror(-err));
}

static const struct {
	const char *name;
	enum command cmd;
} commands[] = {
	{ "sym", CMD_SYM },		{ "addr", CMD_ADDR },	{ "bench", CMD_BENCH },
	{ "resolve", CMD_RESOLVE },	{ "complete", CMD_COMPLETE },
	{ "boot", CMD_BOOT },		{ "daemon", CMD_DAEMON },	{ "cache", CMD_CACHE },
	{ "watch", CMD_WATCH },		{ "boot-watch", CMD_BOOT_WATCH },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case 'p':
		add_pattern(state, arg);
		break;
	case 'd':
		errno = 0;
		env.duration = strtod(arg, &end);
		if (errno || *end || env.duration < 0 || env.duration > 31536000)
			usage_error(state, "invalid duration '%s'", arg);
		env.given |= GIVEN_DURATION;
		break;
	case 'l':
		env.list = true;
		break;
	case 'm':
		env.given |= GIVEN_MODE;
		if (!strcmp(arg, "multi"))
			env.mode = KATTACH_MULTI;
		else if (!strcmp(arg, "session"))
			env.mode = KATTACH_SESSION;
		else if (!strcmp(arg, "fentry"))
			env.mode = KATTACH_FENTRY;
		else if (!strcmp(arg, "fexit"))
			env.mode = KATTACH_FEXIT;
		else if (!strcmp(arg, "fsession"))
			env.mode = KATTACH_FSESSION;
		else
			usage_error(state, "invalid mode '%s' (multi, session, fentry, fexit or fsession)",
				    arg);
		break;
	case 'o':
		if (!strcmp(arg, "text"))
			env.format = REPORT_TEXT;
		else if (!strcmp(arg, "json"))
			env.format = REPORT_JSON;
		else if (!strcmp(arg, "prom"))
			env.format = REPORT_PROM;
		else
			usage_error(state, "invalid output format '%s' (text, json or prom)", arg);
		break;
	case 'r':
		env.given |= GIVEN_RESOLVER;
		if (!strcmp(arg, "ksym"))
			env.resolver = KATTACH_RES_KSYM;
		else if (!strcmp(arg, "libbpf"))
			env.resolver = KATTACH_RES_LIBBPF;
		else if (!strcmp(arg, "kernel"))
			env.resolver = KATTACH_RES_KERNEL;
		else
			usage_error(state, "invalid resolver '%s' (ksym, libbpf or kernel)", arg);
		break;
	case OPT_FALLBACK:
		if (strcmp(arg, "kprobe"))
			usage_error(state, "invalid fallback '%s' (kprobe)", arg);
		env.fallback = KATTACH_FALLBACK_KPROBE;
		env.given |= GIVEN_FALLBACK;
		break;
	case OPT_NO_FALLBACK:
		env.fallback = KATTACH_FALLBACK_NEVER;
		env.given |= GIVEN_FALLBACK;
		break;
	case OPT_KERNEL_MODEL:
		env.kernel_model = true;
		break;
	case OPT_COMPARE:
		env.compare = true;
		break;
	case OPT_LINK_PER_FUNC:
		env.link_batch = 1;
		env.given |= GIVEN_LINKS;
		break;
	case OPT_BATCH:
		errno = 0;
		env.link_batch = strtoul(arg, &end, 10);
		/* a kprobe.multi link takes at most 1 << 20 (MAX_KPROBE_MULTI_CNT) */
		if (errno || *end || !env.link_batch || *arg == '-' || env.link_batch > (1u << 20))
			usage_error(state, "invalid batch size '%s' (1..1048576)", arg);
		env.given |= GIVEN_LINKS;
		break;
	case 'n':
		errno = 0;
		env.top = strtoul(arg, &end, 10);
		if (errno || *end || *arg == '-')
			usage_error(state, "invalid count '%s'", arg);
		env.given |= GIVEN_TOP;
		break;
	case OPT_KALLSYMS: env.kallsyms = arg; break;
	case OPT_SYSTEM_MAP: env.system_map = arg; break;
	case OPT_VMLINUX: env.vmlinux = arg; break;
	case OPT_FUNCS: env.funcs = arg; break;
	case OPT_FUNCS_ADDRS: env.funcs_addrs = arg; break;
	case OPT_BLACKLIST: env.blacklist = arg; break;
	case OPT_SOURCE:
		if (!strcmp(arg, "kmem")) {
			env.funcs_from = KSYM_FUNCS_KALLSYMS;
			env.syms_from = KSYM_SYMS_KMEM;
		} else if (!strcmp(arg, "iter")) {
			env.funcs_from = KSYM_FUNCS_KALLSYMS;
			env.syms_from = KSYM_SYMS_ITER;
		} else if (!strcmp(arg, "kallsyms")) {
			env.funcs_from = KSYM_FUNCS_KALLSYMS;
			env.syms_from = KSYM_SYMS_KALLSYMS;
		} else if (!strcmp(arg, "tracefs")) {
			env.funcs_from = KSYM_FUNCS_TRACEFS;
		} else if (!strcmp(arg, "ftrace")) {
			env.funcs_from = KSYM_FUNCS_FTRACE;
		} else {
			usage_error(state, "invalid source '%s' (kmem, iter, kallsyms, tracefs or ftrace)",
				    arg);
		}
		break;
	case OPT_NO_CACHE: env.no_cache = true; break;
	case OPT_CONFIG: env.config = arg; break;
	case OPT_CHECK_CONFIG: env.cmd = CMD_CHECK_CONFIG; break;
	case OPT_CACHE_DIR: env.cache_dir = arg; break;
	case OPT_BUILD_CACHE_DIR: env.build_cache_dir = arg; break;
	case OPT_MAX_PROCS:
		errno = 0;
		env.max_procs = strtoul(arg, &end, 10);
		if (errno || *end || !env.max_procs || *arg == '-' || env.max_procs > 1000000)
			usage_error(state, "invalid record count '%s' (1..1000000)", arg);
		break;
	case OPT_ROUNDS:
		env.rounds = strtol(arg, &end, 10);
		if (*end || env.rounds < 1 || env.rounds > 64)
			usage_error(state, "invalid round count '%s' (1..64)", arg);
		break;
	case OPT_LOOKUPS:
		env.lookups = strtoul(arg, &end, 10);
		if (*end || !env.lookups || *arg == '-')
			usage_error(state, "invalid lookup count '%s'", arg);
		break;
	case OPT_RSS_PROBE: env.rss_probe = arg; break;
	case OPT_RSS_PROBE_REF: env.rss_probe = arg; env.rss_probe_ref = true; break;
	case OPT_COLD_PROBE: env.cold_probe = arg; break;
	case OPT_COLD_NAMES: env.cold_names = arg; break;
	case 'v':
		env.verbose = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0 && !env.patterns.cnt) {
			size_t i;

			for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(arg, commands[i].name))
					break;
			if (i < sizeof(commands) / sizeof(commands[0]))
				env.cmd = commands[i].cmd;
			else if (env.cmd == CMD_CHECK_CONFIG && !env.config)
				env.config = arg;
			else
				usage_error(state, "unknown command '%s' (sym, addr, resolve, bench, "
					    "boot, daemon, cache, watch or boot-watch)", arg);
			break;
		}
		if (env.cmd == CMD_BOOT || env.cmd == CMD_DAEMON || env.cmd == CMD_BOOT_WATCH)
			usage_error(state, "unexpected argument '%s'", arg);
		if (env.cmd == CMD_CHECK_CONFIG) {
			if (env.config)
				usage_error(state, "--check-config takes one file");
			env.config = arg;
			break;
		}
		if (env.cmd == CMD_ATTACH || env.cmd == CMD_WATCH)
			usage_error(state, "unexpected argument '%s'", arg);
		if (env.cmd == CMD_RESOLVE) {
			add_pattern(state, arg);
			break;
		}
		if (env.arg_cnt == MAX_ARGS)
			usage_error(state, "at most %d operands", MAX_ARGS);
		env.args[env.arg_cnt++] = arg;
		break;
	case ARGP_KEY_END:
		if ((env.cmd == CMD_ATTACH || env.cmd == CMD_RESOLVE) && !env.patterns.cnt)
			usage_error(state, "no function pattern given (-p GLOB)");
		if (env.config && env.cmd != CMD_BOOT && env.cmd != CMD_DAEMON &&
		    env.cmd != CMD_BOOT_WATCH && env.cmd != CMD_CHECK_CONFIG)
			usage_error(state, "--config is for boot, daemon, boot-watch and "
					   "--check-config");
		if (kattach__mode_is_tracing(env.mode) && (env.fallback == KATTACH_FALLBACK_KPROBE ||
							   env.cmd != CMD_ATTACH))
			usage_error(state, "-m fentry, fexit and fsession attach by hand only: no "
					   "classic kprobes or service for them yet");
		if (env.cmd == CMD_WATCH && (env.patterns.cnt || env.compare || env.list))
			usage_error(state, "watch takes no pattern, --compare or -l: it watches "
					   "every process");
		if (env.cmd == CMD_COMPLETE && env.arg_cnt != 1)
			usage_error(state, "complete takes one prefix");
		if ((env.cmd == CMD_SYM || env.cmd == CMD_ADDR) && !env.arg_cnt)
			usage_error(state, "%s needs at least one operand",
				    env.cmd == CMD_SYM ? "sym" : "addr");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	/* Without -v errors are ours to word: libbpf stays quiet. */
	if (!env.verbose)
		return 0;
	(void)level;
	return vfprintf(stderr, format, args);
}

static void warn_fn(const char *msg)
{
	fprintf(stderr, "ksymattach: warning: %s\n", msg);
}

static void note_fn(const char *msg)
{
	fprintf(stderr, "ksymattach: %s\n", msg);
}

static volatile sig_atomic_t exiting, reloading;

static void sig_handler(int sig)
{
	if (sig == SIGHUP)
		reloading = 1;
	else
		exiting = sig;
}

/* -p given: the command line's patterns in place of the file's. */
static int override_patterns(struct ksa_config *c)
{
	char **v = calloc(env.patterns.cnt, sizeof(*v));
	size_t i;

	for (i = 0; v && i < env.patterns.cnt; i++) {
		v[i] = strdup(env.patterns.v[i]);
		if (!v[i]) {
			while (i)
				free(v[--i]);
			free(v);
			v = NULL;
		}
	}
	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->pattern_cnt; i++)
		free(c->patterns[i]);
	free(c->patterns);
	free(c->pattern_lines);
	c->pattern_lines = NULL;
	c->patterns = v;
	c->pattern_cnt = env.patterns.cnt;
	return 0;
}

/* The command line over the config: -p replaces its patterns, the rest a key each. */
static void override_config(struct ksa_config *c, void *ctx)
{
	(void)ctx;
	if (env.patterns.cnt && override_patterns(c))
		fprintf(stderr, "ksymattach: out of memory: the config's patterns stay\n");
	if (env.given & GIVEN_MODE)
		c->mode = env.mode;
	if (env.given & GIVEN_RESOLVER)
		c->resolver = env.resolver;
	if (env.given & GIVEN_FALLBACK)
		c->fallback = env.fallback;
	if (env.given & GIVEN_LINKS)
		c->link_batch = env.link_batch;
	if (env.given & GIVEN_DURATION)
		c->duration_s = env.duration;
	if (env.given & GIVEN_TOP)
		c->top = env.top;
	if (env.no_cache)
		c->cache = false;
}

static void print_error(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "%s\n", msg);
}

/* --check-config: every problem, one line each, as sshd -t does; 0 or 78. */
static int check_config(const char *path)
{
	struct ksa_config_opts co = { .sz = sizeof(co), .error_fn = print_error };
	char err[KSA_CONFIG_ERR_MAX];
	struct ksa_config *c;

	if (ksa_config__load(path, &co, &c, err, sizeof(err)))
		return KSA_EX_CONFIG;
	ksa_config__free(c);
	return 0;
}

/* Sleeps up to secs, waking early on SIGINT/SIGTERM. */
static void wait_for(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	while (!exiting && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int run_attach(const char *kernel, const struct ksym_db_opts *dbo)
{
	struct kattach_opts ko = {
		.sz = sizeof(ko),
		.patterns = env.patterns.v,
		.pattern_cnt = env.patterns.cnt,
		.mode = env.mode,
		.resolver = env.resolver,
		.fallback = env.fallback,
		.link_batch = env.link_batch,
		.stop = &exiting,
		.sources = dbo,
		.list_only = env.list,
	};
	struct report_opts ro = {
		.sz = sizeof(ro),
		.format = env.format,
		.kernel = kernel,
		.version = KSA_VERSION,
		.list_only = env.list,
		.top = env.top,
		.addrs_only = env.cmd == CMD_RESOLVE,
	};
	struct kattach *a;
	int err;

	if (env.compare) {
		struct compare_opts co = {
			.sz = sizeof(co),
			.attach = &ko,
			.rounds = env.rounds,
			.format = env.format,
			.kernel = kernel,
		};

		return compare__run(&co);
	}
	a = kattach__new(&ko);
	if (!a) {
		fprintf(stderr, "ksymattach: out of memory\n");
		return 1;
	}
	err = kattach__resolve(a);
	/* debugging and tests: a window between resolving and attaching */
	if (!err && !env.list && getenv("KSYMATTACH_PAUSE")) {
		fprintf(stderr, "ksymattach: resolved; pausing %s s (KSYMATTACH_PAUSE)\n",
			getenv("KSYMATTACH_PAUSE"));
		wait_for(atof(getenv("KSYMATTACH_PAUSE")));
	}
	if (!err && !env.list && !exiting)
		err = kattach__attach(a);
	if (!err && !env.list) {
		if (env.duration > 0) {
			fprintf(stderr, "ksymattach: attached %zu functions; collecting for %g s "
					"(Ctrl-C to stop)\n", kattach__attached_cnt(a), env.duration);
			wait_for(env.duration);
		}
		err = kattach__collect(a);
		kattach__detach(a);
	}
	if (err)
		fprintf(stderr, "ksymattach: %s\n", kattach__errmsg(a));
	else
		report__print(stdout, a, &ro);
	kattach__free(a);
	if (exiting)
		return 128 + exiting;
	return err ? 1 : 0;
}

/*
 * The oldest kernel the test suite boots (Debian's 5.10). Support is a promise
 * about what was tested, so this one check reads the release; every fact about
 * a kernel elsewhere comes from what the kernel shows.
 */
#define KERNEL_MIN_MAJOR 5
#define KERNEL_MIN_MINOR 10

static int kernel_too_old(const char *release)
{
	int major = 0, minor = 0;

	if (sscanf(release, "%d.%d", &major, &minor) != 2 || major > KERNEL_MIN_MAJOR ||
	    (major == KERNEL_MIN_MAJOR && minor >= KERNEL_MIN_MINOR))
		return 0;
	fprintf(stderr, "ksymattach: kernel %s is older than Linux %d.%d, the oldest ksymattach "
			"supports\n", release, KERNEL_MIN_MAJOR, KERNEL_MIN_MINOR);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = args_doc,
		.doc = doc,
	};
	struct sigaction sa = { .sa_handler = sig_handler };
	struct ksym_db_opts dbo = { .sz = sizeof(dbo) };
	struct query_opts qo = { .sz = sizeof(qo) };
	const char *kernel;
	struct utsname u;
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	libbpf_set_print(libbpf_print_fn);
	/* no SA_RESTART: a signal must cut the wait short */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* only the daemon reloads; elsewhere a hangup ends the run as it always did */
	if (env.cmd == CMD_DAEMON)
		sigaction(SIGHUP, &sa, NULL);
	uname(&u);

	/* where symbols come from: the same for every command */
	dbo.kallsyms_path = env.kallsyms;
	dbo.system_map_path = env.system_map;
	dbo.vmlinux_path = env.vmlinux;
	dbo.funcs_path = env.funcs;
	dbo.funcs_addrs_path = env.funcs_addrs;
	dbo.funcs_from = env.funcs_from;
	dbo.syms_from = env.syms_from;
	dbo.blacklist_path = env.blacklist;
	dbo.cache_dir = env.cache_dir;
	dbo.build_cache_dir = env.build_cache_dir;
	dbo.no_cache = env.no_cache;
	dbo.verbose = env.verbose;
	dbo.warn = warn_fn;
	dbo.note = note_fn;

	if (env.cmd == CMD_CHECK_CONFIG)
		return check_config(env.config ? env.config : KSA_CONFIG_DEFAULT);
	/* the live kernel's: refused before anything of it is read */
	if ((env.cmd == CMD_BOOT || env.cmd == CMD_DAEMON || env.cmd == CMD_BOOT_WATCH) &&
	    kernel_too_old(u.release))
		return 1;
	if (env.cmd == CMD_BOOT || env.cmd == CMD_DAEMON || env.cmd == CMD_BOOT_WATCH) {
		struct service_opts so = {
			.sz = sizeof(so),
			.config_path = env.config ? env.config : KSA_CONFIG_DEFAULT,
			.override = override_config,
			.sources = &dbo,
			.kernel = u.release,
			.version = KSA_VERSION,
			.stop = &exiting,
			.reload = &reloading,
		};

		if (env.cmd == CMD_BOOT_WATCH)
			return service__boot_watch(&so);
		return env.cmd == CMD_BOOT ? service__boot(&so) : service__daemon(&so);
	}
	if (env.cmd == CMD_CACHE)
		return cache__cmd(env.args, env.arg_cnt, &dbo);
	if (env.cmd == CMD_RESOLVE) {
		env.list = true;
		env.compare = false;
	}
	/* symbols from a file are that file's kernel's, not necessarily this one */
	kernel = env.kallsyms || env.system_map || env.vmlinux || env.funcs || env.funcs_addrs ?
		 NULL : u.release;
	if (kernel && env.cmd != CMD_BENCH && kernel_too_old(kernel))
		return 1;
	if (env.cmd == CMD_ATTACH || env.cmd == CMD_RESOLVE)
		return run_attach(kernel, &dbo);
	if (env.cmd == CMD_WATCH) {
		struct watch_cmd_opts wo = {
			.sz = sizeof(wo),
			.duration = env.duration,
			.format = env.format,
			.verbose = env.verbose,
			.max_procs = env.max_procs,
			.kernel = u.release,
			.stop = &exiting,
		};

		return watch__cmd(&wo);
	}
	if (env.cmd == CMD_BENCH) {
		struct bench_opts bo = {
			.sz = sizeof(bo),
			.files = env.args,
			.file_cnt = env.arg_cnt,
			.rounds = env.rounds,
			.lookups = env.lookups,
			.format = env.format,
		};

		if (env.rss_probe)
			return bench__rss_probe(env.rss_probe, env.rss_probe_ref);
		if (env.cold_probe)
			return env.arg_cnt == 1 && env.cold_names ?
				       bench__cold_probe(env.args[0], env.cold_probe, env.cold_names) : 1;
		if (env.kernel_model) {
			int rc = 0;
			size_t i;

			/* --kallsyms FILE or operands; default: the running kernel's */
			if (!env.arg_cnt)
				return bench__kernel_model(env.kallsyms ? env.kallsyms : "/proc/kallsyms",
							   env.rounds, env.lookups, env.format);
			for (i = 0; i < env.arg_cnt; i++)
				rc |= bench__kernel_model(env.args[i], env.rounds, env.lookups,
							  env.format);
			return rc;
		}
		return bench__run(&bo);
	}
	qo.format = env.format;
	qo.kernel = kernel;
	qo.db = &dbo;
	if (env.cmd == CMD_SYM)
		return query__sym(env.args, env.arg_cnt, &qo);
	if (env.cmd == CMD_COMPLETE)
		return query__complete(env.args[0], &qo);
	return query__addr(env.args, env.arg_cnt, &qo);
}
