/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kmodel: the kernel's kallsyms table, rebuilt in userspace from a real symbol
 * list the way scripts/kallsyms.c builds it, and looked up the way
 * kernel/kallsyms.c does, so the lookup patch series' trade-offs can be
 * measured on any machine's symbols.
 *
 * The table: symbols "<type><name>" in address order (ties: non-weak first,
 * names the linker script may provide last, fewer leading underscores, input
 * order), compressed with 256 pair tokens,
 * stored as length-prefixed records; a marker (byte offset) every 2^k records;
 * a 3-byte big-endian name-order index (seqs_of_names).
 */
#ifndef KMODEL_H
#define KMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ksym/ksym.h>

struct kmodel;

/* Lookup variants; any combination of flags. */
enum {
	KMODEL_ONTHEFLY = 1 << 0,	/* compare against the compressed tokens, stop early */
	KMODEL_UNROLLED = 1 << 1,	/* 3-byte seq read unrolled */
	KMODEL_BATCH = 1 << 2,		/* a transient u32 offset per record: no walk */
	/*
	 * Beyond the series. Any index between low and high is a valid probe:
	 * NEARMARK picks, within +-window of mid, the one whose record sits
	 * closest after a marker (reading 3-byte seqs instead of walking records;
	 * no extra bytes). TOPTREE keeps the record offsets of the first levels of
	 * the search tree, which every lookup walks through (3 bytes a node).
	 */
	KMODEL_NEARMARK = 1 << 3,
	KMODEL_TOPTREE = 1 << 4,
	/*
	 * The 3-byte seq's top bit (positions need 23 bits) marks "same name as
	 * the entry before": widening to duplicates reads bits instead of walking
	 * to and expanding both neighbours. No extra bytes.
	 */
	KMODEL_DUPBIT = 1 << 5,
	/*
	 * While a probe compares, start loading what either next probe needs:
	 * the seqs two levels down, the records one level down. No extra bytes.
	 */
	KMODEL_PREFETCH = 1 << 6,
	/*
	 * Between the 256:1 markers, a u16 offset from the block's marker every
	 * 2^k records: the series' walk lengths for half its bytes at 16:1.
	 */
	KMODEL_SUBMARK = 1 << 7,
	/*
	 * The first levels of the search tree as keys: the prefix length every
	 * name under a node shares, and the node name's next three bytes. Most
	 * compares there never read the names stream (4 bytes a node).
	 */
	KMODEL_KEYTREE = 1 << 8,
};

struct kmodel_opts {
	size_t sz;
	unsigned int marker_shift;	/* k: a marker every 2^k records (0..8; kernel: 8) */
	unsigned int window;		/* NEARMARK: probes considered each side of mid */
	unsigned int tree_levels;	/* TOPTREE: levels whose offsets are kept */
};

/* The vmlinux symbols of t (module symbols are not in the kernel's table). */
struct kmodel *kmodel__build(const struct ksym_table *t, const struct kmodel_opts *opts);
void kmodel__free(struct kmodel *m);

size_t kmodel__cnt(const struct kmodel *m);
/* Markers at another density, same table: the density sweep rebuilds only these. */
int kmodel__set_markers(struct kmodel *m, unsigned int shift);
/* SUBMARK's density: every 2^shift records (0..7; 8 drops them). Needs 256:1 markers. */
int kmodel__set_submarkers(struct kmodel *m, unsigned int shift);
/* NEARMARK's window, TOPTREE's and KEYTREE's depths (rebuilt: call after markers). */
int kmodel__set_layout(struct kmodel *m, unsigned int window, unsigned int tree_levels,
		       unsigned int key_levels);

/* Bytes of each part, as .rodata would hold them. */
struct kmodel_size {
	size_t names, markers, seqs, token_table, token_index, offsets;
	size_t submarkers;	/* SUBMARK's u16 offsets */
	size_t toptree;		/* TOPTREE's node offsets */
	size_t keytree;		/* KEYTREE's node keys */
};
void kmodel__size(const struct kmodel *m, struct kmodel_size *out);

/*
 * The arrays as scripts/kallsyms writes them into .rodata, to check a real
 * build's against: seqs carry the duplicate bit (KMODEL_DUPBIT's) in the top
 * bit of each entry's first byte; sub and tree are NULL where not built, and
 * tree starts at the root (heap node 1).
 */
struct kmodel_arrays {
	size_t cnt;
	const unsigned char *names;
	size_t names_len;
	const uint32_t *markers;
	size_t nmarkers;
	const uint16_t *sub;
	size_t nsub;
	const unsigned char *seqs;
	const char *token_table;
	size_t token_table_len;
	const uint16_t *token_index;
	const unsigned char *tree;
	size_t tree_len;
};
void kmodel__arrays(const struct kmodel *m, struct kmodel_arrays *out);

/* The transient per-record offsets of the series' v4 (begin/end, refcounted). */
int kmodel__batch_begin(struct kmodel *m);
void kmodel__batch_end(struct kmodel *m);

/*
 * Name -> the range [*first, *last] in name order of every symbol called name,
 * as kallsyms_lookup_names() finds it; -ESRCH when there is none. *skipped adds
 * the records walked past (the cost the markers bound). kmodel__name_pos()
 * maps a name-order index to its address-order position.
 */
int kmodel__lookup_name(const struct kmodel *m, const char *name, unsigned int flags,
			size_t *first, size_t *last, uint64_t *skipped);
size_t kmodel__name_pos(const struct kmodel *m, size_t i);
/* Address -> "name+0xoff/0xsize" into buf; -ENOENT below the first symbol. */
int kmodel__lookup_addr(const struct kmodel *m, uint64_t addr, unsigned int flags, char *buf,
			size_t len, uint64_t *skipped);
/* Position -> address and expanded name (without the type letter). */
int kmodel__at(const struct kmodel *m, size_t pos, uint64_t *addr, char *name, size_t len);

#endif
