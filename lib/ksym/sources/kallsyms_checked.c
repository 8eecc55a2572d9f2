// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kallsyms' text symbols as candidates, read as far as the patterns go, each
 * checked in the kernel's text when asked for (site/site.c).
 */
#include <errno.h>

#include "ksym_source.h"

/*
 * kallsyms' text symbols as candidates, each checked through kcore when asked
 * for (ksym_db__ftrace_loc): as far as the patterns go, or every symbol where
 * the caller wants them all anyway (one table serves both).
 */
static int kcore_load(struct ksym_reading *rd, const struct ksym_plan_step *s,
		      struct ksym_loaded *out)
{
	struct ksym_table *syms;
	int err;

	out->origin = KSYM_ORIG_KCORE;
	if (s->step == KSYM_STEP_ALL_CANDIDATES) {
		err = rd->kallsyms(rd, false, &syms);
		if (err)
			return err;
		out->kallsyms = true;
		out->extent = KSYM_EXT_WHOLE;
		return 0;
	}
	/* globs scan; exact names open a batch: no index in the parsing pass */
	err = rd->filter_err;
	if (!err)
		err = ksym_rd_file_filtered(rd, KSYM_FMT_KALLSYMS, ksym_opts_kallsyms_path(rd->opts),
					    true, false, rd->filter, &out->funcs);
	if (err)
		return err;
	out->extent = rd->filtered ? KSYM_EXT_PARTIAL : KSYM_EXT_WHOLE;
	out->keep = true;
	out->checked = true;
	out->partial = rd->filter->prefix_cnt != 0;
	return 0;
}

const struct ksym_source ksym_src_kcore = {
	.name = "kallsyms checked in kcore",
	.produces = KSYM_SITES_CANDIDATES,
	.load = kcore_load,
};
