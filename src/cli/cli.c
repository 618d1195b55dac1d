// SPDX-License-Identifier: GPL-2.0-or-later
/* cli.c - what every subcommand shares: option loop, paths, digests, threads, progress, messages */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/util.h"
#include "image/disk.h"
#include "output/names.h"

const char *cli_prog = "e2verity";

/* --partition, for whichever image the command opens */
static const char *cli_partition_arg;

const char *cli_partition(void)
{
	return cli_partition_arg;
}

static void cli_usage(const struct cli_command *cmd, FILE *f)
{
	fprintf(f, "Usage: %s %s %s\n", cli_prog, cmd->name, cmd->usage);
}

void cli_help(const struct cli_command *cmd)
{
	printf("%s %s - %s\n\n", cli_prog, cmd->name, cmd->summary);
	cli_usage(cmd, stdout);
	if (cmd->options)
		printf("\nOptions:\n%s", cmd->options);
}

int cli_status_usage(const struct cli_command *cmd)
{
	return cmd->usage_status ? cmd->usage_status : CLI_EXIT_USAGE;
}

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		/* the one prefix of every message; the usage line below names the command */
		fprintf(stderr, "%s: ", cli_prog);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	cli_usage(cmd, stderr);
	return cli_status_usage(cmd);
}

int cli_status_failure(const struct cli_command *cmd)
{
	return cmd->failure_status ? cmd->failure_status : CLI_EXIT_FAILURE;
}

/* what the library last logged: it names the file or the block, so nothing is read again to guess */
static struct {
	int listening; /* from cli_log_listen() to cli_log_quiet() */
	errcode_t err;
	char object[PATH_MAX];
	char detail[256];
	char why[sizeof("()") + 256];
} cli_logged;

void cli_log_note(void *ctx, errcode_t err, const char *object, const char *detail)
{
	(void)ctx;
	if (!cli_logged.listening)
		return;
	cli_logged.err = err;
	snprintf(cli_logged.object, sizeof(cli_logged.object), "%s", object ? object : "");
	snprintf(cli_logged.detail, sizeof(cli_logged.detail), "%s", detail ? detail : "");
}

void cli_log_listen(void)
{
	cli_logged.err = 0;
	cli_logged.listening = 1;
}

void cli_log_quiet(void)
{
	cli_logged.listening = 0;
}

const char *cli_log_object(errcode_t err)
{
	return err && cli_logged.err == err && cli_logged.object[0] ? cli_logged.object : NULL;
}

const char *cli_log_detail(errcode_t err)
{
	if (!err || cli_logged.err != err || !cli_logged.detail[0])
		return "";
	snprintf(cli_logged.why, sizeof(cli_logged.why), " (%s)", cli_logged.detail);
	return cli_logged.why;
}

void cli_error(errcode_t err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	com_err_va(cli_prog, err, fmt, ap);
	va_end(ap);
}

int cli_wants_help(int argc, char *argv[])
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

/* The option's names, for messages: "--hash-alg", "-j/--threads" or "-z". */
static void cli_option_name(const struct cli_getopt *g, int opt, char *buf, size_t size)
{
	const char *lname = NULL;

	for (const struct option *o = g->longopts; o && o->name; o++)
		if (o->val == opt && !o->flag)
			lname = o->name;
	if (opt < 128 && strchr(g->shortopts, opt))
		snprintf(buf, size, lname ? "-%c/--%s" : "-%c", opt, lname);
	else
		snprintf(buf, size, "--%s", lname ? lname : "?");
}

void cli_getopt_init(struct cli_getopt *g, const struct cli_command *cmd, int argc, char *argv[],
		     const char *shortopts, const struct option *longopts)
{
	memset(g, 0, sizeof(*g));
	g->cmd = cmd;
	g->argc = argc;
	g->argv = argv;
	g->shortopts = shortopts;
	g->longopts = longopts;
	/* getopt's own messages ("unrecognized option") start with argv[0]: ours, not "seal" */
	argv[0] = (char *)cli_prog;
	optind = 1;
}

static int cli_repeatable(const struct cli_getopt *g, int opt)
{
	for (const int *r = g->repeatable; r && *r; r++)
		if (*r == opt)
			return 1;
	return 0;
}

int cli_getopt(struct cli_getopt *g)
{
	char name[64];
	int opt;

again:
	opt = getopt_long(g->argc, g->argv, g->shortopts, g->longopts, NULL);
	if (opt == -1)
		return -1;
	if (opt == '?' || opt == ':') {
		g->status = cli_usage_error(g->cmd, NULL);
		return '?';
	}
	/* a second value would silently replace the first: say so instead */
	if (optarg && opt >= 0 && opt < CLI_MAX_OPTION && !cli_repeatable(g, opt)) {
		if (g->seen[opt]) {
			cli_option_name(g, opt, name, sizeof(name));
			g->status = cli_usage_error(g->cmd, "option '%s' given twice", name);
			return '?';
		}
		g->seen[opt] = 1;
	}
	/* the options of the image itself, the same in every command */
	if (opt == OPT_PARTITION) {
		cli_partition_arg = optarg;
		goto again;
	}
	return opt;
}

int cli_flush_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	cli_error(errno ? errno : EIO, "while writing to standard output");
	return -1;
}

int cli_normalize_path(char *path)
{
	char *r = path, *w = path;
	int dir = 0; /* the path as typed names a directory: "/d/", "/d/.", "/d/.." */

	if (path[0] != '/')
		return -1;
	while (*r) {
		size_t len;

		while (*r == '/')
			r++;
		if (!*r) {
			dir = 1;
			break;
		}
		len = strcspn(r, "/");
		dir = 0;
		if (len == 1 && r[0] == '.') {
			r++;
			dir = 1;
			continue;
		}
		if (len == 2 && r[0] == '.' && r[1] == '.') {
			/* back over the last component written; "/.." is "/" */
			while (w > path && *--w != '/')
				;
			r += 2;
			dir = 1;
			continue;
		}
		*w++ = '/';
		memmove(w, r, len);
		w += len;
		r += len;
	}
	if (w == path || dir)
		*w++ = '/';
	*w = '\0';
	return 0;
}

int cli_image_paths(const struct cli_command *cmd, char **paths, int n)
{
	for (int i = 0; i < n; i++)
		if (cli_normalize_path(paths[i]))
			return cli_usage_error(cmd, CLI_MSG_RELATIVE, cli_name(paths[i]));
	return 0;
}

int cli_image_operands(const struct cli_command *cmd, int argc, char *argv[], const char **image,
		       char ***paths, int *npaths)
{
	char why[256];

	if (optind >= argc)
		return cli_usage_error(cmd, "no IMAGE given");
	*image = argv[optind];
	if (!cli_disk_name_valid(*image, why, sizeof(why)))
		return cli_usage_error(cmd, "invalid IMAGE '%s'%s", cli_name(*image), why);
	*paths = argv + optind + 1;
	*npaths = argc - optind - 1;
	return 0;
}

void cli_format_digest(unsigned int alg, const uint8_t *digest, char *out)
{
	const struct e2verity_hash_alg *a = e2verity_hash_alg_by_num(alg);
	size_t len = strlen(a->name);

	memcpy(out, a->name, len);
	out[len] = ':';
	cli_bin2hex(digest, a->digest_size, out + len + 1);
}

unsigned int cli_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > CLI_DEFAULT_THREADS_MAX ? CLI_DEFAULT_THREADS_MAX : n;
}

int cli_parse_u64(const char *arg, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (arg[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* a power of 2 from @min to @max */
static int cli_parse_block_size(const char *arg, uint64_t min, uint64_t max, unsigned int *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, max, &v) || v < min || (v & (v - 1)))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_tree_option(int opt, const char *arg, struct cli_tree_opts *t)
{
	const struct e2verity_hash_alg *alg;
	int n;

	switch (opt) {
	case OPT_HASH_ALG:
		alg = e2verity_hash_alg_by_name(arg);
		if (!alg) {
			fprintf(stderr, "%s: unknown hash algorithm '%s' (known: sha256 sha512)\n",
				cli_prog, arg);
			return -1;
		}
		t->params.hash_alg = alg->num;
		return 1;
	case OPT_BLOCK_SIZE:
		/* the lower bound of a host digest's depends on --hash-alg: cli_tree_validate() */
		if (t->params.flags & E2VERITY_PARAMS_HOST_DIGEST) {
			if (!cli_parse_block_size(arg, 1, E2VERITY_HOST_MAX_BLOCK_SIZE,
						  &t->params.block_size))
				return 1;
			fprintf(stderr,
				"%s: invalid block size '%s': must be a power of 2 up to %u\n",
				cli_prog, arg, E2VERITY_HOST_MAX_BLOCK_SIZE);
			return -1;
		}
		if (cli_parse_block_size(arg, E2VERITY_MIN_BLOCK_SIZE, E2VERITY_MAX_BLOCK_SIZE,
					 &t->params.block_size)) {
			fprintf(stderr,
				"%s: invalid block size '%s': must be a power of 2 from %d to %d\n",
				cli_prog, arg, E2VERITY_MIN_BLOCK_SIZE, E2VERITY_MAX_BLOCK_SIZE);
			return -1;
		}
		return 1;
	case OPT_SALT:
		n = cli_hex2bin(arg, t->salt, sizeof(t->salt));
		if (n < 0) {
			fprintf(stderr, "%s: invalid salt '%s': must be hex, at most %d bytes\n",
				cli_prog, arg, E2VERITY_MAX_SALT_SIZE);
			return -1;
		}
		t->params.salt = t->salt;
		t->params.salt_size = n;
		return 1;
	case OPT_OUT_MERKLE_TREE:
		t->out_merkle_tree = arg;
		return 1;
	case OPT_OUT_DESCRIPTOR:
		t->out_descriptor = arg;
		return 1;
	}
	return 0;
}

int cli_tree_validate(const struct cli_command *cmd, struct cli_tree_opts *t)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(
		t->params.hash_alg ? t->params.hash_alg : E2VERITY_HASH_SHA256);

	/* a tree block holds two hashes at least (libfsverity's rule): say the bound */
	if (alg && t->params.block_size && t->params.block_size < 2 * alg->digest_size)
		return cli_usage_error(cmd,
				       "invalid block size '%u': too small for %s, at least %u",
				       t->params.block_size, alg->name, 2 * alg->digest_size);
	if (e2verity_params_validate(&t->params))
		return cli_usage_error(cmd, "invalid tree parameters");
	return 0;
}

int cli_parse_threads(const char *arg, unsigned int *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, CLI_THREADS_MAX, &v) || v < 1)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_min_kernel(const char *arg, struct cli_kernel *k)
{
	unsigned long major, minor, page = 4096;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	errno = 0;
	major = strtoul(arg, &end, 10);
	if (errno || *end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	minor = strtoul(end + 1, &end, 10);
	if (errno || major > 255 || minor > 255)
		return -1;
	/* a patch level tells nothing more here: 6.1.0 and 6.1.158 read the same */
	if (*end == '.') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		strtoul(end + 1, &end, 10);
	}
	if (*end == ':') {
		if (!strcmp(end + 1, "4k"))
			page = 4096;
		else if (!strcmp(end + 1, "16k"))
			page = 16384;
		else if (!strcmp(end + 1, "64k"))
			page = 65536;
		else
			return -1;
	} else if (*end) {
		return -1;
	}
	k->version = E2VERITY_KERNEL_VERSION(major, minor);
	k->page_size = page;
	return 0;
}

void cli_kernel_string(unsigned int version, char *out, size_t size)
{
	snprintf(out, size, "%u.%u", version >> 16, (version >> 8) & 0xff);
}

/* ---- images -------------------------------------------------------------------- */

void cli_image_error_text(errcode_t err, const char *doing, const char *image, int writable,
			  char *out, size_t size)
{
	/* what libext2fs's codes mean for a file given as an image: said of it, the code unsaid */
	if (err == EXT2_ET_BAD_MAGIC || err == EXT2_ET_SHORT_READ) {
		snprintf(out, size, "'%s' is %s", cli_name(image),
			 err == EXT2_ET_BAD_MAGIC ? "not an ext4 filesystem image"
						  : "too short for an ext4 filesystem image");
		return;
	}
	/* the mount check is a step of opening, not a separate thing to tell apart */
	if (err == E2VERITY_ET_MOUNTED)
		doing = "opening";
	/* only a mounted image is refused for writing alone: the rest is the same either way */
	snprintf(out, size, "%s while %s '%s'%s", error_message(err), doing, cli_name(image),
		 writable && err == E2VERITY_ET_MOUNTED ? " for writing" : "");
}

const char *cli_file_kind(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_inode inode;

	if (ext2fs_read_inode(fs, ino, &inode))
		return "";
	switch (inode.i_mode & LINUX_S_IFMT) {
	case LINUX_S_IFREG:
		return "";
	case LINUX_S_IFDIR:
		return " (a directory)";
	case LINUX_S_IFLNK:
		return " (a symbolic link: name the file it points to)";
	case LINUX_S_IFCHR:
	case LINUX_S_IFBLK:
		return " (a device)";
	case LINUX_S_IFIFO:
		return " (a FIFO)";
	case LINUX_S_IFSOCK:
		return " (a socket)";
	}
	return " (an unknown file type)";
}

errcode_t cli_lookup(ext2_filsys fs, const char *image, const char *path, ext2_ino_t *ino)
{
	size_t len = strlen(path);
	struct ext2_inode inode;
	char *name;
	errcode_t err;

	if (path[0] != '/') {
		cli_error(0, CLI_MSG_RELATIVE, cli_name(path));
		return EINVAL;
	}
	/* the last component is not followed: a symlink stays a symlink */
	name = strdup(path);
	if (!name)
		return ENOMEM;
	/* "/file/" names a directory: like the kernel, a file there is refused */
	if (len > 1 && name[len - 1] == '/')
		name[len - 1] = '\0';
	err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name, ino);
	/*
	 * libext2fs reads every block of an indexed directory, the kernel
	 * only those the name's hash leads to: damage off that route fails
	 * libext2fs alone, and the file named is the one the kernel opens
	 */
	if (err && err != EXT2_ET_FILE_NOT_FOUND && err != EXT2_ET_NO_DIRECTORY &&
	    !e2verity_lookup_path(fs, name, ino, NULL))
		err = 0;
	free(name);
	if (err == EXT2_ET_FILE_NOT_FOUND || err == EXT2_ET_NO_DIRECTORY)
		err = err == EXT2_ET_NO_DIRECTORY ? ENOTDIR : ENOENT;
	if (!err && len > 1 && path[len - 1] == '/') {
		err = ext2fs_read_inode(fs, *ino, &inode);
		if (!err && !LINUX_S_ISDIR(inode.i_mode))
			err = ENOTDIR;
	}
	if (err)
		cli_error(err, "while looking up '%s' in '%s'", cli_name(path), cli_name(image));
	return err;
}
