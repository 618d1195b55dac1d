// SPDX-License-Identifier: GPL-2.0-or-later
/* image.c - the one door to an image: lock, mount and health checks, io options, undo, transactions
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/image.h"
#include "cli/cli.h"
#include "image/container.h"
#include "image/disk.h"
#include "image/same_file.h"
#include "image/undo_io.h"
#include "output/names.h"

#ifdef CLI_FAULT_IO
/* the test build: tests/helpers/fault_io.c cuts writes */
io_manager cli_test_io_manager(void);
#define CLI_BASE_IO cli_test_io_manager()
#else
#define CLI_BASE_IO unix_io_manager
#endif

/*
 * One writer, or any number of readers, per image.  The lock lives as long as
 * the process, so that seal's pre-flight and its writing phase are one turn.
 */
static int cli_lock_fd = -1, cli_lock_exclusive;

static errcode_t cli_lock_image(const char *path, int exclusive)
{
	int fd;

	if (cli_lock_fd >= 0 && (cli_lock_exclusive || !exclusive))
		return 0;
	/* check -p read the image first: its shared lock becomes the writer's (a second would wait) */
	if (cli_lock_fd >= 0) {
		if (flock(cli_lock_fd, LOCK_EX | LOCK_NB) < 0)
			return errno == EWOULDBLOCK ? E2VERITY_ET_LOCKED : errno;
		cli_lock_exclusive = 1;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		errcode_t err = errno == EWOULDBLOCK ? E2VERITY_ET_LOCKED : errno;

		close(fd);
		return err;
	}
	if (cli_lock_fd >= 0)
		close(cli_lock_fd);
	cli_lock_fd = fd;
	cli_lock_exclusive = exclusive;
	return 0;
}

/* No wall-clock time goes into the image: SOURCE_DATE_EPOCH, or the last write time kept. */
static void cli_fix_time(ext2_filsys fs)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end;
	unsigned long long t;

	fs->now = fs->super->s_wtime;
	if (sde && *sde) {
		errno = 0;
		t = strtoull(sde, &end, 10);
		if (!errno && !*end && t > 0 && (time_t)t > 0)
			fs->now = t;
	}
}

/*
 * Checks that the undo file can be made before anything is opened for
 * writing, and sets the undo io manager (undo_io.c) up over @io.  A directory
 * gets a file of its own named after the image, as e2fsprogs' tools name
 * theirs.
 */
static errcode_t cli_undo_setup(struct cli_image *img, const char *undo, io_manager *io)
{
	const struct cli_named named[] = {
		{ img->path, "the image", CLI_NAMED_IMAGE | CLI_NAMED_WRITTEN },
		{ undo, "the undo file (-z)", CLI_NAMED_UNDO | CLI_NAMED_WRITTEN },
	};
	size_t which;
	char *name;
	errcode_t err;
	int fd;

	img->doing = "creating the undo file";
	img->undo_path = cli_undo_name(undo, img->path);
	if (!img->undo_path)
		return ENOMEM;
	img->what = img->undo_path;
	/*
	 * The unlink below must never take the image: the commands refuse such
	 * a command line first (cli_names_check()); this is the door's own proof,
	 * for whichever caller comes here without it.
	 */
	err = cli_named_clash(named, sizeof(named) / sizeof(named[0]), &which, &name, img->why,
			      sizeof(img->why));
	free(name);
	if (err) {
		img->doing = "checking the undo file (-z)";
		img->reason = img->why;
		return err;
	}
	/* like the e2fsprogs tools' -z: a fresh undo file for this run */
	if (unlink(img->undo_path) < 0 && errno != ENOENT)
		return errno;
	fd = open(img->undo_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	unlink(img->undo_path);
	return cli_undo_io_manager(*io, img->undo_path, io);
}

static errcode_t cli_health(struct cli_image *img, unsigned int flags)
{
	errcode_t err = e2verity_fs_health(img->fs);

	img->doing = "checking";
	/*
	 * What a journal would replay could overwrite anything written now, and
	 * the orphans' recovery would truncate them: never forced.
	 */
	if (err == E2VERITY_ET_NEEDS_RECOVERY || err == E2VERITY_ET_ORPHANS_PENDING ||
	    !(flags & CLI_IMAGE_FORCE))
		return err;
	return 0;
}

/*
 * The primary superblock failed to open with @err: as e2fsck does, try
 * group 1's backup for each usual block size.  A read-only open reads
 * through it (with a warning); a writing one is refused, naming the backup
 * and the e2fsck -b that repairs the image.  Returns @err if no backup opens.
 */
static errcode_t cli_backup_super(struct cli_image *img, const char *opts, int open_flags,
				  int writing, errcode_t err)
{
	ext2_filsys fs = NULL;
	unsigned int bsize;
	blk64_t super;

	if (err != EXT2_ET_BAD_MAGIC && err != EXT2_ET_CORRUPT_SUPERBLOCK &&
	    err != EXT2_ET_SB_CSUM_INVALID)
		return err;
	open_flags &= ~(EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE);
	for (bsize = 1024; bsize <= 4096; bsize *= 2) {
		/* group 1's first block: 8 * bsize blocks per group, after block 1 for 1 KiB */
		super = (blk64_t)bsize * 8 + (bsize == 1024);
		if (!ext2fs_open2(img->disk->open_name, opts, open_flags, super, bsize,
				  img->disk->io ? img->disk->io : CLI_BASE_IO, &fs))
			break;
		fs = NULL;
	}
	if (!fs)
		return err;
	if (writing) {
		ext2fs_close_free(&fs);
		snprintf(img->why, sizeof(img->why),
			 " (the primary superblock is damaged; the backup at block %llu is intact: "
			 "run e2fsck -b %llu -B %u %s)",
			 (unsigned long long)super, (unsigned long long)super, bsize,
			 cli_name(img->name));
		img->reason = img->why;
		return err;
	}
	if (!(img->flags & CLI_IMAGE_QUIET))
		fprintf(stderr,
			"%s: warning: the primary superblock of '%s' is damaged (%s); reading "
			"through the backup at block %llu (e2fsck -b %llu -B %u repairs it)\n",
			cli_prog, cli_name(img->name), error_message(err),
			(unsigned long long)super, (unsigned long long)super, bsize);
	img->fs = fs;
	return 0;
}

errcode_t cli_image_open(struct cli_image *img, const char *name, unsigned int flags,
			 const char *undo)
{
	const int writing = flags & (CLI_IMAGE_WRITE | CLI_IMAGE_PREFLIGHT);
	io_manager io = CLI_BASE_IO;
	int mount_flags = 0, open_flags = EXT2_FLAG_64BITS;
	char *opts;
	errcode_t err;

	memset(img, 0, sizeof(*img));
	img->name = name;
	img->what = name;
	img->flags = flags;
	/*
	 * Where the filesystem lies (disk.c, which walks the table of
	 * containers): e2fsprogs' IMAGE?offset= form, a --partition, or an
	 * Android sparse image expanded into a raw copy.
	 */
	img->doing = "opening";
	img->disk = calloc(1, sizeof(*img->disk));
	if (!img->disk)
		return ENOMEM;
	err = cli_disk_resolve(img->disk, name, cli_partition(), img->why, sizeof(img->why));
	img->reason = img->why;
	if (err)
		return err;
	img->path = strdup(img->disk->file);
	if (!img->path)
		return ENOMEM;
	opts = img->disk->io_options[0] ? img->disk->io_options : NULL;

	img->doing = "locking";
	err = cli_lock_image(img->path, writing && !(flags & CLI_IMAGE_SHARED));
	if (err)
		return err;
	img->doing = "opening";
	if (img->disk->sparse && undo && writing) {
		/* e2undo writes blocks at their place in a raw image: none applies to this file */
		snprintf(img->why, sizeof(img->why),
			 "%cis an Android sparse image, which -z cannot protect: e2undo "
			 "cannot undo it. It is replaced only once the run succeeded, so an "
			 "interrupted run leaves it as it was; keep a copy to undo one that "
			 "finished",
			 CLI_WHY_WHOLE);
		return EINVAL;
	}
	/* locked first: the copy of a sparse image is of what this process owns */
	err = cli_disk_expand(img->disk,
			      writing && !(flags & CLI_IMAGE_SHARED) ? CLI_DISK_WRITE : 0, img->why,
			      sizeof(img->why));
	if (err)
		return err;
	img->doing = "checking";
	err = ext2fs_check_if_mounted(img->path, &mount_flags);
	if (err)
		return err;
	if (mount_flags & EXT2_MF_MOUNTED) {
		if (writing)
			return E2VERITY_ET_MOUNTED;
		if (!(flags & CLI_IMAGE_QUIET))
			fprintf(stderr,
				"%s: warning: '%s' is mounted; what is read from it may be "
				"stale\n",
				cli_prog, cli_name(name));
	}
	/* a sparse image only read is read through its chunks (disk_sparse.c) */
	if (img->disk->io)
		io = img->disk->io;
	if (flags & CLI_IMAGE_WRITE) {
		if (undo) {
			err = cli_undo_setup(img, undo, &io);
			if (err)
				return err;
		}
		open_flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
	} else if (!writing) {
		/* check reports what it can read; nothing is written */
		open_flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	}
	img->doing = "opening";
	img->what = name;
	err = ext2fs_open2(img->disk->open_name, opts, open_flags, 0, 0, io, &img->fs);
	if (err)
		err = cli_backup_super(img, opts, open_flags, writing, err);
	if (err == EXT2_ET_BAD_MAGIC && img->disk->sparse && !img->why[0])
		snprintf(img->why, sizeof(img->why),
			 " (the chunks of the Android sparse image hold no ext4 filesystem)");
	if (err) {
		img->fs = NULL;
		/* nothing was written: an undo file would only mislead */
		if (img->undo_path)
			unlink(img->undo_path);
		return err;
	}
	/* the library's state of this image: its source, log and transaction */
	err = e2verity_image_attach(img->fs, &img->handle);
	if (err)
		return err;
	e2verity_image_set_log_callback(img->handle, cli_log_note, NULL);
	/*
	 * Where the filesystem lies, for the library's direct reads (hashing
	 * ahead, mapped data): the file and the offset resolved above, so that
	 * nothing parses "?offset=" again.  Without it the library opens the
	 * device name itself, and only a failure to read there costs speed.
	 * A sparse image read through its chunks has no such file: the library
	 * reads it through the io channel.
	 */
	if (!img->disk->io) {
		int fd = open(img->disk->open_name, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			e2verity_set_image_source(img->fs, fd, img->disk->offset);
			close(fd);
		}
	}
	if (writing) {
		err = cli_health(img, flags);
		if (err)
			return err;
		/*
		 * e2fsck falls back to the backup descriptors when the primary
		 * ones fail this test: nothing is written through them.
		 */
		img->doing = "checking the group descriptors of";
		err = ext2fs_check_desc(img->fs);
		if (err) {
			snprintf(
				img->why, sizeof(img->why),
				" (the primary group descriptors are corrupt; run e2fsck -f on the "
				"image first)");
			img->reason = img->why;
			return err;
		}
	}
	if (!(flags & CLI_IMAGE_WRITE))
		return 0;
	if (img->undo_path && !(flags & CLI_IMAGE_QUIET))
		fprintf(stderr,
			"Overwriting existing filesystem; this can be undone using the command:\n"
			"    e2undo %s %s\n\n",
			img->undo_path, name);
	cli_fix_time(img->fs);
	img->doing = "reading the bitmaps of";
	err = ext2fs_read_bitmaps(img->fs);
	if (err)
		return err;
	img->doing = "starting a transaction on";
	return e2verity_txn_begin(img->fs, &img->txn);
}

errcode_t cli_image_commit(struct cli_image *img)
{
	img->doing = "committing to";
	img->what = img->name;
	if (!img->txn)
		return 0;
	return e2verity_txn_commit(img->txn);
}

void cli_image_abandon(struct cli_image *img)
{
	img->abandoned = 1;
	if (img->txn)
		e2verity_txn_abort(img->txn);
}

errcode_t cli_image_close(struct cli_image *img)
{
	errcode_t err = 0, err2;
	int journaled = 0;

	img->doing = "writing";
	img->what = img->name;
	if (img->txn) {
		err = e2verity_txn_end(img->txn);
		img->txn = NULL;
	}
	if (img->fs) {
		journaled = ext2fs_has_feature_journal(img->fs->super);
		err2 = e2verity_image_detach(img->handle);
		img->handle = NULL;
		if (!err)
			err = err2;
		err2 = ext2fs_close_free(&img->fs);
		if (!err)
			err = err2;
		/*
		 * A sparse image gets what was committed, encoded back whole.
		 * After a stop, the copy of a journaled one holds the last
		 * commit; an unjournaled one is left as it was.
		 */
		if (img->disk && img->disk->sparse && (img->flags & CLI_IMAGE_WRITE)) {
			if (!err && (!img->abandoned || journaled)) {
				img->doing = "writing the sparse image";
				img->what = img->name;
				err = cli_disk_write_back(img->disk);
			} else {
				cli_disk_forget(img->disk);
			}
		}
	}
	if (img->disk) {
		cli_disk_free(img->disk);
		free(img->disk);
		img->disk = NULL;
	}
	free(img->path);
	free(img->undo_path);
	img->path = img->undo_path = NULL;
	return err;
}

static char cli_image_said[512];

void cli_image_report(const struct cli_image *img, errcode_t err)
{
	const char *reason = img->reason ? img->reason : "";

	if (reason[0] == CLI_WHY_WHOLE)
		snprintf(cli_image_said, sizeof(cli_image_said), "'%s' %s", cli_name(img->what),
			 reason + 1);
	else if (reason[0])
		snprintf(cli_image_said, sizeof(cli_image_said), "%s while %s '%s'%s",
			 error_message(err), img->doing, cli_name(img->what), reason);
	else
		cli_image_error_text(err, img->doing, img->what,
				     !!(img->flags & (CLI_IMAGE_WRITE | CLI_IMAGE_PREFLIGHT)),
				     cli_image_said, sizeof(cli_image_said));
	fprintf(stderr, "%s: %s\n", cli_prog, cli_image_said);
}

const char *cli_image_last_message(void)
{
	return cli_image_said;
}

/* what cli_open_image() opened, until cli_close_image() */
static struct cli_disk *cli_open_disk;
static struct e2verity_image *cli_open_handle;

errcode_t cli_open_image(const char *image, int writable, ext2_filsys *fs)
{
	struct cli_image img;
	errcode_t err;

	/* read-only either way; "writable" is judged as a writer would be */
	err = cli_image_open(&img, image, writable ? CLI_IMAGE_PREFLIGHT : 0, NULL);
	if (err)
		cli_image_report(&img, err);
	*fs = err ? NULL : img.fs;
	if (!err) {
		/* the raw copy of a sparse image lives as long as the filesystem */
		img.fs = NULL;
		cli_open_disk = img.disk;
		img.disk = NULL;
		cli_open_handle = img.handle;
		img.handle = NULL;
	}
	cli_image_close(&img);
	return err;
}

errcode_t cli_close_image(const char *image, ext2_filsys *fs)
{
	errcode_t err = 0;

	if (*fs) {
		err = e2verity_image_detach(cli_open_handle);
		cli_open_handle = NULL;
		if (!err)
			err = ext2fs_close_free(fs);
		else
			ext2fs_close_free(fs);
	}
	if (err)
		cli_error(err, "while closing '%s'", cli_name(image));
	if (cli_open_disk) {
		cli_disk_free(cli_open_disk);
		free(cli_open_disk);
		cli_open_disk = NULL;
	}
	return err;
}

errcode_t cli_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino)
{
	if (path[0] != '/')
		return EINVAL;
	return ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino);
}
