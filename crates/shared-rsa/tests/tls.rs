//! Parties over mutual TLS on loopback: key generation and signing, each
//! party with an identity of its own; trust by pins and by a CA, each index
//! bound to its own; and a network nobody controls (strangers sending
//! garbage, silence, a slow drip, oversized lengths, a flood, a party killed
//! mid-run).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use crate::common::*;
use numcrypt_shared_rsa::{
    Error, HashAlg, KeyGenConfig, PartyIdentity, TlsConfig, TlsPeer, TlsTransport, Transport,
    encode_pkcs1v15, party_name, sign_jointly,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Loopback listeners on ports picked by the system, and their addresses.
fn listeners(n: usize) -> (Vec<TcpListener>, Vec<String>) {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addresses = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    (listeners, addresses)
}

/// `n` parties on loopback, each with its own identity, every party
/// pinned by every other.
fn pinned(n: usize, timeout: Duration) -> (Vec<PartyIdentity>, Vec<(TlsConfig, TcpListener)>) {
    let identities: Vec<PartyIdentity> = (0..n)
        .map(|i| PartyIdentity::generate(i).unwrap())
        .collect();
    let configs = configs_for(&identities, timeout);
    (identities, configs)
}

fn configs_for(identities: &[PartyIdentity], timeout: Duration) -> Vec<(TlsConfig, TcpListener)> {
    let (listeners, addresses) = listeners(identities.len());
    let peers: Vec<TlsPeer> = addresses
        .into_iter()
        .zip(identities)
        .map(|(address, id)| TlsPeer {
            address,
            fingerprint: Some(id.fingerprint),
        })
        .collect();
    listeners
        .into_iter()
        .zip(identities)
        .map(|(l, id)| (id.tls_config(peers.clone(), timeout).unwrap(), l))
        .collect()
}

/// A CA (for the tests only: its key is thrown away with it) and a key
/// and certificate it issues for each list of names.
struct Ca {
    certificate: CertificateDer<'static>,
    issued: Vec<(CertificateDer<'static>, PrivateKeyDer<'static>)>,
}

fn ca(names: &[Vec<String>]) -> Ca {
    use rcgen::{BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    let ca = params.self_signed(&ca_key).unwrap();
    let issued = names
        .iter()
        .map(|names| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(names.clone()).unwrap();
            params.extended_key_usages = vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ];
            let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
            (
                cert.der().clone(),
                PrivateKeyDer::from_pem_slice(key.serialize_pem().as_bytes()).unwrap(),
            )
        })
        .collect();
    Ca {
        certificate: ca.der().clone(),
        issued,
    }
}

/// A self-signed certificate and key for `names` (a party's own making).
fn self_signed(names: Vec<String>) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(names)
        .unwrap()
        .self_signed(&key)
        .unwrap();
    (
        cert.der().clone(),
        PrivateKeyDer::from_pem_slice(key.serialize_pem().as_bytes()).unwrap(),
    )
}

fn config(
    index: usize,
    certificate: &CertificateDer<'static>,
    key: &PrivateKeyDer<'static>,
    parties: Vec<TlsPeer>,
    ca: Option<&CertificateDer<'static>>,
    timeout: Duration,
) -> TlsConfig {
    TlsConfig {
        index,
        parties,
        certificate: vec![certificate.clone()],
        private_key: key.clone_key(),
        ca: ca.cloned(),
        listen: None,
        timeout,
        // Generous: the tests of this file share two cores with key
        // generations in parallel, and a refusal must not turn into a
        // handshake that took too long.
        handshake_timeout: timeout.min(Duration::from_secs(10)),
    }
}

fn connect_all(configs: Vec<(TlsConfig, TcpListener)>) -> Vec<Result<TlsTransport, Error>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = configs
            .into_iter()
            .map(|(c, l)| s.spawn(move || TlsTransport::connect_with_listener(&c, l)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn run_parties_ref(
    transports: &[TlsTransport],
    config: &KeyGenConfig,
) -> Vec<Result<numcrypt_shared_rsa::KeyGenOutput, Error>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .iter()
            .enumerate()
            .map(|(i, t)| {
                s.spawn(move || {
                    let mut rng =
                        <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(
                            40 + i as u64,
                        );
                    numcrypt_shared_rsa::generate_key(t, config, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn key_config(bits: u32) -> KeyGenConfig {
    let mut config = KeyGenConfig::new(bits);
    config.retain_factor_shares = true;
    config.timeout = Duration::from_secs(30);
    config
}

#[test]
fn three_parties_over_tls_generate_and_sign() {
    let (identities, cs) = pinned(3, Duration::from_secs(20));
    let transports: Vec<TlsTransport> = connect_all(cs)
        .into_iter()
        .map(|r| r.expect("connect"))
        .collect();
    let outputs: Vec<_> = run_parties_ref(&transports, &key_config(1024))
        .into_iter()
        .map(|r| r.expect("key generation"))
        .collect();
    check_key(&outputs, 1024);
    for (o, t) in outputs.iter().zip(&transports) {
        assert!(o.stats.bytes_sent > 0 && o.stats.bytes_sent <= t.bytes_sent());
        assert!(o.stats.rounds > 3);
    }
    // The key records each party's certificate, as each authenticated it.
    let public = outputs[0].share.public_key().clone();
    let recorded = public.identities().expect("identities recorded");
    for (cert, id) in recorded.iter().zip(&identities) {
        assert_eq!(cert, &id.certificate_der().unwrap());
    }

    // Sign jointly over the same connections; verify with numcrypt-rsa and openssl.
    let msg = b"signed over TLS";
    let em = encode_pkcs1v15(&public, HashAlg::Sha256, msg).unwrap();
    let sigs: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = outputs
            .iter()
            .zip(&transports)
            .enumerate()
            .map(|(i, (o, t))| {
                let em = &em;
                s.spawn(move || {
                    let mut rng =
                        <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(
                            i as u64,
                        );
                    sign_jointly(&mut rng, t, &o.share, em, Duration::from_secs(20)).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        sigs.iter().all(|s| s == &sigs[0]),
        "every party gets the same signature"
    );
    public
        .rsa_public_key()
        .unwrap()
        .verify_pkcs1v15(HashAlg::Sha256, msg, &sigs[0])
        .expect("numcrypt-rsa verifies");
    assert!(openssl_verify(
        &public.to_public_key_pem().unwrap(),
        msg,
        &sigs[0],
        None
    ));
}

#[test]
fn trust_by_pinned_fingerprints_alone_or_by_a_ca_alone() {
    // Pins alone: what `init` writes.
    let (_, cs) = pinned(3, Duration::from_secs(20));
    for r in connect_all(cs) {
        r.expect("pins");
    }
    // A CA alone, each certificate naming its party.
    let names: Vec<Vec<String>> = (0..3).map(|i| vec![party_name(i)]).collect();
    let authority = ca(&names);
    let (ls, addresses) = listeners(3);
    let peers: Vec<TlsPeer> = addresses
        .into_iter()
        .map(|address| TlsPeer {
            address,
            fingerprint: None,
        })
        .collect();
    let cs: Vec<_> = ls
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let (cert, key) = &authority.issued[i];
            let c = config(
                i,
                cert,
                key,
                peers.clone(),
                Some(&authority.certificate),
                Duration::from_secs(20),
            );
            (c, l)
        })
        .collect();
    for r in connect_all(cs) {
        r.expect("CA");
    }
    // Neither: refused before any connection.
    let (_, mut cs) = pinned(3, Duration::from_secs(20));
    cs[0].0.parties[1].fingerprint = None;
    assert!(matches!(cs[0].0.validate(), Err(Error::InvalidConfig(_))));
}

#[test]
fn an_unpinned_identity_is_refused() {
    // Party 3 runs with another identity than the one pinned for it (an
    // impostor's): parties 1 and 2 do not accept it, and say so.
    let (_, mut cs) = pinned(3, Duration::from_secs(3));
    let impostor = PartyIdentity::generate(2).unwrap();
    let peers = cs[2].0.parties.clone();
    cs[2].0 = impostor.tls_config(peers, Duration::from_secs(3)).unwrap();
    let results = connect_all(cs);
    let errors: Vec<String> = results
        .iter()
        .map(|r| format!("{:?}", r.as_ref().err()))
        .collect();
    assert!(results.iter().all(|r| r.is_err()), "{errors:?}");
    assert!(
        results[..2]
            .iter()
            .any(|r| matches!(r, Err(Error::Authentication { party: Some(3), .. }))),
        "{errors:?}"
    );
}

/// Mixed trust: party 1 pins party 2's certificate and trusts party 3
/// through the deployment's CA. Party 2's certificate, its own making,
/// also names party 3; party 2 connects as party 3 with it. Party 1 must
/// refuse: an index is accepted only by its own pin, or without one by a
/// chain to the CA naming it. (Before, a certificate pinned for any party
/// skipped the chain check, and the name alone let it in as party 3.)
#[test]
fn a_pinned_party_cannot_take_an_unpinned_partys_index() {
    let timeout = Duration::from_secs(10);
    let authority = ca(&[vec![party_name(0)]]);
    let (one_cert, one_key) = &authority.issued[0];
    let (two_cert, two_key) = self_signed(vec![party_name(1), party_name(2)]);
    let (ls, addresses) = listeners(3);
    let mut ls = ls.into_iter();
    let pin = |c: &CertificateDer<'_>| Some(numcrypt_shared_rsa::fingerprint(c));
    // Party 1: party 2 pinned, party 3 through the CA.
    let one_peers = vec![
        TlsPeer {
            address: addresses[0].clone(),
            fingerprint: pin(one_cert),
        },
        TlsPeer {
            address: addresses[1].clone(),
            fingerprint: pin(&two_cert),
        },
        TlsPeer {
            address: addresses[2].clone(),
            fingerprint: None,
        },
    ];
    let one = config(
        0,
        one_cert,
        one_key,
        one_peers,
        Some(&authority.certificate),
        timeout,
    );
    // Party 2, as itself and as "party 3", pinning what it likes.
    let its_peers = vec![
        TlsPeer {
            address: addresses[0].clone(),
            fingerprint: pin(one_cert),
        },
        TlsPeer {
            address: addresses[1].clone(),
            fingerprint: pin(&two_cert),
        },
        TlsPeer {
            address: addresses[2].clone(),
            fingerprint: pin(&two_cert),
        },
    ];
    let two = config(1, &two_cert, &two_key, its_peers.clone(), None, timeout);
    let fake_three = config(2, &two_cert, &two_key, its_peers, None, timeout);
    let cs = vec![
        (one, ls.next().unwrap()),
        (two, ls.next().unwrap()),
        (fake_three, ls.next().unwrap()),
    ];
    let results = connect_all(cs);
    match &results[0] {
        Err(Error::Authentication {
            party: Some(3),
            what,
        }) => assert!(what.contains("another party's certificate"), "{what}"),
        other => panic!(
            "party 1 let party 2 in as party 3: {:?}",
            other.as_ref().err()
        ),
    }
}

/// Strangers at party 1's port while the parties connect: garbage, silence,
/// a slow drip, an oversized length. Party 1 drops each and the key is
/// made; its handshakes each have their own deadline.
#[test]
fn strangers_do_not_stop_the_parties() {
    let (_, mut cs) = pinned(3, Duration::from_secs(20));
    for (c, _) in &mut cs {
        c.handshake_timeout = Duration::from_secs(2);
    }
    let target = cs[0].0.parties[0].address.clone();
    // The strangers come first; the real parties start a moment later.
    let strangers: Vec<_> = (0..4)
        .map(|kind| {
            let target = target.clone();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&target).unwrap();
                match kind {
                    // 44 random bytes, as the stranger sent.
                    0 => {
                        let _ = s.write_all(&[0x5a; 44]);
                    }
                    // Silence.
                    1 => {}
                    // A TLS record header claiming 2^14 bytes, then a byte a
                    // second: each read succeeds, the deadline does not move.
                    2 => {
                        let _ = s.write_all(&[0x16, 0x03, 0x01, 0x40, 0x00]);
                        for _ in 0..6 {
                            std::thread::sleep(Duration::from_secs(1));
                            if s.write_all(&[0]).is_err() {
                                break;
                            }
                        }
                    }
                    // An oversized length.
                    _ => {
                        let _ = s.write_all(&[0x16, 0x03, 0x01, 0xff, 0xff]);
                        let _ = s.write_all(&[0u8; 64]);
                    }
                }
                // Hold the connection until party 1 drops it, and time that.
                let start = Instant::now();
                let mut buf = [0u8; 256];
                s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
                while matches!(s.read(&mut buf), Ok(k) if k > 0) {}
                start.elapsed()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let transports: Vec<TlsTransport> = connect_all(cs)
        .into_iter()
        .map(|r| r.expect("the parties connect despite the strangers"))
        .collect();
    // The garbage and the oversized length fail at once; the silent and the
    // dripping ones may still be in their handshakes when the parties are in.
    assert!(
        transports[0].rejected_connections() >= 2,
        "{}",
        transports[0].rejected_connections()
    );
    for s in strangers {
        let held = s.join().unwrap();
        assert!(
            held < Duration::from_secs(4),
            "a stranger was held for {held:?}"
        );
    }
    let outputs: Vec<_> = run_parties_ref(&transports, &key_config(512))
        .into_iter()
        .map(|r| r.expect("key generation"))
        .collect();
    check_key(&outputs, 512);
}

/// More connections than the handshake limit: the extra ones are closed at
/// once, and the parties still connect once the silent ones time out.
#[test]
fn a_flood_of_connections_is_bounded() {
    let (_, mut cs) = pinned(3, Duration::from_secs(20));
    for (c, _) in &mut cs {
        c.handshake_timeout = Duration::from_secs(1);
    }
    let target = cs[0].0.parties[0].address.clone();
    let flood: Vec<TcpStream> = (0..numcrypt_shared_rsa::transport::MAX_PENDING_HANDSHAKES + 8)
        .map(|_| TcpStream::connect(&target).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    for r in connect_all(cs) {
        r.expect("connect after the flood");
    }
    drop(flood);
}

#[test]
fn a_party_that_leaves_stops_the_others() {
    let mut transports: Vec<TlsTransport> = connect_all(pinned(3, Duration::from_secs(20)).1)
        .into_iter()
        .map(|r| r.expect("connect"))
        .collect();
    // Party 3 connects, then its process ends before key generation.
    drop(transports.pop());
    for r in run_parties_ref(&transports, &key_config(512)) {
        let e = r.err().expect("an error");
        assert_eq!(named(&e), Some(3), "{e:?}");
    }
}

/// A party killed in the middle of key generation (its sockets reset, as a
/// killed process's are): the others stop within the timeout, naming it.
#[test]
fn a_party_killed_mid_run_is_named() {
    let transports: Vec<TlsTransport> = connect_all(pinned(3, Duration::from_secs(20)).1)
        .into_iter()
        .map(|r| r.expect("connect"))
        .collect();
    // 2048 bits: seconds of work, so party 3 dies in the middle of it.
    let mut config = key_config(2048);
    config.timeout = Duration::from_secs(10);
    let start = Instant::now();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let config = &config;
                s.spawn(move || {
                    if i == 2 {
                        // Party 3 runs for a moment, then dies.
                        let worker = std::thread::scope(|inner| {
                            let h = inner.spawn(|| {
                                let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(9);
                                numcrypt_shared_rsa::generate_key(t, config, &mut rng)
                            });
                            std::thread::sleep(Duration::from_millis(300));
                            t.abort();
                            h.join().unwrap()
                        });
                        return worker;
                    }
                    let mut rng =
                        <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(i as u64);
                    numcrypt_shared_rsa::generate_key(t, config, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );
    for r in &results[..2] {
        let e = r.as_ref().err().expect("an error");
        assert!(
            matches!(e, Error::Disconnected { .. } | Error::Reported { .. }) && named(e) == Some(3),
            "{e:?}"
        );
    }
}
