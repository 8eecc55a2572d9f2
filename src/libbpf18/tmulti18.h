/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libbpf 1.8's tracing_multi attach, bpf_program__attach_tracing_multi(),
 * for --compare's libbpf row of fentry.multi, fexit.multi and fsession.multi.
 * libbpf 1.8 is a second static libbpf, its symbols renamed so that it links
 * beside the libbpf the rest of ksymattach uses; this header is the only way
 * to it, and its types are its own, so no file sees both libbpfs' headers.
 *
 *	tmulti18__open(&req, &t, err, sizeof(err));	the object, its program loaded
 *	tmulti18__attach(t, err, sizeof(err));		libbpf 1.8 resolves and links
 *	n = tmulti18__take_links(t, &fds);		the links' fds, now the caller's
 *	tmulti18__free(t);				the object, and links not taken
 */
#ifndef KSA_TMULTI18_H
#define KSA_TMULTI18_H

#include <stddef.h>

struct tmulti18;

enum tmulti18_mode {
	TMULTI18_FENTRY,
	TMULTI18_FEXIT,
	TMULTI18_FSESSION,
};

struct tmulti18_req {
	size_t sz;		/* sizeof(struct tmulti18_req) */
	enum tmulti18_mode mode;
	/*
	 * Globs, a link each, which libbpf matches against the BTF ("mod:glob"
	 * for a module's); or, with by_name, names whose ids libbpf 1.8's BTF
	 * lookup finds in vmlinux, in one link: what an agent with a list does.
	 */
	const char *const *patterns;
	size_t pattern_cnt;
	int by_name;
	size_t slots;		/* the counters' room */
	int self_tgid;		/* left uncounted */
	int verbose;		/* libbpf 1.8's own log on stderr (else none) */
};

/* 0, or a negative errno and the reason in err. */
int tmulti18__open(const struct tmulti18_req *req, struct tmulti18 **out, char *err,
		   size_t errsz);
int tmulti18__attach(struct tmulti18 *t, char *err, size_t errsz);
/* The links made, as fds the caller closes (free()s the array): their count. */
size_t tmulti18__take_links(struct tmulti18 *t, int **fds);
/* The version that was linked, "1.8" */
const char *tmulti18__version(void);
void tmulti18__free(struct tmulti18 *t);

#endif
