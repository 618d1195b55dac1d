// SPDX-License-Identifier: GPL-2.0-or-later
/* pkcs7.c - signatures and certificates read as the kernel's BER decoder reads them */
#include "config.h"

#include <string.h>

#include "pkcs7.h"

/*
 * The kernel decodes signatures with its own BER decoder (lib/asn1_decoder.c)
 * driven by crypto/asymmetric_keys/pkcs7.asn1 and x509.asn1, not with a DER
 * library: it takes forms OpenSSL refuses (indefinite and long lengths, the
 * primitive form of a constructed tag, SEQUENCE where PKCS#7 says SET, bytes
 * after the message) and refuses some OpenSSL takes (lengths of more than two
 * octets, empty SET OF).  What the kernel refuses at decoding, it refuses
 * whatever the keys, so this reader follows its rules, not DER's.
 */

struct e2v_ber {
	const uint8_t *p, *end;
	int *not_der;
};

struct e2v_tlv {
	uint8_t tag;
	const uint8_t *start; /* the tag octet */
	const uint8_t *val;   /* the contents */
	size_t len;	      /* of the contents, without an indefinite form's end-of-contents */
	const uint8_t *end;   /* past the element */
};

static struct e2v_span e2v_contents(const struct e2v_tlv *t)
{
	return (struct e2v_span){ t->val, t->len };
}

static struct e2v_span e2v_whole(const struct e2v_tlv *t)
{
	return (struct e2v_span){ t->start, (size_t)(t->end - t->start) };
}

/*
 * The extent of indefinite-length contents at @p, found as the kernel's
 * asn1_find_indefinite_length() finds it: elements are skipped, nested
 * indefinite ones counted, up to the matching end-of-contents octets.
 */
static int e2v_ber_indefinite(const uint8_t *p, const uint8_t *end, size_t *len,
			      const uint8_t **after)
{
	const uint8_t *start = p;
	unsigned int level = 1;

	for (;;) {
		size_t l, n;
		uint8_t tag;

		if (end - p < 2)
			return -1;
		tag = *p++;
		if (tag == 0) {
			if (*p++ != 0)
				return -1;
			if (--level == 0) {
				*len = p - 2 - start;
				*after = p;
				return 0;
			}
			continue;
		}
		if ((tag & 0x1f) == 0x1f) {
			do {
				if (end - p < 2)
					return -1;
			} while (*p++ & 0x80);
		}
		l = *p++;
		if (l == 0x80) {
			if (!(tag & 0x20))
				return -1;
			level++;
			continue;
		}
		if (l > 0x80) {
			n = l - 0x80;
			if (n > sizeof(size_t) - 1 || n > (size_t)(end - p))
				return -1;
			for (l = 0; n; n--)
				l = l << 8 | *p++;
		}
		if (l > (size_t)(end - p))
			return -1;
		p += l;
	}
}

/*
 * The element at b->p if its tag matches @tag as the kernel matches tags (an
 * expected constructed tag also takes the primitive form), or any tag when
 * @any: 0 when read, 1 when absent (at the end, or another tag: nothing is
 * consumed), -1 when the kernel's decoder would fail here.
 */
static int e2v_ber_read(struct e2v_ber *b, uint8_t tag, int any, struct e2v_tlv *t)
{
	const uint8_t *p = b->p;
	size_t len, n = 0;

	if (p == b->end)
		return 1;
	/* the decoder wants a tag and a length octet before it compares tags */
	if (b->end - p < 2)
		return -1;
	t->start = p;
	t->tag = *p++;
	if ((t->tag & 0x1f) == 0x1f)
		return -1;
	if (!any) {
		if ((tag ^ t->tag) & ~(tag & 0x20))
			return 1;
		if (tag != t->tag)
			*b->not_der = 1;
	}
	len = *p++;
	if (len == 0x80) {
		if (!(t->tag & 0x20) || b->end - p < 2)
			return -1;
		*b->not_der = 1;
		t->val = p;
		if (e2v_ber_indefinite(p, b->end, &t->len, &t->end))
			return -1;
		b->p = t->end;
		return 0;
	}
	if (len > 0x80) {
		n = len - 0x80;
		if (n > 2 || n > (size_t)(b->end - p))
			return -1;
		for (len = 0; n; n--)
			len = len << 8 | *p++;
		if (len < 0x80 || (p[-2] == 0 && len > 0))
			*b->not_der = 1;
	}
	if (len > (size_t)(b->end - p))
		return -1;
	t->val = p;
	t->len = len;
	t->end = p + len;
	b->p = t->end;
	return 0;
}

static int e2v_ber_opt(struct e2v_ber *b, uint8_t tag, struct e2v_tlv *t)
{
	return e2v_ber_read(b, tag, 0, t);
}

static int e2v_ber_need(struct e2v_ber *b, uint8_t tag, struct e2v_tlv *t)
{
	return e2v_ber_read(b, tag, 0, t) ? -1 : 0;
}

static int e2v_ber_any(struct e2v_ber *b, struct e2v_tlv *t)
{
	return e2v_ber_read(b, 0, 1, t) ? -1 : 0;
}

/* a reader over the contents of @t */
static struct e2v_ber e2v_ber_sub(const struct e2v_ber *b, const struct e2v_tlv *t)
{
	return (struct e2v_ber){ t->val, t->val + t->len, b->not_der };
}

/* the kernel's decoder fails a constructed element whose contents are not all read */
static int e2v_ber_done(const struct e2v_ber *b)
{
	return b->p == b->end ? 0 : -1;
}

static int e2v_algid(struct e2v_ber *b, struct e2v_algid *a)
{
	struct e2v_tlv t, o, prm;
	struct e2v_ber s;
	int r;

	if (e2v_ber_need(b, 0x30, &t))
		return -1;
	s = e2v_ber_sub(b, &t);
	if (e2v_ber_need(&s, 0x06, &o))
		return -1;
	a->oid = e2v_contents(&o);
	a->params = (struct e2v_span){ NULL, 0 };
	r = e2v_ber_read(&s, 0, 1, &prm);
	if (r < 0)
		return -1;
	if (r == 0)
		a->params = e2v_whole(&prm);
	return e2v_ber_done(&s);
}

/* Name ::= SEQUENCE OF SET OF SEQUENCE { OID, ANY }; each OF takes one element at least */
static int e2v_name(struct e2v_ber *b, struct e2v_span *contents)
{
	struct e2v_tlv t, rdn, ava, x;
	struct e2v_ber s, r, a;

	if (e2v_ber_need(b, 0x30, &t))
		return -1;
	*contents = e2v_contents(&t);
	s = e2v_ber_sub(b, &t);
	do {
		if (e2v_ber_need(&s, 0x31, &rdn))
			return -1;
		r = e2v_ber_sub(&s, &rdn);
		do {
			if (e2v_ber_need(&r, 0x30, &ava))
				return -1;
			a = e2v_ber_sub(&r, &ava);
			if (e2v_ber_need(&a, 0x06, &x) || e2v_ber_any(&a, &x) || e2v_ber_done(&a))
				return -1;
		} while (r.p != r.end);
	} while (s.p != s.end);
	return 0;
}

/* Certificate ::= ANY, which pkcs7_extract_cert() wants to be a SEQUENCE */
static int e2v_p7_certs(struct e2v_ber *b, struct e2v_p7 *m, int keep)
{
	struct e2v_tlv c;

	do {
		if (e2v_ber_any(b, &c) || c.tag != 0x30)
			return -1;
		if (keep) {
			if (m->ncerts == E2V_P7_MAX_CERTS)
				return -1;
			m->certs[m->ncerts++] = e2v_whole(&c);
		}
	} while (b->p != b->end);
	return 0;
}

/* the certificates [0] or [2] and crls [1] or [3] of a SignedData, both optional */
static int e2v_p7_cert_fields(struct e2v_ber *b, struct e2v_p7 *m)
{
	struct e2v_tlv t, l;
	struct e2v_ber s, q;
	int r;

	r = e2v_ber_opt(b, 0xa0, &t);
	if (r == 1) {
		r = e2v_ber_opt(b, 0xa2, &t);
		if (r == 0)
			*b->not_der = 1;
	}
	if (r < 0)
		return -1;
	if (r == 0) {
		s = e2v_ber_sub(b, &t);
		if (e2v_p7_certs(&s, m, 1))
			return -1;
	}
	/* each CertificateList is a SEQUENCE OF Certificate, parsed as certificates */
	r = e2v_ber_opt(b, 0xa1, &t);
	if (r == 1)
		r = e2v_ber_opt(b, 0xa3, &t);
	if (r < 0)
		return -1;
	if (r == 0) {
		s = e2v_ber_sub(b, &t);
		do {
			if (e2v_ber_need(&s, 0x30, &l))
				return -1;
			q = e2v_ber_sub(&s, &l);
			if (e2v_p7_certs(&q, m, 0))
				return -1;
		} while (s.p != s.end);
	}
	return 0;
}

/* Attribute ::= SEQUENCE { OID, SET OF ANY }, each value recorded when @si is given */
static int e2v_p7_attr(struct e2v_ber *b, struct e2v_p7_signer *si)
{
	struct e2v_tlv t, o, vals, v;
	struct e2v_ber s, vs;

	if (e2v_ber_need(b, 0x30, &t))
		return -1;
	s = e2v_ber_sub(b, &t);
	if (e2v_ber_need(&s, 0x06, &o) || e2v_ber_need(&s, 0x31, &vals) || e2v_ber_done(&s))
		return -1;
	vs = e2v_ber_sub(&s, &vals);
	do {
		if (e2v_ber_any(&vs, &v))
			return -1;
		if (si) {
			if (si->nattrs == E2V_P7_MAX_ATTRS)
				return -1;
			si->attrs[si->nattrs++] =
				(struct e2v_p7_attr){ e2v_contents(&o), v.tag, e2v_contents(&v) };
		}
	} while (vs.p != vs.end);
	return 0;
}

static int e2v_p7_attrs(struct e2v_ber *b, struct e2v_p7_signer *si)
{
	do {
		if (e2v_p7_attr(b, si))
			return -1;
	} while (b->p != b->end);
	return 0;
}

static int e2v_p7_signer(struct e2v_ber *b, struct e2v_p7_signer *si)
{
	struct e2v_tlv t, x, ias;
	struct e2v_ber s, q;
	int r;

	memset(si, 0, sizeof(*si));
	if (e2v_ber_need(b, 0x30, &t))
		return -1;
	s = e2v_ber_sub(b, &t);
	if (e2v_ber_need(&s, 0x02, &x))
		return -1;
	si->version = e2v_contents(&x);

	/* SignerIdentifier: issuerAndSerialNumber, or [0] subjectKeyIdentifier */
	r = e2v_ber_opt(&s, 0x30, &ias);
	if (r < 0)
		return -1;
	if (r == 0) {
		q = e2v_ber_sub(&s, &ias);
		if (e2v_name(&q, &si->issuer) || e2v_ber_need(&q, 0x02, &x) || e2v_ber_done(&q))
			return -1;
		si->serial = e2v_contents(&x);
	} else {
		if (e2v_ber_need(&s, 0x80, &x))
			return -1;
		si->sid_skid = 1;
		si->skid = e2v_contents(&x);
	}
	if (e2v_algid(&s, &si->digest))
		return -1;

	r = e2v_ber_opt(&s, 0xa0, &x);
	if (r < 0)
		return -1;
	if (r == 0) {
		si->aa = E2V_P7_AA_SET;
		si->aa_hashed =
			(struct e2v_span){ x.start + 1, (size_t)(x.val - x.start - 1) + x.len };
		q = e2v_ber_sub(&s, &x);
		if (e2v_p7_attrs(&q, si))
			return -1;
	} else {
		r = e2v_ber_opt(&s, 0xa2, &x);
		if (r < 0)
			return -1;
		if (r == 0) {
			struct e2v_tlv seq;
			struct e2v_ber w;

			si->aa = E2V_P7_AA_SEQ;
			q = e2v_ber_sub(&s, &x);
			if (e2v_ber_need(&q, 0x30, &seq) || e2v_ber_done(&q))
				return -1;
			w = e2v_ber_sub(&q, &seq);
			if (e2v_p7_attrs(&w, si))
				return -1;
		}
	}
	if (e2v_algid(&s, &si->pkey) || e2v_ber_need(&s, 0x04, &x))
		return -1;
	si->sig = e2v_contents(&x);

	r = e2v_ber_opt(&s, 0xa1, &x);
	if (r == 1)
		r = e2v_ber_opt(&s, 0xa3, &x);
	if (r < 0)
		return -1;
	if (r == 0) {
		q = e2v_ber_sub(&s, &x);
		if (e2v_p7_attrs(&q, NULL))
			return -1;
	}
	return e2v_ber_done(&s);
}

static int e2v_p7_signed_data(struct e2v_ber *b, struct e2v_p7 *m)
{
	struct e2v_tlv t, x, ci, c;
	struct e2v_ber s, q;
	int r;

	if (e2v_ber_need(b, 0x30, &t))
		return -1;
	s = e2v_ber_sub(b, &t);
	if (e2v_ber_need(&s, 0x02, &x))
		return -1;
	m->version = e2v_contents(&x);

	/* digestAlgorithms: a SET OF, or a SEQUENCE OF; the kernel reads no more of it */
	r = e2v_ber_opt(&s, 0x31, &x);
	if (r == 1) {
		r = e2v_ber_opt(&s, 0x30, &x);
		if (r == 0)
			*b->not_der = 1;
	}
	if (r)
		return -1;
	q = e2v_ber_sub(&s, &x);
	do {
		struct e2v_algid a;

		if (e2v_algid(&q, &a))
			return -1;
		if (m->ndigests < E2V_P7_MAX_DIGESTS)
			m->digests[m->ndigests++] = a;
		else
			m->digests_more = 1;
	} while (q.p != q.end);

	/* contentInfo: its type, and content only if not detached */
	if (e2v_ber_need(&s, 0x30, &ci))
		return -1;
	q = e2v_ber_sub(&s, &ci);
	if (e2v_ber_need(&q, 0x06, &x))
		return -1;
	m->content_type = e2v_contents(&x);
	r = e2v_ber_opt(&q, 0xa0, &x);
	if (r < 0)
		return -1;
	if (r == 0) {
		struct e2v_ber w = e2v_ber_sub(&q, &x);

		if (e2v_ber_any(&w, &c) || e2v_ber_done(&w))
			return -1;
		m->has_content = 1;
	}
	if (e2v_ber_done(&q))
		return -1;

	if (e2v_p7_cert_fields(&s, m))
		return -1;

	r = e2v_ber_opt(&s, 0x31, &x);
	if (r == 1) {
		r = e2v_ber_opt(&s, 0x30, &x);
		if (r == 0)
			*b->not_der = 1;
	}
	if (r)
		return -1;
	q = e2v_ber_sub(&s, &x);
	do {
		if (m->nsigners == E2V_P7_MAX_SIGNERS)
			return -1;
		if (e2v_p7_signer(&q, &m->signers[m->nsigners++]))
			return -1;
	} while (q.p != q.end);
	return e2v_ber_done(&s);
}

errcode_t e2v_p7_parse(const uint8_t *der, size_t len, struct e2v_p7 *m)
{
	struct e2v_ber b = { der, der + len, &m->not_der }, s;
	struct e2v_tlv t, x;
	int r;

	memset(m, 0, sizeof(*m));
	/* the decoder's limit (not reachable with fs-verity's 16128 bytes) */
	if (len > 65535 || e2v_ber_need(&b, 0x30, &t))
		return E2VERITY_ET_SIG_MALFORMED;
	s = e2v_ber_sub(&b, &t);
	if (e2v_ber_need(&s, 0x06, &x))
		return E2VERITY_ET_SIG_MALFORMED;
	m->type = e2v_contents(&x);
	r = e2v_ber_opt(&s, 0xa0, &x);
	if (r < 0)
		return E2VERITY_ET_SIG_MALFORMED;
	if (r == 0) {
		struct e2v_ber w = e2v_ber_sub(&s, &x);

		if (e2v_p7_signed_data(&w, m) || e2v_ber_done(&w))
			return E2VERITY_ET_SIG_MALFORMED;
		m->has_signed_data = 1;
	}
	if (e2v_ber_done(&s))
		return E2VERITY_ET_SIG_MALFORMED;
	/* the decoder stops at the end of the message, whatever follows it */
	m->trailing = b.end - b.p;
	return 0;
}

static int e2v_x509_tbs(struct e2v_ber *b, struct e2v_x509 *c)
{
	struct e2v_tlv t, x, v;
	struct e2v_ber s, q;
	int r;

	if (e2v_ber_need(b, 0x30, &t))
		return -1;
	c->tbs = (struct e2v_span){ t.start, (size_t)(t.val - t.start) + t.len };
	s = e2v_ber_sub(b, &t);
	r = e2v_ber_opt(&s, 0xa0, &x);
	if (r < 0)
		return -1;
	if (r == 0) {
		q = e2v_ber_sub(&s, &x);
		if (e2v_ber_need(&q, 0x02, &v) || e2v_ber_done(&q))
			return -1;
	}
	if (e2v_ber_need(&s, 0x02, &x))
		return -1;
	c->serial = e2v_contents(&x);
	if (e2v_algid(&s, &c->sig_alg) || e2v_name(&s, &c->issuer))
		return -1;

	if (e2v_ber_need(&s, 0x30, &x))
		return -1;
	q = e2v_ber_sub(&s, &x);
	for (int i = 0; i < 2; i++) {
		r = e2v_ber_opt(&q, 0x17, &v);
		if (r == 1)
			r = e2v_ber_opt(&q, 0x18, &v);
		if (r)
			return -1;
		if (i == 0) {
			c->not_before_tag = v.tag;
			c->not_before = e2v_contents(&v);
		} else {
			c->not_after_tag = v.tag;
			c->not_after = e2v_contents(&v);
		}
	}
	if (e2v_ber_done(&q) || e2v_name(&s, &c->subject))
		return -1;

	if (e2v_ber_need(&s, 0x30, &x))
		return -1;
	c->spki = e2v_whole(&x);
	q = e2v_ber_sub(&s, &x);
	if (e2v_algid(&q, &c->key_alg) || e2v_ber_need(&q, 0x03, &v) || e2v_ber_done(&q))
		return -1;
	c->key = e2v_contents(&v);

	if (e2v_ber_opt(&s, 0x81, &x) < 0 || e2v_ber_opt(&s, 0x82, &x) < 0)
		return -1;
	r = e2v_ber_opt(&s, 0xa3, &x);
	if (r < 0)
		return -1;
	if (r == 0) {
		struct e2v_tlv exts, ext, o, crit, val;
		struct e2v_ber w, e;

		q = e2v_ber_sub(&s, &x);
		if (e2v_ber_need(&q, 0x30, &exts) || e2v_ber_done(&q))
			return -1;
		w = e2v_ber_sub(&q, &exts);
		do {
			enum e2v_oid id;

			if (e2v_ber_need(&w, 0x30, &ext))
				return -1;
			e = e2v_ber_sub(&w, &ext);
			if (e2v_ber_need(&e, 0x06, &o) || e2v_ber_opt(&e, 0x01, &crit) < 0 ||
			    e2v_ber_need(&e, 0x04, &val) || e2v_ber_done(&e))
				return -1;
			id = e2v_oid_lookup(e2v_contents(&o));
			if (id == E2V_OID_SKID) {
				if (c->skid_count++ == 0)
					c->skid_ext = e2v_contents(&val);
			} else if (id == E2V_OID_AKID) {
				c->has_akid = 1;
				c->akid_ext = e2v_contents(&val);
			}
		} while (w.p != w.end);
	}
	return e2v_ber_done(&s);
}

errcode_t e2v_x509_parse(const uint8_t *der, size_t len, struct e2v_x509 *c)
{
	int not_der = 0;
	struct e2v_ber b = { der, der + len, &not_der }, s;
	struct e2v_tlv t, x;

	memset(c, 0, sizeof(*c));
	if (len > 65535 || e2v_ber_need(&b, 0x30, &t))
		return E2VERITY_ET_SIG_MALFORMED;
	c->der = (struct e2v_span){ der, (size_t)(t.end - der) };
	s = e2v_ber_sub(&b, &t);
	if (e2v_x509_tbs(&s, c) || e2v_algid(&s, &c->outer_alg) || e2v_ber_need(&s, 0x03, &x) ||
	    e2v_ber_done(&s))
		return E2VERITY_ET_SIG_MALFORMED;
	c->sig = e2v_contents(&x);
	return 0;
}

errcode_t e2v_akid_parse(struct e2v_span ext, struct e2v_akid *a)
{
	int not_der = 0;
	struct e2v_ber b = { ext.p, ext.p + ext.len, &not_der }, s, q;
	struct e2v_tlv t, x, gn;
	int r;

	memset(a, 0, sizeof(*a));
	if (e2v_ber_need(&b, 0x30, &t))
		return E2VERITY_ET_SIG_MALFORMED;
	s = e2v_ber_sub(&b, &t);
	r = e2v_ber_opt(&s, 0x80, &x);
	if (r < 0)
		return E2VERITY_ET_SIG_MALFORMED;
	if (r == 0) {
		a->keyid = e2v_contents(&x);
		a->has_keyid = 1;
	}
	r = e2v_ber_opt(&s, 0xa1, &x);
	if (r < 0)
		return E2VERITY_ET_SIG_MALFORMED;
	if (r == 0) {
		q = e2v_ber_sub(&s, &x);
		do {
			if (e2v_ber_any(&q, &gn))
				return E2VERITY_ET_SIG_MALFORMED;
			/* directoryName [4] holds a Name; the kernel keeps the last one */
			if (gn.tag == 0xa4) {
				struct e2v_ber w = e2v_ber_sub(&q, &gn);

				if (e2v_name(&w, &a->name) || e2v_ber_done(&w))
					return E2VERITY_ET_SIG_MALFORMED;
				a->has_name = 1;
			}
		} while (q.p != q.end);
	}
	r = e2v_ber_opt(&s, 0x82, &x);
	if (r < 0)
		return E2VERITY_ET_SIG_MALFORMED;
	if (r == 0) {
		a->serial = e2v_contents(&x);
		a->has_serial = 1;
	}
	return e2v_ber_done(&s) ? E2VERITY_ET_SIG_MALFORMED : 0;
}

static int e2v_digits(const uint8_t *p, unsigned int *v)
{
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return -1;
	*v = (p[0] - '0') * 10 + (p[1] - '0');
	return 0;
}

/* days from 1970-01-01 to a date of the proleptic Gregorian calendar */
static int64_t e2v_days(unsigned int y, unsigned int m, unsigned int d)
{
	int64_t yy = y - (m <= 2);
	int64_t era = yy / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

int e2v_asn1_time(uint8_t tag, struct e2v_span v, int64_t *t)
{
	static const uint8_t month_days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const uint8_t *p = v.p;
	unsigned int year, hi, mon, day, hour, min, sec, mdays;

	if (tag == 0x17) {
		if (v.len != 13 || e2v_digits(p, &year))
			return -1;
		year += year >= 50 ? 1900 : 2000;
		p += 2;
	} else if (tag == 0x18) {
		if (v.len != 15 || e2v_digits(p, &hi) || e2v_digits(p + 2, &year))
			return -1;
		year += hi * 100;
		/* RFC 5280: those years are UTCTime, and the kernel holds to it */
		if (year >= 1950 && year <= 2049)
			return -1;
		p += 4;
	} else {
		return -1;
	}
	if (e2v_digits(p, &mon) || e2v_digits(p + 2, &day) || e2v_digits(p + 4, &hour) ||
	    e2v_digits(p + 6, &min) || e2v_digits(p + 8, &sec) || p[10] != 'Z')
		return -1;
	if (year < 1970 || mon < 1 || mon > 12)
		return -1;
	mdays = month_days[mon - 1];
	if (mon == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		mdays = 29;
	/* 24:00:00 and leap seconds are allowed, as ISO 8601 and X.680 allow them */
	if (day < 1 || day > mdays || hour > 24 || min > 59 || sec > 60)
		return -1;
	*t = e2v_days(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
	return 0;
}

/* clang-format off */
static const struct {
	enum e2v_oid id;
	uint8_t len;
	uint8_t der[10];
} e2v_oids[] = {
	{ E2V_OID_DATA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01 } },
	{ E2V_OID_SIGNED_DATA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02 } },
	{ E2V_OID_MS_INDIRECT_DATA, 10, { 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x01, 0x04 } },
	{ E2V_OID_CONTENT_TYPE, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x03 } },
	{ E2V_OID_MESSAGE_DIGEST, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x04 } },
	{ E2V_OID_SIGNING_TIME, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x05 } },
	{ E2V_OID_SMIME_CAPS, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0f } },
	{ E2V_OID_MS_OPUS_INFO, 10, { 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x01, 0x0c } },
	{ E2V_OID_MS_STATEMENT_TYPE, 10, { 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x01, 0x0b } },
	{ E2V_OID_MD4, 8, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x04 } },
	{ E2V_OID_MD5, 8, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05 } },
	{ E2V_OID_SHA1, 5, { 0x2b, 0x0e, 0x03, 0x02, 0x1a } },
	{ E2V_OID_SHA256, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01 } },
	{ E2V_OID_SHA384, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02 } },
	{ E2V_OID_SHA512, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03 } },
	{ E2V_OID_SHA224, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04 } },
	{ E2V_OID_SHA3_256, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x08 } },
	{ E2V_OID_SHA3_384, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x09 } },
	{ E2V_OID_SHA3_512, 9, { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x0a } },
	{ E2V_OID_SM3, 8, { 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11 } },
	{ E2V_OID_STREEBOG256, 8, { 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02 } },
	{ E2V_OID_STREEBOG512, 8, { 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x03 } },
	{ E2V_OID_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 } },
	{ E2V_OID_MD4_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x03 } },
	{ E2V_OID_SHA1_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05 } },
	{ E2V_OID_RSA_PSS, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a } },
	{ E2V_OID_SHA256_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b } },
	{ E2V_OID_SHA384_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c } },
	{ E2V_OID_SHA512_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d } },
	{ E2V_OID_SHA224_RSA, 9, { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0e } },
	{ E2V_OID_ECDSA_SHA1, 7, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01 } },
	{ E2V_OID_ECDSA_SHA224, 8, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x01 } },
	{ E2V_OID_ECDSA_SHA256, 8, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02 } },
	{ E2V_OID_ECDSA_SHA384, 8, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03 } },
	{ E2V_OID_ECDSA_SHA512, 8, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04 } },
	{ E2V_OID_EC_PUBLIC_KEY, 7, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 } },
	{ E2V_OID_P192, 8, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x01 } },
	{ E2V_OID_P256, 8, { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 } },
	{ E2V_OID_P384, 5, { 0x2b, 0x81, 0x04, 0x00, 0x22 } },
	{ E2V_OID_P521, 5, { 0x2b, 0x81, 0x04, 0x00, 0x23 } },
	{ E2V_OID_SKID, 3, { 0x55, 0x1d, 0x0e } },
	{ E2V_OID_AKID, 3, { 0x55, 0x1d, 0x23 } },
};
/* clang-format on */

enum e2v_oid e2v_oid_lookup(struct e2v_span oid)
{
	for (size_t i = 0; i < E2V_ARRAY_SIZE(e2v_oids); i++)
		if (oid.len == e2v_oids[i].len && memcmp(oid.p, e2v_oids[i].der, oid.len) == 0)
			return e2v_oids[i].id;
	return E2V_OID_UNKNOWN;
}
