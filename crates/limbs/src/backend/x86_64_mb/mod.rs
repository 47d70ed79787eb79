//! Multi-buffer ("vertical") exponentiation: one digit of `L` independent
//! numbers in each vector register, `L` exponentiations at once, each lane
//! with its own modulus, base, exponent and Montgomery constant (all of
//! one digit count).
//!
//! The horizontal backends (`x86_64_ifma`, `x86_64_avx2`) spread one
//! number's digits over a vector's lanes: every multiplication then
//! shifts the accumulator across lanes, and the quotient digit of each
//! step is a serial chain through one lane. Here lane `k` of vector `j`
//! is digit `j` of number `k` ([`DigitLayout::Lanes`]): each vector
//! operation does the same work for all `L` numbers, nothing moves between
//! lanes, and the accumulator's shift by one digit is a renaming of
//! registers. The multiplier is then busy with useful products all the
//! time, which is how Intel's multi-buffer library (ipp-crypto's
//! `crypto_mb`) signs eight RSA messages a pass. The price is that `L`
//! exponentiations must be ready at once: the batch APIs above
//! (`MontyParams::pow_bounded_batch`) collect them.
//!
//! - [`ifma`]: AVX-512 IFMA, eight lanes of 52-bit digits
//!   ([`Exponentiation::IfmaBatch`](crate::backend::Exponentiation::IfmaBatch)).
//! - [`avx2`]: AVX2, four lanes of 28-bit digits
//!   ([`Exponentiation::Avx2Batch`](crate::backend::Exponentiation::Avx2Batch)).
//! - [`avx512`]: the same kernels on 512-bit registers, eight lanes,
//!   AVX-512F without IFMA
//!   ([`Exponentiation::Avx512Batch`](crate::backend::Exponentiation::Avx512Batch)).
//! - [`fma`]: four lanes of 52-bit digits multiplied as doubles, each
//!   product split exactly by two FMAs
//!   ([`Exponentiation::FmaBatch`](crate::backend::Exponentiation::FmaBatch)).
//! - [`fma512`]: the same on 512-bit registers, eight lanes, AVX-512F
//!   ([`Exponentiation::Fma512Batch`](crate::backend::Exponentiation::Fma512Batch)).
//! - [`fma128`]: the same on 128-bit registers, two lanes: a pair
//!   ([`Exponentiation::FmaPair`](crate::backend::Exponentiation::FmaPair)).
//!
//! All of them multiply with the almost-Montgomery multiplication of
//! [`super::radix`] (inputs and outputs below twice the modulus) and have a
//! dedicated square; the conversions in and out and the exponentiation
//! itself are the shared ones (`radix::run_on_stack_with`, `ops::pow`).
//! All but the IFMA kernels work modulo a multiple of each modulus whose
//! lowest digit makes the quotient digits; the two of 28-bit digits keep
//! their window tables two digits a word (benches/RESULTS.md, "Batches
//! without IFMA").
//!
//! # Constant time
//! Loop counts and addresses depend on the digit count only; no branch or
//! address depends on a digit or an exponent. The table lookup reads every
//! entry and selects each lane's digits with a mask computed from that
//! lane's window, in vector arithmetic. The instructions used (IFMA,
//! `vpmuludq`, FMAs and subtractions of doubles that are zero or normal,
//! vector additions, shifts, logic and moves) have data-independent
//! timing on the CPUs that have them.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod fma;
pub(crate) mod fma128;
pub(crate) mod fma512;
pub(crate) mod ifma;

use zeroize::Zeroize;

use crate::backend::radix::{Aligned, DigitLayout, Digits, ModulusToLoad, VectorMontMul};

/// A generated multiplication: `(r, a, b, m, k0, scratch)`.
type AmmKernel = unsafe fn(*mut u64, *const u64, *const u64, *const u64, *const u64, *mut u64);
/// A generated square: `(r, a, m, k0, scratch)`.
type AmsKernel = unsafe fn(*mut u64, *const u64, *const u64, *const u64, *mut u64);
/// A backend's table lookup for `N` digits (see its `lookup`), compiled for
/// the CPU feature its proof stands for; it reads tables packed two digits
/// a word ([`LaneAmm::store_entry`]) where [`two_digits_a_word`] says so.
type LookupFn = unsafe fn(&mut [u64], &[u64], &[u64]);

/// The body of a batch backend's `run::<K>`: `$job`'s `K` exponentiations
/// (`K` must be the backend's `lanes`) on [`LaneAmm`] with the backend's
/// kernels for `$digits` digits (`$kernels`, `None` where it has none)
/// and its `$lookup`, which `$proof` says the CPU can run, in the window
/// given for that digit count; `$lookup::<N, true>` reads tables packed
/// two digits a word, which [`two_digits_a_word`] gives digits of `$bits`. With
/// `m_prime: true` the kernels reduce modulo `m' = m·k0` (see
/// [`LaneAmm`]). Evaluates to whether it ran.
macro_rules! run_lanes {
    (
        $K:ident, $limbs:expr, $job:expr, $proof:expr, $digits:expr, $kernels:expr, $lookup:ident,
        lanes: $lanes:expr, bits: $bits:expr, scratch: $scratch:expr, m_prime: $m_prime:literal,
        windows: [$($d:literal => $window:literal),*] $(,)?
    ) => {{
        const PACKED: bool = $crate::backend::x86_64_mb::two_digits_a_word($bits);
        match ($kernels, $digits) {
            $((Some((amm, ams)), $d) if $K == $lanes => {
                let mut arith = $crate::backend::x86_64_mb::LaneAmm::<
                    _, { $lanes }, { $bits }, $d, $window, { $scratch }, $m_prime,
                >::new($proof, amm, ams, $lookup::<$d, PACKED>);
                const S: usize = (1 << $window) + 2;
                $crate::backend::radix::run_on_stack_with::<1, $d, $K, S, _>(
                    $limbs, &mut arith, $d, $job,
                );
                true
            })*
            _ => false,
        }
    }};
}
pub(super) use run_lanes;

/// Almost-Montgomery multiplication modulo `L` moduli at once, `N` digits
/// of `B` bits each, window `W`, on a backend's generated kernels (`S`
/// scratch vectors). With `M_PRIME`, the kernels work modulo `m' = m·k0`
/// ([`ModulusToLoad::split_multiple`]), whose lowest digit `2^B − 1` makes
/// each quotient digit the column's own low digit, and take no `k0`.
struct LaneAmm<
    P,
    const L: usize,
    const B: u32,
    const N: usize,
    const W: u32,
    const S: usize,
    const M_PRIME: bool,
> {
    /// Proof that the CPU has what the kernels and the lookup need.
    _proof: P,
    amm: AmmKernel,
    ams: AmsKernel,
    lookup: LookupFn,
    /// The moduli's digits, lane by lane.
    m: Aligned<[[u64; L]; N]>,
    /// Each lane's `k0 = −m⁻¹ mod 2^B` (left zero with `M_PRIME`, whose
    /// kernels take none).
    k0: Aligned<[u64; L]>,
    scratch: Aligned<[[u64; L]; S]>,
}

impl<P, const L: usize, const B: u32, const N: usize, const W: u32, const S: usize, const M: bool>
    LaneAmm<P, L, B, N, W, S, M>
{
    /// `amm`, `ams` and `lookup` are the backend's for `N` digits, which
    /// `proof` says the CPU can run.
    fn new(proof: P, amm: AmmKernel, ams: AmsKernel, lookup: LookupFn) -> Self {
        Self {
            _proof: proof,
            amm,
            ams,
            lookup,
            m: Aligned([[0; L]; N]),
            k0: Aligned([0; L]),
            scratch: Aligned([[0; L]; S]),
        }
    }
}

impl<P, const L: usize, const B: u32, const N: usize, const W: u32, const S: usize, const M: bool>
    VectorMontMul for LaneAmm<P, L, B, N, W, S, M>
{
    const WORDS: usize = N;
    const VALUES: usize = L;
    const RADIX: Digits = lanes(B, L);
    const WINDOW: u32 = W;

    fn load_modulus(&mut self, k: usize, modulus: ModulusToLoad<'_>) {
        let m = self.m.0.as_flattened_mut();
        if M {
            modulus.split_multiple_value(Self::RADIX, m, k, N);
        } else {
            self.k0.0[k] = modulus.m.m_inv() & ((1 << B) - 1);
            Self::RADIX.split_value(modulus.m.limbs(), m, k, N);
        }
    }

    fn wipe(&mut self) {
        self.m.0.as_flattened_mut().zeroize();
        self.k0.0.zeroize();
        self.scratch.0.as_flattened_mut().zeroize();
    }

    fn amm(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        let len = L * N;
        let (out, a, b) = (&mut out[..len], &a[..len], &b[..len]);
        // SAFETY: `self._proof` proves the CPU has what the kernels need
        // (AVX2; AVX2, FMA and rounding as MXCSR says; AVX-512F; AVX-512F
        // and IFMA). `out`, `a`, `b` and `self.m` hold N
        // vectors of L digits (checked above; `m` by its type), `k0` L
        // words, `scratch` the kernel's scratch, 64-byte aligned;
        // `self.amm` is the kernel for N digits (`LaneAmm::new`'s
        // contract). The operands are below twice their moduli with digits
        // below 2^B (the conversions and the kernels keep them so), as the
        // kernel requires; `out` does not alias `a` or `b` (the `MontMul`
        // contract; `&mut` enforces it here).
        unsafe {
            (self.amm)(
                out.as_mut_ptr(),
                a.as_ptr(),
                b.as_ptr(),
                self.m.0.as_ptr().cast(),
                self.k0.0.as_ptr(),
                self.scratch.0.as_mut_ptr().cast(),
            )
        };
    }

    fn amm_sqr(&mut self, out: &mut [u64], a: &[u64]) {
        let len = L * N;
        let (out, a) = (&mut out[..len], &a[..len]);
        // SAFETY: as for `amm`, with `self.ams`, the square for N digits.
        unsafe {
            (self.ams)(
                out.as_mut_ptr(),
                a.as_ptr(),
                self.m.0.as_ptr().cast(),
                self.k0.0.as_ptr(),
                self.scratch.0.as_mut_ptr().cast(),
            )
        };
    }

    fn entry_len(&self) -> usize {
        L * entry_vectors(N, two_digits_a_word(B))
    }

    /// Digits of at most 32 bits go two a word, digit `2j` in the low half
    /// of vector `j`'s lanes and `2j + 1` in the high half: every window's
    /// lookup reads the whole table, and reads half as much.
    fn store_entry(&self, entry: &mut [u64], x: &[u64]) {
        if !two_digits_a_word(B) {
            entry.copy_from_slice(x);
            return;
        }
        let (even, odd) = (x.chunks(L).step_by(2), x.chunks(L).skip(1).step_by(2));
        let odd = odd.map(Some).chain(core::iter::repeat(None));
        for ((word, even), odd) in entry.chunks_exact_mut(L).zip(even).zip(odd) {
            for (k, w) in word.iter_mut().enumerate() {
                // The kernels keep every digit below 2^B.
                *w = even[k] | odd.map_or(0, |odd| odd[k] << 32);
            }
        }
    }

    fn lookup(&self, out: &mut [u64], table: &[u64], index: &[u64]) {
        // SAFETY: `self._proof` proves the CPU has the feature `lookup` is
        // compiled for; it reads `table` and `index` and writes `out` only
        // through the slices it is given.
        unsafe { (self.lookup)(out, table, index) }
    }
}

/// The end of a lookup's pass: its `selected` vectors (of `lanes` words)
/// written to `out` from the entry's vector `start` on, each as it is or,
/// with `PACKED`, as the two digit vectors `unpack` makes of it (the last
/// one's second dropped where `out` ends: an odd digit count).
#[inline(always)]
fn put_selected<V: Copy, const PACKED: bool>(
    out: &mut [u64],
    lanes: usize,
    (start, selected): (usize, &[V]),
    unpack: impl Fn(V) -> [V; 2],
    store: impl Fn(&mut [u64], V),
) {
    let (first, per) = match PACKED {
        true => (2 * start, 2),
        false => (start, 1),
    };
    let digits = out[lanes * first..].chunks_exact_mut(lanes);
    let parts = selected.iter().flat_map(|&a| match PACKED {
        true => unpack(a).into_iter().take(per),
        false => [a, a].into_iter().take(per),
    });
    for (o, d) in digits.zip(parts) {
        store(o, d);
    }
}

/// Whether window tables of `bits`-bit digits hold two digits a word
/// ([`LaneAmm::store_entry`]): where two fit.
const fn two_digits_a_word(bits: u32) -> bool {
    bits <= 32
}

/// Vectors of a table entry for `n` digit vectors, `packed` two digits a
/// word or not.
const fn entry_vectors(n: usize, packed: bool) -> usize {
    if packed { n.div_ceil(2) } else { n }
}

/// Digits of `bits` bits, lane `k` of vector `j` holding digit `j` of value
/// `k` (`lanes` values to an element).
const fn lanes(bits: u32, lanes: usize) -> Digits {
    Digits {
        bits,
        layout: DigitLayout::Lanes { lanes },
    }
}
