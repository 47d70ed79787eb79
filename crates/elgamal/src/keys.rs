//! Key pairs, and encryption: textbook ElGamal on group elements
//! (homomorphic), and the hybrid KEM (ElGamal key agreement, HKDF-SHA256,
//! ChaCha20-Poly1305).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, KeyInit, Nonce};
use hkdf::Hkdf;
use numcrypt_limbs::ct_audit::{declassify, declassify_choice};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, SecretUint, Unsigned};
use rand_core::CryptoRng;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use crate::{Element, Error, Group};

/// An ElGamal public key: the group and `y = g^x`.
///
/// Construction checks `2 ≤ y ≤ p − 2` and that `y` is a square (so that it
/// lies in the order-`q` subgroup).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    group: Group,
    y: BoxedUint,
    y_monty: MontyForm<BoxedUint>,
}

/// An ElGamal private key `x ∈ [1, q − 1]` with its public key. `x` is
/// zeroized on drop; `Debug` does not print it.
#[derive(Clone)]
pub struct SecretKey {
    public: PublicKey,
    x: SecretUint,
}

impl zeroize::ZeroizeOnDrop for SecretKey {}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl PartialEq for SecretKey {
    fn eq(&self, other: &Self) -> bool {
        self.public == other.public && bool::from(self.x.ct_eq_value(&other.x))
    }
}

impl Eq for SecretKey {}

/// A textbook ElGamal ciphertext `(c1, c2) = (g^r, M · y^r)`, both in the
/// subgroup.
#[derive(Clone, PartialEq, Eq)]
pub struct Ciphertext {
    c1: BoxedUint,
    c2: BoxedUint,
}

impl fmt::Debug for Ciphertext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ciphertext {{ c1: {:#x}, c2: {:#x} }}", self.c1, self.c2)
    }
}

/// A 32-byte key from the KEM, zeroized on drop.
#[derive(Clone)]
pub struct SharedSecret([u8; 32]);

impl PartialEq for SharedSecret {
    /// Constant time.
    fn eq(&self, other: &Self) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

impl Eq for SharedSecret {}

impl Drop for SharedSecret {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for SharedSecret {}

impl SharedSecret {
    /// The key bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for SharedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedSecret(..)")
    }
}

/// HKDF info prefix: binds the key to this construction.
const KEM_INFO: &[u8] = b"numcrypt-elgamal-kem-v1";

/// AEAD tag length.
const TAG_LEN: usize = 16;

impl PublicKey {
    /// The public key `y` in `group`, after the checks above
    /// ([`Error::InvalidPublicKey`] otherwise).
    pub fn new(group: Group, y: BoxedUint) -> Result<Self, Error> {
        let p = group.p();
        let two = p.like_u64(2);
        if y.bits_vartime() > group.bits() || y < two || y > p.wrapping_sub(&two) {
            return Err(Error::InvalidPublicKey);
        }
        let y = group
            .check_element(&y)
            .map_err(|_| Error::InvalidPublicKey)?;
        let y_monty = group.p_monty().to_monty(&y);
        Ok(Self { group, y, y_monty })
    }

    /// The group.
    pub fn group(&self) -> &Group {
        &self.group
    }

    /// `y`.
    pub fn y(&self) -> &BoxedUint {
        &self.y
    }

    pub(crate) fn y_monty(&self) -> &MontyForm<BoxedUint> {
        &self.y_monty
    }

    /// Encrypts the element `m`: `(g^r, m · y^r)` with `r` uniform in
    /// `[1, q − 1]` (constant time).
    pub fn encrypt<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        m: &Element,
    ) -> Result<Ciphertext, Error> {
        let group = &self.group;
        let mut r = group.random_exponent(rng)?;
        let pm = group.p_monty();
        let bits = group.exponent_bits();
        let c1 = pm.pow_bounded(group.g_monty(), &r, bits);
        let mut shared = pm.pow_bounded(&self.y_monty, &r, bits);
        let c2 = pm.mul(&pm.to_monty(m.value()), &shared);
        r.zeroize();
        shared.zeroize();
        Ok(Ciphertext {
            c1: pm.from_monty(&c1),
            c2: pm.from_monty(&c2),
        })
    }

    /// Encodes `message` ([`Group::encode_message`]) and encrypts it.
    pub fn encrypt_message<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        message: &[u8],
    ) -> Result<Ciphertext, Error> {
        self.encrypt(rng, &self.group.encode_message(message)?)
    }

    /// Multiplies the plaintext inside `c` by 1: a fresh-looking encryption
    /// of the same element, unlinkable to `c` (`(c1 g^r, c2 y^r)`).
    pub fn rerandomize<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        c: &Ciphertext,
    ) -> Result<Ciphertext, Error> {
        let one = Element(self.group.p().like_u64(1));
        Ok(c.mul(&self.encrypt(rng, &one)?, &self.group))
    }

    /// The KEM: `c = g^r` and `K = HKDF-SHA256(y^r, info = label ‖ c ‖ y)`
    /// for `r` uniform in `[1, q − 1]`. Returns the encapsulation
    /// ([`Group::element_len`] bytes) to send and the key to keep.
    pub fn encapsulate<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        let group = &self.group;
        let mut r = group.random_exponent(rng)?;
        let pm = group.p_monty();
        let bits = group.exponent_bits();
        let c = group.to_fixed_bytes(&pm.from_monty(&pm.pow_bounded(group.g_monty(), &r, bits)));
        let mut z = pm.from_monty(&pm.pow_bounded(&self.y_monty, &r, bits));
        r.zeroize();
        let key = self.derive(&z, &c);
        z.zeroize();
        Ok((c, key))
    }

    /// `HKDF-SHA256(ikm = Z, info = label ‖ c ‖ y)`.
    fn derive(&self, z: &BoxedUint, c: &[u8]) -> SharedSecret {
        let ikm = Zeroizing::new(self.group.to_fixed_bytes(z));
        let y = self.group.to_fixed_bytes(&self.y);
        let hk = Hkdf::<Sha256>::new(None, &ikm);
        let mut key = [0u8; 32];
        if hk.expand_multi_info(&[KEM_INFO, c, &y], &mut key).is_err() {
            unreachable!("32 bytes is a valid HKDF-SHA256 output length");
        }
        SharedSecret(key)
    }

    /// Hybrid encryption, the mode to use: a fresh KEM key encrypts
    /// `plaintext` (any length) with ChaCha20-Poly1305 (nonce zero: each
    /// key is used once), authenticating `associated_data` too. Output:
    /// the encapsulation, then the AEAD ciphertext and its 16-byte tag.
    pub fn seal<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        plaintext: &[u8],
        associated_data: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let (mut out, key) = self.encapsulate(rng)?;
        let cipher = ChaCha20Poly1305::new(key.as_bytes().into());
        let body = cipher
            .encrypt(
                &Nonce::default(),
                Payload {
                    msg: plaintext,
                    aad: associated_data,
                },
            )
            .map_err(|_| Error::MessageTooLong)?;
        out.extend_from_slice(&body);
        Ok(out)
    }
}

impl SecretKey {
    /// A new key pair in `group`: `x` uniform in `[1, q − 1]`, `y = g^x` in
    /// constant time.
    pub fn generate<R: CryptoRng + ?Sized>(group: &Group, rng: &mut R) -> Result<Self, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let x = group.random_exponent(rng)?;
        Ok(Self::from_secret(group.clone(), x))
    }

    /// The key with private exponent `x`: [`Error::InvalidPrivateKey`]
    /// unless `1 ≤ x ≤ q − 1`.
    pub fn from_components(group: Group, x: &BoxedUint) -> Result<Self, Error> {
        let q = group.q();
        // Constant time in x (whatever its width): the only thing revealed
        // is whether it is valid.
        let valid = !x.is_zero() & x.ct_lt_value(q);
        let mut x = x.at_width(q.nlimbs());
        if !declassify_choice(valid) {
            x.zeroize();
            return Err(Error::InvalidPrivateKey);
        }
        Ok(Self::from_secret(group, x))
    }

    fn from_secret(group: Group, x: BoxedUint) -> Self {
        let x = SecretUint::from(x);
        let pm = group.p_monty();
        let y_monty = pm.pow_bounded(group.g_monty(), &x, group.exponent_bits());
        // The public key: no secret from here on.
        let mut y = pm.from_monty(&y_monty);
        declassify(y.as_mut());
        let y_monty = pm.to_monty(&y);
        Self {
            public: PublicKey { group, y, y_monty },
            x,
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The group.
    pub fn group(&self) -> &Group {
        &self.public.group
    }

    /// The private exponent `x` (secret: handle with care).
    pub fn x(&self) -> &BoxedUint {
        self.x.expose()
    }

    /// `c^(q − x) = c^(−x)` for `c` in the subgroup: one constant-time
    /// exponentiation, no inversion.
    fn power_neg_x(&self, c: &BoxedUint) -> MontyForm<BoxedUint> {
        let group = self.group();
        let pm = group.p_monty();
        let mut neg_x = group.q().wrapping_sub(self.x.expose());
        let out = pm.pow_bounded(&pm.to_monty(c), &neg_x, group.exponent_bits());
        neg_x.zeroize();
        out
    }

    /// Decrypts to the element `c2 · c1^(−x)`. Both halves must be in the
    /// subgroup ([`Error::InvalidElement`] otherwise: an element of order 2
    /// would reveal the parity of `x`). Constant time in `x` and the
    /// result.
    pub fn decrypt(&self, c: &Ciphertext) -> Result<Element, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let group = self.group();
        let c1 = group.check_element(&c.c1)?;
        let c2 = group.check_element(&c.c2)?;
        let pm = group.p_monty();
        let mut mask = self.power_neg_x(&c1);
        let m = pm.mul(&pm.to_monty(&c2), &mask);
        mask.zeroize();
        Ok(Element(pm.from_monty(&m)))
    }

    /// Decrypts every ciphertext as [`decrypt`](Self::decrypt) does each,
    /// the `c1^(−x)` of all of them as one batch
    /// ([`MontyParams::pow_bounded_batch`](numcrypt_limbs::MontyParams::pow_bounded_batch):
    /// eight a pass with AVX-512 IFMA in 2048-bit groups). One result a
    /// ciphertext, in order: a half outside the subgroup
    /// ([`Error::InvalidElement`]) fails that one alone.
    pub fn decrypt_batch(&self, ciphertexts: &[Ciphertext]) -> Vec<Result<Element, Error>> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let group = self.group();
        let pm = group.p_monty();
        let halves: Vec<Result<[BoxedUint; 2], Error>> = ciphertexts
            .iter()
            .map(|c| Ok([group.check_element(&c.c1)?, group.check_element(&c.c2)?]))
            .collect();
        let bases: Vec<MontyForm<BoxedUint>> = halves
            .iter()
            .flatten()
            .map(|[c1, _]| pm.to_monty(c1))
            .collect();
        let mut neg_x = group.q().wrapping_sub(self.x.expose());
        let operands: Vec<_> = bases.iter().map(|b| (pm, b, neg_x.as_ref())).collect();
        let mut masks = vec![pm.zero(); operands.len()];
        // `masks` has one slot a base, so the batch runs (were it refused,
        // each would be computed alone).
        let batched =
            MontyParams::pow_bounded_batch(&operands, group.exponent_bits(), &mut masks).is_ok();
        neg_x.zeroize();
        let mut masks = masks.into_iter();
        halves
            .into_iter()
            .map(|halves| {
                let [c1, c2] = halves?;
                let mut mask = masks.next().unwrap_or_else(|| pm.zero());
                if !batched {
                    mask = self.power_neg_x(&c1);
                }
                let m = pm.mul(&pm.to_monty(&c2), &mask);
                mask.zeroize();
                Ok(Element(pm.from_monty(&m)))
            })
            .collect()
    }

    /// Decrypts and decodes every ciphertext as
    /// [`decrypt_message`](Self::decrypt_message) does each, the private
    /// exponentiations batched as in [`decrypt_batch`](Self::decrypt_batch):
    /// one result a ciphertext, in order.
    pub fn decrypt_message_batch(
        &self,
        ciphertexts: &[Ciphertext],
    ) -> Vec<Result<Zeroizing<Vec<u8>>, Error>> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.decrypt_batch(ciphertexts)
            .into_iter()
            .map(|element| self.group().decode_message(&element?))
            .collect()
    }

    /// Decrypts and decodes a message made by
    /// [`PublicKey::encrypt_message`].
    pub fn decrypt_message(&self, c: &Ciphertext) -> Result<Zeroizing<Vec<u8>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.group().decode_message(&self.decrypt(c)?)
    }

    /// The KEM's other half: the key for an encapsulation from
    /// [`PublicKey::encapsulate`]. The encapsulation must be
    /// [`Group::element_len`] bytes, in the subgroup and not 1.
    pub fn decapsulate(&self, encapsulation: &[u8]) -> Result<SharedSecret, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let group = self.group();
        if encapsulation.len() != group.element_len() {
            return Err(Error::MalformedCiphertext);
        }
        let c = group.element_from_bytes(encapsulation)?;
        if c.value() == &group.p().like_u64(1) {
            return Err(Error::InvalidElement);
        }
        let pm = group.p_monty();
        let x_bits = group.exponent_bits();
        let mut z = pm.from_monty(&pm.pow_bounded(&pm.to_monty(c.value()), &self.x, x_bits));
        let key = self.public.derive(&z, encapsulation);
        z.zeroize();
        Ok(key)
    }

    /// Opens a message made by [`PublicKey::seal`] with the same
    /// associated data: [`Error::DecryptionFailed`] if anything was
    /// changed.
    pub fn open(&self, sealed: &[u8], associated_data: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let len = self.group().element_len();
        if sealed.len() < len + TAG_LEN {
            return Err(Error::MalformedCiphertext);
        }
        let (encapsulation, body) = sealed.split_at(len);
        let key = self.decapsulate(encapsulation)?;
        let cipher = ChaCha20Poly1305::new(key.as_bytes().into());
        cipher
            .decrypt(
                &Nonce::default(),
                Payload {
                    msg: body,
                    aad: associated_data,
                },
            )
            .map(Zeroizing::new)
            .map_err(|_| Error::DecryptionFailed)
    }
}

impl Ciphertext {
    /// The homomorphism: `(c1 c1', c2 c2')` encrypts the product of the two
    /// plaintext elements. (`self` and `other` under the same key.)
    pub fn mul(&self, other: &Ciphertext, group: &Group) -> Ciphertext {
        let pm = group.p_monty();
        let product =
            |a: &BoxedUint, b: &BoxedUint| pm.from_monty(&pm.mul(&pm.to_monty(a), &pm.to_monty(b)));
        Ciphertext {
            c1: product(&self.c1, &other.c1),
            c2: product(&self.c2, &other.c2),
        }
    }

    /// `c1`.
    pub fn c1(&self) -> &BoxedUint {
        &self.c1
    }

    /// `c2`.
    pub fn c2(&self) -> &BoxedUint {
        &self.c2
    }

    /// `c1 ‖ c2`, each [`Group::element_len`] bytes.
    pub fn to_bytes(&self, group: &Group) -> Vec<u8> {
        let mut out = group.to_fixed_bytes(&self.c1);
        out.extend_from_slice(&group.to_fixed_bytes(&self.c2));
        out
    }

    /// From `c1 ‖ c2`: [`Error::MalformedCiphertext`] for a wrong length,
    /// [`Error::InvalidElement`] unless both are in the subgroup.
    pub fn from_bytes(bytes: &[u8], group: &Group) -> Result<Self, Error> {
        let len = group.element_len();
        if bytes.len() != 2 * len {
            return Err(Error::MalformedCiphertext);
        }
        let (c1, c2) = bytes.split_at(len);
        Ok(Self {
            c1: group.element_from_bytes(c1)?.value().clone(),
            c2: group.element_from_bytes(c2)?.value().clone(),
        })
    }
}
