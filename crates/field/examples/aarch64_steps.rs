//! One multiplication and one square in each field that has two
//! representations, each in a function of its own, for
//! `tools/trace_aarch64.py`: it runs this program under qemu, records the
//! instructions each function executes (callees and the kernels' loops
//! included) and hands them to llvm-mca's aarch64 models. Run natively it
//! only prints the results' first bytes (the same for both representations
//! of a field).

use core::hint::black_box;

use numcrypt_field::{
    Fp, Fp336, Fp336Saturated, Fp414, Fp414Saturated, Fp521, Fp521Saturated, Fp25519,
    Fp25519Saturated, FpGoldilocks, FpGoldilocksMonty,
};

macro_rules! steps {
    ($($field:ident: $mul:ident, $sqr:ident;)*) => {
        $(
            #[inline(never)]
            fn $mul(a: &$field, b: &$field) -> $field {
                a * b
            }

            #[inline(never)]
            fn $sqr(a: &$field) -> $field {
                a.square()
            }
        )*

        fn main() {
            // Three rounds: the tracer reads the last, where every lazily
            // initialised selection is settled.
            for _ in 0..3 {
                $(
                    let a = operand::<$field>();
                    let r = ($mul(black_box(&a), black_box(&a)), $sqr(black_box(&a)));
                    print!("{} {:02x} {:02x}; ", stringify!($field), first(&r.0), first(&r.1));
                )*
                println!();
            }
        }
    };
}

steps! {
    Fp25519: step_fp25519_mul, step_fp25519_sqr;
    Fp25519Saturated: step_fp25519_saturated_mul, step_fp25519_saturated_sqr;
    Fp336: step_fp336_mul, step_fp336_sqr;
    Fp336Saturated: step_fp336_saturated_mul, step_fp336_saturated_sqr;
    Fp414: step_fp414_mul, step_fp414_sqr;
    Fp414Saturated: step_fp414_saturated_mul, step_fp414_saturated_sqr;
    Fp521: step_fp521_mul, step_fp521_sqr;
    Fp521Saturated: step_fp521_saturated_mul, step_fp521_saturated_sqr;
    FpGoldilocks: step_goldilocks_mul, step_goldilocks_sqr;
    FpGoldilocksMonty: step_goldilocks_monty_mul, step_goldilocks_monty_sqr;
}

/// A full-size operand: 3^(2^10), well past every modulus here.
fn operand<F: Elem>() -> F {
    let mut x = F::from_u64(3);
    for _ in 0..10 {
        x = x.square();
    }
    x
}

/// The first byte of `x`'s least residue.
fn first<F: Elem>(x: &F) -> u8 {
    let mut out = [0u8; 264];
    x.write(&mut out);
    out[0]
}

/// What `operand` and `first` need of a field element.
trait Elem: Sized {
    fn from_u64(x: u64) -> Self;
    fn square(&self) -> Self;
    fn write(&self, out: &mut [u8]);
}

impl<B: numcrypt_field::Backend> Elem for Fp<B> {
    fn from_u64(x: u64) -> Self {
        Fp::from_u64(x)
    }

    fn square(&self) -> Self {
        Fp::square(self)
    }

    fn write(&self, out: &mut [u8]) {
        self.write_le_bytes(&mut out[..Self::BYTES]).unwrap();
    }
}
