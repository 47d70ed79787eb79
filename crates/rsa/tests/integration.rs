//! The integration tests of this crate as one binary: one link, and its
//! generics instantiated once rather than once a file.

mod batch;
mod batch_signer;
mod common;
mod hostile;
mod implicit_rejection;
mod keys_as_openssl_makes_them;
mod openssl;
mod roundtrip;
mod wycheproof;
