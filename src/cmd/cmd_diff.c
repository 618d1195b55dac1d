// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_diff.c - `e2verity diff`: the sealed files two builds differ by, from their descriptors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd_diff.h"
#include "cli/cancel.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "image/image.h"
#include "output/json.h"
#include "output/manifest.h"
#include "output/manifest_read.h"
#include "output/names.h"

/* diff(1)'s exit statuses */
enum {
	CLI_DIFF_SAME = 0,
	CLI_DIFF_DIFFERENT = 1,
	CLI_DIFF_TROUBLE = 2,
};

enum {
	OPT_JSON = OPT_FIRST_PRIVATE,
	OPT_VERIFY,
};

/* a path of one side that cannot be compared: not measured, or its data fails the check */
struct cli_diff_fault {
	const char *side; /* "old" or "new" */
	char *path;
	char *why;
};

struct cli_diff_run {
	const char *names[2]; /* OLD, NEW */
	int json, verbose, quiet, verify;
	struct e2verity_threads threads; /* for --verify */
	struct cli_listing side[2];
	struct cli_diff_fault *faults;
	size_t nfaults, cap_faults;
	size_t added, removed, changed, unchanged;
};

/*
 * A manifest or an image?  Standard input, and a file that starts (after
 * white space) with '{', "sha256:", "sha512:" or a formatted digest's hex,
 * is a manifest; anything else is opened as an image.
 */
static int cli_is_manifest(const char *name)
{
	char buf[64] = "";
	const char *s = buf;
	ssize_t n;
	int fd;

	if (strcmp(name, "-") == 0)
		return 1;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0;
	buf[n] = '\0';
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return *s == '{' || strncmp(s, "sha256:", 7) == 0 || strncmp(s, "sha512:", 7) == 0 ||
	       strncmp(s, "46535665726974", 14) == 0 /* "FSVerit" */;
}

static int cli_diff_fault(struct cli_diff_run *c, int side, const char *path, const char *why)
{
	struct cli_diff_fault *f;

	if (cli_grow((void **)&c->faults, &c->cap_faults, c->nfaults, sizeof(*f)))
		return -1;
	f = &c->faults[c->nfaults++];
	f->side = side ? "new" : "old";
	f->path = strdup(path);
	f->why = strdup(why);
	return f->path && f->why ? 0 : -1;
}

/* the first error of one file's check */
struct cli_first_error {
	struct e2verity_finding f;
	int found;
};

static errcode_t cli_first_error(void *ctx, const struct e2verity_finding *f)
{
	struct cli_first_error *fe = ctx;

	if (f->problem->severity == E2VERITY_SEV_ERROR && !fe->found) {
		fe->f = *f;
		fe->found = 1;
	}
	return 0;
}

/*
 * --verify: the data of each sealed inode hashed against its descriptor; the
 * names of one that fails cannot be compared.  Returns 0 or an error that
 * stops the run; *@failed marks the inodes.
 */
static errcode_t cli_diff_verify(struct cli_diff_run *c, ext2_filsys fs, struct cli_manifest *mf,
				 int side, int *failed)
{
	struct cli_first_error first;
	struct e2verity_check_opts o = { 0 };
	char msg[1024], why[1200];
	errcode_t err = 0;

	o.threads = c->threads;
	o.finding = cli_first_error;
	o.ctx = &first;
	for (size_t i = 0; i < mf->n && !err && !cli_cancel; i++) {
		struct e2verity_check_stats st = { 0 };

		if (mf->v[i].err)
			continue;
		/* the names of one inode are next to each other only by chance: each checked */
		first.found = 0;
		err = e2verity_check_inode(fs, mf->v[i].ino, &o, &st);
		if (err || !first.found)
			continue;
		failed[i] = 1;
		e2verity_finding_format(&first.f, msg, sizeof(msg));
		snprintf(why, sizeof(why), "%s: %s", first.f.problem->id, msg);
		fprintf(stderr, "%s: '%s' in '%s' fails verification: %s\n", cli_prog,
			cli_name(mf->v[i].path), cli_name(c->names[side]), why);
		if (cli_diff_fault(c, side, mf->v[i].path, why))
			err = ENOMEM;
	}
	return err ? err : cli_cancel ? E2VERITY_ET_CANCELLED : 0;
}

/* An image as a listing: every name of every sealed file, with its stored digest */
static int cli_diff_image(struct cli_diff_run *c, int side)
{
	struct cli_listing *l = &c->side[side];
	const char *image = c->names[side];
	ext2fs_inode_bitmap want = NULL;
	struct cli_manifest mf = { 0 };
	ext2_filsys fs = NULL;
	ext2_ino_t *inos = NULL;
	int *failed = NULL, ret = -1;
	size_t n, cap = 0;
	errcode_t err;

	memset(l, 0, sizeof(*l));
	l->name = image;
	if (cli_open_image(image, 0, &fs))
		return -1;
	err = e2verity_list_verity_inodes(fs, &inos, &n);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "sealed inodes", &want);
	for (size_t i = 0; !err && i < n; i++)
		ext2fs_mark_inode_bitmap2(want, inos[i]);
	if (!err)
		err = cli_manifest_collect(fs, image, want, &mf);
	if (err) {
		cli_error(err, "while listing the sealed files of '%s'", cli_name(image));
		goto out;
	}
	cli_manifest_measure(fs, &mf, 0);
	failed = calloc(mf.n + 1, sizeof(*failed));
	if (!failed) {
		cli_error(ENOMEM, "while reading '%s'", cli_name(image));
		goto out;
	}
	if (c->verify) {
		err = cli_diff_verify(c, fs, &mf, side, failed);
		if (err) {
			if (err != E2VERITY_ET_CANCELLED)
				cli_error(err, "while verifying the files of '%s'",
					  cli_name(image));
			goto out;
		}
	}
	for (size_t i = 0; i < mf.n; i++) {
		const struct e2verity_descriptor *d = &mf.v[i].m.desc;
		struct cli_listed e = { 0 };

		if (mf.v[i].err) {
			/* said by the measuring */
			if (cli_diff_fault(c, side, mf.v[i].path, error_message(mf.v[i].err)))
				goto out;
			continue;
		}
		if (failed[i])
			continue;
		e.path = mf.v[i].path;
		e.alg = d->hash_algorithm;
		memcpy(e.digest, mf.v[i].m.digest, mf.v[i].m.digest_size);
		e.block_size = 1u << d->log_blocksize;
		e.have_salt = 1;
		e.salt_size = d->salt_size;
		memcpy(e.salt, d->salt, d->salt_size);
		if (cli_grow((void **)&l->v, &cap, l->n, sizeof(*l->v)))
			goto out;
		l->v[l->n++] = e;
		mf.v[i].path = NULL; /* the listing owns it now */
	}
	ret = 0;
out:
	free(failed);
	free(inos);
	if (want)
		ext2fs_free_inode_bitmap(want);
	cli_manifest_free(&mf);
	cli_close_image(image, &fs);
	return ret;
}

static int cli_diff_load(struct cli_diff_run *c, int side)
{
	/* cli_diff_parse() returns 0 with both names only (cli_usage_error() is never 0) */
	CLI_ANALYZER_ASSUME(c->names[side]);
	if (!cli_is_manifest(c->names[side]))
		return cli_diff_image(c, side);
	if (cli_listing_read(c->names[side], &c->side[side]))
		return -1;
	if (c->side[side].nproblems) {
		fprintf(stderr, "%s: the manifest '%s' cannot be trusted (%zu problem%s)\n",
			cli_prog, cli_name(c->names[side]), c->side[side].nproblems,
			cli_s(c->side[side].nproblems));
		return -1;
	}
	return 0;
}

static int cli_same(const struct cli_listed *a, const struct cli_listed *b)
{
	const struct e2verity_hash_alg *h = e2verity_hash_alg_by_num(a->alg);

	return a->alg == b->alg && memcmp(a->digest, b->digest, h->digest_size) == 0;
}

/* One line of the text output: the word, the digest(s), the name */
static void cli_diff_line(const char *word, const struct cli_listed *a, const struct cli_listed *b)
{
	char da[CLI_DIGEST_STRING_MAX], db[CLI_DIGEST_STRING_MAX];

	cli_format_digest(a->alg, a->digest, da);
	if (b) {
		cli_format_digest(b->alg, b->digest, db);
		printf("%-9s %s %s ", word, da, db);
	} else {
		printf("%-9s %s ", word, da);
	}
	cli_write_name(stdout, a->path);
	putchar('\n');
}

static void cli_json_entry(struct cli_json *j, const struct cli_listed *a, const char *key_a,
			   const struct cli_listed *b, const char *key_b)
{
	char d[CLI_DIGEST_STRING_MAX];

	cli_json_begin_object(j, NULL);
	cli_json_name(j, "path", a->path);
	cli_format_digest(a->alg, a->digest, d);
	cli_json_string(j, key_a, d);
	if (b) {
		cli_format_digest(b->alg, b->digest, d);
		cli_json_string(j, key_b, d);
	}
	cli_json_end_object(j);
}

enum cli_diff_kind { CLI_ADDED, CLI_REMOVED, CLI_CHANGED, CLI_UNCHANGED };

/* what is done with each path of either side: @a the old entry, @b the new one (or NULL) */
typedef void (*cli_diff_fn)(struct cli_diff_run *c, enum cli_diff_kind kind,
			    const struct cli_listed *a, const struct cli_listed *b, void *ctx);

/* Walks both listings (sorted by the bytes of the path) together, once. */
static void cli_diff_walk(struct cli_diff_run *c, cli_diff_fn fn, void *ctx)
{
	const struct cli_listing *o = &c->side[0], *n = &c->side[1];
	size_t i = 0, k = 0;

	while (i < o->n || k < n->n) {
		int cmp = i == o->n ? 1 : k == n->n ? -1 : strcmp(o->v[i].path, n->v[k].path);
		const struct cli_listed *a = cmp <= 0 ? &o->v[i] : NULL,
					*b = cmp >= 0 ? &n->v[k] : NULL;

		fn(c,
		   !a		    ? CLI_ADDED
		   : !b		    ? CLI_REMOVED
		   : cli_same(a, b) ? CLI_UNCHANGED
				    : CLI_CHANGED,
		   a, b, ctx);
		i += cmp <= 0;
		k += cmp >= 0;
	}
}

static void cli_diff_count(struct cli_diff_run *c, enum cli_diff_kind kind,
			   const struct cli_listed *a, const struct cli_listed *b, void *ctx)
{
	(void)a, (void)b, (void)ctx; /* a cli_diff_fn: the kind alone is counted */
	c->added += kind == CLI_ADDED;
	c->removed += kind == CLI_REMOVED;
	c->changed += kind == CLI_CHANGED;
	c->unchanged += kind == CLI_UNCHANGED;
}

/* The text output: every path that differs (with -v, every path), in path order */
static void cli_diff_text(struct cli_diff_run *c, enum cli_diff_kind kind,
			  const struct cli_listed *a, const struct cli_listed *b, void *ctx)
{
	(void)ctx; /* a cli_diff_fn */
	switch (kind) {
	case CLI_ADDED:
		cli_diff_line("added", b, NULL);
		break;
	case CLI_REMOVED:
		cli_diff_line("removed", a, NULL);
		break;
	case CLI_CHANGED:
		cli_diff_line("changed", a, b);
		break;
	case CLI_UNCHANGED:
		if (c->verbose)
			cli_diff_line("unchanged", a, NULL);
		break;
	}
}

/* one category of the JSON output */
struct cli_diff_json_ctx {
	struct cli_json *j;
	enum cli_diff_kind kind;
};

static void cli_diff_json_one(struct cli_diff_run *c, enum cli_diff_kind kind,
			      const struct cli_listed *a, const struct cli_listed *b, void *ctx)
{
	struct cli_diff_json_ctx *x = ctx;

	(void)c; /* a cli_diff_fn */
	if (kind != x->kind)
		return;
	if (kind == CLI_CHANGED)
		cli_json_entry(x->j, a, "old_digest", b, "new_digest");
	else
		cli_json_entry(x->j, a ? a : b, "digest", NULL, NULL);
}

static void cli_diff_json(struct cli_diff_run *c, int status)
{
	static const struct {
		const char *key;
		enum cli_diff_kind kind;
	} cats[] = { { "added", CLI_ADDED },
		     { "removed", CLI_REMOVED },
		     { "changed", CLI_CHANGED },
		     { "unchanged", CLI_UNCHANGED } };
	struct cli_json j;
	struct cli_diff_json_ctx x = { &j, 0 };

	cli_json_init(&j, stdout);
	cli_json_begin_object(&j, NULL);
	cli_json_name(&j, "old", c->names[0]);
	cli_json_name(&j, "new", c->names[1]);
	cli_json_bool(&j, "verified", c->verify);
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++) {
		cli_json_begin_array(&j, cats[i].key);
		x.kind = cats[i].kind;
		cli_diff_walk(c, cli_diff_json_one, &x);
		cli_json_end_array(&j);
	}
	cli_json_begin_array(&j, "not_compared");
	for (size_t i = 0; i < c->nfaults; i++) {
		cli_json_begin_object(&j, NULL);
		cli_json_string(&j, "side", c->faults[i].side);
		cli_json_name(&j, "path", c->faults[i].path);
		cli_json_string(&j, "reason", c->faults[i].why);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_begin_object(&j, "summary");
	cli_json_uint(&j, "added", c->added);
	cli_json_uint(&j, "removed", c->removed);
	cli_json_uint(&j, "changed", c->changed);
	cli_json_uint(&j, "unchanged", c->unchanged);
	cli_json_uint(&j, "not_compared", c->nfaults);
	cli_json_end_object(&j);
	cli_json_uint(&j, "exit_status", status);
	cli_json_end_object(&j);
}

static int cli_diff_parse(const struct cli_command *cmd, int argc, char *argv[],
			  struct cli_diff_run *c)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "threads", required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_getopt g;
	int opt;

	c->threads.count = cli_default_threads();
	cli_getopt_init(&g, cmd, argc, argv, "j:qv", longopts);
	while ((opt = cli_getopt(&g)) != -1) {
		switch (opt) {
		case OPT_JSON:
			c->json = 1;
			break;
		case OPT_VERIFY:
			c->verify = 1;
			break;
		case 'j':
			if (cli_parse_threads(optarg, &c->threads.count))
				return cli_usage_error(cmd, "invalid thread count '%s' (1 to %d)",
						       optarg, CLI_THREADS_MAX);
			break;
		case 'q':
			c->quiet = 1;
			break;
		case 'v':
			c->verbose = 1;
			break;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error(cmd, argc - optind < 2 ? "OLD and NEW are needed"
							      : "too many operands");
	if (c->quiet && c->verbose)
		return cli_usage_error(cmd, "-q and -v exclude each other");
	c->names[0] = argv[optind];
	c->names[1] = argv[optind + 1];
	if (strcmp(c->names[0], "-") == 0 && strcmp(c->names[1], "-") == 0)
		return cli_usage_error(cmd, "only one of OLD and NEW can be standard input");
	return 0;
}

int cmd_diff(const struct cli_command *cmd, int argc, char *argv[])
{
	struct cli_diff_run c = { 0 };
	int status;
	errcode_t err;

	status = cli_diff_parse(cmd, argc, argv, &c);
	if (status)
		return status;
	cli_catch_signals();
	if (c.verify && c.threads.count > 1) {
		err = e2verity_workers_new(c.threads.count, &c.threads.workers);
		if (err) {
			cli_error(err, "while starting hashing threads");
			return CLI_DIFF_TROUBLE;
		}
	}
	if (cli_diff_load(&c, 0) || cli_diff_load(&c, 1)) {
		status = cli_cancel ? 128 + cli_cancel : CLI_DIFF_TROUBLE;
		goto out;
	}
	cli_diff_walk(&c, cli_diff_count, NULL);
	/* as diff(1): 0 the same, 1 different, 2 trouble (which wins over a difference) */
	status = c.added || c.removed || c.changed ? CLI_DIFF_DIFFERENT : CLI_DIFF_SAME;
	/* what could not be compared was said; the rest is still the diff */
	if (c.nfaults)
		status = CLI_DIFF_TROUBLE;
	if (c.json) {
		cli_diff_json(&c, status);
	} else {
		cli_diff_walk(&c, cli_diff_text, NULL);
		if (!c.quiet)
			printf("%s -> %s: %zu added, %zu removed, %zu changed, %zu unchanged%s\n",
			       cli_name(c.names[0]), cli_name(c.names[1]), c.added, c.removed,
			       c.changed, c.unchanged, c.nfaults ? "; some not compared" : "");
	}
	if (cli_flush_stdout())
		status = CLI_DIFF_TROUBLE;
out:
	for (size_t i = 0; i < c.nfaults; i++) {
		free(c.faults[i].path);
		free(c.faults[i].why);
	}
	free(c.faults);
	cli_listing_free(&c.side[0]);
	cli_listing_free(&c.side[1]);
	e2verity_workers_free(c.threads.workers);
	return status;
}
