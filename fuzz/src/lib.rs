//! Checks shared by the fuzz targets and by the root package's corpus
//! replay test (`tests/fuzz_corpus.rs`), which includes the modules by path.

pub mod differential;
pub mod dlog_parsers;
pub mod is_prime;
pub mod rsa;
pub mod shared_rsa;
