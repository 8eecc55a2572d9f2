// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbpf 1.8's tracing_multi attach (tmulti18.h). This file is compiled
 * against libbpf 1.8's headers with their names mapped to the renamed
 * library's, so every libbpf call here is 1.8's and resolves as 1.8 does:
 * a glob through its own walk of the whole vmlinux BTF, names through its
 * BTF lookup, each link refused whole by the kernel for one function it
 * cannot trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tmulti18.h"
#include "ksymattach_tmulti18.skel.h"

struct tmulti18 {
	struct tmulti18_req req;
	struct ksymattach_tmulti18_bpf *skel;
	struct bpf_program *prog;
	int *links;		/* link fds, until taken */
	size_t link_cnt;
};

static struct bpf_program *prog_of(struct ksymattach_tmulti18_bpf *s, enum tmulti18_mode m)
{
	switch (m) {
	case TMULTI18_FEXIT:
		return s->progs.ksa18_fexit;
	case TMULTI18_FSESSION:
		return s->progs.ksa18_fsession;
	default:
		return s->progs.ksa18_fentry;
	}
}

int tmulti18__open(const struct tmulti18_req *req, struct tmulti18 **out, char *err,
		   size_t errsz)
{
	struct tmulti18 *t = calloc(1, sizeof(*t));
	struct bpf_program *p;
	int e;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	memcpy(&t->req, req, req->sz < sizeof(t->req) ? req->sz : sizeof(t->req));
	/* (its log is its own: -v routes only the other libbpf's) */
	if (!t->req.verbose)
		libbpf_set_print(NULL);
	t->links = calloc(req->pattern_cnt ? req->pattern_cnt : 1, sizeof(*t->links));
	t->skel = ksymattach_tmulti18_bpf__open();
	if (!t->links || !t->skel) {
		e = t->links ? -errno : -ENOMEM;
		snprintf(err, errsz, "libbpf 1.8 cannot open its object: %s", strerror(-e));
		goto fail;
	}
	t->prog = prog_of(t->skel, req->mode);
	bpf_object__for_each_program(p, t->skel->obj)
		bpf_program__set_autoload(p, p == t->prog);
	t->skel->rodata->self_tgid = req->self_tgid;
	e = bpf_map__set_max_entries(t->skel->maps.stats, req->slots ? req->slots : 1);
	if (!e)
		e = ksymattach_tmulti18_bpf__load(t->skel);
	if (e) {
		snprintf(err, errsz, "libbpf 1.8 cannot load %s: %s",
			 bpf_program__section_name(t->prog), strerror(-e));
		goto fail;
	}
	*out = t;
	return 0;
fail:
	tmulti18__free(t);
	return e;
}

/* A link's fd kept, its wrapper gone: the engine keeps every link as an fd. */
static int keep(struct tmulti18 *t, struct bpf_link *l)
{
	t->links[t->link_cnt++] = bpf_link__fd(l);
	bpf_link__disconnect(l);
	bpf_link__destroy(l);
	return 0;
}

/* Names to ids by libbpf 1.8's own BTF lookup, then one link of the ids. */
static struct bpf_link *attach_names(struct tmulti18 *t, char *err, size_t errsz)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, o);
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_link *l = NULL;
	__u32 *ids = NULL;
	size_t i;
	int id;

	if (!btf) {
		snprintf(err, errsz, "libbpf 1.8 cannot load vmlinux's BTF: %s", strerror(errno));
		return NULL;
	}
	ids = calloc(t->req.pattern_cnt, sizeof(*ids));
	if (!ids) {
		errno = ENOMEM;
		goto out;
	}
	for (i = 0; i < t->req.pattern_cnt; i++) {
		id = btf__find_by_name_kind(btf, t->req.patterns[i], BTF_KIND_FUNC);
		if (id < 0) {
			snprintf(err, errsz, "libbpf 1.8's BTF lookup finds no function %s in "
				 "vmlinux", t->req.patterns[i]);
			errno = -id;
			goto out;
		}
		ids[i] = id;
	}
	o.ids = ids;
	o.cnt = t->req.pattern_cnt;
	l = bpf_program__attach_tracing_multi(t->prog, NULL, &o);
	if (!l)
		snprintf(err, errsz, "libbpf 1.8's link of %zu names: %s", t->req.pattern_cnt,
			 strerror(errno));
out:
	free(ids);
	btf__free(btf);
	return l;
}

int tmulti18__attach(struct tmulti18 *t, char *err, size_t errsz)
{
	struct bpf_link *l;
	size_t i;

	if (t->req.by_name) {
		l = attach_names(t, err, errsz);
		return l ? keep(t, l) : -errno;
	}
	for (i = 0; i < t->req.pattern_cnt; i++) {
		l = bpf_program__attach_tracing_multi(t->prog, t->req.patterns[i], NULL);
		if (!l) {
			int e = -errno;

			snprintf(err, errsz, "libbpf 1.8's link of '%s': %s", t->req.patterns[i],
				 strerror(-e));
			return e;
		}
		keep(t, l);
	}
	return 0;
}

size_t tmulti18__take_links(struct tmulti18 *t, int **fds)
{
	size_t n = t->link_cnt;

	*fds = t->links;
	t->links = NULL;
	t->link_cnt = 0;
	return n;
}

const char *tmulti18__version(void)
{
	return libbpf_version_string();
}

void tmulti18__free(struct tmulti18 *t)
{
	if (!t)
		return;
	while (t->link_cnt)
		close(t->links[--t->link_cnt]);
	free(t->links);
	ksymattach_tmulti18_bpf__destroy(t->skel);
	free(t);
}
