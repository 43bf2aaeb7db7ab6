/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evspec_tables: the names perf knows without asking the filesystem
 * (hardware, software, hardware cache, raw) and the --list-events listing,
 * which probes each of them with a real perf_event_open. */
#include "evspec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evspec_fs.h"
#include "evspec_tables.h"
#include "util.h"
#include "perfsys.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define DEVICES "bus/event_source/devices"

struct sym {
	const char *name, *alias;
	uint64_t config;
};

static const struct sym hw_syms[] = {
	{ "cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct sym sw_syms[] = {
	{ "cpu-clock", NULL, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", NULL, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", NULL, PERF_COUNT_SW_CGROUP_SWITCHES },
};

static const struct {
	const struct sym *tab;
	size_t n;
	uint32_t type;
	const char *kind;
} sym_classes[] = {
	{ hw_syms, NELEM(hw_syms), PERF_TYPE_HARDWARE, "Hardware event" },
	{ sw_syms, NELEM(sw_syms), PERF_TYPE_SOFTWARE, "Software event" },
};

/* perf's evsel__hw_cache* tables; the first spelling is the one perf list
 * shows. perf's table also has "branches" for the branch unit, but its lexer
 * gives that word to the hardware event, so "branches-loads" is an error. */
static const char *const cache_types[PERF_COUNT_HW_CACHE_MAX][5] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};
/* Ops each cache has (perf's evsel__hw_cache_stat): bit N = op N. An
 * instruction cache is never stored to, so perf refuses L1-icache-stores. */
static const uint8_t cache_op_ok[PERF_COUNT_HW_CACHE_MAX] = { 7, 5, 7, 7, 1, 1, 7 };

/* The longest spelling that is a whole '-'-separated prefix of *s wins, so
 * "speculative-read" is one word and "branch" does not eat "branches". */
static int cache_word(const char *const tab[][5], size_t n, const char **s)
{
	size_t best_len = 0;
	int best = -1;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < 5 && tab[i][j]; j++) {
			size_t l = strlen(tab[i][j]);

			if (l > best_len && strncmp(*s, tab[i][j], l) == 0 &&
			    ((*s)[l] == '-' || (*s)[l] == '\0')) {
				best = (int)i;
				best_len = l;
			}
		}
	*s += best_len;
	return best;
}

/* perf's parse_events__decode_legacy_cache: CACHE[-OP][-RESULT], OP and RESULT
 * in either order; no op means loads, no result means accesses. Returns -2
 * for an op the cache does not have. */
static int cache_decode(const char *name, uint64_t *config)
{
	const char *s = name;
	int type = cache_word(cache_types, NELEM(cache_types), &s), op = -1, res = -1;

	if (type < 0)
		return -1;
	while (*s == '-') {
		s++;
		if (op < 0 && (op = cache_word(cache_ops, NELEM(cache_ops), &s)) >= 0)
			continue;
		if (res < 0 && (res = cache_word(cache_results, NELEM(cache_results), &s)) >= 0)
			continue;
		return -1;
	}
	if (*s)
		return -1;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_op_ok[type] & (1u << op)))
		return -2;
	*config = (uint64_t)type | ((uint64_t)op << 8) | ((uint64_t)res << 16);
	return 0;
}

/* rNNNN, and r0xNNNN as newer perf also takes: 1-16 hex digits. */
static int raw_decode(const char *name, uint64_t *config)
{
	const char *h = name + 1;
	size_t n;

	if (name[0] != 'r')
		return -1;
	if (h[0] == '0' && h[1] == 'x')
		h += 2;
	n = strlen(h);
	if (n == 0 || n > 16 || strspn(h, "0123456789abcdefABCDEF") != n)
		return -1;
	*config = strtoull(h, NULL, 16);
	return 0;
}

int evspec_tables_symbol(const char *name, struct perf_event_attr *attr)
{
	int rc;
	uint64_t config;

	for (size_t c = 0; c < NELEM(sym_classes); c++)
		for (size_t i = 0; i < sym_classes[c].n; i++) {
			const struct sym *s = &sym_classes[c].tab[i];

			if (strcmp(name, s->name) == 0 || (s->alias && strcmp(name, s->alias) == 0)) {
				attr->type = sym_classes[c].type;
				attr->config = s->config;
				return 0;
			}
		}
	if (raw_decode(name, &config) == 0) {
		attr->type = PERF_TYPE_RAW;
		attr->config = config;
		return 0;
	}
	rc = cache_decode(name, &config);
	if (rc == 0) {
		attr->type = PERF_TYPE_HW_CACHE;
		attr->config = config;
	}
	return rc;
}
static const char *probe_reason(int e)
{
	switch (e) {
	case ENOENT: return "no such event on this PMU";
	case EOPNOTSUPP: return "this PMU cannot count it here";
	case EINVAL: return "invalid on this CPU";
	case ENODEV: return "no such PMU on this system";
	case EACCES: case EPERM: return "not permitted: see /proc/sys/kernel/perf_event_paranoid";
	case EBUSY: return "counter taken by another user";
	default: return strerror(e);
	}
}

/* A real open on this process, any CPU: the honest answer to "supported?".
 * Prints the verdict; a user barred from the kernel still learns whether
 * user-space counting works. */
static void list_one(FILE *out, const char *name, const char *kind, uint32_t type, uint64_t config)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = type, .config = config, .disabled = 1 };
	const char *note = "";
	int fd, e;

	fd = perfsys_open(&a, 0, -1, -1, 0);
	e = -fd;
	if (fd < 0 && (e == EACCES || e == EPERM)) {
		a.exclude_kernel = a.exclude_hv = 1;
		fd = perfsys_open(&a, 0, -1, -1, 0);
		e = -fd;
		note = " (user space only)";
	}
	fprintf(out, "  %-48s [%s]  ", name, kind);
	if (fd >= 0) {
		close(fd);
		fprintf(out, "supported%s\n", note);
	} else {
		fprintf(out, "not supported (%s: %s)\n", strerrorname_np(e) ? strerrorname_np(e) : "?",
			probe_reason(e));
	}
}

static int not_hidden(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* events/ also holds .scale, .unit, .per-pkg files beside each alias. */
static int not_sidecar(const struct dirent *de)
{
	return de->d_name[0] != '.' && strchr(de->d_name, '.') == NULL;
}

/* Sorted entries of dir joined with ',' into buf (cut to fit); their count. */
static int dir_join(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, not_sidecar, alphasort);

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (buf[0])
			strlcat(buf, ",", len);
		strlcat(buf, ents[i]->d_name, len);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return n < 0 ? 0 : n;
}

/* One line per PMU with a type: what pmu/…/ can name and with which terms. */
static void list_pmu(FILE *out, const char *dir, const char *pmu)
{
	char path[PATH_MAX], type[32], names[160];
	int aliases;

	if (util_pathf(path, sizeof(path), "%s/%s/type", dir, pmu) ||
	    evspec_fs_read_line(path, type, sizeof(type)))
		return;
	aliases = util_pathf(path, sizeof(path), "%s/%s/events", dir, pmu) ? 0 :
		  dir_join(path, names, sizeof(names));
	if (util_pathf(path, sizeof(path), "%s/%s/format", dir, pmu) || dir_join(path, names, sizeof(names)) == 0)
		strlcpy(names, "-", sizeof(names));
	fprintf(out, "  %-24s type %-4s %3d event aliases  terms: %s\n", pmu, type, aliases, names);
}

static void list_pmus(FILE *out)
{
	char dir[PATH_MAX];
	struct dirent **ents = NULL;
	int n = -1;

	fprintf(out, "\nPMUs (pmu/term=value,…/ or pmu/event-alias/)\n");
	if (util_pathf(dir, sizeof(dir), "%s/" DEVICES, evspec_fs_sysfs_root()) == 0)
		n = scandir(dir, &ents, not_hidden, alphasort);
	if (n < 0) {
		fprintf(out, "  none: %s/" DEVICES " is not readable\n", evspec_fs_sysfs_root());
		return;
	}
	for (int i = 0; i < n; i++) {
		list_pmu(out, dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

static void list_tracepoints(FILE *out)
{
	char path[PATH_MAX];
	size_t systems = 0, points = 0;
	const char *root;
	struct dirent *de, *pe;
	DIR *d, *sd;
	int eno, fd;

	fprintf(out, "\nTracepoints\n");
	root = evspec_fs_tracefs_dir(&eno);
	if (root == NULL || util_pathf(path, sizeof(path), "%s/events", root) || (d = opendir(path)) == NULL) {
		if (root == NULL && eno == ENOENT)
			fprintf(out, "  tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing\n");
		else
			fprintf(out, "  tracefs is not readable: run as root\n");
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if ((sd = fdopendir(fd)) == NULL) {
			close(fd);
			continue;
		}
		systems++;
		while ((pe = readdir(sd)) != NULL)
			if (pe->d_name[0] != '.' && (pe->d_type == DT_DIR || pe->d_type == DT_UNKNOWN))
				points++;
		closedir(sd);
	}
	closedir(d);
	fprintf(out, "  %zu tracepoints in %zu subsystems under %s/events: use subsys:name "
		"(e.g. sched:sched_switch)\n", points, systems, root);
}

void evspec_list_print(FILE *out)
{
	char name[96];
	uint64_t config;

	for (size_t c = 0; c < NELEM(sym_classes); c++) {
		fprintf(out, "%s%ss\n", c ? "\n" : "", sym_classes[c].kind);
		for (size_t i = 0; i < sym_classes[c].n; i++) {
			const struct sym *s = &sym_classes[c].tab[i];

			snprintf(name, sizeof(name), "%s%s%s", s->name, s->alias ? " OR " : "",
				 s->alias ? s->alias : "");
			list_one(out, name, sym_classes[c].kind, sym_classes[c].type, s->config);
		}
	}
	/* perf list's spelling: CACHE-loads for accesses, CACHE-load-misses. */
	fprintf(out, "\nHardware cache events\n");
	for (size_t t = 0; t < NELEM(cache_types); t++)
		for (size_t op = 0; op < NELEM(cache_ops); op++) {
			if (!(cache_op_ok[t] & (1u << op)))
				continue;
			snprintf(name, sizeof(name), "%s-%s", cache_types[t][0], cache_ops[op][1]);
			if (cache_decode(name, &config) == 0)
				list_one(out, name, "Hardware cache event", PERF_TYPE_HW_CACHE, config);
			snprintf(name, sizeof(name), "%s-%s-%s", cache_types[t][0], cache_ops[op][0],
				 cache_results[PERF_COUNT_HW_CACHE_RESULT_MISS][0]);
			if (cache_decode(name, &config) == 0)
				list_one(out, name, "Hardware cache event", PERF_TYPE_HW_CACHE, config);
		}
	fprintf(out, "\nRaw events\n  %-48s [Raw hardware event descriptor]\n", "rNNNN (1-16 hex digits)");
	list_pmus(out);
	list_tracepoints(out);
}
