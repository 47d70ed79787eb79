//! Constant-time audit under valgrind's memcheck (issue 17): every private
//! operation runs with its secrets marked undefined, so that memcheck reports
//! any branch or memory address that depends on one.
//!
//! ```text
//! cargo build --release --features ct-audit,shared-rsa --example ct_memcheck
//! valgrind target/release/examples/ct_memcheck [limbs|prime|rsa|dsa|elgamal|shared-rsa ...]
//! ```
//!
//! `.ci/ct-memcheck` runs it on each backend valgrind can run: with
//! `CT_AUDIT_ADX=1` in the environment the limb kernels are the mulx/adx
//! ones, which valgrind's CPUID would hide (`ct_audit::assume_bmi2_adx`).

use std::convert::Infallible;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::process::ExitCode;

use numcrypt::dsa::sha2::Sha256;
use numcrypt::elgamal::NamedGroup;
use numcrypt::limbs::rand_core::{TryCryptoRng, TryRng};
use numcrypt::limbs::{BoxedUint, MontyParams, U256, U512, U1024, Unsigned, backend, ct_audit};
use numcrypt::prime::{PrimeGen, PrimeKind, is_prime};
use numcrypt::rsa::{HashAlg, KeyGen, OtherPrimeInfo, RsaPrivateKey, pss::SaltLength};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// A generator whose every output is marked secret: keys, primes, nonces,
/// blinding factors and padding drawn from it are secrets to memcheck.
struct SecretRng(ChaCha20Rng);

impl TryRng for SecretRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut v = self.0.try_next_u32()?;
        ct_audit::mark_secret(&mut v);
        Ok(v)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut v = self.0.try_next_u64()?;
        ct_audit::mark_secret(&mut v);
        Ok(v)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.try_fill_bytes(dst)?;
        ct_audit::mark_secret(dst);
        Ok(())
    }
}

impl TryCryptoRng for SecretRng {}

/// A copy of `x` marked secret: how a loaded key's parts enter the audit.
fn secret(x: &BoxedUint) -> BoxedUint {
    let mut x = x.clone();
    ct_audit::mark_secret(x.as_mut());
    x
}

/// `bytes` made public: an output the caller reveals (a decrypted message
/// the harness compares, a ciphertext it hands over).
fn revealed(mut bytes: Vec<u8>) -> Vec<u8> {
    ct_audit::declassify(&mut bytes[..]);
    bytes
}

/// A group of audited operations.
type Group = fn(&mut Audit);

/// The operations audited, each a named section whose reports are counted.
struct Audit {
    rng: SecretRng,
    failed: Vec<String>,
}

impl Audit {
    /// Runs `run` as the audited operation `name`: it must cause no report.
    fn section(&mut self, name: &str, run: impl FnOnce(&mut SecretRng)) {
        let reports = Self::count(name, || run(&mut self.rng));
        if reports > 0 {
            self.failed.push(name.to_string());
        }
    }

    /// The control: code that does depend on a secret must be reported,
    /// or the audit is not looking (a build without the feature, valgrind
    /// without memcheck).
    fn control(&mut self) {
        let name = "control: a branch and an index on a secret (reports expected)";
        let reports = Self::count(name, || {
            let mut marked = self.rng.0.next_u64();
            ct_audit::mark_secret(&mut marked);
            let table = [0u8; 16];
            if black_box(marked) & 1 == 1 {
                black_box(table[(marked >> 60) as usize]);
            } else {
                black_box(table[(marked >> 56) as usize & 15]);
            }
        });
        if reports == 0 {
            self.failed.push(name.to_string());
        }
    }

    fn count(name: &str, run: impl FnOnce()) -> usize {
        let before = ct_audit::errors_reported();
        run();
        let reports = ct_audit::errors_reported() - before;
        println!("{reports:>6}  {name}");
        reports
    }
}

fn main() -> ExitCode {
    if !ct_audit::running_on_valgrind() {
        eprintln!("ct_memcheck: run me under valgrind (see .ci/ct-memcheck)");
        return ExitCode::from(2);
    }
    if std::env::var_os("CT_AUDIT_ADX").is_some() {
        ct_audit::assume_bmi2_adx();
    }
    println!("backend: {}", backend::selection());
    println!("reports  operation (secrets marked undefined)");
    let mut audit = Audit {
        rng: SecretRng(ChaCha20Rng::seed_from_u64(17)),
        failed: Vec::new(),
    };
    audit.control();
    // Arguments name the groups to run (all of them by default).
    let only: Vec<String> = std::env::args().skip(1).collect();
    let groups: [(&str, Group); 6] = [
        ("limbs", limbs),
        ("prime", primes),
        ("rsa", rsa),
        ("dsa", dsa),
        ("elgamal", elgamal),
        ("shared-rsa", shared_rsa),
    ];
    for (name, run) in groups {
        if only.is_empty() || only.iter().any(|o| o == name) {
            run(&mut audit);
        }
    }
    if audit.failed.is_empty() {
        println!("no secret-dependent branch or address in any operation (the control was caught)");
        ExitCode::SUCCESS
    } else {
        println!("reports in: {}", audit.failed.join("; "));
        ExitCode::FAILURE
    }
}

fn limbs(audit: &mut Audit) {
    // P-256's prime: a public modulus.
    let m: U256 = "0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
        .parse()
        .expect("constant");
    let params = MontyParams::new(m).expect("odd");
    audit.section("limbs: modexp, fixed width, secret exponent", |rng| {
        let exp = U256::random_below(rng, &m).expect("bound");
        let base = params.to_monty(&U256::from_u64(3));
        let r = params.from_monty(&params.pow(&base, &exp));
        black_box(r);
    });
    audit.section(
        "limbs: modexp, run-time width, secret base and exponent",
        |rng| {
            let m = BoxedUint::from_be_slice_auto(&[0xff; 256]).shr_vartime(1);
            let base = BoxedUint::random_below(rng, &m).expect("bound");
            let exp = BoxedUint::random_below(rng, &m).expect("bound");
            black_box(base.pow_mod(&exp, &m).expect("odd"));
        },
    );
    // The AVX2 exponentiation (radix 2^28), named: valgrind runs AVX2, but
    // the selection rule does not give it to valgrind's emulated CPU. A
    // secret modulus, base and exponent, alone and as a CRT pair.
    if backend::Exponentiation::Avx2.available(16, 2) {
        audit.section(
            "limbs: modexp on AVX2, secret modulus, base, exponent; a pair",
            |rng| {
                let avx2 = backend::Exponentiation::Avx2;
                let mut secret_modulus = || {
                    let mut m = U1024::random_below(rng, &U1024::MAX).expect("bound");
                    m.as_mut()[0] |= 1;
                    m.as_mut()[15] |= 1 << 63;
                    MontyParams::new(m).expect("odd")
                };
                let (p, q) = (secret_modulus(), secret_modulus());
                // Below 2^1023, so below both moduli (a public bound).
                let half = U1024::ONE.shl_vartime(1023);
                let base = U1024::random_below(rng, &half).expect("bound");
                let (base_p, base_q) = (p.to_monty(&base), q.to_monty(&base));
                let exp = U1024::random_below(rng, &U1024::MAX).expect("bound");
                let one = p.pow_bounded_on(avx2, &base_p, &exp, 1024).expect("AVX2");
                black_box(p.from_monty(&one));
                let pair = [(&p, &base_p, exp.as_ref()), (&q, &base_q, exp.as_ref())];
                let pair = MontyParams::pow_bounded_pair_on(avx2, pair, 1024);
                black_box(pair.expect("AVX2"));
            },
        );
    }
    // The AVX2 batch kernel (four lanes of radix 2^28), named for the same
    // reason: four secret moduli, bases and exponents, one per lane. (The
    // FMA batch kernel cannot run here: valgrind ignores the rounding mode
    // its products need, so it is unavailable; .ci/ct-check counts its
    // instructions natively and .ci/ct-dudect times it.)
    let avx2_batch = backend::Exponentiation::Avx2Batch;
    if avx2_batch.available(16, avx2_batch.lanes()) {
        audit.section(
            "limbs: batch modexp on AVX2 (4 lanes), secret moduli, bases, exponents",
            |rng| {
                let half = U1024::ONE.shl_vartime(1023);
                let lanes: Vec<_> = (0..4)
                    .map(|_| {
                        let mut m = U1024::random_below(rng, &U1024::MAX).expect("bound");
                        m.as_mut()[0] |= 1;
                        m.as_mut()[15] |= 1 << 63;
                        let params = MontyParams::new(m).expect("odd");
                        let base = U1024::random_below(rng, &half).expect("bound");
                        let base = params.to_monty(&base);
                        let exp = U1024::random_below(rng, &U1024::MAX).expect("bound");
                        (params, base, exp)
                    })
                    .collect();
                let operands: Vec<_> = lanes.iter().map(|(p, b, e)| (p, b, e.as_ref())).collect();
                let mut out = vec![lanes[0].0.zero(); 4];
                MontyParams::pow_bounded_batch_on(avx2_batch, &operands, 1024, &mut out)
                    .expect("AVX2 batch");
                black_box(out);
            },
        );
    }
    audit.section(
        "limbs: inversion of a secret modulo a public prime",
        |rng| {
            let x = U256::random_below(rng, &m).expect("bound");
            black_box(x.inv_mod(&m).ok());
        },
    );
    audit.section("limbs: inversion modulo a secret odd modulus", |rng| {
        // A secret odd modulus of public size (256 bits), and a value
        // below 2^255 to invert.
        let half = U256::ONE.shl_vartime(255);
        let mut odd = U256::random_below(rng, &half).expect("bound");
        odd.as_mut()[0] |= 1;
        odd.as_mut()[3] |= 1 << 63;
        let x = U256::random_below(rng, &half).expect("bound");
        black_box(x.inv_mod(&odd).ok());
    });
}

fn primes(audit: &mut Audit) {
    audit.section("prime: a 512-bit safe prime", |rng| {
        let p: U512 = PrimeGen::new(PrimeKind::Safe, 512)
            .generate(rng)
            .expect("safe prime");
        black_box(p);
    });
    audit.section("prime: a 1024-bit strong prime (Gordon)", |rng| {
        let p: U1024 = PrimeGen::new(PrimeKind::Strong, 1024)
            .generate(rng)
            .expect("strong prime");
        black_box(p);
    });
    audit.section("prime: a 512-bit prime on two threads", |rng| {
        let p: U512 = PrimeGen::new(PrimeKind::Prime, 512)
            .threads(NonZeroUsize::new(2))
            .generate(rng)
            .expect("prime");
        black_box(p);
    });
    audit.section(
        "prime: a 512-bit prime (sieve and MR64), MR64 on it and on its square",
        |rng| {
            let p: U1024 = PrimeGen::new(PrimeKind::Prime, 512)
                .generate(rng)
                .expect("prime");
            // The verdicts are the caller's to reveal.
            assert!(ct_audit::declassified(is_prime(&p)));
            assert!(!ct_audit::declassified(is_prime(&p.wrapping_mul(&p))));
        },
    );
}

fn rsa(audit: &mut Audit) {
    let mut generated = None;
    audit.section("rsa: key generation, 2048 bits (FIPS 186-5 B.3.3)", |rng| {
        generated = Some(KeyGen::new(2048).generate(rng).expect("keygen"));
    });
    let generated = generated.expect("generated");
    // RSA's threaded search, and the path below 2048 bits (legacy sizes:
    // random primes drawn apart), in a fraction of a 2048-bit run's time.
    audit.section("rsa: key generation on two threads, 1024 bits", |rng| {
        let key = KeyGen::new(1024)
            .allow_weak_key_size(true)
            .threads(NonZeroUsize::new(2))
            .generate(rng);
        black_box(key.expect("keygen"));
    });
    // A key loaded from a file, its secret parts marked before the checks
    // and precomputation that building the key does.
    let pem = include_str!("data/rsa-2048.pem");
    let file = RsaPrivateKey::from_pkcs8_pem(pem).expect("the example key");
    let (p, q) = file.primes();
    let (dp, dq, qinv) = file.crt_values();
    let mut loaded = None;
    audit.section("rsa: a key loaded from its CRT parts", |_| {
        let public = file.public_key();
        loaded = Some(
            RsaPrivateKey::from_crt_components(
                public.n(),
                public.e(),
                &secret(&file.d()),
                &secret(&p),
                &secret(&q),
                &secret(&dp),
                &secret(&dq),
                &secret(&qinv),
            )
            .expect("consistent"),
        );
    });
    let loaded = loaded.expect("loaded");
    // A multi-prime key (OpenSSL's, three primes), loaded the same way:
    // the CRT over three primes and RFC 8017's recombination.
    let file = RsaPrivateKey::from_pkcs8_pem(include_str!("data/rsa-2048-3primes.pem"))
        .expect("the example multi-prime key");
    let (p, q) = file.primes();
    let (dp, dq, qinv) = file.crt_values();
    let others: Vec<OtherPrimeInfo> = file
        .other_primes()
        .iter()
        .map(|o| OtherPrimeInfo {
            prime: secret(&o.prime),
            exponent: secret(&o.exponent),
            coefficient: secret(&o.coefficient),
        })
        .collect();
    let mut multi_prime = None;
    audit.section("rsa: a multi-prime key loaded from its parts", |_| {
        let public = file.public_key();
        multi_prime = Some(
            RsaPrivateKey::from_multi_prime_components(
                public.n(),
                public.e(),
                &secret(&file.d()),
                &secret(&p),
                &secret(&q),
                &secret(&dp),
                &secret(&dq),
                &secret(&qinv),
                &others,
            )
            .expect("consistent"),
        );
    });
    let multi_prime = multi_prime.expect("loaded");
    for (which, key) in [
        ("generated", &generated),
        ("loaded", &loaded),
        ("multi-prime", &multi_prime),
    ] {
        let public = key.public_key();
        audit.section(&format!("rsa ({which}): PKCS#1 v1.5 signature"), |rng| {
            let sig = key
                .sign_pkcs1v15(rng, HashAlg::Sha256, b"message")
                .expect("sign");
            let sig = revealed(sig);
            public
                .verify_pkcs1v15(HashAlg::Sha256, b"message", &sig)
                .expect("verifies");
        });
        audit.section(&format!("rsa ({which}): PKCS#1 v1.5 batch of 5"), |rng| {
            let msgs: [&[u8]; 5] = [b"m0", b"m1", b"m2", b"m3", b"m4"];
            let sigs = key
                .sign_pkcs1v15_batch(rng, HashAlg::Sha256, &msgs)
                .expect("sign");
            for (m, sig) in msgs.iter().zip(sigs) {
                let sig = revealed(sig);
                public
                    .verify_pkcs1v15(HashAlg::Sha256, m, &sig)
                    .expect("verifies");
            }
        });
        audit.section(&format!("rsa ({which}): PSS signature"), |rng| {
            let sig = key
                .sign_pss(rng, HashAlg::Sha256, b"message", SaltLength::Digest)
                .expect("sign");
            let sig = revealed(sig);
            public
                .verify_pss(HashAlg::Sha256, b"message", &sig, SaltLength::Digest)
                .expect("verifies");
        });
        // Ciphertexts are public; the padding drawn for them is not
        // (it comes from the secret generator), so they are declassified.
        let mut public_rng = ChaCha20Rng::seed_from_u64(1);
        let good = revealed(
            public
                .encrypt_pkcs1v15(&mut public_rng, b"a secret")
                .expect("encrypt"),
        );
        let mut bad = good.clone();
        bad[7] ^= 1;
        audit.section(
            &format!(
                "rsa ({which}): PKCS#1 v1.5 decryption, valid and invalid (implicit rejection)"
            ),
            |rng| {
                let m = key.decrypt_pkcs1v15(rng, &good).expect("decrypt");
                assert_eq!(revealed(m.to_vec()), b"a secret");
                let m = key
                    .decrypt_pkcs1v15(rng, &bad)
                    .expect("a synthetic message");
                black_box(revealed(m.to_vec()));
            },
        );
        let oaep = public
            .encrypt_oaep(&mut public_rng, HashAlg::Sha256, b"", b"a secret")
            .expect("encrypt");
        let mut oaep_bad = oaep.clone();
        oaep_bad[9] ^= 1;
        audit.section(
            &format!("rsa ({which}): OAEP decryption, valid and invalid"),
            |rng| {
                let m = key
                    .decrypt_oaep(rng, HashAlg::Sha256, b"", &oaep)
                    .expect("decrypt");
                assert_eq!(revealed(m.to_vec()), b"a secret");
                assert!(
                    key.decrypt_oaep(rng, HashAlg::Sha256, b"", &oaep_bad)
                        .is_err()
                );
            },
        );
    }
}

fn dsa(audit: &mut Audit) {
    let file = numcrypt::dsa::SigningKey::from_pem(include_str!("data/dsa-2048-256.pem"))
        .expect("the example key");
    let params = file.params().clone();
    let mut loaded = None;
    audit.section("dsa: a key loaded from x", |_| {
        loaded = Some(
            numcrypt::dsa::SigningKey::from_components(params.clone(), &secret(file.x()))
                .expect("valid"),
        );
    });
    let loaded = loaded.expect("loaded");
    let mut generated = None;
    audit.section("dsa: key generation (2048, 256)", |rng| {
        generated = Some(numcrypt::dsa::SigningKey::generate(&params, rng).expect("keygen"));
    });
    let generated = generated.expect("generated");
    for (which, key) in [("loaded", &loaded), ("generated", &generated)] {
        audit.section(
            &format!("dsa ({which}): RFC 6979 and hedged signatures"),
            |rng| {
                let sig = key.sign::<Sha256>(b"message").expect("sign");
                black_box(sig);
                let sig = key.sign_hedged::<Sha256, _>(rng, b"message").expect("sign");
                black_box(sig);
            },
        );
        audit.section(&format!("dsa ({which}): batch of 5 signatures"), |_| {
            black_box(key.sign_batch::<Sha256>(&BATCH_OF_5).expect("sign"));
        });
    }
}

/// Five messages: a batch kernel's pass (of four or eight lanes) and a
/// tail run in pairs, or one padded pass.
const BATCH_OF_5: [&[u8]; 5] = [b"one", b"two", b"three", b"four", b"five"];

fn elgamal(audit: &mut Audit) {
    let group = NamedGroup::Ffdhe2048.group();
    let mut key = None;
    audit.section("elgamal: key generation (ffdhe2048)", |rng| {
        key = Some(numcrypt::elgamal::SecretKey::generate(&group, rng).expect("keygen"));
    });
    let key = key.expect("generated");
    audit.section("elgamal: a key loaded from x", |_| {
        black_box(
            numcrypt::elgamal::SecretKey::from_components(group.clone(), &secret(key.x()))
                .expect("valid"),
        );
    });
    audit.section("elgamal: signatures (deterministic and hedged)", |rng| {
        black_box(key.sign::<Sha256>(b"message").expect("sign"));
        black_box(key.sign_hedged::<Sha256, _>(rng, b"message").expect("sign"));
    });
    audit.section("elgamal: batch of 5 signatures", |_| {
        black_box(key.sign_batch::<Sha256>(&BATCH_OF_5).expect("sign"));
    });
    let mut public_rng = ChaCha20Rng::seed_from_u64(2);
    let element = group.element_from_bytes(b"a secret").expect("fits");
    let c = key
        .public_key()
        .encrypt(&mut public_rng, &element)
        .expect("encrypt");
    let sealed = key
        .public_key()
        .seal(&mut public_rng, b"a secret", b"")
        .expect("seal");
    let batch: Vec<_> = BATCH_OF_5
        .iter()
        .map(|m| {
            key.public_key()
                .encrypt_message(&mut public_rng, m)
                .expect("encrypt")
        })
        .collect();
    audit.section("elgamal: decryption and hybrid opening", |_| {
        for (m, plain) in BATCH_OF_5.iter().zip(key.decrypt_message_batch(&batch)) {
            assert_eq!(revealed(plain.expect("decrypt").to_vec()), *m);
        }
        black_box(key.decrypt(&c).expect("decrypt"));
        let m = key.open(&sealed, b"").expect("open");
        assert_eq!(revealed(m.to_vec()), b"a secret");
    });
}

fn shared_rsa(audit: &mut Audit) {
    use numcrypt::shared_rsa::{
        KeyGenConfig, MemoryNetwork, combine, encode_pkcs1v15, generate_key,
    };
    let mut outputs = Vec::new();
    audit.section("shared-rsa: key generation, 3 parties, 512 bits", |rng| {
        let mut config = KeyGenConfig::new(512);
        config.threads = 1;
        let seeds: Vec<u64> = (0..3)
            .map(|_| ct_audit::declassified(rng.0.next_u64()))
            .collect();
        outputs = std::thread::scope(|s| {
            let parties: Vec<_> = MemoryNetwork::new(3)
                .into_iter()
                .zip(seeds)
                .map(|(transport, seed)| {
                    let config = &config;
                    s.spawn(move || {
                        generate_key(
                            &transport,
                            config,
                            &mut SecretRng(ChaCha20Rng::seed_from_u64(seed)),
                        )
                    })
                })
                .collect();
            parties
                .into_iter()
                .map(|p| p.join().expect("party").expect("keygen"))
                .collect()
        });
    });
    let public = outputs[0].share.public_key().clone();
    let em = encode_pkcs1v15(&public, HashAlg::Sha256, b"message").expect("encode");
    audit.section(
        "shared-rsa: partial signatures with proofs, combined",
        |rng| {
            let partials: Vec<_> = outputs
                .iter()
                .map(|out| out.share.sign_partial(rng, &em).expect("partial"))
                .collect();
            let sig = combine(&public, &em, &partials).expect("combine");
            black_box(sig);
        },
    );
}
