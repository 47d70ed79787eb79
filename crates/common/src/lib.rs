//! What numcrypt's signature crates share, in one place so that none of
//! them depends on a sibling:
//!
//! - [`hash`]: the hash chosen at run time ([`HashAlg`]), for RSA's
//!   paddings, DSA's parameter seeds and signatures, ElGamal's signatures
//!   and the command line;
//! - [`rfc6979`]: deterministic (and hedged) nonces for DSA and ElGamal
//!   signatures, for a modulus of any size chosen at run time;
//! - [`Signature`]: the pair `(r, s)` of DSA and ElGamal, in DER and P1363;
//! - [`Subgroup`]: `p`, `q`, `g` and their Montgomery constants, which
//!   DSA's domain parameters and ElGamal's groups dereference to;
//! - [`dl_key`]: the SPKI and PKCS#8 wrapping of discrete-log keys;
//! - [`encrypted_key`]: password-protected PKCS#8 keys, decrypted only
//!   within limits on their key derivation's cost.
//!
//! Most users reach these through `numcrypt-rsa`, `numcrypt-dsa` and
//! `numcrypt-elgamal`, which re-export what their APIs name.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod dl_key;
pub mod encrypted_key;
mod error;
pub mod hash;
pub mod rfc6979;
mod signature;
mod subgroup;

pub use error::Error;
pub use hash::HashAlg;
pub use signature::{Signature, digest_of};
pub use subgroup::Subgroup;
