/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flame: a run's call paths (agg_callgraph) as folded stacks or as an SVG
 * flame graph. Names from other processes are sanitised and escaped. */
#ifndef PERFTOP_FLAME_H
#define PERFTOP_FLAME_H

#include <stdio.h>

#include "agg.h"

/* "comm;outermost;…;leaf COUNT" a line, kernel frames marked _[k]; what
 * did not fit the tree's bound as "[other] COUNT". 0 or -errno. */
int flame_folded(FILE *f, struct agg *a, enum agg_scope scope, size_t ev);

/* One self-contained SVG document (hover, click to zoom, search). */
int flame_svg(FILE *f, struct agg *a, enum agg_scope scope, size_t ev, const char *title);

#endif
