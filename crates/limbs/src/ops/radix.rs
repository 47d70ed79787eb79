//! Byte encodings and text (decimal, hexadecimal) for limb slices.
//!
//! Byte encodings are constant time in the value: they touch every byte and
//! limb, and only the final "does it fit" answer can differ. Text parsing and
//! printing are for public values and are variable time.

use core::fmt;

use crate::ops::add::add_limb_assign;
use crate::ops::word::mac;
use crate::{Error, Limb};

const LIMB_BYTES: usize = (Limb::BITS / 8) as usize;

/// Reads big-endian `bytes` into `out`. Inputs longer than `out` are accepted
/// when the excess leading bytes are zero; otherwise [`Error::Overflow`] (and
/// `out` is left zeroed).
pub(crate) fn from_be_bytes(out: &mut [Limb], bytes: &[u8]) -> Result<(), Error> {
    read_bytes(out, bytes.iter().rev().copied())
}

/// Reads little-endian `bytes` into `out`; same rules as [`from_be_bytes`].
pub(crate) fn from_le_bytes(out: &mut [Limb], bytes: &[u8]) -> Result<(), Error> {
    read_bytes(out, bytes.iter().copied())
}

/// Reads `bytes`, least significant first, into `out`.
fn read_bytes(out: &mut [Limb], bytes: impl Iterator<Item = u8>) -> Result<(), Error> {
    out.fill(0);
    let mut excess = 0u8;
    for (i, byte) in bytes.enumerate() {
        let limb = i / LIMB_BYTES;
        if limb < out.len() {
            out[limb] |= (byte as Limb) << (8 * (i % LIMB_BYTES));
        } else {
            excess |= byte;
        }
    }
    // An overflow is reported, so its verdict is public.
    if crate::ct_audit::declassified(excess) != 0 {
        out.fill(0);
        return Err(Error::Overflow);
    }
    Ok(())
}

/// Writes `a` big-endian into exactly `out.len()` bytes (zero-padded on the
/// left). [`Error::Overflow`] if the value needs more bytes; `out` is then
/// zeroed.
pub(crate) fn to_be_bytes(a: &[Limb], out: &mut [u8]) -> Result<(), Error> {
    write_bytes(a, out, |pos, len| len - 1 - pos)
}

/// Writes `a` little-endian into exactly `out.len()` bytes, as
/// [`to_be_bytes`].
pub(crate) fn to_le_bytes(a: &[Limb], out: &mut [u8]) -> Result<(), Error> {
    write_bytes(a, out, |pos, _| pos)
}

/// Byte `pos` of `a` (least significant first) goes to `out[place(pos,
/// out.len())]`; the bytes of `out` no byte of `a` reaches are zero.
fn write_bytes(
    a: &[Limb],
    out: &mut [u8],
    place: impl Fn(usize, usize) -> usize,
) -> Result<(), Error> {
    let len = out.len();
    out.fill(0);
    let mut excess: Limb = 0;
    for (i, &limb) in a.iter().enumerate() {
        for k in 0..LIMB_BYTES {
            let byte = (limb >> (8 * k)) as u8;
            let pos = i * LIMB_BYTES + k;
            if pos < len {
                out[place(pos, len)] = byte;
            } else {
                excess |= byte as Limb;
            }
        }
    }
    // An overflow is reported, so its verdict is public.
    if crate::ct_audit::declassified(excess) != 0 {
        out.fill(0);
        return Err(Error::Overflow);
    }
    Ok(())
}

/// Parses decimal digits, or hexadecimal digits after `0x`/`0X`, into `out`.
/// Errors: [`Error::Empty`], [`Error::InvalidDigit`], [`Error::Overflow`];
/// on error `out` is zeroed.
pub(crate) fn parse(out: &mut [Limb], text: &str) -> Result<(), Error> {
    out.fill(0);
    let result = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => parse_radix(out, hex, 16),
        None => parse_radix(out, text, 10),
    };
    if result.is_err() {
        out.fill(0);
    }
    result
}

fn parse_radix(out: &mut [Limb], digits: &str, radix: u32) -> Result<(), Error> {
    if digits.is_empty() {
        return Err(Error::Empty);
    }
    // As many digits per step as keep radix^k below 2^64: 19 decimal, 15 hex.
    let per_chunk = if radix == 10 { 19 } else { 15 };
    for chunk in digits.as_bytes().chunks(per_chunk) {
        let mut value: Limb = 0;
        for &c in chunk {
            let d = (c as char).to_digit(radix).ok_or(Error::InvalidDigit)?;
            value = value * radix as Limb + d as Limb;
        }
        let scale = (radix as Limb).pow(chunk.len() as u32);
        let high = mul_1_in_place(out, scale);
        let carry = add_limb_assign(out, value);
        if high != 0 || carry != 0 {
            return Err(Error::Overflow);
        }
    }
    Ok(())
}

/// `a *= b`, returning the high limb.
fn mul_1_in_place(a: &mut [Limb], b: Limb) -> Limb {
    let mut carry = 0;
    for x in a.iter_mut() {
        (*x, carry) = mac(0, *x, b, carry);
    }
    carry
}

/// Writes `a` in decimal. `scratch` (at least `2 n + 2` limbs) holds a
/// working copy and the base-10^19 chunks (at most `n + 2` of them).
pub(crate) fn fmt_decimal(
    a: &[Limb],
    f: &mut fmt::Formatter<'_>,
    scratch: &mut [Limb],
) -> fmt::Result {
    const CHUNK: u128 = 10_000_000_000_000_000_000; // 10^19
    let n = a.len();
    let (work, chunks) = scratch.split_at_mut(n);
    work.copy_from_slice(a);
    let mut count = 0;
    loop {
        let mut rem: u128 = 0;
        for x in work.iter_mut().rev() {
            let num = (rem << Limb::BITS) | *x as u128;
            *x = (num / CHUNK) as Limb;
            rem = num % CHUNK;
        }
        chunks[count] = rem as Limb;
        count += 1;
        if work.iter().all(|&x| x == 0) {
            break;
        }
    }
    write!(f, "{}", chunks[count - 1])?;
    for &chunk in chunks[..count - 1].iter().rev() {
        write!(f, "{chunk:019}")?;
    }
    Ok(())
}

/// Writes `a` in lower- or upper-case hexadecimal without leading zeros
/// ("0" for zero), with a `0x` prefix under `{:#x}`.
pub(crate) fn fmt_hex(a: &[Limb], f: &mut fmt::Formatter<'_>, upper: bool) -> fmt::Result {
    if f.alternate() {
        f.write_str("0x")?;
    }
    let Some(top) = a.iter().rposition(|&x| x != 0) else {
        return f.write_str("0");
    };
    for (i, &limb) in a[..=top].iter().enumerate().rev() {
        match (upper, i == top) {
            (false, true) => write!(f, "{limb:x}")?,
            (false, false) => write!(f, "{limb:016x}")?,
            (true, true) => write!(f, "{limb:X}")?,
            (true, false) => write!(f, "{limb:016X}")?,
        }
    }
    Ok(())
}
