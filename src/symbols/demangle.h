/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demangle: C++ (Itanium) and Rust (legacy and v0) symbol names made
 * readable, through libiberty's cplus_demangle. */
#ifndef PERFTOP_DEMANGLE_H
#define PERFTOP_DEMANGLE_H

#include <stdbool.h>

/* Whether name looks mangled at all: a cheap test before the real work. */
bool demangle_candidate(const char *name);

/* The readable form of name, malloc'd, or NULL when it is not a mangled
 * name we know (or memory ran out): the caller then shows name itself. */
char *demangle(const char *name);

#endif
