/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as an ELF file through libelf and
 * elfsym's checks, then lookups at, around and between every symbol and
 * file offset to address translation over every load segment. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whatever find returns contains vaddr and names something. */
static void check_find(const struct elfsym *t, uint64_t vaddr)
{
	const struct elfsym_sym *s = elfsym_find(t, vaddr);
	const char *name;

	if (s == NULL)
		return;
	if (s < t->syms || s >= t->syms + t->nsyms || s->addr > vaddr || vaddr - s->addr >= s->size)
		abort();
	name = elfsym_name(t, s);
	if (s->name >= t->names_len || name[0] == '\0' || strlen(name) >= t->names_len - s->name)
		abort();
}

static void check_offset(const struct elfsym *t, uint64_t off)
{
	uint64_t vaddr;

	if (elfsym_offset_to_vaddr(t, off, &vaddr))
		check_find(t, vaddr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym *t;

	if (elfsym_load_buf(&t, data, size) != 0) {
		if (t != NULL)
			abort();
		return 0;
	}
	if (t->nloads > ELFSYM_MAX_LOADS || t->build_id_len > ELFSYM_BUILD_ID_MAX)
		abort();
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct elfsym_sym *s = &t->syms[i];

		/* One entry per address, ascending: binary search depends on it. */
		if (i && t->syms[i - 1].addr >= s->addr)
			abort();
		if (s->size && elfsym_find(t, s->addr) != s)
			abort();
		check_find(t, s->addr - 1);
		check_find(t, s->addr + s->size - 1);
		check_find(t, s->addr + s->size);
	}
	for (size_t i = 0; i < t->nloads; i++) {
		const struct elfsym_load *l = &t->loads[i];

		check_offset(t, l->offset);
		check_offset(t, l->offset + l->filesz / 2);
		check_offset(t, l->offset + l->filesz - 1);
		check_offset(t, l->offset + l->filesz);
	}
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		check_find(t, a);
		check_offset(t, a);
	}
	if (elfsym_bytes(t) < sizeof(*t))
		abort();
	elfsym_free(t);
	return 0;
}
