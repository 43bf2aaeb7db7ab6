/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_addrs: a sample's callchain as the addresses to resolve, leaf
 * first, with -g's leaf fix: what session_record resolves at once and
 * session_offcpu keeps with a span until it ends. */
#include "session.h"

#include <string.h>

bool session_addrs_kernel(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return true;
	default:
		return false;
	}
}

/* -g's leaf fix (leaffix.h): the user leaf's caller, missing from the
 * chain when the leaf keeps no frame; 0 when the chain is right. */
static uint64_t leaf_return(struct session *s, const struct record *r, uint64_t leaf, uint64_t next)
{
	if (s->leaf == NULL || r->sample.nregs == 0)
		return 0;
	return leaffix_return(s->leaf, r, leaf, next);
}

/* The addresses of a sample's callchain, leaf first. The first address
 * after each context marker is where that context was interrupted; the
 * others are return addresses, looked up at address - 1 (the call, not
 * what follows). -g's leaf fix adds the leaf's caller. Bit i of kmask: a
 * kernel address. */
size_t session_addrs_of(struct session *s, const struct record *r, uint64_t *addrs, uint64_t *kmask,
			    size_t max)
{
	bool kernel = session_addrs_kernel(r->misc), first = true;
	size_t n = 0;

	if (max > SESSION_STACK_MAX)
		max = SESSION_STACK_MAX;
	memset(kmask, 0, ((max + 63) / 64) * sizeof(*kmask));
	for (uint64_t i = 0; i < r->sample.nr && n < max; i++) {
		uint64_t ip = record_u64(r->sample.ips, i);

		if (first && !kernel && ip < PERF_CONTEXT_MAX && i + 1 < r->sample.nr && n + 1 < max) {
			uint64_t next = record_u64(r->sample.ips, i + 1), ret = leaf_return(s, r, ip, next);

			if (ret) {
				addrs[n++] = ip;
				ip = ret;
				first = false;
			}
		}

		if (ip >= PERF_CONTEXT_MAX) {
			kernel = ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_HV || ip == PERF_CONTEXT_GUEST_KERNEL;
			first = true;
			continue;
		}
		if (kernel)
			kmask[n / 64] |= 1ull << (n % 64);
		addrs[n++] = first ? ip : ip - 1;
		first = false;
	}
	return n;
}
