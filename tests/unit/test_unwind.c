/* SPDX-License-Identifier: GPL-2.0-or-later */
/* DWARF unwinding of a stack of our own: registers and a stack copy taken
 * inside a known call chain (three frames without frame pointers), fed to
 * unwind_stack as a sample would be; the frames must be found in order. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "unwind.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>

#define STACK_COPY 8192

static uint64_t regs_at[PERF_REG_X86_64_MAX];
static unsigned char stack_copy[STACK_COPY];
static uint64_t stack_end, copied; /* the copy stops at the stack's top, as the kernel's does */

/* All general registers, the stack pointer and the IP at one instruction. */
#define CAPTURE() __asm__ volatile( \
	"movq %%rax, 0(%0)\n\t movq %%rbx, 8(%0)\n\t movq %%rcx, 16(%0)\n\t movq %%rdx, 24(%0)\n\t" \
	"movq %%rsi, 32(%0)\n\t movq %%rdi, 40(%0)\n\t movq %%rbp, 48(%0)\n\t movq %%rsp, 56(%0)\n\t" \
	"leaq 0(%%rip), %%rax\n\t movq %%rax, 64(%0)\n\t" \
	"movq %%r8, 128(%0)\n\t movq %%r9, 136(%0)\n\t movq %%r10, 144(%0)\n\t movq %%r11, 152(%0)\n\t" \
	"movq %%r12, 160(%0)\n\t movq %%r13, 168(%0)\n\t movq %%r14, 176(%0)\n\t movq %%r15, 184(%0)\n\t" \
	: : "r"(regs_at) : "rax", "memory")

/* Copies the raw stack as the kernel does, redzones and all: not a bug for
 * ASan to report, and byte by byte so no memcpy interceptor sees it. */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(unsigned char *dst, uint64_t src, size_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)src;

	for (size_t i = 0; i < n; i++)
		dst[i] = p[i];
}

__attribute__((noinline)) void take_sample(void);
__attribute__((noinline)) void take_sample(void)
{
	CAPTURE();
	uint64_t sp = regs_at[PERF_REG_X86_SP];

	copied = stack_end > sp && stack_end - sp < STACK_COPY ? stack_end - sp : STACK_COPY;
	copy_stack(stack_copy, sp, copied);
}

__attribute__((noinline)) void unwind_leaf(int n);
__attribute__((noinline)) void unwind_mid(int n);
__attribute__((noinline)) void unwind_outer(int n);

__attribute__((noinline)) void unwind_leaf(int n)
{
	volatile int x = n;

	take_sample();
	__asm__ volatile("" ::: "memory");
	(void)x;
}

__attribute__((noinline)) void unwind_mid(int n)
{
	volatile char pad[40];

	pad[0] = (char)n;
	unwind_leaf(pad[0] + 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void unwind_outer(int n)
{
	unwind_mid(n * 2);
	__asm__ volatile("" ::: "memory");
}

/* This test's own process table: /proc/self/maps. */
static bool find_map(void *arg, pid_t pid, uint64_t addr, struct unwind_map *out)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4608];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], path[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perms, &off, path) >= 4 &&
		    addr >= s && addr < e && path[0] == '/') {
			strlcpy(out->path, path, sizeof(out->path));
			out->start = s;
			out->end = e;
			out->base = s - off;
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static const char *name_of(uint64_t ip)
{
	Dl_info di;

	return dladdr((void *)(uintptr_t)ip, &di) && di.dli_sname ? di.dli_sname : "?";
}

int main(void)
{
	uint64_t mask = unwind_regs_mask(), regs[64], ips[32];
	struct record r;
	struct unwind *u = unwind_new(find_map, NULL, 4);
	size_t n = 0, k;
	bool complete;

	{
		FILE *f = fopen("/proc/self/maps", "re");
		char line[4608];

		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "[stack]"))
			{
				unsigned long long lo, hi;

				if (sscanf(line, "%llx-%llx", &lo, &hi) == 2)
					stack_end = hi;
			}
		if (f)
			fclose(f);
	}
	unwind_outer(3);
	memset(&r, 0, sizeof(r));
	for (int b = 0; b < 64; b++)
		if (mask & (1ull << b))
			regs[n++] = regs_at[b];
	r.sample.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	r.sample.nregs = n;
	r.sample.regs = (const unsigned char *)regs;
	r.sample.stack_size = STACK_COPY;
	r.sample.stack_dyn_size = copied;
	r.sample.stack = stack_copy;
	CHECK(u != NULL && mask != 0, "an unwinder for x86_64");
	k = unwind_stack(u, getpid(), getpid(), &r, ips, 32, &complete);
	CHECK(k >= 5, "frames found: %zu", k);
	CHECK(k >= 1 && strcmp(name_of(ips[0]), "take_sample") == 0, "frame 0: %s", k ? name_of(ips[0]) : "-");
	CHECK(k >= 2 && strcmp(name_of(ips[1] - 1), "unwind_leaf") == 0, "frame 1: %s", k > 1 ? name_of(ips[1] - 1) : "-");
	CHECK(k >= 3 && strcmp(name_of(ips[2] - 1), "unwind_mid") == 0, "frame 2: %s", k > 2 ? name_of(ips[2] - 1) : "-");
	CHECK(k >= 4 && strcmp(name_of(ips[3] - 1), "unwind_outer") == 0, "frame 3: %s", k > 3 ? name_of(ips[3] - 1) : "-");
	CHECK(k >= 5 && strcmp(name_of(ips[4] - 1), "main") == 0, "frame 4: %s", k > 4 ? name_of(ips[4] - 1) : "-");
	/* The same Dwfl serves the next sample. */
	k = unwind_stack(u, getpid(), getpid(), &r, ips, 3, &complete);
	CHECK(k == 3 && !complete, "a max of 3 frames stops there, not complete");
	{
		struct unwind_stats st, st2;
		uint64_t again[32];
		size_t k2;
		bool same = true;

		unwind_get_stats(u, &st);
		CHECK(st.dwfl_made == 1 && st.stacks == 2, "one Dwfl kept for the process (%llu made)",
		      (unsigned long long)st.dwfl_made);
		/* x86-64 steps from cached CFI rules: the first walk made them,
		 * the next ones look them up. The cache is direct-mapped and the
		 * addresses move with ASLR, so two frames may share a slot (a few
		 * runs in a hundred): each is then made again, no more. */
		k = unwind_stack(u, getpid(), getpid(), &r, ips, 32, &complete);
		unwind_get_stats(u, &st2);
		CHECK(st.slow_walks == 0 && st.rules_made >= 5 && (st2.rules_made - st.rules_made) * 2 <= k &&
		      st2.rule_hits - st.rule_hits + (st2.rules_made - st.rules_made) >= k && complete,
		      "a warm walk makes no rule (%llu made, %llu then %llu hits, %llu slow)",
		      (unsigned long long)st2.rules_made, (unsigned long long)st.rule_hits,
		      (unsigned long long)st2.rule_hits, (unsigned long long)st2.slow_walks);
		/* Code mapped anew over a module it knew: its rules and Dwfl go. */
		unwind_mapped(u, getpid(), 4096, 8192);
		unwind_get_stats(u, &st);
		CHECK(st.dwfl_dropped == 0, "a mapping elsewhere leaves them");
		unwind_mapped(u, getpid(), (uint64_t)(uintptr_t)&unwind_leaf, (uint64_t)(uintptr_t)&unwind_leaf + 1);
		k2 = unwind_stack(u, getpid(), getpid(), &r, again, 32, &complete);
		unwind_get_stats(u, &st2);
		for (size_t i = 0; i < k && i < k2; i++)
			same &= ips[i] == again[i];
		CHECK(st2.dwfl_dropped == 1 && st2.dwfl_made == st.dwfl_made + 1 && st2.rules_made >= st.rules_made + 5,
		      "mapped over: Dwfl made again (%llu), rules read again (%llu -> %llu)",
		      (unsigned long long)st2.dwfl_made, (unsigned long long)st.rules_made,
		      (unsigned long long)st2.rules_made);
		CHECK(k2 == k && same && complete, "and the same %zu frames found", k2);
	}
	{
		/* More processes than slots (2): each Dwfl keeps reading its own
		 * entry after another was evicted (pids made up: the maps are ours). */
		struct unwind *u2 = unwind_new(find_map, NULL, 2);
		size_t k2 = 0;

		for (pid_t p = 1000001; u2 && p <= 1000003; p++)
			unwind_stack(u2, p, p, &r, ips, 32, &complete);
		if (u2)
			k2 = unwind_stack(u2, 1000002, 1000002, &r, ips, 32, &complete);
		CHECK(k2 >= 5, "after an eviction the survivor still unwinds (%zu frames)", k2);
		unwind_free(u2);
	}
	r.sample.stack_dyn_size = 16; /* a stack copy cut short: the walk ends early */
	k = unwind_stack(u, getpid(), getpid(), &r, ips, 32, &complete);
	CHECK(!complete && k >= 1, "a short stack copy: incomplete (%zu frames)", k);
	unwind_free(u);
	return check_done();
}
#else
int main(void)
{
	CHECK_SKIP("DWARF unwinding tests are written for x86_64 registers");
	return check_done();
}
#endif
