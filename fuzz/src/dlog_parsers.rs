//! Fuzz check of the parsers of `numcrypt-dsa` and `numcrypt-elgamal`:
//! every input must give a value or a typed error, never a panic, and
//! whatever parses must survive a round trip.
//!
//! # Input format
//! - byte 0: the parser, modulo 10: 0 a DSA signature (DER), 1 a DSA
//!   signature (P1363, for the RFC 6979 2048-bit parameters), 2 DSA
//!   parameters (DER), 3 DSA parameters (PEM text), 4 a DSA public key
//!   (SubjectPublicKeyInfo DER), 5 a DSA private key (PKCS#8 DER), 6 an
//!   ElGamal public key (DER), 7 an ElGamal private key (PKCS#8 DER), 8 an
//!   ElGamal ciphertext in ffdhe2048, 9 a sealed message opened with a
//!   fixed ffdhe2048 key.
//! - the rest: the bytes to parse.
//!
//! Strict DER has one encoding per value, so a DSA signature or parameter
//! set that parses must re-encode to exactly the input.

use numcrypt_dsa::{DomainParameters, Signature, SigningKey, VerifyingKey};
use numcrypt_elgamal::{Ciphertext, NamedGroup, PublicKey, SecretKey};
use numcrypt_limbs::BoxedUint;

/// RFC 6979's 2048-bit DSA parameters (appendix A.2.2).
fn rfc6979_params() -> DomainParameters {
    let hex = |s: &str| -> BoxedUint { format!("0x{s}").parse().expect("hex") };
    DomainParameters::new(
        hex(concat!(
            "9DB6FB5951B66BB6FE1E140F1D2CE5502374161FD6538DF1648218642F0B5C48",
            "C8F7A41AADFA187324B87674FA1822B00F1ECF8136943D7C55757264E5A1A44F",
            "FE012E9936E00C1D3E9310B01C7D179805D3058B2A9F4BB6F9716BFE6117C6B5",
            "B3CC4D9BE341104AD4A80AD6C94E005F4B993E14F091EB51743BF33050C38DE2",
            "35567E1B34C3D6A5C0CEAA1A0F368213C3D19843D0B4B09DCB9FC72D39C8DE41",
            "F1BF14D4BB4563CA28371621CAD3324B6A2D392145BEBFAC748805236F5CA2FE",
            "92B871CD8F9C36D3292B5509CA8CAA77A2ADFC7BFD77DDA6F71125A7456FEA15",
            "3E433256A2261C6A06ED3693797E7995FAD5AABBCFBE3EDA2741E375404AE25B",
        )),
        hex("F2C3119374CE76C9356990B465374A17F23F9ED35089BD969F61C6DDE9998C1F"),
        hex(concat!(
            "5C7FF6B06F8F143FE8288433493E4769C4D988ACE5BE25A0E24809670716C613",
            "D7B0CEE6932F8FAA7C44D2CB24523DA53FBE4F6EC3595892D1AA58C4328A06C4",
            "6A15662E7EAA703A1DECF8BBB2D05DBE2EB956C142A338661D10461C0D135472",
            "085057F3494309FFA73C611F78B32ADBB5740C361C9F35BE90997DB2014E2EF5",
            "AA61782F52ABEB8BD6432C4DD097BC5423B285DAFB60DC364E8161F4A2A35ACA",
            "3A10B1C4D203CC76A470A33AFDCBDD92959859ABD8B56E1725252D78EAC66E71",
            "BA9AE3F1DD2487199874393CD4D832186800654760E1E34C09E4D155179F9EC0",
            "DC4473F996BDCE6EED1CABED8B6F116F7AD9CF505DF0F998E34AB27514B0FFE7",
        )),
    )
    .expect("RFC 6979 parameters")
}

/// A fixed ffdhe2048 key (`x = 2^200 + 12345`).
fn elgamal_key() -> SecretKey {
    let x: BoxedUint = "0x100000000000000000000000000000000000000000000000003039"
        .parse()
        .expect("hex");
    SecretKey::from_components(NamedGroup::Ffdhe2048.group(), &x).expect("x < q")
}

/// Runs one input; panics if a parser panics or a round trip fails.
pub fn check(data: &[u8]) {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    match mode % 10 {
        0 => {
            if let Ok(sig) = Signature::from_der(bytes) {
                assert_eq!(sig.to_der(), bytes, "strict DER re-encodes exactly");
            }
        }
        1 => {
            let params = rfc6979_params();
            if let Ok(sig) = Signature::from_p1363(bytes, params.scalar_len()) {
                assert_eq!(sig.to_p1363(params.scalar_len()).expect("fits"), bytes);
            }
        }
        2 => {
            if let Ok(params) = DomainParameters::from_der(bytes) {
                assert_eq!(params.to_der(), bytes, "strict DER re-encodes exactly");
            }
        }
        3 => {
            if let Ok(text) = std::str::from_utf8(bytes)
                && let Ok(params) = DomainParameters::from_pem(text)
            {
                let again = DomainParameters::from_pem(&params.to_pem()).expect("round trip");
                assert_eq!(again, params);
                assert_eq!(
                    again.validation_parameters(),
                    params.validation_parameters()
                );
            }
        }
        4 => {
            if let Ok(key) = VerifyingKey::from_public_key_der(bytes) {
                let der = key.to_public_key_der().expect("encodes");
                assert_eq!(der, bytes, "strict DER re-encodes exactly");
            }
        }
        5 => {
            if let Ok(key) = SigningKey::from_pkcs8_der(bytes) {
                let der = key.to_pkcs8_der().expect("encodes");
                assert_eq!(SigningKey::from_pkcs8_der(&der).expect("round trip"), key);
            }
        }
        6 => {
            if let Ok(key) = PublicKey::from_public_key_der(bytes) {
                let der = key.to_public_key_der().expect("encodes");
                assert_eq!(
                    PublicKey::from_public_key_der(&der).expect("round trip"),
                    key
                );
            }
        }
        7 => {
            if let Ok(key) = SecretKey::from_pkcs8_der(bytes) {
                let der = key.to_pkcs8_der().expect("encodes");
                assert_eq!(SecretKey::from_pkcs8_der(&der).expect("round trip"), key);
            }
        }
        8 => {
            let group = NamedGroup::Ffdhe2048.group();
            if let Ok(c) = Ciphertext::from_bytes(bytes, &group) {
                assert_eq!(c.to_bytes(&group), bytes);
                let key = elgamal_key();
                // Valid elements always decrypt; the message may not decode.
                key.decrypt(&c).expect("subgroup elements decrypt");
                let _ = key.decrypt_message(&c);
            }
        }
        _ => {
            // Anything but a sealed message from this key fails to open.
            let _ = elgamal_key().open(bytes, b"");
        }
    }
}
