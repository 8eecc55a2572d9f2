// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table's big arrays (names, entries, index slots) in mappings of their
 * own, in huge pages where the kernel allows them: a fresh process pays a fault
 * for each 4 KiB page it touches (~11 us each on a VM, measured). A cold load of
 * a 165k-symbol table with its index took 75 ms in 4 KiB pages and 26 ms in
 * huge pages there (one run, side by side).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ksym_internal.h"

#define HUGE (2ul << 20)
#define BIG (1ul << 20)	/* smaller ones come from malloc */

static size_t huge_round(size_t size)
{
	return (size + HUGE - 1) & ~(HUGE - 1);
}

/* A zeroed mapping of size rounded up to huge pages, aligned to one. */
static void *map_big(size_t size)
{
	size_t len = huge_round(size), head;
	char *m = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	head = -(uintptr_t)m & (HUGE - 1);
	if (head)
		munmap(m, head);
	munmap(m + head + len, HUGE - head);
	madvise(m + head, len, MADV_HUGEPAGE);
	return m + head;
}

void *ksym_mem_alloc(size_t size)
{
	return size >= BIG ? map_big(size) : calloc(1, size ? size : 1);
}

void ksym_mem_free(void *p, size_t size)
{
	if (p && size >= BIG)
		munmap(p, huge_round(size));
	else
		free(p);
}

void *ksym_mem_realloc(void *p, size_t old, size_t size)
{
	void *n;

	if (!p)
		return ksym_mem_alloc(size);
	if (old < BIG && size < BIG)
		return realloc(p, size ? size : 1);
	if (old >= BIG && size >= BIG) {
		if (huge_round(size) <= huge_round(old)) {
			/* whole huge pages past the new end go back */
			if (huge_round(size) < huge_round(old))
				munmap((char *)p + huge_round(size),
				       huge_round(old) - huge_round(size));
			return p;
		}
		/*
		 * The pages move into a new aligned range (page tables, no
		 * copy): a copy would hold both at once, the peak RSS.
		 */
		n = map_big(size);
		if (!n)
			return NULL;
		if (mremap(p, huge_round(old), huge_round(old), MREMAP_MAYMOVE | MREMAP_FIXED,
			   n) != MAP_FAILED)
			return n;
		ksym_mem_free(n, size);
	}
	n = ksym_mem_alloc(size);
	if (!n)
		return NULL;
	memcpy(n, p, old < size ? old : size);
	ksym_mem_free(p, old);
	return n;
}
