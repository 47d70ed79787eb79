use core::fmt;

/// Everything that can go wrong in `numcrypt-limbs`: bad input, never a bug.
///
/// Every fallible function returns this and leaves its outputs untouched
/// (or zeroed, where it says so) when it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A divisor or modulus was zero.
    DivisionByZero,
    /// A modulus that must be odd (Montgomery arithmetic, the constant-time
    /// inverse) was even.
    EvenModulus,
    /// A modulus was 1, leaving no room for any non-zero residue.
    ModulusTooSmall,
    /// A modular inverse was asked for a value that shares a factor with the
    /// modulus.
    NotInvertible,
    /// A value does not fit the requested width (bytes, limbs or bits).
    Overflow,
    /// A value was not below the modulus or bound it must be below.
    OutOfRange,
    /// Text to parse was empty.
    Empty,
    /// Text to parse held a character that is not a digit of its radix.
    InvalidDigit,
    /// A random value was requested below a bound of zero.
    EmptyRange,
    /// Two slices that must have the same length did not (a batch's
    /// operands and the outputs for them).
    LengthMismatch,
    /// The implementation named (`MontyParams::pow_bounded_batch_on`) cannot
    /// run the operands on this CPU: it lacks the instructions, the
    /// implementation is turned off (`NUMCRYPT_DISABLE`), or it does not
    /// take the modulus' size.
    BackendUnavailable,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::DivisionByZero => "division by zero",
            Error::EvenModulus => "modulus must be odd",
            Error::ModulusTooSmall => "modulus must be greater than 1",
            Error::NotInvertible => "value is not invertible modulo the modulus",
            Error::Overflow => "value does not fit the requested width",
            Error::OutOfRange => "value is not below the modulus",
            Error::Empty => "empty number",
            Error::InvalidDigit => "invalid digit in number",
            Error::EmptyRange => "random bound must be non-zero",
            Error::LengthMismatch => "lengths differ",
            Error::BackendUnavailable => "the implementation named cannot run here",
        })
    }
}

impl core::error::Error for Error {}
