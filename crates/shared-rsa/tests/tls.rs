//! Parties over mutual TLS on loopback: key generation and signing, trust
//! by CA and by pinned fingerprints, and a network nobody controls
//! (strangers sending garbage, silence, a slow drip, oversized lengths, a
//! party killed mid-run).

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use common::*;
use numcrypt_shared_rsa::{
    Credentials, Error, HashAlg, KeyGenConfig, TlsConfig, TlsTransport, Transport, encode_pkcs1v15,
    issue_credentials, sign_jointly,
};

/// Configurations for `n` parties on loopback ports picked by the system,
/// from one set of credentials.
fn configs(
    n: usize,
    credentials: &Credentials,
    timeout: Duration,
) -> Vec<(TlsConfig, TcpListener)> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addresses: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    listeners
        .into_iter()
        .enumerate()
        .map(|(me, l)| (credentials.tls_config(me, &addresses, timeout).unwrap(), l))
        .collect()
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
    let credentials = issue_credentials(3).unwrap();
    let transports: Vec<TlsTransport> =
        connect_all(configs(3, &credentials, Duration::from_secs(20)))
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

    // Sign jointly over the same connections; verify with numcrypt-rsa and openssl.
    let public = outputs[0].share.public_key().clone();
    let msg = b"signed over TLS";
    let em = encode_pkcs1v15(&public, HashAlg::Sha256, msg).unwrap();
    let sigs: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = outputs
            .iter()
            .zip(&transports)
            .map(|(o, t)| {
                let em = &em;
                s.spawn(move || sign_jointly(t, &o.share, em, Duration::from_secs(20)).unwrap())
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
fn trust_by_pinned_fingerprints_alone_or_by_the_ca_alone() {
    let credentials = issue_credentials(3).unwrap();
    for mode in ["pins", "ca"] {
        let mut cs = configs(3, &credentials, Duration::from_secs(20));
        for (c, _) in &mut cs {
            match mode {
                "pins" => c.ca = None,
                _ => c.parties.iter_mut().for_each(|p| p.fingerprint = None),
            }
        }
        for r in connect_all(cs) {
            r.unwrap_or_else(|e| panic!("{mode}: {e}"));
        }
    }
    // Neither: refused before any connection.
    let mut cs = configs(3, &credentials, Duration::from_secs(20));
    cs[0].0.ca = None;
    cs[0].0.parties[1].fingerprint = None;
    assert!(matches!(cs[0].0.validate(), Err(Error::InvalidConfig(_))));
}

#[test]
fn another_set_of_credentials_is_refused() {
    // Party 3's certificate comes from another CA (an impostor's): parties
    // 1 and 2 do not accept it, and say so.
    let credentials = issue_credentials(3).unwrap();
    let impostor = issue_credentials(3).unwrap();
    let mut cs = configs(3, &credentials, Duration::from_secs(3));
    let addresses: Vec<String> = cs
        .iter()
        .map(|(c, _)| c.parties[c.index].address.clone())
        .collect();
    cs[2].0 = impostor
        .tls_config(2, &addresses, Duration::from_secs(3))
        .unwrap();
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

/// Strangers at party 1's port while the parties connect: garbage, silence,
/// a slow drip, an oversized length. Party 1 drops each and the key is
/// made; its handshakes each have their own deadline.
#[test]
fn strangers_do_not_stop_the_parties() {
    let credentials = issue_credentials(3).unwrap();
    let mut cs = configs(3, &credentials, Duration::from_secs(20));
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
                    // 44 random bytes, as the issue's stranger sent.
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
    let credentials = issue_credentials(3).unwrap();
    let mut cs = configs(3, &credentials, Duration::from_secs(20));
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
    let credentials = issue_credentials(3).unwrap();
    let mut transports: Vec<TlsTransport> =
        connect_all(configs(3, &credentials, Duration::from_secs(20)))
            .into_iter()
            .map(|r| r.expect("connect"))
            .collect();
    // Party 3 connects, then its process ends before key generation.
    drop(transports.pop());
    for r in run_parties_ref(&transports, &key_config(512)) {
        assert!(
            matches!(r, Err(Error::Disconnected { party: 3 })),
            "{:?}",
            r.err()
        );
    }
}

/// A party killed in the middle of key generation (its sockets reset, as a
/// killed process's are): the others stop within the timeout, naming it.
#[test]
fn a_party_killed_mid_run_is_named() {
    let credentials = issue_credentials(3).unwrap();
    let transports: Vec<TlsTransport> =
        connect_all(configs(3, &credentials, Duration::from_secs(20)))
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
        assert!(
            matches!(r, Err(Error::Disconnected { party: 3 })),
            "{:?}",
            r.as_ref().err()
        );
    }
}
