use std::fmt;
use std::time::Duration;

/// Everything that can go wrong in `numcrypt-shared-rsa`.
///
/// Party numbers in errors are 1-based, as in the configuration files and
/// the command line.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A configuration value is out of range or inconsistent.
    InvalidConfig(String),
    /// The parties were started with different parameters (key size,
    /// exponent, sieve bounds, improvements): found by the first exchange.
    ConfigMismatch {
        /// The party whose parameters differ from ours.
        party: usize,
    },
    /// A peer closed its connection (or its process ended) mid-protocol.
    Disconnected {
        /// The party that went away.
        party: usize,
    },
    /// A peer sent nothing for the configured timeout.
    Timeout {
        /// The party we were waiting for.
        party: usize,
        /// How long we waited.
        after: Duration,
    },
    /// This party stopped because another of its own threads failed (the
    /// first error is the one reported).
    Aborted,
    /// A peer's message could not be parsed, had the wrong length, or held
    /// a value out of range.
    Malformed {
        /// The party that sent it.
        party: usize,
        /// What was wrong.
        what: &'static str,
    },
    /// The shares the parties revealed are inconsistent (they do not lie on
    /// one polynomial of the expected degree): a faulty or misbehaving party.
    InconsistentShares {
        /// What was being reconstructed.
        what: &'static str,
    },
    /// A peer's connection could not be authenticated (its certificate is
    /// not the party's, it named another party, the TLS handshake failed
    /// or took too long).
    Authentication {
        /// The party at the other end, when known.
        party: Option<usize>,
        /// What failed.
        what: String,
    },
    /// An operating-system I/O error (sockets, files).
    Io(std::io::Error),
    /// A key-share, public-key or partial-signature file is malformed.
    InvalidEncoding(String),
    /// A value does not fit the key (a message representative or signature
    /// not below `N`, a wrong length).
    InvalidInput(&'static str),
    /// The combined signature does not verify, and no partial signature
    /// carried a consistency check to find the culprit with.
    InvalidSignature,
    /// Fewer partial signatures than the key's threshold needs.
    TooFewPartials {
        /// `t + 1`, the number of parties that must sign.
        needed: usize,
        /// How many distinct parties' partial signatures were given.
        got: usize,
    },
    /// The combined signature does not verify; the consistency checks name
    /// these parties (1-based) as having sent faulty partial signatures.
    FaultyParties(Vec<usize>),
    /// Key generation produced shares that fail the trial signature: a
    /// fault in some party's computation.
    KeyCheckFailed,
    /// The candidate limit was reached without finding a biprime.
    CandidateLimit(u64),
    /// The progress callback asked to stop (the peers see a disconnection).
    Cancelled,
    /// An error from the RSA crate (encoding or verification).
    Rsa(numcrypt_rsa::Error),
    /// An arithmetic error from the limbs crate (should not happen on
    /// validated input).
    Arithmetic(numcrypt_limbs::Error),
    /// The operating system's random number generator failed.
    Randomness,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidConfig(why) => write!(f, "invalid configuration: {why}"),
            Error::ConfigMismatch { party } => write!(
                f,
                "party {party} runs with different key-generation parameters"
            ),
            Error::Disconnected { party } => {
                write!(f, "party {party} disconnected mid-protocol")
            }
            Error::Timeout { party, after } => write!(
                f,
                "party {party} sent nothing for {:.1} s (timeout)",
                after.as_secs_f64()
            ),
            Error::Aborted => f.write_str("stopped after an error in another thread"),
            Error::Malformed { party, what } => {
                write!(f, "malformed message from party {party}: {what}")
            }
            Error::InconsistentShares { what } => {
                write!(f, "inconsistent shares while reconstructing {what}")
            }
            Error::Authentication { party, what } => match party {
                Some(p) => write!(f, "authentication with party {p} failed: {what}"),
                None => write!(f, "authentication failed: {what}"),
            },
            Error::Io(e) => write!(f, "I/O error: {e}"),
            Error::InvalidEncoding(why) => write!(f, "invalid encoding: {why}"),
            Error::InvalidInput(why) => write!(f, "invalid input: {why}"),
            Error::InvalidSignature => f.write_str("the combined signature does not verify"),
            Error::TooFewPartials { needed, got } => write!(
                f,
                "{got} partial signature{} given: this key needs {needed} parties to sign",
                if *got == 1 { "" } else { "s" }
            ),
            Error::FaultyParties(parties) => {
                let list: Vec<String> = parties.iter().map(|p| p.to_string()).collect();
                write!(
                    f,
                    "the combined signature does not verify: faulty partial signature from party {}",
                    list.join(", ")
                )
            }
            Error::KeyCheckFailed => {
                f.write_str("the generated shares fail the trial signature (a party is faulty)")
            }
            Error::CandidateLimit(n) => write!(f, "no biprime found within {n} candidates"),
            Error::Cancelled => f.write_str("key generation cancelled"),
            Error::Rsa(e) => write!(f, "RSA: {e}"),
            Error::Arithmetic(e) => write!(f, "arithmetic: {e}"),
            Error::Randomness => f.write_str("the operating system's random generator failed"),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            Error::Rsa(e) => Some(e),
            Error::Arithmetic(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<numcrypt_rsa::Error> for Error {
    fn from(e: numcrypt_rsa::Error) -> Self {
        Error::Rsa(e)
    }
}

impl From<numcrypt_limbs::Error> for Error {
    fn from(e: numcrypt_limbs::Error) -> Self {
        Error::Arithmetic(e)
    }
}

impl From<der::Error> for Error {
    fn from(e: der::Error) -> Self {
        Error::InvalidEncoding(e.to_string())
    }
}
