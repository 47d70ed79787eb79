//! ElGamal encryption and signatures on `numcrypt-limbs` and
//! `numcrypt-prime`, in safe-prime groups: the RFC 3526 MODP and RFC 7919
//! FFDHE groups (2048 to 8192 bits), groups made from a fresh safe prime,
//! and `2^2048 − 1942289`, a safe prime of the special form `2^k − c`.
//!
//! # Which mode to use
//! **The hybrid mode ([`PublicKey::seal`] / [`SecretKey::open`]) is the one
//! to pick.** It is ElGamal key agreement (`c = g^r`, shared `y^r`) followed
//! by HKDF-SHA256 and ChaCha20-Poly1305 (the DHIES/ECIES pattern, as in
//! HPKE):
//! - it is secure against chosen-ciphertext attacks (a modified
//!   ciphertext fails to open), where textbook ElGamal is malleable by
//!   design: anyone can multiply the hidden message by a factor of their
//!   choice;
//! - it takes messages of any length, where textbook ElGamal encrypts one
//!   group element (at most 255 bytes in a 2048-bit group) per two
//!   exponentiations and doubles the size;
//! - the key derivation hashes the shared element, so nothing depends on
//!   how messages map into the group.
//!
//! Textbook ElGamal ([`PublicKey::encrypt`], [`SecretKey::decrypt`]) is
//! here for what only it offers: the multiplicative homomorphism
//! ([`Ciphertext::mul`]) and re-randomization ([`PublicKey::rerandomize`]),
//! the building blocks of mix-nets and voting schemes. It is semantically
//! secure (under DDH) because everything stays in the subgroup of squares,
//! which has prime order `q = (p − 1)/2`: messages are encoded into it
//! reversibly ([`Group::encode_message`]), and decryption refuses elements
//! outside it.
//!
//! ElGamal signatures ([`SecretKey::sign`], [`PublicKey::verify`]) follow
//! the original definition (ElGamal 1985), hashed: `r = g^k mod p`,
//! `s = (H(m) − x r) k⁻¹ mod (p − 1)`, accepted when
//! `g^H(m) ≡ y^r r^s (mod p)`; a [`Signature`] is the pair `(r, s)`, in
//! DER as `SEQUENCE { r INTEGER, s INTEGER }` (the shape of DSA's
//! `Dss-Sig-Value`, and the same type). **For new systems, use DSA
//! (`numcrypt-dsa`) or Schnorr signatures instead:** their signatures are
//! a tenth the size, verification is cheaper, and their security arguments
//! are far better understood; this scheme is here for old protocols and for
//! study. Its known pitfalls are handled:
//! - verification rejects `r ∉ [1, p − 1]` and `s ∉ [0, p − 2]`: without
//!   the bound on `r`, one signature yields a forgery on any message
//!   (Bleichenbacher, "Generating ElGamal signatures without knowing the
//!   secret key", Eurocrypt 1996);
//! - it also rejects `r ≡ 0 (mod q)` (`r = q` or `p − 1`): in a
//!   safe-prime group with a small generator (here `g` is 2 or 4) the
//!   discrete logarithm of `q` is known (`q^(q−1) = 2`, for instance),
//!   which is Bleichenbacher's trapdoor: `(r, s) = (q, t·H(m))` would
//!   verify for every message. Honest signatures never have such an `r`
//!   (`r = g^k` is a square, `p − 1` never is, and `q` only with
//!   probability `1/q`);
//! - the message is hashed (no existential forgery on raw exponents);
//! - `k` is never reused: it comes from RFC 6979's HMAC-DRBG over `p − 1`
//!   (keyed by `x` and the hash, optionally with fresh randomness), and is
//!   accepted only when coprime to `p − 1 = 2q` (odd, and not `q`);
//! - `s = 0` would give away a linear relation on `x`: a new `k` is drawn.
//!
//! ```
//! use numcrypt_elgamal::{NamedGroup, PublicKey, SecretKey};
//! use sha2::Sha256;
//! # use rand_core::SeedableRng;
//! # let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1); // any CryptoRng
//!
//! let key = SecretKey::generate(&NamedGroup::Ffdhe2048.group(), &mut rng)?;
//! let public: &PublicKey = key.public_key();
//!
//! // Hybrid: any length, authenticated.
//! let sealed = public.seal(&mut rng, b"meet at noon", b"header")?;
//! assert_eq!(&key.open(&sealed, b"header")?[..], b"meet at noon");
//! assert!(key.open(&sealed, b"other header").is_err());
//!
//! // Textbook, homomorphic: E(a)·E(b) decrypts to a·b.
//! let group = key.group();
//! let (a, b) = (group.encode_message(b"a")?, group.encode_message(b"b")?);
//! let product = public.encrypt(&mut rng, &a)?.mul(&public.encrypt(&mut rng, &b)?, group);
//! let decrypted = key.decrypt(&product)?;
//! # let _ = decrypted;
//!
//! // Signatures (prefer DSA for new designs).
//! let signature = key.sign::<Sha256>(b"message")?;
//! public.verify::<Sha256>(b"message", &signature)?;
//! # Ok::<(), numcrypt_elgamal::Error>(())
//! ```
//!
//! # Keys on disk
//! An ElGamal key pair is a Diffie–Hellman key pair (`p`, `g`, `q`,
//! `y = g^x`), so keys are written as X9.42 Diffie–Hellman keys, which
//! `openssl pkey` reads and checks (and names the standard groups):
//! - public keys ([`PublicKey::to_public_key_pem`]): SubjectPublicKeyInfo
//!   with `dhpublicnumber` ([`DH_PUBLIC_NUMBER`], 1.2.840.10046.2.1), the
//!   group as `DomainParameters ::= SEQUENCE { p, g, q INTEGER, … }` (RFC
//!   3279), and `y` as an INTEGER in the bit string; PEM label
//!   `PUBLIC KEY`;
//! - private keys ([`SecretKey::to_pkcs8_pem`]): PKCS#8 with the same
//!   algorithm identifier and `x` as an INTEGER; PEM label `PRIVATE KEY`;
//! - signatures: DER `SEQUENCE { r, s INTEGER }`; ciphertexts: `c1 ‖ c2`,
//!   each [`Group::element_len`] bytes; sealed messages: the encapsulation
//!   (`element_len` bytes), then the ChaCha20-Poly1305 ciphertext and tag.
//!
//! Reading also accepts PKCS#3 `dhKeyAgreement` keys ([`DH_KEY_AGREEMENT`],
//! `SEQUENCE { p, g, … }`, what `openssl genpkey -algorithm DH` writes),
//! with `q = (p − 1)/2`. Either way the group must be a safe-prime group
//! with `g` a square; a standard group is recognised by its `p` and `g`.
//!
//! # The RustCrypto traits
//! [`SecretKey`] implements `signature`'s `Signer`, `RandomizedSigner`,
//! `DigestSigner`, `RandomizedDigestSigner` and `Keypair`, and `pkcs8`'s
//! `DecodePrivateKey`/`EncodePrivateKey`; [`PublicKey`] implements
//! `Verifier`, `DigestVerifier` and `spki`'s `DecodePublicKey`/
//! `EncodePublicKey`; [`Signature`] is a `SignatureEncoding` (DER). The
//! plain `Signer` and `Verifier` hash with SHA-256.
//!
//! # Constant time
//! Key generation, encryption, decryption, decapsulation, message encoding
//! and decoding, and signing are constant time in the secrets (`x`, `r`,
//! `k`, the plaintext; a decoded message's length is public). Exponents
//! are uniform in `[1, q − 1]` and exponentiated over the bit length of
//! `q` with the fixed-window exponentiation. Verification and the checks
//! on received elements (Jacobi symbols) handle public values and are
//! variable time.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod encoding;
mod error;
mod group;
mod keys;
mod limits;
mod primes;
mod signature;
pub mod stream;
mod traits;

pub use encoding::{DH_KEY_AGREEMENT, DH_PUBLIC_NUMBER};
pub use error::Error;
pub use group::{Element, Group, NamedGroup};
pub use keys::{Ciphertext, PublicKey, SecretKey, SharedSecret};
pub use limits::{MAX_GROUP_BITS, MIN_GROUP_BITS};
pub use numcrypt_common::{Signature, Subgroup};

pub use numcrypt_limbs::BoxedUint;
pub use sha2;
