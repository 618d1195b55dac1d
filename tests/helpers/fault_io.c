// SPDX-License-Identifier: GPL-2.0-or-later
/* fault_io.c - test only: an io manager over unix_io that fails, or kills the process, at the Nth
 * write of the image or of the undo file, or fails the reads of a block */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

/*
 * E2VERITY_FAULT_AT=N		the Nth write, counted from 1 over the whole process
 * E2VERITY_FAULT_FILE=image|undo	whose writes are counted and cut: the image's (the
 *				default) or the undo file's of -z (its data, key blocks,
 *				header, fdatasync() calls, the rename that names it and
 *				the fsync() of its directory; src/image/undo_io.c)
 * E2VERITY_FAULT_MODE=kill|fail|enospc|term|int|hup
 *				SIGKILL instead of it, EIO or ENOSPC instead of it, or
 *				that signal raised just before it (the write then happens)
 * E2VERITY_FAULT_LOG=FILE		every close of the image, and the exit, append the
 *				writes counted so far
 * E2VERITY_FAULT_TRACE=FILE	every write of either file appends "N what", N its
 *				number if it is counted, else "-"
 * E2VERITY_FAULT_READ=B		every read through the io manager of a range holding
 *				block B fails with EIO, as from a bad sector
 *
 * Flushes count as writes too: a cut between two of them is a power cut.
 */
static unsigned long cli_writes;
static struct struct_io_manager cli_fault_manager;

static void cli_fault_log(void)
{
	const char *log = getenv("E2VERITY_FAULT_LOG");
	FILE *f;

	if (log && (f = fopen(log, "a"))) {
		fprintf(f, "%lu\n", cli_writes);
		fclose(f);
	}
}

/* A write of the undo file (@undo) or of the image: counted if it is the file asked for. */
static errcode_t cli_fault(int undo, const char *what)
{
	const char *at = getenv("E2VERITY_FAULT_AT");
	const char *mode = getenv("E2VERITY_FAULT_MODE");
	const char *file = getenv("E2VERITY_FAULT_FILE");
	const char *trace = getenv("E2VERITY_FAULT_TRACE");
	const int counted = undo == (file && !strcmp(file, "undo"));
	static int logged;
	FILE *f;

	if (trace && (f = fopen(trace, "a"))) {
		if (counted)
			fprintf(f, "%lu %s\n", cli_writes + 1, what);
		else
			fprintf(f, "- %s\n", what);
		fclose(f);
	}
	if (!counted)
		return 0;
	/* the undo file is written after the image is closed: the last count is at exit */
	if (!logged && getenv("E2VERITY_FAULT_LOG"))
		logged = !atexit(cli_fault_log);
	cli_writes++;
	if (!at || strtoul(at, NULL, 10) != cli_writes)
		return 0;
	if (mode && !strcmp(mode, "fail"))
		return EIO;
	if (mode && !strcmp(mode, "enospc"))
		return ENOSPC;
	if (mode && (!strcmp(mode, "term") || !strcmp(mode, "int") || !strcmp(mode, "hup"))) {
		raise(mode[0] == 't' ? SIGTERM : mode[0] == 'i' ? SIGINT : SIGHUP);
		return 0;
	}
	kill(getpid(), SIGKILL);
	pause();
	return EIO;
}

static errcode_t cli_read_fault(io_channel c, unsigned long long block, int count)
{
	const char *at = getenv("E2VERITY_FAULT_READ");
	unsigned long long bad, n;

	if (!at)
		return 0;
	bad = strtoull(at, NULL, 10);
	/* a negative count is a length in bytes */
	n = count < 0 ? (-(long long)count + c->block_size - 1) / c->block_size : (unsigned)count;
	return bad >= block && bad - block < n ? EIO : 0;
}

static errcode_t cli_f_read_blk(io_channel c, unsigned long block, int count, void *data)
{
	return cli_read_fault(c, block, count) ?: unix_io_manager->read_blk(c, block, count, data);
}

static errcode_t cli_f_read_blk64(io_channel c, unsigned long long block, int count, void *data)
{
	return cli_read_fault(c, block, count)
		       ?: unix_io_manager->read_blk64(c, block, count, data);
}

static errcode_t cli_f_write_blk(io_channel c, unsigned long block, int count, const void *data)
{
	return cli_fault(0, "image write") ?: unix_io_manager->write_blk(c, block, count, data);
}

static errcode_t cli_f_write_blk64(io_channel c, unsigned long long block, int count,
				   const void *data)
{
	return cli_fault(0, "image write") ?: unix_io_manager->write_blk64(c, block, count, data);
}

static errcode_t cli_f_write_byte(io_channel c, unsigned long offset, int count, const void *data)
{
	return cli_fault(0, "image write") ?: unix_io_manager->write_byte(c, offset, count, data);
}

static errcode_t cli_f_zeroout(io_channel c, unsigned long long block, unsigned long long count)
{
	return cli_fault(0, "image zeroout") ?: unix_io_manager->zeroout(c, block, count);
}

static errcode_t cli_f_flush(io_channel c)
{
	return cli_fault(0, "image flush") ?: unix_io_manager->flush(c);
}

static errcode_t cli_f_close(io_channel c)
{
	cli_fault_log();
	return unix_io_manager->close(c);
}

static errcode_t cli_f_open(const char *name, int flags, io_channel *channel)
{
	errcode_t err = unix_io_manager->open(name, flags, channel);

	if (!err)
		(*channel)->manager = &cli_fault_manager;
	return err;
}

/* undo_io.c's hook: before each write of the undo file, @what it writes */
errcode_t cli_test_undo_fault(const char *what);
errcode_t cli_test_undo_fault(const char *what)
{
	return cli_fault(1, what);
}

/* the unix manager, with its writes counted (and cut), and a bad block if asked */
io_manager cli_test_io_manager(void);
io_manager cli_test_io_manager(void)
{
	cli_fault_manager = *unix_io_manager;
	cli_fault_manager.name = "e2verity fault injection";
	cli_fault_manager.open = cli_f_open;
	cli_fault_manager.close = cli_f_close;
	cli_fault_manager.read_blk = cli_f_read_blk;
	cli_fault_manager.read_blk64 = cli_f_read_blk64;
	cli_fault_manager.write_blk = cli_f_write_blk;
	cli_fault_manager.write_blk64 = cli_f_write_blk64;
	cli_fault_manager.write_byte = cli_f_write_byte;
	cli_fault_manager.zeroout = cli_f_zeroout;
	cli_fault_manager.flush = cli_f_flush;
	return &cli_fault_manager;
}
