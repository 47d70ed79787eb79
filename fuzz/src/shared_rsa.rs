//! Fuzz check of what a shared-RSA party reads from files and peers: key
//! shares, shared public keys, partial signatures (DER and PEM) and party
//! configurations (TOML). Every input must give a value or a typed error,
//! never a panic, and whatever parses must re-encode to an equal value.
//!
//! # Input format
//! - byte 0 modulo 5: 0 a key share (DER), 1 a shared public key (DER),
//!   2 a partial signature (DER), 3 PEM text of any of the three, 4 a party
//!   configuration;
//! - the rest: the bytes to parse.

use std::path::Path;

use numcrypt_shared_rsa::{PartialSignature, PartyConfig, SharedKeyShare, SharedPublicKey};

pub fn check(data: &[u8]) {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    match mode % 5 {
        0 => {
            if let Ok(share) = SharedKeyShare::from_der(bytes) {
                let der = share.to_der().expect("encodes");
                let back = SharedKeyShare::from_der(&der).expect("parses");
                assert_eq!(back.to_der().expect("encodes"), der);
            }
        }
        1 => {
            if let Ok(public) = SharedPublicKey::from_der(bytes) {
                let der = public.to_der().expect("encodes");
                assert!(SharedPublicKey::from_der(&der).expect("parses") == public);
            }
        }
        2 => {
            if let Ok(partial) = PartialSignature::from_der(bytes) {
                let der = partial.to_der().expect("encodes");
                assert_eq!(PartialSignature::from_der(&der).expect("parses"), partial);
            }
        }
        3 => {
            if let Ok(text) = std::str::from_utf8(bytes) {
                let _ = SharedKeyShare::from_pem(text);
                let _ = SharedPublicKey::from_pem(text);
                let _ = PartialSignature::from_pem(text);
            }
        }
        _ => {
            if let Ok(text) = std::str::from_utf8(bytes)
                && let Ok(config) =
                    PartyConfig::from_toml_reading(text, Path::new("/base"), &|_| {
                        Err(numcrypt_shared_rsa::Error::InvalidConfig(
                            "no files here".into(),
                        ))
                    })
            {
                assert!(config.network.index < config.network.parties.len());
                assert!(config.keygen.timeout <= numcrypt_shared_rsa::MAX_TIMEOUT);
            }
        }
    }
}
