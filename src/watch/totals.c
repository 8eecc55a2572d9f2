// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rows are few (a node's agents), so they are found by a linear walk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "totals.h"

struct ksw_totals {
	struct ksw_total *rows;
	size_t cnt, max;
};

struct ksw_totals *ksw_totals__new(size_t max)
{
	struct ksw_totals *t;

	if (!max)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->max = max;
	t->rows = calloc(max, sizeof(*t->rows));
	if (!t->rows) {
		free(t);
		return NULL;
	}
	return t;
}

void ksw_totals__free(struct ksw_totals *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cnt; i++)
		free(t->rows[i].unit);
	free(t->rows);
	free(t);
}

void ksw_sums_of(const struct ksw_proc *p, struct ksw_sums *s)
{
	bool live = p->in_burst && p->cur.link_end;

	*s = (struct ksw_sums){
		.procs = 1,
		.attaches = p->bursts + live,
		.stall_ns = p->stall_sum_ns + (live ? p->cur.link_end - p->cur.start : 0),
		.functions = p->functions,
		.links = ksw_proc_made(p),
		.refused = p->refused,
		.progs = p->progs,
		.resolve_ns = p->stat.resolve_ns,
		.read_ns = ksw_proc_read_ns(p),
	};
}

static void sums_add(struct ksw_sums *a, const struct ksw_sums *b)
{
	a->procs += b->procs;
	a->attaches += b->attaches;
	a->stall_ns += b->stall_ns;
	a->functions += b->functions;
	a->links += b->links;
	a->refused += b->refused;
	a->progs += b->progs;
	a->resolve_ns += b->resolve_ns;
	a->read_ns += b->read_ns;
}

static struct ksw_total *row(struct ksw_totals *t, const char *comm, const char *unit)
{
	struct ksw_total *r;
	size_t i;

	for (i = 0; i < t->cnt; i++)
		if (!strcmp(t->rows[i].comm, comm) && !strcmp(t->rows[i].unit, unit))
			return &t->rows[i];
	/* the last row is kept for the overflow */
	if (t->cnt + 1 >= t->max && (*comm || *unit))
		return row(t, "", "");
	r = &t->rows[t->cnt];
	r->unit = strdup(unit);
	if (!r->unit)
		return NULL;
	strncpy(r->comm, comm, sizeof(r->comm) - 1);
	t->cnt++;
	return r;
}

int ksw_totals__add(struct ksw_totals *t, const char *comm, const char *unit,
		    const struct ksw_sums *s)
{
	struct ksw_total *r = row(t, comm, unit ? unit : "");

	if (!r)
		return -ENOMEM;
	sums_add(&r->sums, s);
	return 0;
}

struct ksw_totals *ksw_totals__copy(const struct ksw_totals *t)
{
	struct ksw_totals *c = ksw_totals__new(t->max);
	size_t i;

	if (!c)
		return NULL;
	for (i = 0; i < t->cnt; i++) {
		c->rows[i] = t->rows[i];
		c->rows[i].unit = strdup(t->rows[i].unit);
		if (!c->rows[i].unit) {
			ksw_totals__free(c);
			return NULL;
		}
		c->cnt++;
	}
	return c;
}

static int by_name(const void *a, const void *b)
{
	const struct ksw_total *x = a, *y = b;
	int c = strcmp(x->comm, y->comm);

	return c ? c : strcmp(x->unit, y->unit);
}

const struct ksw_total *ksw_totals__rows(struct ksw_totals *t, size_t *cnt)
{
	qsort(t->rows, t->cnt, sizeof(*t->rows), by_name);
	*cnt = t->cnt;
	return t->rows;
}
