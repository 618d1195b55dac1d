// SPDX-License-Identifier: GPL-2.0-or-later
/* progress.c - one progress display for every command: a terminal line, or e2fsck -C's lines */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/progress.h"
#include "output/names.h"

/* a file counts as this many bytes more than its data: empty files move the progress too */
#define CLI_PROGRESS_FILE_COST 4096
/* the line is redrawn at most this often when only the file under way changes */
#define CLI_PROGRESS_REDRAW_NS 100000000LL

void cli_progress_init(struct cli_progress *p, int bar, int fd, const char *device)
{
	memset(p, 0, sizeof(*p));
	/* a bar is for a person watching a terminal; elsewhere it would be noise in a log */
	p->bar = bar && isatty(STDERR_FILENO);
	p->fd = fd;
	p->device = device;
	p->pass = 1;
	p->last = -1;
}

int cli_progress_active(const struct cli_progress *p)
{
	return p->bar || p->fd >= 0;
}

void cli_progress_total(struct cli_progress *p, uint64_t files, uint64_t bytes)
{
	p->files = files;
	p->bytes = bytes;
}

static int64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Draws the state: @done bytes of the file under way, @label naming it. */
static void cli_progress_show(struct cli_progress *p, uint64_t done, const char *label)
{
	uint64_t total = p->bytes + p->files * CLI_PROGRESS_FILE_COST;
	uint64_t now = p->bytes_done + done + p->files_done * CLI_PROGRESS_FILE_COST;
	int permille;
	int64_t t;
	char line[64];
	int len;

	if (now > total)
		now = total;
	permille = total ? (int)(now * 1000 / total) : 1000;
	if (p->fd >= 0 && permille != p->last) {
		/* e2fsck -C's machine form: pass, done, total, device */
		len = snprintf(line, sizeof(line), "%d %llu %llu ", p->pass,
			       (unsigned long long)now, (unsigned long long)total);
		if (write(p->fd, line, len) < 0 || write(p->fd, p->device, strlen(p->device)) < 0 ||
		    write(p->fd, "\n", 1) < 0)
			p->fd = -1; /* the reader went away: the work goes on */
	}
	if (p->bar) {
		/* a new tenth of a percent, or a new file now and then */
		t = cli_now_ns();
		if (permille != p->last || t - p->drawn_at >= CLI_PROGRESS_REDRAW_NS) {
			/* the label is a name: escaped, it cannot move the cursor */
			fprintf(stderr, "\r%s: %5.1f%% (%llu/%llu files)%s%s\033[K",
				cli_name(p->device), permille / 10.0,
				(unsigned long long)p->files_done, (unsigned long long)p->files,
				label ? " " : "", label ? cli_name(label) : "");
			fflush(stderr);
			p->drawn = 1;
			p->drawn_at = t;
		}
	}
	p->last = permille;
}

void cli_progress_bytes(struct cli_progress *p, uint64_t done, const char *label)
{
	cli_progress_show(p, done, label);
}

void cli_progress_file(struct cli_progress *p, uint64_t size, const char *label)
{
	p->files_done++;
	p->bytes_done += size;
	cli_progress_show(p, 0, label);
}

void cli_progress_clear(struct cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
	/* the line is drawn again at the next step */
	p->drawn_at = 0;
	p->last = -1;
}
