// SPDX-License-Identifier: GPL-2.0-or-later
/* manifest_read.c - a manifest read back, as untrusted input: every line judged, none guessed */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/manifest_read.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "output/json_parse.h"
#include "output/names.h"

/* a manifest of a million files is about 150 MB: ten times that is not one */
#define CLI_MANIFEST_MAX (1ULL << 30)
/* problems printed before the rest are only counted */
#define CLI_MANIFEST_SHOWN 20

/* "FSVerity", le16 algorithm, le16 digest size: struct fsverity_formatted_digest */
#define CLI_FORMATTED_MAGIC "FSVerity"
#define CLI_FORMATTED_HEADER 12

void cli_listing_free(struct cli_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	for (size_t i = 0; i < l->nproblems; i++)
		free(l->problems[i].why);
	free(l->problems);
	l->v = NULL;
	l->problems = NULL;
	l->n = l->nproblems = 0;
}

/* Notes one problem of the manifest; the first ones are said at once. */
static int cli_listing_problem(struct cli_listing *l, unsigned int code, unsigned long line,
			       unsigned long first_line, const char *why)
{
	struct cli_listing_problem *p;
	struct e2verity_finding f = { .value = line, .expected = first_line };
	size_t cap = l->nproblems;
	char msg[256];

	if (cli_grow((void **)&l->problems, &cap, l->nproblems, sizeof(*p)))
		return -1;
	p = &l->problems[l->nproblems++];
	p->code = code;
	p->line = line;
	p->first_line = first_line;
	p->why = strdup(why);
	f.problem = e2verity_problem_lookup(code);
	e2verity_finding_format(&f, msg, sizeof(msg));
	if (l->nproblems <= CLI_MANIFEST_SHOWN)
		fprintf(stderr, "%s: %s: %s %s: %s: %s\n", cli_prog,
			strcmp(l->name, "-") ? cli_name(l->name) : "(standard input)",
			e2verity_severity_name(f.problem->severity), f.problem->id, msg, why);
	return p->why ? 0 : -1;
}

/* The whole file (or standard input), NUL-terminated; at most CLI_MANIFEST_MAX bytes. */
static errcode_t cli_slurp(const char *name, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	int fd = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
	errcode_t err = 0;
	char *b = NULL, *nb;
	ssize_t got;

	if (fd < 0)
		return errno;
	b = malloc(cap);
	if (!b) {
		err = ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= CLI_MANIFEST_MAX) {
				err = EFBIG;
				goto out;
			}
			nb = realloc(b, 2 * cap);
			if (!nb) {
				err = ENOMEM;
				goto out;
			}
			b = nb;
			cap *= 2;
		}
		got = read(fd, b + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = errno;
			goto out;
		}
		if (!got)
			break;
		n += got;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}

/* "sha256:<hex>" into @e; NULL, or what is wrong */
static const char *cli_parse_alg_digest(const char *s, size_t len, struct cli_listed *e)
{
	const char *colon = memchr(s, ':', len);
	const struct e2verity_hash_alg *a;
	char hex[2 * E2VERITY_MAX_DIGEST_SIZE + 1];
	size_t hlen;

	if (!colon)
		return "the digest is not ALG:HEX";
	if ((size_t)(colon - s) == 6 && memcmp(s, "sha256", 6) == 0)
		a = e2verity_hash_alg_by_num(E2VERITY_HASH_SHA256);
	else if ((size_t)(colon - s) == 6 && memcmp(s, "sha512", 6) == 0)
		a = e2verity_hash_alg_by_num(E2VERITY_HASH_SHA512);
	else
		return "unknown hash algorithm (sha256 or sha512)";
	hlen = len - (colon + 1 - s);
	if (hlen != 2 * a->digest_size)
		return a->num == E2VERITY_HASH_SHA256 ? "a sha256 digest is 64 hex digits"
						      : "a sha512 digest is 128 hex digits";
	memcpy(hex, colon + 1, hlen);
	hex[hlen] = '\0';
	if (cli_hex2bin(hex, e->digest, sizeof(e->digest)) != (int)a->digest_size)
		return "the digest is not hex";
	e->alg = a->num;
	return NULL;
}

/* The hex of a struct fsverity_formatted_digest (the --for-builtin-sig form) into @e */
static const char *cli_parse_formatted(const char *s, size_t len, struct cli_listed *e)
{
	uint8_t bin[E2VERITY_FORMATTED_DIGEST_MAX];
	char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];
	const struct e2verity_hash_alg *a;
	int n;

	if (len > 2 * E2VERITY_FORMATTED_DIGEST_MAX)
		return "the digest is neither ALG:HEX nor a formatted digest's hex";
	memcpy(hex, s, len);
	hex[len] = '\0';
	n = cli_hex2bin(hex, bin, sizeof(bin));
	if (n < CLI_FORMATTED_HEADER || memcmp(bin, CLI_FORMATTED_MAGIC, 8) != 0)
		return "the digest is neither ALG:HEX nor a formatted digest's hex";
	a = e2verity_hash_alg_by_num(bin[8] | bin[9] << 8);
	if (!a)
		return "the formatted digest names an unknown hash algorithm";
	if ((unsigned int)(bin[10] | bin[11] << 8) != a->digest_size ||
	    (unsigned int)n != CLI_FORMATTED_HEADER + a->digest_size)
		return "the formatted digest's size does not fit its algorithm";
	memcpy(e->digest, bin + CLI_FORMATTED_HEADER, a->digest_size);
	e->alg = a->num;
	return NULL;
}

/*
 * A path as the writers write them: absolute, canonical (no "//", ".", "..",
 * or '/' at the end), not the root.  NULL, or what is wrong.
 */
static const char *cli_judge_path(const char *path)
{
	char *copy;
	int same;

	if (path[0] != '/')
		return "the path is not absolute";
	if (!path[1])
		return "the path is the root directory";
	copy = strdup(path);
	if (!copy)
		return "out of memory";
	same = cli_normalize_path(copy) == 0 && strcmp(copy, path) == 0;
	free(copy);
	if (!same || path[strlen(path) - 1] == '/')
		return "the path is not canonical ('//', '.', '..' or a trailing '/')";
	return NULL;
}

static int cli_listing_add(struct cli_listing *l, size_t *cap, const struct cli_listed *e)
{
	if (cli_grow((void **)&l->v, cap, l->n, sizeof(*l->v)))
		return -1;
	l->v[l->n++] = *e;
	return 0;
}

/* One text line (without its newline): "ALG:HEX PATH" or "FORMATTED_HEX PATH" */
static int cli_text_line(struct cli_listing *l, size_t *cap, char *s, size_t len,
			 unsigned long line)
{
	struct cli_listed e = { .line = line };
	const char *why;
	char *sp, *path;
	ssize_t bad;

	if (memchr(s, '\0', len))
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0,
					   "a NUL byte");
	sp = memchr(s, ' ', len);
	if (!sp)
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0,
					   "no path: lines are 'ALG:HEX /PATH' (a --compact "
					   "manifest names no files)");
	why = memchr(s, ':', sp - s) ? cli_parse_alg_digest(s, sp - s, &e)
				     : cli_parse_formatted(s, sp - s, &e);
	if (why)
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0, why);
	path = sp + 1;
	s[len] = '\0';
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0,
						   "a raw control byte in the path (names are "
						   "written escaped)");
	bad = cli_unescape(path);
	if (bad >= 0)
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0,
					   "a backslash in the path starts no escape ('\\\\', "
					   "'\\n', '\\t', '\\xHH')");
	why = cli_judge_path(path);
	if (why)
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0, why);
	e.path = strdup(path);
	if (!e.path || cli_listing_add(l, cap, &e)) {
		free(e.path);
		return -1;
	}
	return 0;
}

static int cli_read_text(struct cli_listing *l, char *buf, size_t len)
{
	unsigned long line = 0;
	size_t cap = 0;
	char *s = buf, *end = buf + len;

	while (s < end) {
		char *nl = memchr(s, '\n', end - s);
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		line++;
		/* an empty line says nothing; anything else must be a whole entry */
		if (n && cli_text_line(l, &cap, s, n, line))
			return -1;
		s += n + 1;
	}
	return 0;
}

/* One member of the "files" array of a JSON manifest (or of check --json) */
static int cli_json_entry(struct cli_listing *l, size_t *cap, const struct cli_jvalue *o)
{
	const struct cli_jvalue *path = cli_json_member(o, "path"),
				*hexpath = cli_json_member(o, "path_hex"),
				*digest = cli_json_member(o, "digest"),
				*alg = cli_json_member(o, "hash_algorithm"),
				*bs = cli_json_member(o, "block_size"),
				*salt = cli_json_member(o, "salt");
	struct cli_listed e = { .line = o->line };
	const char *why = NULL;
	uint64_t v;
	int n;

	if (o->type != CLI_JOBJECT)
		why = "an entry of \"files\" is not an object";
	else if (hexpath && (hexpath->type != CLI_JSTRING || !hexpath->len ||
			     !(e.path = malloc(hexpath->len / 2 + 1)) ||
			     cli_hex2bin(hexpath->str, (uint8_t *)e.path, hexpath->len / 2) !=
				     (int)(hexpath->len / 2) ||
			     memchr(e.path, '\0', hexpath->len / 2)))
		why = "\"path_hex\" is not the hex of a name";
	else if (!hexpath && (!path || path->type != CLI_JSTRING))
		why = "no \"path\" string";
	else if (!digest || digest->type != CLI_JSTRING)
		why = "no \"digest\" string (the file was not measured)";
	else
		why = cli_parse_alg_digest(digest->str, digest->len, &e);
	if (!why && alg &&
	    (alg->type != CLI_JSTRING || !e2verity_hash_alg_by_name(alg->str) ||
	     e2verity_hash_alg_by_name(alg->str)->num != e.alg))
		why = "\"hash_algorithm\" is not the digest's";
	if (!why && bs) {
		if (bs->type != CLI_JNUMBER ||
		    cli_parse_u64(bs->str, E2VERITY_MAX_BLOCK_SIZE, &v) ||
		    v < E2VERITY_MIN_BLOCK_SIZE || (v & (v - 1)))
			why = "\"block_size\" is not a power of 2 from 1024 to 65536";
		else
			e.block_size = v;
	}
	if (!why && salt) {
		n = salt->type == CLI_JSTRING ? cli_hex2bin(salt->str, e.salt, sizeof(e.salt)) : -1;
		if (n < 0)
			why = "\"salt\" is not hex of at most 32 bytes";
		e.salt_size = n < 0 ? 0 : n;
		e.have_salt = 1;
	}
	if (!why && hexpath)
		e.path[hexpath->len / 2] = '\0';
	else if (!why && !(e.path = strdup(path->str)))
		why = "out of memory";
	if (!why)
		why = cli_judge_path(e.path);
	if (why) {
		free(e.path);
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, o->line, 0, why);
	}
	if (cli_listing_add(l, cap, &e)) {
		free(e.path);
		return -1;
	}
	return 0;
}

static int cli_read_json(struct cli_listing *l, const char *buf, size_t len)
{
	const struct cli_jvalue *files;
	struct cli_jvalue doc;
	unsigned long line;
	size_t cap = 0;
	char why[256];
	int ret = 0;

	if (cli_json_parse(buf, len, &doc, &line, why, sizeof(why)))
		return cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, line, 0, why);
	files = cli_json_member(&doc, "files");
	if (!files || files->type != CLI_JARRAY)
		ret = cli_listing_problem(l, E2VERITY_PR_MANIFEST_MALFORMED, doc.line, 0,
					  "no \"files\" array");
	for (size_t i = 0; files && files->type == CLI_JARRAY && i < files->n && !ret; i++)
		ret = cli_json_entry(l, &cap, &files->items[i]);
	cli_json_free(&doc);
	return ret;
}

static int cli_listed_cmp(const void *a, const void *b)
{
	const struct cli_listed *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

int cli_listing_read(const char *name, struct cli_listing *l)
{
	const char *s;
	char *buf = NULL;
	size_t len = 0;
	errcode_t err;
	int ret;

	memset(l, 0, sizeof(*l));
	l->name = name;
	err = cli_slurp(name, &buf, &len);
	if (err) {
		cli_error(err, "while reading the manifest '%s'", cli_name(name));
		return -1;
	}
	/* err 0: buf was read (a failed open() sets errno, which the analyzer takes for 0) */
	CLI_ANALYZER_ASSUME(buf);
	for (s = buf; *s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'; s++)
		;
	l->json = *s == '{';
	ret = l->json ? cli_read_json(l, buf, len) : cli_read_text(l, buf, len);
	free(buf);
	if (ret) {
		cli_error(ENOMEM, "while reading the manifest '%s'", cli_name(name));
		return -1;
	}
	/* one path twice: which digest is meant would be a guess */
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cli_listed_cmp);
	for (size_t i = 1; i < l->n; i++)
		if (strcmp(l->v[i].path, l->v[i - 1].path) == 0 &&
		    cli_listing_problem(l, E2VERITY_PR_MANIFEST_DUPLICATE, l->v[i].line,
					l->v[i - 1].line, cli_name(l->v[i].path)))
			return -1;
	if (l->nproblems > CLI_MANIFEST_SHOWN)
		fprintf(stderr, "%s: %s: %zu problems in all\n", cli_prog, cli_name(name),
			l->nproblems);
	if (!l->nproblems && !l->n)
		fprintf(stderr, "%s: warning: the manifest '%s' lists no files\n", cli_prog,
			cli_name(name));
	return 0;
}
