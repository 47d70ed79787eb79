//! Domain parameters: generation (A.1.1.2, A.2.3, A.2.1), validation
//! (A.1.1.3, A.2.4 and the cheap checks), and the errors for bad values.
//! Primality is confirmed by `openssl prime` and the group relations by
//! num-bigint.

use crate::common::{big, boxed, ok, openssl};
use num_bigint::BigUint;
use numcrypt_dsa::{
    BoxedUint, DomainParameters, Error, GenerationOptions, GeneratorMethod, HashAlg,
    ParameterSizes, ValidationParameters,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// `openssl prime` as the independent primality reference.
fn openssl_says_prime(x: &BoxedUint) -> bool {
    let out = openssl(&["prime", "-hex", &format!("{x:x}")]);
    String::from_utf8_lossy(&out.stdout).contains("is prime")
}

/// The FIPS 186-4 relations, checked with num-bigint.
fn check_relations(params: &DomainParameters) {
    let (p, q, g) = (big(params.p()), big(params.q()), big(params.g()));
    let sizes = params.sizes();
    assert_eq!(p.bits(), sizes.l() as u64);
    assert_eq!(q.bits(), sizes.n() as u64);
    assert_eq!((&p - 1u32) % &q, BigUint::from(0u32));
    assert!(g > BigUint::from(1u32) && g < p);
    assert_eq!(g.modpow(&q, &p), BigUint::from(1u32));
    assert!(openssl_says_prime(params.p()), "p prime");
    assert!(openssl_says_prime(params.q()), "q prime");
}

fn generate(sizes: ParameterSizes, seed: u64) -> DomainParameters {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    DomainParameters::generate(sizes, &mut rng).expect("generation")
}

#[test]
fn generated_parameters_are_valid_at_every_size() {
    for (i, sizes) in [
        ParameterSizes::L2048N224,
        ParameterSizes::L2048N256,
        ParameterSizes::L3072N256,
    ]
    .into_iter()
    .enumerate()
    {
        let params = generate(sizes, 100 + i as u64);
        check_relations(&params);
        let v = params.validation_parameters().expect("seed kept");
        assert_eq!(v.index, Some(1));
        assert_eq!(v.seed.len() * 8, sizes.n() as usize);
        assert_eq!(v.hash, HashAlg::shortest_sha2_for_bits(sizes.n()).unwrap());
        assert!(v.counter < 4 * sizes.l());
        // A.1.1.3 redoes A.1.1.2's search from the seed, to its counter.
        params
            .validate()
            .expect("A.1.1.3 and A.2.4 accept what A.1.1.2 made");
        // The same seed always gives the same parameters: once, at the
        // smallest size (a search again at each size doubled the test's
        // time, for what validate() checks).
        if i == 0 {
            assert_eq!(generate(sizes, 100 + i as u64), params);
        }
    }
}

#[test]
fn the_seed_determines_the_parameters() {
    let params = generate(ParameterSizes::L2048N224, 7);
    let v = params.validation_parameters().unwrap().clone();
    let rebuild = |v: ValidationParameters, g: &BoxedUint| {
        DomainParameters::with_validation(params.p().clone(), params.q().clone(), g.clone(), v)
            .expect("cheap checks pass")
            .validate()
    };
    assert_eq!(rebuild(v.clone(), params.g()), Ok(()));

    let mut wrong_counter = v.clone();
    wrong_counter.counter ^= 1;
    assert_eq!(rebuild(wrong_counter, params.g()), Err(Error::SeedMismatch));

    let mut wrong_seed = v.clone();
    wrong_seed.seed[5] ^= 0x10;
    assert_eq!(rebuild(wrong_seed, params.g()), Err(Error::SeedMismatch));

    let mut wrong_hash = v.clone();
    wrong_hash.hash = HashAlg::Sha256;
    assert_eq!(rebuild(wrong_hash, params.g()), Err(Error::SeedMismatch));

    let mut wrong_index = v.clone();
    wrong_index.index = Some(2);
    assert_eq!(
        rebuild(wrong_index, params.g()),
        Err(Error::GeneratorMismatch)
    );

    // g² also has order q, so it passes the cheap checks, but it is not
    // the generator the seed and index give.
    let (p, g) = (big(params.p()), big(params.g()));
    let g2 = boxed(&(&g * &g % &p));
    assert_eq!(rebuild(v.clone(), &g2), Err(Error::GeneratorMismatch));
    // Without an index, any g of order q passes (A.2.2 only).
    let mut no_index = v.clone();
    no_index.index = None;
    assert_eq!(rebuild(no_index, &g2), Ok(()));

    let mut short = v.clone();
    short.seed.truncate(20);
    assert_eq!(
        DomainParameters::with_validation(
            params.p().clone(),
            params.q().clone(),
            params.g().clone(),
            short
        )
        .unwrap_err(),
        Error::SeedTooShort
    );
}

#[test]
fn unverifiable_generator_and_other_hashes() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let mut options = GenerationOptions::new(ParameterSizes::L2048N224);
    options.hash = HashAlg::Sha512;
    options.seed_len = 40;
    options.generator = GeneratorMethod::Unverifiable;
    let params = DomainParameters::generate_with(&options, &mut rng, &mut |_| {
        std::ops::ControlFlow::Continue(())
    })
    .expect("generation");
    check_relations(&params);
    let v = params.validation_parameters().unwrap();
    assert_eq!((v.hash, v.seed.len(), v.index), (HashAlg::Sha512, 40, None));
    params.validate().expect("valid");
    // A.2.1 with h = 2: g = 2^((p−1)/q) mod p, unless that is 1.
    let (p, q) = (big(params.p()), big(params.q()));
    let e = (&p - 1u32) / &q;
    assert_eq!(big(params.g()), BigUint::from(2u32).modpow(&e, &p));
}

#[test]
fn generation_refuses_bad_options_and_can_be_cancelled() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let run = |options: &GenerationOptions, rng: &mut ChaCha20Rng| {
        DomainParameters::generate_with(options, rng, &mut |_| std::ops::ControlFlow::Continue(()))
    };
    assert_eq!(
        DomainParameters::generate(ParameterSizes::L1024N160, &mut rng).unwrap_err(),
        Error::VerifyOnly
    );
    let mut options = GenerationOptions::new(ParameterSizes::L2048N256);
    options.hash = HashAlg::Sha224;
    assert_eq!(run(&options, &mut rng).unwrap_err(), Error::HashTooShort);
    let mut options = GenerationOptions::new(ParameterSizes::L2048N256);
    options.seed_len = 31;
    assert_eq!(run(&options, &mut rng).unwrap_err(), Error::SeedTooShort);

    let mut calls = 0;
    let options = GenerationOptions::new(ParameterSizes::L2048N256);
    let result = DomainParameters::generate_with(&options, &mut rng, &mut |p| {
        calls += 1;
        assert!(p.seeds >= 1);
        if p.p_candidates >= 3 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    assert_eq!(result.unwrap_err(), Error::Cancelled);
    assert!(calls >= 3);
}

#[test]
fn cheap_checks_catch_bad_values() {
    let params = generate(ParameterSizes::L2048N256, 3);
    let (p, q, g) = (params.p().clone(), params.q().clone(), params.g().clone());
    let (pb, qb) = (big(&p), big(&q));
    let new =
        |p: &BigUint, q: &BigUint, g: &BigUint| DomainParameters::new(boxed(p), boxed(q), boxed(g));
    assert!(DomainParameters::new(p.clone(), q.clone(), g.clone()).is_ok());
    let gb = big(&g);
    // Sizes that are not a FIPS 186-4 pair.
    assert_eq!(
        new(&(&pb >> 1u32), &qb, &BigUint::from(2u32)).unwrap_err(),
        Error::UnsupportedSizes { l: 2047, n: 256 }
    );
    // q does not divide p − 1.
    let q_next = &qb + 2u32;
    assert_eq!(new(&pb, &q_next, &gb).unwrap_err(), Error::QDoesNotDivideP);
    // Even p or q.
    assert_eq!(new(&(&pb + 1u32), &qb, &gb).unwrap_err(), Error::PNotPrime);
    assert_eq!(new(&pb, &(&qb + 1u32), &gb).unwrap_err(), Error::QNotPrime);
    // g outside [2, p − 1], or not of order q.
    for bad in [
        BigUint::from(0u32),
        BigUint::from(1u32),
        pb.clone(),
        &pb + 5u32,
        &pb - 1u32,
    ] {
        assert_eq!(
            new(&pb, &qb, &bad).unwrap_err(),
            Error::InvalidGenerator,
            "g = {bad}"
        );
    }
    // A generator of the whole group (order p − 1) is refused.
    let h = BigUint::from(3u32);
    assert_ne!(h.modpow(&qb, &pb), BigUint::from(1u32));
    assert_eq!(new(&pb, &qb, &h).unwrap_err(), Error::InvalidGenerator);

    // Primality is validate's job: n = p₁·m with p₁ ≡ m ≡ 1 (mod q) is
    // composite, q | n − 1, and an element of order q modulo p₁ that is 1
    // modulo m has order q modulo n; the cheap checks pass, validation
    // does not.
    let one = BigUint::from(1u32);
    let p1 = (BigUint::from(1u32) << 1023u32) / &qb * &qb + 1u32;
    let p1 = (0u32..)
        .map(|t| &p1 + &qb * t)
        .find(|c| numcrypt_prime::is_prime_vartime(&boxed(c)))
        .unwrap();
    let mut m = (BigUint::from(1u32) << 1024u32) / &qb * &qb + 1u32;
    if !m.bit(0) {
        m += &qb; // keep n odd, so that it reaches the primality test
    }
    let n = &p1 * &m;
    assert_eq!(n.bits(), 2048);
    let h = BigUint::from(2u32).modpow(&((&p1 - 1u32) / &qb), &p1);
    assert_ne!(h, one);
    // g ≡ h (mod p₁), g ≡ 1 (mod m), by CRT.
    let m_inv = m.modinv(&p1).unwrap();
    let g_n = (&one + &m * ((&h + &p1 - 1u32) * &m_inv % &p1)) % &n;
    assert_eq!(g_n.modpow(&qb, &n), one);
    let composite = new(&n, &qb, &g_n).expect("cheap checks pass");
    assert_eq!(composite.validate(), Err(Error::PNotPrime));
    assert!(!openssl_says_prime(&boxed(&n)));
}

/// OpenSSL's FIPS 186-4 generation with a verifiable generator, checked by
/// our A.1.1.3 and A.2.4: the seed expansion and the generator derivation
/// agree with an independent implementation.
#[test]
fn openssl_generated_parameters_validate() {
    for (qbits, digest) in [(224, "SHA224"), (256, "SHA256")] {
        let out = ok(&[
            "genpkey",
            "-genparam",
            "-algorithm",
            "DSA",
            "-pkeyopt",
            "type:fips186_4",
            "-pkeyopt",
            "pbits:2048",
            "-pkeyopt",
            &format!("qbits:{qbits}"),
            "-pkeyopt",
            &format!("digest:{digest}"),
            "-pkeyopt",
            "gindex:1",
            "-text",
        ]);
        let text = String::from_utf8(out.stdout).unwrap();
        let field = |name: &str| -> Vec<u8> {
            // "NAME:" followed by indented hex lines.
            let start = text.find(&format!("\n{name}")).expect(name) + 1;
            let body: String = text[start..]
                .lines()
                .skip(1)
                .take_while(|l| l.starts_with("    "))
                .collect::<String>()
                .chars()
                .filter(|c| c.is_ascii_hexdigit())
                .collect();
            hex::decode(body).unwrap()
        };
        let number = |name: &str| BoxedUint::from_be_slice_auto(&field(name));
        let counter: u32 = text
            .lines()
            .find_map(|l| l.strip_prefix("pcounter: "))
            .expect("pcounter")
            .trim()
            .parse()
            .unwrap();
        let seed = field("SEED:");
        let hash = digest.parse::<HashAlg>().unwrap();
        let validation = ValidationParameters {
            hash,
            seed: seed.clone(),
            counter,
            index: Some(1),
        };
        let params =
            DomainParameters::with_validation(number("P:"), number("Q:"), number("G:"), validation)
                .expect("cheap checks");
        params
            .validate()
            .expect("OpenSSL's parameters follow from their seed");
        // And the PEM it wrote is ours to read.
        let pem_start = text.find("-----BEGIN DSA PARAMETERS-----").unwrap();
        let from_pem = DomainParameters::from_pem(&text[pem_start..]).expect("PEM");
        assert_eq!(from_pem, params);
    }
}

#[test]
fn pem_round_trip_keeps_the_seed() {
    let params = generate(ParameterSizes::L2048N224, 21);
    let pem = params.to_pem();
    assert!(pem.starts_with("-----BEGIN DSA PARAMETERS-----\n"));
    assert!(pem.contains("-----BEGIN DSA DOMAIN PARAMETER SEED-----\n"));
    let back = DomainParameters::from_pem(&pem).expect("round trip");
    assert_eq!(back, params);
    assert_eq!(back.validation_parameters(), params.validation_parameters());
    back.validate().expect("still verifiable");

    let plain = params.without_validation_parameters();
    let back = DomainParameters::from_pem(&plain.to_pem()).expect("round trip");
    assert_eq!(back.validation_parameters(), None);
    assert_eq!(
        DomainParameters::from_der(&params.to_der()).unwrap(),
        params
    );

    // Malformed input is a typed error.
    assert_eq!(
        DomainParameters::from_pem("no PEM here").unwrap_err(),
        Error::UnsupportedAlgorithm
    );
    let mut der = params.to_der();
    der.push(0);
    assert_eq!(
        DomainParameters::from_der(&der).unwrap_err(),
        Error::Encoding
    );
    assert_eq!(
        DomainParameters::from_der(&der[..100]).unwrap_err(),
        Error::Encoding
    );
}
