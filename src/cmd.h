/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h - what the e2verity subcommands share: the command table and helpers */
#ifndef E2VERITY_CMD_H
#define E2VERITY_CMD_H

#include <stdio.h>
#include <getopt.h>

#include "e2verity.h"

/* exit status of every command but check (which uses the fsck(8) bits) */
#define E2V_EXIT_OK 0
#define E2V_EXIT_FAILURE 1
#define E2V_EXIT_USAGE 2

struct e2v_command {
	const char *name;
	int (*func)(const struct e2v_command *cmd, int argc, char *argv[]);
	const char *summary;
	const char *usage; /* options, after "e2verity NAME" */
};

extern const char *e2v_prog;

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
	OPT_HELP,
	OPT_FIRST_PRIVATE, /* commands number their own options from here */
};

#define E2V_TREE_LONG_OPTIONS                                                   \
	{ "hash-alg", required_argument, NULL, OPT_HASH_ALG },                  \
	{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },              \
	{ "salt", required_argument, NULL, OPT_SALT },                          \
	{ "out-merkle-tree", required_argument, NULL, OPT_OUT_MERKLE_TREE },    \
	{ "out-descriptor", required_argument, NULL, OPT_OUT_DESCRIPTOR },      \
	{ "help", no_argument, NULL, OPT_HELP }

/* what the tree options collect */
struct e2v_tree_opts {
	struct e2verity_params params;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	const char *out_merkle_tree;
	const char *out_descriptor;
};

/* 1 if @opt was a tree option (parsed into @t), 0 if not, -1 on a bad value */
int e2v_parse_tree_option(int opt, const char *arg, struct e2v_tree_opts *t);

void e2v_usage(const struct e2v_command *cmd, FILE *f);
int e2v_usage_error(const struct e2v_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void e2v_error(errcode_t err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* hashing threads when the user gives none: one per online CPU */
unsigned int e2v_default_threads(void);

void e2v_bin2hex(const uint8_t *bin, size_t len, char *hex);
/* Parses hex; returns the number of bytes, or -1 if not hex or longer than @max. */
int e2v_hex2bin(const char *hex, uint8_t *bin, size_t max);

/* An output file that only appears, complete, when committed. */
struct e2v_outfile {
	const char *path;
	char *tmp;
	int fd;
};
errcode_t e2v_outfile_open(struct e2v_outfile *o, const char *path);
errcode_t e2v_outfile_commit(struct e2v_outfile *o);
void e2v_outfile_abort(struct e2v_outfile *o);
errcode_t e2v_write_all(int fd, const void *buf, size_t len, off_t offset);
errcode_t e2v_tree_to_fd(void *ctx, const void *block, size_t size, uint64_t offset);

/* Computes the digest (and tree/descriptor files, when asked) of a host file. */
errcode_t e2v_digest_host_file(const char *path, struct e2v_tree_opts *t,
			       struct e2verity_result *res, const char **doing);

/*
 * Opens an ext4 image: read-only under a shared lock, or read-write under an
 * exclusive lock after refusing a mounted image.  *@doing names the failed step.
 */
errcode_t e2v_open_image(const char *image, int writable, ext2_filsys *fs, const char **doing);
/* The inode of an absolute path inside the image. */
errcode_t e2v_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino);

/* the signing options of sign and seal */
struct e2v_signer_opts {
	const char *keyfile, *certfile;
	const char *key_pass; /* openssl's -passin forms, or the pass phrase itself */
	int embed;	      /* -1: the library decides; 0 or 1: --no-embed-cert, --embed-cert */
	int quiet;	      /* no warnings */
};

#define E2V_SIGNER_LONG_OPTIONS                                                                    \
	{ "key", required_argument, NULL, OPT_KEY },                                               \
	{ "cert", required_argument, NULL, OPT_CERT },                                             \
	{ "key-pass", required_argument, NULL, OPT_KEY_PASS },                                     \
	{ "embed-cert", no_argument, NULL, OPT_EMBED_CERT },                                       \
	{ "no-embed-cert", no_argument, NULL, OPT_NO_EMBED_CERT }

/* 1 if @opt was a signer option (stored in @o), else 0 */
int e2v_parse_signer_option(int opt, const char *arg, struct e2v_signer_opts *o);

/*
 * Loads a signing key (the pass phrase from --key-pass's source, or asked for
 * on a terminal when needed) and reports an error naming the file or source.
 */
errcode_t e2v_load_signer(const struct e2v_signer_opts *o, struct e2verity_signer **signer);
const char *e2v_failed_file(errcode_t err, const char *keyfile, const char *certfile);
/* an e2verity_sign_fn over e2verity_sign_digest(); @ctx is the signer */
errcode_t e2v_sign_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
		      size_t *sig_size);

/*
 * Writes one line as `fsverity digest` prints it: "<alg>:<hex> <path>", or
 * with @for_builtin_sig "<hex of the formatted digest> <path>", the bytes a
 * built-in signature signs.  Returns 0 or an errno value.
 */
int e2v_digest_line(FILE *f, unsigned int alg, const uint8_t *digest, const char *path,
		    int for_builtin_sig);

int cmd_digest(const struct e2v_command *cmd, int argc, char *argv[]);
int cmd_sign(const struct e2v_command *cmd, int argc, char *argv[]);
int cmd_check(const struct e2v_command *cmd, int argc, char *argv[]);
int cmd_measure(const struct e2v_command *cmd, int argc, char *argv[]);
int cmd_dump(const struct e2v_command *cmd, int argc, char *argv[]);
int cmd_unseal(const struct e2v_command *cmd, int argc, char *argv[]);
int cmd_seal(const struct e2v_command *cmd, int argc, char *argv[]);

#endif /* E2VERITY_CMD_H */
