//! Finds the safe prime `p = 2^k − c` with the smallest `c ≡ 1 (mod 8)`
//! (so that `p ≡ 7 (mod 8)` and 2 generates the subgroup of squares): how
//! `NamedGroup::PseudoMersenne2048`'s `c = 1942289` was found.
//!
//! `cargo run --release -p numcrypt-elgamal --example find_pseudo_mersenne_safe_prime -- 2048`
//!
//! A sieve by the odd primes below 2^16 rejects `c` when one of them
//! divides `p` or `q = (p − 1)/2`; survivors get MR64 on `q`, then on `p`.

use numcrypt_limbs::{BoxedUint, Unsigned};
use numcrypt_prime::is_prime_vartime;

fn main() {
    let k: u32 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("k: a bit length"))
        .unwrap_or(2048);
    assert!(k >= 64, "k must be at least 64");
    let small: Vec<u64> = (3..65536u64)
        .step_by(2)
        .filter(|&n| {
            (3..)
                .step_by(2)
                .take_while(|d| d * d <= n)
                .all(|d| n % d != 0)
        })
        .collect();
    // 2^k mod ℓ for each sieving prime ℓ.
    let residues: Vec<u64> = small
        .iter()
        .map(|&l| (0..k).fold(1u64, |acc, _| acc * 2 % l))
        .collect();
    let power = BoxedUint::from_u64(1, (k as usize).div_ceil(64) + 1).shl_vartime(k);
    let (mut tested, mut c) = (0u64, 1u64);
    loop {
        c += 8;
        // ℓ | p ⇔ 2^k ≡ c; ℓ | q ⇔ ℓ | p − 1 ⇔ 2^k ≡ c + 1 (mod ℓ).
        let survives = small.iter().zip(&residues).all(|(&l, &r)| {
            let d = (r + l - c % l) % l;
            d != 0 && d != 1
        });
        if !survives {
            continue;
        }
        tested += 1;
        let p = power.wrapping_sub(&power.like_u64(c));
        let q = p.shr_vartime(1);
        if is_prime_vartime(&q) && is_prime_vartime(&p) {
            println!("2^{k} - {c} is a safe prime (p ≡ 7 mod 8); {tested} sieve survivors tested");
            return;
        }
    }
}
