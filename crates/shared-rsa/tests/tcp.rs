//! Three parties over real TCP on loopback, with the pre-shared-key channel.

mod common;

use std::net::TcpListener;
use std::time::Duration;

use common::*;
use numcrypt_shared_rsa::{
    Error, HashAlg, KeyGenConfig, Peer, TcpConfig, TcpTransport, Transport, encode_pkcs1v15,
    sign_jointly,
};
use zeroize::Zeroizing;

/// Configurations for `n` parties on loopback ports picked by the system;
/// `psk(me, peer)` gives the key party `me` holds for `peer`.
fn configs(n: usize, psk: impl Fn(usize, usize) -> [u8; 32]) -> Vec<(TcpConfig, TcpListener)> {
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
        .map(|(me, l)| {
            let parties = (0..n)
                .map(|j| Peer {
                    address: addresses[j].clone(),
                    psk: (j != me).then(|| Zeroizing::new(psk(me, j))),
                })
                .collect();
            (
                TcpConfig {
                    index: me,
                    parties,
                    listen: None,
                    timeout: Duration::from_secs(20),
                },
                l,
            )
        })
        .collect()
}

fn pair_key(me: usize, peer: usize) -> [u8; 32] {
    let mut k = [0u8; 32];
    k[0] = me.min(peer) as u8;
    k[1] = me.max(peer) as u8;
    k[31] = 0xa5;
    k
}

fn connect_all(configs: Vec<(TcpConfig, TcpListener)>) -> Vec<Result<TcpTransport, Error>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = configs
            .into_iter()
            .map(|(c, l)| s.spawn(move || TcpTransport::connect_with_listener(&c, l)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn three_parties_over_tcp_generate_and_sign() {
    let transports: Vec<TcpTransport> = connect_all(configs(3, pair_key))
        .into_iter()
        .map(|r| r.expect("connect"))
        .collect();
    let mut config = KeyGenConfig::new(1024);
    config.retain_factor_shares = true;
    config.timeout = Duration::from_secs(30);
    let outputs: Vec<_> = run_parties_ref(&transports, &config);
    check_key(&outputs, 1024);
    for (o, t) in outputs.iter().zip(&transports) {
        assert!(o.stats.bytes_sent > 0 && o.stats.bytes_sent <= t.bytes_sent());
    }

    // Sign jointly over the same connections; verify with numcrypt-rsa and openssl.
    let public = outputs[0].share.public_key().clone();
    let msg = b"signed over TCP";
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

fn run_parties_ref(
    transports: &[TcpTransport],
    config: &KeyGenConfig,
) -> Vec<numcrypt_shared_rsa::KeyGenOutput> {
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
                    numcrypt_shared_rsa::generate_key(t, config, &mut rng).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn wrong_pre_shared_key_is_refused() {
    // Party 3 holds a different key for the pair (1, 3).
    let mut cs = configs(3, |me, peer| {
        let mut k = pair_key(me, peer);
        if (me, peer) == (2, 0) {
            k[5] = 1;
        }
        k
    });
    for (c, _) in &mut cs {
        c.timeout = Duration::from_secs(2);
    }
    let results = connect_all(cs);
    // Party 1 and party 3 cannot authenticate each other; party 2 then
    // misses party 3 or times out.
    let errors: Vec<String> = results
        .iter()
        .map(|r| format!("{:?}", r.as_ref().err()))
        .collect();
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(Error::Authentication { .. }))),
        "{errors:?}"
    );
    assert!(results.iter().filter(|r| r.is_err()).count() >= 2);
}

#[test]
fn a_party_that_leaves_stops_the_others() {
    let mut transports: Vec<TcpTransport> = connect_all(configs(3, pair_key))
        .into_iter()
        .map(|r| r.expect("connect"))
        .collect();
    // Party 3 connects, then its process ends before key generation.
    drop(transports.pop());
    let config = KeyGenConfig::new(512);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .iter()
            .map(|t| {
                let config = &config;
                s.spawn(move || {
                    let mut rng =
                        <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(1);
                    numcrypt_shared_rsa::generate_key(t, config, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in results {
        assert!(
            matches!(r, Err(Error::Disconnected { .. })),
            "{:?}",
            r.err()
        );
    }
}
