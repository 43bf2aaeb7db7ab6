/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A shared library that fixture_dlopen loads once perftop watches: its one
 * function must show by name, with the library as its DSO. */
#include "spin.h"

SPIN_FN(libhot_spin)
