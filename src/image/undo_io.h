/* SPDX-License-Identifier: GPL-2.0-or-later */
/* undo_io.h - an io manager that keeps an undo file as e2undo reads it */
#ifndef CLI_UNDO_IO_H
#define CLI_UNDO_IO_H

#include "e2verity.h"

/*
 * undo_io.c: an io manager over @backing that saves in the undo file @path
 * (e2undo's format) what each write overwrites, durably, before the write
 * reaches the image, keeping the file one that plain e2undo applies whenever
 * the process stops; a failed write of the undo file leaves the image as it
 * was, and no undo file.
 */
errcode_t cli_undo_io_manager(io_manager backing, const char *path, io_manager *io);

#endif /* CLI_UNDO_IO_H */
