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
	  "  --hash-alg=HASH_ALG          sha256 (the default) or sha512\n"
	  "  --block-size=BLOCK_SIZE      Merkle tree block size (default 4096)\n"
	  "  --salt=SALT                  a salt, in hex, hashed before every block\n"
	  "  --out-merkle-tree=FILE       write the Merkle tree (one file only)\n"
	  "  --out-descriptor=FILE        write the 256-byte descriptor (one file only)\n"
	  "  --compact                    print the digests alone, in hex\n"
	  "  --for-builtin-sig            print what a built-in signature signs, in hex\n",
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
	  "  --key=KEYFILE                the private key: PEM or DER file, or an OpenSSL store URI\n"
	  "  --cert=CERTFILE              the signer's certificate (and a chain after it)\n"
	  "  --key-pass=PASS              the key's pass phrase, as openssl -passin takes it\n"
	  "  --embed-cert                 put the certificates in the signature\n"
	  "  --no-embed-cert              leave them out (the default: as fsverity sign)\n"
	  "  -j N, --threads=N            threads that sign or hash (default: every core)\n"
	  "  --hash-alg=HASH_ALG          sha256 (the default) or sha512\n"
	  "  --block-size=BLOCK_SIZE      Merkle tree block size (default 4096)\n"
	  "  --salt=SALT                  a salt, in hex, hashed before every block\n"
	  "  --out-merkle-tree=FILE       write FILE's Merkle tree\n"
	  "  --out-descriptor=FILE        write FILE's descriptor\n"
	  "  --digests-from=MANIFEST|-    sign every digest a manifest lists, into SIGDIR\n",
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
	  "\t\t[--min-kernel=VERSION]\n"
	  "\t\tIMAGE [PATH...]",
	  "  --partition=N|NAME|UUID      the filesystem in a partition of a disk image\n"
	  "  -r                           a directory stands for the regular files under it\n"
	  "  -a, --all                    every regular file of the image\n"
	  "  --files-from=LIST            the paths in LIST, one a line (- is stdin)\n"
	  "  -0, --null                   LIST's paths end with NUL bytes, not newlines\n"
	  "  --exclude=GLOB               leave out the paths GLOB matches (repeatable)\n"
	  "  --hash-alg=HASH_ALG          sha256 (the default) or sha512\n"
	  "  --block-size=BLOCK_SIZE      Merkle tree block size (default 4096)\n"
	  "  --salt=SALT                  a salt, in hex, hashed before every block\n"
	  "  --key=KEYFILE                sign each file (built-in signature) with this key\n"
	  "  --cert=CERTFILE              the signer's certificate; with --signature(s-from), verify\n"
	  "  --key-pass=PASS              the key's pass phrase, as openssl -passin takes it\n"
	  "  --embed-cert                 put the certificates in the signatures\n"
	  "  --no-embed-cert              leave them out (the default)\n"
	  "  --signatures-from=DIR        store the signatures DIR/PATH.sig made elsewhere\n"
	  "  --signature=SIGFILE          store this signature (one file only)\n"
	  "  --ca=CA                      verify the stored signatures against this CA\n"
	  "  --ima-key=KEYFILE            write security.ima, an IMA sigv3 signature of the digest\n"
	  "  --ima-cert=CERTFILE          the IMA key's certificate (its key id)\n"
	  "  --ima-key-pass=PASS          the IMA key's pass phrase\n"
	  "  --ima-signatures-from=DIR|FILE  security.ima values made elsewhere\n"
	  "  --ima-only                   write security.ima alone, to files sealed already\n"
	  "  --immutable                  also set the immutable flag\n"
	  "  --force                      seal again what is sealed already\n"
	  "  -n, --dry-run                say what would be done; write nothing\n"
	  "  -z UNDO_FILE                 save what is overwritten for e2undo(8)\n"
	  "  -j N, --threads=N            hashing threads (default: every core)\n"
	  "  -p, --progress               show progress on standard error\n"
	  "  -q                           print nothing but errors\n"
	  "  -v                           say what is done to each file\n"
	  "  --manifest=FILE              write the digests of the sealed files (- is stdout)\n"
	  "  --for-builtin-sig            the manifest lists what built-in signatures sign\n"
	  "  --for-ima-sig                the manifest lists what IMA signatures sign\n"
	  "  --compact                    the manifest's digests alone, in hex\n"
	  "  --json                       the manifest as JSON\n"
	  "  --min-kernel=VERSION         the oldest Linux the image is for (6.1, 6.12:16k...)\n",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "check", cmd_check, "Check the sealed files of an image (exit status as fsck)",
	  "[--partition=N|NAME|UUID] [-n|-p|-y [-z UNDO_FILE]] [-f] [-r] [-j N|--threads=N]\n"
	  "\t\t[-C FD|--progress] [-q|--quiet|-v|--verbose] [-V] [--json] [--cert=CERT] [--ca=CA]\n"
	  "\t\t[--require-signatures] [--ima-cert=CERT] [--require-ima] [--min-kernel=VERSION]\n"
	  "\t\t[--manifest=FILE [--manifest-extra=ignore|warn|error]]\n"
	  "\t\t[--require-sealed[=PATH]]... [--exclude=GLOB]... [--digest-names=DIR]\n"
	  "\t\tIMAGE [PATH...]",
	  "  --partition=N|NAME|UUID      the filesystem in a partition of a disk image\n"
	  "  -n                           read only (the default)\n"
	  "  -p                           repair trees: rewrite blocks the data proves wrong\n"
	  "  -y                           also reseal damaged files whose data a trusted digest proves\n"
	  "  -z UNDO_FILE                 with -p or -y, save what is overwritten for e2undo(8)\n"
	  "  -f                           accepted, as e2fsck's: every file is checked always\n"
	  "  -r                           a directory PATH stands for the sealed files under it\n"
	  "  -j N, --threads=N            hashing threads (default: every core)\n"
	  "  -C FD                        progress, as e2fsck -C, to descriptor FD\n"
	  "  --progress                   progress on standard error\n"
	  "  -q, --quiet                  print only the problems\n"
	  "  -v, --verbose                list every file checked\n"
	  "  -V                           print the version and exit\n"
	  "  --json                       one JSON document\n"
	  "  --cert=CERT                  verify built-in signatures against these certificates\n"
	  "  --ca=CA                      ... or against certificates these CAs issued\n"
	  "  --require-signatures         an unsigned file is an error\n"
	  "  --ima-cert=CERT              verify security.ima against these certificates\n"
	  "  --require-ima                a file without security.ima is an error\n"
	  "  --min-kernel=VERSION         the oldest Linux the image is for (6.1, 6.12:16k...)\n"
	  "  --manifest=FILE              the image against the build's manifest\n"
	  "  --manifest-extra=ignore|warn|error  a sealed file the manifest lacks\n"
	  "  --require-sealed[=PATH]      every regular file (under PATH) must be sealed\n"
	  "  --exclude=GLOB               what --require-sealed leaves out (repeatable)\n"
	  "  --digest-names=DIR           every file under DIR sealed and named XX/REST by its digest\n",
	  16 /* fsck(8): usage error */, 8 /* operational error */ },
	{ "measure", cmd_measure, "Print the stored fs-verity digests of files in an image",
	  "[--partition=N|NAME|UUID] [--json|--compact|--format=text|compact|json|ipe]\n"
	  "\t\t[--policy-name=NAME] [--policy-version=X.Y.Z] IMAGE PATH... | --all",
	  "  --partition=N|NAME|UUID      the filesystem in a partition of a disk image\n"
	  "  -a, --all                    every sealed file, under each of its names\n"
	  "  --json                       one JSON document\n"
	  "  --compact                    the digests alone, in hex\n"
	  "  --format=FORMAT              text, compact, json, or ipe (an IPE policy)\n"
	  "  --policy-name=NAME           the IPE policy's name (default: the image's file name)\n"
	  "  --policy-version=X.Y.Z       the IPE policy's version (default 0.0.0)\n",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "diff", cmd_diff,
	  "List the sealed files two images or manifests differ by (exit status as diff)",
	  "[--partition=N|NAME|UUID] [--json] [--verify] [-j N|--threads=N]\n"
	  "\t\t[-q|--quiet|-v|--verbose] OLD NEW\n"
	  "\t\t(OLD and NEW: images, or manifests of seal, measure or check --json; - is stdin)",
	  "  --partition=N|NAME|UUID      the filesystem in a partition of a disk image\n"
	  "  --json                       one JSON document\n"
	  "  --verify                     also hash the data of an image operand's sealed files\n"
	  "  -j N, --threads=N            hashing threads for --verify\n"
	  "  -q, --quiet                  no summary line\n"
	  "  -v, --verbose                list the unchanged files too\n",
	  CLI_EXIT_USAGE, 2 /* diff(1): trouble */ },
	{ "dump", cmd_dump, "Write a sealed file's stored verity metadata to standard output",
	  "[--partition=N|NAME|UUID] [--offset=N] [--length=N]\n"
	  "\t\tIMAGE PATH merkle_tree|descriptor|signature|ima\n"
	  "\t\t(or IMAGE TYPE PATH, the order of fsverity dump_metadata)",
	  "  --partition=N|NAME|UUID      the filesystem in a partition of a disk image\n"
	  "  --offset=N                   start N bytes into the metadata\n"
	  "  --length=N                   write at most N bytes\n",
	  CLI_EXIT_USAGE, CLI_EXIT_FAILURE },
	{ "unseal", cmd_unseal, "Remove fs-verity from files of an image",
	  "[--partition=N|NAME|UUID] [-r] [-a|--all] [--files-from=LIST [-0|--null]]\n"
	  "\t\t[--exclude=GLOB]... [-n|--dry-run] [-q] [-v] [-z UNDO_FILE] [--force]\n"
	  "\t\tIMAGE [PATH...]",
	  "  --partition=N|NAME|UUID      the filesystem in a partition of a disk image\n"
	  "  -r                           a directory stands for the sealed files under it\n"
	  "  -a, --all                    every sealed file of the image\n"
	  "  --files-from=LIST            the paths in LIST, one a line (- is stdin)\n"
	  "  -0, --null                   LIST's paths end with NUL bytes, not newlines\n"
	  "  --exclude=GLOB               leave out the paths GLOB matches (repeatable)\n"
	  "  -n, --dry-run                say what would be done; write nothing\n"
	  "  -q                           print nothing but errors\n"
	  "  -v                           say what is done to each file\n"
	  "  -z UNDO_FILE                 save what is overwritten for e2undo(8)\n"
	  "  --force                      unseal what is damaged, or signed\n",
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
