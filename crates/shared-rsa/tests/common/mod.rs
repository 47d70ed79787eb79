//! Shared test helpers: running parties as threads, and independent
//! references (num-bigint arithmetic, the `openssl` command line).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Zero};
use numcrypt_limbs::BoxedUint;
use numcrypt_shared_rsa::{
    Error, KeyGenConfig, KeyGenOutput, MemoryNetwork, PartyIdentity, SharedKeyShare, Transport,
    generate_key,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

pub fn big(x: &BoxedUint) -> BigUint {
    BigUint::from_bytes_be(&x.to_be_bytes())
}

/// Runs `generate_key` for every transport on its own thread.
pub fn run_parties<T: Transport>(
    transports: Vec<T>,
    config: &KeyGenConfig,
    seed: u64,
) -> Vec<Result<KeyGenOutput, Error>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                s.spawn(move || {
                    let mut rng = ChaCha20Rng::seed_from_u64(seed * 1000 + i as u64);
                    generate_key(&t, config, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Key generation among `n` in-process parties, keeping factor shares.
pub fn generate(n: usize, mut config: KeyGenConfig, seed: u64) -> Vec<KeyGenOutput> {
    config.retain_factor_shares = true;
    run_parties(MemoryNetwork::new(n), &config, seed)
        .into_iter()
        .map(|r| r.expect("key generation"))
        .collect()
}

/// A key among parties with identities of their own (each party's
/// certificate recorded in the key), and those identities.
pub struct Fixture {
    pub outputs: Vec<KeyGenOutput>,
    pub identities: Vec<PartyIdentity>,
}

impl Fixture {
    pub fn shares(&self) -> Vec<&SharedKeyShare> {
        self.outputs.iter().map(|o| &o.share).collect()
    }
}

/// Key generation among `n` in-process parties that know each other by
/// their certificates, keeping factor shares.
pub fn generate_with_identities(n: usize, mut config: KeyGenConfig, seed: u64) -> Fixture {
    config.retain_factor_shares = true;
    let identities: Vec<PartyIdentity> = (0..n)
        .map(|i| PartyIdentity::generate(i).unwrap())
        .collect();
    let certificates = identities
        .iter()
        .map(|id| id.certificate_der().unwrap())
        .collect();
    let outputs = run_parties(MemoryNetwork::with_identities(certificates), &config, seed)
        .into_iter()
        .map(|r| r.expect("key generation"))
        .collect();
    Fixture {
        outputs,
        identities,
    }
}

/// A 512-bit key among three parties (t = 1) with identities, made once
/// per test binary.
pub fn three_parties() -> &'static Fixture {
    static KEY: OnceLock<Fixture> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut c = KeyGenConfig::new(512);
        c.timeout = std::time::Duration::from_secs(20);
        generate_with_identities(3, c, 101)
    })
}

/// A 512-bit key among five parties (t = 2) with identities, made once
/// per test binary.
pub fn five_parties() -> &'static Fixture {
    static KEY: OnceLock<Fixture> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut c = KeyGenConfig::new(512);
        c.timeout = std::time::Duration::from_secs(20);
        c.threshold = Some(2);
        generate_with_identities(5, c, 102)
    })
}

/// The party an error names: itself (disconnected, silent, malformed) or,
/// reported by another that stopped, the one it blamed.
pub fn named(e: &Error) -> Option<usize> {
    match e {
        Error::Disconnected { party }
        | Error::Timeout { party, .. }
        | Error::Malformed { party, .. }
        | Error::Reported { party, .. } => Some(*party),
        _ => None,
    }
}

/// Miller–Rabin with 40 random bases, on num-bigint (independent of numcrypt).
pub fn is_probable_prime(n: &BigUint) -> bool {
    let two = BigUint::from(2u32);
    if n < &two {
        return false;
    }
    for p in [2u32, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if (n % p).is_zero() {
            return n == &BigUint::from(p);
        }
    }
    let one = BigUint::one();
    let n1 = n - &one;
    let s = n1.trailing_zeros().unwrap_or(0);
    let d = &n1 >> s;
    let mut rng = ChaCha20Rng::seed_from_u64(n.bits());
    let span = n - 3u32;
    'bases: for _ in 0..40 {
        let mut bytes = vec![0u8; (n.bits() as usize).div_ceil(8) + 16];
        rng.fill_bytes(&mut bytes);
        let a = BigUint::from_bytes_be(&bytes) % &span + 2u32;
        let mut x = a.modpow(&d, n);
        if x == one || x == n1 {
            continue;
        }
        for _ in 1..s {
            x = x.modpow(&two, n);
            if x == n1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// Checks a generated key against num-bigint: `N = pq` with `p`, `q` the sums
/// of the parties' shares, both prime and `3 mod 4`, `N` of `bits` bits, and
/// `d = r + Σ d_i` the inverse of `e` modulo `φ(N)`. Returns `(p, q, d)`.
pub fn check_key(outputs: &[KeyGenOutput], bits: u32) -> (BigUint, BigUint, BigUint) {
    let public = outputs[0].share.public_key();
    for o in outputs {
        assert_eq!(
            o.share.public_key(),
            public,
            "all parties hold the same public key"
        );
    }
    let n = big(public.n());
    let p: BigUint = outputs
        .iter()
        .map(|o| big(&o.factor_shares.as_ref().unwrap().p))
        .sum();
    let q: BigUint = outputs
        .iter()
        .map(|o| big(&o.factor_shares.as_ref().unwrap().q))
        .sum();
    assert_eq!(&p * &q, n, "N is the product of the shared p and q");
    assert_eq!(n.bits(), u64::from(bits));
    assert_eq!(&p % 4u32, BigUint::from(3u32));
    assert_eq!(&q % 4u32, BigUint::from(3u32));
    assert!(is_probable_prime(&p), "p is prime");
    assert!(is_probable_prime(&q), "q is prime");
    assert_ne!(p, q);
    let phi = (&p - 1u32) * (&q - 1u32);
    // d from the first t + 1 shares, and again from the last t + 1.
    let t = public.threshold();
    let n_parties = outputs.len();
    let first: Vec<usize> = (0..=t).collect();
    let last: Vec<usize> = (n_parties - t - 1..n_parties).collect();
    let d = d_from_shares(outputs, &first);
    assert_eq!(
        d,
        d_from_shares(outputs, &last),
        "every t + 1 shares give one d"
    );
    let e = BigUint::from(public.e());
    assert_eq!((&e * &d) % &phi, BigUint::one(), "e d = 1 mod φ(N)");
    // And d is the canonical inverse (below φ), as a single key would hold.
    let inv = BigInt::from(e.clone()).extended_gcd(&BigInt::from(phi.clone()));
    assert!(inv.gcd.is_one());
    (p, q, d)
}

/// `d` from the shares `f(j)` of the parties in `set` (0-based, `t + 1` of
/// them), by Lagrange interpolation over the rationals with num-bigint:
/// `f(0) = n!·d`.
pub fn d_from_shares(outputs: &[KeyGenOutput], set: &[usize]) -> BigUint {
    let n = outputs.len() as u64;
    let x = |j: usize| BigInt::from(j as u64 + 1);
    // f(0) = Σ f(j) Π_{k≠j} x_k / (x_k − x_j), summed as one fraction.
    let (mut num, mut den) = (BigInt::zero(), BigInt::one());
    for &j in set {
        let (mut a, mut b) = (BigInt::from(d_share(&outputs[j].share)), BigInt::one());
        for &k in set.iter().filter(|&&k| k != j) {
            a *= x(k);
            b *= x(k) - x(j);
        }
        num = num * &b + a * &den;
        den *= b;
    }
    let delta: BigInt = (1..=n).map(BigInt::from).product();
    let (d, rem) = num.div_rem(&(den * delta));
    assert!(rem.is_zero(), "f(0) is a multiple of n!");
    d.to_biguint().expect("d is positive")
}

/// A party's share `f(j)`, read back from its DER encoding (the share is
/// not exposed by the API; the file format is public).
pub fn d_share(share: &SharedKeyShare) -> BigUint {
    let der = share.to_der().unwrap();
    // The share is the last INTEGER of the SEQUENCE: parse from the end.
    let (tag_pos, len) = last_integer(&der);
    BigUint::from_bytes_be(&der[tag_pos..tag_pos + len])
}

/// Position and length of the last top-level INTEGER's contents in a DER
/// SEQUENCE (a tiny reader for the test only).
fn last_integer(der: &[u8]) -> (usize, usize) {
    let (mut pos, _) = header(der, 0); // into the SEQUENCE
    let mut last = (0, 0);
    while pos < der.len() {
        let tag = der[pos];
        let (content, len) = header(der, pos);
        if tag == 0x02 {
            last = (content, len);
        }
        pos = content + len;
    }
    last
}

fn header(der: &[u8], pos: usize) -> (usize, usize) {
    let first = der[pos + 1] as usize;
    if first < 0x80 {
        (pos + 2, first)
    } else {
        let k = first & 0x7f;
        let len = der[pos + 2..pos + 2 + k]
            .iter()
            .fold(0usize, |acc, &b| acc * 256 + b as usize);
        (pos + 2 + k, len)
    }
}

pub fn temp_dir(name: &str) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "numcrypt-shared-rsa-{name}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Verifies `sig` on `msg` under the SPKI PEM `public` with `openssl dgst`;
/// `pss_salt` selects PSS with that salt length. Returns whether openssl
/// accepted it.
pub fn openssl_verify(public_pem: &str, msg: &[u8], sig: &[u8], pss_salt: Option<usize>) -> bool {
    let dir = temp_dir("openssl");
    std::fs::write(dir.join("pub.pem"), public_pem).unwrap();
    std::fs::write(dir.join("msg"), msg).unwrap();
    std::fs::write(dir.join("sig"), sig).unwrap();
    let mut cmd = Command::new("openssl");
    cmd.current_dir(&dir)
        .args(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig"]);
    if let Some(salt) = pss_salt {
        cmd.args([
            "-sigopt",
            "rsa_padding_mode:pss",
            "-sigopt",
            &format!("rsa_pss_saltlen:{salt}"),
        ]);
    }
    cmd.arg("msg");
    let out = cmd.output().expect("openssl runs");
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        eprintln!(
            "openssl: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out.status.success()
}

/// Whether `openssl prime` says `n` is prime.
pub fn openssl_prime(n: &BigUint) -> bool {
    let out = Command::new("openssl")
        .args(["prime", &n.to_string()])
        .output()
        .expect("openssl runs");
    String::from_utf8_lossy(&out.stdout).contains("is prime")
}

/// `s^e mod N == m` on num-bigint.
pub fn raw_verify(n: &BigUint, e: u32, sig: &[u8], em: &[u8]) -> bool {
    BigUint::from_bytes_be(sig).modpow(&BigUint::from(e), n) == BigUint::from_bytes_be(em)
}
