// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What every file of a load writes: its words (the error, warnings, notes)
 * and where the functions came from (ksym_db_set_from()). The load's other
 * files depend on this one, and it on none of them.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ksym_db.h"

int ksym_db_fail(struct ksym_db *db, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof(db->err), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void ksym_db_warn(const struct ksym_db *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksym_vsay(db->opts.warn, "ksym: warning: ", fmt, ap);
	va_end(ap);
}

void ksym_db_note(const struct ksym_db *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksym_vsay(db->opts.note, "ksym: ", fmt, ap);
	va_end(ap);
}

/* FUNCS loaded, from o through tier t, e of it: and how a function's site is found in them. */
void ksym_db_set_from(struct ksym_db *db, enum ksym_origin o, enum ksym_tier t,
		      enum ksym_extent e)
{
	db->origin = o;
	db->tier = t;
	db->extent = e;
	db->check.syms = db->funcs;
	db->check.kcore = db->kcore;
	db->check.no_trampolines = !db->rd.reader->lists_trampolines;
	db->check.anchors = db->anchors;
}
