// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's symbols, the kallsyms table: from its table in memory through
 * kcore (kmem/kallsyms.c), through the ksym BPF iterator (kmem/iter.c), or from
 * /proc/kallsyms, tried in that order, each "not mine" saying why; or from a
 * file given (kallsyms, System.map, vmlinux). And the words for what refused
 * a read: lockdown, a missing capability, a kernel without the feature.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>

#include "ksym_source.h"

const char *ksym__lockdown(void)
{
	static const char *const levels[] = { "none", "integrity", "confidentiality" };
	char buf[96] = "", *l, *r;
	size_t i;
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	/* "none integrity [confidentiality]": the one in brackets */
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!r)
		return NULL;
	*r = '\0';
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(l + 1, levels[i]))
			return levels[i];
	return NULL;
}

static bool lockdown_is(const char *level)
{
	const char *l = ksym__lockdown();

	return l && !strcmp(l, level);
}

/* Why root was refused a kernel file: lockdown where the kernel says so. */
const char *ksym_root_refused(void)
{
	const char *l = ksym__lockdown();

	if (l && !strcmp(l, "confidentiality"))
		return " (kernel lockdown=confidentiality refuses it)";
	if (l)
		return " (refused even to root, under kernel lockdown=none or integrity: "
		       "a security policy)";
	return " (refused even to root: kernel lockdown or a security policy)";
}

static const char *iter_error(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return "this kernel has no ksym iterator (Linux >= 6.0)";
	case ENOENT:
		return "no vmlinux BTF (/sys/kernel/btf/vmlinux)";
	case EPERM:
		return "not permitted (CAP_BPF and CAP_PERFMON, or root)";
	case EINVAL:
	case EACCES:
		/* lockdown takes bpf_probe_read_kernel() away: the verifier refuses the call */
		if (lockdown_is("confidentiality"))
			return "kernel lockdown=confidentiality refuses its reads of kernel memory";
		return "the kernel refused its program";
	default:
		return strerror(err);
	}
}

const char *ksym_kmem_error(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return "this kernel's VMCOREINFO does not say where the table is (Linux >= 6.0)";
	case ENOEXEC:
		return "struct module is laid out unlike the kernels known";
	case EBADMSG:
		return "the tables there are not laid out as this code reads them";
	case EPROTO:
		return "no single form of address known here (kallsyms_addresses; kallsyms_offsets "
		       "base-relative, with absolute per-CPU, or place-relative) puts _stext where "
		       "VMCOREINFO says it is";
	case ESTALE:
		return "a module went while its symbols were read";
	case ENOENT:
		return "no vmlinux BTF (/sys/kernel/btf/vmlinux) for struct module's layout, or "
		       "no /proc/kcore";
	default:
		return strerror(err);
	}
}

/*
 * A live source that did not serve (err): stopped; an error where it was the
 * one asked for; else a verbose line, once ("name: why; next"): a note where
 * the kernel does not have it (EOPNOTSUPP), a warning where it failed.
 * -EAGAIN: the next source's turn.
 */
int ksym_rd_refused(struct ksym_reading *rd, int err, bool asked, bool *warned,
		    const char *failed, const char *name, const char *why, const char *next)
{
	if (err == EINTR)
		return ksym_rd_fail(rd, EINTR, "interrupted while reading the kernel's symbols");
	if (asked)
		return ksym_rd_fail(rd, err, "%s: %s", failed, why);
	if (rd->opts->verbose && !*warned)
		(err == EOPNOTSUPP ? ksym_rd_note : ksym_rd_warn)(rd, "%s: %s; %s", name, why, next);
	*warned = true;
	return -EAGAIN;
}

/*
 * The live table's text symbols from the kernel's own table in memory, read
 * through kcore: no walk in the kernel at all, and no trampoline (they are
 * not in that table). -EAGAIN: try the iterator.
 */
static int load_kmem(struct ksym_reading *rd, const struct ksym_parse_opts *po,
		     struct ksym_table **out)
{
	struct ksym_parse_stats *st = po->stats;
	char denied[128];
	int err;

	if (rd->opts->syms_from == KSYM_SYMS_KALLSYMS || rd->opts->syms_from == KSYM_SYMS_ITER ||
	    !po->text_only)
		return -EAGAIN;
	*out = ksym_kmem__load(rd->kcore, po);
	rd->phase_ns[KSYM_PH_READ] += st->read_ns;
	if (*out)
		return 0;
	err = errno;
	if (err == EACCES || err == EPERM)
		snprintf(denied, sizeof(denied), "/proc/kcore refused%s",
			 geteuid() ? " (run as root)" :
			 !ksym__capable(CAP_SYS_RAWIO) ? " (CAP_SYS_RAWIO is missing)" :
			 ksym_root_refused());
	return ksym_rd_refused(rd, err, rd->opts->syms_from == KSYM_SYMS_KMEM, &rd->kmem_warned,
				      "cannot read the kernel's symbol table from its memory",
				      "kernel's symbol table in memory",
				      err == EACCES || err == EPERM ? denied : ksym_kmem_error(err),
				      "trying the ksym BPF iterator");
}

/*
 * The live /proc/kallsyms table through the ksym iterator where it works (it
 * walks the same table without printing it, and sees what kptr_restrict
 * hides). -EAGAIN: read the file instead.
 */
static int load_iter(struct ksym_reading *rd, const struct ksym_parse_opts *po,
		     struct ksym_table **out)
{
	struct ksym_parse_stats *st = po->stats;
	int err;

	if (rd->opts->syms_from == KSYM_SYMS_KALLSYMS)
		return -EAGAIN;
	*out = ksym_table__load_iter(po);
	rd->phase_ns[KSYM_PH_READ] += st->read_ns;
	rd->phase_ns[KSYM_PH_PARSE] += st->parse_ns;
	if (*out)
		return 0;
	err = errno;
	if (err != EINTR)
		snprintf(rd->iter_err, sizeof(rd->iter_err), "%s", iter_error(err));
	return ksym_rd_refused(rd, err, rd->opts->syms_from == KSYM_SYMS_ITER, &rd->iter_warned,
				      "cannot read the kernel's symbols through the ksym BPF iterator",
				      "ksym BPF iterator", rd->iter_err, "reading /proc/kallsyms");
}

const struct ksym_syms_reader ksym_read_kmem = {
	.label = "kmem", .lists_trampolines = false, .load = load_kmem,
};
const struct ksym_syms_reader ksym_read_iter = {
	.label = "iter", .lists_trampolines = true, .load = load_iter,
};
/* the last: the file read as any symbol file is, below (no load of its own) */
const struct ksym_syms_reader ksym_read_file = {
	.label = "kallsyms", .lists_trampolines = true,
};

static const struct ksym_syms_reader *const live_readers[] = { &ksym_read_kmem, &ksym_read_iter };

/* Read + parse of one file, timed by the loader. */
int ksym_rd_file_filtered(struct ksym_reading *rd, enum ksym_format fmt, const char *path,
			  bool text_only, bool index, const struct ksym_parse_opts *filter,
			  struct ksym_table **out)
{
	struct ksym_parse_stats st = {};
	struct ksym_parse_opts po = { .sz = sizeof(po), .stats = &st, .text_only = text_only,
				      .index = index, .stop = rd->opts->stop };
	bool live;
	size_t i;
	int err;

	if (filter) {
		po.prefixes = filter->prefixes;
		po.prefix_cnt = filter->prefix_cnt;
		po.names = filter->names;
		po.name_cnt = filter->name_cnt;
	}
	/* the live table: its readers first, the file last */
	live = fmt == KSYM_FMT_KALLSYMS && !strcmp(path, "/proc/kallsyms");
	for (i = 0; live && i < sizeof(live_readers) / sizeof(live_readers[0]); i++) {
		err = live_readers[i]->load(rd, &po, out);
		if (!err)
			rd->reader = live_readers[i];
		if (err != -EAGAIN)
			return err;
	}
	/* read and parsed at once (a second thread reads what the kernel generates) */
	*out = ksym_table__load(fmt, path, &po);
	rd->phase_ns[KSYM_PH_READ] += st.read_ns;
	rd->phase_ns[KSYM_PH_PARSE] += st.parse_ns;
	if (!*out) {
		err = -errno;
		/* the live file's zeros have a cause here; a captured one's, at capture */
		if (st.all_zero && strncmp(path, "/proc/", 6))
			return ksym_rd_fail(rd, EPERM, "%s shows only zero addresses: captured without "
					    "CAP_SYSLOG (run as root) or under kernel.kptr_restrict=2", path);
		if (st.all_zero && !ksym__capable(CAP_SYSLOG))
			return ksym_rd_fail(rd, EPERM, "%s shows only zero addresses: CAP_SYSLOG is missing "
					    "(run as root; kernel.kptr_restrict shows addresses only with it)",
					    path);
		if (st.all_zero)
			return ksym_rd_fail(rd, EPERM, "%s shows only zero addresses, even with CAP_SYSLOG: "
					    "kernel.kptr_restrict=2 hides them from everyone (and the ksym "
					    "BPF iterator, which sees them: %s)", path,
					    rd->iter_err[0] ? rd->iter_err : "not tried");
		if (err == -EINTR)
			return ksym_rd_fail(rd, EINTR, "interrupted while reading %s", path);
		if (err == -EFBIG)
			return ksym_rd_fail(rd, EFBIG, "%s: larger than %u MiB (no kernel's is): not a "
					    "symbol file, or one that never ends", path, KSYM_INPUT_MAX >> 20);
		if (err == -ENOMEM || err == -E2BIG)
			return ksym_rd_fail(rd, -err, "cannot parse %s: %s", path, strerror(-err));
		return ksym_rd_fail(rd, -err, "cannot read %s: %s%s", path, strerror(-err),
				    err != -EACCES && err != -EPERM ? "" :
				    geteuid() ? " (run as root)" : ksym_root_refused());
	}
	/* a symbol table without one symbol line is the wrong file, not an empty table */
	if (!st.symbols && !st.skipped &&
	    (fmt == KSYM_FMT_KALLSYMS || fmt == KSYM_FMT_SYSTEM_MAP)) {
		ksym_table__free(*out);
		*out = NULL;
		return ksym_rd_fail(rd, ENODATA, "%s: no symbols in it%s", path,
				    st.malformed ? " (only malformed lines)" : "");
	}
	if (st.malformed) {
		char lines[64] = "";
		size_t i, off = 0;

		for (i = 0; i < st.malformed && i < KSYM_MAX_BAD_LINES; i++)
			off += snprintf(lines + off, sizeof(lines) - off, "%s%zu", i ? ", " : "",
					st.bad_line[i]);
		ksym_rd_warn(rd, "%s: %zu malformed lines skipped (line %s%s)", path, st.malformed, lines,
			     st.malformed > KSYM_MAX_BAD_LINES ? ", ..." : "");
	}
	return 0;
}

int ksym_rd_file(struct ksym_reading *rd, enum ksym_format fmt, const char *path, bool text_only,
		 bool index, struct ksym_table **out)
{
	return ksym_rd_file_filtered(rd, fmt, path, text_only, index, NULL, out);
}

bool ksym_opts_live_kallsyms(const struct ksym_db_opts *o)
{
	return !o->kallsyms_path && !o->system_map_path && !o->vmlinux_path;
}

/* Where the symbols come from: the files in this order of precedence, else the live file. */
const char *ksym_opts_kallsyms_path(const struct ksym_db_opts *o)
{
	return o->system_map_path ? o->system_map_path :
	       o->vmlinux_path	  ? o->vmlinux_path :
	       o->kallsyms_path	  ? o->kallsyms_path :
				    "/proc/kallsyms";
}

int ksym_rd_elf(struct ksym_reading *rd, const char *path, bool text_only, struct ksym_table **out)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .text_only = text_only };
	uint64_t t0 = ksym_now_ns();

	*out = ksym_table__load_elf(path, &po);
	rd->phase_ns[KSYM_PH_PARSE] += ksym_now_ns() - t0;
	if (!*out)
		return ksym_rd_fail(rd, errno, "cannot load symbols from %s: %s", path,
				    errno == ENODATA ? "no symbol table (stripped)" :
				    errno == ENOEXEC ? "not an ELF file" : strerror(errno));
	return 0;
}

bool ksym__capable(int cap)
{
	unsigned long long eff;
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return true;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return !found || cap < 0 || cap > 63 || (eff >> cap & 1);
}
