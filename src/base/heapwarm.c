/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "heapwarm.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Measured on the flat views at 4 kHz beside perf top: a dump's heap is
 * about 1 MiB after its first intervals; the live view adds curses' three
 * windows of a cell (28 bytes) per character and a little more. Call graphs
 * add ~2 MiB in the first interval (stacks, their memo, the call-path tree:
 * ~500 faults there at 4 kHz; the heap at 30 s was 3.5-3.9 MiB unwarmed,
 * 4.1 MiB warmed with this, the same RSS). */
#define WARM_BASE ((size_t)1 << 20)
#define WARM_CALLGRAPH ((size_t)2 << 20)
#define WARM_MAX ((size_t)8 << 20)
#define MMAP_MIN (1 << 20)

size_t heapwarm_size(int rows, int cols, bool callgraph)
{
	size_t n = WARM_BASE;

	if (rows > 0 && cols > 0)
		n += (size_t)4 * (size_t)rows * (size_t)cols * 28;
	if (callgraph)
		n += WARM_CALLGRAPH;
	return n < WARM_MAX ? n : WARM_MAX;
}

size_t heapwarm(size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t from, to;
	struct mallinfo2 mi;
	void *p;

	if (bytes == 0 || bytes > WARM_MAX || page <= 0)
		return 0;
	/* Settings first: the next growth of the heap brings `bytes` along,
	 * and freeing leaves them there. */
	if (mallopt(M_MMAP_THRESHOLD, MMAP_MIN) != 1 || mallopt(M_TRIM_THRESHOLD, (int)(2 * bytes)) != 1 ||
	    mallopt(M_TOP_PAD, (int)bytes) != 1)
		return 0;
	/* More than the top of the heap holds, so that it grows (by top_pad
	 * beyond); freed, it joins the top. */
	mi = mallinfo2();
	p = malloc(mi.keepcost < MMAP_MIN / 2 ? mi.keepcost + 1 : 1);
	if (p == NULL)
		return 0;
	from = ((uintptr_t)p + (uintptr_t)page) & ~((uintptr_t)page - 1);
	to = (uintptr_t)sbrk(0);
	/* The default step again for any later growth. */
	(void)mallopt(M_TOP_PAD, 128 * 1024);
	free(p);
	if (to == (uintptr_t)-1 || to <= from || madvise((void *)from, to - from, MADV_POPULATE_WRITE) != 0)
		return 0;
	return to - from;
}
