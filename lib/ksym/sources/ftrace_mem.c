// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ftrace's records, read from the kernel's memory and named from its table
 * (kmem/ftrace.c): the whole table of sites as tracefs lists it, without the
 * kernel naming each record.
 */
#include <errno.h>

#include "ksym_source.h"

static const char *ftrace_error(int err)
{
	switch (err) {
	case ENODATA:
		return "this kernel has no ftrace records (no ftrace_pages_start: no dynamic ftrace)";
	case ENOEXEC:
		return "no vmlinux BTF (/sys/kernel/btf/vmlinux) with struct ftrace_page and "
		       "struct dyn_ftrace as known here, or struct module laid out unlike the "
		       "kernels known";
	case ESTALE:
		return "a module came or went while ftrace's records were read";
	default:
		return ksym_kmem_error(err);
	}
}

/*
 * The whole table as tracefs' list of sites has it, from ftrace's records
 * and the kernel's symbol table in memory (kmem/ftrace.c): the list without
 * the kernel naming each record (430-505 ms of a cold -p '*' in the TCG
 * guest). The kernel's table comes with it, for the anchors. -EAGAIN: the
 * next source's turn.
 */
static int ftrace_load(struct ksym_reading *rd, const struct ksym_plan_step *s,
		       struct ksym_loaded *out)
{
	struct ksym_parse_stats st = {};
	struct ksym_parse_opts po = { .sz = sizeof(po), .stats = &st, .index = true,
				      .stop = rd->opts->stop };
	int err;

	out->funcs = ksym_ftrace__load(rd->kcore, &po, &out->syms);
	rd->phase_ns[KSYM_PH_READ] += st.read_ns;
	if (!out->funcs) {
		err = errno;
		return ksym_rd_refused(rd, err, s->asked, &rd->ftrace_warned,
				       "cannot read ftrace's records from memory",
				       "ftrace's records in memory", ftrace_error(err),
				       "the next source");
	}
	out->origin = KSYM_ORIG_FTRACE;
	out->extent = KSYM_EXT_WHOLE;
	out->keep = true;
	return 0;
}

const struct ksym_source ksym_src_ftrace = {
	.name = "ftrace's records in memory",
	.produces = KSYM_SITES_LISTED,
	.load = ftrace_load,
};
