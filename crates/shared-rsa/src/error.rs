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
    /// The partial signatures combined into a value that is not a
    /// signature although every one of them passed its proof (the proofs'
    /// assumption failed, or the key's verification values are wrong).
    InvalidSignature,
    /// Fewer partial signatures than the key's threshold needs.
    TooFewPartials {
        /// `t + 1`, the number of parties that must sign.
        needed: usize,
        /// How many distinct parties' partial signatures were given.
        got: usize,
    },
    /// Fewer than `t + 1` of the partial signatures are good, so they make
    /// no signature. Party numbers are 1-based.
    InvalidPartials {
        /// `t + 1`.
        needed: usize,
        /// How many passed their proof.
        valid: usize,
        /// Parties whose partial signature fails its proof and comes from
        /// them (signed by their identity key, or received over their
        /// authenticated connection): these parties are faulty.
        faulty: Vec<usize>,
        /// Partial signatures that fail their proof but do not show that
        /// they come from the party they name (no valid signature by its
        /// identity key): forged or altered on the way, so nobody is blamed.
        unattributed: Vec<usize>,
        /// Partial signatures without a proof (unverifiable, not faulty)
        /// with which no set of `t + 1` made a signature.
        unverifiable: Vec<usize>,
    },
    /// Another party stopped and said that `party` had failed: its word,
    /// not checked here (the notice is authenticated as coming from `by`,
    /// but what it says about `party` is not).
    Reported {
        /// The party that stopped and sent the notice.
        by: usize,
        /// The party it blamed.
        party: usize,
        /// What it said `party` did.
        what: &'static str,
    },
    /// At the end of key generation, a party computed another public key
    /// (`N`, `e`, verification values, identities) than this one: no share
    /// is written.
    PublicKeyMismatch {
        /// The party whose public key differs from ours.
        party: usize,
    },
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
            Error::InvalidSignature => f.write_str(
                "the combined signature does not verify although every partial signature passed its \
                 proof",
            ),
            Error::TooFewPartials { needed, got } => write!(
                f,
                "{got} partial signature{} given: this key needs {needed} parties to sign",
                if *got == 1 { "" } else { "s" }
            ),
            Error::InvalidPartials {
                needed,
                valid,
                faulty,
                unattributed,
                unverifiable,
            } => {
                write!(
                    f,
                    "{valid} of the partial signatures pass their proof; this key needs {needed}"
                )?;
                if !faulty.is_empty() {
                    write!(
                        f,
                        "; faulty: party {} (a partial signature of theirs fails its proof)",
                        list(faulty)
                    )?;
                }
                if !unattributed.is_empty() {
                    write!(
                        f,
                        "; not blamed: the partial signature{} naming party {} fail{} its proof \
                         but {} not signed by that party (forged or altered)",
                        plural(unattributed),
                        list(unattributed),
                        if unattributed.len() == 1 { "s" } else { "" },
                        if unattributed.len() == 1 { "is" } else { "are" },
                    )?;
                }
                if !unverifiable.is_empty() {
                    write!(
                        f,
                        "; unverifiable (no proof): party {}",
                        list(unverifiable)
                    )?;
                }
                Ok(())
            }
            Error::Reported { by, party, what } => write!(
                f,
                "party {by} stopped, saying that party {party} {what} (party {by}'s word, not \
                 checked here)"
            ),
            Error::PublicKeyMismatch { party } => write!(
                f,
                "party {party} computed another public key than this party's: no share written"
            ),
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

fn list(parties: &[usize]) -> String {
    parties
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(items: &[usize]) -> &'static str {
    if items.len() == 1 { "" } else { "s" }
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
