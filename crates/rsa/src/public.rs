//! [`RsaPublicKey`]: the modulus and public exponent, and the public
//! operation `x^e mod n`.

use alloc::vec::Vec;
use core::fmt;

use numcrypt_limbs::{BoxedUint, MontyParams, SecretUint, Unsigned, limbs_for_bits};
use subtle::ConstantTimeLess;
use zeroize::Zeroizing;

use crate::{Error, HashAlg, MAX_MODULUS_BITS, MAX_PUBLIC_EXPONENT_BITS, MIN_MODULUS_BITS};

/// What a key may be used for, as its encoding's algorithm identifier says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyAlgorithm {
    /// `rsaEncryption`: any scheme (what `openssl genpkey -algorithm RSA`
    /// makes).
    #[default]
    Rsa,
    /// `id-RSASSA-PSS` (`openssl genpkey -algorithm RSA-PSS`): PSS
    /// signatures only, restricted to the parameters' hash, MGF1 hash and
    /// minimum salt length when the key carries parameters.
    RsaPss(Option<PssRestriction>),
}

/// The parameters an RSA-PSS key (`id-RSASSA-PSS` with
/// `RSASSA-PSS-params`, RFC 4055 §3.1) binds it to: signatures must use its
/// hash and MGF1 hash, and a salt at least `min_salt_len` bytes long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PssRestriction {
    /// The message hash.
    pub hash: HashAlg,
    /// The MGF1 hash.
    pub mgf1_hash: HashAlg,
    /// The shortest salt allowed, in bytes.
    pub min_salt_len: usize,
}

/// An RSA public key: the modulus `n` and the public exponent `e`.
///
/// Any odd `n` of [`MIN_MODULUS_BITS`] to [`MAX_MODULUS_BITS`] bits and any
/// odd `e` with `3 <= e < n` and at most [`MAX_PUBLIC_EXPONENT_BITS`] bits
/// is accepted. Keys below 2048 bits only verify
/// signatures: encryption to them is refused.
#[derive(Clone)]
pub struct RsaPublicKey {
    n: BoxedUint,
    e: BoxedUint,
    bits: u32,
    algorithm: KeyAlgorithm,
    /// Montgomery arithmetic modulo `n`. Its forms hold plaintexts and
    /// blinded values during private operations, hence `SecretUint`.
    params: MontyParams<SecretUint>,
}

impl RsaPublicKey {
    /// The key `(n, e)`, checked: [`Error::PublicExponentTooLarge`] (above
    /// [`MAX_PUBLIC_EXPONENT_BITS`], checked first),
    /// [`Error::EvenModulus`], [`Error::KeyTooSmall`],
    /// [`Error::KeyTooLarge`] or [`Error::InvalidExponent`] (`e` even,
    /// below 3, or not below `n`).
    pub fn new(n: &BoxedUint, e: &BoxedUint) -> Result<Self, Error> {
        // First, before any arithmetic: what using the key would cost.
        let e_bits = e.bits_vartime();
        if e_bits > MAX_PUBLIC_EXPONENT_BITS {
            return Err(Error::PublicExponentTooLarge {
                bits: e_bits,
                max: MAX_PUBLIC_EXPONENT_BITS,
            });
        }
        let bits = n.bits_vartime();
        if bits < MIN_MODULUS_BITS {
            return Err(Error::KeyTooSmall {
                bits,
                min: MIN_MODULUS_BITS,
            });
        }
        if bits > MAX_MODULUS_BITS {
            return Err(Error::KeyTooLarge {
                bits,
                max: MAX_MODULUS_BITS,
            });
        }
        if !bool::from(n.is_odd()) {
            return Err(Error::EvenModulus);
        }
        let n = n
            .resize(limbs_for_bits(bits))
            .map_err(|_| Error::EvenModulus)?;
        let e = e
            .resize(limbs_for_bits(e_bits))
            .map_err(|_| Error::InvalidExponent)?;
        let e_ok = bool::from(e.is_odd()) && e_bits >= 2 && bool::from(e.ct_lt(&n));
        if !e_ok {
            return Err(Error::InvalidExponent);
        }
        let params =
            MontyParams::new(SecretUint::from(n.clone())).map_err(|_| Error::EvenModulus)?;
        Ok(Self {
            n,
            e,
            bits,
            algorithm: KeyAlgorithm::Rsa,
            params,
        })
    }

    /// What the key may be used for: [`KeyAlgorithm::Rsa`] unless it was
    /// read from an `id-RSASSA-PSS` encoding or restricted with
    /// [`with_algorithm`](Self::with_algorithm).
    pub fn algorithm(&self) -> KeyAlgorithm {
        self.algorithm
    }

    /// The same key, with `algorithm` (written out by the encoders, and
    /// enforced by every operation).
    pub fn with_algorithm(mut self, algorithm: KeyAlgorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Refuses RSA-PSS keys, for PKCS#1 v1.5 signatures and for encryption.
    pub(crate) fn check_not_pss_only(&self) -> Result<(), Error> {
        match self.algorithm {
            KeyAlgorithm::Rsa => Ok(()),
            KeyAlgorithm::RsaPss(_) => Err(Error::KeyRestricted),
        }
    }

    /// The key from big-endian `n` and `e` (leading zero bytes allowed).
    pub fn from_be_bytes(n: &[u8], e: &[u8]) -> Result<Self, Error> {
        Self::new(
            &BoxedUint::from_be_slice_auto(n),
            &BoxedUint::from_be_slice_auto(e),
        )
    }

    /// The modulus `n`.
    pub fn n(&self) -> &BoxedUint {
        &self.n
    }

    /// The public exponent `e`.
    pub fn e(&self) -> &BoxedUint {
        &self.e
    }

    /// The modulus' bit length.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The modulus' length in bytes: the length of every signature and
    /// ciphertext under this key.
    pub fn size(&self) -> usize {
        self.bits.div_ceil(8) as usize
    }

    /// `n` as minimal big-endian bytes.
    pub fn n_bytes(&self) -> alloc::vec::Vec<u8> {
        self.n.to_be_bytes_minimal_vartime()
    }

    /// `e` as minimal big-endian bytes.
    pub fn e_bytes(&self) -> alloc::vec::Vec<u8> {
        self.e.to_be_bytes_minimal_vartime()
    }

    pub(crate) fn params(&self) -> &MontyParams<SecretUint> {
        &self.params
    }

    /// Reads a signature or ciphertext (I2OSP's inverse, RFC 8017 §4.2):
    /// exactly [`size`](Self::size) bytes, below `n`. The value is public,
    /// so the checks may take variable time.
    pub(crate) fn read_input(&self, bytes: &[u8]) -> Result<SecretUint, Error> {
        if bytes.len() != self.size() {
            return Err(Error::InvalidLength {
                expected: self.size(),
                actual: bytes.len(),
            });
        }
        let x = SecretUint::from_be_slice(bytes, self.n.bits_precision())
            .map_err(|_| Error::OutOfRange)?;
        if !bool::from(x.ct_lt_value(&SecretUint::from(self.n.clone()))) {
            return Err(Error::OutOfRange);
        }
        Ok(x)
    }

    /// I2OSP (RFC 8017 §4.1): `x` as exactly [`size`](Self::size) bytes,
    /// wiped when dropped. [`Error::OutOfRange`] when `x` needs more (never
    /// for a value below `n`).
    pub(crate) fn i2osp(&self, x: &SecretUint) -> Result<Zeroizing<Vec<u8>>, Error> {
        x.to_be_bytes_len(self.size())
            .map_err(|_| Error::OutOfRange)
    }

    /// `x^e mod n` for `x < n` (RSAEP/RSAVP1), by sliding windows: the time
    /// depends on `e` only, which is public.
    pub(crate) fn public_op(&self, x: &SecretUint) -> SecretUint {
        let base = self.params.to_monty(x);
        self.params
            .from_monty(&self.params.pow_vartime(&base, &self.e))
    }

    /// Refuses keys below 2048 bits for encryption.
    pub(crate) fn check_encryption_size(&self) -> Result<(), Error> {
        if self.bits < crate::MIN_PRIVATE_MODULUS_BITS {
            return Err(Error::KeyTooSmall {
                bits: self.bits,
                min: crate::MIN_PRIVATE_MODULUS_BITS,
            });
        }
        Ok(())
    }
}

impl PartialEq for RsaPublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.e == other.e && self.algorithm == other.algorithm
    }
}

impl Eq for RsaPublicKey {}

impl fmt::Debug for RsaPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPublicKey")
            .field("bits", &self.bits)
            .field("e", &format_args!("{:#x}", self.e))
            .field("n", &format_args!("{:#x}", self.n))
            .field("algorithm", &self.algorithm)
            .finish()
    }
}
