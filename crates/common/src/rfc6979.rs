//! Deterministic nonces (RFC 6979): an HMAC-DRBG keyed by the private key
//! and the message hash, so that signing needs no random numbers and a bad
//! generator cannot leak the key. Additional data (section 3.6) mixes
//! fresh randomness in without losing that protection.
//!
//! The generator is written for any modulus: DSA uses `q`, ElGamal
//! signatures use `p − 1` (with their own acceptance rule). That is why it
//! is not the `rfc6979` crate's: its `generate_k` takes moduli of a size
//! fixed at compile time (elliptic-curve orders), and ElGamal's `p − 1`
//! has 2048 bits or more, chosen at run time. The known answers of RFC 6979
//! appendix A.2 (DSA) check it.

use alloc::vec;

use alloc::vec::Vec;
use hmac::{EagerHash, Hmac, KeyInit, Mac};
use numcrypt_limbs::{BoxedUint, Unsigned};
use rand_core::TryCryptoRng;
use zeroize::{Zeroize, Zeroizing};

use crate::Error;

/// The HMAC-DRBG of RFC 6979 section 3.2, seeded with a private key, a
/// message hash and optional additional data; each call to
/// [`next_candidate`](Self::next_candidate) runs step h once.
///
/// Constant time in the private key, the hash and the candidates (HMAC and
/// the conversions are); the caller's acceptance test decides how many
/// candidates are drawn, which is public anyway in practice (the first is
/// accepted except with negligible probability for DSA).
pub struct NonceGenerator<D: EagerHash> {
    hash: core::marker::PhantomData<D>,
    k: Vec<u8>,
    v: Vec<u8>,
    modulus_bits: u32,
    nlimbs: usize,
    first: bool,
}

/// `HMAC_key(parts[0] || parts[1] || …)`.
fn hmac<D: EagerHash>(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = match <Hmac<D> as KeyInit>::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC accepts keys of any length"),
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

/// RFC 6979's `bits2int`: the leftmost `qlen` bits of `bytes` as an
/// integer of `nlimbs` limbs (constant time in the value).
pub fn bits2int(bytes: &[u8], qlen: u32, nlimbs: usize) -> BoxedUint {
    let blen = 8 * bytes.len() as u64;
    let mut wide = BoxedUint::from_be_slice_auto(bytes);
    if blen > qlen as u64 {
        // The shift depends only on the lengths, which are public.
        wide = wide.shr_vartime((blen - qlen as u64) as u32);
    }
    let out = wide.at_width(nlimbs);
    wide.zeroize();
    out
}

impl<D: EagerHash> NonceGenerator<D> {
    /// Steps a–f of RFC 6979 section 3.2 for the modulus `modulus` (`q`),
    /// the private key `x` (below the modulus), the message hash `h1`, and
    /// `additional` data (empty for the plain deterministic scheme; fresh
    /// random bytes for the hedged variant of section 3.6).
    pub fn new(modulus: &BoxedUint, x: &BoxedUint, h1: &[u8], additional: &[u8]) -> Self {
        let qlen = modulus.bits_vartime();
        let rlen = qlen.div_ceil(8) as usize;
        let nlimbs = modulus.nlimbs();

        let mut x_octets = vec![0u8; rlen];
        let mut x_at_width = x.at_width(nlimbs);
        // x < modulus, so it fits rlen bytes.
        let _ = x_at_width.write_be_bytes(&mut x_octets);

        // bits2octets(h1): bits2int(h1) mod q, which is below 2q.
        let z1 = bits2int(h1, qlen, nlimbs);
        let (mut z2, borrow) = z1.borrowing_sub(modulus, 0);
        let keep_z1 = subtle::Choice::from(borrow as u8);
        z2.conditional_assign(&z1, keep_z1);
        let mut h_octets = vec![0u8; rlen];
        let _ = z2.write_be_bytes(&mut h_octets);

        let hlen = <D as digest::OutputSizeUser>::output_size();
        let v = vec![0x01u8; hlen];
        let k = vec![0x00u8; hlen];
        let k = hmac::<D>(&k, &[&v, &[0x00], &x_octets, &h_octets, additional]);
        let v = hmac::<D>(&k, &[&v]);
        let k = hmac::<D>(&k, &[&v, &[0x01], &x_octets, &h_octets, additional]);
        let v = hmac::<D>(&k, &[&v]);

        x_octets.zeroize();
        h_octets.zeroize();
        x_at_width.zeroize();
        z2.zeroize();
        Self {
            hash: core::marker::PhantomData,
            k,
            v,
            modulus_bits: qlen,
            nlimbs,
            first: true,
        }
    }

    /// Step h once: the next candidate `bits2int(T)`, `qlen` bits at the
    /// modulus' width. The caller tests it (for DSA: `1 ≤ k ≤ q − 1`) and
    /// asks again on rejection.
    pub fn next_candidate(&mut self) -> BoxedUint {
        if !self.first {
            // h.3: K = HMAC_K(V || 0x00), V = HMAC_K(V).
            let k = hmac::<D>(&self.k, &[&self.v, &[0x00]]);
            self.k.zeroize();
            self.k = k;
            self.v = hmac::<D>(&self.k, &[&self.v]);
        }
        self.first = false;
        let tlen = (self.modulus_bits as usize).div_ceil(8);
        let mut t = vec![0u8; tlen.div_ceil(self.v.len()) * self.v.len()];
        for chunk in t.chunks_mut(self.v.len()) {
            self.v = hmac::<D>(&self.k, &[&self.v]);
            chunk.copy_from_slice(&self.v);
        }
        // bits2int over exactly the bytes drawn (tlen rounded up to whole
        // HMAC outputs), as the RFC concatenates them.
        let candidate = bits2int(&t, self.modulus_bits, self.nlimbs);
        t.zeroize();
        candidate
    }
}

impl<D: EagerHash> Drop for NonceGenerator<D> {
    fn drop(&mut self) {
        self.k.zeroize();
        self.v.zeroize();
    }
}

/// RFC 6979's `k` for DSA: the first candidate in `[1, q − 1]`.
pub fn generate_k<D: EagerHash>(
    q: &BoxedUint,
    x: &BoxedUint,
    h1: &[u8],
    additional: &[u8],
) -> BoxedUint {
    let mut drbg = NonceGenerator::<D>::new(q, x, h1, additional);
    loop {
        let mut k = drbg.next_candidate();
        let in_range = !k.is_zero() & k.ct_lt_value(q);
        if bool::from(in_range) {
            return k;
        }
        k.zeroize();
    }
}

/// Runs `sign` with 32 fresh bytes from `rng` as the additional data of
/// section 3.6 (hedged signatures), wiped afterwards; `rng`'s error if it
/// fails (never, for an infallible `CryptoRng`).
pub fn with_additional_data<R: TryCryptoRng + ?Sized, T>(
    rng: &mut R,
    sign: impl FnOnce(&[u8]) -> T,
) -> Result<T, R::Error> {
    let mut extra = Zeroizing::new([0u8; 32]);
    rng.try_fill_bytes(&mut *extra)?;
    Ok(sign(&*extra))
}

/// [`with_additional_data`] for the `signature` crate's randomized
/// signers: the generator's failure and the signing error both become a
/// `signature::Error` (the former as [`Error::Rng`]).
pub fn hedged<R: TryCryptoRng + ?Sized, S, E>(
    rng: &mut R,
    sign: impl FnOnce(&[u8]) -> Result<S, E>,
) -> Result<S, signature::Error>
where
    E: core::error::Error + Send + Sync + 'static,
{
    with_additional_data(rng, sign)
        .map_err(|_| signature::Error::from_source(Error::Rng))?
        .map_err(signature::Error::from_source)
}
