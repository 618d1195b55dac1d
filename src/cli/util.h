/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - growing arrays, hex, whole reads and writes */
#ifndef CLI_UTIL_H
#define CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "e2verity.h"

/*
 * What the code guarantees and clang's analyzer (scan-build, one file at a
 * time) cannot see, said at the line it reports with the reason: the analyzer
 * drops the paths where @cond is false.  Nothing at all in a build.
 */
#ifdef __clang_analyzer__
#define CLI_ANALYZER_ASSUME(cond) ((cond) ? (void)0 : __builtin_unreachable())
#else
#define CLI_ANALYZER_ASSUME(cond) ((void)0)
#endif

/*
 * Makes room in the array *@v of *@cap elements of @size bytes for element
 * @n (doubling it): 0, or -1 when out of memory (*@v and *@cap unchanged).
 */
int cli_grow(void **v, size_t *cap, size_t n, size_t size);

void cli_bin2hex(const uint8_t *bin, size_t len, char *hex);
/* Parses hex; returns the number of bytes, or -1 if not hex or longer than @max. */
int cli_hex2bin(const char *hex, uint8_t *bin, size_t max);

errcode_t cli_write_all(int fd, const void *buf, size_t len, off_t offset);

/*
 * Reads the file @path whole into a new buffer (*@ret, *@size): EFBIG,
 * unread past @max + 1 bytes, when it holds more than @max bytes.
 */
errcode_t cli_read_whole(const char *path, size_t max, uint8_t **ret, size_t *size);
errcode_t cli_tree_to_fd(void *ctx, const void *block, size_t size, uint64_t offset);

/* The plural's "s" after a count: "1 file", "0 files", "2 files" */
static inline const char *cli_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

#endif /* CLI_UTIL_H */
