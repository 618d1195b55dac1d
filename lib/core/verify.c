// SPDX-License-Identifier: GPL-2.0-or-later
/* verify.c - built-in signatures judged as the kernel judges them: form, algorithms, trust */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "hash.h"
#include "log.h"
#include "pkcs7.h"
#include "sign.h"
#include "verify.h"

/*
 * OpenSSL's PKCS7_verify() is not the kernel: it takes public-key and digest
 * algorithms, versions and content types the kernel refuses, and refuses
 * messages the kernel takes (an outer digestAlgorithms set it cannot use,
 * bytes after the message, a subjectKeyIdentifier signer).  So the message is
 * read with the kernel's rules (pkcs7.c) and judged here step by step as
 * crypto/asymmetric_keys/ judges it; OpenSSL only hashes and checks RSA and
 * ECDSA signatures over digests.  Where Linux 6.1 and 6.12 differ (MD5, SHA-3,
 * the P-192 and P-521 curves), what one of them refuses is refused.
 */

/* a key id of the kernel's asymmetric keys: two byte strings end to end */
struct e2v_id {
	struct e2v_span a, b;
	int present;
};

static struct e2v_id e2v_id_of(struct e2v_span a, struct e2v_span b)
{
	return (struct e2v_id){ a, b, 1 };
}

static uint8_t e2v_id_byte(const struct e2v_id *x, size_t i)
{
	return i < x->a.len ? x->a.p[i] : x->b.p[i - x->a.len];
}

/* asymmetric_key_id_same(): a missing id matches nothing */
static int e2v_id_same(const struct e2v_id *x, const struct e2v_id *y)
{
	size_t n = x->a.len + x->b.len;

	if (!x->present || !y->present || n != y->a.len + y->b.len)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (e2v_id_byte(x, i) != e2v_id_byte(y, i))
			return 0;
	return 1;
}

/* struct public_key_signature: what is verified, and with which algorithms */
struct e2v_ksig {
	int ec;		   /* ECDSA, X9.62 encoding; else RSA, PKCS#1 v1.5 */
	enum e2v_oid hash; /* E2V_OID_SHA* */
	uint8_t digest[EVP_MAX_MD_SIZE];
	unsigned int digest_len; /* 0 when not computed */
	struct e2v_span s;
};

/* struct x509_certificate, as far as the rules below use it */
struct e2v_kcert {
	struct e2v_x509 x;
	uint8_t *owned; /* its DER, when it is not inside the signature */
	EVP_PKEY *pkey;
	int key_ec;
	struct e2v_id id, skid, akid0, akid1;
	struct e2v_ksig sig;
	int unsupported_sig;
	int64_t valid_from, valid_to;
	int self_signed;
	struct e2v_kcert *signer; /* its issuer among the message's certificates */
	int seen, trust_seen, verified;
};

struct e2v_keyring {
	unsigned int n;
	struct e2v_kcert *c;
};

/* what pkcs7_sig_note_authenticated_attr() and friends make of the signed attributes */
struct e2v_aa_info {
	int bad;
	int has_md, has_time;
	struct e2v_span md;
	int64_t time;
};

/* What signatures are verified against: the kernel's keyring, and the signer they must have */
struct e2verity_verifier {
	struct e2v_keyring keys;
	struct e2v_kcert given; /* the certificate file, when the CA file is the keyring */
	int has_given;
	int has_cert; /* a certificate file was given */
};

/* one signature being judged */
struct e2v_vctx {
	struct e2v_p7 m;
	unsigned int ncerts;
	struct e2v_kcert certs[E2V_P7_MAX_CERTS];
	struct e2v_ksig ssig[E2V_P7_MAX_SIGNERS];
	struct e2v_id sid[E2V_P7_MAX_SIGNERS];
	struct e2v_kcert *signer[E2V_P7_MAX_SIGNERS];
	const struct e2verity_verifier *ver;
};

static void e2v_add(struct e2v_sig_report *r, unsigned int code, uint64_t value, uint64_t expected)
{
	for (unsigned int i = 0; i < r->count; i++)
		if (r->f[i].code == code)
			return;
	if (r->count < E2V_SIG_MAX_FINDINGS) {
		r->f[r->count].code = code;
		r->f[r->count].value = value;
		r->f[r->count].expected = expected;
		r->count++;
	}
}

static int e2v_has_error(const struct e2v_sig_report *r)
{
	for (unsigned int i = 0; i < r->count; i++) {
		const struct e2verity_problem *p = e2verity_problem_lookup(r->f[i].code);

		if (!p || p->severity == E2VERITY_SEV_ERROR)
			return 1;
	}
	return 0;
}

static uint64_t e2v_int_value(struct e2v_span v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < v.len && i < 8; i++)
		x = x << 8 | v.p[i];
	return x;
}

/* fetched once (hash.c): the implicit fetch of EVP_sha256() costs a provider lookup each use */
static const EVP_MD *e2v_md_fetched(enum e2v_md which, const EVP_MD *implicit)
{
	const EVP_MD *md = e2v_evp_md(which);

	return md ? md : implicit;
}

static const EVP_MD *e2v_md(enum e2v_oid hash)
{
	switch (hash) {
	case E2V_OID_SHA1:
		return e2v_md_fetched(E2V_MD_SHA1, EVP_sha1());
	case E2V_OID_SHA224:
		return e2v_md_fetched(E2V_MD_SHA224, EVP_sha224());
	case E2V_OID_SHA256:
		return e2v_md_fetched(E2V_MD_SHA256, EVP_sha256());
	case E2V_OID_SHA384:
		return e2v_md_fetched(E2V_MD_SHA384, EVP_sha384());
	case E2V_OID_SHA512:
		return e2v_md_fetched(E2V_MD_SHA512, EVP_sha512());
	default:
		return NULL;
	}
}

/* the hashes every kernel from 6.1 takes for RSA (pkcs1pad) and ECDSA signatures */
static int e2v_hash_ok(enum e2v_oid hash)
{
	return e2v_md(hash) != NULL;
}

/* the hash of @len bytes after @prefix (0 for none) into @sig's digest */
static int e2v_ksig_digest(struct e2v_ksig *sig, int prefix, const uint8_t *data, size_t len)
{
	const EVP_MD *md = e2v_md(sig->hash);
	EVP_MD_CTX *ctx;
	uint8_t tag = prefix;
	int ok;

	sig->digest_len = 0;
	if (!md)
		return -1;
	ctx = EVP_MD_CTX_new();
	ok = ctx && EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
	     (!prefix || EVP_DigestUpdate(ctx, &tag, 1) == 1) &&
	     EVP_DigestUpdate(ctx, data, len) == 1 &&
	     EVP_DigestFinal_ex(ctx, sig->digest, &sig->digest_len) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		sig->digest_len = 0;
	return ok ? 0 : -1;
}

/* public_key_verify_signature(): 0, or -1 where the kernel fails it */
static int e2v_pk_verify(const struct e2v_kcert *key, const struct e2v_ksig *sig)
{
	OSSL_PARAM params[3];
	EVP_PKEY_CTX *ctx;
	unsigned int n = 0;
	int ok;

	/* the signature's algorithm must be the key's; the hash one the akcipher takes */
	if (!key->pkey || sig->ec != key->key_ec || !e2v_hash_ok(sig->hash) || !sig->digest_len)
		return -1;
	if (!key->key_ec) {
		/* crypto/rsa.c takes these modulus sizes only */
		switch (EVP_PKEY_get_size(key->pkey) * 8) {
		case 512:
		case 1024:
		case 1536:
		case 2048:
		case 3072:
		case 4096:
			break;
		default:
			return -1;
		}
	}
	/*
	 * PKCS#1 v1.5 and the digest as parameters of the init: the ctrl
	 * calls that say the same are translated into them one by one, which
	 * costs a fifth of a verification
	 */
	params[n++] = OSSL_PARAM_construct_utf8_string(
		OSSL_SIGNATURE_PARAM_DIGEST, (char *)EVP_MD_get0_name(e2v_md(sig->hash)), 0);
	if (!key->key_ec)
		params[n++] = OSSL_PARAM_construct_utf8_string(
			OSSL_SIGNATURE_PARAM_PAD_MODE, (char *)OSSL_PKEY_RSA_PAD_MODE_PKCSV15, 0);
	params[n] = OSSL_PARAM_construct_end();
	ctx = EVP_PKEY_CTX_new(key->pkey, NULL);
	ok = ctx && EVP_PKEY_verify_init_ex(ctx, params) == 1 &&
	     EVP_PKEY_verify(ctx, sig->s.p, sig->s.len, sig->digest, sig->digest_len) == 1;
	EVP_PKEY_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* x509_note_sig_algo(): the signature algorithms of certificates every kernel from 6.1 takes */
static int e2v_cert_sig_alg(enum e2v_oid alg, struct e2v_ksig *sig, int *unsupported)
{
	*unsupported = 0;
	sig->ec = 0;
	switch (alg) {
	case E2V_OID_MD4_RSA:
		/* parsed, but without the hash the certificate signs nothing */
		*unsupported = 1;
		sig->hash = E2V_OID_MD4;
		return 0;
	case E2V_OID_SHA1_RSA:
		sig->hash = E2V_OID_SHA1;
		return 0;
	case E2V_OID_SHA224_RSA:
		sig->hash = E2V_OID_SHA224;
		return 0;
	case E2V_OID_SHA256_RSA:
		sig->hash = E2V_OID_SHA256;
		return 0;
	case E2V_OID_SHA384_RSA:
		sig->hash = E2V_OID_SHA384;
		return 0;
	case E2V_OID_SHA512_RSA:
		sig->hash = E2V_OID_SHA512;
		return 0;
	case E2V_OID_ECDSA_SHA1:
	case E2V_OID_ECDSA_SHA224:
	case E2V_OID_ECDSA_SHA256:
	case E2V_OID_ECDSA_SHA384:
	case E2V_OID_ECDSA_SHA512:
		sig->ec = 1;
		sig->hash = alg == E2V_OID_ECDSA_SHA1	  ? E2V_OID_SHA1
			    : alg == E2V_OID_ECDSA_SHA224 ? E2V_OID_SHA224
			    : alg == E2V_OID_ECDSA_SHA256 ? E2V_OID_SHA256
			    : alg == E2V_OID_ECDSA_SHA384 ? E2V_OID_SHA384
							  : E2V_OID_SHA512;
		return 0;
	default:
		return -1;
	}
}

/* x509_extract_key_data(): RSA, and ECDSA on the curves of every kernel from 6.1 */
static int e2v_cert_key(struct e2v_kcert *c)
{
	const struct e2v_x509 *x = &c->x;
	struct e2v_span prm = x->key_alg.params;
	const unsigned char *p;

	switch (e2v_oid_lookup(x->key_alg.oid)) {
	case E2V_OID_RSA:
		c->key_ec = 0;
		break;
	case E2V_OID_EC_PUBLIC_KEY:
		if (prm.len < 2 || prm.p[0] != 0x06 || prm.p[1] != prm.len - 2)
			return -1;
		switch (e2v_oid_lookup((struct e2v_span){ prm.p + 2, prm.len - 2 })) {
		case E2V_OID_P256:
		case E2V_OID_P384:
			break;
		default:
			return -1;
		}
		c->key_ec = 1;
		break;
	default:
		return -1;
	}
	if (x->key.len < 1 || x->key.p[0] != 0)
		return -1;
	/* the kernel reads the key when it uses it: one OpenSSL cannot read verifies nothing */
	p = x->spki.p;
	c->pkey = d2i_PUBKEY(NULL, &p, x->spki.len);
	if (c->pkey && EVP_PKEY_get_base_id(c->pkey) != (c->key_ec ? EVP_PKEY_EC : EVP_PKEY_RSA)) {
		EVP_PKEY_free(c->pkey);
		c->pkey = NULL;
	}
	return 0;
}

/* x509_check_for_self_signed(): -1 when the kernel refuses the certificate */
static int e2v_cert_self_signed(struct e2v_kcert *c)
{
	const struct e2v_x509 *x = &c->x;

	if (x->subject.len != x->issuer.len || memcmp(x->subject.p, x->issuer.p, x->issuer.len))
		return 0;
	if (c->akid0.present || c->akid1.present) {
		int a = e2v_id_same(&c->skid, &c->akid1), b = e2v_id_same(&c->id, &c->akid0);

		if (!a && !b)
			return 0;
		if (a != b && c->akid0.present && c->akid1.present)
			return -1;
	}
	if (c->unsupported_sig)
		return 0;
	if (e2v_pk_verify(c, &c->sig))
		return -1;
	c->self_signed = 1;
	return 0;
}

/* x509_cert_parse(): 0, or -1 when the kernel refuses the certificate */
static int e2v_cert_parse(const uint8_t *der, size_t len, struct e2v_kcert *c)
{
	struct e2v_x509 *x = &c->x;
	enum e2v_oid alg;
	struct e2v_akid akid;

	if (e2v_x509_parse(der, len, x))
		return -1;
	alg = e2v_oid_lookup(x->sig_alg.oid);
	if (e2v_cert_sig_alg(alg, &c->sig, &c->unsupported_sig))
		return -1;
	/* x509_note_signature(): both algorithm fields name the same algorithm */
	if (e2v_oid_lookup(x->outer_alg.oid) != alg || x->sig.len < 1 || x->sig.p[0] != 0)
		return -1;
	c->sig.s = (struct e2v_span){ x->sig.p + 1, x->sig.len - 1 };
	if (e2v_cert_key(c) || e2v_asn1_time(x->not_before_tag, x->not_before, &c->valid_from) ||
	    e2v_asn1_time(x->not_after_tag, x->not_after, &c->valid_to))
		return -1;
	/* x509_process_extension(): one subjectKeyIdentifier, an OCTET STRING of short form */
	if (x->skid_count > 1)
		return -1;
	if (x->skid_count) {
		struct e2v_span v = x->skid_ext;

		if (v.len < 3 || v.p[0] != 0x04 || v.p[1] != v.len - 2)
			return -1;
		c->skid =
			e2v_id_of((struct e2v_span){ v.p + 2, v.len - 2 }, (struct e2v_span){ 0 });
	}
	if (x->has_akid) {
		if (e2v_akid_parse(x->akid_ext, &akid))
			return -1;
		if (akid.has_keyid)
			c->akid1 = e2v_id_of(akid.keyid, (struct e2v_span){ 0 });
		if (akid.has_name && akid.has_serial)
			c->akid0 = e2v_id_of(akid.serial, akid.name);
	}
	c->id = e2v_id_of(x->serial, x->issuer);
	if (!c->unsupported_sig)
		e2v_ksig_digest(&c->sig, 0, x->tbs.p, x->tbs.len);
	return e2v_cert_self_signed(c);
}

static void e2v_cert_free(struct e2v_kcert *c)
{
	EVP_PKEY_free(c->pkey);
	free(c->owned);
	memset(c, 0, sizeof(*c));
}

/* a certificate OpenSSL loaded, read again as the kernel reads it when keyctl adds it */
static errcode_t e2v_cert_from_x509(X509 *x, struct e2v_kcert *c)
{
	unsigned char *der = NULL;
	int len = i2d_X509(x, &der);
	uint8_t *copy;

	memset(c, 0, sizeof(*c));
	if (len <= 0)
		return E2VERITY_ET_CERT_LOAD;
	copy = malloc(len);
	if (!copy) {
		OPENSSL_free(der);
		return E2VERITY_ET_NO_MEMORY;
	}
	memcpy(copy, der, len);
	OPENSSL_free(der);
	if (e2v_cert_parse(copy, len, c)) {
		e2v_cert_free(c);
		free(copy);
		return E2VERITY_ET_CERT_UNSUPPORTED;
	}
	c->owned = copy;
	return 0;
}

static void e2v_keyring_free(struct e2v_keyring *k)
{
	for (unsigned int i = 0; i < k->n; i++)
		e2v_cert_free(&k->c[i]);
	free(k->c);
	k->c = NULL;
	k->n = 0;
}

static errcode_t e2v_keyring_add(struct e2v_keyring *k, X509 *x)
{
	struct e2v_kcert *c = realloc(k->c, (k->n + 1) * sizeof(*c));

	if (!c)
		return E2VERITY_ET_NO_MEMORY;
	k->c = c;
	if (e2v_cert_from_x509(x, &c[k->n]) == 0) {
		k->n++;
		return 0;
	}
	return E2VERITY_ET_CERT_UNSUPPORTED;
}

/*
 * Like the kernel's .fs-verity keyring, any certificate in @cafile is a trust
 * anchor (an intermediate will do), and validity dates are not checked: an
 * image is often verified long after it was signed.
 */
static errcode_t e2v_keyring_load_ca(struct e2v_keyring *k, const char *cafile)
{
	struct e2v_pass no_pass = { 0 };
	errcode_t err;
	BIO *bio;
	X509 *x;

	err = e2v_open_pem(cafile, &bio);
	if (err)
		return err;
	while (!err && (x = PEM_read_bio_X509(bio, NULL, e2v_pass_cb, &no_pass))) {
		err = e2v_keyring_add(k, x);
		X509_free(x);
	}
	BIO_free(bio);
	if (!err && !k->n)
		err = E2VERITY_ET_CA_LOAD;
	return err;
}

/* find_asymmetric_key(): an index in @k, or -ENOKEY, -EKEYREJECTED, -EINVAL */
static int e2v_find_key(const struct e2v_keyring *k, const struct e2v_id *id0,
			const struct e2v_id *id1)
{
	const struct e2v_id *look = id0->present ? id0 : id1;

	/* id1 is NULL with a signer's own id only, always present (e2v_judge_keys()) */
	E2V_ANALYZER_ASSUME(look);
	/* an empty id makes an empty "ex:" search, which the keyring refuses */
	if (!look->present || look->a.len + look->b.len == 0)
		return -EINVAL;
	for (unsigned int i = 0; i < k->n; i++) {
		if (!e2v_id_same(&k->c[i].id, look) && !e2v_id_same(&k->c[i].skid, look))
			continue;
		if (id0->present && id1 && id1->present && !e2v_id_same(id1, &k->c[i].skid))
			return -EKEYREJECTED;
		return i;
	}
	return -ENOKEY;
}

/* pkcs7_note_signed_info() and the attribute callbacks before it */
static void e2v_attrs(const struct e2v_p7 *m, const struct e2v_p7_signer *si,
		      struct e2v_aa_info *aa)
{
	enum { CT = 1, ST = 2, MD = 4, CAPS = 8, OPUS = 16, STMT = 32 };
	unsigned int seen = 0, bit;

	(void)m;
	memset(aa, 0, sizeof(*aa));
	for (unsigned int i = 0; i < si->nattrs; i++) {
		const struct e2v_p7_attr *a = &si->attrs[i];

		switch (e2v_oid_lookup(a->oid)) {
		case E2V_OID_CONTENT_TYPE:
			bit = CT;
			if (e2v_oid_lookup(a->value) != E2V_OID_DATA)
				aa->bad = 1;
			break;
		case E2V_OID_SIGNING_TIME:
			bit = ST;
			if (e2v_asn1_time(a->tag, a->value, &aa->time))
				aa->bad = 1;
			aa->has_time = 1;
			break;
		case E2V_OID_MESSAGE_DIGEST:
			bit = MD;
			if (a->tag != 0x04)
				aa->bad = 1;
			aa->md = a->value;
			aa->has_md = 1;
			break;
		/* Authenticode's only, and a file signature is not Authenticode */
		case E2V_OID_SMIME_CAPS:
			bit = CAPS;
			aa->bad = 1;
			break;
		case E2V_OID_MS_OPUS_INFO:
			bit = OPUS;
			aa->bad = 1;
			break;
		case E2V_OID_MS_STATEMENT_TYPE:
			bit = STMT;
			aa->bad = 1;
			break;
		default:
			continue;
		}
		/* one value of each, once */
		if (seen & bit)
			aa->bad = 1;
		seen |= bit;
	}
	if (si->aa == E2V_P7_AA_SET && (!(seen & CT) || !(seen & MD)))
		aa->bad = 1;
}

static int e2v_params_null(struct e2v_span p)
{
	return p.len == 0 || (p.len == 2 && p.p[0] == 0x05 && p.p[1] == 0);
}

static int e2v_same_oid(struct e2v_span a, struct e2v_span b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

/* the outer digestAlgorithms, which the kernel ignores, list the signers' and no more */
static int e2v_digest_set_usual(const struct e2v_p7 *m)
{
	if (m->digests_more)
		return 0;
	for (unsigned int i = 0; i < m->ndigests; i++) {
		int used = 0;

		for (unsigned int j = 0; j < m->nsigners; j++)
			used |= e2v_same_oid(m->digests[i].oid, m->signers[j].digest.oid);
		if (!used || !e2v_params_null(m->digests[i].params))
			return 0;
	}
	for (unsigned int j = 0; j < m->nsigners; j++) {
		int listed = 0;

		for (unsigned int i = 0; i < m->ndigests; i++)
			listed |= e2v_same_oid(m->digests[i].oid, m->signers[j].digest.oid);
		if (!listed)
			return 0;
	}
	return 1;
}

static int e2v_pkey_alg_ec(enum e2v_oid alg)
{
	switch (alg) {
	case E2V_OID_ECDSA_SHA1:
	case E2V_OID_ECDSA_SHA224:
	case E2V_OID_ECDSA_SHA256:
	case E2V_OID_ECDSA_SHA384:
	case E2V_OID_ECDSA_SHA512:
		return 1;
	default:
		return 0;
	}
}

/* pkcs7_parse_message(): everything the kernel decides before it looks at keys */
static void e2v_judge_form(struct e2v_vctx *v, const uint8_t *sig, size_t sig_size,
			   struct e2v_sig_report *rep)
{
	struct e2v_p7 *m = &v->m;
	uint64_t sd_version;
	unsigned int with_aa = 0;

	if (e2v_p7_parse(sig, sig_size, m)) {
		e2v_add(rep, E2VERITY_PR_SIG_MALFORMED, sig_size, 0);
		return;
	}
	if (m->trailing)
		e2v_add(rep, E2VERITY_PR_SIG_TRAILING_DATA, m->trailing, 0);
	if (m->not_der)
		e2v_add(rep, E2VERITY_PR_SIG_NOT_DER, 0, 0);
	/* pkcs7_check_content_type(); without content there is no signer */
	if (e2v_oid_lookup(m->type) != E2V_OID_SIGNED_DATA || !m->has_signed_data) {
		e2v_add(rep, E2VERITY_PR_SIG_MALFORMED, sig_size, 0);
		return;
	}
	sd_version = e2v_int_value(m->version);
	if (m->version.len != 1 || (sd_version != 1 && sd_version != 3))
		e2v_add(rep, E2VERITY_PR_SIG_VERSION, sd_version, 0);
	/* pkcs7_note_content() takes Authenticode too, but pkcs7_verify() does not, here */
	if (e2v_oid_lookup(m->content_type) != E2V_OID_DATA)
		e2v_add(rep, E2VERITY_PR_SIG_CONTENT_TYPE, 0, 0);
	/* pkcs7_supply_detached_data(): the kernel supplies the data itself */
	if (m->has_content)
		e2v_add(rep, E2VERITY_PR_SIG_MALFORMED, sig_size, 0);

	for (unsigned int i = 0; i < m->ncerts; i++) {
		if (e2v_cert_parse(m->certs[i].p, m->certs[i].len, &v->certs[i])) {
			e2v_add(rep, E2VERITY_PR_SIG_BAD_CERT, i + 1, 0);
			e2v_cert_free(&v->certs[i]);
			continue;
		}
		v->ncerts = i + 1;
	}
	if (e2v_has_error(rep))
		v->ncerts = 0;

	for (unsigned int i = 0; i < m->nsigners; i++) {
		const struct e2v_p7_signer *si = &m->signers[i];
		uint64_t ver = e2v_int_value(si->version);
		enum e2v_oid pk = e2v_oid_lookup(si->pkey.oid);
		struct e2v_aa_info aa;

		/*
		 * pkcs7_note_signerinfo_version(): 1 under 1, 3 under 3; a version 3
		 * signer is looked up by subject key identifier, a version 1 one by
		 * issuer and serial number, and the other form leaves its id empty
		 */
		if (si->version.len != 1 || !((ver == 1 && sd_version == 1 && !si->sid_skid) ||
					      (ver == 3 && sd_version != 1 && si->sid_skid)))
			e2v_add(rep, E2VERITY_PR_SIG_SIGNER_VERSION, ver, sd_version);
		if (!e2v_hash_ok(e2v_oid_lookup(si->digest.oid)))
			e2v_add(rep, E2VERITY_PR_SIG_DIGEST_ALG, i + 1, 0);
		if (pk != E2V_OID_RSA && !e2v_pkey_alg_ec(pk))
			e2v_add(rep, E2VERITY_PR_SIG_PKEY_ALG, i + 1, 0);
		if (!e2v_params_null(si->digest.params) || !e2v_params_null(si->pkey.params))
			e2v_add(rep, E2VERITY_PR_SIG_ALG_PARAMS, 0, 0);
		e2v_attrs(m, si, &aa);
		if (aa.bad)
			e2v_add(rep, E2VERITY_PR_SIG_ATTRIBUTES, i + 1, 0);
		with_aa += si->aa == E2V_P7_AA_SET;
	}
	/* pkcs7_check_authattrs(): all signers with signed attributes, or none */
	if (with_aa && with_aa != m->nsigners)
		e2v_add(rep, E2VERITY_PR_SIG_ATTRIBUTES, 0, 0);
	if (!e2v_digest_set_usual(m))
		e2v_add(rep, E2VERITY_PR_SIG_DIGEST_SET, 0, 0);
}

/* pkcs7_verify_sig_chain(): -1 when a certificate's signature fails its issuer's key */
static int e2v_sig_chain(struct e2v_vctx *v, struct e2v_kcert *x, unsigned int *bad)
{
	for (unsigned int i = 0; i < v->ncerts; i++)
		v->certs[i].seen = 0;
	for (;;) {
		struct e2v_kcert *p = NULL;

		x->seen = 1;
		if (x->self_signed) {
			if (!x->unsupported_sig)
				x->signer = x;
			return 0;
		}
		if (x->akid0.present) {
			for (unsigned int i = 0; i < v->ncerts && !p; i++)
				if (e2v_id_same(&v->certs[i].id, &x->akid0))
					p = &v->certs[i];
			/* issuer and serial matched: a keyIdentifier must match too */
			if (p && x->akid1.present && !e2v_id_same(&p->skid, &x->akid1)) {
				*bad = p - v->certs + 1;
				return -1;
			}
		} else if (x->akid1.present) {
			for (unsigned int i = 0; i < v->ncerts && !p; i++)
				if (e2v_id_same(&v->certs[i].skid, &x->akid1))
					p = &v->certs[i];
		}
		if (!p || p->seen)
			return 0;
		if (e2v_pk_verify(p, &x->sig)) {
			*bad = x - v->certs + 1;
			return -1;
		}
		x->signer = p;
		if (x == p)
			return 0;
		x = p;
	}
}

/*
 * pkcs7_validate_trust_one(): 0, -ENOKEY, or another error that fails the
 * file; *@wrong_type when a key of the keyring was of another type than the
 * signature it was to verify
 */
static int e2v_trust_one(struct e2v_vctx *v, unsigned int n, int *wrong_type)
{
	const struct e2v_ksig *sig = &v->ssig[n];
	struct e2v_kcert *x, *last = NULL;
	int k;

	for (x = v->signer[n]; x; x = x->signer) {
		if (x->trust_seen)
			return x->verified ? 0 : -ENOKEY;
		x->trust_seen = 1;
		k = e2v_find_key(&v->ver->keys, &x->id, &x->skid);
		if (k >= 0)
			goto matched;
		if (x->signer == x)
			return -ENOKEY;
		last = x;
		sig = &last->sig;
	}
	if (last && (last->akid0.present || last->akid1.present)) {
		k = e2v_find_key(&v->ver->keys, &last->akid0, &last->akid1);
		if (k >= 0) {
			x = last;
			goto matched;
		}
		if (k != -ENOKEY)
			return k;
	}
	/* at last, a key in the keyring that is the signer itself */
	k = e2v_find_key(&v->ver->keys, &v->sid[n], NULL);
	if (k < 0)
		return k;
	x = NULL;
	sig = &v->ssig[n];
matched:
	if (e2v_pk_verify(&v->ver->keys.c[k], sig)) {
		*wrong_type = v->ver->keys.c[k].key_ec != sig->ec;
		return -EKEYREJECTED;
	}
	if (x) {
		x->verified = 1;
		for (struct e2v_kcert *p = v->signer[n]; p && p != x; p = p->signer)
			p->verified = 1;
	}
	return 0;
}

/* pkcs7_verify() and pkcs7_validate_trust(), over the formatted digest @msg */
static void e2v_judge_keys(struct e2v_vctx *v, const uint8_t *msg, size_t msg_len,
			   struct e2v_sig_report *rep)
{
	const struct e2v_p7 *m = &v->m;
	int trusted = -ENOKEY, carried = 0;

	for (unsigned int i = 0; i < m->nsigners; i++) {
		const struct e2v_p7_signer *si = &m->signers[i];
		struct e2v_ksig *sig = &v->ssig[i];
		struct e2v_kcert *s = NULL;
		struct e2v_aa_info aa;
		unsigned int bad = 0;

		sig->ec = e2v_pkey_alg_ec(e2v_oid_lookup(si->pkey.oid));
		sig->hash = e2v_oid_lookup(si->digest.oid);
		sig->s = si->sig;
		v->sid[i] = si->sid_skid ? e2v_id_of(si->skid, (struct e2v_span){ 0 })
					 : e2v_id_of(si->serial, si->issuer);
		/* pkcs7_digest(): the signed attributes, if any, carry the data's digest */
		e2v_ksig_digest(sig, 0, msg, msg_len);
		e2v_attrs(m, si, &aa);
		if (si->aa == E2V_P7_AA_SET) {
			if (aa.md.len != sig->digest_len) {
				e2v_add(rep, E2VERITY_PR_SIG_ATTRIBUTES, i + 1, 0);
				continue;
			}
			if (memcmp(aa.md.p, sig->digest, sig->digest_len)) {
				e2v_add(rep, E2VERITY_PR_SIG_MISMATCH, 0, 0);
				continue;
			}
			e2v_ksig_digest(sig, 0x31, si->aa_hashed.p, si->aa_hashed.len);
		}
		/* pkcs7_find_key() */
		for (unsigned int j = 0; j < v->ncerts && !s; j++)
			if (e2v_id_same(&v->certs[j].id, &v->sid[i]))
				s = &v->certs[j];
		v->signer[i] = s;
		if (!s)
			continue;
		carried = 1;
		if (aa.has_time && (aa.time < s->valid_from || aa.time > s->valid_to)) {
			e2v_add(rep, E2VERITY_PR_SIG_ATTRIBUTES, i + 1, 0);
			continue;
		}
		if (e2v_pk_verify(s, sig)) {
			e2v_add(rep,
				s->key_ec != sig->ec ? E2VERITY_PR_SIG_PKEY_ALG
						     : E2VERITY_PR_SIG_MISMATCH,
				i + 1, 0);
			continue;
		}
		if (e2v_sig_chain(v, s, &bad))
			e2v_add(rep, E2VERITY_PR_SIG_BAD_CERT, bad, 0);
	}
	if (e2v_has_error(rep))
		return;

	for (unsigned int i = 0; i < v->ncerts; i++)
		v->certs[i].trust_seen = 0;
	for (unsigned int i = 0; i < m->nsigners; i++) {
		int wrong_type = 0, r = e2v_trust_one(v, i, &wrong_type);

		if (r == 0) {
			trusted = 0;
		} else if (r != -ENOKEY) {
			e2v_add(rep,
				wrong_type ? E2VERITY_PR_SIG_PKEY_ALG : E2VERITY_PR_SIG_MISMATCH,
				i + 1, 0);
			return;
		}
	}
	if (trusted) {
		e2v_add(rep,
			carried || v->ver->has_cert ? E2VERITY_PR_SIG_UNTRUSTED
						    : E2VERITY_PR_SIG_NO_SIGNER,
			0, 0);
		return;
	}
	/* with a CA as the keyring, --cert names the signer the files must have */
	if (v->ver->has_given) {
		int found = 0;

		for (unsigned int i = 0; i < m->nsigners && !found; i++)
			found = (e2v_id_same(&v->ver->given.id, &v->sid[i]) ||
				 e2v_id_same(&v->ver->given.skid, &v->sid[i])) &&
				!e2v_pk_verify(&v->ver->given, &v->ssig[i]);
		if (!found)
			e2v_add(rep, E2VERITY_PR_SIG_MISMATCH, 0, 0);
	}
}

/* As e2verity_verifier_load(); *@ca_failed says the failure was @cafile's. */
static errcode_t e2v_verifier_load(const char *certfile, const char *cafile,
				   const struct e2v_log_sink *log, struct e2verity_verifier **ret,
				   int *ca_failed)
{
	struct e2verity_verifier *v;
	const char *failed = certfile;
	int queue_was_empty;
	errcode_t err = 0;
	X509 *x = NULL;

	*ret = NULL;
	*ca_failed = 0;
	if (!certfile && !cafile)
		return E2VERITY_ET_CERT_LOAD;
	v = calloc(1, sizeof(*v));
	if (!v)
		return E2VERITY_ET_NO_MEMORY;
	queue_was_empty = ERR_peek_error() == 0;
	ERR_set_mark();
	if (certfile) {
		err = e2v_load_cert(certfile, &x);
		/* read as the kernel reads it when keyctl adds it to its keyring */
		if (!err)
			err = cafile ? e2v_cert_from_x509(x, &v->given)
				     : e2v_keyring_add(&v->keys, x);
		X509_free(x);
		v->has_given = !!cafile;
		v->has_cert = 1;
	}
	if (!err && cafile) {
		failed = cafile;
		err = e2v_keyring_load_ca(&v->keys, cafile);
	}
	if (err) {
		*ca_failed = failed == cafile;
		e2v_log_openssl(log, err, failed, queue_was_empty);
		e2verity_verifier_free(v);
		v = NULL;
	}
	ERR_pop_to_mark();
	*ret = v;
	return err;
}

errcode_t e2verity_verifier_load(const char *certfile, const char *cafile, e2verity_log_fn log,
				 void *log_ctx, struct e2verity_verifier **ret)
{
	const struct e2v_log_sink sink = { log, log_ctx };
	int ca_failed;

	return e2v_verifier_load(certfile, cafile, &sink, ret, &ca_failed);
}

void e2verity_verifier_free(struct e2verity_verifier *v)
{
	if (!v)
		return;
	e2v_keyring_free(&v->keys);
	e2v_cert_free(&v->given);
	free(v);
}

errcode_t e2v_signature_check(unsigned int alg, const uint8_t *digest, const uint8_t *sig,
			      size_t sig_size, const struct e2verity_verifier *ver,
			      struct e2v_sig_report *rep)
{
	uint8_t msg[E2VERITY_FORMATTED_DIGEST_MAX];
	struct e2v_vctx *v;
	size_t msg_len = 0;
	errcode_t err;

	memset(rep, 0, sizeof(*rep));
	if (digest) {
		err = e2verity_formatted_digest(alg, digest, msg, &msg_len);
		if (err)
			return err;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return E2VERITY_ET_NO_MEMORY;
	v->ver = ver;
	ERR_set_mark();
	e2v_judge_form(v, sig, sig_size, rep);
	if (digest && ver && !e2v_has_error(rep)) {
		e2v_judge_keys(v, msg, msg_len, rep);
		rep->verified = !e2v_has_error(rep);
	}
	for (unsigned int i = 0; i < E2V_P7_MAX_CERTS; i++)
		e2v_cert_free(&v->certs[i]);
	free(v);
	ERR_pop_to_mark();
	return 0;
}

/* the error code of a report's first error, for the callers that want one */
static errcode_t e2v_report_err(const struct e2v_sig_report *rep)
{
	for (unsigned int i = 0; i < rep->count; i++) {
		const struct e2verity_problem *p = e2verity_problem_lookup(rep->f[i].code);

		if (p && p->severity != E2VERITY_SEV_ERROR)
			continue;
		switch (rep->f[i].code) {
		case E2VERITY_PR_SIG_MALFORMED:
			return E2VERITY_ET_SIG_MALFORMED;
		case E2VERITY_PR_SIG_MISMATCH:
			return E2VERITY_ET_SIG_INVALID;
		case E2VERITY_PR_SIG_UNTRUSTED:
			return E2VERITY_ET_CERT_UNTRUSTED;
		case E2VERITY_PR_SIG_NO_SIGNER:
			return E2VERITY_ET_SIGNER_NOT_FOUND;
		default:
			return E2VERITY_ET_SIG_REFUSED;
		}
	}
	return 0;
}

errcode_t e2verity_verifier_verify(const struct e2verity_verifier *v, unsigned int alg,
				   const uint8_t *digest, const uint8_t *sig, size_t sig_size)
{
	struct e2v_sig_report rep;
	errcode_t err;

	err = e2v_signature_check(alg, digest, sig, sig_size, v, &rep);
	return err ? err : e2v_report_err(&rep);
}

errcode_t e2verity_verify_signature(unsigned int alg, const uint8_t *digest, const uint8_t *sig,
				    size_t sig_size, const char *certfile, const char *cafile)
{
	uint8_t msg[E2VERITY_FORMATTED_DIGEST_MAX];
	struct e2verity_verifier *v;
	size_t msg_len;
	int ca_failed;
	errcode_t err;

	err = e2verity_formatted_digest(alg, digest, msg, &msg_len);
	if (err)
		return err;
	if (!certfile && !cafile)
		return E2VERITY_ET_CERT_LOAD;
	/* a signature the kernel refuses whatever its keys is that, whatever the files */
	err = e2verity_signature_parse(sig, sig_size);
	if (err)
		return err;
	err = e2v_verifier_load(certfile, cafile, NULL, &v, &ca_failed);
	/* the caller could not tell an errno about @cafile from one about @certfile */
	if (err && ca_failed && err != E2VERITY_ET_NO_MEMORY && err != E2VERITY_ET_CERT_UNSUPPORTED)
		return E2VERITY_ET_CA_LOAD;
	if (err)
		return err;
	err = e2verity_verifier_verify(v, alg, digest, sig, sig_size);
	e2verity_verifier_free(v);
	return err;
}

errcode_t e2verity_signature_parse(const uint8_t *sig, size_t sig_size)
{
	struct e2v_sig_report rep;
	errcode_t err;

	err = e2v_signature_check(0, NULL, sig, sig_size, NULL, &rep);
	return err ? err : e2v_report_err(&rep);
}
