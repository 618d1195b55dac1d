// SPDX-License-Identifier: GPL-2.0-or-later
/* sign_batch.c - `e2verity sign --digests-from`: a manifest's digests signed on every core */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/sign_batch.h"
#include "cli/cancel.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "output/manifest_read.h"
#include "output/names.h"

/* One signature: written under a temporary name, renamed once every one is made */
struct cli_sig_job {
	char *path;	 /* SIGDIR/<path as printed>.sig */
	errcode_t err;	 /* of signing, or of writing when @written_err */
	int written_err; /* @err is the file's, not the signature's */
	int tmp_made;	 /* the temporary file exists */
};

struct cli_batch {
	const struct cli_listing *l;
	struct cli_sig_job *jobs;
	const struct e2verity_signer *signer;
	char suffix[48]; /* of the temporary names: ours, by the process id */
	mode_t mode;	 /* of a new signature file: what creat() gives */
	size_t next;	 /* the next job a worker takes (atomic) */
	int failed;	 /* a job failed: the others stop (atomic) */
	char **made;	 /* the directories this run made, parents first */
	size_t nmade, capmade;
};

/* The inputs of the run, which no signature may replace */
struct cli_batch_input {
	const char *path;
	dev_t dev;
	ino_t ino;
};

static char *cli_batch_tmp(const struct cli_batch *b, const char *path)
{
	char *tmp;

	if (asprintf(&tmp, "%s%s", path, b->suffix) < 0)
		return NULL;
	return tmp;
}

static errcode_t cli_batch_made(struct cli_batch *b, const char *dir)
{
	if (cli_grow((void **)&b->made, &b->capmade, b->nmade, sizeof(*b->made)))
		return ENOMEM;
	b->made[b->nmade] = strdup(dir);
	if (!b->made[b->nmade])
		return ENOMEM;
	b->nmade++;
	return 0;
}

static errcode_t cli_batch_is_dir(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

/* `mkdir -p`: each directory made is noted, so that a failed run takes it away again */
static errcode_t cli_batch_mkdir(struct cli_batch *b, char *dir)
{
	errcode_t err;
	char *slash;

	if (mkdir(dir, 0777) == 0)
		return cli_batch_made(b, dir);
	err = errno;
	if (err == EEXIST)
		return cli_batch_is_dir(dir);
	slash = strrchr(dir, '/');
	if (err != ENOENT || !slash || slash == dir)
		return err;
	*slash = '\0';
	err = cli_batch_mkdir(b, dir);
	*slash = '/';
	if (err)
		return err;
	if (mkdir(dir, 0777) == 0)
		return cli_batch_made(b, dir);
	return errno == EEXIST ? cli_batch_is_dir(dir) : (errcode_t)errno;
}

/* Takes away what a failed run made: its temporary files, then its directories. */
static void cli_batch_undo(struct cli_batch *b)
{
	for (size_t i = 0; i < b->l->n; i++) {
		char *tmp;

		if (!b->jobs[i].tmp_made)
			continue;
		tmp = cli_batch_tmp(b, b->jobs[i].path);
		if (tmp)
			unlink(tmp);
		free(tmp);
		b->jobs[i].tmp_made = 0;
	}
	/* children before parents; one that holds other files now stays */
	for (size_t i = b->nmade; i-- > 0;)
		rmdir(b->made[i]);
}

static errcode_t cli_batch_write(const struct cli_batch *b, struct cli_sig_job *j,
				 const uint8_t *sig, size_t size)
{
	char *tmp = cli_batch_tmp(b, j->path);
	errcode_t err;
	int fd;

	if (!tmp)
		return ENOMEM;
	/* O_EXCL: never through a link or over a file someone else put there */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, b->mode);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	j->tmp_made = 1;
	err = cli_write_all(fd, sig, size, 0);
	if (close(fd) < 0 && !err)
		err = errno;
	if (err) {
		unlink(tmp);
		j->tmp_made = 0;
	}
out:
	free(tmp);
	return err;
}

static void cli_batch_one(struct cli_batch *b, size_t i)
{
	const struct cli_listed *e = &b->l->v[i];
	struct cli_sig_job *j = &b->jobs[i];
	uint8_t *sig = NULL;
	size_t size = 0;

	/* the library's signing of one file: the formatted digest, as `fsverity sign` */
	j->err = e2verity_sign_digest(b->signer, e->alg, e->digest, &sig, &size);
	if (!j->err) {
		j->err = cli_batch_write(b, j, sig, size);
		j->written_err = j->err != 0;
	}
	free(sig);
	if (j->err)
		__atomic_store_n(&b->failed, 1, __ATOMIC_RELAXED);
}

/*
 * Each worker takes the next digest until none is left.  One key is shared:
 * OpenSSL 3 keys are safe to sign with from many threads at once (seal does
 * the same), and a token's provider serialises what it must.
 */
static void *cli_batch_worker(void *arg)
{
	struct cli_batch *b = arg;
	size_t i;

	for (;;) {
		if (__atomic_load_n(&b->failed, __ATOMIC_RELAXED) || cli_cancel)
			break;
		i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
		if (i >= b->l->n)
			break;
		cli_batch_one(b, i);
	}
	return NULL;
}

static void cli_batch_run(struct cli_batch *b, unsigned int threads)
{
	pthread_t tid[CLI_THREADS_MAX];
	unsigned int started = 0;

	if (threads > b->l->n)
		threads = b->l->n;
	/* this thread is one of them; a thread that cannot be started leaves its share to others */
	while (started + 1 < threads &&
	       pthread_create(&tid[started], NULL, cli_batch_worker, b) == 0)
		started++;
	cli_batch_worker(b);
	for (unsigned int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
}

static void cli_batch_input(struct cli_batch_input *in, const char *path)
{
	struct stat st;

	in->path = NULL;
	if (path && strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		in->path = path;
		in->dev = st.st_dev;
		in->ino = st.st_ino;
	}
}

/*
 * The signature paths and their directories, before anything is signed: a
 * path inside the image with a "." or ".." component (which would leave
 * SIGDIR), a directory where a signature goes, an input (the manifest, the
 * key) that a signature would replace.  Each is said; returns how many.
 */
static unsigned int cli_batch_plan(struct cli_batch *b, const char *sigdir,
				   const struct cli_batch_input *in, size_t nin)
{
	unsigned int bad = 0;
	char *last = NULL;
	struct stat st;
	errcode_t err;

	for (size_t i = 0; i < b->l->n && bad < 20; i++) {
		const struct cli_listed *e = &b->l->v[i];
		char *path, *slash;

		err = cli_detached_path(sigdir, e->path, ".sig", &b->jobs[i].path);
		if (err) {
			cli_error(err,
				  "while naming the signature of '%s' (line %lu of the manifest)",
				  cli_name(e->path), e->line);
			bad++;
			continue;
		}
		path = b->jobs[i].path;
		slash = strrchr(path, '/');
		/* the manifest is sorted: the files of one directory mostly follow each other */
		*slash = '\0';
		if (!last || strcmp(last, path)) {
			free(last);
			last = strdup(path);
			err = last ? cli_batch_mkdir(b, path) : ENOMEM;
			if (err) {
				cli_error(
					err,
					"while making the directory '%s' for the signature of '%s'",
					cli_name(path), cli_name(e->path));
				free(last);
				last = NULL;
				bad++;
			}
		}
		*slash = '/';
	}
	free(last);
	if (bad)
		return bad;
	/* after every directory is made: "/a" and "/a.sig/b" would want "a.sig" as both */
	for (size_t i = 0; i < b->l->n && bad < 20; i++) {
		const char *path = b->jobs[i].path;

		if (lstat(path, &st) < 0)
			continue;
		err = S_ISDIR(st.st_mode) ? EISDIR : 0;
		for (size_t k = 0; k < nin && !err; k++)
			if (in[k].path && st.st_dev == in[k].dev && st.st_ino == in[k].ino)
				err = E2VERITY_ET_SAME_FILE;
		if (err) {
			cli_error(err, "while planning the signature '%s' of '%s'%s",
				  cli_name(path), cli_name(b->l->v[i].path),
				  err == EISDIR ? ": a directory is in its place"
						: ": it is an input of this run");
			bad++;
		}
	}
	return bad;
}

/*
 * Every signature in place at once, made durable: the contents first, then
 * the names.  A rename that fails here (the disk went away) is said, and the
 * signatures renamed before it stay: each is whole.
 */
static unsigned int cli_batch_commit(struct cli_batch *b, int dirfd)
{
	unsigned int bad = 0;

	/* one sync of the filesystem instead of one per file */
	if (syncfs(dirfd) < 0) {
		cli_error(errno, "while writing the signatures");
		return 1;
	}
	for (size_t i = 0; i < b->l->n; i++) {
		struct cli_sig_job *j = &b->jobs[i];
		char *tmp = cli_batch_tmp(b, j->path);

		if (!tmp || rename(tmp, j->path) < 0) {
			cli_error(tmp ? errno : ENOMEM, "while writing the signature '%s' of '%s'",
				  cli_name(j->path), cli_name(b->l->v[i].path));
			bad++;
		} else {
			j->tmp_made = 0;
		}
		free(tmp);
	}
	if (syncfs(dirfd) < 0) {
		cli_error(errno, "while writing the signatures");
		bad++;
	}
	return bad;
}

/* What went wrong, in the manifest's order whichever thread met it */
static unsigned int cli_batch_report(const struct cli_batch *b)
{
	unsigned int bad = 0;

	for (size_t i = 0; i < b->l->n; i++) {
		const struct cli_sig_job *j = &b->jobs[i];
		const struct cli_listed *e = &b->l->v[i];

		if (!j->err)
			continue;
		bad++;
		if (j->written_err)
			cli_error(j->err, "while writing the signature '%s' of '%s'",
				  cli_name(j->path), cli_name(e->path));
		else
			cli_error(j->err,
				  "while signing the digest of '%s' (line %lu of the manifest)",
				  cli_name(e->path), e->line);
	}
	return bad;
}

/* The manifest as messages name it; cli_name()'s buffer lasts only a few calls */
static const char *cli_batch_shown(const char *manifest)
{
	return strcmp(manifest, "-") ? cli_name(manifest) : "(standard input)";
}

int cli_sign_batch(const char *manifest, const char *sigdir, const struct cli_signer_opts *so,
		   unsigned int threads)
{
	struct cli_batch b = { 0 };
	struct cli_batch_input in[3];
	struct cli_listing l = { 0 };
	struct e2verity_signer *signer = NULL;
	int ret = CLI_EXIT_FAILURE, dirfd = -1;
	uint8_t *sig = NULL;
	size_t sig_size;
	char *top = NULL;
	errcode_t err;
	mode_t mask;

	cli_catch_signals();
	/* the inputs as they are before any file is made: a signature must not replace one */
	cli_batch_input(&in[0], manifest);
	cli_batch_input(&in[1], so->keyfile);
	cli_batch_input(&in[2], so->certfile);
	/* every line is judged before a key is loaded or a file made */
	if (cli_listing_read(manifest, &l))
		goto out;
	if (l.nproblems) {
		fprintf(stderr,
			"%s: the manifest '%s' cannot be trusted (%zu problem%s): nothing was signed\n",
			cli_prog, cli_batch_shown(manifest), l.nproblems,
			l.nproblems == 1 ? "" : "s");
		goto out;
	}
	err = cli_load_signer(so, &signer);
	if (err)
		goto out;
	/* a key that cannot sign (a token that refuses the algorithm) must not leave directories */
	if (l.n) {
		err = e2verity_sign_digest(signer, l.v[0].alg, l.v[0].digest, &sig, &sig_size);
		free(sig);
		if (err) {
			cli_error(err,
				  "while signing the digest of '%s' (line %lu of the manifest)",
				  cli_name(l.v[0].path), l.v[0].line);
			goto out;
		}
	}
	b.l = &l;
	b.signer = signer;
	snprintf(b.suffix, sizeof(b.suffix), ".e2verity-%ld", (long)getpid());
	mask = umask(0);
	umask(mask);
	b.mode = 0666 & ~mask;
	b.jobs = calloc(l.n ? l.n : 1, sizeof(*b.jobs));
	if (!b.jobs) {
		cli_error(ENOMEM, "while signing the digests of '%s'", cli_batch_shown(manifest));
		goto out;
	}
	/* SIGDIR itself is made like the directories in it: taken away again after a failure */
	top = strdup(sigdir);
	err = top ? cli_batch_mkdir(&b, top) : ENOMEM;
	if (!err) {
		dirfd = open(sigdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			err = errno;
	}
	if (err) {
		cli_error(err, "while making the signature directory '%s'", cli_name(sigdir));
		goto undo;
	}
	if (cli_batch_plan(&b, sigdir, in, 3))
		goto undo;
	cli_batch_run(&b, threads);
	if (cli_batch_report(&b) || cli_cancel)
		goto undo;
	if (cli_batch_commit(&b, dirfd))
		goto undo;
	printf("Signed %zu digest%s of '%s' into ", l.n, l.n == 1 ? "" : "s",
	       cli_batch_shown(manifest));
	printf("'%s'\n", cli_name(sigdir));
	if (cli_flush_stdout())
		goto out;
	ret = CLI_EXIT_OK;
	goto out;
undo:
	cli_batch_undo(&b);
	if (cli_cancel) {
		fprintf(stderr, "%s: %s: no signature written\n", cli_prog, strsignal(cli_cancel));
		ret = 128 + cli_cancel;
	}
out:
	free(top);
	if (dirfd >= 0)
		close(dirfd);
	for (size_t i = 0; b.jobs && i < l.n; i++)
		free(b.jobs[i].path);
	free(b.jobs);
	for (size_t i = 0; i < b.nmade; i++)
		free(b.made[i]);
	free(b.made);
	e2verity_signer_free(signer);
	cli_listing_free(&l);
	return ret;
}
