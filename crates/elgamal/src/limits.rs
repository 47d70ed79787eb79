//! The group sizes this crate accepts (the errors report them).

/// The smallest group accepted: 2048 bits (NIST SP 800-57's floor for
/// 112-bit security).
pub const MIN_GROUP_BITS: u32 = 2048;
/// The largest group accepted: 16384 bits (a bound on the work a received
/// key can ask for).
pub const MAX_GROUP_BITS: u32 = 16384;
