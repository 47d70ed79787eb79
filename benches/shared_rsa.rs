//! Shared RSA: what a partial signature's proof costs (Shoup's proof of
//! equality of discrete logarithms, as Damgård and Koprowski use it for
//! moduli that are not products of safe primes; `crates/shared-rsa`), at
//! 2048 and 3072 bits.
//!
//! The keys are made by the protocol itself, once per size before any
//! timing: three parties as threads over in-process channels (threshold
//! `t = 1`), seeded, so every run times the same shares. Party 1 signs a
//! PKCS#1 v1.5 encoding of a fixed message. Groups (benchmark id
//! `shared_rsa_partial/<bits>/<what>`):
//! - `value`: `(m^Δ)^f(1) mod N` alone (`Δ = 3!`), the limbs crate's
//!   constant-time `pow_bounded` over the share's length (what a partial
//!   signature costs without a proof);
//! - `sign_partial`: `SharedKeyShare::sign_partial`, the value and its
//!   proof (two more constant-time exponentiations, `v^r` and `x^r` with
//!   `r` of the share's length plus 256 bits, interleaved as a pair, and a
//!   SHA-256): making the proof costs the difference;
//! - `check`: `PartialSignature::check`, the verifier (two variable-time
//!   exponentiations by the response, as a pair, two by the 128-bit
//!   challenge, two inversions and a SHA-256).
//!
//! No other library implements this proof, so there is no peer; the
//! partial signature without a proof (`value`) is the reference.
//!
//! Every group runs twice: wall time, and (x86_64 only) rdtsc reference
//! cycles (groups suffixed `_cycles`). Run with
//! `cargo bench --bench shared_rsa`.

mod common;

use std::hint::black_box;
use std::sync::OnceLock;

use common::group_name;
use criterion::Criterion;
use criterion::measurement::Measurement;
use numcrypt::limbs::{BoxedUint, MontyParams, Unsigned};
use numcrypt_shared_rsa::{
    HashAlg, KeyGenConfig, MemoryNetwork, PartialCheck, SharedKeyShare, encode_pkcs1v15,
    generate_key,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const SIZES: [u32; 2] = [2048, 3072];

/// Party 1's share of a key of `bits` bits among three parties, made once.
fn share(bits: u32) -> &'static SharedKeyShare {
    static KEYS: [OnceLock<SharedKeyShare>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = SIZES.iter().position(|&b| b == bits).unwrap();
    KEYS[slot].get_or_init(|| {
        let config = KeyGenConfig::new(bits);
        let mut shares: Vec<SharedKeyShare> = std::thread::scope(|s| {
            let handles: Vec<_> = MemoryNetwork::new(3)
                .into_iter()
                .enumerate()
                .map(|(i, t)| {
                    let config = &config;
                    s.spawn(move || {
                        let mut rng = ChaCha20Rng::seed_from_u64(u64::from(bits) + i as u64);
                        generate_key(&t, config, &mut rng).unwrap().share
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        shares.swap_remove(0)
    })
}

/// The share `f(1)`, read from the key-share file's DER (its last
/// INTEGER), as a public reader of the format would.
fn share_exponent(share: &SharedKeyShare) -> BoxedUint {
    let der = share.to_der().unwrap();
    // SEQUENCE { version, publicKey, index, share }: the share ends the
    // encoding; walk the top-level elements to find where it starts.
    let header = |pos: usize| -> (usize, usize) {
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
    };
    let (mut pos, _) = header(0);
    let mut last = (0, 0);
    while pos < der.len() {
        let (content, len) = header(pos);
        last = (content, len);
        pos = content + len;
    }
    BoxedUint::from_be_slice_auto(&der[last.0..last.0 + last.1])
}

fn bench_partial<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("shared_rsa_partial"));
    for bits in SIZES {
        let share = share(bits);
        let public = share.public_key();
        let em = encode_pkcs1v15(public, HashAlg::Sha256, b"numcrypt shared-rsa bench").unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let partial = share.sign_partial(&mut rng, &em).unwrap();
        assert_eq!(partial.check(public), PartialCheck::Valid);
        // The value alone, as sign_partial computes it.
        let f = share_exponent(share);
        let params = MontyParams::new(public.n().clone()).unwrap();
        let delta: u64 = (1..=public.parties() as u64).product();
        let m = params.to_monty(&BoxedUint::from_be_slice_auto(&em));
        let m = params.pow_vartime(&m, &BoxedUint::from_u64(delta, 1));
        // The share's own length: within a few bits of the public bound
        // sign_partial exponentiates over.
        let f_bits = f.bits_vartime();
        assert_eq!(
            params.from_monty(&params.pow_bounded(&m, &f, f_bits)),
            partial.value,
            "the value alone is the partial signature"
        );
        g.bench_function(format!("{bits}/value"), |b| {
            b.iter(|| params.pow_bounded(black_box(&m), &f, f_bits))
        });
        g.bench_function(format!("{bits}/sign_partial"), |b| {
            b.iter(|| share.sign_partial(&mut rng, black_box(&em)).unwrap())
        });
        g.bench_function(format!("{bits}/check"), |b| {
            b.iter(|| black_box(&partial).check(public))
        });
    }
    g.finish();
}

common::time_and_cycles_main!(bench_partial);
