// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymattach watch: the command around src/watch/'s watcher. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kwatch.h"
#include "watchcmd.h"

#define POLL_MS 200
#define REDRAW_NS 1000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int watch__cmd(const struct watch_cmd_opts *o)
{
	struct kwatch_opts wo = {
		.sz = sizeof(wo),
		.show_self = o->verbose,
		.max_procs = o->max_procs,
	};
	struct kwatch_print_opts po = {
		.sz = sizeof(po),
		.format = o->format,
		.kernel = o->kernel,
	};
	bool screen = o->format == REPORT_TEXT && isatty(STDOUT_FILENO);
	uint64_t t0, last_draw = 0, now;
	struct kwatch *w;
	char err[256];
	int e;

	e = kwatch__open(&wo, &w, err, sizeof(err));
	if (e) {
		fprintf(stderr, "ksymattach: watch: %s\n", err);
		return 1;
	}
	if (o->verbose)
		fprintf(stderr, "ksymattach: watching: probes attached in %.1f ms; kallsyms "
				"lookups hooked: %s\n", kwatch__setup_ns(w) / 1e6,
			*kwatch__resolve_hooks(w) ? kwatch__resolve_hooks(w) : "none");
	else if (!screen)
		fprintf(stderr, "ksymattach: watching every process's attach%s (Ctrl-C to stop)\n",
			o->duration > 0 ? " for the duration given" : "");
	t0 = now_ns();
	for (;;) {
		now = now_ns();
		if (*o->stop || (o->duration > 0 && now - t0 >= o->duration * 1e9))
			break;
		e = kwatch__poll(w, POLL_MS);
		if (e) {
			fprintf(stderr, "ksymattach: watch: cannot read the ring buffer: %s\n",
				strerror(-e));
			kwatch__free(w);
			return 1;
		}
		if (screen && now - last_draw >= REDRAW_NS) {
			kwatch__refresh(w);
			po.duration_s = (now - t0) / 1e9;
			po.screen = true;
			kwatch__print(stdout, w, &po);
			last_draw = now;
		}
	}
	kwatch__refresh(w);
	po.duration_s = (now_ns() - t0) / 1e9;
	po.screen = false;
	kwatch__print(stdout, w, &po);
	kwatch__free(w);
	return 0;
}
