//! Four exponentiations at once with AVX2: 28-bit digits, digit `j` of the
//! four numbers in one 256-bit register.
//!
//! The kernels reduce modulo each lane's `m' = m·k0` (`k0 = −m⁻¹ mod
//! 2^28`), whose lowest digit is `2^28 − 1`: a column's quotient digit is
//! then its own low digit, with no multiplication on the columns' serial
//! chain, for one digit more. A residue is `N = ⌈(64n + 30)/28⌉` digits
//! (room for `4m'`): 38 at 1024 bits, 56 at 1536, 75 at 2048. `vpmuludq`
//! multiplies the low 32 bits of each 64-bit lane, so a digit product is
//! exact and a lane sums a whole column of them. The multiplication and
//! the dedicated square are generated assembly (`gen/avx2.rs`, from
//! `tools/gen_mb_avx2_x86_64.py`, whose docstring has the algorithm and the
//! contract). The window table holds two digits a word.

use core::arch::x86_64::*;

use super::{AmmKernel, AmsKernel, entry_vectors, put_selected, run_lanes};
use crate::backend::radix::LimbMontgomery;
use crate::backend::x86_64_avx2::Avx2;
use crate::ops::montmul::ExpJob;

#[path = "gen/avx2.rs"]
mod generated;

/// Lanes of a 256-bit register: the exponentiations a pass runs.
pub(crate) const LANES: usize = 4;
pub(super) const DIGIT_BITS: u32 = 28;

/// The digit count for an `n`-limb modulus, if a kernel takes it: the
/// smallest that holds `4m'`, `m' = m·k0` having up to `64n + 28` bits.
pub(super) fn digits(n: usize) -> Option<usize> {
    let digits = (64 * n + 30).div_ceil(DIGIT_BITS as usize);
    generated::kernels(digits).map(|_| digits)
}

/// Whether these kernels take moduli of `n` limbs (whatever the CPU).
pub(crate) fn takes(n: usize) -> bool {
    digits(n).is_some()
}

/// Runs `job`, `K` exponentiations modulo moduli of one limb count, on
/// these kernels. Returns `false`, having done nothing, when `K` is not
/// [`LANES`], the CPU lacks AVX2 or no kernel takes the size.
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let (Some(proof), Some(digits)) = (Avx2::detect(), job.nlimbs().and_then(digits)) else {
        return false;
    };
    // The window: 5, the table (32 entries of N/2 vectors, two digits a
    // word) being at most 38 KiB (2048 bits).
    run_lanes!(
        K, limbs, job, proof, digits, generated::kernels(digits), lookup,
        lanes: LANES, bits: DIGIT_BITS, scratch: SCRATCH, m_prime: true,
        windows: [38 => 5, 56 => 5, 75 => 5],
    )
}

/// Scratch vectors the kernels use, at the largest size.
const SCRATCH: usize = generated::scratch_vectors(75);

/// At most this many vectors are selected per pass over the table, so that
/// the accumulators stay in registers (of 16).
const CHUNK: usize = 12;

/// Constant-time `out = table[index]`, lane by lane: each lane `k` takes
/// its digits from entry `index[k]`. Every entry is read whole; a lane's
/// mask is all ones in the entry whose position equals its index
/// (`vpcmpeqq`), so no branch or address depends on an index. With
/// `PACKED`, entries hold two digits a word (`LaneAmm::store_entry`),
/// unpacked into `out`.
#[target_feature(enable = "avx2")]
pub(super) fn lookup<const N: usize, const PACKED: bool>(
    out: &mut [u64],
    table: &[u64],
    index: &[u64],
) {
    let vectors = entry_vectors(N, PACKED);
    let stride = LANES * vectors;
    let index: &[u64; LANES] = index.try_into().expect("one index a lane");
    // SAFETY: an unaligned 32-byte load from a reference to 32 bytes.
    let index = unsafe { _mm256_loadu_si256(core::hint::black_box(index).as_ptr().cast()) };
    let low = _mm256_set1_epi64x(0xffff_ffff);
    // As few passes as the registers allow, of even sizes (the last one
    // overlapping the one before where they do not divide): `chunk` is then
    // a number the compiler knows, and the accumulators stay in registers.
    // Each pass computes every entry's mask again.
    let chunk = vectors.div_ceil(vectors.div_ceil(CHUNK));
    for pass in 0..vectors.div_ceil(chunk) {
        let start = (pass * chunk).min(vectors - chunk);
        let mut acc = [_mm256_setzero_si256(); CHUNK];
        for (i, entry) in table.chunks_exact(stride).enumerate() {
            let mask = _mm256_cmpeq_epi64(index, _mm256_set1_epi64x(i as i64));
            let words = &entry[LANES * start..][..LANES * chunk];
            for (a, d) in acc.iter_mut().zip(words.chunks_exact(LANES)) {
                // SAFETY: an unaligned 32-byte load from 32 bytes of `entry`.
                let d = unsafe { _mm256_loadu_si256(d.as_ptr().cast()) };
                *a = _mm256_or_si256(*a, _mm256_and_si256(d, mask));
            }
        }
        let unpack = |a| [_mm256_and_si256(a, low), _mm256_srli_epi64::<32>(a)];
        // SAFETY: an unaligned 32-byte store to 32 bytes of `out`.
        let store = |o: &mut [u64], d| unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), d) };
        put_selected::<_, PACKED>(out, LANES, (start, &acc[..chunk]), unpack, store);
    }
}
