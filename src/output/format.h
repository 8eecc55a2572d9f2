/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output formats and the JSON string writer every part's output shares. A
 * leaf: the engine and the bench print through it without depending on the
 * report (which depends on the engine).
 */
#ifndef OUTPUT_FORMAT_H
#define OUTPUT_FORMAT_H

#include <stdio.h>

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,
	REPORT_PROM,	/* Prometheus text exposition (node_exporter textfile) */
};

/* A JSON string (or null for NULL), escaped. */
void report__json_str(FILE *f, const char *s);

/* A Prometheus label value (nothing for NULL): backslash, quote and newline
 * escaped. */
void report__prom_label(FILE *f, const char *s);

#endif
