/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a kallsyms text, then lookups at,
 * around and between every symbol and at addresses taken from the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whatever find returns contains addr and is a well-formed entry. */
static void check_find(const struct kallsyms *ks, uint64_t addr)
{
	const struct kallsyms_sym *s = kallsyms_find(ks, addr);
	const char *name, *mod;

	if (s == NULL)
		return;
	if (s < ks->syms || s >= ks->syms + ks->nsyms || s->addr > addr ||
	    addr - s->addr >= KALLSYMS_MAX_SPAN)
		abort();
	name = kallsyms_name(ks, s);
	if (s->name >= ks->names_len || name[0] == '\0' || strlen(name) > KALLSYMS_NAME_MAX)
		abort();
	mod = kallsyms_module(ks, s);
	if (mod && (s->module >= ks->nmodules || mod[0] != '[' || mod[strlen(mod) - 1] != ']'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms *ks;

	if (kallsyms_load_buf(&ks, (const char *)data, size) != 0)
		return 0;
	if (ks->restricted && ks->nsyms != 0)
		abort();
	for (size_t i = 0; i < ks->nsyms; i++) {
		uint64_t a = ks->syms[i].addr;

		/* One entry per address, ascending: binary search depends on it. */
		if (i && ks->syms[i - 1].addr >= a)
			abort();
		if (kallsyms_find(ks, a) != &ks->syms[i])
			abort();
		check_find(ks, a - 1);
		check_find(ks, a + 1);
		check_find(ks, a + KALLSYMS_TAIL_SPAN - 1);
		check_find(ks, a + KALLSYMS_TAIL_SPAN);
		check_find(ks, a + KALLSYMS_MAX_SPAN);
	}
	for (size_t i = 0; i + 8 <= size; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		check_find(ks, a);
	}
	check_find(ks, 0);
	check_find(ks, UINT64_MAX);
	if (kallsyms_bytes(ks) < sizeof(*ks))
		abort();
	kallsyms_free(ks);
	return 0;
}
