// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The meter of the kernel's name lookups (lookups.h): ksymattach_lookups.bpf.c's
 * pairs, those whose function the kernel's BTF has, attached for the life of
 * the meter and counting only inside the window the engine opens.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lookups.h"
#include "trampolines.h"
#include "ksymattach_lookups.skel.h"

struct kattach_lookups {
	struct ksymattach_lookups_bpf *skel;
	char hooks[256];
};

int kattach_lookups__open(struct kattach_lookups **out, char *err, size_t errsz)
{
	struct kattach_lookups *m = calloc(1, sizeof(*m));
	struct bpf_program *p;
	struct btf *btf;
	size_t len = 0;
	int e;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		e = -errno;
		snprintf(err, errsz, "the kernel shows no BTF: %s", strerror(-e));
		goto fail;
	}
	m->skel = ksymattach_lookups_bpf__open();
	if (!m->skel) {
		e = -errno;
		btf__free(btf);
		snprintf(err, errsz, "cannot open the lookups' meter: %s", strerror(-e));
		goto fail;
	}
	/* a lookup this kernel does not have is none it can make */
	tramp_keep_known(m->skel->obj, btf);
	bpf_object__for_each_program(p, m->skel->obj) {
		if (bpf_program__autoload(p) && !strncmp(bpf_program__section_name(p), "fentry/", 7) &&
		    len < sizeof(m->hooks) - 1)
			len += snprintf(m->hooks + len, sizeof(m->hooks) - len, "%s%s",
					len ? "," : "", tramp_target(p));
	}
	btf__free(btf);
	if (!len) {
		e = -ENOENT;
		snprintf(err, errsz, "the kernel's BTF has none of kallsyms' lookup functions");
		goto fail;
	}
	m->skel->rodata->self_tgid = getpid();
	e = ksymattach_lookups_bpf__load(m->skel);
	if (!e)
		e = ksymattach_lookups_bpf__attach(m->skel);
	if (e) {
		snprintf(err, errsz, "cannot attach fentry/fexit to %s: %s", m->hooks, strerror(-e));
		goto fail;
	}
	*out = m;
	return 0;
fail:
	kattach_lookups__free(m);
	return e;
}

void kattach_lookups__window(struct kattach_lookups *m, bool open)
{
	if (m)
		__atomic_store_n(&m->skel->bss->on, open, __ATOMIC_SEQ_CST);
}

void kattach_lookups__read(const struct kattach_lookups *m, uint64_t *ns, uint64_t *calls)
{
	*ns = __atomic_load_n(&m->skel->bss->lookup_ns, __ATOMIC_SEQ_CST);
	*calls = __atomic_load_n(&m->skel->bss->lookup_calls, __ATOMIC_SEQ_CST);
}

void kattach_lookups__reset(struct kattach_lookups *m)
{
	__atomic_store_n(&m->skel->bss->lookup_ns, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&m->skel->bss->lookup_calls, 0, __ATOMIC_SEQ_CST);
}

const char *kattach_lookups__hooks(const struct kattach_lookups *m)
{
	return m->hooks;
}

void kattach_lookups__free(struct kattach_lookups *m)
{
	if (!m)
		return;
	ksymattach_lookups_bpf__destroy(m->skel);
	free(m);
}
