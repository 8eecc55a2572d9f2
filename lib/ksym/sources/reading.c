// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a read leaves in words: its error, and the warnings and notes that go
 * to the caller's functions (ksym_db_opts.warn, .note), else to stderr. The
 * load's own words (load/state.c) are said the same way.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ksym_source.h"

void ksym_vsay(void (*fn)(const char *), const char *prefix, const char *fmt, va_list ap)
{
	char msg[400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (fn)
		fn(msg);
	else
		fprintf(stderr, "%s%s\n", prefix, msg);
}

int ksym_rd_fail(struct ksym_reading *rd, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->err, rd->err_sz, fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void ksym_rd_warn(const struct ksym_reading *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksym_vsay(rd->opts->warn, "ksym: warning: ", fmt, ap);
	va_end(ap);
}

void ksym_rd_note(const struct ksym_reading *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksym_vsay(rd->opts->note, "ksym: ", fmt, ap);
	va_end(ap);
}
