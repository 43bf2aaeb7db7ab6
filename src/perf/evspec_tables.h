/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evspec_tables: private to the perf layer (the parser, evspec.c). */
#ifndef PERFTOP_EVSPEC_TABLES_H
#define PERFTOP_EVSPEC_TABLES_H

#include <linux/perf_event.h>

/* A name needing no filesystem: hardware, software, hardware cache, rNNNN.
 * Sets type and config; 0, -1 unknown, -2 a cache op that cache lacks. */
int evspec_tables_symbol(const char *name, struct perf_event_attr *attr);

#endif
