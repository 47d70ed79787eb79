//! Two exponentiations at once on the floating-point multiplier: the
//! [`super::fma`] kernels on 128-bit registers (digit `j` of the two
//! numbers in one xmm register), for a pair, such as an RSA private key's
//! two halves.
//!
//! Where the vector units are 128 bits wide (Zen 1 and Zen+), a 256-bit
//! instruction runs as two halves, so the four-lane kernels do no more a
//! lane per cycle than these, and a pair would leave half of their lanes
//! empty. Here a pair fills every lane, and the FMA units, which multiply
//! more bits a cycle than `mulx` on those cores, run both halves of a
//! signature (benches/RESULTS.md, "Zen 1").
//!
//! The digit counts, the contract (modulo `m' = m·k0`), the rounding they
//! need and its self-test are [`super::fma`]'s
//! (`tools/gen_mb_fma_x86_64.py --xmm` writes `gen/fma128.rs`).

use core::arch::x86_64::*;

use super::fma::{DIGIT_BITS, Fma, digits};
use super::{AmmKernel, AmsKernel, put_selected, run_lanes};
use crate::backend::radix::LimbMontgomery;
use crate::ops::montmul::ExpJob;

#[path = "gen/fma128.rs"]
mod generated;

/// Lanes of a 128-bit register: the exponentiations a pass runs.
pub(crate) const LANES: usize = 2;

/// Whether these kernels take moduli of `n` limbs (whatever the CPU).
pub(crate) fn takes(n: usize) -> bool {
    digits(n).and_then(generated::kernels).is_some()
}

/// Runs `job`, `K` exponentiations modulo moduli of one limb count, on
/// these kernels. Returns `false`, having done nothing, when `K` is not
/// [`LANES`], the CPU cannot run them or no kernel takes the size.
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let (Some(proof), Some(digits)) = (Fma::detect(), job.nlimbs().and_then(digits)) else {
        return false;
    };
    // The window: 5 (the table, 32 entries of N two-lane vectors, is at
    // most 21 KiB, at 2048 bits).
    run_lanes!(
        K, limbs, job, proof, digits, generated::kernels(digits), lookup,
        lanes: LANES, bits: DIGIT_BITS, scratch: SCRATCH, m_prime: true,
        windows: [21 => 5, 31 => 5, 41 => 5],
    )
}

/// Scratch vectors the kernels use, at the largest size.
const SCRATCH: usize = generated::scratch_vectors(41);

/// At most this many vectors are selected per pass over the table, so that
/// the accumulators stay in registers (of 16).
const CHUNK: usize = 12;

/// Constant-time `out = table[index]`, lane by lane, as the four-lane
/// kernels' lookup (`super::avx2::lookup`) on 128-bit registers: every
/// entry is read whole, and a lane's mask is all ones in the entry whose
/// position equals its index (`vpcmpeqq`), so no branch or address depends
/// on an index. The tables hold one digit a word (`PACKED` is false for
/// 52-bit digits).
#[target_feature(enable = "avx2")]
fn lookup<const N: usize, const PACKED: bool>(out: &mut [u64], table: &[u64], index: &[u64]) {
    let vectors = super::entry_vectors(N, PACKED);
    let stride = LANES * vectors;
    let index: &[u64; LANES] = index.try_into().expect("one index a lane");
    // SAFETY: an unaligned 16-byte load from a reference to 16 bytes.
    let index = unsafe { _mm_loadu_si128(core::hint::black_box(index).as_ptr().cast()) };
    let low = _mm_set1_epi64x(0xffff_ffff);
    // Passes of even sizes, as in `super::avx2::lookup`.
    let chunk = vectors.div_ceil(vectors.div_ceil(CHUNK));
    for pass in 0..vectors.div_ceil(chunk) {
        let start = (pass * chunk).min(vectors - chunk);
        let mut acc = [_mm_setzero_si128(); CHUNK];
        for (i, entry) in table.chunks_exact(stride).enumerate() {
            let mask = _mm_cmpeq_epi64(index, _mm_set1_epi64x(i as i64));
            let words = &entry[LANES * start..][..LANES * chunk];
            for (a, d) in acc.iter_mut().zip(words.chunks_exact(LANES)) {
                // SAFETY: an unaligned 16-byte load from 16 bytes of `entry`.
                let d = unsafe { _mm_loadu_si128(d.as_ptr().cast()) };
                *a = _mm_or_si128(*a, _mm_and_si128(d, mask));
            }
        }
        let unpack = |a| [_mm_and_si128(a, low), _mm_srli_epi64::<32>(a)];
        // SAFETY: an unaligned 16-byte store to 16 bytes of `out`.
        let store = |o: &mut [u64], d| unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), d) };
        put_selected::<_, PACKED>(out, LANES, (start, &acc[..chunk]), unpack, store);
    }
}
