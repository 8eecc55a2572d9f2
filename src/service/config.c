// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymattach.conf: "key = value" lines, '#' or ';' comments, no sections.
 *
 * The lines are split here, not by inih. This file has to refuse, with its
 * line number, everything inih would read differently or pass over in
 * silence: NULs, overlong lines, sections, indented lines (continuations to
 * inih), "key: value". Once those are refused, what inih would add is one
 * split at '=' and its inline comments; its line buffer's size differs
 * between Debian's build and upstream's, and Debian's does not pass a line
 * number. So the split below keeps inih's rules (a ';' after a blank starts
 * a comment) in a few lines of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ksym/ksym.h>

#include "config.h"

#define ERRORS_MAX 50	/* then error_fn hears "too many errors" and parsing stops */
#define QUOTE_MAX 72	/* a value quoted in a message, escaped, before "..." */

static const struct ksa_config_key keys[KSA_KEY__CNT] = {
	[KSA_KEY_PATTERN] = { "pattern", "a function name or glob, mod:GLOB for a module's",
			      NULL, "functions to attach to", true },
	[KSA_KEY_EXCLUDE] = { "exclude", "a function name or glob, as pattern", NULL,
			      "functions the patterns match that are left out", true },
	[KSA_KEY_MODE] = { "mode", "multi or session", "multi",
			   "kprobe.multi hit counts, or kprobe.session with latency", false },
	[KSA_KEY_RESOLVER] = { "resolver", "ksym, libbpf or kernel", "ksym",
			       "who turns names into addresses", false },
	[KSA_KEY_LINKS] = { "links", "one, per-function or functions per link, 1..1000000",
			    "one", "the link layout", false },
	[KSA_KEY_FALLBACK] = { "fallback", "auto, never or kprobe", "auto",
			       "classic kprobes where kprobe.multi is missing", false },
	[KSA_KEY_DURATION] = { "duration", "seconds, 0..86400, suffix s, m or h", "0",
			       "how long the boot measurement stays attached, counting calls",
			       false },
	[KSA_KEY_INTERVAL] = { "interval", "seconds, 1..3600, suffix s, m or h", "15s",
			       "the daemon's report interval", false },
	[KSA_KEY_JSON_DIR] = { "json_dir", "an absolute path", "/var/lib/ksymattach",
			       "the directory of the JSON reports", false },
	[KSA_KEY_PROM_FILE] = { "prom_file", "an absolute path ending in .prom, or nothing",
				"/var/lib/prometheus/node-exporter/ksymattach.prom",
				"the Prometheus textfile; empty: none", false },
	[KSA_KEY_TOP] = { "top", "0..10000", "20",
			  "functions with Prometheus series of their own; the rest are summed",
			  false },
	[KSA_KEY_CACHE] = { "cache", "yes or no", "yes", "the symbol cache in /run/ksymattach",
			    false },
	[KSA_KEY_REPORTS_KEPT] = { "reports_kept", "1..1000", "10",
				   "boot reports kept in json_dir", false },
	[KSA_KEY_STALL_THRESHOLD] = { "stall_threshold",
				      "seconds, more than 0 up to 86400, suffix s, m or h", "1.0",
				      "the attach stall the shipped alert rule fires at", false },
	[KSA_KEY_WATCH_WINDOW] = { "watch_window", "seconds, 1..86400, suffix s, m or h", "2m",
				   "how long the boot watch records every process's attach",
				   false },
	[KSA_KEY_WATCH_MIN_STALL] = { "watch_min_stall", "seconds, 0..86400, suffix s, m or h",
				      "0", "the attach stall a process needs to be recorded",
				      false },
	[KSA_KEY_WATCH_STALL_THRESHOLD] = {
		"watch_stall_threshold", "seconds, more than 0 up to 86400, suffix s, m or h",
		"1.0", "an agent's attach stall the shipped alert rule fires at", false },
	[KSA_KEY_WATCH_TOTALS] = { "watch_totals", "yes or no", "yes",
				   "after its window, the boot watch keeps watching and exports "
				   "running totals", false },
};

const struct ksa_config_key *ksa_config__key(enum ksa_key key)
{
	return (unsigned int)key < KSA_KEY__CNT ? &keys[key] : NULL;
}

/* ---- messages ---- */

/* s for a message: non-printing bytes escaped, cut at QUOTE_MAX. */
static const char *quote(char *buf, size_t sz, const char *s)
{
	size_t n = 0;

	for (; *s && n + 5 < sz; s++) {
		unsigned char c = (unsigned char)*s;

		if (n >= QUOTE_MAX) {
			snprintf(buf + n, sz - n, "...");
			return buf;
		}
		if (c == '\t')
			n += snprintf(buf + n, sz - n, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			n += snprintf(buf + n, sz - n, "\\x%02x", c);
		else
			buf[n++] = c;
	}
	buf[n] = '\0';
	return buf;
}

struct parser {
	const char *pos, *end;	/* what is left of the file */
	unsigned int lineno;	/* the line being read */
	bool stop;
	struct ksa_config *c;
	const char *name;
	char *err;
	size_t err_sz;
	int code;		/* of the first problem */
	unsigned int err_cnt;
	void (*error_fn)(const char *msg, void *ctx);
	void *error_ctx;
};

/* One problem: "NAME:LINE: msg" (line 0: "NAME: msg"). The first goes to err. */
static void __attribute__((format(printf, 4, 5)))
problem(struct parser *p, unsigned int line, int code, const char *fmt, ...)
{
	char msg[320], full[KSA_CONFIG_ERR_MAX];
	va_list ap;

	if (p->stop)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(full, sizeof(full), "%s:%u: %s", p->name, line, msg);
	else
		snprintf(full, sizeof(full), "%s: %s", p->name, msg);
	if (!p->err_cnt && p->err && p->err_sz)
		snprintf(p->err, p->err_sz, "%s", full);
	if (!p->err_cnt)
		p->code = code;
	p->err_cnt++;
	if (!p->error_fn) {
		p->stop = true;
		return;
	}
	if (p->err_cnt > ERRORS_MAX) {
		snprintf(full, sizeof(full), "%s: too many errors, stopped", p->name);
		p->stop = true;
	}
	p->error_fn(full, p->error_ctx);
}

static bool nomem(struct parser *p)
{
	problem(p, 0, -ENOMEM, "out of memory");
	return false;
}

/* ---- patterns ---- */

/* "mod:name" apart: module NULL for any, "" for vmlinux (":name"). */
static const char *split(const char *pat, char *mod, size_t sz, const char **module)
{
	const char *colon = strchr(pat, ':');

	*module = NULL;
	if (!colon)
		return pat;
	snprintf(mod, sz, "%.*s", (int)(colon - pat), pat);
	*module = mod;
	return colon + 1;
}

/*
 * Whether exclude x leaves nothing of pattern p: the same text, or (for a
 * module x covers) x's name all '*', or p a name that x matches.
 */
static bool covers(const char *x, const char *p)
{
	char xb[KSA_CONFIG_MODULE_MAX + 1], pb[KSA_CONFIG_MODULE_MAX + 1];
	const char *xm, *pm, *xn, *pn;

	xn = split(x, xb, sizeof(xb), &xm);
	pn = split(p, pb, sizeof(pb), &pm);

	if (!strcmp(x, p))
		return true;
	if (xm && (!pm || strcmp(xm, pm)))
		return false;
	if (!xn[strspn(xn, "*")])
		return true;
	return ksym_glob_is_literal(pn) && ksym_glob_match(xn, pn);
}

static bool push(struct parser *p, char ***v, unsigned int **lines, size_t *cnt, const char *s,
		 unsigned int line)
{
	size_t n = *cnt;
	char **nv;
	unsigned int *nl;

	/* 8 at first, then doubled whenever full */
	if (!n || (n >= 8 && !(n & (n - 1)))) {
		nv = realloc(*v, (n ? 2 * n : 8) * sizeof(**v));
		if (!nv)
			return nomem(p);
		*v = nv;
		nl = realloc(*lines, (n ? 2 * n : 8) * sizeof(**lines));
		if (!nl)
			return nomem(p);
		*lines = nl;
	}
	(*v)[n] = strdup(s);
	if (!(*v)[n])
		return nomem(p);
	(*lines)[n] = line;
	*cnt = n + 1;
	return true;
}

static void add_glob(struct parser *p, enum ksa_key k, const char *v, unsigned int line)
{
	struct ksa_config *c = p->c;
	bool ex = k == KSA_KEY_EXCLUDE;
	char why[160], qv[96], qo[96];
	size_t i;

	if ((ex ? c->exclude_cnt : c->pattern_cnt) == KSA_CONFIG_GLOBS_MAX) {
		problem(p, line, -EINVAL, "too many %ss (at most %d)", keys[k].name,
			KSA_CONFIG_GLOBS_MAX);
		return;
	}
	if (ksym_glob_check(v, why, sizeof(why))) {
		problem(p, line, -EINVAL, "%s '%s' can never match: %s", keys[k].name,
			quote(qv, sizeof(qv), v), why);
		return;
	}
	/* against the other kind, so that the error is on the later line */
	for (i = 0; i < (ex ? c->pattern_cnt : c->exclude_cnt); i++) {
		const char *o = ex ? c->patterns[i] : c->excludes[i];
		unsigned int ol = ex ? c->pattern_lines[i] : c->exclude_lines[i];

		if (!strcmp(o, v)) {
			problem(p, line, -EINVAL, "%s '%s' is also %s (line %u): it would exclude "
				"everything that pattern matches", keys[k].name,
				quote(qv, sizeof(qv), v), ex ? "a pattern" : "an exclude", ol);
			return;
		}
		if (ex ? covers(v, o) : covers(o, v)) {
			if (ex)
				problem(p, line, -EINVAL, "exclude '%s' leaves nothing of pattern "
					"'%s' (line %u)", quote(qv, sizeof(qv), v),
					quote(qo, sizeof(qo), o), ol);
			else
				problem(p, line, -EINVAL, "pattern '%s' is left out entirely by "
					"exclude '%s' (line %u)", quote(qv, sizeof(qv), v),
					quote(qo, sizeof(qo), o), ol);
			return;
		}
	}
	if (ex)
		push(p, &c->excludes, &c->exclude_lines, &c->exclude_cnt, v, line);
	else
		push(p, &c->patterns, &c->pattern_lines, &c->pattern_cnt, v, line);
}

/* ---- values ---- */

/* "15", "1.5", "90s", "2m", "1h": seconds; false on anything else. */
static bool parse_seconds(const char *v, double *out)
{
	double d = 0, scale = 1;
	const char *s = v;

	/* by hand: strtod would take hex, "inf", exponents and the locale's comma */
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		d = d * 10 + (*s++ - '0');
	if (*s == '.') {
		if (s[1] < '0' || s[1] > '9')
			return false;
		for (s++; *s >= '0' && *s <= '9'; s++)
			d += (*s - '0') * (scale /= 10);
	}
	if (*s == 'm')
		d *= 60;
	else if (*s == 'h')
		d *= 3600;
	if (*s == 's' || *s == 'm' || *s == 'h')
		s++;
	*out = d;
	return !*s;
}

static bool parse_uint(const char *v, size_t max, size_t *out)
{
	size_t n = 0;

	if (!*v)
		return false;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return false;
		n = n * 10 + (*v - '0');
		if (n > max)
			return false;
	}
	*out = n;
	return true;
}

struct word {
	const char *word;
	int val;
};

static const struct word modes[] = {
	{ "multi", KATTACH_MULTI }, { "session", KATTACH_SESSION }, { NULL, 0 },
};
static const struct word resolvers[] = {
	{ "ksym", KATTACH_RES_KSYM }, { "libbpf", KATTACH_RES_LIBBPF },
	{ "kernel", KATTACH_RES_KERNEL }, { NULL, 0 },
};
static const struct word fallbacks[] = {
	{ "auto", KATTACH_FALLBACK_AUTO }, { "never", KATTACH_FALLBACK_NEVER },
	{ "kprobe", KATTACH_FALLBACK_KPROBE }, { NULL, 0 },
};
static const struct word bools[] = {
	{ "yes", 1 }, { "true", 1 }, { "on", 1 }, { "1", 1 },
	{ "no", 0 }, { "false", 0 }, { "off", 0 }, { "0", 0 }, { NULL, 0 },
};
static const struct word links[] = { { "one", 0 }, { "per-function", 1 }, { NULL, 0 } };

static bool keyword(const struct word *w, const char *v, int *out)
{
	for (; w->word; w++) {
		if (!strcmp(v, w->word)) {
			*out = w->val;
			return true;
		}
	}
	return false;
}

/* Why v is no absolute path (prom: no *.prom file either), or NULL. */
static const char *bad_path(const char *v, bool prom)
{
	size_t len = strlen(v);

	if (*v == '"' || *v == '\'')
		return "is not an absolute path (values are not quoted)";
	if (*v != '/')
		return "is not an absolute path";
	if (len >= PATH_MAX)
		return "is longer than PATH_MAX";
	if (prom && (len < 6 || strcmp(v + len - 5, ".prom")))
		return "does not end in .prom (node_exporter reads *.prom only)";
	if (prom && v[len - 6] == '/')
		return "has no name before .prom";
	return NULL;
}

static void set_path(struct parser *p, enum ksa_key k, char **dst, const char *v,
		     unsigned int line)
{
	const char *why = bad_path(v, k == KSA_KEY_PROM_FILE);
	char q[96], *s;

	if (why) {
		problem(p, line, -EINVAL, "%s '%s' %s", keys[k].name, quote(q, sizeof(q), v), why);
		return;
	}
	s = strdup(v);
	if (!s) {
		nomem(p);
		return;
	}
	free(*dst);
	*dst = s;
}

static void set_value(struct parser *p, enum ksa_key k, const char *v, unsigned int line)
{
	struct ksa_config *c = p->c;
	char q[96];
	size_t n;
	double d;
	int i;

	switch (k) {
	case KSA_KEY_PATTERN:
	case KSA_KEY_EXCLUDE:
		add_glob(p, k, v, line);
		return;
	case KSA_KEY_JSON_DIR:
		set_path(p, k, &c->json_dir, v, line);
		return;
	case KSA_KEY_PROM_FILE:
		if (*v) {
			set_path(p, k, &c->prom_file, v, line);
			return;
		}
		/* empty: no Prometheus file */
		free(c->prom_file);
		c->prom_file = NULL;
		return;
	case KSA_KEY_MODE:
		if (!keyword(modes, v, &i))
			break;
		c->mode = i;
		return;
	case KSA_KEY_RESOLVER:
		if (!keyword(resolvers, v, &i))
			break;
		c->resolver = i;
		return;
	case KSA_KEY_FALLBACK:
		if (!keyword(fallbacks, v, &i))
			break;
		c->fallback = i;
		return;
	case KSA_KEY_CACHE:
		if (!keyword(bools, v, &i))
			break;
		c->cache = i;
		return;
	case KSA_KEY_WATCH_TOTALS:
		if (!keyword(bools, v, &i))
			break;
		c->watch_totals = i;
		return;
	case KSA_KEY_LINKS:
		if (keyword(links, v, &i))
			c->link_batch = i;
		else if (parse_uint(v, 1000000, &n) && n)
			c->link_batch = n;
		else
			break;
		return;
	case KSA_KEY_DURATION:
		if (!parse_seconds(v, &d) || d > 86400)
			break;
		c->duration_s = d;
		return;
	case KSA_KEY_INTERVAL:
		if (!parse_seconds(v, &d) || d < 1 || d > 3600)
			break;
		c->interval_s = d;
		return;
	case KSA_KEY_STALL_THRESHOLD:
		if (!parse_seconds(v, &d) || d <= 0 || d > 86400)
			break;
		c->stall_threshold_s = d;
		return;
	case KSA_KEY_WATCH_WINDOW:
		if (!parse_seconds(v, &d) || d < 1 || d > 86400)
			break;
		c->watch_window_s = d;
		return;
	case KSA_KEY_WATCH_MIN_STALL:
		if (!parse_seconds(v, &d) || d > 86400)
			break;
		c->watch_min_stall_s = d;
		return;
	case KSA_KEY_WATCH_STALL_THRESHOLD:
		if (!parse_seconds(v, &d) || d <= 0 || d > 86400)
			break;
		c->watch_stall_threshold_s = d;
		return;
	case KSA_KEY_TOP:
		if (!parse_uint(v, 10000, &n))
			break;
		c->top = n;
		return;
	case KSA_KEY_REPORTS_KEPT:
		if (!parse_uint(v, 1000, &n) || !n)
			break;
		c->reports_kept = n;
		return;
	case KSA_KEY__CNT:
		return;
	}
	problem(p, line, -EINVAL, "invalid %s '%s' (%s)", keys[k].name, quote(q, sizeof(q), v),
		keys[k].values);
}

/* Edit distance, for "did you mean"; names are short. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[32], prev, t;

	if (la >= 32 || lb >= 32)
		return 32;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			char x = a[i - 1] | 0x20, y = b[j - 1] | 0x20;	/* case blind */

			t = row[j];
			row[j] = prev + (x != y);
			if (row[j] > row[j - 1] + 1)
				row[j] = row[j - 1] + 1;
			if (row[j] > t + 1)
				row[j] = t + 1;
			prev = t;
		}
	}
	return row[lb];
}

static void on_pair(struct parser *p, const char *name, const char *value)
{
	struct ksa_config *c = p->c;
	unsigned int line = p->lineno;
	char q[96];
	int k;

	if (p->stop)
		return;
	if (!*name) {
		problem(p, line, -EINVAL, "no key before '='");
		return;
	}
	for (k = 0; k < KSA_KEY__CNT; k++)
		if (!strcmp(name, keys[k].name))
			break;
	if (k == KSA_KEY__CNT) {
		const char *best = NULL;
		size_t d, bd = 3;

		for (k = 0; k < KSA_KEY__CNT; k++) {
			d = distance(name, keys[k].name);
			if (d < bd) {
				bd = d;
				best = keys[k].name;
			}
		}
		if (best && strlen(name) >= 3)
			problem(p, line, -EINVAL, "unknown key '%s' (did you mean '%s'?)",
				quote(q, sizeof(q), name), best);
		else
			problem(p, line, -EINVAL, "unknown key '%s'", quote(q, sizeof(q), name));
		return;
	}
	if (c->key_line[k] && !keys[k].repeatable) {
		problem(p, line, -EINVAL, "duplicate key '%s' (first set on line %u)", keys[k].name,
			c->key_line[k]);
		return;
	}
	if (!c->key_line[k])
		c->key_line[k] = line;
	set_value(p, k, value, line);
}

/* ---- lines ---- */

/* Where a line's key ends: the first '=' or ':', or a ';' after a blank (a comment). */
static const char *key_end(const char *s, const char *e)
{
	bool blank = false;

	for (; s < e; s++) {
		if (*s == '=' || *s == ':' || (blank && *s == ';'))
			return s;
		blank = *s == ' ' || *s == '\t';
	}
	return e;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "key = value" in [s, e), t at its '=': the key and the value, blanks
 * trimmed, into buf (two strings); the value ends at a ';' after a blank.
 */
static void split_pair(const char *s, const char *t, const char *e, char *buf, const char **key,
		  const char **value)
{
	const char *k = t, *v = t + 1, *ve;
	bool blank = false;
	char *out = buf;

	while (k > s && is_blank(k[-1]))
		k--;
	for (ve = v; ve < e && !(blank && *ve == ';'); ve++)
		blank = is_blank(*ve);
	while (v < ve && is_blank(*v))
		v++;
	while (ve > v && is_blank(ve[-1]))
		ve--;
	*key = out;
	memcpy(out, s, k - s);
	out += k - s;
	*out++ = '\0';
	*value = out;
	memcpy(out, v, ve - v);
	out[ve - v] = '\0';
}

/* One line [line, e): checked, then handed to on_pair() if it is "key = value". */
static void parse_line(struct parser *p, const char *line, const char *e, char *buf)
{
	const char *s, *t, *key, *value;

	if (p->lineno == 1)	/* (a second BOM too: an editor's doubled one) */
		while (e - line >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
			line += 3;
	if ((size_t)(e - line) > KSA_CONFIG_LINE_MAX) {
		problem(p, p->lineno, -EINVAL, "line longer than %u characters",
			KSA_CONFIG_LINE_MAX);
		return;
	}
	for (t = line; t < e; t++) {
		unsigned char ch = (unsigned char)*t;

		if (ch == '\0') {
			problem(p, p->lineno, -EINVAL, "NUL byte");
			return;
		}
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			problem(p, p->lineno, -EINVAL, "control character 0x%02x", ch);
			return;
		}
	}
	for (s = line; s < e && is_blank(*s); s++)
		;
	if (s == e || *s == '#' || *s == ';')
		return;
	if (*s == '[') {
		problem(p, p->lineno, -EINVAL, "sections are not used");
		return;
	}
	t = key_end(s, e);
	if (t == e || *t == ';') {
		problem(p, p->lineno, -EINVAL, "expected 'key = value'%s",
			s > line ? " (an indented line does not continue the one before)" : "");
		return;
	}
	if (*t == ':') {
		problem(p, p->lineno, -EINVAL, "expected 'key = value', not 'key: value'");
		return;
	}
	split_pair(s, t, e, buf, &key, &value);
	on_pair(p, key, value);
}

/* Every line of [p->pos, p->end), numbered from 1; "\r\n" ends a line too. */
static void parse_lines(struct parser *p)
{
	char buf[KSA_CONFIG_LINE_MAX + 2];	/* a key and a value, each NUL-ended */

	while (!p->stop && p->pos < p->end) {
		const char *line = p->pos, *nl = memchr(line, '\n', p->end - line);
		const char *e = nl ? nl : p->end;

		p->pos = nl ? nl + 1 : p->end;
		p->lineno++;
		if (e > line && e[-1] == '\r')
			e--;
		parse_line(p, line, e, buf);
	}
}

/* ---- the config ---- */

struct ksa_config *ksa_config__new(void)
{
	struct ksa_config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->mode = KATTACH_MULTI;
	c->resolver = KATTACH_RES_KSYM;
	c->fallback = KATTACH_FALLBACK_AUTO;
	c->link_batch = 0;
	c->duration_s = 0;
	c->interval_s = 15;
	c->stall_threshold_s = 1.0;
	c->watch_window_s = 120;
	c->watch_min_stall_s = 0;
	c->watch_stall_threshold_s = 1.0;
	c->watch_totals = true;
	c->top = 20;
	c->reports_kept = 10;
	c->cache = true;
	c->json_dir = strdup(keys[KSA_KEY_JSON_DIR].def);
	c->prom_file = strdup(keys[KSA_KEY_PROM_FILE].def);
	c->name = strdup("<defaults>");
	if (!c->json_dir || !c->prom_file || !c->name) {
		ksa_config__free(c);
		return NULL;
	}
	return c;
}

void ksa_config__free(struct ksa_config *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->pattern_cnt; i++)
		free(c->patterns[i]);
	for (i = 0; i < c->exclude_cnt; i++)
		free(c->excludes[i]);
	free(c->patterns);
	free(c->pattern_lines);
	free(c->excludes);
	free(c->exclude_lines);
	free(c->json_dir);
	free(c->prom_file);
	free(c->name);
	free(c);
}

static void parser_init(struct parser *p, const struct ksa_config_opts *opts, const char *name,
			char *err, size_t err_sz)
{
	struct ksa_config_opts o = { .sz = sizeof(o) };

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	memset(p, 0, sizeof(*p));
	p->name = o.name ? o.name : name;
	p->error_fn = o.error_fn;
	p->error_ctx = o.error_ctx;
	p->err = err;
	p->err_sz = err_sz;
	if (err && err_sz)
		err[0] = '\0';
}

static int parse(struct parser *p, const char *data, size_t size, struct ksa_config **out)
{
	if (size > KSA_CONFIG_SIZE_MAX) {
		problem(p, 0, -EFBIG, "larger than %u MiB", KSA_CONFIG_SIZE_MAX >> 20);
		return p->code;
	}
	p->c = ksa_config__new();
	if (p->c) {
		free(p->c->name);
		p->c->name = strdup(p->name);
	}
	if (!p->c || !p->c->name) {
		nomem(p);
		goto out;
	}
	/* NULL + 0 is undefined */
	p->pos = size ? data : "";
	p->end = p->pos + size;
	parse_lines(p);
	if (!p->c->key_line[KSA_KEY_PATTERN])
		problem(p, 0, -EINVAL, "no pattern given (at least one 'pattern = GLOB' line)");
out:
	if (p->err_cnt) {
		ksa_config__free(p->c);
		return p->code;
	}
	*out = p->c;
	return 0;
}

int ksa_config__parse(const void *data, size_t size, const struct ksa_config_opts *opts,
		      struct ksa_config **out, char *err, size_t err_sz)
{
	struct parser p;

	parser_init(&p, opts, "<config>", err, err_sz);
	if (!out || (!data && size)) {
		problem(&p, 0, -EINVAL, "invalid argument");
		return -EINVAL;
	}
	return parse(&p, data, size, out);
}

int ksa_config__load(const char *path, const struct ksa_config_opts *opts,
		     struct ksa_config **out, char *err, size_t err_sz)
{
	struct parser p;
	struct stat st;
	size_t len = 0;
	ssize_t got;
	char *buf;
	int fd, ret;

	parser_init(&p, opts, path ? path : "<config>", err, err_sz);
	if (!path || !out) {
		problem(&p, 0, -EINVAL, "invalid argument");
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		problem(&p, 0, ret, "cannot open: %s", strerror(-ret));
		return ret;
	}
	/* open(2) takes a directory; read(2) would say EISDIR, less clearly */
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		problem(&p, 0, -EISDIR, "cannot open: %s", strerror(EISDIR));
		return -EISDIR;
	}
	/* one byte past the bound tells a file at it from a larger one */
	buf = malloc(KSA_CONFIG_SIZE_MAX + 1);
	if (!buf) {
		close(fd);
		nomem(&p);
		return p.code;
	}
	while (len <= KSA_CONFIG_SIZE_MAX) {
		got = read(fd, buf + len, KSA_CONFIG_SIZE_MAX + 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			problem(&p, 0, ret, "cannot read: %s", strerror(-ret));
			close(fd);
			free(buf);
			return ret;
		}
		if (!got)
			break;
		len += got;
	}
	close(fd);
	ret = parse(&p, buf, len, out);
	free(buf);
	return ret;
}
