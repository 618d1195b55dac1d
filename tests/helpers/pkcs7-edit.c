// SPDX-License-Identifier: GPL-2.0-or-later
/* pkcs7-edit.c - test helper: rewrite named fields of a DER PKCS#7 SignedData, for crafted
 * signatures */
/*
 * pkcs7-edit IN OUT EDIT...   (IN and OUT may be the same file; - is stdin/stdout)
 *
 * The message is parsed into a tree of TLVs and written back with minimal DER lengths, so an edit
 * may change sizes.  Edits apply in order to the first SignerInfo unless said otherwise:
 *   outer-type=OID          ContentInfo contentType
 *   sd-version=N            SignedData version (a decimal INTEGER)
 *   sd-version-raw=HEX      SignedData version, the INTEGER's content bytes as given
 *   digest-set=ALG,...      outer digestAlgorithms: AlgorithmIdentifiers (ALG is OID or
 * OID:PARAMHEX, PARAMHEX a whole TLV, "-" for no parameters); empty for an empty set digest-set-seq
 * outer digestAlgorithms as a SEQUENCE, not a SET content-type=OID        the encapsulated
 * contentInfo's contentType content=HEX             encapsulated content: [0] EXPLICIT OCTET STRING
 * HEX certs-seq               certificates as [2] (certSequence), not [0] certs-drop no
 * certificates crl=HEX                 a crls [1] field holding the TLV HEX si-version=N SignerInfo
 * version sid-skid=HEX            sid as subjectKeyIdentifier [0] HEX digest-oid=OID SignerInfo
 * digestAlgorithm digest-params=HEX|-     its parameters: a whole TLV, or none pkey-oid=OID
 * SignerInfo digestEncryptionAlgorithm pkey-params=HEX|-       its parameters unauth-attr=OID:HEX
 * an unauthenticatedAttributes [1] attribute with one value, the TLV HEX signerinfos-seq
 * signerInfos as a SEQUENCE, not a SET dup-signer              the first SignerInfo twice
 *   trailing=HEX            bytes after the message
 *   ber-indefinite=WHAT     WHAT (root, signed-data or signer) with an indefinite length
 *   ber-long=WHAT           WHAT's length in one more octet than DER's (0x82 00 nn for nn)
 *   ber-prim=WHAT           WHAT's tag in its primitive form (0x10 for a SEQUENCE)
 *   print                   the message's top-level structure, to stderr
 * Exit status 0, 1 when IN is not a SignedData this helper understands, 2 usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KIDS 64

struct node {
	unsigned int tag;
	const uint8_t *val; /* content of a primitive, or a node kept as raw bytes */
	size_t len;
	int cons;
	int indef;     /* written with an indefinite length */
	int long_len;  /* written with one more length octet than needed */
	int prim_form; /* the tag written without its constructed bit */
	int nkids;
	struct node *kids[MAX_KIDS];
};

static void die(const char *msg)
{
	fprintf(stderr, "pkcs7-edit: %s\n", msg);
	exit(1);
}

/* what the message tree points to, freed at exit (a sanitizer build reports leaks) */
static void **owned;
static size_t nowned, capowned;

static void free_owned(void)
{
	while (nowned)
		free(owned[--nowned]);
	free(owned);
}

static void *own(void *p)
{
	if (!p)
		die("out of memory");
	if (nowned == capowned) {
		void **v;

		capowned = capowned ? 2 * capowned : 256;
		v = realloc(owned, capowned * sizeof(*v));
		if (!v)
			die("out of memory");
		owned = v;
	}
	owned[nowned++] = p;
	return p;
}

static void usage(const char *msg)
{
	fprintf(stderr, "pkcs7-edit: %s\nusage: pkcs7-edit IN OUT EDIT...\n", msg);
	exit(2);
}

static struct node *new_node(unsigned int tag, int cons)
{
	struct node *n = own(calloc(1, sizeof(*n)));

	n->tag = tag;
	n->cons = cons;
	return n;
}

static void add_kid(struct node *parent, struct node *kid, int at)
{
	if (parent->nkids >= MAX_KIDS)
		die("too many elements");
	if (at < 0 || at > parent->nkids)
		at = parent->nkids;
	memmove(&parent->kids[at + 1], &parent->kids[at],
		(parent->nkids - at) * sizeof(parent->kids[0]));
	parent->kids[at] = kid;
	parent->nkids++;
}

static void del_kid(struct node *parent, int at)
{
	memmove(&parent->kids[at], &parent->kids[at + 1],
		(parent->nkids - at - 1) * sizeof(parent->kids[0]));
	parent->nkids--;
}

/* One TLV at *p (definite lengths only: the input is DER) */
static struct node *parse(const uint8_t **p, const uint8_t *end, int depth)
{
	const uint8_t *q = *p;
	struct node *n;
	size_t len;

	if (depth > 20 || end - q < 2 || (q[0] & 0x1f) == 0x1f)
		die("not DER this helper reads");
	n = new_node(q[0], !!(q[0] & 0x20));
	q++;
	len = *q++;
	if (len & 0x80) {
		unsigned int k = len & 0x7f;

		if (k == 0 || k > 3 || (size_t)(end - q) < k)
			die("bad length");
		for (len = 0; k; k--)
			len = len << 8 | *q++;
	}
	if ((size_t)(end - q) < len)
		die("length overruns the message");
	n->val = q;
	n->len = len;
	/* only SEQUENCE, SET and context-specific constructed elements are opened */
	if (n->cons && (n->tag == 0x30 || n->tag == 0x31 || (n->tag & 0xc0) == 0x80)) {
		const uint8_t *c = q;

		while (c < q + len)
			add_kid(n, parse(&c, q + len, depth + 1), -1);
		n->val = NULL;
	} else {
		n->cons = 0; /* kept as raw content under its tag */
	}
	*p = q + len;
	return n;
}

struct buf {
	uint8_t *p;
	size_t len, size;
};

static void put(struct buf *b, const void *p, size_t len)
{
	if (b->len + len > b->size) {
		b->size = (b->len + len) * 2 + 64;
		b->p = realloc(b->p, b->size);
		if (!b->p)
			die("out of memory");
	}
	if (len)
		memcpy(b->p + b->len, p, len);
	b->len += len;
}

static void put_header(struct buf *b, unsigned int tag, size_t len, int long_len)
{
	uint8_t h[7];
	int n = 0;

	h[n++] = tag;
	if (long_len && len < 0x100) {
		h[n++] = 0x82;
		h[n++] = 0;
		h[n++] = len;
	} else if (long_len && len < 0x10000) {
		h[n++] = 0x83;
		h[n++] = 0;
		h[n++] = len >> 8;
		h[n++] = len;
	} else if (len < 0x80) {
		h[n++] = len;
	} else if (len < 0x100) {
		h[n++] = 0x81;
		h[n++] = len;
	} else if (len < 0x10000) {
		h[n++] = 0x82;
		h[n++] = len >> 8;
		h[n++] = len;
	} else {
		h[n++] = 0x83;
		h[n++] = len >> 16;
		h[n++] = len >> 8;
		h[n++] = len;
	}
	put(b, h, n);
}

static void serialize(struct buf *b, const struct node *n)
{
	struct buf c = { 0 };

	if (!n->cons) {
		put_header(b, n->tag, n->len, n->long_len);
		put(b, n->val, n->len);
		return;
	}
	for (int i = 0; i < n->nkids; i++)
		serialize(&c, n->kids[i]);
	if (n->indef) {
		uint8_t h[2] = { n->tag, 0x80 }, eoc[2] = { 0, 0 };

		put(b, h, 2);
		if (c.len)
			put(b, c.p, c.len);
		put(b, eoc, 2);
	} else {
		put_header(b, n->prim_form ? n->tag & ~0x20u : n->tag, c.len, n->long_len);
		if (c.len)
			put(b, c.p, c.len);
	}
	free(c.p);
}

static uint8_t *hex(const char *s, size_t *len)
{
	size_t n = strlen(s);
	uint8_t *out;

	if (n % 2)
		usage("odd number of hex digits");
	out = own(malloc(n / 2 + 1));
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			usage("bad hex");
		out[i] = v;
	}
	*len = n / 2;
	return out;
}

/* a node from the TLV given in hex */
static struct node *tlv(const char *s)
{
	size_t len;
	const uint8_t *p = hex(s, &len), *q = p;
	struct node *n = parse(&q, p + len, 0);

	if (q != p + len)
		usage("bytes after the TLV");
	return n;
}

static struct node *prim(unsigned int tag, const uint8_t *val, size_t len)
{
	struct node *n = new_node(tag, 0);

	n->val = val;
	n->len = len;
	return n;
}

static struct node *oid(const char *dotted)
{
	uint8_t *out = own(malloc(64));
	unsigned long arcs[32];
	int narcs = 0, len = 0;
	const char *s = dotted;

	while (*s && narcs < 32) {
		char *e;

		errno = 0;
		arcs[narcs++] = strtoul(s, &e, 10);
		if (e == s || errno || (*e && *e != '.'))
			usage("bad OID");
		s = *e ? e + 1 : e;
	}
	if (narcs < 2)
		usage("an OID has two arcs at least");
	arcs[1] += arcs[0] * 40;
	for (int i = 1; i < narcs; i++) {
		uint8_t tmp[10];
		int k = 0;
		unsigned long v = arcs[i];

		do {
			tmp[k++] = v & 0x7f;
			v >>= 7;
		} while (v);
		while (k--)
			out[len++] = tmp[k] | (k ? 0x80 : 0);
	}
	return prim(0x06, out, len);
}

static struct node *integer(const char *dec)
{
	long v = strtol(dec, NULL, 0);
	uint8_t *out = own(malloc(8));
	int len = 0;
	uint8_t tmp[8];

	do {
		tmp[len++] = v & 0xff;
		v >>= 8;
	} while (v && v != -1 && len < 8);
	if (v == 0 && (tmp[len - 1] & 0x80))
		tmp[len++] = 0;
	for (int i = 0; i < len; i++)
		out[i] = tmp[len - 1 - i];
	return prim(0x02, out, len);
}

/* AlgorithmIdentifier from "OID", "OID:PARAMHEX" or "OID:-" (OID alone gets a NULL) */
static struct node *alg_id(const char *spec)
{
	struct node *n = new_node(0x30, 1);
	char *s = own(strdup(spec)), *colon;

	colon = strchr(s, ':');
	if (colon)
		*colon++ = '\0';
	add_kid(n, oid(s), -1);
	if (!colon)
		add_kid(n, prim(0x05, NULL, 0), -1);
	else if (strcmp(colon, "-") != 0)
		add_kid(n, tlv(colon), -1);
	return n;
}

struct msg {
	struct node *root, *sd, *signers;
	uint8_t *trailing;
	size_t trailing_len;
};

static int find_tag(const struct node *n, unsigned int tag)
{
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i]->tag == tag)
			return i;
	return -1;
}

static struct node *signer(struct msg *m)
{
	if (!m->signers->nkids || !m->signers->kids[0]->cons)
		die("no SignerInfo");
	return m->signers->kids[0];
}

/* the index of a SignerInfo element: 0 version, 1 sid, 2 digestAlgorithm, then [0], the pkey */
static int si_index(struct node *si, const char *what)
{
	int i = 3;

	if (strcmp(what, "digest") == 0)
		return 2;
	if (si->nkids > 3 && si->kids[3]->tag == 0xa0)
		i++;
	if (i >= si->nkids)
		die("short SignerInfo");
	return i;
}

static void set_params(struct node *algid, const char *v)
{
	while (algid->nkids > 1)
		del_kid(algid, 1);
	if (strcmp(v, "-") != 0)
		add_kid(algid, tlv(v), -1);
}

static void edit(struct msg *m, const char *e)
{
	const char *eq = strchr(e, '=');
	size_t klen = eq ? (size_t)(eq - e) : strlen(e);
	const char *v = eq ? eq + 1 : "";
	struct node *sd = m->sd;
	char key[32];
	int i;

	if (klen >= sizeof(key))
		usage(e);
	memcpy(key, e, klen);
	key[klen] = '\0';

	if (strcmp(key, "outer-type") == 0) {
		m->root->kids[0] = oid(v);
	} else if (strcmp(key, "sd-version") == 0) {
		sd->kids[0] = integer(v);
	} else if (strcmp(key, "sd-version-raw") == 0) {
		size_t len;
		uint8_t *b = hex(v, &len);

		sd->kids[0] = prim(0x02, b, len);
	} else if (strcmp(key, "digest-set") == 0) {
		struct node *set = new_node(0x31, 1);
		char *s = own(strdup(v)), *tok, *save = NULL;

		for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			add_kid(set, alg_id(tok), -1);
		sd->kids[1] = set;
	} else if (strcmp(key, "digest-set-seq") == 0) {
		sd->kids[1]->tag = 0x30;
	} else if (strcmp(key, "content-type") == 0) {
		sd->kids[2]->kids[0] = oid(v);
	} else if (strcmp(key, "content") == 0) {
		struct node *c = new_node(0xa0, 1);
		size_t len;
		uint8_t *b = hex(v, &len);

		add_kid(c, prim(0x04, b, len), -1);
		while (sd->kids[2]->nkids > 1)
			del_kid(sd->kids[2], 1);
		add_kid(sd->kids[2], c, -1);
	} else if (strcmp(key, "certs-seq") == 0) {
		i = find_tag(sd, 0xa0);
		if (i < 0)
			die("no certificates");
		sd->kids[i]->tag = 0xa2;
	} else if (strcmp(key, "certs-drop") == 0) {
		i = find_tag(sd, 0xa0);
		if (i >= 0)
			del_kid(sd, i);
	} else if (strcmp(key, "crl") == 0) {
		struct node *c = new_node(0xa1, 1);

		add_kid(c, tlv(v), -1);
		add_kid(sd, c, sd->nkids - 1);
	} else if (strcmp(key, "si-version") == 0) {
		signer(m)->kids[0] = integer(v);
	} else if (strcmp(key, "sid-skid") == 0) {
		size_t len;
		uint8_t *b = hex(v, &len);

		signer(m)->kids[1] = prim(0x80, b, len);
	} else if (strcmp(key, "digest-oid") == 0) {
		signer(m)->kids[2]->kids[0] = oid(v);
	} else if (strcmp(key, "digest-params") == 0) {
		set_params(signer(m)->kids[2], v);
	} else if (strcmp(key, "pkey-oid") == 0) {
		struct node *si = signer(m);

		si->kids[si_index(si, "pkey")]->kids[0] = oid(v);
	} else if (strcmp(key, "pkey-params") == 0) {
		struct node *si = signer(m);

		set_params(si->kids[si_index(si, "pkey")], v);
	} else if (strcmp(key, "unauth-attr") == 0) {
		struct node *si = signer(m), *ua, *attr = new_node(0x30, 1), *vals;
		char *s = own(strdup(v)), *colon = strchr(s, ':');

		if (!colon)
			usage("unauth-attr=OID:HEX");
		*colon++ = '\0';
		i = find_tag(si, 0xa1);
		if (i < 0) {
			ua = new_node(0xa1, 1);
			add_kid(si, ua, -1);
		} else {
			ua = si->kids[i];
		}
		vals = new_node(0x31, 1);
		add_kid(vals, tlv(colon), -1);
		add_kid(attr, oid(s), -1);
		add_kid(attr, vals, -1);
		add_kid(ua, attr, -1);
	} else if (strcmp(key, "signerinfos-seq") == 0) {
		m->signers->tag = 0x30;
	} else if (strcmp(key, "dup-signer") == 0) {
		add_kid(m->signers, signer(m), -1);
	} else if (strcmp(key, "ber-indefinite") == 0 || strcmp(key, "ber-long") == 0 ||
		   strcmp(key, "ber-prim") == 0) {
		struct node *t = strcmp(v, "root") == 0		 ? m->root
				 : strcmp(v, "signed-data") == 0 ? sd
				 : strcmp(v, "signer") == 0	 ? signer(m)
								 : NULL;

		if (!t)
			usage(e);
		if (key[4] == 'i')
			t->indef = 1;
		else if (key[4] == 'l')
			t->long_len = 1;
		else
			t->prim_form = 1;
	} else if (strcmp(key, "trailing") == 0) {
		m->trailing = hex(v, &m->trailing_len);
	} else if (strcmp(key, "print") == 0) {
		fprintf(stderr, "SignedData: %d elements, %d signers\n", sd->nkids,
			m->signers->nkids);
	} else {
		usage(e);
	}
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	struct buf b = { 0 };
	uint8_t chunk[4096];
	size_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		put(&b, chunk, n);
	if (f != stdin)
		fclose(f);
	*len = b.len;
	return b.p;
}

int main(int argc, char *argv[])
{
	struct msg m = { 0 };
	struct buf out = { 0 };
	const uint8_t *p;
	uint8_t *in;
	size_t len;
	FILE *f;

	atexit(free_owned);
	if (argc < 3)
		usage("too few arguments");
	in = own(slurp(argv[1], &len));
	if (!in)
		die("empty input");
	p = in;
	m.root = parse(&p, in + len, 0);
	/* ContentInfo { OID, [0] { SignedData } } */
	if (m.root->tag != 0x30 || m.root->nkids != 2 || m.root->kids[1]->tag != 0xa0 ||
	    m.root->kids[1]->nkids != 1)
		die("not a ContentInfo with content");
	m.sd = m.root->kids[1]->kids[0];
	if (m.sd->tag != 0x30 || m.sd->nkids < 4 || m.sd->kids[2]->tag != 0x30)
		die("not a SignedData");
	m.signers = m.sd->kids[m.sd->nkids - 1];
	if (!m.signers->cons)
		die("no signerInfos");
	for (int i = 3; i < argc; i++)
		edit(&m, argv[i]);
	serialize(&out, m.root);
	if (m.trailing_len)
		put(&out, m.trailing, m.trailing_len);
	f = strcmp(argv[2], "-") == 0 ? stdout : fopen(argv[2], "wb");
	own(out.p);
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || (f != stdout && fclose(f))) {
		perror(argv[2]);
		return 2;
	}
	return 0;
}
