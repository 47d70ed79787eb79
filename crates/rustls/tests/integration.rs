//! The integration tests of this crate as one binary: one link, and its
//! generics instantiated once rather than once a file.

mod common;
mod handshake;
mod https_server;
mod openssl;
mod provider;
