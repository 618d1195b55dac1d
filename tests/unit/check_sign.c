// SPDX-License-Identifier: GPL-2.0-or-later
/* check_sign.c - unit tests of lib/core/sign.c: key loading, signing, verification */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "unit.h"

/*
 * Keys and certificates are made here, at test time, with OpenSSL itself;
 * nothing private is committed.  The byte-for-byte comparison with
 * `fsverity sign` is tests/digest/sign-vs-fsverity.sh.
 */
enum {
	F_RSA_KEY,     /* RSA-2048, PKCS#8 */
	F_RSA_CERT,    /* self-signed */
	F_EC_KEY,      /* P-256, PKCS#8 */
	F_EC_CERT,     /* self-signed */
	F_EC_BOTH,     /* certificate, then key, in one file */
	F_ENC_PKCS8,   /* the EC key encrypted, PKCS#8 */
	F_ENC_TRAD,    /* the EC key encrypted, traditional "EC PRIVATE KEY" */
	F_CA_CERT,     /* a CA (its key is the RSA key) */
	F_LEAF_CERT,   /* the EC key, certified by the CA */
	F_OTHER_CA,    /* an unrelated CA: the EC certificate */
	F_BIG_CERT,    /* the EC key, with a name too long for a signature to fit */
	F_GARBAGE,     /* not PEM */
	F_LEAF_NOAKID, /* the EC key, certified by the CA, without an Authority Key Identifier */
	F_BUNDLE,      /* the CA, then the leaf: a --cert bundle in the "wrong" order */
	F_BIG_CHAIN,   /* the leaf, then the huge certificate */
	F_COUNT,
};

static const char *const fixture_names[F_COUNT] = {
	"rsa.key",  "rsa.crt",	   "ec.key",	 "ec.crt",     "ec-both.pem",
	"enc8.key", "enct.key",	   "ca.crt",	 "leaf.crt",   "other.crt",
	"big.crt",  "garbage.pem", "noakid.crt", "bundle.pem", "bigchain.pem",
};

#define PASS "correct horse"

static char tmpdir[] = "/tmp/e2verity-check_sign.XXXXXX";
static char paths[F_COUNT][64];
static uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];

static EVP_PKEY *gen_key(int rsa)
{
	EVP_PKEY *k = rsa ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");

	ck_assert_ptr_nonnull(k);
	return k;
}

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;

	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	ck_assert_ptr_nonnull(ext);
	ck_assert_int_eq(X509_add_ext(x, ext, -1), 1);
	X509_EXTENSION_free(ext);
}

/*
 * @issuer NULL: self-signed; @long_name: so many name entries that the name is ~20 KiB.
 * An issued certificate gets an Authority Key Identifier unless @no_akid.
 */
static X509 *make_cert2(EVP_PKEY *key, const char *cn, long serial, X509 *issuer,
			EVP_PKEY *issuer_key, int ca, int long_name, int no_akid)
{
	X509 *x = X509_new();
	X509_NAME *name = X509_NAME_new();

	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(X509_set_version(x, 2), 1);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	ck_assert_int_eq(X509_set_pubkey(x, key), 1);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	for (int i = 0; long_name && i < 400; i++)
		X509_NAME_add_entry_by_txt(
			name, "OU", MBSTRING_ASC,
			(const unsigned char *)"0123456789012345678901234567890123456789", -1, -1,
			0);
	ck_assert_int_eq(X509_set_subject_name(x, name), 1);
	ck_assert_int_eq(X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name), 1);
	X509_NAME_free(name);
	if (ca) {
		add_ext(x, issuer ? issuer : x, NID_basic_constraints, "critical,CA:TRUE");
		add_ext(x, issuer ? issuer : x, NID_key_usage, "critical,keyCertSign");
	}
	add_ext(x, issuer ? issuer : x, NID_subject_key_identifier, "hash");
	if (issuer && !no_akid)
		add_ext(x, issuer, NID_authority_key_identifier, "keyid:always");
	ck_assert_int_gt(X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()), 0);
	return x;
}

static X509 *make_cert(EVP_PKEY *key, const char *cn, long serial, X509 *issuer,
		       EVP_PKEY *issuer_key, int ca, int long_name)
{
	return make_cert2(key, cn, serial, issuer, issuer_key, ca, long_name, 0);
}

enum key_form { KEY_NONE, KEY_PKCS8, KEY_PKCS8_ENC, KEY_TRAD_ENC };

static void write_certs(int f, X509 *a, X509 *b)
{
	BIO *bio = BIO_new_file(paths[f], "w");

	ck_assert_ptr_nonnull(bio);
	ck_assert_int_eq(PEM_write_bio_X509(bio, a), 1);
	ck_assert_int_eq(PEM_write_bio_X509(bio, b), 1);
	BIO_free(bio);
}

static void write_pem(int f, X509 *cert, EVP_PKEY *key, enum key_form form)
{
	BIO *bio = BIO_new_file(paths[f], "w");
	int ok = 1;

	ck_assert_ptr_nonnull(bio);
	if (cert)
		ok = PEM_write_bio_X509(bio, cert);
	if (ok && form == KEY_PKCS8)
		ok = PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL);
	if (ok && form == KEY_PKCS8_ENC)
		ok = PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), PASS, strlen(PASS),
						   NULL, NULL);
	if (ok && form == KEY_TRAD_ENC)
		ok = PEM_write_bio_PrivateKey_traditional(bio, key, EVP_aes_128_cbc(),
							  (unsigned char *)PASS, strlen(PASS), NULL,
							  NULL);
	ck_assert_int_eq(ok, 1);
	BIO_free(bio);
}

static void make_fixtures(void)
{
	EVP_PKEY *rsa, *ec;
	X509 *rsa_cert, *ec_cert, *ca, *leaf, *big, *noakid;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	for (int i = 0; i < F_COUNT; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", tmpdir, fixture_names[i]);
	rsa = gen_key(1);
	ec = gen_key(0);
	rsa_cert = make_cert(rsa, "rsa", 1, NULL, NULL, 0, 0);
	ec_cert = make_cert(ec, "ec", 2, NULL, NULL, 1, 0);
	ca = make_cert(rsa, "test CA", 3, NULL, NULL, 1, 0);
	leaf = make_cert(ec, "leaf", 4, ca, rsa, 0, 0);
	big = make_cert(ec, "big", 5, NULL, NULL, 0, 1);
	noakid = make_cert2(ec, "no akid", 6, ca, rsa, 0, 0, 1);
	write_pem(F_RSA_KEY, NULL, rsa, KEY_PKCS8);
	write_pem(F_RSA_CERT, rsa_cert, NULL, KEY_NONE);
	write_pem(F_EC_KEY, NULL, ec, KEY_PKCS8);
	write_pem(F_EC_CERT, ec_cert, NULL, KEY_NONE);
	write_pem(F_EC_BOTH, ec_cert, ec, KEY_PKCS8);
	write_pem(F_ENC_PKCS8, NULL, ec, KEY_PKCS8_ENC);
	write_pem(F_ENC_TRAD, NULL, ec, KEY_TRAD_ENC);
	write_pem(F_CA_CERT, ca, NULL, KEY_NONE);
	write_pem(F_LEAF_CERT, leaf, NULL, KEY_NONE);
	write_pem(F_OTHER_CA, ec_cert, NULL, KEY_NONE);
	write_pem(F_BIG_CERT, big, NULL, KEY_NONE);
	write_pem(F_LEAF_NOAKID, noakid, NULL, KEY_NONE);
	write_certs(F_BUNDLE, ca, leaf);
	write_certs(F_BIG_CHAIN, leaf, big);
	f = fopen(paths[F_GARBAGE], "w");
	ck_assert_ptr_nonnull(f);
	fputs("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n", f);
	fclose(f);
	X509_free(rsa_cert);
	X509_free(ec_cert);
	X509_free(ca);
	X509_free(leaf);
	X509_free(big);
	X509_free(noakid);
	EVP_PKEY_free(rsa);
	EVP_PKEY_free(ec);
	ck_assert_int_eq(e2verity_hash_buf(E2VERITY_HASH_SHA512, "hello\n", 6, digest), 0);
	ERR_clear_error();
}

static void remove_fixtures(void)
{
	for (int i = 0; i < F_COUNT; i++)
		unlink(paths[i]);
	rmdir(tmpdir);
}

/* Signs with the given key and certificate; the library's error queue must stay clean. */
static void sign(int key, int cert, unsigned int alg, uint8_t **sig, size_t *sig_size)
{
	struct e2verity_signer *s;

	ck_assert_int_eq(e2verity_signer_load(paths[key], paths[cert], NULL, NULL, NULL, &s), 0);
	ck_assert_int_eq(e2verity_sign_digest(s, alg, digest, sig, sig_size), 0);
	e2verity_signer_free(s);
	ck_assert_uint_gt(*sig_size, 0);
	ck_assert_uint_le(*sig_size, E2VERITY_MAX_SIGNATURE_SIZE);
	ck_assert_uint_eq(ERR_peek_error(), 0);
}

static errcode_t verify(unsigned int alg, const uint8_t *sig, size_t sig_size, int cert, int ca)
{
	errcode_t err = e2verity_verify_signature(alg, digest, sig, sig_size, paths[cert],
						  ca < 0 ? NULL : paths[ca]);

	ck_assert_uint_eq(ERR_peek_error(), 0);
	return err;
}

/* both key types, both hashes */
static const struct {
	int key, cert;
	unsigned int alg;
} signers[] = {
	{ F_RSA_KEY, F_RSA_CERT, E2VERITY_HASH_SHA256 },
	{ F_RSA_KEY, F_RSA_CERT, E2VERITY_HASH_SHA512 },
	{ F_EC_KEY, F_EC_CERT, E2VERITY_HASH_SHA256 },
	{ F_EC_KEY, F_EC_CERT, E2VERITY_HASH_SHA512 },
};

START_TEST(test_sign_and_verify)
{
	int key = signers[_i].key, cert = signers[_i].cert;
	unsigned int alg = signers[_i].alg;
	uint8_t *sig;
	size_t sig_size;

	sign(key, cert, alg, &sig, &sig_size);
	ck_assert_uint_eq(sig[0], 0x30); /* a DER SEQUENCE */
	ck_assert_int_eq(verify(alg, sig, sig_size, cert, -1), 0);
	/* the signer's own self-signed certificate is its own trust anchor */
	ck_assert_int_eq(verify(alg, sig, sig_size, cert, cert), 0);

	/* another digest, the same digest under the other algorithm */
	digest[0] ^= 1;
	ck_assert_int_eq(verify(alg, sig, sig_size, cert, -1), E2VERITY_ET_SIG_INVALID);
	digest[0] ^= 1;
	ck_assert_int_eq(verify(alg ^ 3, sig, sig_size, cert, -1), E2VERITY_ET_SIG_INVALID);
	/* another certificate: no key of the kernel's keyring is the signer (ENOKEY) */
	ck_assert_int_eq(
		verify(alg, sig, sig_size, cert == F_RSA_CERT ? F_EC_CERT : F_RSA_CERT, -1),
		E2VERITY_ET_CERT_UNTRUSTED);
	/* one flipped bit in the signature value at the end */
	sig[sig_size - 1] ^= 1;
	ck_assert_int_eq(verify(alg, sig, sig_size, cert, -1), E2VERITY_ET_SIG_INVALID);
	free(sig);
}
END_TEST

START_TEST(test_rsa_is_deterministic)
{
	uint8_t *a, *b;
	size_t a_size, b_size;

	sign(F_RSA_KEY, F_RSA_CERT, E2VERITY_HASH_SHA256, &a, &a_size);
	sign(F_RSA_KEY, F_RSA_CERT, E2VERITY_HASH_SHA256, &b, &b_size);
	ck_assert_uint_eq(a_size, b_size);
	ck_assert_mem_eq(a, b, a_size);
	free(a);
	free(b);
}
END_TEST

/*
 * What the kernel is given: the DER of a detached SignedData without
 * attributes or certificates.  Parsed back with OpenSSL to see each of those.
 */
START_TEST(test_signature_shape)
{
	const unsigned char *p;
	uint8_t *sig;
	size_t sig_size;
	PKCS7 *p7;
	PKCS7_SIGNER_INFO *si;
	X509_ALGOR *dig, *enc;

	sign(F_EC_KEY, F_EC_CERT, E2VERITY_HASH_SHA512, &sig, &sig_size);
	p = sig;
	p7 = d2i_PKCS7(NULL, &p, sig_size);
	ck_assert_ptr_nonnull(p7);
	ck_assert_ptr_eq(p, sig + sig_size);
	ck_assert(PKCS7_type_is_signed(p7));
	ck_assert(PKCS7_get_detached(p7));
	ck_assert_int_le(sk_X509_num(p7->d.sign->cert), 0); /* -1 when absent */
	ck_assert_int_eq(sk_PKCS7_SIGNER_INFO_num(PKCS7_get_signer_info(p7)), 1);
	si = sk_PKCS7_SIGNER_INFO_value(PKCS7_get_signer_info(p7), 0);
	ck_assert_int_le(sk_X509_ATTRIBUTE_num(si->auth_attr), 0);
	PKCS7_SIGNER_INFO_get0_algs(si, NULL, &dig, &enc);
	ck_assert_int_eq(OBJ_obj2nid(dig->algorithm), NID_sha512);
	PKCS7_free(p7);
	free(sig);
}
END_TEST

/* A signature made by OpenSSL's defaults (with signed attributes) is still valid. */
START_TEST(test_verify_foreign_signature)
{
	uint8_t msg[E2VERITY_FORMATTED_DIGEST_MAX], *der = NULL;
	EVP_PKEY *key;
	X509 *cert;
	BIO *bio;
	PKCS7 *p7;
	size_t msg_len;
	int len;

	bio = BIO_new_file(paths[F_EC_BOTH], "r");
	cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
	key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	ck_assert_ptr_nonnull(cert);
	ck_assert_ptr_nonnull(key);
	ck_assert_int_eq(e2verity_formatted_digest(E2VERITY_HASH_SHA512, digest, msg, &msg_len), 0);
	ck_assert_uint_eq(msg_len, 76);
	ck_assert_mem_eq(msg, "FSVerity\x02\x00\x40\x00", 12);

	bio = BIO_new_mem_buf(msg, msg_len);
	p7 = PKCS7_sign(cert, key, NULL, bio, PKCS7_BINARY | PKCS7_DETACHED | PKCS7_NOSMIMECAP);
	ck_assert_ptr_nonnull(p7);
	len = i2d_PKCS7(p7, &der);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA512, der, len, F_EC_CERT, -1), 0);
	OPENSSL_free(der);
	der = NULL;
	PKCS7_free(p7);
	BIO_free(bio);

	/*
	 * OpenSSL's default adds S/MIME capabilities to the signed attributes,
	 * which the kernel takes from Authenticode only: it refuses the file
	 */
	bio = BIO_new_mem_buf(msg, msg_len);
	p7 = PKCS7_sign(cert, key, NULL, bio, PKCS7_BINARY | PKCS7_DETACHED);
	ck_assert_ptr_nonnull(p7);
	len = i2d_PKCS7(p7, &der);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA512, der, len, F_EC_CERT, -1),
			 E2VERITY_ET_SIG_REFUSED);
	ck_assert_int_eq(e2verity_signature_parse(der, len), E2VERITY_ET_SIG_REFUSED);
	OPENSSL_free(der);
	der = NULL;
	PKCS7_free(p7);
	BIO_free(bio);

	/* the same with the data inside: the kernel refuses it, so do we */
	bio = BIO_new_mem_buf(msg, msg_len);
	p7 = PKCS7_sign(cert, key, NULL, bio, PKCS7_BINARY);
	ck_assert_ptr_nonnull(p7);
	len = i2d_PKCS7(p7, &der);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA512, der, len, F_EC_CERT, -1),
			 E2VERITY_ET_SIG_MALFORMED);
	OPENSSL_free(der);
	PKCS7_free(p7);
	BIO_free(bio);
	X509_free(cert);
	EVP_PKEY_free(key);
}
END_TEST

START_TEST(test_malformed)
{
	static const uint8_t garbage[] = "this is not DER at all";
	uint8_t *sig, *longer;
	size_t sig_size;

	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, garbage, sizeof(garbage), F_EC_CERT, -1),
			 E2VERITY_ET_SIG_MALFORMED);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, garbage, 0, F_EC_CERT, -1),
			 E2VERITY_ET_SIG_MALFORMED);
	sign(F_EC_KEY, F_EC_CERT, E2VERITY_HASH_SHA256, &sig, &sig_size);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size - 1, F_EC_CERT, -1),
			 E2VERITY_ET_SIG_MALFORMED);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, 2, F_EC_CERT, -1),
			 E2VERITY_ET_SIG_MALFORMED);
	longer = malloc(sig_size + 1);
	ck_assert_ptr_nonnull(longer);
	memcpy(longer, sig, sig_size);
	longer[sig_size] = 0;
	/* the kernel's decoder stops at the end of the message, whatever follows */
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, longer, sig_size + 1, F_EC_CERT, -1), 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, longer, sig_size, F_EC_CERT, -1), 0);
	free(longer);
	free(sig);
}
END_TEST

START_TEST(test_load_errors)
{
	struct e2verity_signer *s = (void *)1;

	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_RSA_CERT], NULL, NULL, NULL, &s),
		E2VERITY_ET_KEY_CERT_MISMATCH);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_RSA_KEY], paths[F_EC_CERT], NULL, NULL, NULL, &s),
		E2VERITY_ET_KEY_CERT_MISMATCH);
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_GARBAGE], paths[F_EC_CERT], NULL, NULL, NULL, &s),
		E2VERITY_ET_KEY_LOAD);
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_CERT], paths[F_EC_CERT], NULL, NULL, NULL, &s),
		E2VERITY_ET_KEY_LOAD);
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_GARBAGE], NULL, NULL, NULL, &s),
		E2VERITY_ET_CERT_LOAD);
	/* without a certificate file the key file must hold one */
	ck_assert_int_eq(e2verity_signer_load(paths[F_EC_KEY], NULL, NULL, NULL, NULL, &s),
			 E2VERITY_ET_CERT_LOAD);
	ck_assert_int_eq(e2verity_signer_load("/nonexistent/key.pem", paths[F_EC_CERT], NULL, NULL,
					      NULL, &s),
			 ENOENT);
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], "/nonexistent/c.pem", NULL, NULL, NULL, &s),
		ENOENT);
	ck_assert_int_eq(e2verity_signer_load(NULL, paths[F_EC_CERT], NULL, NULL, NULL, &s),
			 E2VERITY_ET_KEY_LOAD);
	ck_assert_int_eq(e2verity_signer_load(tmpdir, paths[F_EC_CERT], NULL, NULL, NULL, &s),
			 EISDIR);
	ck_assert_int_eq(e2verity_signer_load(paths[F_EC_KEY], tmpdir, NULL, NULL, NULL, &s),
			 EISDIR);
	ck_assert_uint_eq(ERR_peek_error(), 0);
	ck_assert_ptr_null(s);
}
END_TEST

static struct {
	errcode_t err;
	char object[4096];
	int calls;
} logged;

static void log_cb(void *ctx, errcode_t err, const char *object, const char *detail)
{
	(void)detail;
	ck_assert_ptr_eq(ctx, &logged);
	logged.err = err;
	snprintf(logged.object, sizeof(logged.object), "%s", object ? object : "");
	logged.calls++;
}

/* the library names the file that failed, so callers need not guess */
static void expect_logged(const char *key, const char *cert, errcode_t want, const char *file)
{
	struct e2verity_signer *s;

	memset(&logged, 0, sizeof(logged));
	ck_assert_int_eq(e2verity_signer_load(key, cert, NULL, log_cb, &logged, &s), want);
	ck_assert_int_eq(logged.calls, 1);
	ck_assert_int_eq(logged.err, want);
	ck_assert_str_eq(logged.object, file);
}

START_TEST(test_load_errors_name_the_file)
{
	struct e2verity_signer *s;

	expect_logged("/nonexistent/key.pem", paths[F_EC_CERT], ENOENT, "/nonexistent/key.pem");
	expect_logged(paths[F_EC_KEY], "/nonexistent/c.pem", ENOENT, "/nonexistent/c.pem");
	expect_logged(paths[F_GARBAGE], paths[F_EC_CERT], E2VERITY_ET_KEY_LOAD, paths[F_GARBAGE]);
	expect_logged(paths[F_EC_KEY], paths[F_GARBAGE], E2VERITY_ET_CERT_LOAD, paths[F_GARBAGE]);
	expect_logged(paths[F_EC_KEY], paths[F_RSA_CERT], E2VERITY_ET_KEY_CERT_MISMATCH,
		      paths[F_EC_KEY]);
	expect_logged(paths[F_EC_KEY], tmpdir, EISDIR, tmpdir);
	/* what was OpenSSL's is taken along, not left behind */
	ck_assert_uint_eq(ERR_peek_error(), 0);
	/* the callback is the call's: a load without one logs nowhere */
	memset(&logged, 0, sizeof(logged));
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_GARBAGE], paths[F_EC_CERT], NULL, NULL, NULL, &s),
		E2VERITY_ET_KEY_LOAD);
	ck_assert_int_eq(logged.calls, 0);
}
END_TEST

START_TEST(test_key_and_cert_in_one_file)
{
	struct e2verity_signer *s;
	uint8_t *sig, *none;
	size_t sig_size, none_size;

	ck_assert_int_eq(e2verity_signer_load(paths[F_EC_BOTH], NULL, NULL, NULL, NULL, &s), 0);
	ck_assert_int_eq(e2verity_sign_digest(s, E2VERITY_HASH_SHA256, digest, &sig, &sig_size), 0);
	ck_assert_int_eq(e2verity_sign_digest(s, 9, digest, &none, &none_size),
			 E2VERITY_ET_BAD_HASH_ALG);
	ck_assert_ptr_null(none);
	e2verity_signer_free(s);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_EC_CERT, -1), 0);
	ck_assert_int_eq(verify(9, sig, sig_size, F_EC_CERT, -1), E2VERITY_ET_BAD_HASH_ALG);
	free(sig);
}
END_TEST

static const int encrypted[] = { F_ENC_PKCS8, F_ENC_TRAD };

START_TEST(test_encrypted_key)
{
	struct e2verity_signer *s;
	int key = encrypted[_i];
	uint8_t *sig;
	size_t sig_size;

	/* never a prompt: stdin may be a terminal when the tests are run by hand */
	ck_assert_int_eq(e2verity_signer_load(paths[key], paths[F_EC_CERT], NULL, NULL, NULL, &s),
			 E2VERITY_ET_KEY_PASS_NEEDED);
	ck_assert_int_eq(
		e2verity_signer_load(paths[key], paths[F_EC_CERT], "wrong", NULL, NULL, &s),
		E2VERITY_ET_KEY_BAD_PASS);
	ck_assert_int_eq(e2verity_signer_load(paths[key], paths[F_EC_CERT], "", NULL, NULL, &s),
			 E2VERITY_ET_KEY_BAD_PASS);
	ck_assert_uint_eq(ERR_peek_error(), 0);
	ck_assert_int_eq(e2verity_signer_load(paths[key], paths[F_EC_CERT], PASS, NULL, NULL, &s),
			 0);
	ck_assert_int_eq(e2verity_sign_digest(s, E2VERITY_HASH_SHA256, digest, &sig, &sig_size), 0);
	e2verity_signer_free(s);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_EC_CERT, -1), 0);
	free(sig);
	/* a pass phrase for a key that has none is not needed, and harmless */
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_EC_CERT], PASS, NULL, NULL, &s), 0);
	e2verity_signer_free(s);
}
END_TEST

START_TEST(test_ca)
{
	uint8_t *sig;
	size_t sig_size;

	sign(F_EC_KEY, F_LEAF_CERT, E2VERITY_HASH_SHA256, &sig, &sig_size);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, -1), 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_CA_CERT), 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_OTHER_CA),
			 E2VERITY_ET_CERT_UNTRUSTED);
	/*
	 * the kernel finds a certificate's issuer by key identifier: a keyring
	 * certificate with the CA's key is the CA, whatever its name
	 */
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_RSA_CERT), 0);
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_GARBAGE),
			 E2VERITY_ET_CA_LOAD);
	ck_assert_int_eq(e2verity_verify_signature(E2VERITY_HASH_SHA256, digest, sig, sig_size,
						   paths[F_LEAF_CERT], "/nonexistent/ca.pem"),
			 E2VERITY_ET_CA_LOAD);
	/*
	 * the leaf has the key of the self-signed EC certificate, but not its
	 * issuer and serial number, by which the kernel looks the signer up
	 */
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_EC_CERT, -1),
			 E2VERITY_ET_CERT_UNTRUSTED);
	/* a bad signature is reported as such even when the CA is right */
	digest[1] ^= 1;
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_CA_CERT),
			 E2VERITY_ET_SIG_INVALID);
	digest[1] ^= 1;
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_GARBAGE, -1),
			 E2VERITY_ET_CERT_LOAD);
	ck_assert_int_eq(e2verity_verify_signature(E2VERITY_HASH_SHA256, digest, sig, sig_size,
						   "/nonexistent/c.pem", NULL),
			 ENOENT);
	ck_assert_int_eq(
		e2verity_verify_signature(E2VERITY_HASH_SHA256, digest, sig, sig_size, NULL, NULL),
		E2VERITY_ET_CERT_LOAD);
	free(sig);
}
END_TEST

/* The issuer name is in every signature: a huge one cannot fit after the descriptor. */
START_TEST(test_sig_too_large)
{
	struct e2verity_signer *s;
	uint8_t *sig = (void *)1;
	size_t sig_size = 1;

	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_BIG_CERT], NULL, NULL, NULL, &s), 0);
	ck_assert_int_eq(e2verity_sign_digest(s, E2VERITY_HASH_SHA256, digest, &sig, &sig_size),
			 E2VERITY_ET_SIG_TOO_LARGE);
	ck_assert_ptr_null(sig);
	ck_assert_uint_eq(sig_size, 0);
	ck_assert_uint_eq(ERR_peek_error(), 0);
	e2verity_signer_free(s);
}
END_TEST

/* A verifier loads its files once, says which one failed, and verifies as the files would. */
static void expect_verifier_error(const char *cert, const char *ca, errcode_t want,
				  const char *file)
{
	struct e2verity_verifier *v = (void *)1;

	memset(&logged, 0, sizeof(logged));
	ck_assert_int_eq(e2verity_verifier_load(cert, ca, log_cb, &logged, &v), want);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(logged.calls, 1);
	ck_assert_int_eq(logged.err, want);
	ck_assert_str_eq(logged.object, file);
	ck_assert_uint_eq(ERR_peek_error(), 0);
}

START_TEST(test_verifier)
{
	struct e2verity_verifier *v;
	uint8_t *sig;
	size_t sig_size;

	expect_verifier_error("/nonexistent/c.pem", NULL, ENOENT, "/nonexistent/c.pem");
	expect_verifier_error(paths[F_LEAF_CERT], "/nonexistent/ca.pem", ENOENT,
			      "/nonexistent/ca.pem");
	expect_verifier_error(paths[F_GARBAGE], paths[F_CA_CERT], E2VERITY_ET_CERT_LOAD,
			      paths[F_GARBAGE]);
	expect_verifier_error(paths[F_LEAF_CERT], paths[F_GARBAGE], E2VERITY_ET_CA_LOAD,
			      paths[F_GARBAGE]);
	expect_verifier_error(NULL, tmpdir, EISDIR, tmpdir);
	ck_assert_int_eq(e2verity_verifier_load(NULL, NULL, NULL, NULL, &v), E2VERITY_ET_CERT_LOAD);

	sign(F_EC_KEY, F_LEAF_CERT, E2VERITY_HASH_SHA256, &sig, &sig_size);
	ck_assert_int_eq(
		e2verity_verifier_load(paths[F_LEAF_CERT], paths[F_CA_CERT], NULL, NULL, &v), 0);
	/* one verifier, many signatures */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(
			e2verity_verifier_verify(v, E2VERITY_HASH_SHA256, digest, sig, sig_size),
			0);
	digest[0] ^= 1;
	ck_assert_int_eq(e2verity_verifier_verify(v, E2VERITY_HASH_SHA256, digest, sig, sig_size),
			 E2VERITY_ET_SIG_INVALID);
	digest[0] ^= 1;
	e2verity_verifier_free(v);
	ck_assert_int_eq(
		e2verity_verifier_load(paths[F_LEAF_CERT], paths[F_OTHER_CA], NULL, NULL, &v), 0);
	ck_assert_int_eq(e2verity_verifier_verify(v, E2VERITY_HASH_SHA256, digest, sig, sig_size),
			 E2VERITY_ET_CERT_UNTRUSTED);
	e2verity_verifier_free(v);
	ck_assert_uint_eq(ERR_peek_error(), 0);
	free(sig);
}
END_TEST

/* Errors the caller had queued before the call are still there after it. */
START_TEST(test_error_queue_preserved)
{
	struct e2verity_signer *s;
	unsigned long mine;

	ERR_raise(ERR_LIB_USER, 42);
	mine = ERR_peek_error();
	ck_assert_uint_ne(mine, 0);
	ck_assert_int_eq(e2verity_signer_load(paths[F_GARBAGE], NULL, NULL, NULL, NULL, &s),
			 E2VERITY_ET_KEY_LOAD);
	ck_assert_int_eq(e2verity_verify_signature(E2VERITY_HASH_SHA256, digest,
						   (const uint8_t *)"xx", 2, paths[F_EC_CERT],
						   NULL),
			 E2VERITY_ET_SIG_MALFORMED);
	ck_assert_uint_eq(ERR_get_error(), mine);
	ck_assert_uint_eq(ERR_get_error(), 0);
}
END_TEST

/* The certificates a DER signature carries. */
static int sig_certs(const uint8_t *sig, size_t sig_size)
{
	const unsigned char *p = sig;
	PKCS7 *p7 = d2i_PKCS7(NULL, &p, sig_size);
	int n;

	ck_assert_ptr_nonnull(p7);
	n = sk_X509_num(p7->d.sign->cert);
	PKCS7_free(p7);
	return n < 0 ? 0 : n;
}

static void sign_with(struct e2verity_signer *s, uint8_t **sig, size_t *sig_size)
{
	ck_assert_int_eq(e2verity_sign_digest(s, E2VERITY_HASH_SHA256, digest, sig, sig_size), 0);
	ck_assert_uint_eq(ERR_peek_error(), 0);
}

static errcode_t verify_ca(const uint8_t *sig, size_t sig_size, int ca)
{
	errcode_t err = e2verity_verify_signature(E2VERITY_HASH_SHA256, digest, sig, sig_size, NULL,
						  ca < 0 ? NULL : paths[ca]);

	ck_assert_uint_eq(ERR_peek_error(), 0);
	return err;
}

/* A CA-issued signer carries its certificate; check --ca needs nothing else. */
START_TEST(test_embed)
{
	struct e2verity_signer *s;
	uint8_t *sig;
	size_t sig_size;

	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_LEAF_CERT], NULL, NULL, NULL, &s), 0);
	ck_assert_int_eq(e2verity_signer_embeds(s), 1);
	sign_with(s, &sig, &sig_size);
	ck_assert_int_eq(sig_certs(sig, sig_size), 1);
	ck_assert_int_eq(verify_ca(sig, sig_size, F_CA_CERT), 0);
	ck_assert_int_eq(verify_ca(sig, sig_size, F_OTHER_CA), E2VERITY_ET_CERT_UNTRUSTED);
	ck_assert_int_eq(verify_ca(sig, sig_size, -1), E2VERITY_ET_CERT_LOAD);
	/* the embedded certificate does not make a wrong digest right */
	digest[2] ^= 1;
	ck_assert_int_eq(verify_ca(sig, sig_size, F_CA_CERT), E2VERITY_ET_SIG_INVALID);
	digest[2] ^= 1;
	/* a truncated one is malformed, whatever it carries */
	ck_assert_int_eq(verify_ca(sig, sig_size - 10, F_CA_CERT), E2VERITY_ET_SIG_MALFORMED);
	free(sig);

	e2verity_signer_set_embed(s, 0);
	sign_with(s, &sig, &sig_size);
	ck_assert_int_eq(sig_certs(sig, sig_size), 0);
	ck_assert_int_eq(verify_ca(sig, sig_size, F_CA_CERT), E2VERITY_ET_SIGNER_NOT_FOUND);
	/* with the CA alone in its keyring, the kernel cannot reach the signer it does not carry */
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_CA_CERT),
			 E2VERITY_ET_CERT_UNTRUSTED);
	/* with the signer itself in it, it can */
	ck_assert_int_eq(verify(E2VERITY_HASH_SHA256, sig, sig_size, F_LEAF_CERT, F_LEAF_CERT), 0);
	free(sig);
	e2verity_signer_free(s);

	/* self-signed: no certificate unless asked */
	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_EC_CERT], NULL, NULL, NULL, &s), 0);
	ck_assert_int_eq(e2verity_signer_embeds(s), 0);
	e2verity_signer_set_embed(s, 1);
	sign_with(s, &sig, &sig_size);
	ck_assert_int_eq(sig_certs(sig, sig_size), 1);
	ck_assert_int_eq(verify_ca(sig, sig_size, F_EC_CERT), 0);
	free(sig);
	e2verity_signer_free(s);
}
END_TEST

/* A bundle: the certificate that matches the key signs, the others ride along. */
START_TEST(test_bundle)
{
	struct e2verity_signer *s;
	uint8_t *sig;
	size_t sig_size;

	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_BUNDLE], NULL, NULL, NULL, &s), 0);
	sign_with(s, &sig, &sig_size);
	ck_assert_int_eq(sig_certs(sig, sig_size), 2);
	ck_assert_int_eq(verify_ca(sig, sig_size, F_CA_CERT), 0);
	free(sig);
	e2verity_signer_free(s);
}
END_TEST

/* The kernel chains a certificate to its CA only by Authority Key Identifier. */
START_TEST(test_no_akid)
{
	struct e2verity_signer *s;
	uint8_t *sig;
	size_t sig_size;

	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_LEAF_NOAKID], NULL, NULL, NULL, &s),
		0);
	sign_with(s, &sig, &sig_size);
	ck_assert_int_eq(verify_ca(sig, sig_size, F_CA_CERT), E2VERITY_ET_CERT_UNTRUSTED);
	free(sig);
	e2verity_signer_free(s);
}
END_TEST

START_TEST(test_chain_too_large)
{
	struct e2verity_signer *s;
	uint8_t *sig = (void *)1;
	size_t sig_size = 1;

	ck_assert_int_eq(
		e2verity_signer_load(paths[F_EC_KEY], paths[F_BIG_CHAIN], NULL, NULL, NULL, &s), 0);
	ck_assert_int_eq(e2verity_sign_digest(s, E2VERITY_HASH_SHA256, digest, &sig, &sig_size),
			 E2VERITY_ET_CHAIN_TOO_LARGE);
	ck_assert_ptr_null(sig);
	ck_assert_uint_eq(ERR_peek_error(), 0);
	/* without the certificates it fits */
	e2verity_signer_set_embed(s, 0);
	sign_with(s, &sig, &sig_size);
	free(sig);
	e2verity_signer_free(s);
}
END_TEST

/* OSSL_STORE: a file: URI gives the same key, and the same RSA signature, as the file. */
START_TEST(test_store_uri)
{
	struct e2verity_signer *s;
	uint8_t *a, *b;
	size_t a_size, b_size;
	char key_uri[128], cert_uri[128], enc_uri[128];

	snprintf(key_uri, sizeof(key_uri), "file:%s", paths[F_RSA_KEY]);
	snprintf(cert_uri, sizeof(cert_uri), "file:%s", paths[F_RSA_CERT]);
	snprintf(enc_uri, sizeof(enc_uri), "file:%s", paths[F_ENC_PKCS8]);
	sign(F_RSA_KEY, F_RSA_CERT, E2VERITY_HASH_SHA256, &a, &a_size);
	ck_assert_int_eq(e2verity_signer_load(key_uri, cert_uri, NULL, NULL, NULL, &s), 0);
	sign_with(s, &b, &b_size);
	e2verity_signer_free(s);
	ck_assert_uint_eq(a_size, b_size);
	ck_assert_mem_eq(a, b, a_size);
	free(b);
	ck_assert_int_eq(e2verity_signer_load(key_uri, paths[F_RSA_CERT], NULL, NULL, NULL, &s), 0);
	e2verity_signer_free(s);
	/* encrypted behind a URI: the same pass phrase rules */
	ck_assert_int_eq(e2verity_signer_load(enc_uri, paths[F_EC_CERT], NULL, NULL, NULL, &s),
			 E2VERITY_ET_KEY_PASS_NEEDED);
	ck_assert_int_eq(e2verity_signer_load(enc_uri, paths[F_EC_CERT], "wrong", NULL, NULL, &s),
			 E2VERITY_ET_KEY_BAD_PASS);
	ck_assert_int_eq(e2verity_signer_load(enc_uri, paths[F_EC_CERT], PASS, NULL, NULL, &s), 0);
	e2verity_signer_free(s);
	ck_assert_int_eq(e2verity_signer_load("file:/nonexistent/key.pem", paths[F_EC_CERT], NULL,
					      NULL, NULL, &s),
			 E2VERITY_ET_KEY_LOAD);
	ck_assert_uint_eq(ERR_peek_error(), 0);
	free(a);
}
END_TEST

static Suite *sign_suite(void)
{
	Suite *s = suite_create("sign");
	TCase *tc = tcase_create("core");

	/* key generation is slow under valgrind */
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, make_fixtures, remove_fixtures);
	tcase_add_loop_test(tc, test_sign_and_verify, 0, sizeof(signers) / sizeof(signers[0]));
	tcase_add_test(tc, test_rsa_is_deterministic);
	tcase_add_test(tc, test_signature_shape);
	tcase_add_test(tc, test_verify_foreign_signature);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_load_errors_name_the_file);
	tcase_add_test(tc, test_key_and_cert_in_one_file);
	tcase_add_loop_test(tc, test_encrypted_key, 0, 2);
	tcase_add_test(tc, test_ca);
	tcase_add_test(tc, test_verifier);
	tcase_add_test(tc, test_sig_too_large);
	tcase_add_test(tc, test_error_queue_preserved);
	tcase_add_test(tc, test_embed);
	tcase_add_test(tc, test_bundle);
	tcase_add_test(tc, test_no_akid);
	tcase_add_test(tc, test_chain_too_large);
	tcase_add_test(tc, test_store_uri);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(sign_suite());
}
