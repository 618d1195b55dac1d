// SPDX-License-Identifier: GPL-2.0-or-later
/* e2verity.c - the e2verity command: dispatch to one subcommand */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/cmd_check.h"
#include "cli/cli.h"
#include "cmd/cmd_diff.h"
#include "cmd/cmd_digest.h"
#include "cmd/cmd_dump.h"
#include "cmd/cmd_measure.h"
#include "cmd/cmd_sign.h"
#include "cmd/cmd_unseal.h"
#include "output/names.h"
#include "seal/cmd_seal.h"

static const struct cli_command cli_commands[] = {
	{ "digest", cmd_digest, "Compute the fs-verity digest of host files",
	  "FILE... [--hash-alg=HASH_ALG] [--block-size=BLOCK_SIZE] [--salt=SALT]\n"
	  "\t\t[--out-merkle-tree=FILE] [--out-descriptor=FILE] [--compact] [--for-builtin-sig]",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "sign", cmd_sign,
	  "Sign the fs-verity digest of a host file, or a manifest's (PKCS#7, as fsverity sign)",
	  "FILE OUT_SIGFILE --key=KEYFILE [--cert=CERTFILE] [--key-pass=PASS]\n"
	  "\t\t[--embed-cert|--no-embed-cert] [-j N|--threads=N]\n"
	  "\t\t[--hash-alg=HASH_ALG] [--block-size=BLOCK_SIZE] [--salt=SALT]\n"
	  "\t\t[--out-merkle-tree=FILE] [--out-descriptor=FILE]\n"
	  "\t| --digests-from=MANIFEST|- SIGDIR --key=KEYFILE [--cert=CERTFILE]\n"
	  "\t\t[--key-pass=PASS] [--embed-cert|--no-embed-cert] [-j N|--threads=N]\n"
	  "\t\t(MANIFEST: the digests a dry-run seal lists; SIGDIR/PATH.sig, as seal reads them)",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "seal", cmd_seal, "Enable fs-verity on files inside an unmounted ext4 image",
	  "[--partition=N|NAME|UUID] [-r] [-a|--all] [--files-from=LIST [-0|--null]]\n"
	  "\t\t[--exclude=GLOB]... [--hash-alg=HASH_ALG] [--block-size=BLOCK_SIZE] [--salt=SALT]\n"
	  "\t\t[--key=KEYFILE [--cert=CERTFILE] [--key-pass=PASS] [--embed-cert|--no-embed-cert]]\n"
	  "\t\t[--signatures-from=DIR|--signature=SIGFILE [--cert=CERT] [--ca=CA]]\n"
	  "\t\t[--ima-key=KEYFILE [--ima-cert=CERTFILE] [--ima-key-pass=PASS]\n"
	  "\t\t |--ima-signatures-from=DIR|FILE [--ima-cert=CERTFILE]] [--ima-only]\n"
	  "\t\t[--immutable] [--force] [-n|--dry-run] [-z UNDO_FILE]\n"
	  "\t\t[-j N|--threads=N] [-p|--progress] [-q] [-v]\n"
	  "\t\t[--manifest=FILE [--for-builtin-sig|--for-ima-sig] [--compact|--json]]\n"
	  "\t\t[--min-kernel=VERSION]"
	  "\t\tIMAGE [PATH...]",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "check", cmd_check, "Check the sealed files of an image (exit status as fsck)",
	  "[--partition=N|NAME|UUID] [-n|-p|-y [-z UNDO_FILE]] [-f] [-r] [-j N]\n"
	  "\t\t[-C FD|--progress] [-q|-v] [-V] [--json] [--cert=CERT] [--ca=CA]\n"
	  "\t\t[--require-signatures] [--ima-cert=CERT] [--require-ima] [--min-kernel=VERSION]\n"
	  "\t\t[--manifest=FILE [--manifest-extra=ignore|warn|error]]\n"
	  "\t\t[--require-sealed[=PATH]]... [--exclude=GLOB]... [--digest-names=DIR]\n"
	  "\t\tIMAGE [PATH...]",
	  16 /* fsck(8): usage error */, 8 /* operational error */ },
	{ "measure", cmd_measure, "Print the stored fs-verity digests of files in an image",
	  "[--partition=N|NAME|UUID] [--json|--compact|--format=text|compact|json|ipe]\n"
	  "\t\t[--policy-name=NAME] [--policy-version=X.Y.Z] IMAGE PATH... | --all",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "diff", cmd_diff,
	  "List the sealed files two images or manifests differ by (exit status as diff)",
	  "[--partition=N|NAME|UUID] [--json] [--verify] [-j N] [-q|-v] OLD NEW\n"
	  "\t\t(OLD and NEW: images, or manifests of seal, measure or check --json; - is stdin)",
	  CLI_EXIT_USAGE, 2 /* diff(1): trouble */ },
	{ "dump", cmd_dump, "Write a sealed file's stored verity metadata to standard output",
	  "[--partition=N|NAME|UUID] [--offset=N] [--length=N]\n"
	  "\t\tIMAGE PATH merkle_tree|descriptor|signature|ima\n"
	  "\t\t(or IMAGE TYPE PATH, the order of fsverity dump_metadata)",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "unseal", cmd_unseal, "Remove fs-verity from files of an image",
	  "[--partition=N|NAME|UUID] [-r] [-a|--all] [--files-from=LIST [-0|--null]]\n"
	  "\t\t[--exclude=GLOB]... [-n|--dry-run] [-q] [-v] [-z UNDO_FILE] [--force]\n"
	  "\t\tIMAGE [PATH...]",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
};

static void cli_main_usage(FILE *f)
{
	fprintf(f, "Usage: %s COMMAND [ARGS...]\n\nCommands:\n", cli_prog);
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		fprintf(f, "  %-8s %s\n", cli_commands[i].name, cli_commands[i].summary);
	fprintf(f,
		"\nIMAGE: an ext4 image file; IMAGE?offset=BYTES (e2fsprogs' form)\n"
		"for a filesystem further in; a disk image with --partition=N|NAME|UUID\n"
		"(a GPT partition's number, name or UUID; an MBR partition's number).\n"
		"Android sparse images are read, and written back sparse.\n"
		"\n'%s help COMMAND' or '%s COMMAND --help' shows the options of one command.\n"
		"Hash algorithms: sha256 sha512\n",
		cli_prog, cli_prog);
}

static const struct cli_command *cli_find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		if (strcmp(name, cli_commands[i].name) == 0)
			return &cli_commands[i];
	return NULL;
}

static int cli_unknown_command(const char *name)
{
	fprintf(stderr, "%s: unknown command '%s'\n", cli_prog, cli_name(name));
	cli_main_usage(stderr);
	return CLI_EXIT_USAGE;
}

int main(int argc, char *argv[])
{
	const struct cli_command *cmd;

	e2verity_init();
	if (argc < 2) {
		cli_main_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_main_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("%s %s\n", cli_prog, PACKAGE_VERSION);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			cli_main_usage(stdout);
			return CLI_EXIT_OK;
		}
		cmd = cli_find_command(argv[2]);
		if (!cmd)
			return cli_unknown_command(argv[2]);
		cli_help(cmd);
		return cli_flush_stdout() ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
	}
	cmd = cli_find_command(argv[1]);
	if (!cmd)
		return cli_unknown_command(argv[1]);
	/* answered here once, so that no command parses them */
	if (cli_wants_help(argc - 1, argv + 1)) {
		cli_help(cmd);
		return cli_flush_stdout() ? cli_status_failure(cmd) : CLI_EXIT_OK;
	}
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (strcmp(argv[i], "--version") == 0) {
			printf("%s %s\n", cli_prog, PACKAGE_VERSION);
			return cli_flush_stdout() ? cli_status_failure(cmd) : CLI_EXIT_OK;
		}
	}
	return cmd->func(cmd, argc - 1, argv + 1);
}
