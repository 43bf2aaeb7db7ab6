/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program that maps a library only when told to: the library's code
 * reaches perftop as a MMAP2 record, never through /proc/PID/maps.
 *
 * usage: fixture_dlopen LIBRARY SECS   prints "ready PID", waits for a line
 * on stdin, then dlopens LIBRARY and spins SECS in its libhot_spin. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void (*spin)(double);
	char line[16];
	void *lib;

	if (argc != 3)
		return 2;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 1;
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		fprintf(stderr, "fixture_dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&spin = dlsym(lib, "libhot_spin");
	if (spin == NULL) {
		fprintf(stderr, "fixture_dlopen: %s\n", dlerror());
		return 1;
	}
	spin(atof(argv[2]));
	dlclose(lib);
	return 0;
}
