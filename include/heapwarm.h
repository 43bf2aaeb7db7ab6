/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFTOP_HEAPWARM_H
#define PERFTOP_HEAPWARM_H

#include <stdbool.h>
#include <stddef.h>

/* A fresh heap page costs a page fault at its first touch: 12 us on the
 * 2-CPU VMs perftop is measured on, where having the kernel populate the
 * pages in one call costs 1 us a page. heapwarm makes the main heap's
 * next `bytes` populated at once and keeps them (no trim below that), and
 * sends allocations below 1 MiB to the heap (curses' three screen-sized
 * windows were 180 faults of their own). Call it early in main, before
 * curses and the session allocate; a kernel without MADV_POPULATE_WRITE
 * (before 5.14), or a malloc other than glibc's, just gets the faults.
 * Returns the bytes populated (0: nothing done). */
size_t heapwarm(size_t bytes);

/* What a run is worth warming: the heap a dump fills in its first
 * intervals, for a live view on a rows x cols terminal its windows, and
 * with call graphs what their first interval fills. */
size_t heapwarm_size(int rows, int cols, bool callgraph);

#endif
