//! The party configuration file (TOML), in the spirit of the original
//! implementation's: who this party is, where the others are and how to
//! trust them, and the key-generation parameters. `numcrypt shared-rsa
//! init` writes one per party from the parties' certificates, pinning
//! each.
//!
//! ```toml
//! index = 2                      # this party, 1-based
//! bits = 2048
//! threshold = 1                  # optional: any threshold + 1 parties sign ((n - 1)/2)
//! public_exponent = 65537        # optional (65537)
//! threads = 2                    # optional: lanes of candidates in flight
//! batch = 64                     # optional: candidates per lane per round trip
//!                                #   (default: chosen from the measured round trip)
//! sieve_bound = 700              # optional (largest that fits)
//! trial_division_bound = 131072  # optional (tuned default)
//! timeout_secs = 60              # optional: 1 to 86400
//! handshake_timeout_secs = 10    # optional: one TLS handshake, 1 to timeout_secs
//! listen = "0.0.0.0:7002"        # optional (own address)
//! key_share = "share.pem"        # where to write this party's share (secret)
//! public_key = "public.pem"      # optional: the RSA public key (SPKI, for openssl)
//!                                #   followed by the shared public key (for combine)
//! certificate = "tls-cert.pem"   # this party's TLS certificate (chain)
//! private_key = "tls-key.pem"    # its key (secret; made on this machine)
//! ca = "ca.pem"                  # optional: trust parties without a pin through this CA
//!
//! [[party]]
//! index = 1
//! address = "10.0.0.1:7001"
//! fingerprint = "…64 hex digits…"  # SHA-256 of its certificate: it alone is party 1
//!                                  #   (optional with a CA, whose certificate must name it)
//!
//! [[party]]
//! index = 2
//! address = "10.0.0.2:7002"
//!
//! [[party]]
//! index = 3
//! address = "10.0.0.3:7003"
//! ```
//!
//! Relative paths are read relative to the configuration file's folder.
//! Everything is checked when the file is read, before any connection:
//! ranges, the parties, the key-generation parameters, the certificate and
//! key (by building the TLS configuration), a way to trust every peer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde::Deserialize;
use zeroize::Zeroizing;

use crate::Error;
use crate::keygen::KeyGenConfig;
use crate::transport::{TlsConfig, TlsPeer};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileParty {
    index: usize,
    address: String,
    fingerprint: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    index: usize,
    bits: u32,
    threshold: Option<usize>,
    public_exponent: Option<u32>,
    threads: Option<usize>,
    batch: Option<usize>,
    sieve_bound: Option<u32>,
    trial_division_bound: Option<u32>,
    timeout_secs: Option<u64>,
    handshake_timeout_secs: Option<u64>,
    listen: Option<String>,
    key_share: PathBuf,
    public_key: Option<PathBuf>,
    certificate: PathBuf,
    private_key: PathBuf,
    ca: Option<PathBuf>,
    party: Vec<FileParty>,
}

/// A party's configuration, read from TOML and checked.
pub struct PartyConfig {
    /// Key-generation parameters (the same at every party).
    pub keygen: KeyGenConfig,
    /// How to reach and trust the others.
    pub network: TlsConfig,
    /// Where to write this party's key share.
    pub key_share: PathBuf,
    /// Where to write the public key, if anywhere:
    /// [`SharedPublicKey::to_public_pem`](crate::SharedPublicKey::to_public_pem),
    /// which `openssl` reads as an RSA public key and `combine` as the
    /// shared public key.
    pub public_key: Option<PathBuf>,
}

/// A pinned fingerprint: 64 hex digits (colons allowed, as `openssl x509
/// -fingerprint -sha256` prints them; an optional `sha256:` prefix).
pub(crate) fn parse_fingerprint(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    let text = text
        .strip_prefix("sha256:")
        .or_else(|| text.strip_prefix("SHA256:"))
        .unwrap_or(text);
    let hex_digits: String = text.chars().filter(|&c| c != ':').collect();
    let mut out = [0u8; 32];
    hex::decode_to_slice(hex_digits, &mut out).ok()?;
    Some(out)
}

/// Reads a file of at most 1 MiB into a buffer allocated once (so that no
/// copy of a key is left behind by a reallocation).
fn read_limited(path: &Path) -> Result<Zeroizing<Vec<u8>>, Error> {
    use std::io::Read;
    const MAX_LEN: u64 = 1 << 20;
    let mut bytes = Zeroizing::new(Vec::with_capacity(MAX_LEN as usize + 1));
    std::fs::File::open(path)
        .map_err(|e| Error::InvalidConfig(format!("{}: {e}", path.display())))?
        .take(MAX_LEN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::InvalidConfig(format!("{}: {e}", path.display())))?;
    if bytes.len() as u64 > MAX_LEN {
        return Err(Error::InvalidConfig(format!(
            "{}: larger than 1 MiB",
            path.display()
        )));
    }
    Ok(bytes)
}

/// How a configuration reads the files it names.
pub type ReadFile<'a> = &'a dyn Fn(&Path) -> Result<Zeroizing<Vec<u8>>, Error>;

fn certificates(path: &Path, read: ReadFile<'_>) -> Result<Vec<CertificateDer<'static>>, Error> {
    let bytes = read(path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::InvalidConfig(format!("{}: {e}", path.display())))?;
    if certs.is_empty() {
        return Err(Error::InvalidConfig(format!(
            "{}: no CERTIFICATE in it",
            path.display()
        )));
    }
    Ok(certs)
}

impl PartyConfig {
    /// Parses and checks a configuration; relative paths are taken
    /// relative to `base`, and the certificate, key and CA files are read
    /// (at most 1 MiB each).
    pub fn from_toml(text: &str, base: &Path) -> Result<Self, Error> {
        Self::from_toml_reading(text, base, &read_limited)
    }

    /// [`from_toml`](Self::from_toml) with the files read by `read` (which
    /// is called only once everything else has been checked).
    pub fn from_toml_reading(text: &str, base: &Path, read: ReadFile<'_>) -> Result<Self, Error> {
        let file: File =
            toml::from_str(text).map_err(|e| Error::InvalidConfig(format!("party config: {e}")))?;
        let n = file.party.len();
        if file.index == 0 || file.index > n {
            return Err(Error::InvalidConfig(format!(
                "index {} does not name one of the {n} [[party]] entries",
                file.index
            )));
        }
        let mut parties: Vec<Option<TlsPeer>> = (0..n).map(|_| None).collect();
        for p in &file.party {
            if p.index == 0 || p.index > n || parties[p.index - 1].is_some() {
                return Err(Error::InvalidConfig(format!(
                    "[[party]] indices must be 1..={n}, each once (got {})",
                    p.index
                )));
            }
            let fingerprint = match &p.fingerprint {
                Some(f) => Some(parse_fingerprint(f).ok_or_else(|| {
                    Error::InvalidConfig(format!(
                        "fingerprint of party {}: expected 64 hex digits (SHA-256)",
                        p.index
                    ))
                })?),
                None => None,
            };
            parties[p.index - 1] = Some(TlsPeer {
                address: p.address.clone(),
                fingerprint,
            });
        }
        let parties: Vec<TlsPeer> = parties.into_iter().flatten().collect();
        let secs = |name: &str, v: Option<u64>, default: u64, max: u64| {
            let v = v.unwrap_or(default);
            if (1..=max).contains(&v) {
                Ok(Duration::from_secs(v))
            } else {
                Err(Error::InvalidConfig(format!(
                    "{name} = {v}: from 1 to {max}"
                )))
            }
        };
        let timeout = secs(
            "timeout_secs",
            file.timeout_secs,
            60,
            crate::MAX_TIMEOUT.as_secs(),
        )?;
        let handshake_timeout = secs(
            "handshake_timeout_secs",
            file.handshake_timeout_secs,
            10.min(timeout.as_secs()),
            timeout.as_secs(),
        )?;
        let mut keygen = KeyGenConfig::new(file.bits);
        keygen.threshold = file.threshold;
        if let Some(e) = file.public_exponent {
            keygen.public_exponent = e;
        }
        if let Some(t) = file.threads {
            keygen.threads = t;
        }
        keygen.batch = file.batch;
        keygen.sieve_bound = file.sieve_bound;
        keygen.trial_division_bound = file.trial_division_bound;
        keygen.timeout = timeout;
        keygen.check(n)?;
        let resolve = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        let certificate = certificates(&resolve(file.certificate), read)?;
        let key_path = resolve(file.private_key);
        let key_bytes = read(&key_path)?;
        let private_key = PrivateKeyDer::from_pem_slice(&key_bytes)
            .map_err(|e| Error::InvalidConfig(format!("{}: {e}", key_path.display())))?;
        let ca = match file.ca {
            Some(p) => {
                let path = resolve(p);
                let mut certs = certificates(&path, read)?;
                if certs.len() != 1 {
                    return Err(Error::InvalidConfig(format!(
                        "{}: one CA certificate expected",
                        path.display()
                    )));
                }
                certs.pop()
            }
            None => None,
        };
        let network = TlsConfig {
            index: file.index - 1,
            parties,
            certificate,
            private_key,
            ca,
            listen: file.listen,
            timeout,
            handshake_timeout,
        };
        network.validate()?;
        Ok(Self {
            keygen,
            network,
            key_share: resolve(file.key_share),
            public_key: file.public_key.map(resolve),
        })
    }

    /// Reads the configuration file at `path` (at most 1 MiB).
    pub fn from_file(path: &Path) -> Result<Self, Error> {
        let bytes = read_limited(path)?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| Error::InvalidConfig("not UTF-8 text".into()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_toml(text, base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_in_either_spelling() {
        let hex = "00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1a:1b:1c:1d:1e:1f";
        let f = parse_fingerprint(hex).unwrap();
        assert_eq!(f[10], 10);
        assert_eq!(
            parse_fingerprint(&format!("sha256:{}", hex.replace(':', ""))),
            Some(f)
        );
        assert_eq!(parse_fingerprint("00"), None);
        assert_eq!(parse_fingerprint("zz"), None);
    }

    #[test]
    fn rejects_bad_configs_before_reading_any_file() {
        let base = Path::new("/nonexistent");
        for text in [
            "index = 1\nbits = 1024\nkey_share = \"s\"\ncertificate = \"c\"\nprivate_key = \"k\"\nparty = []\n",
            "index = 1\nbits = 1024\nkey_share = \"s\"\ncertificate = \"c\"\nprivate_key = \"k\"\nunknown = 3\nparty = []\n",
            "not toml at all [",
        ] {
            assert!(PartyConfig::from_toml(text, base).is_err(), "{text}");
        }
    }
}
