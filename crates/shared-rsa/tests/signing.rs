//! Threshold signing when parties do not behave: proofs and identity
//! signatures on partial signatures, `combine` among more than `t + 1`,
//! and `sign_jointly` with absent, late and lying parties, over keys whose
//! parties know each other by their certificates.

use std::time::{Duration, Instant};

use crate::common::*;
use numcrypt_limbs::{BoxedUint, Unsigned};
use numcrypt_shared_rsa::{
    Error, HashAlg, MemoryNetwork, MemoryTransport, PartialCheck, PartialSignature, ReceivedFrom,
    SharedKeyShare, SharedPublicKey, Transport, combine, combine_checked, encode_pkcs1v15,
    sign_jointly,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// Party `i`'s partial signature on `em`, with its proof, signed by its
/// identity key.
fn signed(fixture: &Fixture, i: usize, em: &[u8]) -> PartialSignature {
    let share = &fixture.outputs[i].share;
    let mut p = share.sign_partial(&mut rng(i as u64), em).unwrap();
    let key = fixture.identities[i].identity_key().unwrap();
    p.sign_identity(share.public_key(), &key).unwrap();
    p
}

fn times(public: &SharedPublicKey, x: &BoxedUint, k: u64) -> BoxedUint {
    x.mul_mod(&BoxedUint::from_u64(k, 1), public.n()).unwrap()
}

fn em(public: &SharedPublicKey, msg: &[u8]) -> Vec<u8> {
    encode_pkcs1v15(public, HashAlg::Sha256, msg).unwrap()
}

/// n = 5, t = 2: every one of the ten sets of three parties makes the same
/// signature, which openssl verifies; four and five do too; two are
/// refused.
#[test]
fn every_set_of_three_of_five_signs() {
    let fixture = five_parties();
    let public = fixture.outputs[0].share.public_key();
    assert_eq!(public.threshold(), 2);
    assert_eq!(public.identities().map(<[_]>::len), Some(5));
    let msg = b"any three of five";
    let em = em(public, msg);
    let partials: Vec<PartialSignature> = (0..5).map(|i| signed(fixture, i, &em)).collect();
    for p in &partials {
        assert_eq!(p.check(public), PartialCheck::Valid);
        assert!(p.is_attributed(public));
    }
    let mut signatures = Vec::new();
    for a in 0..5 {
        for b in a + 1..5 {
            for c in b + 1..5 {
                let set = [
                    partials[a].clone(),
                    partials[b].clone(),
                    partials[c].clone(),
                ];
                let sig = combine(public, &em, &set)
                    .unwrap_or_else(|e| panic!("parties {a} {b} {c}: {e}"));
                assert!(raw_verify(&big(public.n()), public.e(), &sig, &em));
                signatures.push(sig);
            }
        }
    }
    assert_eq!(signatures.len(), 10);
    assert!(
        signatures.iter().all(|s| s == &signatures[0]),
        "RSA signatures are unique"
    );
    let pem = public.to_public_key_pem().unwrap();
    assert!(openssl_verify(&pem, msg, &signatures[0], None));
    assert_eq!(combine(public, &em, &partials[1..]).unwrap(), signatures[0]);
    assert_eq!(combine(public, &em, &partials).unwrap(), signatures[0]);
    match combine(public, &em, &partials[..2]) {
        Err(e @ Error::TooFewPartials { needed: 3, got: 2 }) => {
            assert!(e.to_string().contains("needs 3 parties"), "{e}");
        }
        other => panic!("two partial signatures: {other:?}"),
    }
    let repeated = [
        partials[0].clone(),
        partials[0].clone(),
        partials[1].clone(),
    ];
    assert!(matches!(
        combine(public, &em, &repeated),
        Err(Error::InvalidInput(_))
    ));
}

/// Party 3 signs a wrong value (and signs it as its own): its proof fails
/// and it is named; with a fourth good partial signature the combiner
/// finds three good ones and says whom it left out.
#[test]
fn a_faulty_party_is_named_and_left_out() {
    let fixture = five_parties();
    let public = fixture.outputs[0].share.public_key();
    let em = em(public, b"a faulty party");
    let mut partials: Vec<PartialSignature> = (0..5).map(|i| signed(fixture, i, &em)).collect();
    partials[2].value = times(public, &partials[2].value, 3);
    let key = fixture.identities[2].identity_key().unwrap();
    partials[2].sign_identity(public, &key).unwrap();
    assert_eq!(partials[2].check(public), PartialCheck::Faulty);
    let three = [
        partials[0].clone(),
        partials[2].clone(),
        partials[4].clone(),
    ];
    match combine(public, &em, &three) {
        Err(Error::InvalidPartials {
            needed: 3,
            valid: 2,
            faulty,
            unattributed,
            unverifiable,
        }) => {
            assert_eq!(faulty, [3]);
            assert!(unattributed.is_empty() && unverifiable.is_empty());
        }
        other => panic!("expected party 3 to be named: {other:?}"),
    }
    // Four, the faulty one first: a valid subset is found.
    let four = [
        partials[2].clone(),
        partials[0].clone(),
        partials[3].clone(),
        partials[4].clone(),
    ];
    let combined = combine_checked(public, &em, &four).unwrap();
    assert_eq!(combined.faulty, [3]);
    assert!(combined.unattributed.is_empty());
    assert!(raw_verify(
        &big(public.n()),
        public.e(),
        &combined.signature,
        &em
    ));
}

/// A partial signature that says it is party 2's but is not (forged by
/// party 3, or party 2's altered on the way): nobody is blamed, and
/// certainly not party 2, and a good set among the others still signs.
/// (Before, the index was a field anyone could write, and party 2 was
/// named.)
#[test]
fn a_forged_partial_names_no_innocent_party() {
    let fixture = three_parties();
    let public = fixture.outputs[0].share.public_key();
    let em = em(public, b"forged");
    let genuine: Vec<PartialSignature> = (0..3).map(|i| signed(fixture, i, &em)).collect();
    // Party 3 forges party 2's: a value of its choice, party 2's proof
    // from the genuine one, signed with its own key.
    let mut forged = genuine[1].clone();
    forged.value = times(public, &forged.value, 5);
    let party_three = fixture.identities[2].identity_key().unwrap();
    assert!(matches!(
        forged.sign_identity(public, &party_three),
        Err(Error::InvalidInput(_))
    ));
    forged.identity_signature = genuine[2].identity_signature.clone();
    assert_eq!(forged.check(public), PartialCheck::Unattributed);
    // Unsigned: the same.
    let mut unsigned = forged.clone();
    unsigned.identity_signature = None;
    assert_eq!(unsigned.check(public), PartialCheck::Unattributed);
    // Party 2's genuine one, altered on the way.
    let mut altered = genuine[1].clone();
    altered.value = times(public, &altered.value, 2);
    assert_eq!(altered.check(public), PartialCheck::Unattributed);
    for bad in [&forged, &unsigned, &altered] {
        match combine(public, &em, &[genuine[0].clone(), bad.clone()]) {
            Err(e @ Error::InvalidPartials { .. }) => {
                let Error::InvalidPartials {
                    faulty,
                    unattributed,
                    ..
                } = &e
                else {
                    unreachable!()
                };
                assert!(faulty.is_empty(), "{e}");
                assert_eq!(unattributed, &[2]);
                assert!(e.to_string().contains("not blamed"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        let combined = combine_checked(
            public,
            &em,
            &[bad.clone(), genuine[0].clone(), genuine[2].clone()],
        )
        .unwrap();
        assert!(combined.faulty.is_empty());
        assert_eq!(combined.unattributed, [2]);
    }
}

/// The old consistency check was fitted to the value: a dishonest party
/// picked a wrong value and made its check hold, and nobody was named. A
/// proof cannot be fitted so: party 2's wrong value, with its right
/// value's proof or with the proof of its partial signature on another
/// message, fails, and, signed by party 2, names it. The value negated
/// (the other square root of the same square) fails its proof too, but is
/// harmless: the combiner uses squares.
#[test]
fn a_dishonest_partial_with_a_fitted_proof_is_named() {
    let fixture = three_parties();
    let public = fixture.outputs[0].share.public_key();
    let em = em(public, b"dishonest");
    let honest: Vec<PartialSignature> = (0..3).map(|i| signed(fixture, i, &em)).collect();
    let key = fixture.identities[1].identity_key().unwrap();
    let wrong_value = times(public, &honest[1].value, 2);
    let mut with_its_proof = honest[1].clone();
    with_its_proof.value = wrong_value.clone();
    let other_em = encode_pkcs1v15(public, HashAlg::Sha256, b"another message").unwrap();
    let mut with_another_proof = with_its_proof.clone();
    with_another_proof.proof = signed(fixture, 1, &other_em).proof;
    for mut bad in [with_its_proof, with_another_proof] {
        bad.sign_identity(public, &key).unwrap();
        assert_eq!(bad.check(public), PartialCheck::Faulty);
        match combine(public, &em, &[honest[0].clone(), bad.clone()]) {
            Err(Error::InvalidPartials { faulty, .. }) => assert_eq!(faulty, [2]),
            other => panic!("{other:?}"),
        }
    }
    let mut negated = honest[1].clone();
    negated.value = public
        .n()
        .wrapping_sub(&negated.value.resize(public.n().nlimbs()).unwrap());
    negated.sign_identity(public, &key).unwrap();
    assert_eq!(negated.check(public), PartialCheck::Faulty);
    assert_eq!(
        combine(public, &em, &[honest[0].clone(), negated]).unwrap(),
        combine(public, &em, &honest[..2]).unwrap(),
        "−s combines as s"
    );
}

/// A partial signature without a proof is unverifiable, not faulty: used
/// when it helps make a signature, never blamed; among more, the
/// combiner tries sets until one verifies.
#[test]
fn a_partial_without_a_proof_is_unverifiable_not_faulty() {
    let fixture = five_parties();
    let public = fixture.outputs[0].share.public_key();
    let em = em(public, b"unverifiable");
    let mut partials: Vec<PartialSignature> = (0..5).map(|i| signed(fixture, i, &em)).collect();
    for p in &mut partials[2..4] {
        p.proof = None;
        p.identity_signature = None;
    }
    assert_eq!(partials[2].check(public), PartialCheck::Unverifiable);
    // A good one without a proof makes a signature as any other.
    let sig = combine(public, &em, &partials[..3]).unwrap();
    assert!(raw_verify(&big(public.n()), public.e(), &sig, &em));
    // A bad one without a proof: not blamed, and the other is tried.
    partials[2].value = times(public, &partials[2].value, 7);
    let combined = combine_checked(public, &em, &partials[..4]).unwrap();
    assert_eq!(combined.signature, sig);
    assert!(combined.faulty.is_empty() && combined.unattributed.is_empty());
    match combine(public, &em, &partials[..3]) {
        Err(Error::InvalidPartials {
            valid: 2,
            faulty,
            unverifiable,
            ..
        }) => {
            assert!(faulty.is_empty());
            assert_eq!(unverifiable, [3]);
        }
        other => panic!("{other:?}"),
    }
}

/// Partial signatures and keys round-trip through their files, with
/// proofs, identity signatures and identities; a version 1 partial
/// signature (a consistency check, no proof) is refused, saying so.
#[test]
fn files_round_trip() {
    let fixture = three_parties();
    let dir = temp_dir("files");
    for o in &fixture.outputs {
        let path = dir.join(format!("share-{}.pem", o.share.index() + 1));
        std::fs::write(&path, o.share.to_pem().unwrap().as_bytes()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let back = SharedKeyShare::from_pem(&text).unwrap();
        assert_eq!(back.to_der().unwrap(), o.share.to_der().unwrap());
        assert_eq!(back.index(), o.share.index());
        assert_eq!(
            &SharedPublicKey::from_pem(&text).unwrap(),
            o.share.public_key()
        );
    }
    let public = fixture.outputs[0].share.public_key();
    let back = SharedPublicKey::from_pem(&public.to_public_pem().unwrap()).unwrap();
    assert_eq!(&back, public);
    assert_eq!(back.identities(), public.identities());
    let em = em(public, b"files");
    let partial = signed(fixture, 1, &em);
    let back = PartialSignature::from_pem(&partial.to_pem().unwrap()).unwrap();
    assert_eq!(back, partial);
    assert_eq!(back.check(public), PartialCheck::Valid);
    assert!(back.is_attributed(public));
    // Version 1: version, index, message, value, check.
    let v1 = [
        &[
            0x30, 0x0c, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x04, 0x01, 0x00,
        ][..],
        &[0x02, 0x01, 0x05],
    ]
    .concat();
    match PartialSignature::from_der(&v1) {
        Err(Error::InvalidEncoding(why)) => assert!(why.contains("version 1"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Malformed files are errors.
    let pem = fixture.outputs[0].share.to_pem().unwrap();
    assert!(SharedKeyShare::from_pem(&pem[..pem.len() / 2]).is_err());
    assert!(SharedKeyShare::from_pem(&public.to_pem().unwrap()).is_err());
    let mut der = fixture.outputs[0].share.to_der().unwrap().to_vec();
    der.pop();
    assert!(SharedKeyShare::from_der(&der).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `sign_jointly` at the parties `who` (the others do not take
/// part), each with `timeout`.
fn sign_at(
    transports: &[impl Transport],
    fixture: &Fixture,
    who: &[usize],
    em: &[u8],
    timeout: Duration,
) -> Vec<Result<Vec<u8>, Error>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = who
            .iter()
            .map(|&i| {
                let (t, share) = (&transports[i], &fixture.outputs[i].share);
                s.spawn(move || sign_jointly(&mut rng(100 + i as u64), t, share, em, timeout))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Any t + 1 suffice: parties 1 and 2 of three sign while party 3 is away,
/// each combining and checking the signature itself. (Before, party 1
/// waited for every party.)
#[test]
fn sign_jointly_needs_only_t_plus_1() {
    let fixture = three_parties();
    let public = fixture.outputs[0].share.public_key();
    let em = em(public, b"two of three");
    let net = MemoryNetwork::new(3);
    let start = Instant::now();
    let sigs = sign_at(&net, fixture, &[0, 1], &em, Duration::from_secs(20));
    assert!(start.elapsed() < Duration::from_secs(5));
    let sig = sigs[0].as_ref().unwrap();
    assert_eq!(sigs[1].as_ref().unwrap(), sig);
    assert!(raw_verify(&big(public.n()), public.e(), sig, &em));
}

/// A late reply: party 3 asks alone for a signature on one message and
/// gives up; its partial signature waits at the others. Then all three
/// sign another message: the stale reply is not taken for this request.
/// (Before, party 1 took it for party 3's partial signature on the new
/// message, and named honest party 3 faulty.)
#[test]
fn a_late_reply_is_not_taken_for_the_next_request() {
    let fixture = three_parties();
    let public = fixture.outputs[0].share.public_key();
    let (first, second) = (em(public, b"first"), em(public, b"second"));
    let net = MemoryNetwork::new(3);
    let alone = sign_at(&net, fixture, &[2], &first, Duration::from_millis(200));
    assert!(
        matches!(alone[0], Err(Error::Timeout { .. })),
        "{:?}",
        alone[0]
    );
    let sigs = sign_at(&net, fixture, &[0, 1, 2], &second, Duration::from_secs(20));
    for s in &sigs {
        let s = s.as_ref().unwrap_or_else(|e| panic!("{e}"));
        assert!(raw_verify(&big(public.n()), public.e(), s, &second));
    }
}

/// A transport that corrupts the partial signatures its party sends: a
/// lying party.
struct Lying(MemoryTransport);

impl Transport for Lying {
    fn party_count(&self) -> usize {
        self.0.party_count()
    }
    fn index(&self) -> usize {
        self.0.index()
    }
    fn send(&self, to: usize, channel: u16, mut payload: Vec<u8>) -> Result<(), Error> {
        if channel == u16::MAX && payload.len() > 40 {
            payload[40] ^= 1; // inside the value
        }
        self.0.send(to, channel, payload)
    }
    fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error> {
        self.0.recv(from, channel, timeout)
    }
    fn recv_any(&self, from: &[bool], channel: u16, timeout: Duration) -> ReceivedFrom {
        self.0.recv_any(from, channel, timeout)
    }
    fn bytes_sent(&self) -> u64 {
        self.0.bytes_sent()
    }
    fn abort(&self) {
        self.0.abort()
    }
}

/// Party 1 lies: the others still sign (they check the result, and the
/// proofs show whose partial signature to leave out); with party 3 away,
/// party 2 cannot gather two good ones and names party 1.
#[test]
fn sign_jointly_outvotes_a_lying_party() {
    let fixture = three_parties();
    let public = fixture.outputs[0].share.public_key();
    let em = em(public, b"a liar among us");
    let mut net = MemoryNetwork::new(3).into_iter();
    let liar = Lying(net.next().unwrap());
    let honest: Vec<MemoryTransport> = net.collect();
    let (liar_result, honest_results) = std::thread::scope(|s| {
        let l = s.spawn(|| {
            sign_jointly(
                &mut rng(1),
                &liar,
                &fixture.outputs[0].share,
                &em,
                Duration::from_secs(20),
            )
        });
        let h: Vec<_> = (1..3)
            .map(|i| {
                let (t, share, em) = (&honest[i - 1], &fixture.outputs[i].share, &em);
                s.spawn(move || {
                    sign_jointly(&mut rng(i as u64), t, share, em, Duration::from_secs(20))
                })
            })
            .collect();
        (
            l.join().unwrap(),
            h.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>(),
        )
    });
    for r in honest_results.iter().chain([&liar_result]) {
        let sig = r.as_ref().unwrap_or_else(|e| panic!("{e}"));
        assert!(raw_verify(&big(public.n()), public.e(), sig, &em));
    }

    // Party 3 away: party 2 has its own and the liar's.
    let mut net = MemoryNetwork::new(3).into_iter();
    let liar = Lying(net.next().unwrap());
    let two = net.next().unwrap();
    let results = std::thread::scope(|s| {
        let l = s.spawn(|| {
            sign_jointly(
                &mut rng(1),
                &liar,
                &fixture.outputs[0].share,
                &em,
                Duration::from_millis(500),
            )
        });
        let t = s.spawn(|| {
            sign_jointly(
                &mut rng(2),
                &two,
                &fixture.outputs[1].share,
                &em,
                Duration::from_millis(500),
            )
        });
        (l.join().unwrap(), t.join().unwrap())
    });
    match results.1 {
        Err(Error::InvalidPartials { faulty, .. }) => assert_eq!(faulty, [1]),
        other => panic!("{other:?}"),
    }
    // The liar itself got party 2's good one and signed.
    assert!(results.0.is_ok(), "{:?}", results.0);
}
