/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a kernel-symbol cache file and a
 * /proc/modules text. Input: one byte of flags, two of the modules text's
 * length, that text, then the cache's bytes. Flag 1 seals the bytes (a
 * right checksum), so that the checks behind it are reached; the key is
 * taken from the bytes' own header, as if this kernel had written them.
 * Whatever decodes must be a table as a parse makes one, and encode back
 * to the same symbols. Flag 2 reads it lazily too, from a file of those
 * bytes (kcache_open_lazy): the same answers; flag 4 then damages the
 * file's records and names with the modules text (each stride and name
 * read later must be checked by its hash: found or unknown, never
 * another). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The key fields of the header (see kcache.c): build-id at 24, its
 * length at 44, head_len at 48, head_hash at 56. */
static void key_of(const uint8_t *buf, size_t len, struct kcache_key *k)
{
	memset(k, 0, sizeof(*k));
	if (len < 64)
		return;
	memcpy(k->build_id, buf + 24, KCACHE_BUILD_ID_MAX);
	k->build_id_len = buf[44] <= KCACHE_BUILD_ID_MAX ? buf[44] : KCACHE_BUILD_ID_MAX;
	memcpy(&k->head_len, buf + 48, sizeof(k->head_len));
	memcpy(&k->head_hash, buf + 56, sizeof(k->head_hash));
}

static void check_table(const struct kallsyms *ks)
{
	for (size_t i = 0; i < ks->nsyms; i++) {
		const struct kallsyms_sym *s = &ks->syms[i];
		const char *mod;

		if ((i && ks->syms[i - 1].addr >= s->addr) || s->name >= ks->names_len ||
		    memchr(ks->names + s->name, '\0', ks->names_len - s->name) == NULL ||
		    kallsyms_name(ks, s)[0] == '\0' || kallsyms_find(ks, s->addr) != s)
			abort();
		if (s->module && s->module >= ks->nmodules)
			abort();
		mod = kallsyms_module(ks, s);
		if (mod && (mod[0] != '[' || mod[strlen(mod) - 1] != ']'))
			abort();
	}
	if (ks->restricted || kallsyms_bytes(ks) < sizeof(*ks))
		abort();
}

static bool write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* ks as kcache_load makes it, read lazily from a file of buf's bytes,
 * damaged with mod when it is not empty. */
static void check_lazy(const struct kallsyms *ks, const uint8_t *buf, size_t len, const struct kcache_key *k,
		       const struct kcache_modules *m, const uint8_t *mod, size_t mlen)
{
	struct kallsyms *lz = NULL;
	struct kcache_layout l;
	int fd, rc;

	if (kcache_layout(buf, len, &l) != 0)
		abort(); /* it decoded */
	fd = memfd_create("fuzz_kcache", MFD_CLOEXEC);
	if (fd < 0 || !write_all(fd, buf, len)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Modules moved: kcache_load takes the decoded part instead. */
	if ((rc = kcache_open_lazy(&lz, fd, len, k, m)) != 0) {
		close(fd);
		if (rc != -EAGAIN && rc != -ENOMEM)
			abort(); /* what decodes whole opens lazily */
		return;
	}
	for (size_t i = 0; mlen && i < l.names_off - l.syms_off + (len - l.names_off); i++) {
		uint8_t b;

		if (pread(fd, &b, 1, (off_t)(l.syms_off + i)) != 1)
			break;
		b ^= mod[i % mlen];
		if (pwrite(fd, &b, 1, (off_t)(l.syms_off + i)) != 1)
			break;
	}
	close(fd);
	for (size_t i = 0; i < ks->nsyms; i++) {
		const struct kallsyms_sym *s = &ks->syms[i], *t = kallsyms_find(lz, s->addr);
		const char *ma, *mb;

		if (mlen) {
			/* Damaged: what is found is the symbol it was, named
			 * as it was or unknown. */
			if (t && (t->addr != s->addr || (strcmp(kallsyms_name(lz, t), kallsyms_name(ks, s)) != 0 &&
							 strcmp(kallsyms_name(lz, t), "[unknown]") != 0)))
				abort();
			continue;
		}
		if (t == NULL || t->addr != s->addr || strcmp(kallsyms_name(ks, s), kallsyms_name(lz, t)) != 0)
			abort();
		ma = kallsyms_module(ks, s), mb = kallsyms_module(lz, t);
		if (ma && mb ? strcmp(ma, mb) != 0 : ma != mb)
			abort();
	}
	if (!mlen && !kallsyms_same(ks, lz))
		abort();
	kallsyms_free(lz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kcache_modules m;
	struct kallsyms *ks = NULL, *again = NULL;
	struct kcache_key k;
	size_t mlen, len;
	uint8_t *buf;
	void *enc;
	size_t enclen;

	if (size < 3)
		return 0;
	mlen = (size_t)data[1] | (size_t)data[2] << 8;
	if (mlen > size - 3)
		mlen = size - 3;
	if (kcache_modules_parse(&m, (const char *)data + 3, mlen) != 0)
		return 0;
	for (size_t i = 0; i < m.n; i++)
		if (strlen(m.v[i].name) == 0 || strlen(m.v[i].name) >= KCACHE_MODNAME_MAX)
			abort();
	len = size - 3 - mlen;
	/* A copy of its own: decode may keep pointers into it, and sealing
	 * writes to it. */
	buf = malloc(len ? len : 1);
	if (buf == NULL)
		goto out;
	memcpy(buf, data + 3 + mlen, len);
	if (data[0] & 1)
		kcache_seal(buf, len);
	key_of(buf, len, &k);
	if (kcache_decode(&ks, buf, len, &k, &m) == 0) {
		check_table(ks);
		if (data[0] & 2)
			check_lazy(ks, buf, len, &k, &m, data + 3, data[0] & 4 ? mlen : 0);
		/* What decodes encodes back to the same symbols (all of them
		 * current: the modules that were kept are the ones m shows). */
		if (k.build_id_len && kcache_encode(ks, &k, &m, &enc, &enclen) == 0) {
			if (kcache_decode(&again, enc, enclen, &k, &m) != 0 || !kallsyms_same(ks, again))
				abort();
			kallsyms_free(again);
			free(enc);
		}
		kallsyms_free(ks);
	}
	free(buf);
out:
	kcache_modules_free(&m);
	return 0;
}
