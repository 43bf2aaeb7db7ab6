/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdsynth: COMM, MMAP2 and the kernel's MMAP built from /proc, laid out
 * as the kernel lays its own out (strings NUL-padded to 8 bytes, then the
 * sample_id trailer), so that every reader takes them alike. */
#include "pdsynth.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

#define SYNTH_MAX 8192 /* a record with a path of PATH_MAX and its trailer */

size_t pdsynth_id_size(uint64_t t)
{
	return 8 * (size_t)(!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
			    !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

/* rec holds `fixed` bytes of fields; the string and the zero trailer
 * follow, the header's size set. */
static void finish(unsigned char *rec, size_t fixed, const char *s, size_t id_size, pdsynth_emit_fn emit, void *arg)
{
	struct perf_event_header *h = (struct perf_event_header *)(void *)rec;
	size_t n = strnlen(s, SYNTH_MAX - fixed - id_size - 8);
	size_t pad = (n + 1 + 7) & ~(size_t)7;

	memset(rec + fixed, 0, pad + id_size);
	memcpy(rec + fixed, s, n);
	h->size = (uint16_t)(fixed + pad + id_size);
	emit(arg, h);
}

int pdsynth_comm(const char *proc_root, pid_t pid, pid_t tid, size_t id_size, pdsynth_emit_fn emit, void *arg)
{
	_Alignas(8) unsigned char rec[SYNTH_MAX];
	struct perf_event_header *h = (struct perf_event_header *)(void *)rec;
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	char path[256], comm[32];
	ssize_t n;
	int fd;

	if (util_pathf(path, sizeof(path), "%s/%d/task/%d/comm", proc_root, (int)pid, (int)tid))
		return -ENAMETOOLONG;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = util_read_full(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	*h = (struct perf_event_header){ .type = PERF_RECORD_COMM };
	memcpy(rec + sizeof(*h), ids, sizeof(ids));
	finish(rec, sizeof(*h) + sizeof(ids), comm, id_size, emit, arg);
	return 0;
}

struct mmap2_fields {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

/* One line of /proc/PID/maps as MMAP2, if it maps code. */
static void map_line(char *line, pid_t pid, size_t id_size, pdsynth_emit_fn emit, void *arg, unsigned char *rec)
{
	struct perf_event_header *h = (struct perf_event_header *)(void *)rec;
	struct mmap2_fields f = { .pid = (uint32_t)pid, .tid = (uint32_t)pid };
	uint64_t start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int at = 0;
	char *name;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &at) < 7 || at == 0 || strlen(perms) < 4 || perms[2] != 'x')
		return;
	name = line + at;
	name[strcspn(name, "\n")] = '\0';
	f.start = start;
	f.len = end - start;
	f.pgoff = pgoff;
	f.maj = maj;
	f.min = min;
	f.ino = ino;
	f.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	f.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	*h = (struct perf_event_header){ .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };
	memcpy(rec + sizeof(*h), &f, sizeof(f));
	finish(rec, sizeof(*h) + sizeof(f), *name ? name : "//anon", id_size, emit, arg);
}

int pdsynth_maps(const char *proc_root, pid_t pid, size_t id_size, pdsynth_emit_fn emit, void *arg)
{
	_Alignas(8) unsigned char rec[SYNTH_MAX];
	char path[256], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (util_pathf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid))
		return -ENAMETOOLONG;
	if ((f = fopen(path, "re")) == NULL)
		return -errno;
	while (getline(&line, &cap, f) > 0)
		map_line(line, pid, id_size, emit, arg, rec);
	free(line);
	fclose(f);
	return 0;
}

int pdsynth_kernel(const char *proc_root, size_t id_size, pdsynth_emit_fn emit, void *arg)
{
	_Alignas(8) unsigned char rec[SYNTH_MAX];
	struct perf_event_header *h = (struct perf_event_header *)(void *)rec;
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
	} f = { .pid = UINT32_MAX, .tid = 0 };
	char path[256], line[512];
	uint64_t text = 0;
	FILE *kf;

	if (util_pathf(path, sizeof(path), "%s/kallsyms", proc_root))
		return -ENAMETOOLONG;
	if ((kf = fopen(path, "re")) == NULL)
		return -errno;
	/* _text is among the first lines: the file is in address order. */
	while (fgets(line, sizeof(line), kf)) {
		char type, name[256];
		uint64_t addr;

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) == 3 && strcmp(name, "_text") == 0) {
			text = addr;
			break;
		}
	}
	fclose(kf);
	if (text == 0)
		return -ENOENT;
	f.start = text;
	f.len = UINT64_MAX - text;
	f.pgoff = text;
	*h = (struct perf_event_header){ .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL };
	memcpy(rec + sizeof(*h), &f, sizeof(f));
	finish(rec, sizeof(*h) + sizeof(f), "[kernel.kallsyms]_text", id_size, emit, arg);
	return 0;
}
