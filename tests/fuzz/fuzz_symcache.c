/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a user symbol-cache entry. Input:
 * one byte of flags, then the entry's bytes. Flag 1 seals them (a right
 * checksum), so that the checks behind it are reached; the key is taken
 * from the entry's own header (label included), as if this file's entry.
 * Whatever decodes must be a table as elfsym's load makes one, and encode
 * back to the same table. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "elfsym.h"
#include "symcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The key fields of the header (see symcache.c): build-id at 24 (32
 * bytes), file size at 56, label length at 90, build-id length at 94;
 * the label after the names, whose offset only a decode knows: the
 * label is tried as the entry's last label_len bytes before the
 * debuglink (debuglink length at 92). */
static void key_of(const uint8_t *buf, size_t len, struct symcache_key *k, char *label)
{
	uint16_t llen = 0, dlen = 0;

	memset(k, 0, sizeof(*k));
	label[0] = '\0';
	k->label = label;
	if (len < 96)
		return;
	k->build_id = buf + 24;
	k->build_id_len = buf[94];
	memcpy(&k->file_size, buf + 56, sizeof(k->file_size));
	memcpy(&llen, buf + 90, sizeof(llen));
	memcpy(&dlen, buf + 92, sizeof(dlen));
	if (llen <= 4096 && (size_t)llen + dlen <= len - 96) {
		memcpy(label, buf + len - dlen - llen, llen);
		label[llen] = '\0';
	}
}

static void check_table(const struct elfsym *t)
{
	if (t->nsyms == 0 || t->nsynth > t->nsyms || t->nloads > ELFSYM_MAX_LOADS || t->names[t->names_len - 1])
		abort();
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct elfsym_sym *s = &t->syms[i];

		if ((i && t->syms[i - 1].addr >= s->addr) || s->name >= t->names_len)
			abort();
		if (s->size && elfsym_find(t, s->addr) != s)
			abort();
		(void)strlen(elfsym_name(t, s));
	}
	if (t->debuglink && (strchr(t->debuglink, '/') || strlen(t->debuglink) > 255))
		abort();
}

static int decode(struct elfsym **out, uint64_t *deps, const uint8_t *buf, size_t len,
		  const struct symcache_key *k)
{
	void *m = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int rc;

	if (m == MAP_FAILED)
		return -1;
	memcpy(m, buf, len);
	if ((rc = symcache_decode(out, deps, m, len, k)) != 0)
		munmap(m, len ? len : 1);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym *t = NULL, *again = NULL;
	struct symcache_key k;
	char label[4097];
	uint8_t *buf;
	uint64_t deps, deps2;
	void *enc;
	size_t len, enclen;

	if (size < 1)
		return 0;
	len = size - 1;
	if ((buf = malloc(len ? len : 1)) == NULL)
		return 0;
	memcpy(buf, data + 1, len);
	if (data[0] & 1)
		symcache_seal(buf, len);
	key_of(buf, len, &k, label);
	if (decode(&t, &deps, buf, len, &k) == 0) {
		check_table(t);
		if (symcache_encode(t, &k, deps, &enc, &enclen) == 0) {
			if (decode(&again, &deps2, enc, enclen, &k) != 0 || deps2 != deps ||
			    again->nsyms != t->nsyms || memcmp(again->syms, t->syms, t->nsyms * sizeof(*t->syms)) ||
			    again->names_len != t->names_len || memcmp(again->names, t->names, t->names_len))
				abort();
			elfsym_free(again);
			free(enc);
		}
		elfsym_free(t);
	}
	free(buf);
	return 0;
}
