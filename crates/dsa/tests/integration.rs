//! The integration tests of this crate as one binary: one link, and its
//! generics instantiated once rather than once a file.

mod common;
mod keys;
mod openssl;
mod params;
mod rfc6979;
mod wycheproof;
