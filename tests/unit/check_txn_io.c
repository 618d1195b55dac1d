// SPDX-License-Identifier: GPL-2.0-or-later
/* check_txn_io.c - the transaction's io channel: unix_io's stale copies, the writeback waiter */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "unit.h"
#include "txn/txn_io.h"
#include "txn/wb_wait.h"

#define BS 4096

/*
 * A clean cached copy of block 5 outlives a direct write of blocks 0-7 in
 * libext2fs 1.47.0 (a run over four blocks goes past the cache, which drops
 * only dirty copies): the journal's checkpoint writes such runs, and the next
 * transaction read an inode table block back stale.  After e2v_io_drop_cache()
 * the read sees the disk.
 */
START_TEST(test_drop_cache_after_run)
{
	char path[] = "/tmp/e2verity-txn-io.XXXXXX";
	static uint8_t run[8 * BS], got[BS];
	io_channel io;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, sizeof(run)), 0);
	close(fd);
	ck_assert_int_eq(unix_io_manager->open(path, IO_FLAG_RW, &io), 0);
	ck_assert_int_eq(io_channel_set_blksize(io, BS), 0);

	/* block 5 read once: a clean copy in the cache */
	ck_assert_int_eq(io_channel_read_blk64(io, 5, 1, got), 0);
	memset(run, 0xa5, sizeof(run));
	ck_assert_int_eq(io_channel_write_blk64(io, 0, 8, run), 0);
	ck_assert_int_eq(e2v_io_drop_cache(io), 0);
	ck_assert_int_eq(io_channel_read_blk64(io, 5, 1, got), 0);
	ck_assert_mem_eq(got, run, BS);
	ck_assert_int_eq(io->block_size, BS);

	/* a dirty copy is written before it goes: nothing is lost either */
	memset(got, 0x5a, BS);
	ck_assert_int_eq(io_channel_write_blk64(io, 2, 1, got), 0);
	ck_assert_int_eq(e2v_io_drop_cache(io), 0);
	memset(got, 0, BS);
	ck_assert_int_eq(io_channel_read_blk64(io, 2, 1, got), 0);
	ck_assert_uint_eq(got[0], 0x5a);
	ck_assert_uint_eq(got[BS - 1], 0x5a);

	io_channel_close(io);
	unlink(path);
}
END_TEST

/*
 * The waiter's fdatasync() must not take a write error from the commit's
 * fsync(): so its descriptor is an open file description of its own, never a
 * dup() of the one it was given (which a dup() would share, offset and all).
 */
START_TEST(test_wb_wait_own_description)
{
	char path[] = "/tmp/e2verity-wb-wait.XXXXXX";
	struct e2v_wb_wait w;
	int fd = mkstemp(path), kept;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
	e2v_wb_wait_init(&w, fd);
	ck_assert_int_ge(w.fd, 0);
	ck_assert_int_ne(w.fd, fd);
	ck_assert_int_eq(lseek(fd, 12345, SEEK_SET), 12345);
	ck_assert_int_eq(lseek(w.fd, 0, SEEK_CUR), 0);
	/* asked often, and while a sync may be under way: the thread keeps up and stops */
	for (int i = 0; i < 100; i++)
		e2v_wb_wait_ask(&w);
	ck_assert_int_eq(w.running, 1);
	kept = w.fd;
	e2v_wb_wait_fini(&w);
	ck_assert_int_eq(w.running, 0);
	ck_assert_int_eq(w.fd, -1);
	errno = 0;
	ck_assert_int_eq(fcntl(kept, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	/* the given descriptor stays the caller's */
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
	close(fd);
	unlink(path);

	/* without an image file: nothing to wait for, no thread */
	e2v_wb_wait_init(&w, -1);
	e2v_wb_wait_ask(&w);
	ck_assert_int_eq(w.running, 0);
	e2v_wb_wait_fini(&w);
}
END_TEST

static Suite *txn_io_suite(void)
{
	Suite *s = suite_create("txn_io");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_drop_cache_after_run);
	tcase_add_test(tc, test_wb_wait_own_description);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(txn_io_suite());
}
