//! Eight exponentiations at once with AVX-512 IFMA: 52-bit digits, digit
//! `j` of the eight numbers in one 512-bit register.
//!
//! A residue modulo an `n`-limb modulus is `N = ⌈(64n + 2)/52⌉` digits
//! (room for `4m`, which the almost-Montgomery multiplication needs): 20
//! at 1024 bits, 30 at 1536, 40 at 2048, 60 at 3072. The multiplication and the
//! dedicated square are generated assembly (`gen/ifma.rs`, from
//! `tools/gen_mb_ifma_x86_64.py`, whose docstring has the algorithm and
//! the contract), modulo `m` itself with each lane's `k0 = −m⁻¹ mod 2^52`.

use core::arch::x86_64::*;

use super::{AmmKernel, AmsKernel, entry_vectors, put_selected, run_lanes};
use crate::backend::radix::LimbMontgomery;
use crate::backend::x86_64_ifma::Ifma;
use crate::ops::montmul::ExpJob;

#[path = "gen/ifma.rs"]
mod generated;

/// Lanes of a 512-bit register: the exponentiations a pass runs.
pub(crate) const LANES: usize = 8;
const DIGIT_BITS: u32 = 52;

/// The digit count for an `n`-limb modulus, if a kernel takes it: the
/// smallest that holds `4m`.
fn digits(n: usize) -> Option<usize> {
    let digits = (64 * n + 2).div_ceil(DIGIT_BITS as usize);
    generated::kernels(digits).map(|_| digits)
}

/// Whether these kernels take moduli of `n` limbs (whatever the CPU).
pub(crate) fn takes(n: usize) -> bool {
    digits(n).is_some()
}

/// Runs `job`, `K` exponentiations modulo moduli of one limb count, on
/// these kernels. Returns `false`, having done nothing, when `K` is not
/// [`LANES`], the CPU lacks IFMA or no kernel takes the size.
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let (Some(proof), Some(digits)) = (Ifma::detect(), job.nlimbs().and_then(digits)) else {
        return false;
    };
    // The window: 5 at 1024 bits, where the table is 43 KiB; 4 above, which
    // keeps it below 60 KiB up to 2048 bits (and costs about 3 % more
    // multiplications). At 3072 bits the table is 69 KiB; window 3 (30 KiB)
    // measured the same.
    run_lanes!(
        K, limbs, job, proof, digits, generated::kernels(digits), lookup,
        lanes: LANES, bits: DIGIT_BITS, scratch: SCRATCH, m_prime: false,
        windows: [20 => 5, 30 => 4, 40 => 4, 60 => 4],
    )
}

/// Scratch vectors the kernels use for the positions of a product that do
/// not fit in registers (see the generator), at the largest size.
const SCRATCH: usize = generated::scratch_vectors(60);

/// At most this many digit vectors are selected per pass over the table,
/// so that the accumulators stay in registers (of 32).
const MAX_CHUNK: usize = 24;

/// Constant-time `out = table[index]`, lane by lane: each lane `k` takes
/// its digits from entry `index[k]`. Every entry is read whole; a lane's
/// mask is all ones in the entry whose position equals its index, made by
/// vector arithmetic (`((i ^ index) − 1) >> 63`, arithmetic shift), so no
/// branch or address depends on an index. With `PACKED`, entries hold two
/// digits a word (`LaneAmm::store_entry`), unpacked into `out`.
#[target_feature(enable = "avx512f")]
pub(super) fn lookup<const N: usize, const PACKED: bool>(
    out: &mut [u64],
    table: &[u64],
    index: &[u64],
) {
    let vectors = entry_vectors(N, PACKED);
    let stride = LANES * vectors;
    let index: &[u64; LANES] = index.try_into().expect("one index a lane");
    // SAFETY: an unaligned 64-byte load from a reference to 64 bytes.
    let index = unsafe { _mm512_loadu_si512(core::hint::black_box(index).as_ptr().cast()) };
    let one = _mm512_set1_epi64(1);
    let low = _mm512_set1_epi64(0xffff_ffff);
    // As few passes as the registers allow, of even sizes (the last one
    // overlapping the one before where they do not divide): `chunk` is then
    // a number the compiler knows, and the accumulators stay in registers.
    // Each pass computes every entry's mask again.
    let chunk = vectors.div_ceil(vectors.div_ceil(MAX_CHUNK));
    for pass in 0..vectors.div_ceil(chunk) {
        let start = (pass * chunk).min(vectors - chunk);
        let mut acc = [_mm512_setzero_si512(); MAX_CHUNK];
        for (i, entry) in table.chunks_exact(stride).enumerate() {
            let same = _mm512_xor_si512(index, _mm512_set1_epi64(i as i64));
            let mask = _mm512_srai_epi64::<63>(_mm512_sub_epi64(same, one));
            let words = &entry[LANES * start..][..LANES * chunk];
            for (a, d) in acc.iter_mut().zip(words.chunks_exact(LANES)) {
                // SAFETY: an unaligned 64-byte load from 64 bytes of `entry`.
                let d = unsafe { _mm512_loadu_si512(d.as_ptr().cast()) };
                *a = _mm512_or_si512(*a, _mm512_and_si512(d, mask));
            }
        }
        let unpack = |a| [_mm512_and_si512(a, low), _mm512_srli_epi64::<32>(a)];
        // SAFETY: an unaligned 64-byte store to 64 bytes of `out`.
        let store = |o: &mut [u64], d| unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), d) };
        put_selected::<_, PACKED>(out, LANES, (start, &acc[..chunk]), unpack, store);
    }
}
