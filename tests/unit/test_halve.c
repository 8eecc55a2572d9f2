// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Links halved around refused items (src/engine/halve.c) against a fake
 * kernel: it refuses a link holding any item of a chosen set (EINVAL, as for
 * an address that is no ftrace site), answers ENOMEM above a link size, and
 * can fail with another error at a chosen link. What is checked: every item
 * is either in exactly one link made or left out, only refused items are left
 * out, and a failure no halving answers comes back with its link's size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "halve.h"

#define N_MAX 1024

struct fake {
	size_t n;
	bool refused[N_MAX];
	size_t mem_max;		/* links above this size: ENOMEM (0: none) */
	int fail_at, fail_err;	/* the fail_at-th link call fails with fail_err */
	int keep_err;		/* keep() answers this */
	/* what happened */
	int calls;
	int in_link[N_MAX];	/* times each item was in a link kept */
	int left_out[N_MAX];	/* times each was left out, and why */
	int left_err;
	size_t links, max_link;
	volatile sig_atomic_t stop;
	int stop_after;		/* set stop after this many calls (0: never) */
	size_t last_i, last_n;
};

static int fake_link(void *ctx, size_t i, size_t n, size_t *cnt)
{
	struct fake *f = ctx;
	size_t k;

	*cnt = n;
	f->calls++;
	if (f->stop_after && f->calls >= f->stop_after)
		f->stop = 1;
	if (f->fail_at && f->calls == f->fail_at)
		return -f->fail_err;
	for (k = i; k < i + n; k++)
		if (f->refused[k])
			return -EINVAL;
	if (f->mem_max && n > f->mem_max)
		return -ENOMEM;
	f->last_i = i;
	f->last_n = n;
	return 3;	/* a descriptor */
}

static int fake_keep(void *ctx, int fd)
{
	struct fake *f = ctx;
	size_t k;

	assert_int_equal(fd, 3);
	if (f->keep_err)
		return f->keep_err;
	for (k = f->last_i; k < f->last_i + f->last_n; k++)
		f->in_link[k]++;
	f->links++;
	if (f->last_n > f->max_link)
		f->max_link = f->last_n;
	return 0;
}

static bool fake_refuses(void *ctx, int err)
{
	(void)ctx;
	return err == -EINVAL;
}

static void fake_leave_out(void *ctx, size_t i, int err)
{
	struct fake *f = ctx;

	f->left_out[i]++;
	f->left_err = err;
}

static const struct halve_ops ops = {
	.link = fake_link, .keep = fake_keep, .refuses = fake_refuses,
	.leave_out = fake_leave_out,
};

static int run(struct fake *f, bool no_halving, size_t *cnt)
{
	struct halve_opts o = { .ctx = f, .no_halving = no_halving,
				.stop = &f->stop };

	*cnt = 0;
	return halve__links(&ops, &o, 0, f->n, cnt);
}

/* Each item in exactly one link or left out, the refused ones left out. */
static void assert_partition(const struct fake *f)
{
	size_t k;

	for (k = 0; k < f->n; k++) {
		assert_int_equal(f->in_link[k] + f->left_out[k], 1);
		assert_int_equal(f->left_out[k], f->refused[k]);
	}
}

static void test_one_link(void **s)
{
	struct fake f = { .n = 100 };
	size_t cnt;

	(void)s;
	assert_int_equal(run(&f, false, &cnt), 0);
	assert_int_equal(f.calls, 1);
	assert_int_equal(f.links, 1);
	assert_partition(&f);
}

static void test_refused_halves(void **s)
{
	static const size_t at[] = { 0, 1, 37, 500, 998, 999 };
	size_t j, cnt;

	(void)s;
	for (j = 0; j < sizeof(at) / sizeof(at[0]); j++) {
		struct fake f = { .n = 1000 };

		f.refused[at[j]] = true;
		assert_int_equal(run(&f, false, &cnt), 0);
		assert_partition(&f);
		assert_int_equal(f.left_err, EINVAL);
		/* one culprit: a link per level of the halving at most, plus one */
		assert_true(f.links <= 11);
	}
}

static void test_several_refused(void **s)
{
	struct fake f = { .n = 777 };
	size_t k, cnt;

	(void)s;
	for (k = 0; k < f.n; k += 50)
		f.refused[k] = true;
	f.refused[776] = true;
	assert_int_equal(run(&f, false, &cnt), 0);
	assert_partition(&f);
}

static void test_all_refused(void **s)
{
	struct fake f = { .n = 64 };
	size_t k, cnt;

	(void)s;
	for (k = 0; k < f.n; k++)
		f.refused[k] = true;
	assert_int_equal(run(&f, false, &cnt), 0);
	assert_int_equal(f.links, 0);
	assert_partition(&f);
}

static void test_enomem_halves(void **s)
{
	struct fake f = { .n = 1000, .mem_max = 100 };
	size_t cnt;

	(void)s;
	f.refused[321] = true;
	assert_int_equal(run(&f, false, &cnt), 0);
	assert_partition(&f);
	assert_true(f.max_link <= 100);
	assert_true(f.max_link > 50);	/* halved only as far as it must */
}

/* A function alone refused for memory: the attach's failure, nothing left out. */
static void test_enomem_alone_fails(void **s)
{
	struct fake f = { .n = 1, .mem_max = 0, .fail_at = 1, .fail_err = ENOMEM };
	size_t cnt;

	(void)s;
	assert_int_equal(run(&f, false, &cnt), -ENOMEM);
	assert_int_equal(cnt, 1);
	assert_int_equal(f.links, 0);
	assert_int_equal(f.left_out[0], 0);
}

static void test_no_halving(void **s)
{
	struct fake f = { .n = 50 };
	size_t cnt;

	(void)s;
	f.refused[10] = true;
	assert_int_equal(run(&f, true, &cnt), -EINVAL);
	assert_int_equal(cnt, 50);
	assert_int_equal(f.calls, 1);
	assert_int_equal(f.links, 0);
	assert_int_equal(f.left_out[10], 0);
}

static void test_other_error_stops(void **s)
{
	struct fake f = { .n = 200, .fail_at = 4, .fail_err = EPERM };
	size_t k, kept = 0, cnt;

	(void)s;
	f.refused[150] = true;	/* calls: all, [0,100), [100,200) ..., the 4th fails */
	assert_int_equal(run(&f, false, &cnt), -EPERM);
	assert_int_equal(f.calls, 4);
	for (k = 0; k < f.n; k++) {
		assert_true(f.in_link[k] <= 1);
		assert_int_equal(f.left_out[k], 0);
		kept += f.in_link[k];
	}
	assert_int_equal(kept, 100);	/* the first half stays with the caller */
	assert_int_equal(cnt, 50);
}

static void test_keep_error(void **s)
{
	struct fake f = { .n = 10, .keep_err = -ENOMEM };
	size_t cnt;

	(void)s;
	assert_int_equal(run(&f, false, &cnt), -ENOMEM);
	assert_int_equal(f.calls, 1);
}

static void test_stop(void **s)
{
	struct fake f = { .n = 100, .stop_after = 2 };
	size_t cnt;

	(void)s;
	f.refused[70] = true;
	assert_int_equal(run(&f, false, &cnt), -EINTR);
	assert_int_equal(f.calls, 2);	/* the whole, its first half: then stopped */
	f.stop = 1;
	f.calls = 0;
	f.stop_after = 0;
	assert_int_equal(run(&f, false, &cnt), -EINTR);
	assert_int_equal(f.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_link),
		cmocka_unit_test(test_refused_halves),
		cmocka_unit_test(test_several_refused),
		cmocka_unit_test(test_all_refused),
		cmocka_unit_test(test_enomem_halves),
		cmocka_unit_test(test_enomem_alone_fails),
		cmocka_unit_test(test_no_halving),
		cmocka_unit_test(test_other_error_stops),
		cmocka_unit_test(test_keep_error),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
