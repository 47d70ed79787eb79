//! What trial division on a vector backend takes
//! ([`crate::kernels::small_factor_52x8`]), below the backends that run it.

/// Eight products of small primes, each below `2^52`, as
/// [`small_factor_52x8`](crate::kernels::small_factor_52x8) takes them (all
/// in lane order).
#[derive(Clone, Copy)]
pub struct SmallFactorLanes<'a> {
    /// `powers[j][l] = 2^(52(j + 1)) mod modulus[l]` for each digit `j`.
    pub powers: &'a [[u64; 8]],
    /// The products: odd, below `2^52`.
    pub modulus: &'a [u64; 8],
    /// `−modulus[l]⁻¹ mod 2^52`.
    pub neg_inv: &'a [u64; 8],
    /// For each prime `p` of a lane's product, a row holds `p⁻¹ mod 2^64`
    /// here and its limit in `limits`.
    pub inverses: &'a [[u64; 8]],
    /// `⌊(2^64 − 1)/p⌋ + 1` for the prime in the same place of `inverses`
    /// (a limit of 0 pads a lane with fewer primes).
    pub limits: &'a [[u64; 8]],
}
