/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h - what every subcommand shares: the command table's row, options, paths, messages */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "e2verity.h"

/* exit status of every command but check (which uses the fsck(8) bits) */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

struct cli_command {
	const char *name;
	int (*func)(const struct cli_command *cmd, int argc, char *argv[]);
	const char *summary;
	const char *usage;   /* options, after "e2verity NAME" */
	const char *options; /* --help's lines, one an option: "  --name=ARG  what it does\n" */
	/* exit status of a usage error and of a failure; 0: CLI_EXIT_USAGE, CLI_EXIT_FAILURE */
	int usage_status, failure_status;
};

extern const char *cli_prog;

/* long option values shared by the commands that build trees */
enum {
	OPT_HASH_ALG = 256,
	OPT_BLOCK_SIZE,
	OPT_SALT,
	OPT_OUT_MERKLE_TREE,
	OPT_OUT_DESCRIPTOR,
	OPT_COMPACT,
	OPT_FOR_BUILTIN_SIG,
	OPT_KEY,
	OPT_CERT,
	OPT_KEY_PASS,
	OPT_EMBED_CERT,
	OPT_NO_EMBED_CERT,
	OPT_PARTITION,
	OPT_FILES_FROM, /* the selection options (select.h) */
	OPT_EXCLUDE,
	OPT_FORCE,	   /* seal and unseal (select.h) */
	OPT_FIRST_PRIVATE, /* commands number their own options from here */
};

#define CLI_TREE_LONG_OPTIONS                                                                      \
	{ "hash-alg", required_argument, NULL, OPT_HASH_ALG },                                     \
		{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },                         \
		{ "salt", required_argument, NULL, OPT_SALT },                                     \
		{ "out-merkle-tree", required_argument, NULL, OPT_OUT_MERKLE_TREE },               \
	{                                                                                          \
		"out-descriptor", required_argument, NULL, OPT_OUT_DESCRIPTOR                      \
	}

/* the options of the image itself, handled by cli_getopt() for every command that opens one */
#define CLI_IMAGE_LONG_OPTIONS                                                                     \
	{                                                                                          \
		"partition", required_argument, NULL, OPT_PARTITION                                \
	}

/* what the tree options collect */
struct cli_tree_opts {
	struct e2verity_params params;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	const char *out_merkle_tree;
	const char *out_descriptor;
};

/*
 * 1 if @opt was a tree option (parsed into @t), 0 if not, -1 on a bad value.
 * --block-size is a size a kernel reads, or with E2VERITY_PARAMS_HOST_DIGEST
 * in @t->params.flags any that `fsverity digest` takes (cli_tree_validate()).
 */
int cli_parse_tree_option(int opt, const char *arg, struct cli_tree_opts *t);
/* 0 if the parsed @t are valid (defaults filled in), else the usage status, said */
int cli_tree_validate(const struct cli_command *cmd, struct cli_tree_opts *t);

/* the same words for the same mistake, in every command */
#define CLI_MSG_RELATIVE "'%s' is not an absolute path inside the image (paths start with '/')"

/* `e2verity help CMD`, `CMD --help`: the summary and the usage, on stdout */
void cli_help(const struct cli_command *cmd);
/* Prints "e2verity CMD: <reason>" (when @fmt) and the usage; returns the usage status. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_status_failure(const struct cli_command *cmd);
/* The usage status, for a usage error said in another form than cli_usage_error()'s */
int cli_status_usage(const struct cli_command *cmd);
void cli_error(errcode_t err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The log callback (e2verity_log_fn) the command hands every loader of keys
 * and certificates and every image it opens (image.c): it keeps what the
 * library logs between cli_log_listen() and cli_log_quiet().
 */
void cli_log_note(void *ctx, errcode_t err, const char *object, const char *detail);
/*
 * What the library logs is kept from here on: the file or the block a
 * failure concerns, which its error code cannot say.
 */
void cli_log_listen(void);
/* What the library logs is no longer kept. */
void cli_log_quiet(void);
/* The file the library last logged with @err, or NULL */
const char *cli_log_object(errcode_t err);
/* " (<detail>)" of the library's last log of @err, for a message's end; "" if none */
const char *cli_log_detail(errcode_t err);

/* 1 if --help or -h comes before any "--": the dispatcher answers it for every command */
int cli_wants_help(int argc, char *argv[]);

/*
 * One option loop for every command: getopt_long, plus a refusal of an option
 * with a value given twice (unless listed in @repeatable), which would
 * otherwise silently replace the first.  On '?', the message and the usage
 * are printed and @status is the exit status.
 */
#define CLI_MAX_OPTION 512
struct cli_getopt {
	const struct cli_command *cmd;
	int argc;
	char **argv;
	const char *shortopts;
	const struct option *longopts;
	const int *repeatable; /* option values that may repeat; 0-terminated, or NULL */
	unsigned char seen[CLI_MAX_OPTION];
	int status;
};
void cli_getopt_init(struct cli_getopt *g, const struct cli_command *cmd, int argc, char *argv[],
		     const char *shortopts, const struct option *longopts);
int cli_getopt(struct cli_getopt *g);

/* Flushes stdout; a failed write (a full disk, a closed pipe) is reported: returns -1. */
int cli_flush_stdout(void);

/*
 * Paths inside an image, the same in every command: "//" and "/./" folded,
 * ".." taken back over the component before it, as written (`realpath -s`;
 * "/.." is "/"), so that the path printed is the one looked up.  A path that
 * names a directory as typed ("/d/", "/d/.", "/d/..") keeps one trailing
 * '/': cli_lookup() refuses anything else there.  In place; -1 if not
 * absolute.
 */
int cli_normalize_path(char *path);
/* Normalises command-line paths; a relative one is a usage error (returns its status). */
int cli_image_paths(const struct cli_command *cmd, char **paths, int n);
/*
 * After the options: IMAGE, then the PATHs inside it, as given (the command
 * judges them, then normalises them with cli_image_paths()).  Returns 0, or
 * the usage status when there is no IMAGE.
 */
int cli_image_operands(const struct cli_command *cmd, int argc, char *argv[], const char **image,
		       char ***paths, int *npaths);

/* "sha256:<hex>", the form of `fsverity digest` and `fsverity measure` */
#define CLI_DIGEST_STRING_MAX (8 + 2 * E2VERITY_MAX_DIGEST_SIZE + 1)
void cli_format_digest(unsigned int alg, const uint8_t *digest, char *out);

/* hashing threads: -j N from 1 to CLI_THREADS_MAX; by default one per online CPU, at most 16 */
#define CLI_THREADS_MAX 64
#define CLI_DEFAULT_THREADS_MAX 16
unsigned int cli_default_threads(void);
int cli_parse_threads(const char *arg, unsigned int *out);

/* --min-kernel=VERSION[:PAGES]: the oldest kernel an image is for (6.1, 6.12:16k) */
struct cli_kernel {
	unsigned int version; /* E2VERITY_KERNEL_VERSION(), 0 when not given */
	unsigned int page_size;
};
/* 0, or -1 when @arg is not MAJOR.MINOR[.PATCH][:4k|16k|64k] */
int cli_parse_min_kernel(const char *arg, struct cli_kernel *k);
/* "6.3": MAJOR.MINOR of an E2VERITY_KERNEL_VERSION() */
#define CLI_KERNEL_STRING_MAX 8
void cli_kernel_string(unsigned int version, char *out, size_t size);

/*
 * A decimal number up to @max: 0, or -1 when it is not one (a sign, junk after
 * it, too large).  "-1" is refused, not taken as the largest number as
 * strtoull() would.
 */
int cli_parse_u64(const char *arg, uint64_t max, uint64_t *out);

/* The one wording of a failure to open @image (without the program's name), into @out */
void cli_image_error_text(errcode_t err, const char *doing, const char *image, int writable,
			  char *out, size_t size);
/* --partition as given to the command, or NULL */
const char *cli_partition(void);
/* " (a symbolic link: ...)", " (a directory)"...: what a message adds when @ino is not a file */
const char *cli_file_kind(ext2_filsys fs, ext2_ino_t ino);
/*
 * Looks up an absolute @path inside @image (a trailing '/': it must be a
 * directory, else ENOTDIR), and reports a failure in plain words.
 */
errcode_t cli_lookup(ext2_filsys fs, const char *image, const char *path, ext2_ino_t *ino);

#endif /* CLI_CLI_H */
