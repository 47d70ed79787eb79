//! Differential check of `numcrypt-limbs` against num-bigint, driven by
//! arbitrary bytes.
//!
//! [`check`] decodes an operation, an integer type (`BoxedUint`, or `Uint` at
//! 1, 4, 9 or 17 limbs) and operands from the bytes, runs the operation and
//! compares every result, width and error with num-bigint; it panics on any
//! mismatch. It depends only on numcrypt-limbs and the num crates, never on
//! libFuzzer, so that the root package's `tests/fuzz_corpus.rs` can include
//! this file with `#[path]` and replay the corpus in CI.
//!
//! # Input format
//! - byte 0: the operation (one of 12, taken modulo 12).
//! - byte 1: the integer type; for `BoxedUint` byte 2 then picks the width
//!   (1, 2, 3, 4, 5, 7, 8, 9, 16, 17 or 32 limbs) and whether every operand
//!   reads its own width from the input.
//! - then the operands, each a tag byte choosing an edge value (0, 1, all
//!   ones, 2^k, 2^k − 1, all ones minus a small number, a repeated limb, or
//!   raw big-endian bytes); operands of modular operations may instead be
//!   m − 2, m − 1, m or m + 1. The parse operation reads text instead: a
//!   prefix choice, a length byte, and that many bytes mapped onto digits
//!   and a few stray characters.
//!
//! Missing bytes read as zero, so every input, even an empty one, is valid.

use core::fmt;
use core::str::FromStr;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use numcrypt_limbs::{BoxedUint, Error, MontyForm, MontyParams, Uint, Unsigned};

/// Runs the differential check encoded by `data`; panics on a mismatch.
pub fn check(data: &[u8]) {
    let mut inp = Input { data, pos: 0 };
    let op = Op::from_byte(inp.byte());
    match inp.byte() % 8 {
        0 => run::<Fixed<1>>(op, Shape::fixed(1), &mut inp),
        1 => run::<Fixed<4>>(op, Shape::fixed(4), &mut inp),
        2 => run::<Fixed<9>>(op, Shape::fixed(9), &mut inp),
        3 => run::<Fixed<17>>(op, Shape::fixed(17), &mut inp),
        _ => {
            let b = inp.byte();
            let shape = Shape {
                base: BOXED_WIDTHS[usize::from(b & 0x0f) % BOXED_WIDTHS.len()],
                mixed: b >= 0xc0,
            };
            run::<Boxed>(op, shape, &mut inp);
        }
    }
}

/// Limb counts tried for `BoxedUint` (one limb twice as often).
const BOXED_WIDTHS: [usize; 12] = [1, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 32];

// ---- input decoding -------------------------------------------------------
//
// The decoding functions are `#[inline(never)]` so that all integer types
// share their coverage: a copy inlined into every generic instance would
// multiply the edges libFuzzer tracks, and the minimised corpus with them.

/// A cursor over the fuzzer's bytes; reads past the end give zeros.
struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Input<'_> {
    #[inline(never)]
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    #[inline(never)]
    fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.byte(), self.byte()])
    }

    #[inline(never)]
    fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    #[inline(never)]
    fn u64(&mut self) -> u64 {
        (u64::from(self.u32()) << 32) | u64::from(self.u32())
    }

    /// Up to `n` bytes (fewer at the end of the input).
    #[inline(never)]
    fn bytes(&mut self, n: usize) -> &[u8] {
        let start = self.pos.min(self.data.len());
        let end = self.pos.saturating_add(n).min(self.data.len());
        self.pos = self.pos.saturating_add(n);
        &self.data[start..end]
    }
}

/// How wide the operands are: all `base` limbs, or (for `BoxedUint` when
/// `mixed`) each operand's width read from the input.
#[derive(Clone, Copy)]
struct Shape {
    base: usize,
    mixed: bool,
}

impl Shape {
    fn fixed(limbs: usize) -> Self {
        Shape {
            base: limbs,
            mixed: false,
        }
    }

    #[inline(never)]
    fn width(&self, inp: &mut Input<'_>) -> usize {
        if self.mixed {
            BOXED_WIDTHS[usize::from(inp.byte()) % BOXED_WIDTHS.len()]
        } else {
            self.base
        }
    }
}

/// `n` limbs (least significant first) of a value chosen by the input.
#[inline(never)]
fn words(inp: &mut Input<'_>, n: usize) -> Vec<u64> {
    let bits = 64 * n as u32;
    let mut w = vec![0u64; n];
    match inp.byte() % 12 {
        0 => {}
        1 => w[0] = 1,
        2 => w.fill(u64::MAX),
        3 => w[0] = u64::from(inp.byte()),
        4 => {
            let k = u32::from(inp.u16()) % bits;
            w[(k / 64) as usize] = 1 << (k % 64);
        }
        5 => {
            // 2^k - 1: the low k bits set.
            let k = (u32::from(inp.u16()) % (bits + 1)) as usize;
            w[..k / 64].fill(u64::MAX);
            if k & 63 != 0 {
                w[k / 64] = (1u64 << (k % 64)) - 1;
            }
        }
        6 => {
            w.fill(u64::MAX);
            w[0] -= u64::from(inp.byte());
        }
        7 => w.fill(inp.u64()),
        8 => {
            // Raw bytes with the top bit forced: a full-width value.
            raw_into(inp, &mut w);
            w[n - 1] |= 1 << 63;
        }
        _ => raw_into(inp, &mut w),
    }
    w
}

/// Fills `w` from a length byte and that many big-endian bytes (so high
/// limbs are often zero).
#[inline(never)]
fn raw_into(inp: &mut Input<'_>, w: &mut [u64]) {
    let len = usize::from(inp.byte()) % (8 * w.len() + 1);
    for (i, &b) in inp.bytes(len).iter().rev().enumerate() {
        w[i / 8] |= u64::from(b) << (8 * (i % 8));
    }
}

/// An operand of a modular operation: often m − 2, m − 1, m or m + 1
/// (modulo the operand's width), otherwise any value.
#[inline(never)]
fn near(inp: &mut Input<'_>, n: usize, m: &BigUint) -> Vec<u64> {
    let modulus = BigUint::one() << (64 * n);
    let v = match inp.byte() % 8 {
        0 => (m + &modulus - 1u32) % &modulus,
        1 => m % &modulus,
        2 => (m + 1u32) % &modulus,
        3 => (m + &modulus - 2u32) % &modulus,
        _ => return words(inp, n),
    };
    limbs_of(&v, n)
}

/// A shift amount: small, around the width, or anything.
#[inline(never)]
fn shift_amount(inp: &mut Input<'_>, bits: u32) -> u32 {
    match inp.byte() % 4 {
        0 => u32::from(inp.byte()),
        1 => u32::from(inp.u16()) % (bits + 1),
        2 => (bits + u32::from(inp.byte() % 3)).wrapping_sub(1),
        _ => inp.u32(),
    }
}

// ---- integer families -----------------------------------------------------

/// An integer type under test and how to build one from limbs.
trait Family {
    type U: Unsigned + Ord + fmt::Debug + fmt::Display + fmt::LowerHex + FromStr<Err = Error>;

    fn make(words: Vec<u64>) -> Self::U;

    /// The width of every value, when it is fixed.
    fn fixed_limbs() -> Option<usize>;

    /// Checks of the type's own (non-trait) encodings.
    fn check_codec(a: &Self::U, inp: &mut Input<'_>);
}

struct Boxed;

impl Family for Boxed {
    type U = BoxedUint;

    fn make(words: Vec<u64>) -> BoxedUint {
        BoxedUint::from_words(words)
    }

    fn fixed_limbs() -> Option<usize> {
        None
    }

    fn check_codec(a: &BoxedUint, inp: &mut Input<'_>) {
        let ba = big(a);
        let be = a.to_be_bytes();
        assert_eq!(be.len(), 8 * a.nlimbs());
        assert_eq!(BigUint::from_bytes_be(&be), ba, "to_be_bytes");
        let auto = BoxedUint::from_be_slice_auto(&be);
        assert_eq!(auto.as_words(), a.as_words(), "from_be_slice_auto");
        let precision = u32::from(inp.u16()) % 2200;
        let expect_fit = ba.bits() <= u64::from(precision);
        let le: Vec<u8> = be.iter().rev().copied().collect();
        let decoded = [
            ("from_be_slice", BoxedUint::from_be_slice(&be, precision)),
            ("from_le_slice", BoxedUint::from_le_slice(&le, precision)),
        ];
        for (what, got) in decoded {
            match got {
                Ok(x) => {
                    assert!(
                        expect_fit,
                        "{what}({ba:#x}, {precision}) accepted a value that does not fit"
                    );
                    assert_eq!(big(&x), ba, "{what}({ba:#x}, {precision})");
                    assert_eq!(
                        x.nlimbs(),
                        (precision as usize).div_ceil(64).max(1),
                        "{what}({ba:#x}, {precision}): width"
                    );
                }
                Err(e) => {
                    assert!(
                        !expect_fit,
                        "{what}({ba:#x}, {precision}) rejected a fitting value"
                    );
                    assert_eq!(e, Error::Overflow, "{what}({ba:#x}, {precision})");
                }
            }
        }
        let target = usize::from(inp.byte() % 40);
        match a.resize(target) {
            Ok(x) => {
                assert_eq!(big(&x), ba, "resize");
                assert_eq!(x.nlimbs(), target.max(1), "resize width");
            }
            Err(e) => {
                assert_eq!(e, Error::Overflow);
                assert!(
                    ba.bits() > 64 * target.max(1) as u64,
                    "resize({target}) of {ba:#x} failed"
                );
            }
        }
    }
}

struct Fixed<const L: usize>;

impl<const L: usize> Family for Fixed<L> {
    type U = Uint<L>;

    fn make(words: Vec<u64>) -> Uint<L> {
        let words: [u64; L] = words
            .try_into()
            .expect("fixed families use their own width");
        Uint::from_words(words)
    }

    fn fixed_limbs() -> Option<usize> {
        Some(L)
    }

    fn check_codec(a: &Uint<L>, _inp: &mut Input<'_>) {
        let be = a.to_be_bytes_vec();
        assert_eq!(BigUint::from_bytes_be(&be), big(a), "to_be_bytes_vec");
        assert_eq!(
            Uint::<L>::from_be_slice(&be).ok(),
            Some(*a),
            "from_be_slice"
        );
        let mut padded = vec![0u8; 3];
        padded.extend_from_slice(&be);
        assert_eq!(
            Uint::<L>::from_be_slice(&padded).ok(),
            Some(*a),
            "from_be_slice with leading zeros"
        );
        padded[0] = 1;
        assert_eq!(
            Uint::<L>::from_be_slice(&padded).err(),
            Some(Error::Overflow),
            "from_be_slice overflow"
        );
    }
}

// ---- helpers --------------------------------------------------------------

fn big<U: Unsigned>(x: &U) -> BigUint {
    let bytes: Vec<u8> = x.as_ref().iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

fn limbs_of(x: &BigUint, n: usize) -> Vec<u64> {
    let mut digits = x.to_u64_digits();
    assert!(
        digits.len() <= n,
        "reference value {x:#x} wider than {n} limbs"
    );
    digits.resize(n, 0);
    digits
}

/// `2^bits`, the modulus of wrapping arithmetic at `x`'s width.
fn pow2_width<U: Unsigned>(x: &U) -> BigUint {
    BigUint::one() << x.bits_precision()
}

/// Jacobi symbol by the textbook algorithm (reciprocity on remainders), for
/// odd `n`: independent of the library's binary algorithm.
fn reference_jacobi(a: &BigUint, n: &BigUint) -> i8 {
    assert!(n.is_odd());
    let mut a = a % n;
    let mut n = n.clone();
    let mut t = 1i8;
    let small = |x: &BigUint, m: u32| (x % m).to_u32().unwrap_or(0);
    while !a.is_zero() {
        while a.is_even() {
            a >>= 1;
            let r = small(&n, 8);
            if r == 3 || r == 5 {
                t = -t;
            }
        }
        core::mem::swap(&mut a, &mut n);
        if small(&a, 4) == 3 && small(&n, 4) == 3 {
            t = -t;
        }
        a %= &n;
    }
    if n.is_one() { t } else { 0 }
}

/// The error a Montgomery modulus `m` must give, if any.
fn monty_modulus_error(m: &BigUint) -> Option<Error> {
    if m.is_zero() {
        Some(Error::DivisionByZero)
    } else if m.is_even() {
        Some(Error::EvenModulus)
    } else if m.is_one() {
        Some(Error::ModulusTooSmall)
    } else {
        None
    }
}

/// Named operands for failure messages, formatted only when a check fails
/// (eager formatting would cost time and add coverage noise).
struct Ctx<'a, const N: usize>([(&'static str, &'a BigUint, usize); N]);

impl<const N: usize> fmt::Display for Ctx<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value, limbs)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} = {value:#x} ({limbs} limbs)")?;
        }
        Ok(())
    }
}

/// Asserts that `got` matches `want`: the same value at `width` limbs, or
/// the same error.
fn assert_result<U: Unsigned + fmt::Debug>(
    what: fmt::Arguments<'_>,
    got: Result<U, Error>,
    want: Result<&BigUint, Error>,
    width: usize,
) {
    match (got, want) {
        (Ok(x), Ok(w)) => {
            assert_eq!(&big(&x), w, "{what}: wrong value");
            assert_eq!(x.nlimbs(), width, "{what}: wrong width");
        }
        (Err(e), Err(w)) => assert_eq!(e, w, "{what}: wrong error"),
        (got, want) => panic!("{what}: got {got:?}, want {want:x?}"),
    }
}

// ---- the operations -------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Op {
    AddSub,
    Mul,
    Shift,
    DivRem,
    ModArith,
    PowMod,
    Monty,
    InvMod,
    Gcd,
    Jacobi,
    BitsCodec,
    Parse,
}

impl Op {
    const ALL: [Op; 12] = [
        Op::AddSub,
        Op::Mul,
        Op::Shift,
        Op::DivRem,
        Op::ModArith,
        Op::PowMod,
        Op::Monty,
        Op::InvMod,
        Op::Gcd,
        Op::Jacobi,
        Op::BitsCodec,
        Op::Parse,
    ];

    fn from_byte(b: u8) -> Op {
        Op::ALL[usize::from(b) % Op::ALL.len()]
    }
}

fn run<F: Family>(op: Op, shape: Shape, inp: &mut Input<'_>) {
    match op {
        Op::AddSub => add_sub::<F>(shape, inp),
        Op::Mul => mul::<F>(shape, inp),
        Op::Shift => shift::<F>(shape, inp),
        Op::DivRem => div_rem::<F>(shape, inp),
        Op::ModArith => mod_arith::<F>(shape, inp),
        Op::PowMod => pow_mod::<F>(shape, inp),
        Op::Monty => monty::<F>(shape, inp),
        Op::InvMod => inv_mod::<F>(shape, inp),
        Op::Gcd => gcd::<F>(shape, inp),
        Op::Jacobi => jacobi::<F>(shape, inp),
        Op::BitsCodec => bits_codec::<F>(shape, inp),
        Op::Parse => parse::<F>(inp),
    }
}

/// Reads one operand of a width chosen by `shape`.
fn operand<F: Family>(shape: Shape, inp: &mut Input<'_>) -> F::U {
    let n = shape.width(inp);
    F::make(words(inp, n))
}

/// Reads a modulus; `parity` 0 leaves it alone, 1 forces it odd, 2 even.
fn modulus<F: Family>(shape: Shape, inp: &mut Input<'_>, parity: u8) -> F::U {
    let n = shape.width(inp);
    let mut w = words(inp, n);
    match parity {
        1 => w[0] |= 1,
        2 => w[0] &= !1,
        _ => {}
    }
    F::make(w)
}

/// Reads an operand of a modular operation (see [`near`]).
fn mod_operand<F: Family>(shape: Shape, inp: &mut Input<'_>, m: &BigUint) -> F::U {
    let n = shape.width(inp);
    F::make(near(inp, n, m))
}

fn add_sub<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let a = operand::<F>(shape, inp);
    let b = operand::<F>(shape, inp);
    let carry = u64::from(inp.byte() & 1);
    let (ba, bb) = (big(&a), big(&b));
    let r = pow2_width(&a);
    let bt = &bb % &r; // rhs read at a's width
    let fits = bb < r;
    let ctx = Ctx([("a", &ba, a.nlimbs()), ("b", &bb, b.nlimbs())]);

    let (s, c) = a.carrying_add(&b, carry);
    let full = &ba + &bt + carry;
    assert_eq!(big(&s), &full % &r, "carrying_add: {ctx}, carry {carry}");
    assert_eq!(s.nlimbs(), a.nlimbs());
    assert_eq!(c, u64::from(full >= r), "carrying_add carry: {ctx}");

    let (d, borrow) = a.borrowing_sub(&b, carry);
    let sub = &bt + carry;
    assert_eq!(
        borrow,
        u64::from(ba < sub),
        "borrowing_sub borrow: {ctx}, borrow {carry}"
    );
    assert_eq!(
        big(&d),
        (&ba + &r - &sub) % &r,
        "borrowing_sub: {ctx}, borrow {carry}"
    );

    assert_eq!(
        big(&a.wrapping_add(&b)),
        (&ba + &bt) % &r,
        "wrapping_add: {ctx}"
    );
    assert_eq!(
        big(&a.wrapping_sub(&b)),
        (&ba + &r - &bt) % &r,
        "wrapping_sub: {ctx}"
    );
    assert_eq!(
        big(&a.wrapping_neg()),
        (&r - &ba) % &r,
        "wrapping_neg: {ctx}"
    );

    let sum = &ba + &bt;
    let want = (fits && sum < r).then_some(sum);
    let got: Option<F::U> = a.checked_add(&b).into();
    assert_eq!(got.as_ref().map(big), want, "checked_add: {ctx}");
    let want = (fits && ba >= bt).then(|| &ba - &bt);
    let got: Option<F::U> = a.checked_sub(&b).into();
    assert_eq!(got.as_ref().map(big), want, "checked_sub: {ctx}");

    assert_eq!(
        bool::from(a.ct_eq_value(&b)),
        ba == bb,
        "ct_eq_value: {ctx}"
    );
    assert_eq!(bool::from(a.ct_lt_value(&b)), ba < bb, "ct_lt_value: {ctx}");
    assert_eq!(a.cmp(&b), ba.cmp(&bb), "cmp: {ctx}");
    assert_eq!(a == b, ba == bb, "eq: {ctx}");
}

fn mul<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let a = operand::<F>(shape, inp);
    let b = operand::<F>(shape, inp);
    let (ba, bb) = (big(&a), big(&b));
    let r = pow2_width(&a);
    let bits = a.bits_precision();
    let bt = &bb % &r;
    let ctx = Ctx([("a", &ba, a.nlimbs()), ("b", &bb, b.nlimbs())]);

    let full = &ba * &bt;
    let (lo, hi) = a.widening_mul(&b);
    assert_eq!(big(&lo), &full % &r, "widening_mul low: {ctx}");
    assert_eq!(big(&hi), &full >> bits, "widening_mul high: {ctx}");
    assert_eq!(
        (lo.nlimbs(), hi.nlimbs()),
        (a.nlimbs(), a.nlimbs()),
        "widening_mul widths"
    );
    assert_eq!(big(&a.wrapping_mul(&b)), &full % &r, "wrapping_mul: {ctx}");
    let want = (bb < r && full < r).then(|| full.clone());
    let got: Option<F::U> = a.checked_mul(&b).into();
    assert_eq!(got.as_ref().map(big), want, "checked_mul: {ctx}");

    let sq = &ba * &ba;
    let (lo, hi) = a.widening_square();
    assert_eq!(big(&lo), &sq % &r, "widening_square low: {ctx}");
    assert_eq!(big(&hi), &sq >> bits, "widening_square high: {ctx}");
}

fn shift<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let a = operand::<F>(shape, inp);
    let bits = a.bits_precision();
    let s = shift_amount(inp, bits);
    let ba = big(&a);
    let r = pow2_width(&a);
    let (want_l, want_r) = if s >= bits {
        (BigUint::zero(), BigUint::zero())
    } else {
        ((&ba << s) % &r, &ba >> s)
    };
    let ctx = Ctx([("a", &ba, a.nlimbs())]);
    assert_eq!(big(&a.shl(s)), want_l, "shl({s}): {ctx}");
    assert_eq!(big(&a.shr(s)), want_r, "shr({s}): {ctx}");
    assert_eq!(big(&a.shl_vartime(s)), want_l, "shl_vartime({s}): {ctx}");
    assert_eq!(big(&a.shr_vartime(s)), want_r, "shr_vartime({s}): {ctx}");
    assert_eq!(a.shl(s).nlimbs(), a.nlimbs());
}

fn div_rem<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let a = operand::<F>(shape, inp);
    let d = operand::<F>(shape, inp);
    let (ba, bd) = (big(&a), big(&d));
    let ctx = Ctx([("a", &ba, a.nlimbs()), ("d", &bd, d.nlimbs())]);
    let d0 = d.as_ref()[0];
    if bd.is_zero() {
        assert_eq!(
            a.div_rem(&d).err(),
            Some(Error::DivisionByZero),
            "div_rem by zero: {ctx}"
        );
        assert_eq!(
            a.div_rem_vartime(&d).err(),
            Some(Error::DivisionByZero),
            "div_rem_vartime by zero: {ctx}"
        );
        assert_eq!(
            a.rem(&d).err(),
            Some(Error::DivisionByZero),
            "rem by zero: {ctx}"
        );
        assert_eq!(
            a.rem_vartime(&d).err(),
            Some(Error::DivisionByZero),
            "rem_vartime by zero: {ctx}"
        );
    } else {
        let (q, r) = ba.div_rem(&bd);
        for (what, got) in [
            ("div_rem", a.div_rem(&d)),
            ("div_rem_vartime", a.div_rem_vartime(&d)),
        ] {
            let (gq, gr) = got.unwrap_or_else(|e| panic!("{what}: {e:?}: {ctx}"));
            assert_eq!(big(&gq), q, "{what} quotient: {ctx}");
            assert_eq!(big(&gr), r, "{what} remainder: {ctx}");
            assert_eq!(
                (gq.nlimbs(), gr.nlimbs()),
                (a.nlimbs(), d.nlimbs()),
                "{what} widths: {ctx}"
            );
        }
        assert_result(format_args!("rem: {ctx}"), a.rem(&d), Ok(&r), d.nlimbs());
        assert_result(
            format_args!("rem_vartime: {ctx}"),
            a.rem_vartime(&d),
            Ok(&r),
            d.nlimbs(),
        );
    }
    match a.rem_limb_vartime(d0) {
        Ok(x) => assert_eq!(
            BigUint::from(x),
            &ba % d0,
            "rem_limb_vartime: a = {ba:#x}, m = {d0:#x}"
        ),
        Err(e) => assert!(
            d0 == 0 && e == Error::DivisionByZero,
            "rem_limb_vartime({d0:#x}): {e:?}"
        ),
    }
}

fn mod_arith<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let m = modulus::<F>(shape, inp, 0);
    let bm = big(&m);
    let a = mod_operand::<F>(shape, inp, &bm);
    let b = mod_operand::<F>(shape, inp, &bm);
    let (ba, bb) = (big(&a), big(&b));
    let w = m.nlimbs();
    let ctx = Ctx([
        ("a", &ba, a.nlimbs()),
        ("b", &bb, b.nlimbs()),
        ("m", &bm, w),
    ]);

    let reduced = |both: bool, f: &dyn Fn() -> BigUint| {
        if bm.is_zero() {
            Err(Error::DivisionByZero)
        } else if ba >= bm || (both && bb >= bm) {
            Err(Error::OutOfRange)
        } else {
            Ok(f() % &bm)
        }
    };
    let add = reduced(true, &|| &ba + &bb);
    assert_result(
        format_args!("add_mod: {ctx}"),
        a.add_mod(&b, &m),
        add.as_ref().map_err(|e| *e),
        w,
    );
    let sub = reduced(true, &|| &ba + &bm - &bb);
    assert_result(
        format_args!("sub_mod: {ctx}"),
        a.sub_mod(&b, &m),
        sub.as_ref().map_err(|e| *e),
        w,
    );
    let neg = reduced(false, &|| &bm - &ba);
    assert_result(
        format_args!("neg_mod: {ctx}"),
        a.neg_mod(&m),
        neg.as_ref().map_err(|e| *e),
        w,
    );

    // mul_mod takes any operands; the rhs is read at a's width.
    let mul = if bm.is_zero() {
        Err(Error::DivisionByZero)
    } else {
        Ok(&ba * (&bb % pow2_width(&a)) % &bm)
    };
    assert_result(
        format_args!("mul_mod: {ctx}"),
        a.mul_mod(&b, &m),
        mul.as_ref().map_err(|e| *e),
        w,
    );
}

fn pow_mod<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let parity = u8::from(inp.byte() & 3 != 0); // usually odd
    let m = modulus::<F>(shape, inp, parity);
    let bm = big(&m);
    let a = mod_operand::<F>(shape, inp, &bm);
    let e = operand::<F>(shape, inp);
    let (ba, be) = (big(&a), big(&e));
    let want = match monty_modulus_error(&bm) {
        Some(err) => Err(err),
        None => Ok(ba.modpow(&be, &bm)),
    };
    let ctx = Ctx([
        ("a", &ba, a.nlimbs()),
        ("e", &be, e.nlimbs()),
        ("m", &bm, m.nlimbs()),
    ]);
    assert_result(
        format_args!("pow_mod: {ctx}"),
        a.pow_mod(&e, &m),
        want.as_ref().map_err(|e| *e),
        m.nlimbs(),
    );
}

fn monty<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let parity = u8::from(inp.byte() & 7 != 0); // almost always odd
    let m = modulus::<F>(shape, inp, parity);
    let bm = big(&m);
    let w = m.nlimbs();
    let params = match (MontyParams::new(m.clone()), monty_modulus_error(&bm)) {
        (Ok(p), None) => p,
        (Err(e), Some(want)) => {
            assert_eq!(e, want, "MontyParams::new({bm:#x})");
            return;
        }
        (got, want) => panic!(
            "MontyParams::new({bm:#x}): got {:?}, want {want:?}",
            got.err()
        ),
    };
    assert_eq!(big(params.modulus()), bm);
    let a = mod_operand::<F>(shape, inp, &bm);
    let b = mod_operand::<F>(shape, inp, &bm);
    let e = operand::<F>(shape, inp);
    let (ba, bb, be) = (big(&a), big(&b), big(&e));
    let (ra, rb) = (&ba % &bm, &bb % &bm);
    let ctx = Ctx([
        ("a", &ba, a.nlimbs()),
        ("b", &bb, b.nlimbs()),
        ("e", &be, e.nlimbs()),
        ("m", &bm, w),
    ]);
    let out = |x: &MontyForm<F::U>| {
        let v = params.from_monty(x);
        assert_eq!(v.nlimbs(), w);
        big(&v)
    };

    let x = params.to_monty(&a);
    let y = params.to_monty(&b);
    let r_mod = (BigUint::one() << (64 * w)) % &bm;
    assert_eq!(
        big(x.as_montgomery()),
        &ra * &r_mod % &bm,
        "to_monty: {ctx}"
    );
    assert_eq!(out(&x), ra, "from_monty(to_monty(a)): {ctx}");
    assert_eq!(out(&params.one()), BigUint::one(), "one: {ctx}");
    assert!(out(&params.zero()).is_zero(), "zero: {ctx}");
    assert_eq!(out(&params.mul(&x, &y)), &ra * &rb % &bm, "mul: {ctx}");
    assert_eq!(out(&params.square(&x)), &ra * &ra % &bm, "square: {ctx}");
    assert_eq!(out(&params.add(&x, &y)), (&ra + &rb) % &bm, "add: {ctx}");
    assert_eq!(
        out(&params.sub(&x, &y)),
        (&ra + &bm - &rb) % &bm,
        "sub: {ctx}"
    );
    assert_eq!(out(&params.neg(&x)), (&bm - &ra) % &bm, "neg: {ctx}");

    let want = ba.modpow(&be, &bm);
    assert_eq!(out(&params.pow(&x, &e)), want, "pow: {ctx}");
    assert_eq!(out(&params.pow_vartime(&x, &e)), want, "pow_vartime: {ctx}");
    let exp_bits = u32::from(inp.u16()) % (e.bits_precision() + 80);
    let low = &be % (BigUint::one() << exp_bits.min(e.bits_precision()));
    assert_eq!(
        out(&params.pow_bounded(&x, &e, exp_bits)),
        ba.modpow(&low, &bm),
        "pow_bounded({exp_bits}): {ctx}"
    );

    match (params.invert(&x), ra.modinv(&bm)) {
        (Ok(inv), Some(want)) => assert_eq!(out(&inv), want, "invert: {ctx}"),
        (Err(e), None) => assert_eq!(e, Error::NotInvertible, "invert: {ctx}"),
        (got, want) => panic!(
            "invert: {ctx}: got {:?}, want {want:x?}",
            got.map(|v| out(&v))
        ),
    }
}

fn inv_mod<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let parity = match inp.byte() % 4 {
        0 => 0,
        3 => 2,
        _ => 1,
    };
    let m = modulus::<F>(shape, inp, parity);
    let bm = big(&m);
    let a = mod_operand::<F>(shape, inp, &bm);
    let ba = big(&a);
    let w = m.nlimbs();
    let what = Ctx([("a", &ba, a.nlimbs()), ("m", &bm, w)]);
    let inverse = || {
        if bm > BigUint::one() {
            ba.modinv(&bm).ok_or(Error::NotInvertible)
        } else {
            Err(Error::NotInvertible)
        }
    };

    let small = if bm.is_zero() {
        Some(Error::DivisionByZero)
    } else if bm.is_one() {
        Some(Error::ModulusTooSmall)
    } else {
        None
    };
    let want_ct = match small {
        Some(e) => Err(e),
        None if bm.is_even() => Err(Error::EvenModulus),
        None => inverse(),
    };
    let want_vt = match small {
        Some(e) => Err(e),
        None => inverse(),
    };
    if let Ok(x) = &want_vt {
        assert!(
            (&ba * x % &bm).is_one(),
            "reference inverse is wrong: {what}"
        );
    }
    assert_result(
        format_args!("inv_mod: {what}"),
        a.inv_mod(&m),
        want_ct.as_ref().map_err(|e| *e),
        w,
    );
    assert_result(
        format_args!("inv_mod_vartime: {what}"),
        a.inv_mod_vartime(&m),
        want_vt.as_ref().map_err(|e| *e),
        w,
    );
}

fn gcd<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let a = operand::<F>(shape, inp);
    let b = operand::<F>(shape, inp);
    let (ba, bb) = (big(&a), big(&b));
    let bt = &bb % pow2_width(&a);
    let g = a.gcd_vartime(&b);
    assert_eq!(
        big(&g),
        ba.gcd(&bt),
        "gcd_vartime: a = {ba:#x} ({} limbs), b = {bb:#x} ({} limbs)",
        a.nlimbs(),
        b.nlimbs()
    );
    assert_eq!(g.nlimbs(), a.nlimbs());
}

fn jacobi<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let parity = u8::from(inp.byte() & 7 != 0);
    let n = modulus::<F>(shape, inp, parity);
    let bn = big(&n);
    let a = mod_operand::<F>(shape, inp, &bn);
    let ba = big(&a);
    let want = if bn.is_zero() {
        Err(Error::DivisionByZero)
    } else if bn.is_even() {
        Err(Error::EvenModulus)
    } else {
        Ok(reference_jacobi(&ba, &bn))
    };
    assert_eq!(
        a.jacobi_vartime(&n),
        want,
        "jacobi_vartime: a = {ba:#x}, n = {bn:#x}"
    );
}

fn bits_codec<F: Family>(shape: Shape, inp: &mut Input<'_>) {
    let a = operand::<F>(shape, inp);
    let ba = big(&a);
    let width = a.bits_precision();
    let ctx = Ctx([("a", &ba, a.nlimbs())]);
    assert_eq!(u64::from(a.bits()), ba.bits(), "bits: {ctx}");
    assert_eq!(
        u64::from(a.bits_vartime()),
        ba.bits(),
        "bits_vartime: {ctx}"
    );
    assert_eq!(
        u64::from(a.trailing_zeros()),
        ba.trailing_zeros().unwrap_or(u64::from(width)),
        "trailing_zeros: {ctx}"
    );
    assert_eq!(bool::from(a.is_zero()), ba.is_zero(), "is_zero: {ctx}");
    assert_eq!(bool::from(a.is_odd()), ba.is_odd(), "is_odd: {ctx}");
    for _ in 0..4 {
        let i = u32::from(inp.u16()) % (width + 70);
        assert_eq!(
            bool::from(a.bit(i)),
            ba.bit(u64::from(i)),
            "bit({i}): {ctx}"
        );
        assert_eq!(
            a.bit_vartime(i),
            ba.bit(u64::from(i)),
            "bit_vartime({i}): {ctx}"
        );
    }

    // Exact-length byte encodings.
    let len = usize::from(inp.byte()) % (8 * a.nlimbs() + 9);
    let fits = ba.bits() <= 8 * len as u64;
    let mut be = vec![0xa5u8; len];
    let mut le = vec![0x5au8; len];
    match (a.write_be_bytes(&mut be), a.write_le_bytes(&mut le)) {
        (Ok(()), Ok(())) => {
            assert!(fits, "write_be_bytes into {len} bytes accepted {ctx}");
            assert_eq!(BigUint::from_bytes_be(&be), ba, "write_be_bytes: {ctx}");
            assert_eq!(BigUint::from_bytes_le(&le), ba, "write_le_bytes: {ctx}");
        }
        (Err(e1), Err(e2)) => {
            assert!(!fits, "write_*_bytes into {len} bytes rejected {ctx}");
            assert_eq!((e1, e2), (Error::Overflow, Error::Overflow));
            assert!(
                be.iter().chain(&le).all(|&x| x == 0),
                "output not zeroed on overflow: {ctx}"
            );
        }
        (r1, r2) => panic!("write_be_bytes {r1:?} but write_le_bytes {r2:?}: {ctx}"),
    }

    // Text.
    let dec = a.to_string();
    assert_eq!(dec, ba.to_str_radix(10), "Display: {ctx}");
    assert_eq!(format!("{a:x}"), ba.to_str_radix(16), "LowerHex: {ctx}");
    for text in [
        dec,
        format!("{a:#x}"),
        format!("0x{:0>40}", ba.to_str_radix(16)),
    ] {
        match F::U::from_str(&text) {
            Ok(x) => assert_eq!(big(&x), ba, "from_str({text})"),
            Err(e) => panic!("from_str({text}): {e:?}"),
        }
    }
    F::check_codec(&a, inp);
}

/// `FromStr` on text made mostly of digits, against a reference parser: an
/// optional `0x`/`0X` prefix, then decimal or hexadecimal digits only.
fn parse<F: Family>(inp: &mut Input<'_>) {
    const ALPHABET: &[u8] = b"0123456789abcdefABCDEF0000000000999999ffffxX_+ g-";
    let prefix = match inp.byte() % 4 {
        0 => "0x",
        1 => "0X",
        _ => "",
    };
    let len = usize::from(inp.byte());
    let body: String = inp
        .bytes(len)
        .iter()
        .map(|&b| char::from(ALPHABET[usize::from(b) % ALPHABET.len()]))
        .collect();
    let text = format!("{prefix}{body}");
    let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (text.as_str(), 10),
    };
    let valid = digits.chars().all(|c| c.is_digit(radix));
    let got = F::U::from_str(&text);
    if digits.is_empty() {
        assert_eq!(got.err(), Some(Error::Empty), "from_str({text:?})");
    } else if !valid {
        // A fixed width may overflow on an earlier chunk before reaching the
        // bad digit.
        let err = got.as_ref().err().copied();
        let ok = err == Some(Error::InvalidDigit)
            || (F::fixed_limbs().is_some() && err == Some(Error::Overflow));
        assert!(ok, "from_str({text:?}): got {got:?}, want InvalidDigit");
    } else {
        let want = BigUint::parse_bytes(digits.as_bytes(), radix).expect("validated digits");
        match (got, F::fixed_limbs()) {
            (Ok(x), limbs) => {
                assert_eq!(big(&x), want, "from_str({text:?})");
                assert!(limbs.is_none_or(|l| want.bits() <= 64 * l as u64));
            }
            (Err(e), Some(l)) => {
                assert_eq!(e, Error::Overflow, "from_str({text:?})");
                assert!(
                    want.bits() > 64 * l as u64,
                    "from_str({text:?}) overflowed a fitting value"
                );
            }
            (Err(e), None) => panic!("from_str({text:?}): {e:?}, want {want:#x}"),
        }
    }
}
