// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_seal.c - `e2verity seal`: enable fs-verity on files inside an unmounted ext4 image */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "manifest.h"
#include "select.h"

enum {
	OPT_FILES_FROM = OPT_FIRST_PRIVATE,
	OPT_EXCLUDE,
	OPT_IMMUTABLE,
	OPT_FORCE,
	OPT_MANIFEST,
	OPT_JSON,
	OPT_SIGNATURES_FROM,
	OPT_SIGNATURE,
	OPT_CA,
};

/* a signature made elsewhere, for one selected file */
struct e2v_detached {
	uint8_t *sig;
	size_t size;
	int verified; /* @digest is what the signature was verified against */
	unsigned int alg;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
};

struct e2v_seal_cli {
	struct e2v_tree_opts tree;
	struct e2verity_seal_opts opts;
	const char *image;
	const char *undo_file;
	struct e2v_signer_opts so;
	/* detached signatures: a directory of PATH.sig files, or one file for one PATH */
	const char *sigdir, *sigfile, *cafile;
	struct e2v_detached *detached;
	size_t ndetached;
	const char *manifest; /* where each file's digest line goes, or NULL */
	int for_builtin_sig;
	enum e2v_manifest_format mformat;
	struct e2v_manifest mf; /* one entry per file, until the run succeeds */
	struct e2verity_signer *signer;
	char **paths;
	int npaths;
	const char **files_from;
	size_t nfiles_from;
	const char **excludes;
	size_t nexcludes;
	int recursive, all, dry_run, quiet, verbose, progress, null;
	/* progress display */
	struct e2v_progress bar;
	size_t index, total;
	const char *current;
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
		{ "all", no_argument, NULL, 'a' },
		{ "files-from", required_argument, NULL, OPT_FILES_FROM },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "immutable", no_argument, NULL, OPT_IMMUTABLE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "null", no_argument, NULL, '0' },
		{ "threads", required_argument, NULL, 'j' },
		{ "progress", no_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		E2V_SIGNER_LONG_OPTIONS,
		{ "manifest", required_argument, NULL, OPT_MANIFEST },
		E2V_IMAGE_LONG_OPTIONS,
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "for-builtin-sig", no_argument, NULL, OPT_FOR_BUILTIN_SIG },
		{ "signatures-from", required_argument, NULL, OPT_SIGNATURES_FROM },
		{ "signature", required_argument, NULL, OPT_SIGNATURE },
		{ "ca", required_argument, NULL, OPT_CA },
		{ NULL, 0, NULL, 0 },
	};
	static const int repeatable[] = { OPT_FILES_FROM, OPT_EXCLUDE, 0 };
	struct e2v_getopt g;
	int opt, r;

	c->tree.params.threads = e2v_default_threads();
	c->so.embed = -1;
	e2v_getopt_init(&g, cmd, argc, argv, "raz:j:pqvn0", longopts);
	g.repeatable = repeatable;
	while ((opt = e2v_getopt(&g)) != -1) {
		r = e2v_parse_tree_option(opt, optarg, &c->tree);
		if (r < 0)
			return e2v_usage_error(cmd, NULL);
		if (r > 0) {
			if (opt == OPT_OUT_MERKLE_TREE || opt == OPT_OUT_DESCRIPTOR)
				return e2v_usage_error(cmd, "--out-merkle-tree and "
							    "--out-descriptor belong to digest");
			continue;
		}
		if (e2v_parse_signer_option(opt, optarg, &c->so))
			continue;
		switch (opt) {
		case 'r':
			c->recursive = 1;
			break;
		case 'a':
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
			c->dry_run = 1;
			break;
		case '0':
			c->null = 1;
			break;
		case 'z':
			c->undo_file = optarg;
			break;
		case 'j':
			if (e2v_parse_threads(optarg, &c->tree.params.threads))
				return e2v_usage_error(cmd, "invalid thread count '%s' (1 to %d)",
						       optarg, E2V_THREADS_MAX);
			break;
		case 'p':
			c->progress = 1;
			break;
		case 'q':
			c->quiet = 1;
			break;
		case 'v':
			c->verbose = 1;
			break;
		case OPT_MANIFEST:
			c->manifest = optarg;
			break;
		case OPT_COMPACT:
			c->mformat = E2V_MANIFEST_COMPACT;
			break;
		case OPT_JSON:
			c->mformat = E2V_MANIFEST_JSON;
			break;
		case OPT_FOR_BUILTIN_SIG:
			c->for_builtin_sig = 1;
			break;
		case OPT_SIGNATURES_FROM:
			c->sigdir = optarg;
			break;
		case OPT_SIGNATURE:
			c->sigfile = optarg;
			break;
		case OPT_CA:
			c->cafile = optarg;
			break;
		default:
			return g.status ? g.status : e2v_usage_error(cmd, NULL);
		}
	}
	if (optind >= argc)
		return e2v_usage_error(cmd, "no IMAGE given");
	c->image = argv[optind++];
	c->paths = argv + optind;
	c->npaths = argc - optind;
	if (!c->npaths && !c->all && !c->nfiles_from)
		return e2v_usage_error(cmd, "no PATH given (or -a, --files-from)");
	r = e2v_image_paths(cmd, c->paths, c->npaths);
	if (r)
		return r;
	if (c->dry_run && c->undo_file)
		return e2v_usage_error(cmd, "-z has nothing to undo in a dry run");
	/* the manifest owns standard output then */
	if (c->manifest && strcmp(c->manifest, "-") == 0)
		c->quiet = 1;
	if (c->for_builtin_sig && !c->manifest)
		return e2v_usage_error(cmd, "--for-builtin-sig needs --manifest");
	if (c->mformat != E2V_MANIFEST_TEXT && !c->manifest)
		return e2v_usage_error(cmd, "--compact and --json need --manifest");
	if ((c->so.key_pass || c->so.embed >= 0) && !c->so.keyfile)
		return e2v_usage_error(cmd, "--key-pass and --[no-]embed-cert need --key");
	if (c->sigdir && c->sigfile)
		return e2v_usage_error(cmd, "--signatures-from or --signature, not both");
	if ((c->sigdir || c->sigfile) && c->so.keyfile)
		return e2v_usage_error(cmd, "--key signs here; --signatures-from and --signature "
					    "bring signatures made elsewhere");
	if (c->sigfile && (c->npaths != 1 || c->recursive || c->all || c->nfiles_from))
		return e2v_usage_error(cmd, "--signature is for exactly one PATH");
	if (c->so.certfile && !c->so.keyfile && !c->sigdir && !c->sigfile)
		return e2v_usage_error(cmd, "--cert needs --key, --signatures-from or --signature");
	if (c->cafile && !c->sigdir && !c->sigfile)
		return e2v_usage_error(cmd, "--ca needs --signatures-from or --signature");
	if (e2verity_params_validate(&c->tree.params))
		return e2v_usage_error(cmd, "invalid tree parameters");
	c->opts.params = c->tree.params;
	e2v_progress_init(&c->bar, c->progress && !c->quiet, -1, c->image);
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

	*doing = NULL;
	c->so.quiet = c->quiet;
	err = e2v_load_signer(&c->so, &c->signer);
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

/*
 * The seal's signer for detached signatures: the bytes read for the file being
 * sealed.  The digest is the one the signature was verified against, or the
 * image changed under us.
 */
static errcode_t e2v_detached_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
				 size_t *sig_size)
{
	struct e2v_seal_cli *c = ctx;
	const struct e2v_detached *d;

	if (c->index >= c->ndetached)
		return E2VERITY_ET_SIGN;
	d = &c->detached[c->index];
	if (d->verified && (d->alg != alg ||
			    memcmp(d->digest, digest, e2verity_hash_alg_by_num(alg)->digest_size)))
		return E2VERITY_ET_SIG_INVALID;
	*sig = malloc(d->size);
	if (!*sig)
		return E2VERITY_ET_NO_MEMORY;
	memcpy(*sig, d->sig, d->size);
	*sig_size = d->size;
	return 0;
}

/* Reads one signature file whole; a file larger than any signature is refused unread. */
static errcode_t e2v_read_sig(const char *path, struct e2v_detached *d)
{
	uint8_t *buf = NULL;
	size_t n = 0;
	ssize_t r;
	errcode_t err = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	buf = malloc(E2VERITY_MAX_SIGNATURE_SIZE + 1);
	if (!buf) {
		close(fd);
		return ENOMEM;
	}
	while (n <= E2VERITY_MAX_SIGNATURE_SIZE) {
		r = read(fd, buf + n, E2VERITY_MAX_SIGNATURE_SIZE + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	if (!err && n > E2VERITY_MAX_SIGNATURE_SIZE)
		err = E2VERITY_ET_SIG_TOO_LARGE;
	if (!err)
		err = e2verity_signature_parse(buf, n);
	if (err) {
		free(buf);
		return err;
	}
	d->sig = buf;
	d->size = n;
	return 0;
}

/* DIR/<path inside the image without its leading '/'>.sig, or the one --signature file */
static char *e2v_sig_path(const struct e2v_seal_cli *c, const char *path)
{
	char *p;

	if (c->sigfile)
		return strdup(c->sigfile);
	while (*path == '/')
		path++;
	if (asprintf(&p, "%s/%s.sig", c->sigdir, path) < 0)
		return NULL;
	return p;
}

/*
 * Reads every file's signature before the pre-flight, whose space check
 * needs the largest.  Every missing or malformed one is reported.
 */
static int e2v_detached_load(struct e2v_seal_cli *c, const struct e2v_selection *sel)
{
	unsigned int bad = 0;
	size_t max = 0;
	errcode_t err;

	c->detached = calloc(sel->n ? sel->n : 1, sizeof(*c->detached));
	if (!c->detached) {
		e2v_error(ENOMEM, "while reading signatures");
		return E2V_EXIT_FAILURE;
	}
	c->ndetached = sel->n;
	for (size_t i = 0; i < sel->n; i++) {
		char *path = e2v_sig_path(c, sel->v[i].path);

		err = path ? e2v_read_sig(path, &c->detached[i]) : ENOMEM;
		if (err) {
			e2v_error(err, "while reading the signature '%s' of '%s'",
				  path ? path : "?", sel->v[i].path);
			bad++;
		} else if (c->detached[i].size > max) {
			max = c->detached[i].size;
		}
		free(path);
	}
	if (bad)
		return E2V_EXIT_FAILURE;
	c->opts.sign = e2v_detached_cb;
	c->opts.sign_ctx = c;
	c->opts.sig_size_max = max;
	return E2V_EXIT_OK;
}

/*
 * With --cert or --ca, each signature is verified against its file's digest,
 * hashed from the read-only image now: one bad signature and nothing is
 * written.  Every bad one is reported.
 */
static int e2v_detached_verify(struct e2v_seal_cli *c, ext2_filsys fs,
			       const struct e2v_selection *sel,
			       const struct e2verity_seal_plan *plans)
{
	struct e2verity_result r;
	unsigned int bad = 0;
	errcode_t err;

	if (!c->so.certfile && !c->cafile)
		return E2V_EXIT_OK;
	if (c->opts.params.threads > 1) {
		err = e2verity_workers_new(c->opts.params.threads, &c->opts.params.workers);
		if (err) {
			e2v_error(err, "while starting hashing threads for '%s'", c->image);
			return E2V_EXIT_FAILURE;
		}
	}
	for (size_t i = 0; i < sel->n; i++) {
		struct e2v_detached *d = &c->detached[i];
		char *path;

		if (plans[i].action == E2VERITY_SEAL_SKIP)
			continue;
		err = e2verity_seal_digest(fs, sel->v[i].ino, &c->opts, &r);
		if (err) {
			e2v_error(err, "while hashing '%s'", sel->v[i].path);
			bad++;
			continue;
		}
		err = e2verity_verify_signature(r.desc.hash_algorithm, r.digest, d->sig, d->size,
						c->so.certfile, c->cafile);
		if (err) {
			path = e2v_sig_path(c, sel->v[i].path);
			e2v_error(err, "while verifying the signature '%s' of '%s'",
				  path ? path : "?", sel->v[i].path);
			free(path);
			bad++;
			/* a CA or certificate that cannot be read fails every file alike */
			if (err == E2VERITY_ET_CA_LOAD || err == E2VERITY_ET_CERT_LOAD || err < 256)
				break;
			continue;
		}
		d->verified = 1;
		d->alg = r.desc.hash_algorithm;
		memcpy(d->digest, r.digest, sizeof(d->digest));
	}
	e2verity_workers_free(c->opts.params.workers);
	c->opts.params.workers = NULL;
	return bad ? E2V_EXIT_FAILURE : E2V_EXIT_OK;
}

static void e2v_seal_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct e2v_seal_cli *c = ctx;
	char label[256];

	snprintf(label, sizeof(label), "[%zu/%zu] %s", c->index + 1, c->total, c->current);
	e2v_progress_update(&c->bar, done, total, label);
}

static void e2v_print_digest(const struct e2v_seal_cli *c, unsigned int alg, const uint8_t *digest,
			     const char *path)
{
	if (!c->quiet)
		e2v_digest_line(stdout, alg, digest, path, 0);
}

/* Keeps one file's digest for the manifest, written only when all went well. */
static int e2v_seal_manifest_add(struct e2v_seal_cli *c, ext2_ino_t ino, const char *path,
				 const struct e2verity_descriptor *desc, const uint8_t *digest)
{
	struct e2v_manifest_entry *e;

	if (!c->manifest)
		return 0;
	if (e2v_manifest_add(&c->mf, path, ino)) {
		e2v_error(ENOMEM, "while writing the manifest '%s'", c->manifest);
		return -1;
	}
	e = &c->mf.v[c->mf.n - 1];
	e->m.desc = *desc;
	e->m.digest_size = e2verity_hash_alg_by_num(desc->hash_algorithm)->digest_size;
	memcpy(e->m.digest, digest, e->m.digest_size);
	return 0;
}

/*
 * Every name of the files, sorted (a hard-linked file under each of its
 * names), from the image as it now is.  The lock this process holds keeps
 * anyone else out; a second lock of our own would only wait for ourselves.
 */
static errcode_t e2v_seal_manifest_text(struct e2v_seal_cli *c, char **buf, size_t *len)
{
	struct e2v_manifest all = { 0 };
	struct e2v_image img;
	FILE *f = NULL;
	errcode_t err;

	err = e2v_image_open(&img, c->image, E2V_IMAGE_SHARED | E2V_IMAGE_QUIET, NULL);
	if (!err)
		err = e2v_manifest_names(img.fs, c->image, &c->mf, &all);
	if (err)
		goto out;
	f = open_memstream(buf, len);
	if (!f) {
		err = errno;
		goto out;
	}
	e2v_manifest_write(f, c->mformat, c->for_builtin_sig, c->image, &all);
	if (fclose(f))
		err = errno ? errno : ENOMEM;
out:
	e2v_manifest_free(&all);
	e2v_image_close(&img);
	return err;
}

/* Writes the manifest ("-": standard output); it appears whole or not at all. */
static int e2v_seal_manifest_write(struct e2v_seal_cli *c)
{
	struct e2v_outfile out;
	char *buf = NULL;
	size_t len = 0;
	errcode_t err;

	if (!c->manifest)
		return E2V_EXIT_OK;
	err = e2v_seal_manifest_text(c, &buf, &len);
	if (err) {
		e2v_error(err, "while writing the manifest '%s'", c->manifest);
		free(buf);
		return E2V_EXIT_FAILURE;
	}
	if (strcmp(c->manifest, "-") == 0) {
		if (fwrite(buf, 1, len, stdout) != len)
			err = errno ? errno : EIO;
		free(buf);
		if (err) {
			e2v_error(err, "while writing to standard output");
			return E2V_EXIT_FAILURE;
		}
		return E2V_EXIT_OK;
	}
	err = e2v_outfile_open(&out, c->manifest);
	if (!err)
		err = e2v_write_all(out.fd, buf, len, 0);
	if (!err)
		err = e2v_outfile_commit(&out);
	e2v_outfile_abort(&out);
	free(buf);
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
		} else if (e2v_seal_manifest_add(c, sel->v[i].ino, sel->v[i].path, &r.desc,
						 r.digest)) {
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

	err = e2v_select_init(sel, fs, c->image);
	if (err) {
		e2v_error(err, "while reading '%s'", c->image);
		return E2V_EXIT_FAILURE;
	}
	sel->excludes = c->excludes;
	sel->nexcludes = c->nexcludes;
	sel->recursive = c->recursive;
	sel->verbose = c->verbose;
	sel->verb = "seals";
	for (int i = 0; !err && i < c->npaths; i++)
		err = e2v_select_path(sel, c->paths[i]);
	for (size_t i = 0; !err && i < c->nfiles_from; i++)
		err = e2v_select_files_from(sel, c->files_from[i], c->null);
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

/*
 * A transaction is committed before a file this large, so that an
 * interruption while it is hashed loses only its own work ...
 */
#define E2V_TXN_BIG_FILE (64ULL << 20)
/* ... and once this much data was hashed, or the journal is this close to full */
#define E2V_TXN_MAX_BYTES (256ULL << 20)
#define E2V_TXN_MIN_ROOM 256

/* what the files sealed in the open transaction will print once it commits */
struct e2v_seal_pending {
	size_t index;
	struct e2verity_seal_result res;
};

struct e2v_seal_run {
	struct e2v_seal_pending *pending;
	size_t npending;
	size_t sealed;	/* committed */
	uint64_t bytes; /* hashed since the last commit */
};

static errcode_t e2v_seal_report(struct e2v_seal_cli *c, const struct e2v_selection *sel,
				 const struct e2v_seal_pending *p, unsigned int bs)
{
	const char *path = sel->v[p->index].path;

	e2v_print_digest(c, p->res.desc.hash_algorithm, p->res.digest, path);
	if (e2v_seal_manifest_add(c, sel->v[p->index].ino, path, &p->res.desc, p->res.digest))
		return ENOMEM;
	if (p->res.action == E2VERITY_SEAL_SKIP) {
		if (!c->quiet)
			fprintf(stderr,
				"%s: '%s' is already sealed with these parameters; skipped\n",
				e2v_prog, path);
	} else if (c->verbose) {
		e2v_seal_verbose(path, &p->res, bs);
	}
	return 0;
}

/* Commits the open transaction; only then are its files reported as sealed. */
static errcode_t e2v_seal_commit(struct e2v_seal_cli *c, const struct e2v_selection *sel,
				 struct e2v_image *img, struct e2v_seal_run *run)
{
	errcode_t err = e2v_image_commit(img);

	if (err) {
		e2v_error(err, "while %s '%s'", img->doing, img->what);
		return err;
	}
	/* e2v_seal_manifest_add() says what failed */
	for (size_t i = 0; i < run->npending && !err; i++)
		err = e2v_seal_report(c, sel, &run->pending[i], img->fs->blocksize);
	run->sealed += run->npending;
	run->npending = 0;
	run->bytes = 0;
	return err;
}

/* The writing phase; the pre-flight has passed. */
static int e2v_seal_write(struct e2v_seal_cli *c, const struct e2v_selection *sel,
			  const struct e2verity_seal_plan *plans)
{
	struct e2v_seal_run run = { 0 };
	struct e2v_image img;
	ext2_ino_t *inos = NULL;
	int status = E2V_EXIT_OK;
	errcode_t err;

	run.pending = calloc(sel->n, sizeof(*run.pending));
	if (!run.pending) {
		e2v_error(ENOMEM, "while sealing files of '%s'", c->image);
		return E2V_EXIT_FAILURE;
	}
	err = e2v_image_open(&img, c->image,
			     E2V_IMAGE_WRITE |
				     (c->opts.flags & E2VERITY_SEAL_FORCE ? E2V_IMAGE_FORCE : 0) |
				     (c->quiet ? E2V_IMAGE_QUIET : 0),
			     c->undo_file);
	if (err) {
		e2v_image_report(&img, err);
		e2v_image_abandon(&img);
		e2v_image_close(&img);
		free(run.pending);
		return E2V_EXIT_FAILURE;
	}
	if (e2v_progress_active(&c->bar)) {
		c->opts.progress = e2v_seal_progress;
		c->opts.progress_ctx = c;
	}
	c->opts.cancel = &e2v_cancel;
	/* one set of hashing threads for all the files */
	if (c->opts.params.threads > 1) {
		err = e2verity_workers_new(c->opts.params.threads, &c->opts.params.workers);
		if (err) {
			e2v_error(err, "while starting hashing threads for '%s'", c->image);
			status = E2V_EXIT_FAILURE;
			goto out;
		}
	}
	/* the small files are hashed a few files ahead while this thread writes */
	inos = malloc(sel->n * sizeof(*inos));
	if (inos) {
		for (size_t i = 0; i < sel->n; i++)
			inos[i] = sel->v[i].ino;
		err = e2verity_seal_batch_new(img.fs, &c->opts, inos, sel->n, &c->opts.batch);
		if (err) {
			e2v_error(err, "while starting hashing threads for '%s'", c->image);
			status = E2V_EXIT_FAILURE;
			goto out;
		}
	}
	c->total = sel->n;
	err = 0;
	for (size_t i = 0; i < sel->n && !e2v_cancel; i++) {
		struct e2v_seal_pending *p;

		if (run.npending && plans[i].data_size >= E2V_TXN_BIG_FILE) {
			err = e2v_seal_commit(c, sel, &img, &run);
			if (err)
				break;
		}
		p = &run.pending[run.npending];
		c->index = i;
		c->current = sel->v[i].path;
		p->index = i;
		err = e2verity_seal_inode(img.fs, sel->v[i].ino, &c->opts, &p->res);
		e2v_progress_clear(&c->bar);
		if (err) {
			if (err != E2VERITY_ET_CANCELLED)
				e2v_error(err, "while sealing '%s' in '%s'", sel->v[i].path, c->image);
			break;
		}
		run.npending++;
		if (p->res.action != E2VERITY_SEAL_SKIP)
			run.bytes += p->res.desc.data_size;
		if (run.bytes >= E2V_TXN_MAX_BYTES ||
		    e2verity_txn_room(img.txn) < E2V_TXN_MIN_ROOM) {
			err = e2v_seal_commit(c, sel, &img, &run);
			if (err)
				break;
		}
	}
	/* a stop between files keeps the files done; a stop inside one drops the transaction */
	if (!err)
		err = e2v_seal_commit(c, sel, &img, &run);
	if (err) {
		/* the image keeps its last commit: the files since then are not sealed */
		e2v_image_abandon(&img);
		status = E2V_EXIT_FAILURE;
	}
	if (e2v_cancel)
		status = 128 + e2v_cancel;
	if (status != E2V_EXIT_OK && !c->quiet)
		fprintf(stderr, "%s: %s: %zu of %zu files sealed\n", e2v_prog,
			e2v_cancel ? strsignal(e2v_cancel) : "stopped", run.sealed, sel->n);
out:
	e2verity_batch_free(c->opts.batch);
	c->opts.batch = NULL;
	free(inos);
	e2verity_workers_free(c->opts.params.workers);
	c->opts.params.workers = NULL;
	err = e2v_image_close(&img);
	if (err) {
		e2v_error(err, "while %s '%s'", img.doing, img.what);
		status = status == E2V_EXIT_OK ? E2V_EXIT_FAILURE : status;
	}
	free(run.pending);
	return status;
}

/* Nothing to write: say so for the files that are sealed already. */
static void e2v_seal_report_skips(struct e2v_seal_cli *c, const struct e2v_selection *sel,
				  const struct e2verity_seal_plan *plans)
{
	for (size_t i = 0; i < sel->n; i++) {
		e2v_print_digest(c, plans[i].desc.hash_algorithm, plans[i].digest, sel->v[i].path);
		e2v_seal_manifest_add(c, sel->v[i].ino, sel->v[i].path, &plans[i].desc,
				      plans[i].digest);
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
	struct e2v_image pre = { 0 };
	ext2_filsys fs = NULL;
	int status, work = 0;
	errcode_t err;

	status = e2v_seal_parse(cmd, argc, argv, &c);
	if (status != E2V_EXIT_OK)
		goto out;
	e2v_catch_signals();
	status = E2V_EXIT_FAILURE;
	if (c.so.keyfile) {
		const char *doing;

		err = e2v_seal_signer(&c, &doing);
		if (err) {
			/* a loading error was reported where it happened */
			if (doing)
				e2v_error(err, "while %s '%s'", doing,
					  e2v_failed_file(err, c.so.keyfile, c.so.certfile));
			goto out;
		}
	}
	/* the pre-flight reads a read-only handle: a refusal cannot write a byte */
	err = e2v_image_open(&pre, c.image,
			     E2V_IMAGE_PREFLIGHT | (c.dry_run ? E2V_IMAGE_SHARED : 0) |
				     (c.opts.flags & E2VERITY_SEAL_FORCE ? E2V_IMAGE_FORCE : 0) |
				     (c.quiet ? E2V_IMAGE_QUIET : 0),
			     NULL);
	if (err) {
		e2v_image_report(&pre, err);
		goto out;
	}
	fs = pre.fs;
	err = e2verity_seal_check_fs(fs, &c.opts);
	if (err) {
		if (err == E2VERITY_ET_BLOCK_SIZE_EXCEEDS_FS)
			e2v_error(err,
				  "while checking '%s' (--block-size=%u works with Linux 6.3 "
				  "and later)",
				  c.image, fs->blocksize);
		else
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
	if (c.sigdir || c.sigfile) {
		status = e2v_detached_load(&c, &sel);
		if (status != E2V_EXIT_OK)
			goto out;
	}
	status = e2v_seal_preflight(&c, fs, &sel, plans, &work);
	if (status == E2V_EXIT_OK && c.detached)
		status = e2v_detached_verify(&c, fs, &sel, plans);
	if (status != E2V_EXIT_OK)
		goto out;
	if (c.dry_run) {
		if (c.manifest) {
			status = e2v_seal_digests(&c, fs, &sel);
			if (status == E2V_EXIT_OK)
				status = e2v_seal_manifest_write(&c);
		}
		goto out;
	}
	e2v_image_close(&pre);
	if (!work)
		e2v_seal_report_skips(&c, &sel, plans);
	else
		status = e2v_seal_write(&c, &sel, plans);
	if (status == E2V_EXIT_OK)
		status = e2v_seal_manifest_write(&c);
	if (e2v_flush_stdout())
		status = E2V_EXIT_FAILURE;
out:
	e2v_image_close(&pre);
	if (sel.seen)
		e2v_select_free(&sel);
	free(plans);
	e2v_manifest_free(&c.mf);
	for (size_t i = 0; i < c.ndetached; i++)
		free(c.detached[i].sig);
	free(c.detached);
	free(c.files_from);
	free(c.excludes);
	e2verity_signer_free(c.signer);
	return status;
}
