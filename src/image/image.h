/* SPDX-License-Identifier: GPL-2.0-or-later */
/* image.h - the one door every command opens an image through */
#ifndef CLI_IMAGE_H
#define CLI_IMAGE_H

#include "e2verity.h"

#include "image/container.h"

/* An image opened through the one door (image.c). */
struct cli_image {
	const char *name; /* as the user gave it, io options included */
	char *path;	  /* the file itself */
	ext2_filsys fs;
	struct e2verity_image *handle; /* the library's state of @fs, on its priv_data */
	struct e2verity_txn *txn;      /* writable images: every write goes through it */
	unsigned int flags;
	char *undo_path;
	/* after a failure: the step and the file it concerns, for the message */
	const char *doing, *what, *reason;
	struct cli_disk *disk; /* where the filesystem lies (disk.h) */
	char why[256];	       /* what the disk layer found wrong */
	int abandoned;
};

/* read-write: exclusive lock, not mounted, healthy, writes in transactions */
#define CLI_IMAGE_WRITE 0x1
/* read-only, but judged as for writing (seal's pre-flight): not mounted, healthy */
#define CLI_IMAGE_PREFLIGHT 0x2
/* with PREFLIGHT: a shared lock (a dry run writes nothing) */
#define CLI_IMAGE_SHARED 0x4
/* write even when the filesystem has errors or was not cleanly unmounted */
#define CLI_IMAGE_FORCE 0x8
/* no warnings, no undo notice */
#define CLI_IMAGE_QUIET 0x10

/*
 * Opens an image (IMAGE or IMAGE?io_options).  @undo: an undo file (or a
 * directory for one) for writable opens, or NULL.  On failure img->doing and
 * img->what name the step; cli_image_close() frees what was opened either way.
 */
errcode_t cli_image_open(struct cli_image *img, const char *name, unsigned int flags,
			 const char *undo);
/* Makes what was written so far durable: one journal transaction. */
errcode_t cli_image_commit(struct cli_image *img);
/* Drops what was written since the last commit; close the image next. */
void cli_image_abandon(struct cli_image *img);
/* Commits what is pending (unless abandoned) and closes. */
errcode_t cli_image_close(struct cli_image *img);

/* Says why cli_image_open() failed, as every command says it. */
void cli_image_report(const struct cli_image *img, errcode_t err);
/* The message (without the program's name) of the last cli_image_report(), for --json */
const char *cli_image_last_message(void);

/* Opens @image read-only through the door (image.c), and reports a failure. */
errcode_t cli_open_image(const char *image, int writable, ext2_filsys *fs);
/* Closes what cli_open_image() opened (read-only); reports a failure. */
errcode_t cli_close_image(const char *image, ext2_filsys *fs);
/* The inode of an absolute path inside the image. */
errcode_t cli_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino);

#endif /* CLI_IMAGE_H */
