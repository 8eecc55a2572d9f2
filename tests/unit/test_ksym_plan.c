// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The order of sources a load tries (plan/plan.c), row by row: one row per
 * path a load can take, the options and the machine in words, the plan as
 * ksym_plan__str() writes it. Then every combination of the inputs against
 * the rules every plan keeps. No file is read: the plan is a pure function.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ksym_plan.h"

/*
 * The words of a row. Unnamed: default sources, the live kallsyms, no list
 * given, tracefs not found.
 */
static void parse(const char *words, struct ksym_plan_in *in)
{
	char buf[256], *w, *save;

	memset(in, 0, sizeof(*in));
	in->live_syms = true;
	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!strcmp(w, "cache-only"))
			in->cache_only = true;
		else if (!strcmp(w, "source=ftrace"))
			in->funcs_from = KSYM_FUNCS_FTRACE;
		else if (!strcmp(w, "source=kallsyms"))
			in->funcs_from = KSYM_FUNCS_KALLSYMS;
		else if (!strcmp(w, "source=tracefs"))
			in->funcs_from = KSYM_FUNCS_TRACEFS;
		else if (!strcmp(w, "addrs-file"))
			in->addrs_file = true;
		else if (!strcmp(w, "names-file"))
			in->names_file = true;
		else if (!strcmp(w, "map-file"))	/* System.map or vmlinux */
			in->live_syms = false;
		else if (!strcmp(w, "kallsyms-file"))
			in->live_syms = false, in->kallsyms_file = true;
		else if (!strcmp(w, "kcore-file"))
			in->kcore_file = true;
		else if (!strcmp(w, "need-kallsyms"))
			in->need_kallsyms = true;
		else if (!strcmp(w, "whole"))
			in->whole = true;
		else if (!strcmp(w, "allow-unknown"))
			in->allow_unknown = true;
		else if (!strcmp(w, "no-cache"))
			in->no_cache = true;
		else if (!strcmp(w, "no-build-cache"))
			in->no_build_cache = true;
		else if (!strcmp(w, "no-text-check"))	/* an architecture without one */
			in->no_text_check = true;
		else if (!strcmp(w, "tracefs"))
			in->tracefs = true;
		else if (!strcmp(w, "tracefs-denied"))
			in->tracefs_denied = true;
		else if (!strcmp(w, "addrs"))	/* tracefs lists addresses (Linux >= 6.5) */
			in->tracefs_addrs = in->tracefs = true;
		else
			fail_msg("unknown word '%s' in row '%s'", w, words);
	}
}

static const struct row {
	const char *in, *plan;
} rows[] = {
	/* completion: caches or nothing */
	{ "cache-only addrs", "run(kcore,ftrace,addrs,join) build end:no-cache" },
	{ "cache-only no-build-cache", "run(kcore,ftrace,addrs,join) end:no-cache" },
	{ "cache-only no-cache", "end:no-cache" },
	{ "cache-only kallsyms-file addrs", "end:no-cache" },
	{ "cache-only addrs-file", "end:no-cache" },
	/* --source ftrace */
	{ "source=ftrace addrs whole", "run(ftrace) ftrace! kcore-required" },
	{ "source=ftrace no-cache", "ftrace! kcore-required" },
	{ "source=ftrace addrs addrs-file", "refuse:ftrace-files" },
	{ "source=ftrace names-file", "refuse:ftrace-files" },
	{ "source=ftrace kallsyms-file", "refuse:ftrace-files" },
	{ "source=ftrace kcore-file", "refuse:ftrace-files" },
	/* the default on a kernel with addresses in tracefs' list */
	{ "addrs", "run(kcore,ftrace,addrs) build candidates tracefs(addrs)" },
	{ "addrs whole", "run(kcore,ftrace,addrs) build ftrace tracefs(addrs)" },
	{ "addrs whole no-cache", "ftrace tracefs(addrs)" },
	{ "addrs no-build-cache", "run(kcore,ftrace,addrs) candidates tracefs(addrs)" },
	{ "addrs need-kallsyms", "all-candidates run(addrs) tracefs(addrs)" },
	{ "addrs need-kallsyms whole", "all-candidates run(addrs) tracefs(addrs)" },
	{ "addrs allow-unknown", "run(kcore,ftrace,addrs) build candidates tracefs(addrs) unknown" },
	/* a kernel whose list has names only (Linux < 6.5) */
	{ "tracefs", "run(kcore,ftrace,addrs) build candidates run(join) tracefs(join)" },
	{ "tracefs whole", "run(kcore,ftrace,addrs) build ftrace candidates run(join) tracefs(join)" },
	{ "tracefs no-cache", "candidates tracefs(join)" },
	/* no tracefs: no dynamic ftrace shown, kcore not tried */
	{ "", "refuse:tracefs" },
	{ "tracefs-denied", "refuse:tracefs" },
	{ "allow-unknown", "refuse:tracefs unknown" },
	/* --source tracefs */
	{ "source=tracefs addrs whole", "run(addrs) tracefs(addrs)" },
	{ "source=tracefs tracefs", "run(join) tracefs(join)" },
	{ "source=tracefs tracefs no-cache allow-unknown", "tracefs(join) unknown" },
	{ "source=tracefs", "refuse:tracefs" },
	/* --source kallsyms (and iter, kmem): kcore or an error */
	{ "source=kallsyms", "run(kcore,ftrace,addrs) build candidates kcore-required" },
	{ "source=kallsyms addrs whole", "run(kcore,ftrace,addrs) build candidates kcore-required" },
	{ "source=kallsyms need-kallsyms", "all-candidates kcore-required" },
	{ "source=kallsyms map-file", "refuse:kcore-pair" },
	{ "source=kallsyms kallsyms-file", "refuse:kcore-pair" },
	{ "source=kallsyms addrs-file", "file-addrs" },
	/* a captured pair: kallsyms and kcore files */
	{ "kallsyms-file kcore-file", "candidates kcore-required" },
	{ "kallsyms-file kcore-file addrs whole", "candidates kcore-required" },
	{ "kallsyms-file kcore-file need-kallsyms", "all-candidates kcore-required" },
	{ "map-file kcore-file", "refuse:kcore-pair" },
	{ "kcore-file", "refuse:kcore-pair" },
	{ "kallsyms-file kcore-file addrs-file", "file-addrs" },
	/* lists given: they say what they list */
	{ "addrs addrs-file", "file-addrs" },
	{ "names-file", "file-join" },
	{ "addrs-file names-file", "file-addrs" },
	{ "kallsyms-file addrs-file", "file-addrs" },
	{ "map-file names-file", "file-join" },
	/* a symbol file and no list: this kernel's lists are not the file's */
	{ "map-file addrs", "refuse:no-list" },
	{ "kallsyms-file addrs allow-unknown", "refuse:no-list unknown" },
	/* an architecture whose function entries this build does not read: the kernel's lists */
	{ "no-text-check addrs", "run(addrs) tracefs(addrs)" },
	{ "no-text-check addrs whole", "run(addrs) tracefs(addrs)" },
	{ "no-text-check tracefs", "run(join) tracefs(join)" },
	{ "no-text-check source=tracefs addrs", "run(addrs) tracefs(addrs)" },
	{ "no-text-check cache-only addrs", "run(addrs,join) end:no-cache" },
	{ "no-text-check addrs-file", "file-addrs" },
	{ "no-text-check source=kallsyms addrs", "refuse:no-text-check" },
	{ "no-text-check source=ftrace addrs", "refuse:no-text-check" },
	{ "no-text-check kallsyms-file kcore-file", "refuse:no-text-check" },
};

static void test_rows(void **state)
{
	struct ksym_load_plan p;
	struct ksym_plan_in in;
	char got[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		parse(rows[i].in, &in);
		ksym_plan__make(&in, &p);
		assert_int_equal(ksym_plan__str(&p, got, sizeof(got)), 0);
		if (strcmp(got, rows[i].plan))
			fail_msg("row '%s': plan '%s', expected '%s'", rows[i].in, got,
				 rows[i].plan);
	}
}

/* Steps that say "not mine" where they have nothing (a cache missed, a source refused). */
static bool may_pass(const struct ksym_plan_step *s)
{
	return s->step == KSYM_STEP_RUN_CACHE || s->step == KSYM_STEP_BUILD_CACHE ||
	       (s->step == KSYM_STEP_FTRACE && !s->asked);
}

/* The rules every plan keeps, whatever the inputs. */
static void check(const struct ksym_plan_in *in, const struct ksym_load_plan *p)
{
	unsigned int tried = 0;
	bool kcore_after = false;
	size_t i;

	assert_true(p->cnt < KSYM_PLAN_MAX);	/* never cut short */
	/* something answers: a step that cannot pass, or an error at the end */
	if (p->cnt && !p->end)
		assert_false(may_pass(&p->steps[p->cnt - 1]));
	if (!p->cnt)
		assert_true(p->refusal || p->end);
	for (i = p->cnt; i-- > 0;) {
		const struct ksym_plan_step *s = &p->steps[i];

		/* kcore unreadable, not required: a step follows that needs none */
		if (ksym_step__needs_kcore(s->step) && !p->kcore_required && !p->end)
			assert_true(kcore_after);
		kcore_after |= !ksym_step__needs_kcore(s->step);
	}
	for (i = 0; i < p->cnt; i++) {
		const struct ksym_plan_step *s = &p->steps[i];

		/* no cache where none is wanted, each label looked up once */
		if (s->step == KSYM_STEP_RUN_CACHE || s->step == KSYM_STEP_BUILD_CACHE)
			assert_false(in->no_cache);
		if (s->step == KSYM_STEP_BUILD_CACHE)
			assert_false(in->no_build_cache);
		if (s->step == KSYM_STEP_RUN_CACHE) {
			assert_int_equal(tried & s->origins, 0);
			tried |= s->origins;
		}
		/* completion reads no live source */
		if (in->cache_only)
			assert_true(s->step == KSYM_STEP_RUN_CACHE ||
				    s->step == KSYM_STEP_BUILD_CACHE);
		/* kcore's text checks symbols of its own kernel only */
		if (ksym_step__needs_kcore(s->step))
			assert_true(in->kcore_file ? in->kallsyms_file : in->live_syms);
		/* ftrace's records and the caches are the running kernel's */
		if (s->step == KSYM_STEP_FTRACE || s->step == KSYM_STEP_RUN_CACHE ||
		    s->step == KSYM_STEP_BUILD_CACHE)
			assert_true(in->live_syms && !in->kcore_file && !in->addrs_file &&
				    !in->names_file);
		/* this kernel's lists only for this kernel's symbols, as tracefs has them */
		if (s->step == KSYM_STEP_TRACEFS) {
			assert_true(in->live_syms && in->tracefs);
			assert_int_equal(s->origins, in->tracefs_addrs ? 1u << KSYM_ORIG_ADDRS :
									 1u << KSYM_ORIG_JOIN);
		}
		/* unknown traceability only where allowed, and last */
		if (s->step == KSYM_STEP_UNKNOWN) {
			assert_true(in->allow_unknown);
			assert_int_equal(i, p->cnt - 1);
		}
		/* a given list is the only source */
		if (in->addrs_file || in->names_file)
			assert_true(s->step == (in->addrs_file ? KSYM_STEP_FILE_ADDRS :
						 KSYM_STEP_FILE_JOIN) ||
				    in->cache_only);
		if (s->asked)
			assert_int_equal(in->funcs_from, KSYM_FUNCS_FTRACE);
		/* no text read, and no table a text check made, without a reader of it */
		if (in->no_text_check) {
			assert_false(ksym_step__needs_kcore(s->step));
			if (s->step == KSYM_STEP_RUN_CACHE)
				assert_int_equal(s->origins & (1u << KSYM_ORIG_KCORE |
							       1u << KSYM_ORIG_FTRACE), 0);
		}
	}
	/* a source that reads the text, asked for without a reader of it: refused */
	if (in->no_text_check && !in->cache_only &&
	    (in->funcs_from == KSYM_FUNCS_FTRACE || in->funcs_from == KSYM_FUNCS_KALLSYMS ||
	     in->kcore_file))
		assert_int_equal(p->refusal, KSYM_REFUSE_NO_TEXT_CHECK);
}

static void test_every_input(void **state)
{
	struct ksym_load_plan p;
	struct ksym_plan_in in;
	unsigned int bits, f, plans = 0;

	(void)state;
	for (f = KSYM_FUNCS_AUTO; f <= KSYM_FUNCS_FTRACE; f++) {
		for (bits = 0; bits < 1u << 15; bits++) {
			memset(&in, 0, sizeof(in));
			in.funcs_from = f;
			in.cache_only = bits & 1;
			in.addrs_file = bits & 2;
			in.names_file = bits & 4;
			in.live_syms = !(bits & 8);
			/* a kallsyms file is one of the symbol files */
			in.kallsyms_file = !in.live_syms && (bits & 16);
			in.kcore_file = bits & 32;
			in.need_kallsyms = bits & 64;
			in.whole = bits & 128;
			in.allow_unknown = bits & 256;
			in.no_cache = bits & 512;
			in.no_build_cache = bits & 1024;
			in.tracefs = bits & 2048;
			in.tracefs_denied = !in.tracefs && (bits & 4096);
			in.tracefs_addrs = in.tracefs && (bits & 8192);
			in.no_text_check = bits & 16384;
			ksym_plan__make(&in, &p);
			check(&in, &p);
			plans++;
		}
	}
	assert_int_equal(plans, 4 * (1u << 15));
}

/* A buffer too short says so, and holds what fits. */
static void test_str_short(void **state)
{
	struct ksym_load_plan p;
	struct ksym_plan_in in;
	char buf[8];

	(void)state;
	parse("addrs whole", &in);
	ksym_plan__make(&in, &p);
	assert_int_equal(ksym_plan__str(&p, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "run(kco");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_every_input),
		cmocka_unit_test(test_str_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
