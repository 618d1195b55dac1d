/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkcs7.h - internal: signatures and certificates read as the kernel's BER decoder reads them */
#ifndef E2VERITY_PKCS7_H
#define E2VERITY_PKCS7_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* bytes inside the message being read; never copied */
struct e2v_span {
	const uint8_t *p;
	size_t len;
};

/* the object identifiers whose meaning the kernel's rules depend on */
enum e2v_oid {
	E2V_OID_UNKNOWN,
	E2V_OID_DATA,
	E2V_OID_SIGNED_DATA,
	E2V_OID_MS_INDIRECT_DATA,
	E2V_OID_CONTENT_TYPE,
	E2V_OID_MESSAGE_DIGEST,
	E2V_OID_SIGNING_TIME,
	E2V_OID_SMIME_CAPS,
	E2V_OID_MS_OPUS_INFO,
	E2V_OID_MS_STATEMENT_TYPE,
	E2V_OID_MD4,
	E2V_OID_MD5,
	E2V_OID_SHA1,
	E2V_OID_SHA224,
	E2V_OID_SHA256,
	E2V_OID_SHA384,
	E2V_OID_SHA512,
	E2V_OID_SHA3_256,
	E2V_OID_SHA3_384,
	E2V_OID_SHA3_512,
	E2V_OID_SM3,
	E2V_OID_STREEBOG256,
	E2V_OID_STREEBOG512,
	E2V_OID_RSA,
	E2V_OID_RSA_PSS,
	E2V_OID_MD4_RSA,
	E2V_OID_SHA1_RSA,
	E2V_OID_SHA224_RSA,
	E2V_OID_SHA256_RSA,
	E2V_OID_SHA384_RSA,
	E2V_OID_SHA512_RSA,
	E2V_OID_ECDSA_SHA1,
	E2V_OID_ECDSA_SHA224,
	E2V_OID_ECDSA_SHA256,
	E2V_OID_ECDSA_SHA384,
	E2V_OID_ECDSA_SHA512,
	E2V_OID_EC_PUBLIC_KEY,
	E2V_OID_P192,
	E2V_OID_P256,
	E2V_OID_P384,
	E2V_OID_P521,
	E2V_OID_SKID,
	E2V_OID_AKID,
};

/* like the kernel's look_up_OID(): the exact DER content octets, nothing else, name an OID */
enum e2v_oid e2v_oid_lookup(struct e2v_span oid);

struct e2v_algid {
	struct e2v_span oid;	/* content octets */
	struct e2v_span params; /* the whole parameters element; len 0 when absent */
};

/* the certificate fields the kernel keeps (x509.asn1, x509_akid.asn1) */
struct e2v_x509 {
	struct e2v_span der;	/* the whole certificate */
	struct e2v_span tbs;	/* tbsCertificate with its header: what its issuer signed */
	struct e2v_span serial; /* content octets, as the kernel's key ids use them */
	struct e2v_span issuer; /* Name content octets */
	struct e2v_span subject;
	struct e2v_algid sig_alg;   /* tbsCertificate.signature */
	struct e2v_algid outer_alg; /* signatureAlgorithm */
	struct e2v_span sig;	    /* signature BIT STRING content octets */
	struct e2v_span spki;	    /* SubjectPublicKeyInfo with its header */
	struct e2v_algid key_alg;   /* its algorithm */
	struct e2v_span key;	    /* its BIT STRING content octets */
	uint8_t not_before_tag, not_after_tag;
	struct e2v_span not_before, not_after;
	unsigned int skid_count;  /* subjectKeyIdentifier extensions */
	struct e2v_span skid_ext; /* the first one's extnValue content octets */
	int has_akid;
	struct e2v_span akid_ext; /* authorityKeyIdentifier extnValue content octets */
};

/* authorityKeyIdentifier as the kernel decodes it (the first keyIdentifier, a name, a serial) */
struct e2v_akid {
	struct e2v_span keyid;
	int has_keyid;
	struct e2v_span name; /* the last directoryName's Name content octets */
	int has_name;
	struct e2v_span serial;
	int has_serial;
};

#define E2V_P7_MAX_ATTRS 16
#define E2V_P7_MAX_SIGNERS 8
#define E2V_P7_MAX_CERTS 16
#define E2V_P7_MAX_DIGESTS 8

/* one value of a signed attribute: the kernel's pkcs7_sig_note_authenticated_attr() sees each */
struct e2v_p7_attr {
	struct e2v_span oid;
	uint8_t tag;
	struct e2v_span value; /* content octets */
};

enum e2v_p7_aa {
	E2V_P7_AA_NONE,
	E2V_P7_AA_SET, /* [0] IMPLICIT SET OF: hashed in place of the content digest */
	E2V_P7_AA_SEQ, /* [2] EXPLICIT SEQUENCE OF: read, but not hashed */
};

struct e2v_p7_signer {
	struct e2v_span version; /* INTEGER content octets */
	int sid_skid;		 /* sid is the [0] subjectKeyIdentifier form */
	struct e2v_span issuer;	 /* issuerAndSerialNumber: Name content octets */
	struct e2v_span serial;
	struct e2v_span skid;
	struct e2v_algid digest;
	struct e2v_algid pkey;
	struct e2v_span sig; /* encryptedDigest content octets */
	enum e2v_p7_aa aa;
	/* [0]: the bytes after its tag octet; the kernel hashes a SET tag, then these */
	struct e2v_span aa_hashed;
	unsigned int nattrs;
	struct e2v_p7_attr attrs[E2V_P7_MAX_ATTRS];
};

/* a SignedData as pkcs7.asn1 reads it */
struct e2v_p7 {
	struct e2v_span type; /* ContentInfo contentType */
	int has_signed_data;
	struct e2v_span version;
	unsigned int ndigests; /* digestAlgorithms, the first E2V_P7_MAX_DIGESTS kept */
	struct e2v_algid digests[E2V_P7_MAX_DIGESTS];
	int digests_more;
	struct e2v_span content_type;
	int has_content; /* the encapsulated content is there: not detached */
	unsigned int ncerts;
	struct e2v_span certs[E2V_P7_MAX_CERTS]; /* whole certificates */
	unsigned int nsigners;
	struct e2v_p7_signer signers[E2V_P7_MAX_SIGNERS];
	size_t trailing; /* bytes after the message, which the kernel never looks at */
	int not_der;	 /* forms the kernel's BER decoder takes and DER forbids */
};

/**
 * e2v_p7_parse() - read a built-in signature as the kernel's PKCS#7 parser does
 * @der: the signature
 * @len: its size
 * @m: the fields found; they point into @der
 *
 * Only the structure is checked (pkcs7.asn1 and the BER rules of the
 * kernel's lib/asn1_decoder.c); versions, algorithms and attributes are the
 * caller's to judge.  Certificates are located, not parsed.
 *
 * Return: 0, or E2VERITY_ET_SIG_MALFORMED if the kernel cannot decode it (or
 * it holds more signers, certificates or attributes than the limits above).
 */
errcode_t e2v_p7_parse(const uint8_t *der, size_t len, struct e2v_p7 *m);

/**
 * e2v_x509_parse() - read a certificate as the kernel's X.509 parser decodes it
 * @der: the certificate
 * @len: its size
 * @c: the fields found; they point into @der
 *
 * Return: 0, or E2VERITY_ET_SIG_MALFORMED if x509.asn1 does not decode it.
 */
errcode_t e2v_x509_parse(const uint8_t *der, size_t len, struct e2v_x509 *c);

/**
 * e2v_akid_parse() - decode an authorityKeyIdentifier extension's value
 * @ext: the extnValue content octets
 * @a: what it names
 *
 * Return: 0, or E2VERITY_ET_SIG_MALFORMED if x509_akid.asn1 does not decode it.
 */
errcode_t e2v_akid_parse(struct e2v_span ext, struct e2v_akid *a);

/**
 * e2v_asn1_time() - an X.509 time, with the kernel's x509_decode_time() rules
 * @tag: 0x17 UTCTime or 0x18 GeneralizedTime
 * @v: content octets
 * @t: seconds since the epoch
 *
 * Return: 0, or -1 for a form or a date the kernel refuses.
 */
int e2v_asn1_time(uint8_t tag, struct e2v_span v, int64_t *t);

#endif /* E2VERITY_PKCS7_H */
