//! Hostile inputs and broken generators: each is refused quickly with a
//! typed error, before the work it would have cost, and nothing panics or
//! loops.
//!
//! - a public exponent of 16383 bits (a thousand times dearer to use than
//!   65537): refused when the key is made;
//! - a 1 MiB PKCS#1 file whose `d` and `p` are 350 KB each: refused within a
//!   second (it used to cost minutes of division);
//! - encrypted PKCS#8 keys asking for PBKDF2 with 2^31 iterations or scrypt
//!   with `N = 2^30`: refused within a second, nothing derived;
//! - generators that fail or are stuck on one value: `Error::Rng`;
//! - OAEP with a hash too long for the key: an error, not a panic;
//! - signing keys that could never sign: refused at construction;
//! - multi-prime keys with too many primes, oversized or inconsistent
//!   further primes, exponents or coefficients: refused, within a second.

use std::time::{Duration, Instant};

use numcrypt_common::encrypted_key::{KdfLimit, MAX_PBKDF2_ITERATIONS, MAX_SCRYPT_MEMORY};
use numcrypt_limbs::Unsigned;
use numcrypt_rsa::pss::{Params, SaltLength};
use numcrypt_rsa::{
    BoxedUint, Error, HashAlg, KeyAlgorithm, KeyGen, MAX_PUBLIC_EXPONENT_BITS, OtherPrimeInfo,
    RsaPrivateKey, RsaPublicKey, pkcs1v15, pss,
};
use pkcs8::der::Encode;
use pkcs8::der::asn1::OctetStringRef;
use pkcs8::pkcs5::pbes2;
use rand_chacha::ChaCha20Rng;
use rand_core::{SeedableRng, TryCryptoRng, TryRng};
use std::sync::OnceLock;

fn key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        KeyGen::new(2048)
            .generate(&mut ChaCha20Rng::seed_from_u64(38))
            .unwrap()
    })
}

/// Runs `f`, asserting that it took less than a second.
fn within_a_second<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "{what} took {took:?}");
    out
}

#[test]
fn huge_public_exponent_is_refused_at_once() {
    // n = 2^16383 + 1 (odd, 16384 bits), e = 2^16382 + 1 (odd, below n).
    let n = BoxedUint::from_be_slice_auto(&[&[0x80][..], &[0; 2046], &[1]].concat());
    let e = BoxedUint::from_be_slice_auto(&[&[0x40][..], &[0; 2046], &[1]].concat());
    assert_eq!(n.bits_vartime(), 16384);
    assert_eq!(e.bits_vartime(), 16383);
    let err = within_a_second("the 16383-bit exponent", || RsaPublicKey::new(&n, &e));
    assert_eq!(
        err.unwrap_err(),
        Error::PublicExponentTooLarge {
            bits: 16383,
            max: MAX_PUBLIC_EXPONENT_BITS
        }
    );
    // The same through an SPKI-shaped PKCS#1 encoding.
    let der = numcrypt_rsa::pkcs1::RsaPublicKeyRef {
        modulus: numcrypt_rsa::der::asn1::UintRef::new(&n.to_be_bytes()).unwrap(),
        public_exponent: numcrypt_rsa::der::asn1::UintRef::new(&e.to_be_bytes()).unwrap(),
    }
    .to_der()
    .unwrap();
    assert!(matches!(
        RsaPublicKey::from_pkcs1_der(&der),
        Err(Error::PublicExponentTooLarge { .. })
    ));
    // The cap: 2^33 − 1 is read, 2^33 + 1 is not; generation keeps to it.
    let n = key().public_key().n();
    assert!(RsaPublicKey::new(n, &BoxedUint::from_u64((1 << 33) - 1, 1)).is_ok());
    assert_eq!(
        RsaPublicKey::new(n, &BoxedUint::from_u64((1 << 33) + 1, 1)).unwrap_err(),
        Error::PublicExponentTooLarge { bits: 34, max: 33 }
    );
    assert_eq!(
        KeyGen::new(2048)
            .public_exponent((1 << 33) + 1)
            .generate(&mut ChaCha20Rng::seed_from_u64(1))
            .unwrap_err(),
        Error::InvalidExponent
    );
}

/// DER of a PKCS#1 `RSAPrivateKey` with the given values (big-endian,
/// written as positive INTEGERs).
fn pkcs1_der(values: [&[u8]; 8]) -> Vec<u8> {
    fn len(out: &mut Vec<u8>, n: usize) {
        if n < 0x80 {
            out.push(n as u8);
        } else {
            let bytes = n.to_be_bytes();
            let skip = bytes.iter().take_while(|&&b| b == 0).count();
            out.push(0x80 | (bytes.len() - skip) as u8);
            out.extend_from_slice(&bytes[skip..]);
        }
    }
    let mut body = vec![0x02, 0x01, 0x00]; // version 0
    for v in values {
        let mut int = vec![];
        if v[0] & 0x80 != 0 {
            int.push(0);
        }
        int.extend_from_slice(v);
        body.push(0x02);
        len(&mut body, int.len());
        body.extend_from_slice(&int);
    }
    let mut out = vec![0x30];
    len(&mut out, body.len());
    out.extend_from_slice(&body);
    out
}

/// The hostile file of the issue: a real modulus and exponent, `d` and `p`
/// of about 350 KB each, small other values; about 700 KB of DER (under
/// 1 MiB as PEM).
fn hostile_pkcs1() -> Vec<u8> {
    let public = key().public_key();
    let (n, e) = (public.n_bytes(), public.e_bytes());
    let big = |seed: u8| -> Vec<u8> {
        (0..350_000u32)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) | 1)
            .collect()
    };
    let (d, p) = (big(7), big(11));
    pkcs1_der([&n, &e, &d, &p, &[3], &[1], &[1], &[1]])
}

#[test]
fn oversized_key_parts_are_refused_within_a_second() {
    let der = hostile_pkcs1();
    assert!(der.len() > 700_000);
    let err = within_a_second("the hostile PKCS#1 key", || {
        RsaPrivateKey::from_pkcs1_der(&der)
    });
    assert_eq!(err.unwrap_err(), Error::InconsistentKey);
    // Each constructor checks each part's size against n before any
    // arithmetic: every oversized part alone is refused.
    let k = key();
    let (d, (p, q), (dp, dq, qinv)) = (k.d(), k.primes(), k.crt_values());
    let (n, e) = (k.public_key().n(), k.public_key().e());
    let huge = BoxedUint::from_be_slice_auto(&[0x5a; 350_000]);
    let parts: [&BoxedUint; 6] = [&d, &p, &q, &dp, &dq, &qinv];
    for i in 0..6 {
        let mut v = parts;
        v[i] = &huge;
        let err = within_a_second("one oversized part", || {
            RsaPrivateKey::from_crt_components(n, e, v[0], v[1], v[2], v[3], v[4], v[5])
        });
        assert_eq!(err.unwrap_err(), Error::InconsistentKey, "part {i}");
    }
    for (d, p, q) in [(&huge, &*p, &*q), (&*d, &huge, &*q), (&*d, &*p, &huge)] {
        let err = within_a_second("from_components", || {
            RsaPrivateKey::from_components(n, e, d, p, q)
        });
        assert_eq!(err.unwrap_err(), Error::InconsistentKey);
    }
    let err = within_a_second("from_exponents_vartime", || {
        RsaPrivateKey::from_exponents_vartime(n, e, &huge)
    });
    assert_eq!(err.unwrap_err(), Error::InconsistentKey);
    // A factor wider than n used to be cut to n's width before p·q = n
    // was checked: p + 2^2048 is cut to p, whose product with q is n.
    let p_bytes = p.to_be_bytes();
    let mut wide_p = vec![1u8];
    wide_p.resize(1 + 256 - p_bytes.len(), 0);
    wide_p.extend_from_slice(&p_bytes);
    let wide_p = BoxedUint::from_be_slice_auto(&wide_p);
    assert_eq!(wide_p.bits_vartime(), 2049);
    assert_eq!(
        RsaPrivateKey::from_crt_components(n, e, &d, &wide_p, &q, &dp, &dq, &qinv).unwrap_err(),
        Error::InconsistentKey
    );
    // Values with leading zero limbs are still read.
    let padded = |x: &BoxedUint| x.resize(x.nlimbs() + 3).unwrap();
    let again = RsaPrivateKey::from_crt_components(
        &padded(n),
        &padded(e),
        &padded(&d),
        &padded(&p),
        &padded(&q),
        &padded(&dp),
        &padded(&dq),
        &padded(&qinv),
    )
    .unwrap();
    assert_eq!(&again, k);
}

/// An `EncryptedPrivateKeyInfo` with `scheme` around 48 arbitrary bytes
/// (never decrypted: the limits refuse it first).
fn encrypted_der(kdf: pbes2::Kdf) -> Vec<u8> {
    let params = pbes2::Parameters {
        kdf,
        encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [7; 16] },
    };
    pkcs8::EncryptedPrivateKeyInfoRef {
        encryption_algorithm: pkcs8::pkcs5::EncryptionScheme::Pbes2(params),
        encrypted_data: OctetStringRef::new(&[0x42; 48]).unwrap(),
    }
    .to_der()
    .unwrap()
}

#[test]
fn costly_key_derivations_are_refused_before_deriving() {
    // (pkcs5's constructor refuses such a count; its decoder does not.)
    let pbkdf2 = pbes2::Pbkdf2Params {
        salt: pbes2::Salt::try_from(&[1u8; 16][..]).unwrap(),
        iteration_count: 1 << 31,
        key_length: None,
        prf: pbes2::Pbkdf2Prf::HmacWithSha256,
    };
    let der = encrypted_der(pbkdf2.into());
    let err = within_a_second("PBKDF2 with 2^31 iterations", || {
        RsaPrivateKey::from_pkcs8_encrypted_der(&der, "password")
    });
    assert_eq!(
        err.unwrap_err(),
        Error::KdfTooCostly(KdfLimit::Pbkdf2Iterations {
            iterations: 1 << 31,
            max: MAX_PBKDF2_ITERATIONS
        })
    );
    // scrypt with N = 2^30, r = 8: 1 TiB, which would abort the process.
    let scrypt = pbes2::ScryptParams {
        salt: pbes2::Salt::try_from(&[2u8; 16][..]).unwrap(),
        cost_parameter: 1 << 30,
        block_size: 8,
        parallelization: 1,
        key_length: None,
    };
    let der = encrypted_der(scrypt.into());
    let err = within_a_second("scrypt with N = 2^30", || {
        RsaPrivateKey::from_pkcs8_encrypted_der(&der, "password")
    });
    assert_eq!(
        err.unwrap_err(),
        Error::KdfTooCostly(KdfLimit::ScryptMemory {
            bytes: 1 << 40,
            max: MAX_SCRYPT_MEMORY
        })
    );
    // Work, with little memory: p = 2^16 − 1 rounds of N = 2^14.
    let scrypt = pbes2::ScryptParams {
        cost_parameter: 1 << 14,
        parallelization: u16::MAX,
        ..scrypt
    };
    let der = encrypted_der(scrypt.into());
    assert!(matches!(
        RsaPrivateKey::from_pkcs8_encrypted_der(&der, "password"),
        Err(Error::KdfTooCostly(KdfLimit::ScryptWork { .. }))
    ));
}

#[test]
fn encrypted_keys_within_the_limits_are_read() {
    let key = key();
    let der = key.to_pkcs8_der().unwrap();
    let info = pkcs8::PrivateKeyInfoRef::try_from(der.as_slice()).unwrap();
    // What `openssl genpkey -aes256` writes: PBKDF2-SHA256, 2048 iterations.
    let params =
        pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(2048, &[3; 16], [4; 16]).unwrap();
    let doc = info.encrypt_with_params(params, "correct horse").unwrap();
    let pem = doc
        .to_pem("ENCRYPTED PRIVATE KEY", pkcs8::LineEnding::LF)
        .unwrap();
    assert_eq!(
        &RsaPrivateKey::from_pkcs8_encrypted_pem(&pem, "correct horse").unwrap(),
        key
    );
    assert_eq!(
        RsaPrivateKey::from_pkcs8_encrypted_der(doc.as_bytes(), "wrong").unwrap_err(),
        Error::KeyDecryption
    );
    assert_eq!(
        RsaPrivateKey::from_pem(&pem).unwrap_err(),
        Error::EncryptedKey
    );
}

/// A generator stuck on one value.
struct Stuck(u8);

impl TryRng for Stuck {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(u32::from_le_bytes([self.0; 4]))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(u64::from_le_bytes([self.0; 8]))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(self.0);
        Ok(())
    }
}

impl TryCryptoRng for Stuck {}

/// A generator that fails, as the operating system's can.
struct Failing;

impl TryRng for Failing {
    type Error = std::io::Error;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Err(std::io::Error::other("no entropy"))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Err(std::io::Error::other("no entropy"))
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        Err(std::io::Error::other("no entropy"))
    }
}

impl TryCryptoRng for Failing {}

/// Every operation that draws: with a stuck or a failing generator, each
/// returns `Error::Rng` (no panic, no endless loop), within a second.
#[test]
fn broken_generators_give_rng_errors() {
    fn all(rng: &mut (impl TryCryptoRng + ?Sized), what: &str) {
        // A fresh key, so that its first signature needs a fresh blinding pair.
        let key = key().clone();
        let public = key.public_key();
        fn rng_err<T>(r: Result<T, Error>, op: &str, what: &str) {
            assert_eq!(r.map(drop).unwrap_err(), Error::Rng, "{op} with {what}");
        }
        within_a_second("every operation", || {
            rng_err(
                key.sign_pkcs1v15(rng, HashAlg::Sha256, b"m"),
                "sign_pkcs1v15",
                what,
            );
            rng_err(
                key.sign_pss(rng, HashAlg::Sha256, b"m", SaltLength::Digest),
                "sign_pss",
                what,
            );
            rng_err(
                public.encrypt_pkcs1v15(rng, b"m"),
                "encrypt_pkcs1v15 (fill_nonzero)",
                what,
            );
            rng_err(
                public.encrypt_oaep(rng, HashAlg::Sha256, b"", b"m"),
                "encrypt_oaep",
                what,
            );
            let ct = public
                .encrypt_oaep(
                    &mut ChaCha20Rng::seed_from_u64(1),
                    HashAlg::Sha256,
                    b"",
                    b"m",
                )
                .unwrap();
            rng_err(
                key.decrypt_oaep(rng, HashAlg::Sha256, b"", &ct),
                "decrypt_oaep",
                what,
            );
            rng_err(key.decrypt_pkcs1v15(rng, &ct), "decrypt_pkcs1v15", what);
        });
        rng_err(KeyGen::new(2048).generate(rng), "KeyGen::generate", what);
        rng_err(
            KeyGen::new(1024).allow_weak_key_size(true).generate(rng),
            "KeyGen::generate (weak size)",
            what,
        );
    }
    for value in [0x00, 0xff, 0x3c] {
        all(
            &mut Stuck(value),
            &format!("a generator stuck on {value:#04x}"),
        );
    }
    all(&mut Failing, "a failing generator");
    // The signature traits report it too (`try_` forms).
    use signature::RandomizedSigner;
    let signer = pkcs1v15::SigningKey::try_new(key().clone(), HashAlg::Sha256).unwrap();
    assert!(signer.try_sign_with_rng(&mut Failing, b"m").is_err());
}

#[test]
fn oaep_with_a_hash_too_long_for_the_key_is_an_error() {
    // A 2048-bit key (k = 256) and a hash of 128 bytes: 2·hLen + 2 > k.
    let long = HashAlg::of::<LongHash>();
    assert_eq!(long.output_len(), 128);
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    assert_eq!(
        key()
            .public_key()
            .encrypt_oaep(&mut rng, long, b"", b"")
            .unwrap_err(),
        Error::MessageTooLong { max: 0 }
    );
}

/// A 1024-bit digest with an object identifier (SHAKE256's first 128
/// bytes, under a private-use identifier): longer than any standard hash.
#[derive(Clone, Default)]
struct LongHash(sha3::Shake256);

impl digest::HashMarker for LongHash {}

impl digest::OutputSizeUser for LongHash {
    type OutputSize = digest::consts::U128;
}

impl digest::Update for LongHash {
    fn update(&mut self, data: &[u8]) {
        digest::Update::update(&mut self.0, data);
    }
}

impl digest::FixedOutput for LongHash {
    fn finalize_into(self, out: &mut digest::Output<Self>) {
        digest::ExtendableOutput::finalize_xof_into(self.0, out);
    }
}

impl digest::Reset for LongHash {
    fn reset(&mut self) {
        *self = Self::default();
    }
}

impl digest::FixedOutputReset for LongHash {
    fn finalize_into_reset(&mut self, out: &mut digest::Output<Self>) {
        let this = core::mem::take(self);
        digest::FixedOutput::finalize_into(this, out);
    }
}

impl pkcs8::AssociatedOid for LongHash {
    const OID: pkcs8::ObjectIdentifier =
        pkcs8::ObjectIdentifier::new_unwrap("1.3.6.1.4.1.99999.38");
}

#[test]
fn signing_keys_that_could_never_sign_are_refused() {
    let key = key().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let weak = KeyGen::new(1024)
        .allow_weak_key_size(true)
        .generate(&mut rng)
        .unwrap();
    let small = Error::WeakKey {
        bits: 1024,
        min: 2048,
    };
    assert_eq!(
        pkcs1v15::SigningKey::try_new(weak.clone(), HashAlg::Sha256).unwrap_err(),
        small
    );
    assert_eq!(
        pss::SigningKey::try_new(weak.clone(), HashAlg::Sha256).unwrap_err(),
        small
    );
    // The key's opt-in travels into the signing keys made from it.
    let weak = weak.allow_weak_key();
    assert!(pkcs1v15::SigningKey::try_new(weak.clone(), HashAlg::Sha256).is_ok());
    assert!(pss::SigningKey::try_new(weak, HashAlg::Sha256).is_ok());
    assert_eq!(
        pkcs1v15::SigningKey::try_new(key.clone(), HashAlg::Sha1).unwrap_err(),
        Error::WeakHash
    );
    assert_eq!(
        pss::SigningKey::try_new(key.clone(), HashAlg::Sha1).unwrap_err(),
        Error::WeakHash
    );
    assert!(pkcs1v15::SigningKey::try_new_allowing_sha1(key.clone(), HashAlg::Sha1).is_ok());
    assert!(
        pss::SigningKey::try_with_params_allowing_sha1(key.clone(), Params::new(HashAlg::Sha1))
            .is_ok()
    );
    // An RSA-PSS key restricted to SHA-256: no PKCS#1 v1.5, no SHA-384.
    let restricted = key.clone().with_algorithm(KeyAlgorithm::RsaPss(Some(
        numcrypt_rsa::pss::PssRestriction {
            hash: HashAlg::Sha256,
            mgf1_hash: HashAlg::Sha256,
            min_salt_len: 32,
        },
    )));
    assert_eq!(
        pkcs1v15::SigningKey::try_new(restricted.clone(), HashAlg::Sha256).unwrap_err(),
        Error::KeyRestricted
    );
    assert_eq!(
        pss::SigningKey::try_new(restricted.clone(), HashAlg::Sha384).unwrap_err(),
        Error::KeyRestricted
    );
    assert!(pss::SigningKey::try_new(restricted, HashAlg::Sha256).is_ok());
    // A salt that does not fit.
    assert_eq!(
        pss::SigningKey::try_with_salt_len(key.clone(), HashAlg::Sha256, SaltLength::Bytes(300))
            .unwrap_err(),
        Error::InvalidSaltLength
    );
    // What is accepted signs through `Signer::sign`, which cannot fail
    // but for the generator or a fault.
    use signature::{Keypair, Signer, Verifier};
    let signer = pss::SigningKey::try_new(key, HashAlg::Sha384).unwrap();
    let sig = signer.sign(b"signs");
    signer.verifying_key().verify(b"signs", &sig).unwrap();
}

/// A multi-prime key's further primes get the same checks as `p` and `q`,
/// before and after the arithmetic: too many primes for the size
/// (`Error::TooManyPrimes`, from the count alone), an oversized prime,
/// exponent or coefficient, a prime missing or changed, a wrong `d_i` or
/// `t_i` (`Error::InconsistentKey`), each refused within a second.
#[test]
fn inconsistent_multi_prime_keys_are_refused() {
    let key = RsaPrivateKey::from_pem(include_str!("data/rsa2048_3primes.pem")).unwrap();
    let (d, (p, q), (dp, dq, qinv)) = (key.d(), key.primes(), key.crt_values());
    let (n, e) = (key.public_key().n(), key.public_key().e());
    let others = key.other_primes();
    let build = |others: &[OtherPrimeInfo]| {
        within_a_second("a multi-prime key", || {
            RsaPrivateKey::from_multi_prime_components(n, e, &d, &p, &q, &dp, &dq, &qinv, others)
        })
    };
    assert_eq!(build(&others).unwrap(), key);
    // Four primes at 2048 bits: OpenSSL allows three. A thousand: refused
    // from the count.
    assert_eq!(
        build(&[others[0].clone(), others[0].clone()]).unwrap_err(),
        Error::TooManyPrimes {
            primes: 4,
            max: 3,
            bits: 2048
        }
    );
    let many = vec![others[0].clone(); 1000];
    assert!(matches!(
        build(&many).unwrap_err(),
        Error::TooManyPrimes { primes: 1002, .. }
    ));
    // r_3 missing: p·q is not n (their sizes already say so).
    assert_eq!(build(&[]).unwrap_err(), Error::InconsistentKey);
    let big = |x: &BoxedUint| num_bigint::BigUint::from_bytes_be(&x.to_be_bytes());
    let boxed = |x: &num_bigint::BigUint| BoxedUint::from_be_slice_auto(&x.to_bytes_be());
    let huge = BoxedUint::from_be_slice_auto(&[0x5a; 350_000]);
    let r3 = &others[0];
    let changed = [
        ("r_3 + 2", boxed(&(big(&r3.prime) + 2u8)), 0),
        ("r_3 huge", huge.clone(), 0),
        ("r_3 = 1", BoxedUint::from_u64(1, 1), 0),
        ("d_3 + 2", boxed(&(big(&r3.exponent) + 2u8)), 1),
        (
            "d_3 + r_3 - 1",
            boxed(&(big(&r3.exponent) + big(&r3.prime) - 1u8)),
            1,
        ),
        ("d_3 huge", huge.clone(), 1),
        ("t_3 + 1", boxed(&(big(&r3.coefficient) + 1u8)), 2),
        (
            "t_3 + r_3",
            boxed(&(big(&r3.coefficient) + big(&r3.prime))),
            2,
        ),
        ("t_3 huge", huge, 2),
    ];
    for (what, value, field) in changed {
        let mut bad = r3.clone();
        *[&mut bad.prime, &mut bad.exponent, &mut bad.coefficient][field] = value;
        assert_eq!(build(&[bad]).unwrap_err(), Error::InconsistentKey, "{what}");
    }
    // p and r_3 swapped: the product is n, but qInv and t_3 belong to the
    // other order.
    let swapped = OtherPrimeInfo {
        prime: (*p).clone(),
        exponent: (*dp).clone(),
        coefficient: r3.coefficient.clone(),
    };
    assert_eq!(
        within_a_second("swapped primes", || {
            RsaPrivateKey::from_multi_prime_components(
                n,
                e,
                &d,
                &r3.prime,
                &q,
                &r3.exponent,
                &dq,
                &qinv,
                &[swapped],
            )
        })
        .unwrap_err(),
        Error::InconsistentKey
    );
}
