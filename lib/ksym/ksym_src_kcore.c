// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kallsyms' text symbols as candidates, read as far as the patterns go, each
 * checked in the kernel's text when asked for (ksym_site.c).
 */
#include <errno.h>

#include "ksym_db.h"

/*
 * kallsyms' text symbols as candidates, each checked through kcore when asked
 * for (ksym_db__ftrace_loc): as far as the patterns go, or every symbol where
 * the caller wants them all anyway (one table serves both).
 */
static int kcore_load(struct ksym_db *db, const struct ksym_plan_step *s)
{
	bool all = s->step == KSYM_STEP_ALL_CANDIDATES;
	int err;

	if (all) {
		err = ksym_db_load_kallsyms(db, false);
		if (err)
			return err;
		db->funcs = db->kallsyms;
		ksym_db_set_from(db, KSYM_ORIG_KCORE, KSYM_TIER_LIVE, KSYM_EXT_WHOLE);
		return 0;
	}
	/* globs scan; exact names open a batch: no index in the parsing pass */
	err = db->filter_err;
	if (!err) {
		struct ksym_parse_opts filter = {
			.prefixes = db->prefix_cnt ? (const char *const *)db->prefixes : NULL,
			.prefix_cnt = db->prefix_cnt,
			.names = db->name_cnt ? db->names : NULL,
			.name_cnt = db->name_cnt,
		};

		err = ksym_db_load_file_only(db, KSYM_FMT_KALLSYMS, ksym_db_kallsyms_source(db), true, false,
					     &filter, &db->funcs);
	}
	if (err)
		return err;
	ksym_db_set_from(db, KSYM_ORIG_KCORE, KSYM_TIER_LIVE,
			 db->prefix_cnt || db->name_cnt ? KSYM_EXT_PARTIAL : KSYM_EXT_WHOLE);
	ksym_db_funcs_put(db, KSYM_ORIG_KCORE, db->funcs, true, db->prefix_cnt != 0);
	return err;
}

const struct ksym_source ksym_src_kcore = {
	.name = "kallsyms checked in kcore",
	.produces = KSYM_SITES_CANDIDATES,
	.load = kcore_load,
};
