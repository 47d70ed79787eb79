//! Fuzz checks of `numcrypt-rsa`: its parsers and private operations on
//! hostile input ([`parsers`]), and the same operations compared with
//! RustCrypto's `rsa` 0.9 on one key ([`differential`]).
//!
//! # Input format
//! - byte 0: the operation (see each function);
//! - the rest: the bytes to parse, the signature or ciphertext, or the
//!   message.
//!
//! The key is `examples/data/rsa-2048.pem` (made by `openssl genpkey`),
//! parsed once.

use std::sync::OnceLock;

use numcrypt_rsa::pss::SaltLength;
use numcrypt_rsa::{HashAlg, RsaPrivateKey, RsaPublicKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rustcrypto_rsa::pkcs8::DecodePrivateKey;
use rustcrypto_rsa::sha2::Sha256;

const KEY_PEM: &str = include_str!("../../examples/data/rsa-2048.pem");
const MESSAGE: &[u8] = b"A message signed by openssl.\n";

fn key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::from_pem(KEY_PEM).expect("the example key"))
}

fn theirs() -> &'static rustcrypto_rsa::RsaPrivateKey {
    static KEY: OnceLock<rustcrypto_rsa::RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        rustcrypto_rsa::RsaPrivateKey::from_pkcs8_pem(KEY_PEM).expect("the example key")
    })
}

fn rng(data: &[u8]) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(data.len() as u64)
}

/// The same seeded generator for RustCrypto's `rsa` 0.9 (on `rand_core`
/// 0.6), so that a failing input replays exactly.
struct TheirRng(ChaCha20Rng);

impl rustcrypto_rsa::rand_core::RngCore for TheirRng {
    fn next_u32(&mut self) -> u32 {
        rand_core::Rng::next_u32(&mut self.0)
    }
    fn next_u64(&mut self) -> u64 {
        rand_core::Rng::next_u64(&mut self.0)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        rand_core::Rng::fill_bytes(&mut self.0, dest);
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rustcrypto_rsa::rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl rustcrypto_rsa::rand_core::CryptoRng for TheirRng {}

/// Byte 0 modulo 6: 0 a private key (DER: PKCS#1 or PKCS#8), 1 a private
/// key (PEM text), 2 a public key (DER: PKCS#1 or SPKI), 3 a public key
/// (PEM), 4 a signature on a fixed message (PKCS#1 v1.5, and PSS with the
/// salt length read from it), 5 a ciphertext (OAEP and PKCS#1 v1.5, the
/// latter with implicit rejection). Nothing may panic; a key that parses
/// must survive a round trip; a decryption error must be the typed one.
pub fn parsers(data: &[u8]) {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let text = std::str::from_utf8(bytes).ok();
    match mode % 6 {
        0 | 1 => {
            let parsed = match (mode % 6, text) {
                (0, _) => RsaPrivateKey::from_der(bytes),
                (_, Some(text)) => RsaPrivateKey::from_pem(text),
                (_, None) => return,
            };
            if let Ok(k) = parsed {
                let der = k.to_pkcs8_der().expect("a parsed key encodes");
                let back = RsaPrivateKey::from_der(&der).expect("its encoding parses");
                assert!(back == k, "private key round trip");
            }
        }
        2 | 3 => {
            let parsed = match (mode % 6, text) {
                (2, _) => RsaPublicKey::from_der(bytes),
                (_, Some(text)) => RsaPublicKey::from_pem(text),
                (_, None) => return,
            };
            if let Ok(k) = parsed {
                let der = k.to_public_key_der().expect("a parsed key encodes");
                assert_eq!(RsaPublicKey::from_der(&der).expect("parses"), k);
            }
        }
        4 => {
            let public = key().public_key();
            let _ = public.verify_pkcs1v15(HashAlg::Sha256, MESSAGE, bytes);
            let _ = public.verify_pss(HashAlg::Sha256, MESSAGE, bytes, SaltLength::Auto);
        }
        _ => {
            let mut rng = rng(bytes);
            if let Ok(plain) = key().decrypt_oaep(&mut rng, HashAlg::Sha256, b"", bytes) {
                assert!(plain.len() <= key().size() - 66);
            }
            // Implicit rejection: a well-sized ciphertext always "decrypts".
            let result = key().decrypt_pkcs1v15(&mut rng, bytes);
            if bytes.len() == key().size() && result.is_err() {
                let c = numcrypt_limbs::BoxedUint::from_be_slice_auto(bytes);
                assert!(c >= *key().public_key().n(), "only an out-of-range c fails");
            }
        }
    }
}

/// Byte 0 modulo 5, against RustCrypto's `rsa` on the same key: 0 PKCS#1
/// v1.5 signatures of the message (equal bytes, each verifies under the
/// other library); 1 the rest taken as a PKCS#1 v1.5 signature, 2 as a
/// salt length byte and a PSS signature (both libraries give the same
/// verdict); 3 the message OAEP
/// encrypted by RustCrypto, decrypted here, and 4 the other way round.
pub fn differential(data: &[u8]) {
    use rustcrypto_rsa::signature::{SignatureEncoding, Signer, Verifier};
    use rustcrypto_rsa::{Oaep, Pkcs1v15Sign, pkcs1v15, pss};
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let ours = key();
    let public = ours.public_key();
    let theirs = theirs();
    let their_public = theirs.to_public_key();
    let mut rng = rng(bytes);
    match mode % 5 {
        0 => {
            let sig = ours
                .sign_pkcs1v15(&mut rng, HashAlg::Sha256, bytes)
                .expect("signs");
            let their_sig = pkcs1v15::SigningKey::<Sha256>::new(theirs.clone()).sign(bytes);
            assert_eq!(
                sig,
                their_sig.to_bytes().to_vec(),
                "PKCS#1 v1.5 is deterministic"
            );
            assert!(
                public
                    .verify_pkcs1v15(HashAlg::Sha256, bytes, &their_sig.to_bytes())
                    .is_ok()
            );
        }
        1 => {
            let ok = public
                .verify_pkcs1v15(HashAlg::Sha256, MESSAGE, bytes)
                .is_ok();
            let digest = HashAlg::Sha256.digest(MESSAGE);
            let their_ok = their_public
                .verify(Pkcs1v15Sign::new::<Sha256>(), &digest, bytes)
                .is_ok();
            assert_eq!(ok, their_ok, "PKCS#1 v1.5 verdicts differ");
        }
        2 => {
            // The next byte is the salt length both verifiers expect
            // (RustCrypto 0.9 cannot read it from the signature).
            let Some((&salt_len, sig)) = bytes.split_first() else {
                return;
            };
            let salt_len = usize::from(salt_len);
            let ok = public
                .verify_pss(HashAlg::Sha256, MESSAGE, sig, SaltLength::Bytes(salt_len))
                .is_ok();
            let their_ok = pss::Signature::try_from(sig).is_ok_and(|sig| {
                pss::VerifyingKey::<Sha256>::new_with_salt_len(their_public.clone(), salt_len)
                    .verify(MESSAGE, &sig)
                    .is_ok()
            });
            assert_eq!(ok, their_ok, "PSS verdicts differ (salt length {salt_len})");
            // Reading the salt length from the signature accepts whatever
            // an explicit length accepts.
            if ok {
                assert!(
                    public
                        .verify_pss(HashAlg::Sha256, MESSAGE, sig, SaltLength::Auto)
                        .is_ok()
                );
            }
        }
        3 => {
            let msg = &bytes[..bytes.len().min(ours.size() - 66)];
            let ct = their_public
                .encrypt(&mut TheirRng(self::rng(msg)), Oaep::new::<Sha256>(), msg)
                .expect("encrypts");
            let plain = ours
                .decrypt_oaep(&mut rng, HashAlg::Sha256, b"", &ct)
                .expect("RustCrypto's ciphertext decrypts");
            assert_eq!(&plain[..], msg);
        }
        _ => {
            let msg = &bytes[..bytes.len().min(ours.size() - 66)];
            let ct = public
                .encrypt_oaep(&mut rng, HashAlg::Sha256, b"", msg)
                .expect("encrypts");
            let plain = theirs
                .decrypt(Oaep::new::<Sha256>(), &ct)
                .expect("numcrypt's ciphertext decrypts");
            assert_eq!(plain, msg);
        }
    }
}
