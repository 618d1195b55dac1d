/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sparse_io.h - a read-only io manager that reads an Android sparse image through its chunks */
#ifndef CLI_SPARSE_IO_H
#define CLI_SPARSE_IO_H

#include "e2verity.h"

/*
 * What the io manager is opened by: this prefix, then the sparse image's
 * path.  The name is no file, so the library's fast reads, which open
 * fs->device_name when no image source is named, never read the sparse file
 * as if it were the filesystem.
 */
#define CLI_SPARSE_IO_PREFIX "sparse:"

/*
 * sparse_io.c: reads the filesystem of the Android sparse image named
 * CLI_SPARSE_IO_PREFIX "PATH" through its chunk table, checked when the
 * channel opens: raw chunks from the file, fills made in memory, the rest
 * zeros; nothing is expanded.  Refuses to open for writing.
 */
io_manager cli_sparse_io_manager(void);

#endif /* CLI_SPARSE_IO_H */
