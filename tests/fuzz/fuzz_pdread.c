/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: arbitrary bytes as a perf.data file (or perf's pipe
 * format in a file: a 16-byte header says so), read to the end as a replay
 * reads it. Whatever it hands on must be a record of a type perftop uses
 * with its strings inside it, every sample's event one of the file's, and
 * the records in time order within what a round allows; a bad file must
 * end with a message naming an offset. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pdread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	struct pdread *r = NULL;
	struct record rec;
	int fd = memfd_create("pdread", MFD_CLOEXEC), ev, rc;
	size_t nev;

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = pdread_open(&r, path, err, sizeof(err));
	if (rc != 0) {
		if (strstr(err, "offset") == NULL && strstr(err, "out of memory") == NULL)
			abort();
		goto out;
	}
	nev = pdread_nevents(r);
	while ((rc = pdread_next(r, &rec, &ev, err, sizeof(err))) == 1) {
		if (ev >= (int)nev)
			abort();
		switch (rec.type) {
		case PERF_RECORD_SAMPLE:
			if (ev < 0)
				abort(); /* a tracking event's samples are never handed on */
			for (uint64_t i = 0; i < rec.sample.nr && i < 4; i++)
				(void)record_u64(rec.sample.ips, i);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			(void)strlen(rec.mmap.filename);
			break;
		case PERF_RECORD_COMM:
			(void)strlen(rec.comm.comm);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			break;
		default:
			abort();
		}
	}
	if (rc < 0 && strstr(err, "offset") == NULL)
		abort();
out:
	pdread_close(r);
	close(fd);
	return 0;
}
