//! The fields this crate provides, each with the representation that was
//! fastest on a chain of dependent operations: measured on x86_64, modelled
//! on aarch64 (see the crate docs and `benches/RESULTS.md` for the numbers).
//!
//! The random primes were generated once with `openssl prime -generate
//! -bits N -hex` (OpenSSL 3.0) and are written here as constants; the tests
//! check each with `numcrypt_prime::is_prime` and `openssl prime`.

use numcrypt_limbs::{Limb, fixed};

use crate::{ByArch, Fp, Goldilocks, Monty, MontyModulus, Pick, PseudoMersenne, Unsaturated};

/// Builds little-endian limbs from big-endian 64-bit words (the order the
/// primes are written in).
const fn le<const N: usize>(be: [Limb; N]) -> [Limb; N] {
    let mut r = [0; N];
    let mut i = 0;
    while i < N {
        r[i] = be[N - 1 - i];
        i += 1;
    }
    r
}

macro_rules! monty_modulus {
    ($(#[$doc:meta])* $name:ident, $n:literal, $label:literal, [$($w:expr),* $(,)?]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl MontyModulus<$n> for $name {
            const NAME: &'static str = $label;
            const MODULUS: [Limb; $n] = le([$($w),*]);
        }
    };
}

monty_modulus!(
    /// NIST P-224's field prime `2^224 − 2^96 + 1` (≡ 1 mod 8, 2-adicity 96:
    /// square roots take Tonelli–Shanks).
    NistP224, 4, "P-224",
    [0x0000_0000_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000, 0x0000_0000_0000_0001]
);
monty_modulus!(
    /// NIST P-256's field prime `2^256 − 2^224 + 2^192 + 2^96 − 1`.
    NistP256, 4, "P-256",
    [0xffff_ffff_0000_0001, 0x0000_0000_0000_0000, 0x0000_0000_ffff_ffff, 0xffff_ffff_ffff_ffff]
);
monty_modulus!(
    /// NIST P-384's field prime `2^384 − 2^128 − 2^96 + 2^32 − 1`.
    NistP384, 6, "P-384",
    [
        0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff,
        0xffff_ffff_ffff_fffe, 0xffff_ffff_0000_0000, 0x0000_0000_ffff_ffff,
    ]
);
monty_modulus!(
    /// Goldilocks, `2^448 − 2^224 − 1` (Ed448).
    GoldilocksPrime, 7, "Goldilocks",
    [
        0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff,
        0xffff_fffe_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff,
        0xffff_ffff_ffff_ffff,
    ]
);
monty_modulus!(
    /// A random 256-bit prime: `openssl prime -generate -bits 256 -hex`.
    Random256, 4, "random-256",
    [0xFCBB6B55B0A147D6, 0x143AFBFD69E49749, 0x7347C9C1BEE4A689, 0x861A974B829DFBE3]
);
monty_modulus!(
    /// A random 384-bit prime: `openssl prime -generate -bits 384 -hex`.
    Random384, 6, "random-384",
    [
        0xEFAD511F3886A069, 0xC491BDCE246BC5AC, 0x7D7B0BA4EE3D58F3,
        0x72B56E0FD0612BE7, 0x496C1B6ECDD82170, 0xBEF45D2D823C2CAD,
    ]
);
monty_modulus!(
    /// A random 448-bit prime: `openssl prime -generate -bits 448 -hex`.
    Random448, 7, "random-448",
    [
        0xFE06626AA56EA149, 0x4DF373674E0D1C68, 0xA3684F879CBD7DF8, 0xB36FCF3DB9C7A39C,
        0x49DCC738AEC10E08, 0xDED498AFB245D6CC, 0xD0313793E96DBCD5,
    ]
);
monty_modulus!(
    /// A random 512-bit prime: `openssl prime -generate -bits 512 -hex`.
    Random512, 8, "random-512",
    [
        0xEAF700D81D00DBF3, 0xCD1D4655D41B974D, 0x087DAC55C1B9C0A0, 0x02BC839DAABE8A5E,
        0x2CA4FBF1217707A8, 0x9F5F3345CF7EDAEB, 0x997D17F14D8EB369, 0x40603CF7F37E710D,
    ]
);
monty_modulus!(
    /// A random 521-bit prime: `openssl prime -generate -bits 521 -hex`.
    Random521, 9, "random-521",
    [
        0x01C3, 0xCF1D4790AEDFF1B7, 0x6D0F00173A153218, 0xE0D5AD822250C786, 0x8B8DD95CB567B95E,
        0x4A6444BE51D821C2, 0xD56D6835EE43DA71, 0xE6A38A5E92AC22AC, 0xF7A40ECF1B54B717,
    ]
);

/// `2^127 − 1` on two saturated limbs.
pub type Fp127 = Fp<PseudoMersenne<2, 127, 1>>;
/// `2^255 − 19` (Curve25519) on five 51-bit limbs, fiat-crypto's
/// representation: on a chain of dependent operations (a scalar
/// multiplication's) it multiplies in about half and squares in about two
/// fifths of [`Fp25519Saturated`]'s time, whose product, fold and carry
/// are one serial chain (benches/RESULTS.md, "Fields on dependent chains").
pub type Fp25519 = Fp<Unsaturated<5, 51, 4, 255, 19>>;
/// `2^255 − 19` on four saturated limbs: more independent operations a
/// second than [`Fp25519`], each with a longer latency.
pub type Fp25519Saturated = Fp<PseudoMersenne<4, 255, 19>>;
/// `2^336 − 3` on six 56-bit limbs, which beat six saturated limbs
/// ([`Fp336Saturated`]) at both operations on a chain (Zen 5; aarch64,
/// modelled).
pub type Fp336 = Fp<Unsaturated<6, 56, 6, 336, 3>>;
/// `2^336 − 3` on six saturated limbs.
pub type Fp336Saturated = Fp<PseudoMersenne<6, 336, 3>>;
/// `2^384 − 317`, the largest prime below `2^384`, on six saturated limbs.
pub type Fp384 = Fp<PseudoMersenne<6, 384, 317>>;
/// `2^414 − 17` (Curve41417) in the representation that is faster on this
/// architecture ([`fixed::P414_UNSATURATED`]): eight 52-bit limbs on
/// aarch64, seven saturated limbs elsewhere.
pub type Fp414 = Fp<
    <ByArch<{ fixed::P414_UNSATURATED }> as Pick<
        Unsaturated<8, 52, 7, 414, 17>,
        PseudoMersenne<7, 414, 17>,
    >>::Backend,
>;
/// `2^414 − 17` on seven saturated limbs.
pub type Fp414Saturated = Fp<PseudoMersenne<7, 414, 17>>;
/// `2^448 − 203`, the largest prime below `2^448`, on seven saturated limbs.
pub type Fp448 = Fp<PseudoMersenne<7, 448, 203>>;
/// `2^512 − 569`, the largest prime below `2^512`, on eight saturated limbs.
pub type Fp512 = Fp<PseudoMersenne<8, 512, 569>>;
/// `2^521 − 1` (P-521's prime) on nine 58-bit limbs (fiat-crypto's
/// representation), which beat nine saturated limbs ([`Fp521Saturated`])
/// on every CPU measured or modelled (the crate's README).
pub type Fp521 = Fp<Unsaturated<9, 58, 9, 521, 1>>;
/// `2^521 − 1` on nine saturated limbs.
pub type Fp521Saturated = Fp<PseudoMersenne<9, 521, 1>>;
/// `2^2048 − 1557`, the largest prime below `2^2048` (found with
/// `numcrypt_prime::is_prime`, confirmed by `openssl prime`; the tests
/// check both that it is prime and that no odd `c < 1557` gives one).
pub type Fp2048 = Fp<PseudoMersenne<32, 2048, 1557>>;

/// `2^414 − 17` on eight 52-bit limbs.
pub type Fp414Unsat = Fp<Unsaturated<8, 52, 7, 414, 17>>;

/// NIST P-224's field.
pub type FpP224 = Fp<Monty<NistP224, 4>>;
/// NIST P-256's field.
pub type FpP256 = Fp<Monty<NistP256, 4>>;
/// NIST P-384's field.
pub type FpP384 = Fp<Monty<NistP384, 6>>;
/// Goldilocks `2^448 − 2^224 − 1` on eight 56-bit limbs, multiplied by
/// one level of Karatsuba with the golden-ratio reduction ([`Goldilocks`]).
pub type FpGoldilocks = Fp<Goldilocks>;
/// Goldilocks in Montgomery form, on the limbs' Montgomery kernels.
pub type FpGoldilocksMonty = Fp<Monty<GoldilocksPrime, 7>>;
/// The random 256-bit prime [`Random256`].
pub type FpRandom256 = Fp<Monty<Random256, 4>>;
/// The random 384-bit prime [`Random384`].
pub type FpRandom384 = Fp<Monty<Random384, 6>>;
/// The random 448-bit prime [`Random448`].
pub type FpRandom448 = Fp<Monty<Random448, 7>>;
/// The random 512-bit prime [`Random512`].
pub type FpRandom512 = Fp<Monty<Random512, 8>>;
/// The random 521-bit prime [`Random521`].
pub type FpRandom521 = Fp<Monty<Random521, 9>>;
