// SPDX-License-Identifier: GPL-2.0-or-later
/* e2verity.c - the e2verity command: dispatch to one subcommand */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"

const char *e2v_prog = "e2verity";

static const struct e2v_command e2v_commands[] = {
	{ "digest", cmd_digest, "Compute the fs-verity digest of host files",
	  "FILE... [--hash-alg=HASH_ALG] [--block-size=BLOCK_SIZE] [--salt=SALT]\n"
	  "\t\t[--out-merkle-tree=FILE] [--out-descriptor=FILE] [--compact] [--for-builtin-sig]" },
	{ "sign", cmd_sign, "Sign the fs-verity digest of a host file (PKCS#7, as fsverity sign)",
	  "FILE OUT_SIGFILE --key=KEYFILE [--cert=CERTFILE] [--key-pass=PASS]\n"
	  "\t\t[--embed-cert|--no-embed-cert]\n"
	  "\t\t[--hash-alg=HASH_ALG] [--block-size=BLOCK_SIZE] [--salt=SALT]\n"
	  "\t\t[--out-merkle-tree=FILE] [--out-descriptor=FILE]" },
	{ "seal", cmd_seal, "Enable fs-verity on files inside an unmounted ext4 image",
	  "[-r] [-a|--all] [--files-from=LIST] [--exclude=GLOB]... [--hash-alg=HASH_ALG]\n"
	  "\t\t[--block-size=BLOCK_SIZE] [--salt=SALT] [--key=KEYFILE [--cert=CERTFILE]\n"
	  "\t\t[--key-pass=PASS] [--embed-cert|--no-embed-cert]]\n"
	  "\t\t[--signatures-from=DIR|--signature=SIGFILE [--cert=CERT] [--ca=CA]]\n"
	  "\t\t[--immutable] [--force] [-n|--dry-run] [-z UNDO_FILE]\n"
	  "\t\t[-j N|--threads=N] [-p|--progress] [-q] [-v]\n"
	  "\t\t[--manifest=FILE [--for-builtin-sig]] IMAGE [PATH...]" },
	{ "check", cmd_check, "Check the sealed files of an image (exit status as fsck)",
	  "[-j N] [-p] [-v] [--json] [--cert=CERT] [--ca=CA] [--require-signatures]\n"
	  "\t\tIMAGE [PATH...]" },
	{ "measure", cmd_measure, "Print the stored fs-verity digests of files in an image",
	  "[--json] IMAGE PATH... | IMAGE --all" },
	{ "dump", cmd_dump, "Write a sealed file's stored verity metadata to standard output",
	  "IMAGE PATH merkle_tree|descriptor|signature [--offset=N] [--length=N]" },
	{ "unseal", cmd_unseal, "Remove fs-verity from files of an image",
	  "[-v] IMAGE PATH..." },
};

static void e2v_main_usage(FILE *f)
{
	fprintf(f, "Usage: %s COMMAND [ARGS...]\n\nCommands:\n", e2v_prog);
	for (size_t i = 0; i < sizeof(e2v_commands) / sizeof(e2v_commands[0]); i++)
		fprintf(f, "  %-8s %s\n", e2v_commands[i].name, e2v_commands[i].summary);
	fprintf(f, "\n'%s COMMAND --help' shows the options of one command.\n"
		   "Hash algorithms: sha256 sha512\n", e2v_prog);
}

int main(int argc, char *argv[])
{
	e2verity_init();
	if (argc < 2) {
		e2v_main_usage(stderr);
		return E2V_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		e2v_main_usage(stdout);
		return E2V_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("%s %s\n", e2v_prog, PACKAGE_VERSION);
		return E2V_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(e2v_commands) / sizeof(e2v_commands[0]); i++) {
		if (strcmp(argv[1], e2v_commands[i].name) == 0)
			return e2v_commands[i].func(&e2v_commands[i], argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown command '%s'\n", e2v_prog, argv[1]);
	e2v_main_usage(stderr);
	return E2V_EXIT_USAGE;
}
