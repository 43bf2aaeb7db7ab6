/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

/* Longer names exist only in hostile files; the demangler's work grows
 * with the length. */
#define DEMANGLE_MAX_IN 4096

bool demangle_candidate(const char *name)
{
	/* _Z: Itanium C++ and legacy Rust; _R: Rust v0. */
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R') && name[2] != '\0';
}

char *demangle(const char *name)
{
	char *out;

	if (!demangle_candidate(name) || strnlen(name, DEMANGLE_MAX_IN) == DEMANGLE_MAX_IN)
		return NULL;
	/* DMGL_AUTO tries Rust before C++: a legacy Rust name is also valid
	 * Itanium, and only the Rust rules drop its hash. No DMGL_PARAMS: the
	 * short form perf shows ("ns::Foo<int>::bar"), which fits a column. */
	out = cplus_demangle(name, DMGL_AUTO);
	if (out && out[0] == '\0') {
		free(out);
		return NULL;
	}
	return out;
}
