// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of ksymattach.conf: every key good and bad, the line rules (long
 * lines, BOM, NUL, CRLF, continuations, inline comments), line numbers, and
 * the shipped file and man page against the key table. The shipped files are
 * read from KSA_TOP (default: the working directory, the repository's top).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"

static char err[KSA_CONFIG_ERR_MAX];
static char dir[] = "/tmp/ksa-config.XXXXXX";

/* A config in memory; 0 or the error, with the message in err. */
static int parse_len(const char *text, size_t len, struct ksa_config **c)
{
	*c = NULL;
	return ksa_config__parse(text, len, NULL, c, err, sizeof(err));
}

static struct ksa_config *good(const char *text)
{
	struct ksa_config *c;

	if (parse_len(text, strlen(text), &c))
		fail_msg("rejected: %s\n%s", err, text);
	assert_non_null(c);
	return c;
}

/* text fails with exactly msg, *out untouched. */
static void bad(const char *text, const char *msg)
{
	struct ksa_config *c = (struct ksa_config *)&c;	/* a sentinel */

	assert_int_equal(ksa_config__parse(text, strlen(text), NULL, &c, err, sizeof(err)),
			 -EINVAL);
	assert_ptr_equal(c, (struct ksa_config *)&c);
	if (strcmp(err, msg))
		fail_msg("for:\n%s\nwant: %s\ngot:  %s", text, msg, err);
}

/* Like bad(), for a message that starts with prefix. */
static void bad_prefix(const char *text, const char *prefix)
{
	struct ksa_config *c = NULL;

	assert_int_equal(ksa_config__parse(text, strlen(text), NULL, &c, err, sizeof(err)),
			 -EINVAL);
	assert_null(c);
	if (strncmp(err, prefix, strlen(prefix)))
		fail_msg("for:\n%s\nwant: %s...\ngot:  %s", text, prefix, err);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s: %s (KSA_TOP is the repository's top)", path,
			 strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static const char *top_path(char *buf, size_t sz, const char *rel)
{
	const char *top = getenv("KSA_TOP");

	snprintf(buf, sz, "%s/%s", top ? top : ".", rel);
	return buf;
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Every value of a and b alike (names and key lines aside). */
static void assert_same_values(const struct ksa_config *a, const struct ksa_config *b)
{
	size_t i;

	assert_int_equal(a->pattern_cnt, b->pattern_cnt);
	for (i = 0; i < a->pattern_cnt; i++)
		assert_string_equal(a->patterns[i], b->patterns[i]);
	assert_int_equal(a->exclude_cnt, b->exclude_cnt);
	for (i = 0; i < a->exclude_cnt; i++)
		assert_string_equal(a->excludes[i], b->excludes[i]);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->resolver, b->resolver);
	assert_int_equal(a->fallback, b->fallback);
	assert_int_equal(a->link_batch, b->link_batch);
	assert_true(a->duration_s == b->duration_s);
	assert_true(a->interval_s == b->interval_s);
	assert_true(a->stall_threshold_s == b->stall_threshold_s);
	assert_string_equal(a->json_dir, b->json_dir);
	assert_true(!a->prom_file == !b->prom_file);
	if (a->prom_file)
		assert_string_equal(a->prom_file, b->prom_file);
	assert_int_equal(a->top, b->top);
	assert_int_equal(a->reports_kept, b->reports_kept);
	assert_int_equal(a->cache, b->cache);
}

static void test_defaults(void **state)
{
	struct ksa_config *c = good("pattern = vfs_*\n"), *d = ksa_config__new();
	int k;

	(void)state;
	assert_non_null(d);
	assert_int_equal(c->pattern_cnt, 1);
	assert_string_equal(c->patterns[0], "vfs_*");
	assert_int_equal(c->pattern_lines[0], 1);
	assert_int_equal(c->exclude_cnt, 0);
	assert_int_equal(c->mode, KATTACH_MULTI);
	assert_int_equal(c->resolver, KATTACH_RES_KSYM);
	assert_int_equal(c->fallback, KATTACH_FALLBACK_AUTO);
	assert_int_equal(c->link_batch, 0);
	assert_true(c->duration_s == 0);
	assert_true(c->interval_s == 15);
	assert_true(c->stall_threshold_s == 1.0);
	assert_string_equal(c->json_dir, "/var/lib/ksymattach");
	assert_string_equal(c->prom_file, "/var/lib/prometheus/node-exporter/ksymattach.prom");
	assert_int_equal(c->top, 20);
	assert_int_equal(c->reports_kept, 10);
	assert_true(c->cache);
	assert_string_equal(c->name, "<config>");
	for (k = 0; k < KSA_KEY__CNT; k++)
		assert_int_equal(c->key_line[k], k == KSA_KEY_PATTERN ? 1 : 0);
	/* the defaults without a file are the same */
	assert_int_equal(d->pattern_cnt, 0);
	d->pattern_cnt = 1;
	d->patterns = c->patterns;
	assert_same_values(c, d);
	d->pattern_cnt = 0;
	d->patterns = NULL;
	ksa_config__free(d);
	ksa_config__free(c);
	ksa_config__free(NULL);
}

/* Each key's table default, written in the file, is the default. */
static void test_key_table(void **state)
{
	struct ksa_config *base = good("pattern = x\n"), *c;
	char text[256];
	int k;

	(void)state;
	assert_null(ksa_config__key(KSA_KEY__CNT));
	assert_null(ksa_config__key((enum ksa_key)-1));
	for (k = 0; k < KSA_KEY__CNT; k++) {
		const struct ksa_config_key *d = ksa_config__key(k);

		assert_non_null(d);
		assert_non_null(d->name);
		assert_non_null(d->values);
		assert_non_null(d->desc);
		assert_int_equal(d->repeatable, k == KSA_KEY_PATTERN || k == KSA_KEY_EXCLUDE);
		assert_int_equal(!d->def, d->repeatable);
		if (!d->def)
			continue;
		snprintf(text, sizeof(text), "pattern = x\n%s = %s\n", d->name, d->def);
		c = good(text);
		assert_same_values(base, c);
		assert_int_equal(c->key_line[k], 2);
		ksa_config__free(c);
	}
	ksa_config__free(base);
}

struct good_case {
	const char *line;
	void (*check)(const struct ksa_config *c);
};

static void chk_session(const struct ksa_config *c)
{
	assert_int_equal(c->mode, KATTACH_SESSION);
}
static void chk_multi(const struct ksa_config *c)
{
	assert_int_equal(c->mode, KATTACH_MULTI);
}
static void chk_libbpf(const struct ksa_config *c)
{
	assert_int_equal(c->resolver, KATTACH_RES_LIBBPF);
}
static void chk_kernel(const struct ksa_config *c)
{
	assert_int_equal(c->resolver, KATTACH_RES_KERNEL);
}
static void chk_ksym(const struct ksa_config *c)
{
	assert_int_equal(c->resolver, KATTACH_RES_KSYM);
}
static void chk_links_one(const struct ksa_config *c)
{
	assert_int_equal(c->link_batch, 0);
}
static void chk_links_per(const struct ksa_config *c)
{
	assert_int_equal(c->link_batch, 1);
}
static void chk_links_64(const struct ksa_config *c)
{
	assert_int_equal(c->link_batch, 64);
}
static void chk_links_max(const struct ksa_config *c)
{
	assert_int_equal(c->link_batch, 1000000);
}
static void chk_fb_never(const struct ksa_config *c)
{
	assert_int_equal(c->fallback, KATTACH_FALLBACK_NEVER);
}
static void chk_fb_kprobe(const struct ksa_config *c)
{
	assert_int_equal(c->fallback, KATTACH_FALLBACK_KPROBE);
}
static void chk_fb_auto(const struct ksa_config *c)
{
	assert_int_equal(c->fallback, KATTACH_FALLBACK_AUTO);
}
static void chk_dur_0(const struct ksa_config *c)
{
	assert_true(c->duration_s == 0);
}
static void chk_dur_90(const struct ksa_config *c)
{
	assert_true(c->duration_s == 90);
}
static void chk_dur_1_5(const struct ksa_config *c)
{
	assert_true(c->duration_s == 1.5);
}
static void chk_dur_max(const struct ksa_config *c)
{
	assert_true(c->duration_s == 86400);
}
static void chk_int_1(const struct ksa_config *c)
{
	assert_true(c->interval_s == 1);
}
static void chk_int_1h(const struct ksa_config *c)
{
	assert_true(c->interval_s == 3600);
}
static void chk_int_30(const struct ksa_config *c)
{
	assert_true(c->interval_s == 30);
}
static void chk_json(const struct ksa_config *c)
{
	assert_string_equal(c->json_dir, "/srv/ksa reports/");
}
static void chk_prom(const struct ksa_config *c)
{
	assert_string_equal(c->prom_file, "/var/lib/node/ksa.prom");
}
static void chk_prom_off(const struct ksa_config *c)
{
	assert_null(c->prom_file);
}
static void chk_top_0(const struct ksa_config *c)
{
	assert_int_equal(c->top, 0);
}
static void chk_top_max(const struct ksa_config *c)
{
	assert_int_equal(c->top, 10000);
}
static void chk_cache_off(const struct ksa_config *c)
{
	assert_false(c->cache);
}
static void chk_cache_on(const struct ksa_config *c)
{
	assert_true(c->cache);
}
static void chk_kept_1(const struct ksa_config *c)
{
	assert_int_equal(c->reports_kept, 1);
}
static void chk_kept_max(const struct ksa_config *c)
{
	assert_int_equal(c->reports_kept, 1000);
}
static void chk_stall_small(const struct ksa_config *c)
{
	assert_true(c->stall_threshold_s == 0.25);
}
static void chk_stall_2m(const struct ksa_config *c)
{
	assert_true(c->stall_threshold_s == 120);
}

static void test_good_values(void **state)
{
	static const struct good_case cases[] = {
		{ "mode = session", chk_session },
		{ "mode=multi", chk_multi },
		{ "resolver = libbpf", chk_libbpf },
		{ "resolver = kernel", chk_kernel },
		{ "resolver = ksym", chk_ksym },
		{ "links = one", chk_links_one },
		{ "links = per-function", chk_links_per },
		{ "links = 1", chk_links_per },
		{ "links = 64", chk_links_64 },
		{ "links = 1000000", chk_links_max },
		{ "fallback = never", chk_fb_never },
		{ "fallback = kprobe", chk_fb_kprobe },
		{ "fallback = auto", chk_fb_auto },
		{ "duration = 0", chk_dur_0 },
		{ "duration = 0s", chk_dur_0 },
		{ "duration = 90", chk_dur_90 },
		{ "duration = 90s", chk_dur_90 },
		{ "duration = 1.5m", chk_dur_90 },
		{ "duration = 1.5", chk_dur_1_5 },
		{ "duration = 24h", chk_dur_max },
		{ "duration = 86400", chk_dur_max },
		{ "interval = 1", chk_int_1 },
		{ "interval = 1h", chk_int_1h },
		{ "interval = 60m", chk_int_1h },
		{ "interval = 30s", chk_int_30 },
		{ "interval = 0.5m", chk_int_30 },
		{ "json_dir = /srv/ksa reports/", chk_json },
		{ "prom_file = /var/lib/node/ksa.prom", chk_prom },
		{ "prom_file =", chk_prom_off },
		{ "prom_file = ; none", chk_prom_off },
		{ "top = 0", chk_top_0 },
		{ "top = 10000", chk_top_max },
		{ "cache = no", chk_cache_off },
		{ "cache = false", chk_cache_off },
		{ "cache = off", chk_cache_off },
		{ "cache = 0", chk_cache_off },
		{ "cache = yes", chk_cache_on },
		{ "cache = true", chk_cache_on },
		{ "cache = on", chk_cache_on },
		{ "cache = 1", chk_cache_on },
		{ "reports_kept = 1", chk_kept_1 },
		{ "reports_kept = 1000", chk_kept_max },
		{ "stall_threshold = 0.25", chk_stall_small },
		{ "stall_threshold = 2m", chk_stall_2m },
	};
	char text[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ksa_config *c;

		snprintf(text, sizeof(text), "pattern = x\n%s\n", cases[i].line);
		c = good(text);
		cases[i].check(c);
		ksa_config__free(c);
	}
}

static void test_bad_values(void **state)
{
	static const char *const cases[][2] = {
		{ "mode = multii", "invalid mode 'multii' (multi or session)" },
		{ "mode = Multi", "invalid mode 'Multi' (multi or session)" },
		{ "mode =", "invalid mode '' (multi or session)" },
		{ "resolver = bpf", "invalid resolver 'bpf' (ksym, libbpf or kernel)" },
		{ "links = 0", "invalid links '0' (one, per-function or functions per link, "
			       "1..1000000)" },
		{ "links = 1000001", "invalid links '1000001' (one, per-function or functions "
				     "per link, 1..1000000)" },
		{ "links = two", "invalid links 'two' (one, per-function or functions per link, "
				 "1..1000000)" },
		{ "links = -1", "invalid links '-1' (one, per-function or functions per link, "
				"1..1000000)" },
		{ "fallback = yes", "invalid fallback 'yes' (auto, never or kprobe)" },
		{ "duration = -1", "invalid duration '-1' (seconds, 0..86400, suffix s, m or h)" },
		{ "duration = 86401", "invalid duration '86401' (seconds, 0..86400, suffix s, m "
				      "or h)" },
		{ "duration = 25h", "invalid duration '25h' (seconds, 0..86400, suffix s, m or "
				    "h)" },
		{ "duration = 1d", "invalid duration '1d' (seconds, 0..86400, suffix s, m or h)" },
		{ "duration = 5 s", "invalid duration '5 s' (seconds, 0..86400, suffix s, m or "
				    "h)" },
		{ "duration = 0x10", "invalid duration '0x10' (seconds, 0..86400, suffix s, m or "
				     "h)" },
		{ "duration = 1e3", "invalid duration '1e3' (seconds, 0..86400, suffix s, m or "
				    "h)" },
		{ "duration = inf", "invalid duration 'inf' (seconds, 0..86400, suffix s, m or "
				    "h)" },
		{ "duration = 1.", "invalid duration '1.' (seconds, 0..86400, suffix s, m or h)" },
		{ "duration = .5", "invalid duration '.5' (seconds, 0..86400, suffix s, m or h)" },
		{ "duration = 1,5", "invalid duration '1,5' (seconds, 0..86400, suffix s, m or "
				    "h)" },
		{ "duration = 5ms", "invalid duration '5ms' (seconds, 0..86400, suffix s, m or "
				    "h)" },
		{ "interval = 0", "invalid interval '0' (seconds, 1..3600, suffix s, m or h)" },
		{ "interval = 0.5", "invalid interval '0.5' (seconds, 1..3600, suffix s, m or h)" },
		{ "interval = 61m", "invalid interval '61m' (seconds, 1..3600, suffix s, m or h)" },
		{ "interval =", "invalid interval '' (seconds, 1..3600, suffix s, m or h)" },
		{ "json_dir = var/lib/x", "json_dir 'var/lib/x' is not an absolute path" },
		{ "json_dir =", "json_dir '' is not an absolute path" },
		{ "json_dir = \"/var/lib/x\"", "json_dir '\"/var/lib/x\"' is not an absolute path "
					       "(values are not quoted)" },
		{ "prom_file = /var/lib/x.txt", "prom_file '/var/lib/x.txt' does not end in .prom "
						"(node_exporter reads *.prom only)" },
		{ "prom_file = x.prom", "prom_file 'x.prom' is not an absolute path" },
		{ "prom_file = /var/lib/.prom", "prom_file '/var/lib/.prom' has no name before "
						".prom" },
		{ "prom_file = /var/lib/x.prom/", "prom_file '/var/lib/x.prom/' does not end in "
						  ".prom (node_exporter reads *.prom only)" },
		{ "top = 10001", "invalid top '10001' (0..10000)" },
		{ "top = -1", "invalid top '-1' (0..10000)" },
		{ "top = 99999999999999999999999", "invalid top '99999999999999999999999' "
						   "(0..10000)" },
		{ "cache = maybe", "invalid cache 'maybe' (yes or no)" },
		{ "cache = YES", "invalid cache 'YES' (yes or no)" },
		{ "reports_kept = 0", "invalid reports_kept '0' (1..1000)" },
		{ "reports_kept = 1001", "invalid reports_kept '1001' (1..1000)" },
		{ "stall_threshold = 0", "invalid stall_threshold '0' (seconds, more than 0 up to "
					 "86400, suffix s, m or h)" },
		{ "stall_threshold = 0.0", "invalid stall_threshold '0.0' (seconds, more than 0 "
					   "up to 86400, suffix s, m or h)" },
		{ "stall_threshold = -1", "invalid stall_threshold '-1' (seconds, more than 0 up "
					  "to 86400, suffix s, m or h)" },
		{ "stall_threshold = nan", "invalid stall_threshold 'nan' (seconds, more than 0 "
					   "up to 86400, suffix s, m or h)" },
	};
	char text[256], msg[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "pattern = x\n%s\n", cases[i][0]);
		snprintf(msg, sizeof(msg), "<config>:2: %s", cases[i][1]);
		bad(text, msg);
	}
	/* a very long value is cut in the message, not in the check */
	{
		char big[1200];

		memset(big, 'a', 1000);
		big[1000] = '\0';
		snprintf(text, sizeof(text), "pattern = x\nmode = ");
		{
			char *t = malloc(strlen(text) + sizeof(big) + 2);

			sprintf(t, "%s%s\n", text, big);
			bad_prefix(t, "<config>:2: invalid mode 'aaaa");
			assert_non_null(strstr(err, "...' (multi or session)"));
			assert_true(strlen(err) < 160);
			free(t);
		}
	}
}

static void test_unknown_key(void **state)
{
	(void)state;
	bad("pattern = x\nmoed = multi\n",
	    "<config>:2: unknown key 'moed' (did you mean 'mode'?)");
	bad("pattern = x\npatterns = y\n",
	    "<config>:2: unknown key 'patterns' (did you mean 'pattern'?)");
	bad("pattern = x\nMode = multi\n",
	    "<config>:2: unknown key 'Mode' (did you mean 'mode'?)");
	bad("pattern = x\nverbose = yes\n", "<config>:2: unknown key 'verbose'");
	bad("pattern = x\nx = 1\n", "<config>:2: unknown key 'x'");
	bad("pattern = x\n= 1\n", "<config>:2: no key before '='");
	bad("pattern = x\nmode\n", "<config>:2: expected 'key = value'");
	bad("pattern = x\nmode: multi\n",
	    "<config>:2: expected 'key = value', not 'key: value'");
	bad("pattern = x\n9p:v9fs_* = y\n",
	    "<config>:2: expected 'key = value', not 'key: value'");
	bad("pattern = x\nmode ;= multi\n", "<config>:2: expected 'key = value'");
	bad("pattern = x\nm\xc3\xb6"
	    "de = multi\n",
	    "<config>:2: unknown key 'm\\xc3\\xb6de' (did you mean 'mode'?)");
}

static void test_duplicate(void **state)
{
	(void)state;
	bad("pattern = x\n# c\n\nmode = multi\nresolver = ksym\nmode = session\n",
	    "<config>:6: duplicate key 'mode' (first set on line 4)");
	/* an invalid first one still counts as set */
	bad("pattern = x\nprom_file =\nprom_file =\n",
	    "<config>:3: duplicate key 'prom_file' (first set on line 2)");
	bad("pattern = x\ncache = yes\ncache = yes\n",
	    "<config>:3: duplicate key 'cache' (first set on line 2)");
}

static void test_repeated(void **state)
{
	struct ksa_config *c = good("pattern = vfs_*\n"
				    "exclude = vfs_fsync*\n"
				    "; tcp\n"
				    "pattern = tcp_*\n"
				    "pattern = 9p:v9fs_*\n"
				    "exclude = tcp_v6_*\n"
				    "pattern = vfs_*\n"
				    "pattern = :ext4_*\n");

	(void)state;
	assert_int_equal(c->pattern_cnt, 5);
	assert_string_equal(c->patterns[0], "vfs_*");
	assert_string_equal(c->patterns[1], "tcp_*");
	assert_string_equal(c->patterns[2], "9p:v9fs_*");
	assert_string_equal(c->patterns[3], "vfs_*");	/* as given: the engine dedups */
	assert_string_equal(c->patterns[4], ":ext4_*");
	assert_int_equal(c->pattern_lines[0], 1);
	assert_int_equal(c->pattern_lines[1], 4);
	assert_int_equal(c->pattern_lines[2], 5);
	assert_int_equal(c->pattern_lines[3], 7);
	assert_int_equal(c->pattern_lines[4], 8);
	assert_int_equal(c->exclude_cnt, 2);
	assert_string_equal(c->excludes[0], "vfs_fsync*");
	assert_string_equal(c->excludes[1], "tcp_v6_*");
	assert_int_equal(c->exclude_lines[1], 6);
	assert_int_equal(c->key_line[KSA_KEY_PATTERN], 1);
	assert_int_equal(c->key_line[KSA_KEY_EXCLUDE], 2);
	ksa_config__free(c);
}

static void test_many_patterns(void **state)
{
	size_t cap = (KSA_CONFIG_GLOBS_MAX + 1) * 24, n = 0;
	char *text = malloc(cap);
	struct ksa_config *c;
	int i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < KSA_CONFIG_GLOBS_MAX; i++)
		n += snprintf(text + n, cap - n, "pattern = f%d_*\n", i);
	c = good(text);
	assert_int_equal(c->pattern_cnt, KSA_CONFIG_GLOBS_MAX);
	assert_string_equal(c->patterns[KSA_CONFIG_GLOBS_MAX - 1], "f255_*");
	ksa_config__free(c);
	snprintf(text + n, cap - n, "pattern = one_more\n");
	bad(text, "<config>:257: too many patterns (at most 256)");
	free(text);
}

static void test_section(void **state)
{
	(void)state;
	bad("pattern = x\n[ksymattach]\nmode = multi\n", "<config>:2: sections are not used");
	bad("  [x\npattern = x\n", "<config>:1: sections are not used");
}

static void test_no_pattern(void **state)
{
	struct ksa_config *c = NULL;

	(void)state;
	bad("mode = multi\n", "<config>: no pattern given (at least one 'pattern = GLOB' line)");
	bad("", "<config>: no pattern given (at least one 'pattern = GLOB' line)");
	bad("# pattern = vfs_*\n\n",
	    "<config>: no pattern given (at least one 'pattern = GLOB' line)");
	bad("exclude = vfs_*\n", "<config>: no pattern given (at least one 'pattern = GLOB' line)");
	/* parse takes a length, not a string */
	assert_int_equal(ksa_config__parse(NULL, 0, NULL, &c, err, sizeof(err)), -EINVAL);
	assert_null(c);
	assert_string_equal(err, "<config>: no pattern given (at least one 'pattern = GLOB' line)");
	/* nonsense arguments: an error, not a crash */
	assert_int_equal(ksa_config__parse(NULL, 1, NULL, &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(ksa_config__parse("pattern = x", 11, NULL, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(ksa_config__load(NULL, NULL, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<config>: invalid argument");
	assert_null(c);
}

static void test_never_matching(void **state)
{
	static const char *const cases[][2] = {
		{ "", "empty" },
		{ "vfs read", "contains whitespace" },
		{ "vfs_*\tx", "contains whitespace" },
		{ "vfs_* # the vfs", "contains whitespace ('#' starts a comment only at the start "
				     "of a line)" },
		{ "vfs_#x", "has '#', which no kernel function name has" },
		{ "vfs/read", "has '/', which no kernel function name has" },
		{ "'vfs_*'", "has ''', which no kernel function name has (values are not "
			     "quoted)" },
		{ "\"vfs_*\"", "has '\"', which no kernel function name has (values are not "
			       "quoted)" },
		{ "vfs_\xc3\xa9", "has '\\xc3', which no kernel function name has" },
		{ "vfs_[a-z", "unterminated '['" },
		{ "[", "unterminated '['" },
		{ "vfs_[]", "unterminated '['" },
		{ "vfs_[!a-zA-Z0-9_.$]", "'[!a-zA-Z0-9_.$]' matches no character of a function "
					 "name" },
		{ "vfs_[-]", "'[-]' matches no character of a function name" },
		{ "vfs-read", "has '-' outside '[...]', which no kernel function name has" },
		{ "vfs_!x", "has '!' outside '[...]', which no kernel function name has" },
		{ "vfs_]", "has ']' outside '[...]', which no kernel function name has" },
		{ "[]]x", "'[]]' matches no character of a function name" },
		{ "9p:", "no function name after ':'" },
		{ ":", "no function name after ':'" },
		{ "9p*:v9fs_*", "the module part is a glob: modules are matched by their exact "
				"name" },
		{ "[a-z]p:v9fs", "the module part is a glob: modules are matched by their exact "
				 "name" },
		{ "9p.ko:v9fs", "the module part has '.', which no module name has" },
		{ "a:b:c", "more than one ':' (function names have none)" },
	};
	char text[256], msg[512], why[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "pattern = x\npattern = %s\n", cases[i][0]);
		snprintf(msg, sizeof(msg), "<config>:2: pattern '%s' can never match: %s",
			 cases[i][0], cases[i][1]);
		/* the message escapes what would not print */
		if (strchr(cases[i][0], '\t') || strchr(cases[i][0], '\xc3'))
			bad_prefix(text, "<config>:2: pattern '");
		else
			bad(text, msg);
		assert_non_null(strstr(err, cases[i][1]));
		/* the same for exclude, and through the API the CLI can use */
		snprintf(text, sizeof(text), "pattern = x\nexclude = %s\n", cases[i][0]);
		bad_prefix(text, "<config>:2: exclude '");
		assert_int_equal(ksym_glob_check(cases[i][0], why, sizeof(why)), -EINVAL);
		assert_string_equal(why, cases[i][1]);
	}
	/* glob characters where they mean something, and the limits exactly */
	{
		static const char *const ok[] = { "vfs_*", "vfs_rea?", "vfs_[rw]*", "vfs_[!r]*",
						  "vfs_[^r]*", "[]a]x", "vfs_[a-z-]", "*", "?",
						  "9p:v9fs_*", "nf-conntrack:nf_*", ":vfs_*",
						  "__x64_sys_read", "foo.cold", "foo.isra.0",
						  "$x", "[!-]*" };
		char name[KSA_CONFIG_NAME_MAX + 2], mod[KSA_CONFIG_MODULE_MAX + 2 + 4];

		for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			if (ksym_glob_check(ok[i], why, sizeof(why)))
				fail_msg("'%s' refused: %s", ok[i], why);
		memset(name, 'a', KSA_CONFIG_NAME_MAX);
		name[KSA_CONFIG_NAME_MAX] = '\0';
		assert_int_equal(ksym_glob_check(name, why, sizeof(why)), 0);
		strcat(name, "a");
		assert_int_equal(ksym_glob_check(name, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "the function name is longer than 511 characters");
		memset(mod, 'm', KSA_CONFIG_MODULE_MAX);
		strcpy(mod + KSA_CONFIG_MODULE_MAX, ":f");
		assert_int_equal(ksym_glob_check(mod, why, sizeof(why)), 0);
		memset(mod, 'm', KSA_CONFIG_MODULE_MAX + 1);
		strcpy(mod + KSA_CONFIG_MODULE_MAX + 1, ":f");
		assert_int_equal(ksym_glob_check(mod, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "the module part is longer than 63 characters");
		/* NULL why is fine */
		assert_int_equal(ksym_glob_check("", NULL, 0), -EINVAL);
	}
}

static void test_exclude_covers(void **state)
{
	struct ksa_config *c;

	(void)state;
	bad("pattern = vfs_*\nexclude = vfs_*\n",
	    "<config>:2: exclude 'vfs_*' is also a pattern (line 1): it would exclude everything "
	    "that pattern matches");
	bad("exclude = vfs_read\n\npattern = vfs_read\n",
	    "<config>:3: pattern 'vfs_read' is also an exclude (line 1): it would exclude "
	    "everything that pattern matches");
	bad("pattern = vfs_read\nexclude = vfs_*\n",
	    "<config>:2: exclude 'vfs_*' leaves nothing of pattern 'vfs_read' (line 1)");
	bad("exclude = vfs_*\npattern = tcp_*\npattern = vfs_read\n",
	    "<config>:3: pattern 'vfs_read' is left out entirely by exclude 'vfs_*' (line 1)");
	bad("pattern = tcp_*\nexclude = *\n",
	    "<config>:2: exclude '*' leaves nothing of pattern 'tcp_*' (line 1)");
	bad("pattern = 9p:v9fs_*\nexclude = **\n",
	    "<config>:2: exclude '**' leaves nothing of pattern '9p:v9fs_*' (line 1)");
	bad("pattern = 9p:v9fs_read\nexclude = v9fs_*\n",
	    "<config>:2: exclude 'v9fs_*' leaves nothing of pattern '9p:v9fs_read' (line 1)");
	bad("pattern = :vfs_read\nexclude = :vfs_*\n",
	    "<config>:2: exclude ':vfs_*' leaves nothing of pattern ':vfs_read' (line 1)");
	/* what may leave something: another module, a glob pattern, any module */
	c = good("pattern = 9p:v9fs_read\nexclude = nfs:v9fs_*\n"
		 "pattern = vfs_*\nexclude = vfs_read*\n"
		 "pattern = ext4_read\nexclude = :ext4_*\n"
		 "pattern = 9p:*\nexclude = :*\n"
		 "pattern = xfs_*\nexclude = xfs:*\n");
	assert_int_equal(c->pattern_cnt, 5);
	assert_int_equal(c->exclude_cnt, 5);
	ksa_config__free(c);
}

static void test_crlf(void **state)
{
	struct ksa_config *c;

	(void)state;
	c = good("pattern = vfs_*\r\nmode = session\r\n# c\r\n\r\nprom_file =\r\n"
		 "json_dir = /var/x\r\n");
	assert_int_equal(c->mode, KATTACH_SESSION);
	assert_string_equal(c->patterns[0], "vfs_*");
	assert_null(c->prom_file);
	assert_string_equal(c->json_dir, "/var/x");
	ksa_config__free(c);
	bad("pattern = x\r\n\r\nmode = y\r\n",
	    "<config>:3: invalid mode 'y' (multi or session)");
	/* a CR alone is no line end */
	bad("pattern = x\rmode = multi\n", "<config>:1: control character 0x0d");
	/* CR at the very end, without LF */
	c = good("pattern = x\r");
	assert_string_equal(c->patterns[0], "x");
	ksa_config__free(c);
}

static void test_no_trailing_newline(void **state)
{
	struct ksa_config *c;

	(void)state;
	c = good("mode = session\npattern = vfs_read");
	assert_string_equal(c->patterns[0], "vfs_read");
	assert_int_equal(c->pattern_lines[0], 2);
	ksa_config__free(c);
	bad("pattern = x\nmode = y", "<config>:2: invalid mode 'y' (multi or session)");
}

static void test_bom(void **state)
{
	struct ksa_config *c;

	(void)state;
	c = good("\xef\xbb\xbfpattern = vfs_*\n");
	assert_string_equal(c->patterns[0], "vfs_*");
	ksa_config__free(c);
	c = good("\xef\xbb\xbf# comment\r\npattern = vfs_*\r\n");
	assert_int_equal(c->pattern_lines[0], 2);
	ksa_config__free(c);
}

static void test_bom_only_first(void **state)
{
	(void)state;
	bad("pattern = x\n\xef\xbb\xbfmode = multi\n",
	    "<config>:2: unknown key '\\xef\\xbb\\xbfmode'");
	bad("\xef\xbb\xbf", "<config>: no pattern given (at least one 'pattern = GLOB' line)");
	/* a second one right after the first (an editor's doubled BOM): harmless */
	ksa_config__free(good("\xef\xbb\xbf\xef\xbb\xbfpattern = x\n"));
}

static void test_nul_and_control(void **state)
{
	static const char nul[] = "pattern = x\nmode = multi\0session\n";
	static const char nul_comment[] = "pattern = x\n# a\0b\n";
	struct ksa_config *c = NULL;

	(void)state;
	assert_int_equal(parse_len(nul, sizeof(nul) - 1, &c), -EINVAL);
	assert_null(c);
	assert_string_equal(err, "<config>:2: NUL byte");
	/* even in a comment: a NUL is no text */
	assert_int_equal(parse_len(nul_comment, sizeof(nul_comment) - 1, &c), -EINVAL);
	assert_string_equal(err, "<config>:2: NUL byte");
	assert_int_equal(parse_len("\0", 1, &c), -EINVAL);
	assert_string_equal(err, "<config>:1: NUL byte");
	bad("pattern = x\x01y\n", "<config>:1: control character 0x01");
	bad("pattern = x\n\x1b[31mmode = multi\n", "<config>:2: control character 0x1b");
	bad("pattern = x\x7f\n", "<config>:1: control character 0x7f");
	bad("pattern = x\fy\n", "<config>:1: control character 0x0c");
}

static void test_long_lines(void **state)
{
	char *text = malloc(KSA_CONFIG_LINE_MAX * 2 + 64), *p;
	struct ksa_config *c;
	size_t n;

	(void)state;
	assert_non_null(text);
	/* a 600-character line: a longest name, a module, a comment */
	p = text + sprintf(text, "pattern = some_module:");
	memset(p, 'f', KSA_CONFIG_NAME_MAX);
	p += KSA_CONFIG_NAME_MAX;
	p += sprintf(p, " ; ");
	while (p - text < 600)
		*p++ = 'c';
	strcpy(p, "\nmode = session\n");
	assert_int_equal(strchr(text, '\n') - text, 600);
	c = good(text);
	assert_int_equal(strlen(c->patterns[0]), strlen("some_module:") + KSA_CONFIG_NAME_MAX);
	assert_int_equal(c->mode, KATTACH_SESSION);
	ksa_config__free(c);
	/* a name too long is said so, not cut */
	p = text + sprintf(text, "pattern = ");
	memset(p, 'f', 590);
	strcpy(p + 590, "\n");
	bad(text, "<config>:1: pattern 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
		  "ffffffffffffffff...' can never match: the function name is longer than 511 "
		  "characters");
	/* the line limit exactly, as a comment and as a path */
	n = sprintf(text, "pattern = x\n#");
	memset(text + n, '#', KSA_CONFIG_LINE_MAX - 1);
	strcpy(text + n + KSA_CONFIG_LINE_MAX - 1, "\r\nmode = session\n");
	c = good(text);
	assert_int_equal(c->mode, KATTACH_SESSION);
	ksa_config__free(c);
	n = sprintf(text, "pattern = x\njson_dir = /");
	memset(text + n, 'd', KSA_CONFIG_LINE_MAX - strlen("json_dir = /"));
	strcpy(text + n + KSA_CONFIG_LINE_MAX - strlen("json_dir = /"), "\n");
	c = good(text);
	assert_int_equal(strlen(c->json_dir), KSA_CONFIG_LINE_MAX - strlen("json_dir = "));
	ksa_config__free(c);
	/* one more: an error, not a line cut in two */
	n = sprintf(text, "pattern = x\n#");
	memset(text + n, '#', KSA_CONFIG_LINE_MAX);
	strcpy(text + n + KSA_CONFIG_LINE_MAX, "\nmode = session\n");
	bad(text, "<config>:2: line longer than 4096 characters");
	n = sprintf(text, "pattern = x\n\n\npattern = ");
	memset(text + n, 'f', KSA_CONFIG_LINE_MAX * 2);
	text[n + KSA_CONFIG_LINE_MAX * 2] = '\0';
	bad(text, "<config>:4: line longer than 4096 characters");
	free(text);
}

static void test_size_bound(void **state)
{
	size_t n = KSA_CONFIG_SIZE_MAX;
	char *text = malloc(n + 2);
	struct ksa_config *c;
	char path[64];
	size_t i;

	(void)state;
	assert_non_null(text);
	/* exactly the bound: comment lines, a pattern at the end */
	for (i = 0; i < n; i++)
		text[i] = i % 64 == 63 ? '\n' : '#';
	memcpy(text + n - 12, "\npattern=x\n", 11);
	text[n - 1] = '\n';
	assert_int_equal(parse_len(text, n, &c), 0);
	assert_string_equal(c->patterns[0], "x");
	ksa_config__free(c);
	snprintf(path, sizeof(path), "%s/big", dir);
	write_file(path, text, n);
	assert_int_equal(ksa_config__load(path, NULL, &c, err, sizeof(err)), 0);
	ksa_config__free(c);
	/* one byte more */
	text[n] = '\n';
	assert_int_equal(parse_len(text, n + 1, &c), -EFBIG);
	assert_null(c);
	assert_string_equal(err, "<config>: larger than 1 MiB");
	write_file(path, text, n + 1);
	assert_int_equal(ksa_config__load(path, NULL, &c, err, sizeof(err)), -EFBIG);
	snprintf(text, 128, "%s: larger than 1 MiB", path);
	assert_string_equal(err, text);
	unlink(path);
	/* an endless file */
	assert_int_equal(ksa_config__load("/dev/zero", NULL, &c, err, sizeof(err)), -EFBIG);
	assert_string_equal(err, "/dev/zero: larger than 1 MiB");
	assert_null(c);
	free(text);
}

static void test_files(void **state)
{
	struct ksa_config *c = NULL;
	struct ksa_config_opts o = { .sz = sizeof(o), .name = "ksymattach.conf" };
	char path[64], want[128];

	(void)state;
	assert_int_equal(ksa_config__load("/nonexistent/ksymattach.conf", NULL, &c, err,
					  sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/ksymattach.conf: cannot open: No such file or "
				 "directory");
	assert_null(c);
	assert_int_equal(ksa_config__load(dir, NULL, &c, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "%s: cannot open: Is a directory", dir);
	assert_string_equal(err, want);
	assert_null(c);
	/* a file: its path in errors and in the config, or opts' name */
	snprintf(path, sizeof(path), "%s/k.conf", dir);
	write_file(path, "pattern = vfs_*\n\nmoed = multi\n", 30);
	assert_int_equal(ksa_config__load(path, NULL, &c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: unknown key 'moed' (did you mean 'mode'?)", path);
	assert_string_equal(err, want);
	assert_int_equal(ksa_config__load(path, &o, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "ksymattach.conf:3: unknown key 'moed' (did you mean 'mode'?)");
	write_file(path, "pattern = vfs_*\n", 16);
	assert_int_equal(ksa_config__load(path, NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(c->name, path);
	assert_string_equal(err, "");
	ksa_config__free(c);
	/* unreadable: not for root, who reads anything */
	if (geteuid()) {
		chmod(path, 0);
		assert_int_equal(ksa_config__load(path, NULL, &c, err, sizeof(err)), -EACCES);
	}
	unlink(path);
	/* a small err buffer is cut, never overrun; none at all is fine */
	{
		char small[12];

		memset(small, 'x', sizeof(small));
		assert_int_equal(ksa_config__parse("mode = x\n", 9, NULL, &c, small, 8), -EINVAL);
		assert_string_equal(small, "<config");
		assert_int_equal(small[8], 'x');
		assert_int_equal(ksa_config__parse("mode = x\n", 9, NULL, &c, NULL, 0), -EINVAL);
	}
}

/* Lines counted right through comments, blanks, CRLF, refused lines, a BOM. */
static void test_line_numbers(void **state)
{
	(void)state;
	bad("# ksymattach\n"
	    "\n"
	    "   ; indented comment\n"
	    "pattern = vfs_*\n"
	    "\t\n"
	    "# mode = bad, but a comment\n"
	    "mode = session\n"
	    "\n"
	    "resolver = nope\n",
	    "<config>:9: invalid resolver 'nope' (ksym, libbpf or kernel)");
	bad("\xef\xbb\xbf\r\n#\r\npattern = x\r\n\r\n\r\ntop = x\r\n",
	    "<config>:6: invalid top 'x' (0..10000)");
	bad("pattern = x\n\n\n\n\n\n\n\n\n\n\n\nstall_threshold = -\n",
	    "<config>:13: invalid stall_threshold '-' (seconds, more than 0 up to 86400, suffix "
	    "s, m or h)");
}

static void test_inline_comments(void **state)
{
	struct ksa_config *c;

	(void)state;
	/* " ;" starts a comment (as in inih); '#' and a ';' without a blank do not */
	c = good("pattern = vfs_* ; the VFS\nmode = session\t; latency\n"
		 "json_dir = /var/lib/a;b\n");
	assert_string_equal(c->patterns[0], "vfs_*");
	assert_int_equal(c->mode, KATTACH_SESSION);
	assert_string_equal(c->json_dir, "/var/lib/a;b");
	ksa_config__free(c);
	bad("pattern = vfs_* # the VFS\n",
	    "<config>:1: pattern 'vfs_* # the VFS' can never match: contains whitespace ('#' "
	    "starts a comment only at the start of a line)");
	bad("pattern = x\nmode = multi # hits\n",
	    "<config>:2: invalid mode 'multi # hits' (multi or session)");
	bad("pattern = x\nmode = multi;x\n",
	    "<config>:2: invalid mode 'multi;x' (multi or session)");
	bad("pattern = vfs_*#x\n", "<config>:1: pattern 'vfs_*#x' can never match: has '#', "
				   "which no kernel function name has");
	/* a path may hold '#': kept whole */
	c = good("pattern = x\njson_dir = /var/lib/#ksa\n");
	assert_string_equal(c->json_dir, "/var/lib/#ksa");
	ksa_config__free(c);
}

static void test_continuation(void **state)
{
	struct ksa_config *c;

	(void)state;
	/* inih would hand "tcp_*" as a second value of pattern: this reader says no */
	bad("pattern = vfs_*\n    tcp_*\n",
	    "<config>:2: expected 'key = value' (an indented line does not continue the one "
	    "before)");
	bad("pattern = x\nmode =\n  session\n",
	    "<config>:2: invalid mode '' (multi or session)");
	/* an indented key line is a key line */
	c = good("pattern = vfs_*\n\tmode = session\n   pattern = tcp_*\n");
	assert_int_equal(c->mode, KATTACH_SESSION);
	assert_int_equal(c->pattern_cnt, 2);
	assert_string_equal(c->patterns[1], "tcp_*");
	ksa_config__free(c);
}

static void test_whitespace(void **state)
{
	struct ksa_config *c;

	(void)state;
	c = good("  pattern\t=\t vfs_*  \t\nmode=session\n json_dir =/x y  \n");
	assert_string_equal(c->patterns[0], "vfs_*");
	assert_int_equal(c->mode, KATTACH_SESSION);
	assert_string_equal(c->json_dir, "/x y");
	ksa_config__free(c);
	/* '=' in a value is the value's */
	bad("pattern = a=b\n", "<config>:1: pattern 'a=b' can never match: has '=', which no "
			       "kernel function name has");
}

struct collected {
	char msgs[64][256];
	int n;
};

static void collect(const char *msg, void *ctx)
{
	struct collected *col = ctx;

	assert_null(strchr(msg, '\n'));
	if (col->n < 64)
		snprintf(col->msgs[col->n], sizeof(col->msgs[0]), "%s", msg);
	col->n++;
}

static void test_all_errors(void **state)
{
	static struct collected col;
	struct ksa_config_opts o = { .sz = sizeof(o), .error_fn = collect, .error_ctx = &col };
	struct ksa_config *c = NULL;
	const char *text = "moed = multi\n[x]\nmode = y\nmode = multi\nexclude = a b\ntop = x\n";
	char *many;
	size_t n = 0;
	int i;

	(void)state;
	assert_int_equal(ksa_config__parse(text, strlen(text), &o, &c, err, sizeof(err)), -EINVAL);
	assert_null(c);
	assert_int_equal(col.n, 7);
	assert_string_equal(col.msgs[0], "<config>:1: unknown key 'moed' (did you mean 'mode'?)");
	assert_string_equal(col.msgs[1], "<config>:2: sections are not used");
	assert_string_equal(col.msgs[2], "<config>:3: invalid mode 'y' (multi or session)");
	assert_string_equal(col.msgs[3], "<config>:4: duplicate key 'mode' (first set on line 3)");
	assert_string_equal(col.msgs[4], "<config>:5: exclude 'a b' can never match: contains "
					 "whitespace");
	assert_string_equal(col.msgs[5], "<config>:6: invalid top 'x' (0..10000)");
	assert_string_equal(col.msgs[6], "<config>: no pattern given (at least one "
					 "'pattern = GLOB' line)");
	/* err has the first */
	assert_string_equal(err, col.msgs[0]);
	/* at most 50, then one line saying so */
	many = malloc(100 * 16);
	assert_non_null(many);
	for (i = 0; i < 100; i++)
		n += sprintf(many + n, "x%d = 1\n", i);
	col.n = 0;
	assert_int_equal(ksa_config__parse(many, n, &o, &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(col.n, 51);
	assert_string_equal(col.msgs[49], "<config>:50: unknown key 'x49'");
	assert_string_equal(col.msgs[50], "<config>: too many errors, stopped");
	free(many);
	/* a valid file calls nothing */
	col.n = 0;
	assert_int_equal(ksa_config__parse("pattern = x\n", 12, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(col.n, 0);
	ksa_config__free(c);
}

/* An older caller's smaller opts: what it has is used, the rest is default. */
static void test_opts_sz(void **state)
{
	struct ksa_config_opts o = { .sz = offsetof(struct ksa_config_opts, error_fn),
				     .name = "old", .error_fn = collect, .error_ctx = NULL };
	struct ksa_config *c = NULL;

	(void)state;
	/* error_fn lies past sz: not called (it would assert on a NULL ctx) */
	assert_int_equal(ksa_config__parse("mode = x\nmode = y\n", 18, &o, &c, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "old:1: invalid mode 'x' (multi or session)");
	o.sz = sizeof(size_t);
	assert_int_equal(ksa_config__parse("mode = x\n", 9, &o, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<config>:1: invalid mode 'x' (multi or session)");
}

/* The shipped file is valid as shipped, and each line commented out is the default. */
static void test_dist_file(void **state)
{
	struct ksa_config *c, *base, *u;
	char path[512], *text, *line, *next, *copy;
	size_t len, seen = 0;
	int k;

	(void)state;
	text = read_all(top_path(path, sizeof(path), "dist/ksymattach.conf"), &len);
	assert_int_equal(ksa_config__load(path, NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(c->pattern_cnt, 1);
	assert_string_equal(c->patterns[0], "vfs_*");
	base = good("pattern = vfs_*\n");
	assert_same_values(base, c);
	ksa_config__free(c);
	/* uncomment each "#key = value" line alone */
	for (line = text; *line; line = next) {
		size_t klen;

		next = line + strcspn(line, "\n");
		next += !!*next;
		if (line[0] != '#' || line[1] == ' ' || line[1] == '\n' || line[1] == '#')
			continue;
		klen = strcspn(line + 1, " =");
		for (k = 0; k < KSA_KEY__CNT; k++)
			if (strlen(ksa_config__key(k)->name) == klen &&
			    !strncmp(line + 1, ksa_config__key(k)->name, klen))
				break;
		if (k == KSA_KEY__CNT)
			fail_msg("dist/ksymattach.conf: unknown key in: %.40s", line);
		/* in enum ksa_key's order, each once */
		assert_true(seen < 1u << k);
		seen |= 1u << k;
		copy = strdup(text);
		assert_non_null(copy);
		copy[line - text] = ' ';
		if (parse_len(copy, len, &u))
			fail_msg("dist/ksymattach.conf with %.40s uncommented: %s", line, err);
		assert_int_equal(u->key_line[k] != 0, 1);
		if (!ksa_config__key(k)->repeatable)
			assert_same_values(base, u);
		ksa_config__free(u);
		free(copy);
	}
	/* it mentions every key */
	for (k = 0; k < KSA_KEY__CNT; k++)
		if (k != KSA_KEY_PATTERN && !(seen & (1u << k)))
			fail_msg("dist/ksymattach.conf has no '#%s = ' line",
				 ksa_config__key(k)->name);
	ksa_config__free(base);
	free(text);
}

/* roff to text, roughly: font escapes out, "\-" to "-". */
static void unroff(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'f' && s[2]) {
			s += 3;
		} else if (s[0] == '\\' && s[1] == '-') {
			*d++ = '-';
			s += 2;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* ksymattach.conf(5) documents every key, with its default, and its example parses. */
static void test_man_page(void **state)
{
	char path[512], head[128], *man, *p, *end, *para, *ex, *prev = NULL;
	int k;

	(void)state;
	man = read_all(top_path(path, sizeof(path), "man/ksymattach.conf.5"), NULL);
	for (k = 0; k < KSA_KEY__CNT; k++) {
		const struct ksa_config_key *d = ksa_config__key(k);

		snprintf(head, sizeof(head), "\n.TP\n\\fB%s\\fR = ", d->name);
		p = strstr(man, head);
		if (!p)
			fail_msg("ksymattach.conf(5) has no entry for '%s' ('.TP' then '%s')",
				 d->name, head + 5);
		/* in enum ksa_key's order */
		assert_true(p > prev);
		prev = p;
		p += strlen(head);
		/* the paragraph: up to the next entry or section */
		end = p + strcspn(p, "");
		if (strstr(p, "\n.TP") && strstr(p, "\n.TP") < end)
			end = strstr(p, "\n.TP");
		if (strstr(p, "\n.SH") && strstr(p, "\n.SH") < end)
			end = strstr(p, "\n.SH");
		if (strstr(p, "\n.PP") && strstr(p, "\n.PP") < end)
			end = strstr(p, "\n.PP");
		para = strndup(p, end - p);
		assert_non_null(para);
		unroff(para);
		if (d->def) {
			char *def = strstr(para, "Default:");

			if (!def || !strstr(def, d->def))
				fail_msg("ksymattach.conf(5): '%s' does not give its default '%s'",
					 d->name, d->def);
		} else if (!strstr(para, "Repeatable")) {
			fail_msg("ksymattach.conf(5): '%s' does not say it is repeatable", d->name);
		}
		free(para);
	}
	/* the exit code and the error format */
	assert_non_null(strstr(man, "78 (EX_CONFIG)"));
	assert_non_null(strstr(man, "systemctl reload ksymattach"));
	/* the example is a valid file */
	p = strstr(man, "\n.SH EXAMPLE\n.nf\n");
	assert_non_null(p);
	p += strlen("\n.SH EXAMPLE\n.nf\n");
	end = strstr(p, "\n.fi");
	assert_non_null(end);
	ex = strndup(p, end - p + 1);
	assert_non_null(ex);
	unroff(ex);
	{
		struct ksa_config *c = good(ex);

		assert_int_equal(c->pattern_cnt, 3);
		assert_int_equal(c->mode, KATTACH_SESSION);
		assert_null(c->prom_file);
		ksa_config__free(c);
	}
	free(ex);
	free(man);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_good_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_repeated),
		cmocka_unit_test(test_many_patterns),
		cmocka_unit_test(test_section),
		cmocka_unit_test(test_no_pattern),
		cmocka_unit_test(test_never_matching),
		cmocka_unit_test(test_exclude_covers),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_no_trailing_newline),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_bom_only_first),
		cmocka_unit_test(test_nul_and_control),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_size_bound),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_inline_comments),
		cmocka_unit_test(test_continuation),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_all_errors),
		cmocka_unit_test(test_opts_sz),
		cmocka_unit_test(test_dist_file),
		cmocka_unit_test(test_man_page),
	};

	return cmocka_run_group_tests_name("config", tests, setup, teardown);
}
