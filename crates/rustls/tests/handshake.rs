//! rustls against rustls, in memory: numcrypt's provider on either side
//! (or both) against aws-lc-rs's and ring's, TLS 1.2 and 1.3, RSA-2048,
//! 3072 and 4096 certificates, every RSA scheme forced in turn; a client
//! certificate; a chain through an intermediate; a wrong key and tampered
//! signatures failing with the error that names them.

use std::sync::Arc;

use crate::common::*;
use rustls::{CertificateError, InconsistentKeys, ProtocolVersion, SignatureScheme};

const TLS13_SCHEMES: [SignatureScheme; 3] = [
    SignatureScheme::RSA_PSS_SHA256,
    SignatureScheme::RSA_PSS_SHA384,
    SignatureScheme::RSA_PSS_SHA512,
];

const TLS12_SCHEMES: [SignatureScheme; 6] = [
    SignatureScheme::RSA_PSS_SHA256,
    SignatureScheme::RSA_PSS_SHA384,
    SignatureScheme::RSA_PSS_SHA512,
    SignatureScheme::RSA_PKCS1_SHA256,
    SignatureScheme::RSA_PKCS1_SHA384,
    SignatureScheme::RSA_PKCS1_SHA512,
];

/// One handshake with the client offering only `scheme`: it must succeed,
/// on the version asked for, with the server signing `scheme`.
fn check(client: Side, server: Side, tls13: bool, scheme: SignatureScheme, pki: &Pki) {
    let versions = if tls13 { TLS13 } else { TLS12 };
    let (client_config, seen) = client_config(client, versions, &pki.ca, Some(scheme));
    let (mut c, mut s) = pair(client_config, server_config(server, versions, pki).unwrap());
    handshake(&mut c, &mut s).unwrap_or_else(|e| {
        panic!(
            "{client:?} client, {server:?} server, {} {scheme:?}: {e}",
            pki.key
        )
    });
    let version = if tls13 {
        ProtocolVersion::TLSv1_3
    } else {
        ProtocolVersion::TLSv1_2
    };
    assert_eq!(c.protocol_version(), Some(version));
    assert_eq!(
        seen.seen(),
        [scheme],
        "{client:?} client, {server:?} server, {}",
        pki.key
    );
}

#[test]
fn every_size_version_and_scheme_with_numcrypt_on_either_side() {
    for key in ["rsa2048.pem", "rsa3072.pem", "rsa4096.pem"] {
        let pki = issue(key, &["localhost"]);
        for (client, server) in [
            (Side::AwsLcRs, Side::Numcrypt),
            (Side::Numcrypt, Side::AwsLcRs),
            (Side::Numcrypt, Side::Numcrypt),
        ] {
            for scheme in TLS13_SCHEMES {
                check(client, server, true, scheme, &pki);
            }
            for scheme in TLS12_SCHEMES {
                check(client, server, false, scheme, &pki);
            }
        }
    }
}

#[test]
fn against_ring_both_ways() {
    let pki = issue("rsa2048.pem", &["localhost"]);
    for (client, server) in [(Side::Ring, Side::Numcrypt), (Side::Numcrypt, Side::Ring)] {
        for scheme in TLS13_SCHEMES {
            check(client, server, true, scheme, &pki);
        }
        for scheme in TLS12_SCHEMES {
            check(client, server, false, scheme, &pki);
        }
    }
}

/// Left to choose, numcrypt's key signs with what aws-lc-rs's key signs
/// with (PSS with SHA-512 first; the strongest PKCS#1 where TLS 1.2 offers
/// only PKCS#1).
#[test]
fn unforced_choice_is_the_base_providers() {
    let pki = issue("rsa2048.pem", &["localhost"]);
    for versions in [TLS13, TLS12] {
        let chosen = |server: Side| {
            let (config, seen) = client_config(Side::AwsLcRs, versions, &pki.ca, None);
            let (mut c, mut s) = pair(config, server_config(server, versions, &pki).unwrap());
            handshake(&mut c, &mut s).unwrap();
            seen.seen()
        };
        assert_eq!(chosen(Side::Numcrypt), chosen(Side::AwsLcRs));
        assert_eq!(chosen(Side::Numcrypt), [SignatureScheme::RSA_PSS_SHA512]);
    }
}

/// Mutual TLS: the client's certificate and CertificateVerify signed by
/// numcrypt and checked by aws-lc-rs, and the other way round.
#[test]
fn client_certificate() {
    let server_pki = issue("rsa3072.pem", &["localhost"]);
    let client_pki = issue("client.pem", &["client.example"]);
    for versions in [TLS13, TLS12] {
        for (client, server) in [
            (Side::Numcrypt, Side::AwsLcRs),
            (Side::AwsLcRs, Side::Numcrypt),
            (Side::Numcrypt, Side::Numcrypt),
        ] {
            let client_config = rustls::ClientConfig::builder_with_provider(client.provider())
                .with_protocol_versions(versions)
                .unwrap()
                .with_root_certificates(roots(&server_pki.ca))
                .with_client_auth_cert(client_pki.chain.clone(), key_der(client_pki.key))
                .unwrap();
            let verifier = client_verifier(server, &client_pki.ca);
            let server_config = mtls_server_config(server, versions, &server_pki, verifier);
            let (mut c, mut s) = pair(client_config, server_config);
            handshake(&mut c, &mut s).unwrap();
            assert_eq!(s.peer_certificates().unwrap(), &client_pki.chain[..]);
        }
    }
}

/// A server without a client certificate is refused by a server that
/// requires one (a control for the test above).
#[test]
fn client_certificate_required() {
    let pki = issue("rsa2048.pem", &["localhost"]);
    let (client_config, _) = client_config(Side::Numcrypt, TLS13, &pki.ca, None);
    let verifier = client_verifier(Side::Numcrypt, &pki.ca);
    let (mut c, mut s) = pair(
        client_config,
        mtls_server_config(Side::Numcrypt, TLS13, &pki, verifier),
    );
    let err = handshake(&mut c, &mut s).unwrap_err();
    assert_eq!(err, rustls::Error::NoCertificatesPresented);
}

/// root → intermediate → leaf, every link an RSA signature that the
/// client's provider checks.
#[test]
fn chain_through_an_intermediate() {
    let pki = issue_via_intermediate("rsa4096.pem");
    for versions in [TLS13, TLS12] {
        let (config, _) = client_config(Side::Numcrypt, versions, &pki.ca, None);
        let (mut c, mut s) = pair(
            config,
            server_config(Side::AwsLcRs, versions, &pki).unwrap(),
        );
        handshake(&mut c, &mut s).unwrap();
    }
    // Without the intermediate the leaf has no known issuer.
    let broken = Pki {
        chain: pki.chain[..1].to_vec(),
        ..pki
    };
    let (config, _) = client_config(Side::Numcrypt, TLS13, &broken.ca, None);
    let (mut c, mut s) = pair(
        config,
        server_config(Side::AwsLcRs, TLS13, &broken).unwrap(),
    );
    assert_eq!(
        handshake(&mut c, &mut s).unwrap_err(),
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)
    );
}

/// A key that is not the certificate's: refused when the configuration is
/// made, and, served anyway, refused by the client's signature check.
#[test]
fn wrong_key() {
    let pki = issue("rsa2048.pem", &["localhost"]);
    let wrong = Pki {
        key: "rsa3072.pem",
        ..issue("rsa2048.pem", &["localhost"])
    };
    assert_eq!(
        server_config(Side::Numcrypt, TLS13, &wrong).unwrap_err(),
        rustls::Error::InconsistentKeys(InconsistentKeys::KeyMismatch)
    );
    let provider = numcrypt_rustls::provider();
    let key = provider
        .key_provider
        .load_private_key(key_der("rsa3072.pem"))
        .unwrap();
    for versions in [TLS13, TLS12] {
        for client in [Side::Numcrypt, Side::AwsLcRs] {
            let (config, _) = client_config(client, versions, &pki.ca, None);
            let server =
                server_config_with_key(Side::Numcrypt, versions, pki.chain.clone(), key.clone());
            let (mut c, mut s) = pair(config, server);
            assert_eq!(
                handshake(&mut c, &mut s).unwrap_err(),
                rustls::Error::InvalidCertificate(CertificateError::BadSignature),
                "{client:?} client"
            );
        }
    }
}

/// TLS 1.2: one bit of the ServerKeyExchange's signature flipped on the
/// wire; TLS 1.3 (whose signature travels encrypted): flipped before
/// encryption. Both sides numcrypt's: the client refuses the signature.
#[test]
fn tampered_signature() {
    let pki = issue("rsa2048.pem", &["localhost"]);
    let key = || {
        numcrypt_rustls::provider()
            .key_provider
            .load_private_key(key_der("rsa2048.pem"))
            .unwrap()
    };
    let bad_signature = rustls::Error::InvalidCertificate(CertificateError::BadSignature);

    // TLS 1.2 on the wire, with the untampered handshake as the control.
    for flip in [false, true] {
        let (config, _) = client_config(Side::Numcrypt, TLS12, &pki.ca, None);
        let (mut c, mut s) = pair(config, server_config(Side::Numcrypt, TLS12, &pki).unwrap());
        let mut flipped = false;
        let result = handshake_with(&mut c, &mut s, |flight| {
            if flip && !flipped {
                flipped = flip_server_key_exchange(flight);
            }
        });
        if flip {
            assert!(flipped);
            assert_eq!(result.unwrap_err(), bad_signature);
        } else {
            result.unwrap();
        }
    }

    // TLS 1.3 (and 1.2 again) with the signer flipping a bit.
    for versions in [TLS13, TLS12] {
        let (config, _) = client_config(Side::Numcrypt, versions, &pki.ca, None);
        let server = server_config_with_key(
            Side::Numcrypt,
            versions,
            pki.chain.clone(),
            Arc::new(FlipSignature(key())),
        );
        let (mut c, mut s) = pair(config, server);
        assert_eq!(handshake(&mut c, &mut s).unwrap_err(), bad_signature);
    }
}

/// The provider on the ring base (feature `ring`).
#[cfg(feature = "ring")]
#[test]
fn ring_base() {
    let pki = issue("rsa2048.pem", &["localhost"]);
    let provider = Arc::new(numcrypt_rustls::ring::provider());
    for versions in [TLS13, TLS12] {
        let server = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(versions)
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(pki.chain.clone(), key_der(pki.key))
            .unwrap();
        let client = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(versions)
            .unwrap()
            .with_root_certificates(roots(&pki.ca))
            .with_no_client_auth();
        let (mut c, mut s) = pair(client, server);
        handshake(&mut c, &mut s).unwrap();
    }
}
