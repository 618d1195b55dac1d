// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_seal.c - `e2verity seal`: enable fs-verity on files inside an unmounted ext4 image */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "select.h"

enum {
	OPT_ALL = OPT_FIRST_PRIVATE,
	OPT_FILES_FROM,
	OPT_EXCLUDE,
	OPT_IMMUTABLE,
	OPT_FORCE,
	OPT_DRY_RUN,
	OPT_THREADS,
	OPT_PROGRESS,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_MANIFEST,
};

struct e2v_seal_cli {
	struct e2v_tree_opts tree;
	struct e2verity_seal_opts opts;
	const char *image;
	const char *undo_file;
	const char *keyfile, *certfile, *key_pass;
	const char *manifest; /* where each file's digest line goes, or NULL */
	int for_builtin_sig;
	FILE *manifest_f; /* the lines, in memory until the run succeeds */
	char *manifest_buf;
	size_t manifest_len;
	struct e2verity_signer *signer;
	char **paths;
	int npaths;
	const char **files_from;
	size_t nfiles_from;
	const char **excludes;
	size_t nexcludes;
	int recursive, all, dry_run, quiet, verbose, progress;
	/* progress display */
	size_t index, total;
	const char *current;
	int last_pct;
};

static int e2v_push(const char ***v, size_t *n, const char *s)
{
	const char **p = realloc(*v, (*n + 1) * sizeof(**v));

	if (!p)
		return -1;
	p[(*n)++] = s;
	*v = p;
	return 0;
}

static int e2v_seal_parse(const struct e2v_command *cmd, int argc, char *argv[],
			  struct e2v_seal_cli *c)
{
	static const struct option longopts[] = {
		E2V_TREE_LONG_OPTIONS,
		{ "all", no_argument, NULL, OPT_ALL },
		{ "files-from", required_argument, NULL, OPT_FILES_FROM },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "immutable", no_argument, NULL, OPT_IMMUTABLE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "key", required_argument, NULL, OPT_KEY },
		{ "cert", required_argument, NULL, OPT_CERT },
		{ "key-pass", required_argument, NULL, OPT_KEY_PASS },
		{ "manifest", required_argument, NULL, OPT_MANIFEST },
		{ "for-builtin-sig", no_argument, NULL, OPT_FOR_BUILTIN_SIG },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long n;
	int opt, r;

	c->tree.params.threads = e2v_default_threads();
	while ((opt = getopt_long(argc, argv, "raz:j:pqvn", longopts, NULL)) != -1) {
		r = e2v_parse_tree_option(opt, optarg, &c->tree);
		if (r < 0)
			return e2v_usage_error(cmd, NULL);
		if (r > 0) {
			if (opt == OPT_OUT_MERKLE_TREE || opt == OPT_OUT_DESCRIPTOR)
				return e2v_usage_error(cmd, "--out-merkle-tree and "
							    "--out-descriptor belong to digest");
			continue;
		}
		switch (opt) {
		case 'r':
			c->recursive = 1;
			break;
		case 'a':
		case OPT_ALL:
			c->all = 1;
			break;
		case OPT_FILES_FROM:
			if (e2v_push(&c->files_from, &c->nfiles_from, optarg))
				return e2v_usage_error(cmd, "out of memory");
			break;
		case OPT_EXCLUDE:
			if (e2v_push(&c->excludes, &c->nexcludes, optarg))
				return e2v_usage_error(cmd, "out of memory");
			break;
		case OPT_IMMUTABLE:
			c->opts.flags |= E2VERITY_SEAL_IMMUTABLE;
			break;
		case OPT_FORCE:
			c->opts.flags |= E2VERITY_SEAL_FORCE;
			break;
		case 'n':
		case OPT_DRY_RUN:
			c->dry_run = 1;
			break;
		case 'z':
			c->undo_file = optarg;
			break;
		case 'j':
		case OPT_THREADS:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 64)
				return e2v_usage_error(cmd, "invalid thread count '%s' (1 to 64)",
						       optarg);
			c->tree.params.threads = n;
			break;
		case 'p':
		case OPT_PROGRESS:
			c->progress = 1;
			break;
		case 'q':
		case OPT_QUIET:
			c->quiet = 1;
			break;
		case 'v':
		case OPT_VERBOSE:
			c->verbose = 1;
			break;
		case OPT_KEY:
			c->keyfile = optarg;
			break;
		case OPT_CERT:
			c->certfile = optarg;
			break;
		case OPT_KEY_PASS:
			c->key_pass = optarg;
			break;
		case OPT_MANIFEST:
			c->manifest = optarg;
			break;
		case OPT_FOR_BUILTIN_SIG:
			c->for_builtin_sig = 1;
			break;
		case OPT_HELP:
			e2v_usage(cmd, stdout);
			exit(E2V_EXIT_OK);
		default:
			return e2v_usage_error(cmd, NULL);
		}
	}
	if (optind >= argc)
		return e2v_usage_error(cmd, "no IMAGE given");
	c->image = argv[optind++];
	c->paths = argv + optind;
	c->npaths = argc - optind;
	if (!c->npaths && !c->all && !c->nfiles_from)
		return e2v_usage_error(cmd, "no PATH given (or -a, --files-from)");
	if (c->dry_run && c->undo_file)
		return e2v_usage_error(cmd, "-z has nothing to undo in a dry run");
	/* the manifest owns standard output then */
	if (c->manifest && strcmp(c->manifest, "-") == 0)
		c->quiet = 1;
	if (c->for_builtin_sig && !c->manifest)
		return e2v_usage_error(cmd, "--for-builtin-sig needs --manifest");
	if ((c->certfile || c->key_pass) && !c->keyfile)
		return e2v_usage_error(cmd, "--cert and --key-pass need --key");
	if (e2verity_params_validate(&c->tree.params))
		return e2v_usage_error(cmd, "invalid tree parameters");
	c->opts.params = c->tree.params;
	/* a progress line is for a person watching a terminal */
	if (c->progress && (c->quiet || !isatty(STDERR_FILENO)))
		c->progress = 0;
	return E2V_EXIT_OK;
}

/*
 * Loads the signing key before the image is touched.  The space check needs
 * the signature's size before any digest is known: one signature of a dummy
 * digest gives it (ECDSA's DER varies by a few bytes, hence the margin).
 */
static errcode_t e2v_seal_signer(struct e2v_seal_cli *c, const char **doing)
{
	uint8_t zero[E2VERITY_MAX_DIGEST_SIZE] = { 0 }, *sig = NULL;
	size_t sig_size = 0;
	errcode_t err;

	*doing = "loading";
	err = e2v_load_signer(c->keyfile, c->certfile, c->key_pass, &c->signer);
	if (err)
		return err;
	*doing = "signing with";
	err = e2verity_sign_digest(c->signer, c->opts.params.hash_alg, zero, &sig, &sig_size);
	free(sig);
	if (err)
		return err;
	c->opts.sign = e2v_sign_cb;
	c->opts.sign_ctx = c->signer;
	c->opts.sig_size_max = sig_size + 16;
	return 0;
}

/* One e2verity at a time per image: the lock lives as long as the process. */
static errcode_t e2v_lock_image(const char *image, int exclusive)
{
	int fd = open(image, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		errcode_t err = errno == EWOULDBLOCK ? E2VERITY_ET_LOCKED : errno;

		close(fd);
		return err;
	}
	return 0;
}

static void e2v_seal_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct e2v_seal_cli *c = ctx;
	int pct = total ? (int)(done * 100 / total) : 100;

	/* a terminal line per percent, not per chunk read */
	if (pct == c->last_pct)
		return;
	c->last_pct = pct;
	fprintf(stderr, "\r[%zu/%zu] %3d%% %s\033[K", c->index + 1, c->total, pct, c->current);
}

static void e2v_print_digest(const struct e2v_seal_cli *c, unsigned int alg, const uint8_t *digest,
			     const char *path)
{
	if (!c->quiet)
		e2v_digest_line(stdout, alg, digest, path, 0);
}

/* Collects one file's manifest line; the file is written only when all went well. */
static int e2v_manifest_add(struct e2v_seal_cli *c, unsigned int alg, const uint8_t *digest,
			    const char *path)
{
	if (!c->manifest)
		return 0;
	if (!c->manifest_f) {
		c->manifest_f = open_memstream(&c->manifest_buf, &c->manifest_len);
		if (!c->manifest_f) {
			e2v_error(errno, "while writing the manifest '%s'", c->manifest);
			return -1;
		}
	}
	if (e2v_digest_line(c->manifest_f, alg, digest, path, c->for_builtin_sig)) {
		e2v_error(ENOMEM, "while writing the manifest '%s'", c->manifest);
		return -1;
	}
	return 0;
}

/* Writes the manifest ("-": standard output); it appears whole or not at all. */
static int e2v_manifest_write(struct e2v_seal_cli *c)
{
	struct e2v_outfile out;
	errcode_t err;

	if (!c->manifest)
		return E2V_EXIT_OK;
	if (!c->manifest_f)
		c->manifest_f = open_memstream(&c->manifest_buf, &c->manifest_len);
	if (!c->manifest_f || fclose(c->manifest_f)) {
		c->manifest_f = NULL;
		e2v_error(ENOMEM, "while writing the manifest '%s'", c->manifest);
		return E2V_EXIT_FAILURE;
	}
	c->manifest_f = NULL;
	if (strcmp(c->manifest, "-") == 0) {
		if (fwrite(c->manifest_buf, 1, c->manifest_len, stdout) != c->manifest_len) {
			e2v_error(errno, "while writing to standard output");
			return E2V_EXIT_FAILURE;
		}
		return E2V_EXIT_OK;
	}
	err = e2v_outfile_open(&out, c->manifest);
	if (!err)
		err = e2v_write_all(out.fd, c->manifest_buf, c->manifest_len, 0);
	if (!err)
		err = e2v_outfile_commit(&out);
	e2v_outfile_abort(&out);
	if (err) {
		e2v_error(err, "while writing the manifest '%s'", c->manifest);
		return E2V_EXIT_FAILURE;
	}
	return E2V_EXIT_OK;
}

/*
 * -n --manifest: each file's digest, hashed from the image read-only, as
 * sealing would compute it.  Detached signing starts from these lines.
 */
static int e2v_seal_digests(struct e2v_seal_cli *c, ext2_filsys fs, const struct e2v_selection *sel)
{
	struct e2verity_result r;
	int status = E2V_EXIT_OK;
	errcode_t err;

	if (c->opts.params.threads > 1) {
		err = e2verity_workers_new(c->opts.params.threads, &c->opts.params.workers);
		if (err) {
			e2v_error(err, "while starting hashing threads for '%s'", c->image);
			return E2V_EXIT_FAILURE;
		}
	}
	for (size_t i = 0; i < sel->n && status == E2V_EXIT_OK; i++) {
		err = e2verity_seal_digest(fs, sel->v[i].ino, &c->opts, &r);
		if (err) {
			e2v_error(err, "while hashing '%s'", sel->v[i].path);
			status = E2V_EXIT_FAILURE;
		} else if (e2v_manifest_add(c, r.desc.hash_algorithm, r.digest, sel->v[i].path)) {
			status = E2V_EXIT_FAILURE;
		}
	}
	e2verity_workers_free(c->opts.params.workers);
	c->opts.params.workers = NULL;
	return status;
}

static void e2v_fs_warnings(const struct e2v_seal_cli *c, ext2_filsys fs)
{
	if (c->quiet)
		return;
	if (fs->blocksize != 4096)
		fprintf(stderr,
			"%s: warning: '%s' has %u-byte blocks; Linux before 6.3 refuses to mount "
			"a filesystem with fs-verity unless its block size is the page size "
			"(4096)\n",
			e2v_prog, c->image, fs->blocksize);
	if (c->opts.params.block_size != 4096)
		fprintf(stderr,
			"%s: warning: %u-byte Merkle tree blocks; Linux before 6.3 only reads "
			"4096-byte ones\n",
			e2v_prog, c->opts.params.block_size);
}

/*
 * Resolves the selection.  Paths that cannot be selected are reported and
 * counted in sel->errors; the pre-flight still judges the others, so that
 * every offending file is named in one run.  Returns 0 unless it cannot go on.
 */
static int e2v_seal_select(struct e2v_seal_cli *c, ext2_filsys fs, struct e2v_selection *sel)
{
	errcode_t err;

	err = e2v_select_init(sel, fs);
	if (err) {
		e2v_error(err, "while reading '%s'", c->image);
		return E2V_EXIT_FAILURE;
	}
	sel->excludes = c->excludes;
	sel->nexcludes = c->nexcludes;
	sel->recursive = c->recursive;
	sel->verbose = c->verbose;
	for (int i = 0; !err && i < c->npaths; i++)
		err = e2v_select_path(sel, c->paths[i]);
	for (size_t i = 0; !err && i < c->nfiles_from; i++)
		err = e2v_select_files_from(sel, c->files_from[i]);
	if (!err && c->all)
		err = e2v_select_all(sel);
	if (err) {
		/* a file list that cannot be read was reported where it failed */
		if (err == ENOMEM)
			e2v_error(err, "while selecting files in '%s'", c->image);
		return E2V_EXIT_FAILURE;
	}
	return E2V_EXIT_OK;
}

static const char *e2v_action_word(enum e2verity_seal_action a)
{
	return a == E2VERITY_SEAL_SKIP	   ? "already sealed, skip"
	       : a == E2VERITY_SEAL_RESEAL ? "reseal"
					   : "seal";
}

/*
 * The pre-flight: every file, and the space for all of them, before any byte
 * is written.  Returns 0 when sealing may go ahead.
 */
static int e2v_seal_preflight(struct e2v_seal_cli *c, ext2_filsys fs,
			      const struct e2v_selection *sel, struct e2verity_seal_plan *plans,
			      int *work)
{
	uint64_t need = 0, freed = 0, avail = ext2fs_free_blocks_count(fs->super);
	unsigned int bad = 0;
	errcode_t err;

	*work = 0;
	for (size_t i = 0; i < sel->n; i++) {
		err = e2verity_seal_prepare(fs, sel->v[i].ino, &c->opts, &plans[i]);
		if (err) {
			e2v_error(err, "while checking '%s'", sel->v[i].path);
			bad++;
			continue;
		}
		need += plans[i].blocks_needed;
		freed += plans[i].blocks_freed;
		if (plans[i].action != E2VERITY_SEAL_SKIP)
			*work = 1;
		if (c->dry_run && !c->quiet)
			printf("%s %s (%llu blocks at most)\n", e2v_action_word(plans[i].action),
			       sel->v[i].path, (unsigned long long)plans[i].blocks_needed);
	}
	if (bad || sel->errors)
		return E2V_EXIT_FAILURE;
	if (need > avail + freed) {
		e2v_error(E2VERITY_ET_NO_SPACE,
			  "while checking '%s' (%llu blocks needed, %llu free)", c->image,
			  (unsigned long long)(need - freed), (unsigned long long)avail);
		return E2V_EXIT_FAILURE;
	}
	if (c->dry_run && !c->quiet)
		printf("%zu files, %llu blocks needed, %llu free\n", sel->n,
		       (unsigned long long)need, (unsigned long long)avail);
	return E2V_EXIT_OK;
}

/* No wall-clock time goes into the image: SOURCE_DATE_EPOCH, or the last write time kept. */
static void e2v_fix_time(ext2_filsys fs)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end;
	unsigned long long t;

	fs->now = fs->super->s_wtime;
	if (sde && *sde) {
		errno = 0;
		t = strtoull(sde, &end, 10);
		if (!errno && !*end && t > 0 && (time_t)t > 0)
			fs->now = t;
	}
}

static errcode_t e2v_open_rw(struct e2v_seal_cli *c, ext2_filsys *fs)
{
	io_manager io = unix_io_manager;
	errcode_t err;

	if (c->undo_file) {
		/* like the e2fsprogs tools' -z: a fresh undo file for this run */
		if (unlink(c->undo_file) < 0 && errno != ENOENT)
			return errno;
		err = set_undo_io_backing_manager(io);
		if (!err)
			err = set_undo_io_backup_file((char *)c->undo_file);
		if (err)
			return err;
		io = undo_io_manager;
		if (!c->quiet)
			fprintf(stderr,
				"Overwriting existing filesystem; this can be undone using the "
				"command:\n    e2undo %s %s\n\n",
				c->undo_file, c->image);
	}
	err = ext2fs_open2(c->image, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS | EXT2_FLAG_EXCLUSIVE, 0,
			   0, io, fs);
	if (err)
		return err;
	e2v_fix_time(*fs);
	err = ext2fs_read_bitmaps(*fs);
	if (err)
		ext2fs_free(*fs);
	return err;
}

static void e2v_seal_verbose(const char *path, const struct e2verity_seal_result *r,
			     unsigned int bs)
{
	fprintf(stderr,
		"%s: %s: %s, %llu bytes, %u-byte tree blocks, metadata at blocks %llu-%llu, "
		"%llu blocks allocated, %llu freed%s%s\n",
		e2v_prog, path, r->action == E2VERITY_SEAL_RESEAL ? "resealed" : "sealed",
		(unsigned long long)r->desc.data_size, 1u << r->desc.log_blocksize,
		(unsigned long long)(r->layout.merkle_pos / bs),
		(unsigned long long)(r->layout.end / bs - 1),
		(unsigned long long)r->blocks_allocated, (unsigned long long)r->blocks_freed,
		r->tail_zeroed ? ", stale bytes after EOF zeroed" : "",
		r->inline_moved ? ", inline data moved to a block" : "");
}

/* The writing phase; the pre-flight has passed. */
static int e2v_seal_write(struct e2v_seal_cli *c, const struct e2v_selection *sel)
{
	struct e2verity_seal_result res;
	ext2_filsys fs = NULL;
	ext2_ino_t *inos = NULL;
	int status = E2V_EXIT_OK;
	errcode_t err;

	err = e2v_open_rw(c, &fs);
	if (err) {
		e2v_error(err, "while opening '%s' for writing", c->image);
		return E2V_EXIT_FAILURE;
	}
	if (c->progress) {
		c->opts.progress = e2v_seal_progress;
		c->opts.progress_ctx = c;
	}
	/* one set of hashing threads for all the files */
	if (c->opts.params.threads > 1) {
		err = e2verity_workers_new(c->opts.params.threads, &c->opts.params.workers);
		if (err) {
			e2v_error(err, "while starting hashing threads for '%s'", c->image);
			ext2fs_close_free(&fs);
			return E2V_EXIT_FAILURE;
		}
	}
	/* the small files are hashed a few files ahead while this thread writes */
	inos = malloc(sel->n * sizeof(*inos));
	if (inos) {
		for (size_t i = 0; i < sel->n; i++)
			inos[i] = sel->v[i].ino;
		err = e2verity_seal_batch_new(fs, &c->opts, inos, sel->n, &c->opts.batch);
		if (err)
			e2v_error(err, "while starting hashing threads for '%s'", c->image);
	}
	c->total = sel->n;
	for (size_t i = 0; !err && i < sel->n; i++) {
		c->index = i;
		c->current = sel->v[i].path;
		c->last_pct = -1;
		err = e2verity_seal_inode(fs, sel->v[i].ino, &c->opts, &res);
		if (c->progress)
			fputs("\r\033[K", stderr);
		if (err) {
			e2v_error(err, "while sealing '%s'", sel->v[i].path);
			status = E2V_EXIT_FAILURE;
			break;
		}
		e2v_print_digest(c, res.desc.hash_algorithm, res.digest, sel->v[i].path);
		if (e2v_manifest_add(c, res.desc.hash_algorithm, res.digest, sel->v[i].path)) {
			status = E2V_EXIT_FAILURE;
			break;
		}
		if (res.action == E2VERITY_SEAL_SKIP) {
			if (!c->quiet)
				fprintf(stderr,
					"%s: '%s' is already sealed with these parameters; "
					"skipped\n",
					e2v_prog, sel->v[i].path);
		} else if (c->verbose) {
			e2v_seal_verbose(sel->v[i].path, &res, fs->blocksize);
		}
	}
	if (err)
		status = E2V_EXIT_FAILURE;
	e2verity_batch_free(c->opts.batch);
	c->opts.batch = NULL;
	free(inos);
	e2verity_workers_free(c->opts.params.workers);
	c->opts.params.workers = NULL;
	/* even after a failure: the bitmaps and counts of what was done go to disk */
	err = ext2fs_close_free(&fs);
	if (err) {
		e2v_error(err, "while closing '%s'", c->image);
		status = E2V_EXIT_FAILURE;
	}
	return status;
}

/* Nothing to write: say so for the files that are sealed already. */
static void e2v_seal_report_skips(struct e2v_seal_cli *c, const struct e2v_selection *sel,
				  const struct e2verity_seal_plan *plans)
{
	for (size_t i = 0; i < sel->n; i++) {
		e2v_print_digest(c, plans[i].desc.hash_algorithm, plans[i].digest, sel->v[i].path);
		e2v_manifest_add(c, plans[i].desc.hash_algorithm, plans[i].digest, sel->v[i].path);
		if (!c->quiet)
			fprintf(stderr,
				"%s: '%s' is already sealed with these parameters; skipped\n",
				e2v_prog, sel->v[i].path);
	}
}

int cmd_seal(const struct e2v_command *cmd, int argc, char *argv[])
{
	struct e2v_seal_cli c = { 0 };
	struct e2v_selection sel = { 0 };
	struct e2verity_seal_plan *plans = NULL;
	ext2_filsys fs = NULL;
	int mount_flags = 0, status, work = 0;
	errcode_t err;

	status = e2v_seal_parse(cmd, argc, argv, &c);
	if (status != E2V_EXIT_OK)
		goto out;
	status = E2V_EXIT_FAILURE;
	if (c.keyfile) {
		const char *doing;

		err = e2v_seal_signer(&c, &doing);
		if (err) {
			e2v_error(err, "while %s '%s'", doing,
				  e2v_failed_file(err, c.keyfile, c.certfile));
			goto out;
		}
	}
	err = e2v_lock_image(c.image, !c.dry_run);
	if (err) {
		e2v_error(err, "while locking '%s'", c.image);
		goto out;
	}
	err = ext2fs_check_if_mounted(c.image, &mount_flags);
	if (!err && (mount_flags & EXT2_MF_MOUNTED))
		err = E2VERITY_ET_MOUNTED;
	if (err) {
		e2v_error(err, "while checking '%s'", c.image);
		goto out;
	}

	/* the pre-flight reads a read-only handle: a refusal cannot write a byte */
	err = ext2fs_open2(c.image, NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (err) {
		e2v_error(err, "while opening '%s'", c.image);
		goto out;
	}
	err = e2verity_seal_check_fs(fs, &c.opts);
	if (err) {
		e2v_error(err, "while checking '%s'", c.image);
		goto out;
	}
	e2v_fs_warnings(&c, fs);
	status = e2v_seal_select(&c, fs, &sel);
	if (status != E2V_EXIT_OK)
		goto out;
	if (!sel.n && !sel.errors) {
		/* -r on an empty directory, or everything excluded: nothing to do is no failure */
		if (!c.quiet)
			fprintf(stderr, "%s: no regular file selected in '%s'\n", e2v_prog,
				c.image);
		status = E2V_EXIT_OK;
		goto out;
	}
	plans = calloc(sel.n ? sel.n : 1, sizeof(*plans));
	if (!plans) {
		e2v_error(ENOMEM, "while checking '%s'", c.image);
		status = E2V_EXIT_FAILURE;
		goto out;
	}
	status = e2v_seal_preflight(&c, fs, &sel, plans, &work);
	if (status != E2V_EXIT_OK)
		goto out;
	if (c.dry_run) {
		if (c.manifest) {
			status = e2v_seal_digests(&c, fs, &sel);
			if (status == E2V_EXIT_OK)
				status = e2v_manifest_write(&c);
		}
		goto out;
	}
	ext2fs_close_free(&fs);
	if (!work)
		e2v_seal_report_skips(&c, &sel, plans);
	else
		status = e2v_seal_write(&c, &sel);
	if (status == E2V_EXIT_OK)
		status = e2v_manifest_write(&c);
	if (fflush(stdout) || ferror(stdout)) {
		e2v_error(errno, "while writing to standard output");
		status = E2V_EXIT_FAILURE;
	}
out:
	if (fs)
		ext2fs_close_free(&fs);
	if (sel.seen)
		e2v_select_free(&sel);
	free(plans);
	if (c.manifest_f)
		fclose(c.manifest_f);
	free(c.manifest_buf);
	free(c.files_from);
	free(c.excludes);
	e2verity_signer_free(c.signer);
	return status;
}
