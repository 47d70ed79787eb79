//! Encryption: round trips, the homomorphism, known answers computed with
//! num-bigint, the KEM and the hybrid mode, and the refusal of tampered or
//! out-of-range values.

use crate::common;

use common::{big, boxed, key};
use hkdf::Hkdf;
use num_bigint::BigUint;
use numcrypt_elgamal::{Ciphertext, Error, Group, NamedGroup, PublicKey, SecretKey};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use sha2::Sha256;

/// The message encoding, written independently: `m = int(0x01 ‖ msg)`,
/// then `m` or `p − m`, whichever is a square.
fn reference_encode(group: &Group, msg: &[u8]) -> BigUint {
    let p = big(group.p());
    let q = big(group.q());
    let mut bytes = vec![1u8];
    bytes.extend_from_slice(msg);
    let m = BigUint::from_bytes_be(&bytes);
    if m.modpow(&q, &p) == BigUint::from(1u32) {
        m
    } else {
        &p - m
    }
}

#[test]
fn message_round_trips_at_every_length() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for group in [
        NamedGroup::Ffdhe2048,
        NamedGroup::PseudoMersenne2048,
        NamedGroup::Modp3072,
    ] {
        let key = key(group, 2);
        let g = key.group();
        let max = g.max_message_len();
        assert_eq!(max, ((g.bits() - 3) / 8) as usize);
        for len in [0, 1, 2, 31, 32, 100, max - 1, max] {
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            if len > 2 {
                msg[0] = 0; // leading zeros survive
            }
            let element = g.encode_message(&msg).unwrap();
            assert_eq!(big(element.value()), reference_encode(g, &msg));
            let c = key.public_key().encrypt_message(&mut rng, &msg).unwrap();
            assert_eq!(
                &key.decrypt_message(&c).unwrap()[..],
                &msg[..],
                "{group}, {len} bytes"
            );
            // Serialized ciphertexts come back the same.
            let bytes = c.to_bytes(g);
            assert_eq!(bytes.len(), 2 * g.element_len());
            assert_eq!(Ciphertext::from_bytes(&bytes, g).unwrap(), c);
        }
        assert_eq!(
            g.encode_message(&vec![7u8; max + 1]).unwrap_err(),
            Error::MessageTooLong
        );
    }
}

#[test]
fn every_named_group_round_trips() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for group in NamedGroup::ALL {
        let key = key(group, 4);
        let c = key
            .public_key()
            .encrypt_message(&mut rng, b"hello")
            .unwrap();
        assert_eq!(&key.decrypt_message(&c).unwrap()[..], b"hello", "{group}");
        let sealed = key.public_key().seal(&mut rng, b"sealed", b"").unwrap();
        assert_eq!(&key.open(&sealed, b"").unwrap()[..], b"sealed", "{group}");
    }
}

#[test]
fn known_answers_computed_with_num_bigint() {
    let group = NamedGroup::Ffdhe2048.group();
    let p = big(group.p());
    let q = big(group.q());
    let g = big(group.g());
    let x = (&q >> 3u32) + 12345u32;
    let key = SecretKey::from_components(group.clone(), &boxed(&x)).unwrap();
    let y = g.modpow(&x, &p);
    assert_eq!(big(key.public_key().y()), y);
    // A ciphertext made by num-bigint with r chosen here decrypts to the
    // encoded message.
    let msg = b"known answer";
    let m = reference_encode(&group, msg);
    let r = (&q >> 5u32) + 777u32;
    let c1 = g.modpow(&r, &p);
    let c2 = &m * y.modpow(&r, &p) % &p;
    let mut bytes = vec![0u8; 512];
    bytes[256 - c1.to_bytes_be().len()..256].copy_from_slice(&c1.to_bytes_be());
    bytes[512 - c2.to_bytes_be().len()..].copy_from_slice(&c2.to_bytes_be());
    let c = Ciphertext::from_bytes(&bytes, &group).unwrap();
    assert_eq!(big(key.decrypt(&c).unwrap().value()), m);
    assert_eq!(&key.decrypt_message(&c).unwrap()[..], msg);

    // Our ciphertexts satisfy c2 = m · c1^x.
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let ours = key.public_key().encrypt_message(&mut rng, msg).unwrap();
    assert_eq!(big(ours.c2()), &m * big(ours.c1()).modpow(&x, &p) % &p);

    // The KEM key is HKDF-SHA256 over c^x.
    let (enc, shared) = key.public_key().encapsulate(&mut rng).unwrap();
    let z = BigUint::from_bytes_be(&enc).modpow(&x, &p);
    let mut z_bytes = vec![0u8; 256];
    z_bytes[256 - z.to_bytes_be().len()..].copy_from_slice(&z.to_bytes_be());
    let mut y_bytes = vec![0u8; 256];
    y_bytes[256 - y.to_bytes_be().len()..].copy_from_slice(&y.to_bytes_be());
    let mut expected = [0u8; 32];
    Hkdf::<Sha256>::new(None, &z_bytes)
        .expand_multi_info(&[b"numcrypt-elgamal-kem-v1", &enc, &y_bytes], &mut expected)
        .unwrap();
    assert_eq!(shared.as_bytes(), &expected);
    assert_eq!(key.decapsulate(&enc).unwrap(), shared);
}

#[test]
fn ciphertexts_multiply_plaintexts() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let key = key(NamedGroup::PseudoMersenne2048, 6);
    let (public, group) = (key.public_key(), key.group());
    let p = big(group.p());
    let a = group.encode_message(b"factor a").unwrap();
    let b = group.encode_message(b"factor b").unwrap();
    let ca = public.encrypt(&mut rng, &a).unwrap();
    let cb = public.encrypt(&mut rng, &b).unwrap();
    let product = key.decrypt(&ca.mul(&cb, group)).unwrap();
    assert_eq!(big(product.value()), big(a.value()) * big(b.value()) % &p);
    // Re-randomized: a different ciphertext of the same element.
    let again = public.rerandomize(&mut rng, &ca).unwrap();
    assert_ne!(again, ca);
    assert_eq!(key.decrypt(&again).unwrap(), a);
}

/// Batch decryption: every plaintext the one encrypted, and each result
/// what single decryption gives, for batches of 0 to 12 (passes of a batch
/// kernel and tails); a ciphertext of another group among them fails
/// alone.
#[test]
fn batches_decrypt_as_single_decryption_does() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let key = key(NamedGroup::Ffdhe2048, 9);
    let other = common::key(NamedGroup::Ffdhe3072, 9);
    let msgs: Vec<Vec<u8>> = (0..11)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let mut cts: Vec<Ciphertext> = msgs
        .iter()
        .map(|m| key.public_key().encrypt_message(&mut rng, m).unwrap())
        .collect();
    let foreign = other.public_key().encrypt_message(&mut rng, b"x").unwrap();
    cts.insert(5, foreign);
    for count in [0, 1, 3, 4, 8, 9, 12] {
        let out = key.decrypt_message_batch(&cts[..count]);
        assert_eq!(out.len(), count);
        for (i, (c, got)) in cts.iter().zip(&out).enumerate() {
            let what = format!("ciphertext {i} of {count}");
            match i {
                5 => assert_eq!(got.as_ref().unwrap_err(), &Error::InvalidElement, "{what}"),
                _ => {
                    let plain = &msgs[if i < 5 { i } else { i - 1 }];
                    assert_eq!(&got.as_ref().unwrap()[..], &plain[..], "{what}");
                }
            }
            let single = key.decrypt_message(c);
            assert_eq!(
                got.as_ref().map(|m| &m[..]).ok(),
                single.as_ref().map(|m| &m[..]).ok()
            );
        }
        let elements = key.decrypt_batch(&cts[..count]);
        for (c, e) in cts.iter().zip(elements) {
            assert_eq!(e.ok(), key.decrypt(c).ok());
        }
    }
}

#[test]
fn tampered_and_out_of_range_ciphertexts_are_refused() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let key = key(NamedGroup::Ffdhe2048, 8);
    let group = key.group();
    let p = big(group.p());
    let c = key
        .public_key()
        .encrypt_message(&mut rng, b"secret")
        .unwrap();
    let bytes = c.to_bytes(group);
    let len = group.element_len();
    let with = |c1: &BigUint, c2: &BigUint| {
        let mut out = vec![0u8; 2 * len];
        let (b1, b2) = (c1.to_bytes_be(), c2.to_bytes_be());
        if b1.len() > len || b2.len() > len {
            return out; // zero: out of range as well
        }
        out[len - b1.len()..len].copy_from_slice(&b1);
        out[2 * len - b2.len()..].copy_from_slice(&b2);
        out
    };
    let (c1, c2) = (big(c.c1()), big(c.c2()));
    // 0, p, p + 1 and a non-square (p − c1: −1 is not a square).
    for bad in [
        with(&BigUint::from(0u32), &c2),
        with(&c1, &p),
        with(&(&p + 1u32), &c2),
        with(&(&p - &c1), &c2),
        with(&c1, &(&p - &c2)),
    ] {
        assert_eq!(
            Ciphertext::from_bytes(&bad, group).unwrap_err(),
            Error::InvalidElement
        );
    }
    assert_eq!(
        Ciphertext::from_bytes(&bytes[1..], group).unwrap_err(),
        Error::MalformedCiphertext
    );
    // Changing c2 by a square factor keeps it valid, but the plaintext is
    // no longer an encoded message (or at least not the same one).
    let four = with(&c1, &(&c2 * 4u32 % &p));
    let changed = Ciphertext::from_bytes(&four, group).unwrap();
    match key.decrypt_message(&changed) {
        Err(e) => assert_eq!(e, Error::InvalidPlaintext),
        Ok(m) => assert_ne!(&m[..], b"secret"),
    }
}

#[test]
fn the_hybrid_mode_authenticates_everything() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let key = key(NamedGroup::Ffdhe2048, 12);
    let other = key_from(&key, 13);
    let msg = vec![0x5au8; 10_000];
    let sealed = key.public_key().seal(&mut rng, &msg, b"aad").unwrap();
    assert_eq!(sealed.len(), 256 + msg.len() + 16);
    assert_eq!(&key.open(&sealed, b"aad").unwrap()[..], &msg[..]);
    // Each seal is fresh.
    assert_ne!(
        key.public_key().seal(&mut rng, &msg, b"aad").unwrap(),
        sealed
    );
    assert_eq!(
        key.open(&sealed, b"aae").unwrap_err(),
        Error::DecryptionFailed
    );
    assert_eq!(
        other.open(&sealed, b"aad").unwrap_err(),
        Error::DecryptionFailed
    );
    for i in [0, 100, 255, 256, 300, sealed.len() - 1] {
        let mut bad = sealed.clone();
        bad[i] ^= 0x01;
        let err = key.open(&bad, b"aad").unwrap_err();
        assert!(
            matches!(err, Error::DecryptionFailed | Error::InvalidElement),
            "byte {i}: {err:?}"
        );
    }
    assert_eq!(
        key.open(&sealed[..271], b"aad").unwrap_err(),
        Error::MalformedCiphertext
    );
    // An encapsulation of 1 (or 0, or p − 1) is refused.
    let mut one = vec![0u8; 256];
    one[255] = 1;
    assert_eq!(key.decapsulate(&one).unwrap_err(), Error::InvalidElement);
    assert_eq!(
        key.decapsulate(&[0u8; 256]).unwrap_err(),
        Error::InvalidElement
    );
    let p_minus_1 = (big(key.group().p()) - 1u32).to_bytes_be();
    assert_eq!(
        key.decapsulate(&p_minus_1).unwrap_err(),
        Error::InvalidElement
    );
    assert_eq!(
        key.decapsulate(&one[1..]).unwrap_err(),
        Error::MalformedCiphertext
    );
}

fn key_from(like: &SecretKey, seed: u64) -> SecretKey {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    SecretKey::generate(like.group(), &mut rng).unwrap()
}

#[test]
fn bad_keys_are_refused() {
    let group = NamedGroup::Modp2048.group();
    let p = big(group.p());
    let q = big(group.q());
    for y in [
        BigUint::from(0u32),
        BigUint::from(1u32),
        &p - 1u32,
        p.clone(),
        &p - 2u32, // −2: not a square
    ] {
        assert_eq!(
            PublicKey::new(group.clone(), boxed(&y)).unwrap_err(),
            Error::InvalidPublicKey,
            "y = {y}"
        );
    }
    for x in [BigUint::from(0u32), q.clone(), &q + 1u32, p.clone()] {
        assert_eq!(
            SecretKey::from_components(group.clone(), &boxed(&x)).unwrap_err(),
            Error::InvalidPrivateKey
        );
    }
    let x = &q - 1u32;
    let key = SecretKey::from_components(group.clone(), &boxed(&x)).unwrap();
    assert_eq!(big(key.public_key().y()), big(group.g()).modpow(&x, &p));
    assert_eq!(big(key.x()), x);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn random_messages_round_trip(msg in proptest::collection::vec(any::<u8>(), 0..=255), seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let key = key(NamedGroup::Ffdhe2048, 21);
        let c = key.public_key().encrypt_message(&mut rng, &msg).unwrap();
        prop_assert_eq!(&key.decrypt_message(&c).unwrap()[..], &msg[..]);
        let sealed = key.public_key().seal(&mut rng, &msg, &[]).unwrap();
        prop_assert_eq!(&key.open(&sealed, &[]).unwrap()[..], &msg[..]);
    }
}

/// Seals `msg` as a stream (chunks split as the command line splits them)
/// and returns the header and the sealed chunks.
fn seal_stream(public: &PublicKey, msg: &[u8], aad: &[u8], seed: u64) -> (Vec<u8>, Vec<Vec<u8>>) {
    use numcrypt_elgamal::stream::CHUNK_LEN;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (header, mut sealer) = public.seal_stream(&mut rng, aad).unwrap();
    // A message of whole chunks ends with a full last chunk; an empty one
    // is one empty last chunk.
    let mut pieces: Vec<&[u8]> = msg.chunks(CHUNK_LEN).collect();
    if pieces.is_empty() {
        pieces.push(&[]);
    }
    let n = pieces.len();
    let chunks = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| sealer.seal_chunk(p, i + 1 == n).unwrap())
        .collect();
    (header, chunks)
}

/// Opens a stream's chunks, the last marked as such.
fn open_stream(
    key: &SecretKey,
    header: &[u8],
    chunks: &[Vec<u8>],
    aad: &[u8],
) -> Result<Vec<u8>, Error> {
    let mut opener = key.open_stream(header, aad)?;
    let mut out = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        out.extend_from_slice(&opener.open_chunk(c, i + 1 == chunks.len())?);
    }
    assert!(opener.is_finished());
    Ok(out)
}

#[test]
fn streams_round_trip_and_follow_their_format() {
    use chacha20poly1305::aead::{Aead, Payload};
    use chacha20poly1305::{ChaCha20Poly1305, KeyInit};
    use numcrypt_elgamal::stream::{CHUNK_LEN, MAGIC, TAG_LEN};
    let key = key(NamedGroup::Ffdhe2048, 9);
    let public = key.public_key();
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    for len in [
        0,
        1,
        CHUNK_LEN - 1,
        CHUNK_LEN,
        CHUNK_LEN + 1,
        2 * CHUNK_LEN + 5,
    ] {
        let mut msg = vec![0u8; len];
        rng.fill_bytes(&mut msg);
        let (header, chunks) = seal_stream(public, &msg, b"aad", len as u64);
        assert_eq!(header.len(), key.stream_header_len());
        assert_eq!(&header[..8], MAGIC);
        assert_eq!(chunks.len(), len.div_ceil(CHUNK_LEN).max(1), "{len}");
        for c in &chunks[..chunks.len() - 1] {
            assert_eq!(c.len(), CHUNK_LEN + TAG_LEN);
        }
        assert_eq!(
            open_stream(&key, &header, &chunks, b"aad").unwrap(),
            msg,
            "{len}"
        );

        // The format, checked by hand: the chunk key is HKDF-SHA256 of the
        // KEM key, and chunk i's nonce is 0³ ‖ i (64-bit big-endian) ‖ last.
        let kem = key.decapsulate(&header[MAGIC.len()..]).unwrap();
        let mut chunk_key = [0u8; 32];
        Hkdf::<Sha256>::new(None, kem.as_bytes())
            .expand(b"numcrypt-elgamal STREAM v1", &mut chunk_key)
            .unwrap();
        let cipher = ChaCha20Poly1305::new((&chunk_key).into());
        let mut by_hand = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            let mut nonce = [0u8; 12];
            nonce[3..11].copy_from_slice(&(i as u64).to_be_bytes());
            nonce[11] = u8::from(i + 1 == chunks.len());
            let plain = cipher
                .decrypt(
                    (&nonce).into(),
                    Payload {
                        msg: c,
                        aad: b"aad",
                    },
                )
                .expect("a chunk opens with its nonce");
            by_hand.extend_from_slice(&plain);
        }
        assert_eq!(by_hand, msg, "{len}");
    }
}

#[test]
fn streams_detect_reordering_truncation_and_tampering() {
    use numcrypt_elgamal::stream::CHUNK_LEN;
    let key = key(NamedGroup::Ffdhe2048, 11);
    let public = key.public_key();
    let msg = vec![7u8; 3 * CHUNK_LEN + 100];
    let (header, chunks) = seal_stream(public, &msg, b"", 12);
    assert_eq!(chunks.len(), 4);
    let refused = |chunks: &[Vec<u8>], header: &[u8], aad: &[u8]| {
        open_stream(&key, header, chunks, aad).unwrap_err()
    };
    // Two chunks swapped.
    let mut swapped = chunks.clone();
    swapped.swap(0, 1);
    assert_eq!(refused(&swapped, &header, b""), Error::DecryptionFailed);
    // Cut at a chunk boundary: the new last chunk was not sealed as last.
    assert_eq!(refused(&chunks[..3], &header, b""), Error::DecryptionFailed);
    // Cut inside the last chunk, a byte changed, a chunk repeated, other
    // associated data, another key's header.
    let mut cut = chunks.clone();
    cut[3].truncate(50);
    assert_eq!(refused(&cut, &header, b""), Error::DecryptionFailed);
    let mut flipped = chunks.clone();
    flipped[2][5] ^= 1;
    assert_eq!(refused(&flipped, &header, b""), Error::DecryptionFailed);
    let repeated = vec![
        chunks[0].clone(),
        chunks[0].clone(),
        chunks[2].clone(),
        chunks[3].clone(),
    ];
    assert_eq!(refused(&repeated, &header, b""), Error::DecryptionFailed);
    assert_eq!(refused(&chunks, &header, b"x"), Error::DecryptionFailed);
    let (other_header, _) = seal_stream(public, b"", b"", 13);
    assert_eq!(
        refused(&chunks, &other_header, b""),
        Error::DecryptionFailed
    );
    // Lengths and order are enforced on both sides.
    let mut opener = key.open_stream(&header, b"").unwrap();
    assert_eq!(
        opener.open_chunk(&chunks[0][..100], false).unwrap_err(),
        Error::InvalidChunk
    );
    assert_eq!(
        key.open_stream(&header[1..], b"").unwrap_err(),
        Error::MalformedCiphertext
    );
    let mut rng = ChaCha20Rng::seed_from_u64(14);
    let (_, mut sealer) = public.seal_stream(&mut rng, b"").unwrap();
    assert_eq!(
        sealer.seal_chunk(b"short", false).unwrap_err(),
        Error::InvalidChunk
    );
    sealer.seal_chunk(b"end", true).unwrap();
    assert_eq!(
        sealer.seal_chunk(b"more", true).unwrap_err(),
        Error::StreamFinished
    );
}
