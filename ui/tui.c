#include "tui.h"

#include <stdio.h>

int tui_run(struct session *s, const struct options *o)
{
	(void)s;
	(void)o;
	fputs("perftop: the interactive view is not built yet: use -b for a headless dump\n", stderr);
	return 2;
}
