/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsck.h - the exit status of check: fsck(8)'s bits */
#ifndef CLI_FSCK_H
#define CLI_FSCK_H

/* fsck(8) exit status bits */
#define FSCK_OK 0
#define FSCK_NONDESTRUCT 1
#define FSCK_UNCORRECTED 4
#define FSCK_ERROR 8
#define FSCK_CANCELED 32

#endif /* CLI_FSCK_H */
