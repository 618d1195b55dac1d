/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h - what the e2verity subcommands share: the command table and helpers */
#ifndef E2VERITY_CMD_H
#define E2VERITY_CMD_H

#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <getopt.h>

#include "e2verity.h"
#include "output/names.h"

/* exit status of every command but check (which uses the fsck(8) bits) */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

struct cli_command {
	const char *name;
	int (*func)(const struct cli_command *cmd, int argc, char *argv[]);
	const char *summary;
	const char *usage; /* options, after "e2verity NAME" */
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

#define CLI_TREE_LONG_OPTIONS                                                   \
	{ "hash-alg", required_argument, NULL, OPT_HASH_ALG },                  \
	{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },              \
	{ "salt", required_argument, NULL, OPT_SALT },                          \
	{ "out-merkle-tree", required_argument, NULL, OPT_OUT_MERKLE_TREE },    \
	{ "out-descriptor", required_argument, NULL, OPT_OUT_DESCRIPTOR }

/* the options of the image itself, handled by cli_getopt() for every command that opens one */
#define CLI_IMAGE_LONG_OPTIONS { "partition", required_argument, NULL, OPT_PARTITION }

/* what the tree options collect */
struct cli_tree_opts {
	struct e2verity_params params;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	const char *out_merkle_tree;
	const char *out_descriptor;
};

/* 1 if @opt was a tree option (parsed into @t), 0 if not, -1 on a bad value */
int cli_parse_tree_option(int opt, const char *arg, struct cli_tree_opts *t);

/* ---- cli.c: the layer every command shares ---------------------------------- */

/* the same words for the same mistake, in every command */
#define CLI_MSG_RELATIVE "'%s' is not an absolute path inside the image (paths start with '/')"

void cli_usage(const struct cli_command *cmd, FILE *f);
/* `e2verity help CMD`, `CMD --help`: the summary and the usage, on stdout */
void cli_help(const struct cli_command *cmd);
/* Prints "e2verity CMD: <reason>" (when @fmt) and the usage; returns the usage status. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_status_usage(const struct cli_command *cmd);
int cli_status_failure(const struct cli_command *cmd);
void cli_error(errcode_t err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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

/*
 * Progress, one style for every command: a line redrawn on a terminal's
 * stderr (nothing when it is not a terminal), and e2fsck -C's machine lines
 * ("PASS DONE TOTAL DEVICE") on a descriptor.  The work is counted in bytes
 * of data plus a block's worth per file, so that a run over empty files moves
 * too; the line names the files done.
 */
struct cli_progress {
	int bar, fd, pass, last, drawn;
	const char *device;
	uint64_t files, bytes;		 /* the whole run */
	uint64_t files_done, bytes_done; /* the files done and their data */
	int64_t drawn_at;		 /* CLOCK_MONOTONIC, ns */
};
void cli_progress_init(struct cli_progress *p, int bar, int fd, const char *device);
int cli_progress_active(const struct cli_progress *p);
/* What the run goes through: @files files of @bytes bytes of data in all. */
void cli_progress_total(struct cli_progress *p, uint64_t files, uint64_t bytes);
/* @done bytes of the file under way are through; @label (or NULL) names it. */
void cli_progress_bytes(struct cli_progress *p, uint64_t done, const char *label);
/* One more file of @size bytes is done. */
void cli_progress_file(struct cli_progress *p, uint64_t size, const char *label);
/* Erases the line before other output. */
void cli_progress_clear(struct cli_progress *p);

/* Reports a failure to open @image in the one wording every command uses. */
void cli_report_image_error(errcode_t err, const char *doing, const char *image, int writable);
/* Opens @image read-only through the door (image.c), and reports a failure. */
errcode_t cli_open_image(const char *image, int writable, ext2_filsys *fs);
/* Closes what cli_open_image() opened (read-only); reports a failure. */
errcode_t cli_close_image(const char *image, ext2_filsys *fs, int written);
/* --partition as given to the command, or NULL */
const char *cli_partition(void);
/* " (a symbolic link: ...)", " (a directory)"...: what a message adds when @ino is not a file */
const char *cli_file_kind(ext2_filsys fs, ext2_ino_t ino);
/*
 * Looks up an absolute @path inside @image (a trailing '/': it must be a
 * directory, else ENOTDIR), and reports a failure in plain words.
 */
errcode_t cli_lookup(ext2_filsys fs, const char *image, const char *path, ext2_ino_t *ino);

/* ---- util.c -------------------------------------------------------------------- */

/*
 * Makes room in the array *@v of *@cap elements of @size bytes for element
 * @n (doubling it): 0, or -1 when out of memory (*@v and *@cap unchanged).
 */
int cli_grow(void **v, size_t *cap, size_t n, size_t size);

void cli_bin2hex(const uint8_t *bin, size_t len, char *hex);
/* Parses hex; returns the number of bytes, or -1 if not hex or longer than @max. */
int cli_hex2bin(const char *hex, uint8_t *bin, size_t max);

/*
 * A file written on the host (outfile.c): what the user named gets the
 * content, complete, at the commit, and nothing else is replaced.  A symbolic
 * link is followed; a regular file is replaced by a new one with its mode,
 * owner, group and extended attributes (ACLs); a device, a FIFO, a file with
 * other hard links or in a directory not ours to add to is written in place.
 * Until the commit the content sits in a file without a name, gone with the
 * process however it ends.
 */
struct cli_outfile {
	const char *path; /* as named */
	char *target;	  /* @path with its symbolic links followed */
	char *tmpname;	  /* a named temporary file, where O_TMPFILE is not to be had */
	int fd;		  /* the content goes here until the commit */
	int out;	  /* the file itself, copied into at the commit; or -1 */
	int existed, opened;
	struct stat st; /* the file replaced */
	char why[192];	/* after a refusal: " (the reason)", or "" */
};
/* CLI_OUT_WHOLE: only replace whole (an image): refuse what would be written in place */
#define CLI_OUT_WHOLE 0x1
errcode_t cli_outfile_open(struct cli_outfile *o, const char *path, unsigned int flags);
errcode_t cli_outfile_write(struct cli_outfile *o, const void *buf, size_t len);
errcode_t cli_outfile_commit(struct cli_outfile *o);
/* Drops what was written; the named file is as it was.  Safe on a zeroed struct. */
void cli_outfile_abort(struct cli_outfile *o);
/* $TMPDIR, or /tmp */
const char *cli_tmpdir(void);
/*
 * A new file in @dir that no name reaches (O_TMPFILE) when the system has
 * them, or -1 (errno).  With @name, *@name is a path that opens it
 * (/proc/self/fd/N, or a named file where there is no O_TMPFILE or /proc: the
 * caller unlinks that); without, any name is gone before it returns.
 */
int cli_tmpfile(const char *dir, mode_t mode, char **name);
errcode_t cli_write_all(int fd, const void *buf, size_t len, off_t offset);

/*
 * Reads the file @path whole into a new buffer (*@ret, *@size): EFBIG,
 * unread past @max + 1 bytes, when it holds more than @max bytes.
 */
errcode_t cli_read_whole(const char *path, size_t max, uint8_t **ret, size_t *size);
errcode_t cli_tree_to_fd(void *ctx, const void *block, size_t size, uint64_t offset);

/* Computes the digest (and tree/descriptor files, when asked) of a host file. */
errcode_t cli_digest_host_file(const char *path, struct cli_tree_opts *t,
			       struct e2verity_result *res, const char **doing);

/*
 * undo_io.c: an io manager over @backing that saves in the undo file @path
 * (e2undo's format) what each write overwrites, before the write, keeping the
 * file one that plain e2undo applies whenever the process stops.
 */
errcode_t cli_undo_io_manager(io_manager backing, const char *path, io_manager *io);

/* An image opened through the one door (image.c). */
struct cli_image {
	const char *name; /* as the user gave it, io options included */
	char *path;	  /* the file itself */
	ext2_filsys fs;
	struct e2verity_txn *txn; /* writable images: every write goes through it */
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

/*
 * SIGINT, SIGTERM and SIGHUP set cli_cancel (to the signal's number) instead
 * of ending the process: the commands stop at a point where the image is
 * whole.  The exit status after such a stop is 128 + the signal's number.
 */
extern volatile sig_atomic_t cli_cancel;
void cli_catch_signals(void);
/* The inode of an absolute path inside the image. */
errcode_t cli_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino);

/* the signing options of sign and seal */
struct cli_signer_opts {
	const char *keyfile, *certfile;
	const char *key_pass; /* openssl's -passin forms, or the pass phrase itself */
	int embed;	      /* -1: the library decides; 0 or 1: --no-embed-cert, --embed-cert */
	int quiet;	      /* no warnings */
};

#define CLI_SIGNER_LONG_OPTIONS                                                                    \
	{ "key", required_argument, NULL, OPT_KEY },                                               \
	{ "cert", required_argument, NULL, OPT_CERT },                                             \
	{ "key-pass", required_argument, NULL, OPT_KEY_PASS },                                     \
	{ "embed-cert", no_argument, NULL, OPT_EMBED_CERT },                                       \
	{ "no-embed-cert", no_argument, NULL, OPT_NO_EMBED_CERT }

/* 1 if @opt was a signer option (stored in @o), else 0 */
int cli_parse_signer_option(int opt, const char *arg, struct cli_signer_opts *o);

/*
 * Loads a signing key (the pass phrase from --key-pass's source, or asked for
 * on a terminal when needed) and reports an error naming the file or source.
 */
errcode_t cli_load_signer(const struct cli_signer_opts *o, struct e2verity_signer **signer);
const char *cli_failed_file(errcode_t err, const char *keyfile, const char *certfile);
/* The same for a key that signs security.ima (--ima-key, --ima-cert, --ima-key-pass). */
errcode_t cli_load_ima_signer(const struct cli_signer_opts *o, struct e2verity_ima_signer **signer);
/* e2verity_seal_opts.ima_sign and .ima_keep over an IMA signer (@ctx) */
errcode_t cli_ima_sign_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **value,
			  size_t *len);
int cli_ima_keep_cb(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *value,
		    size_t len);
/*
 * Loads the certificate and CA that signatures are verified against, before
 * any image is opened; reports an error naming the file (*@failed).
 */
errcode_t cli_load_verifier(const char *certfile, const char *cafile, struct e2verity_verifier **v,
			    const char **failed);
/* an e2verity_sign_fn over e2verity_sign_digest(); @ctx is the signer */
errcode_t cli_sign_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
		      size_t *sig_size);

/* cli_digest_line()'s forms: the digest, or the bytes a signature signs, in hex */
#define CLI_FORM_DIGEST 0
#define CLI_FORM_BUILTIN 1 /* struct fsverity_formatted_digest: a built-in signature's */
#define CLI_FORM_IMA 2	   /* the ima_file_id an IMA fs-verity signature signs the hash of */

/*
 * Writes one line as `fsverity digest` prints it: "<alg>:<hex> <path>", or
 * with @form CLI_FORM_BUILTIN or CLI_FORM_IMA "<hex of what is signed>
 * <path>".  Returns 0 or an errno value.
 */
int cli_digest_line(FILE *f, unsigned int alg, const uint8_t *digest, const char *path, int form);

int cmd_digest(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_sign(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_check(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_measure(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_diff(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_dump(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_unseal(const struct cli_command *cmd, int argc, char *argv[]);
int cmd_seal(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* E2VERITY_CMD_H */
