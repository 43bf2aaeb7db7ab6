/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offbpf: loads offbpf.bpf.c (its skeleton is generated at build time),
 * fills its filters, reads its sums. The sums are double-buffered: a drain
 * flips the program to the other map, waits until no program that read
 * the old generation is still running (the per-CPU enter/leave counts),
 * then takes the old map whole; no sum is read while the kernel adds to
 * it. */
#include "offbpf.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef PERFTOP_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "offbpf_abi.h"
/* The program's bytes are one long string. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#pragma GCC diagnostic ignored "-Wpedantic"
#include "offbpf.skel.h"
#pragma GCC diagnostic pop

#define BATCH 512

struct offbpf {
	struct offbpf_skel *skel;
	struct ring_buffer *want;
	int cgroup_fd;
	int ncpus;
	bool attached;
	struct offbpf_key keys[BATCH];
	struct offbpf_sum vals[BATCH];
	struct offbpf_stack stack;
	void (*want_fn)(void *arg, pid_t pid, uint64_t ip);
	void *want_arg;
	uint64_t stacks_gone, drains, sums, stacks_read;
	uint64_t drain_ns, waits;
	struct offbpf_rule_key ruled[OFFBPF_RULES]; /* the rules given (offbpf_forget) */
	size_t nruled;
};

bool offbpf_built(void) { return true; }

/* libbpf's messages go nowhere: failures reach the user as one line. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int fail(struct offbpf *b, int rc, char *err, size_t errlen, const char *what)
{
	if (rc == -EACCES) /* the verifier's answer, not a privilege's */
		snprintf(err, errlen, "--off-cpu in BPF: %s: this kernel's verifier refused it (%s)", what,
			 strerror(-rc));
	else if (rc == -EPERM)
		snprintf(err, errlen, "--off-cpu in BPF: %s not permitted (%s): run as root, or with CAP_BPF and CAP_PERFMON",
			 what, strerror(-rc));
	else
		snprintf(err, errlen, "--off-cpu in BPF: %s failed (%s): a kernel with BTF (5.15 or later) is needed", what,
			 strerror(-rc));
	offbpf_close(b);
	return rc;
}

static int targets(struct offbpf *b, const struct offbpf_opts *o, char *err, size_t errlen)
{
	int fd = bpf_map__fd(b->skel->maps.offbpf_targets);
	__u8 one = 1;

	if (o->cgroup) {
		__u32 zero = 0;

		b->cgroup_fd = open(o->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (b->cgroup_fd < 0) {
			int e = errno;

			snprintf(err, errlen, "--off-cpu: cannot open cgroup %s (%s)", o->cgroup, strerror(e));
			return -e;
		}
		if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.offbpf_cgroup), &zero, &b->cgroup_fd, BPF_ANY))
			return -errno;
	}
	for (size_t i = 0; i < o->npids; i++) {
		__u32 id = (__u32)o->pids[i];

		if (bpf_map_update_elem(fd, &id, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int on_want(void *ctx, void *data, size_t size)
{
	struct offbpf *b = ctx;
	const struct offbpf_rule_key *k = data;

	if (size >= sizeof(*k) && b->want_fn)
		b->want_fn(b->want_arg, (pid_t)k->pid, k->ip);
	return 0;
}

int offbpf_open(struct offbpf **out, const struct offbpf_opts *o, char *err, size_t errlen)
{
	struct offbpf *b = calloc(1, sizeof(*b));
	int rc;

	*out = NULL;
	if (b == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->cgroup_fd = -1;
	libbpf_set_print(quiet);
	if ((b->skel = offbpf_skel__open()) == NULL)
		return fail(b, -errno, err, errlen, "opening the program");
	b->skel->rodata->offbpf_filter = o->cgroup ? OFFBPF_FILTER_CGROUP
					 : o->pids  ? (o->pids_are_tids ? OFFBPF_FILTER_TID : OFFBPF_FILTER_TGID)
						    : OFFBPF_FILTER_NONE;
	b->skel->bss->offbpf_thresh_ns = o->thresh_ns;
	if ((rc = offbpf_skel__load(b->skel)) != 0)
		return fail(b, rc < 0 ? rc : -EINVAL, err, errlen, "loading the program");
	if ((rc = targets(b, o, err, errlen)) != 0) {
		if (b->cgroup_fd < 0 && o->cgroup)
			offbpf_close(b);
		else
			fail(b, rc, err, errlen, "filling its target maps");
		return rc;
	}
	b->want = ring_buffer__new(bpf_map__fd(b->skel->maps.offbpf_want), on_want, b, NULL);
	if (b->want == NULL)
		return fail(b, -errno, err, errlen, "opening its ring buffer");
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0 || b->ncpus > OFFBPF_SLOTS)
		b->ncpus = OFFBPF_SLOTS;
	*out = b;
	return 0;
}

int offbpf_attach(struct offbpf *b, char *err, size_t errlen)
{
	int rc;

	if (b->attached)
		return 0;
	if ((rc = offbpf_skel__attach(b->skel)) != 0) {
		rc = rc < 0 ? rc : -EINVAL;
		snprintf(err, errlen, "--off-cpu in BPF: attaching to sched_switch failed (%s)", strerror(-rc));
		return rc;
	}
	b->attached = true;
	return 0;
}

void offbpf_close(struct offbpf *b)
{
	if (b == NULL)
		return;
	ring_buffer__free(b->want);
	offbpf_skel__destroy(b->skel);
	if (b->cgroup_fd >= 0)
		close(b->cgroup_fd);
	free(b);
}

int offbpf_want_fd(const struct offbpf *b) { return ring_buffer__epoll_fd(b->want); }

int offbpf_wants(struct offbpf *b, void (*fn)(void *arg, pid_t pid, uint64_t ip), void *arg)
{
	int rc;

	b->want_fn = fn;
	b->want_arg = arg;
	rc = ring_buffer__consume(b->want);
	b->want_fn = NULL;
	return rc < 0 ? rc : 0;
}

int offbpf_rule(struct offbpf *b, pid_t pid, uint64_t ip, int32_t ra_off)
{
	struct offbpf_rule_key k = { .pid = (__u32)pid, .ip = ip };
	__s32 v = ra_off < 0 ? OFFBPF_RULE_NONE : ra_off;

	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.offbpf_rules), &k, &v, BPF_ANY) != 0)
		return -errno;
	if (b->nruled < OFFBPF_RULES) /* at most the map's room: one entry each */
		b->ruled[b->nruled++] = k;
	return 0;
}

void offbpf_forget(struct offbpf *b, pid_t pid)
{
	int fd = bpf_map__fd(b->skel->maps.offbpf_rules);
	size_t n = 0;

	/* The rules given, kept here too: a process's go without walking the map. */
	for (size_t i = 0; i < b->nruled; i++) {
		if (b->ruled[i].pid == (__u32)pid)
			(void)bpf_map_delete_elem(fd, &b->ruled[i]);
		else
			b->ruled[n++] = b->ruled[i];
	}
	b->nruled = n;
}

bool offbpf_pending(struct offbpf *b, pid_t pid)
{
	__u32 key = (__u32)pid, gen, now = __atomic_load_n(&b->skel->bss->offbpf_gen, __ATOMIC_RELAXED);

	/* A sum made in this generation: not drained yet. */
	return bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.offbpf_dirty), &key, &gen) == 0 && gen == now;
}

/* Every program that may have read the old generation has left. */
static void quiesce(struct offbpf *b)
{
	volatile __u64 *enter = b->skel->bss->offbpf_enter, *leave = b->skel->bss->offbpf_leave;

	for (int i = 0; i < b->ncpus; i++) {
		__u64 want = __atomic_load_n(&enter[i], __ATOMIC_SEQ_CST);

		/* A program runs for microseconds: spin that long before giving
		 * the CPU away (a yield on a busy CPU costs a time slice). */
		for (unsigned spin = 0; __atomic_load_n(&leave[i], __ATOMIC_SEQ_CST) < want; spin++) {
			b->waits++;
			if (spin > 100000)
				sched_yield();
		}
	}
}

int offbpf_drain(struct offbpf *b, void (*fn)(void *arg, const struct offbpf_sum_of *s), void *arg)
{
	__u32 old = __atomic_load_n(&b->skel->bss->offbpf_gen, __ATOMIC_RELAXED);
	int fd = bpf_map__fd(old & 1 ? b->skel->maps.offbpf_sums1 : b->skel->maps.offbpf_sums0);
	struct offbpf_key batch_at;
	bool first = true, done = false;

	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	__atomic_store_n(&b->skel->bss->offbpf_gen, old + 1, __ATOMIC_SEQ_CST);
	quiesce(b);
	b->drains++;
	while (!done) {
		__u32 n = BATCH;
		int rc = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &batch_at, &batch_at, b->keys, b->vals, &n,
							 NULL);

		if (rc < 0 && errno != ENOENT)
			return -errno;
		done = rc < 0;
		first = false;
		for (__u32 i = 0; i < n; i++) {
			const struct offbpf_key *k = &b->keys[i];
			struct offbpf_sum_of s = {
				.pid = (pid_t)k->pid, .tid = (pid_t)k->tid, .cpu = (int)k->cpu, .state = (int)k->state,
				.spans = b->vals[i].spans, .us = b->vals[i].us, .ns = b->vals[i].ns,
				.khash = k->khash, .uhash = k->uhash, .leaf_fixed = k->fix == OFFBPF_FIX_RET,
				.leaf_unknown = k->fix == OFFBPF_FIX_UNKNOWN, .leaf_ret = k->leaf_ret,
			};

			b->sums++;
			fn(arg, &s);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	b->drain_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}

size_t offbpf_stack(struct offbpf *b, uint64_t hash, uint64_t *ips, size_t max)
{
	size_t n;

	if (hash == 0)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.offbpf_stacks), &hash, &b->stack) != 0) {
		b->stacks_gone++;
		return 0;
	}
	b->stacks_read++;
	n = b->stack.n < OFFBPF_DEPTH ? b->stack.n : OFFBPF_DEPTH;
	if (n > max)
		n = max;
	memcpy(ips, b->stack.ip, n * sizeof(*ips));
	return n;
}

void offbpf_get_stats(const struct offbpf *b, struct offbpf_stats *st)
{
	const struct offbpf_counts *c = &b->skel->bss->offbpf_counts;

	*st = (struct offbpf_stats){
		.outs = c->outs, .ins = c->ins, .short_spans = c->short_spans, .lost = c->lost,
		.no_stack = c->no_stack, .unfixed = c->unfixed, .stacks_gone = b->stacks_gone,
		.drains = b->drains, .sums = b->sums, .stacks_read = b->stacks_read, .drain_ns = b->drain_ns,
		.quiesce_waits = b->waits,
	};
}

#else /* !PERFTOP_HAVE_BPF */

struct offbpf {
	int unused;
};

bool offbpf_built(void) { return false; }

int offbpf_open(struct offbpf **out, const struct offbpf_opts *o, char *err, size_t errlen)
{
	(void)o;
	*out = NULL;
	snprintf(err, errlen, "--off-cpu in BPF: this perftop was built without libbpf (libbpf-dev, bpftool, clang)");
	return -ENOTSUP;
}

void offbpf_close(struct offbpf *b) { (void)b; }
int offbpf_attach(struct offbpf *b, char *err, size_t errlen) { return (void)b, (void)err, (void)errlen, -ENOTSUP; }
void offbpf_forget(struct offbpf *b, pid_t pid) { (void)b, (void)pid; }
bool offbpf_pending(struct offbpf *b, pid_t pid) { return (void)b, (void)pid, false; }
int offbpf_want_fd(const struct offbpf *b) { return (void)b, -1; }
int offbpf_wants(struct offbpf *b, void (*fn)(void *arg, pid_t pid, uint64_t ip), void *arg)
{
	return (void)b, (void)fn, (void)arg, -ENOTSUP;
}
int offbpf_rule(struct offbpf *b, pid_t pid, uint64_t ip, int32_t ra_off)
{
	return (void)b, (void)pid, (void)ip, (void)ra_off, -ENOTSUP;
}
int offbpf_drain(struct offbpf *b, void (*fn)(void *arg, const struct offbpf_sum_of *s), void *arg)
{
	return (void)b, (void)fn, (void)arg, -ENOTSUP;
}
size_t offbpf_stack(struct offbpf *b, uint64_t hash, uint64_t *ips, size_t max)
{
	return (void)b, (void)hash, (void)ips, (void)max, 0;
}
void offbpf_get_stats(const struct offbpf *b, struct offbpf_stats *st)
{
	(void)b;
	*st = (struct offbpf_stats){ 0 };
}

#endif
