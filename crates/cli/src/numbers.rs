//! How every subcommand reads a number: decimal, or hexadecimal with a
//! `0x` prefix (`--hex` where a command offers it: bare hexadecimal, as
//! `openssl prime -hex` prints), with an optional leading `-`.

use numcrypt_limbs::{BoxedUint, Unsigned};

/// The largest number read (`modexp`'s operands, `is-prime`'s numbers):
/// 16384 bits, as the largest prime and RSA modulus numcrypt makes.
pub const MAX_BITS: u32 = numcrypt_prime::MAX_PRIME_BITS;

/// Digits of the longest text read: enough for [`MAX_BITS`] in decimal
/// (4933 digits) with leading zeros to spare; longer text is refused before
/// it is parsed (decimal parsing takes time quadratic in the length).
const MAX_DIGITS: usize = 6000;

/// A number as written: its sign and magnitude.
pub struct Signed {
    pub negative: bool,
    pub magnitude: BoxedUint,
}

/// Parses `text` for the argument `name` (named in the error).
pub fn parse_signed(name: &str, text: &str, bare_hex: bool) -> Result<Signed, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let prefixed;
    let digits = if bare_hex && !digits.starts_with("0x") && !digits.starts_with("0X") {
        prefixed = format!("0x{digits}");
        &prefixed
    } else {
        digits
    };
    let too_large = || {
        format!(
            "{name} {}: more than {MAX_BITS} bits, the largest numcrypt reads",
            shorten(text)
        )
    };
    if digits.len() > MAX_DIGITS {
        return Err(too_large());
    }
    let magnitude = digits
        .parse::<BoxedUint>()
        .map_err(|e| format!("{name} {}: {e}", shorten(text)))?;
    if magnitude.bits() > MAX_BITS {
        return Err(too_large());
    }
    Ok(Signed {
        negative,
        magnitude,
    })
}

/// The next line of `input` (standard input of `is-prime`), refused once
/// it is longer than any number read could be; `None` at the end.
pub fn read_line(input: &mut impl std::io::BufRead) -> Result<Option<String>, String> {
    let mut line = Vec::new();
    let limit = (MAX_DIGITS + 8) as u64;
    let mut bounded = std::io::Read::take(&mut *input, limit + 1);
    std::io::BufRead::read_until(&mut bounded, b'\n', &mut line)
        .map_err(|e| format!("reading standard input: {e}"))?;
    if line.is_empty() {
        return Ok(None);
    }
    if line.len() as u64 > limit && line.last() != Some(&b'\n') {
        return Err(format!(
            "standard input: a line longer than {MAX_DIGITS} digits, more than {MAX_BITS} bits"
        ));
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| "standard input: not UTF-8".into())
}

/// `text` as an error quotes it: whole if short, else its ends.
fn shorten(text: &str) -> String {
    match (text.get(..12), text.get(text.len().saturating_sub(12)..)) {
        (Some(head), Some(tail)) if text.len() > 40 => {
            format!("\"{head}…{tail}\" ({} characters)", text.chars().count())
        }
        _ => format!("{text:?}"),
    }
}

/// A non-negative number for the argument `name`.
pub fn parse_unsigned(name: &str, text: &str) -> Result<BoxedUint, String> {
    let n = parse_signed(name, text, false)?;
    if n.negative && !bool::from(n.magnitude.is_zero()) {
        return Err(format!("{name} {text:?}: must not be negative"));
    }
    Ok(n.magnitude)
}

/// A `u64` option (`--exponent 65537`, `--exponent 0x10001`), for clap.
pub fn parse_u64(text: &str) -> Result<u64, String> {
    let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
    match hex {
        Some(digits) => u64::from_str_radix(digits, 16),
        None => text.parse::<u64>(),
    }
    .map_err(|e| {
        format!("{text:?} is not a number below 2^64 (decimal, or hexadecimal with 0x): {e}")
    })
}
