//! The party configuration file (TOML), in the spirit of the original
//! implementation's: who this party is, where the others are, the keys
//! shared with them, and the key-generation parameters.
//!
//! ```toml
//! index = 2                      # this party, 1-based
//! bits = 2048
//! public_exponent = 65537        # optional (65537)
//! threads = 2                    # optional: lanes of candidates in flight
//! batch = 8                      # optional: candidates per lane per round trip
//! sieve_bound = 700              # optional (largest that fits)
//! trial_division_bound = 131072  # optional (tuned default)
//! timeout_secs = 60              # optional: 1 to 86400
//! listen = "0.0.0.0:7002"        # optional (own address)
//! key_share = "share-2.pem"      # where to write this party's share
//! public_key = "public.pem"      # optional: the RSA public key (SPKI PEM, for verifiers)
//! shared_public_key = "shared-public.pem"  # optional: what `combine` needs, no share in it
//!
//! [[party]]
//! index = 1
//! address = "10.0.0.1:7001"
//! psk = "…64 hex digits…"        # the key shared by parties 1 and 2
//!
//! [[party]]
//! index = 2
//! address = "10.0.0.2:7002"      # no psk in our own entry
//!
//! [[party]]
//! index = 3
//! address = "10.0.0.3:7003"
//! psk = "…64 hex digits…"        # the key shared by parties 2 and 3
//! ```
//!
//! Relative paths are read relative to the configuration file's folder.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use zeroize::Zeroizing;

use crate::Error;
use crate::keygen::KeyGenConfig;
use crate::transport::{Peer, TcpConfig};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileParty {
    index: usize,
    address: String,
    psk: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    index: usize,
    bits: u32,
    public_exponent: Option<u32>,
    threads: Option<usize>,
    batch: Option<usize>,
    sieve_bound: Option<u32>,
    trial_division_bound: Option<u32>,
    timeout_secs: Option<u64>,
    listen: Option<String>,
    key_share: PathBuf,
    public_key: Option<PathBuf>,
    shared_public_key: Option<PathBuf>,
    party: Vec<FileParty>,
}

/// A party's configuration, read from TOML.
pub struct PartyConfig {
    /// Key-generation parameters (the same at every party).
    pub keygen: KeyGenConfig,
    /// How to reach the others.
    pub network: TcpConfig,
    /// Where to write this party's key share.
    pub key_share: PathBuf,
    /// Where to write the RSA public key (SPKI PEM), if anywhere.
    pub public_key: Option<PathBuf>,
    /// Where to write the shared public key ([`SharedPublicKey::to_pem`]:
    /// `N`, `e`, the verification keys and the correction), if anywhere:
    /// whoever combines partial signatures needs it, and no share.
    ///
    /// [`SharedPublicKey::to_pem`]: crate::SharedPublicKey::to_pem
    pub shared_public_key: Option<PathBuf>,
}

fn parse_psk(text: &str, party: usize) -> Result<Zeroizing<[u8; 32]>, Error> {
    let text = Zeroizing::new(text.trim().to_owned());
    let bad = || Error::InvalidConfig(format!("psk of party {party}: expected 64 hex digits"));
    let mut key = Zeroizing::new([0u8; 32]);
    hex::decode_to_slice(text.as_bytes(), &mut *key).map_err(|_| bad())?;
    Ok(key)
}

impl PartyConfig {
    /// Parses a configuration; relative paths are taken relative to `base`.
    pub fn from_toml(text: &str, base: &Path) -> Result<Self, Error> {
        let file: File =
            toml::from_str(text).map_err(|e| Error::InvalidConfig(format!("party config: {e}")))?;
        let n = file.party.len();
        if file.index == 0 || file.index > n {
            return Err(Error::InvalidConfig(format!(
                "index {} does not name one of the {n} [[party]] entries",
                file.index
            )));
        }
        let mut parties: Vec<Option<Peer>> = (0..n).map(|_| None).collect();
        for p in &file.party {
            if p.index == 0 || p.index > n || parties[p.index - 1].is_some() {
                return Err(Error::InvalidConfig(format!(
                    "[[party]] indices must be 1..={n}, each once (got {})",
                    p.index
                )));
            }
            let psk = match (&p.psk, p.index == file.index) {
                (Some(_), true) => {
                    return Err(Error::InvalidConfig(
                        "our own [[party]] entry must not have a psk".into(),
                    ));
                }
                (None, false) => {
                    return Err(Error::InvalidConfig(format!(
                        "party {} has no psk (the key we share with it)",
                        p.index
                    )));
                }
                (Some(s), false) => Some(parse_psk(s, p.index)?),
                (None, true) => None,
            };
            parties[p.index - 1] = Some(Peer {
                address: p.address.clone(),
                psk,
            });
        }
        let parties: Vec<Peer> = parties.into_iter().flatten().collect();
        let timeout_secs = file.timeout_secs.unwrap_or(60);
        if !(1..=crate::MAX_TIMEOUT.as_secs()).contains(&timeout_secs) {
            return Err(Error::InvalidConfig(format!(
                "timeout_secs = {timeout_secs}: from 1 to {}",
                crate::MAX_TIMEOUT.as_secs()
            )));
        }
        let timeout = Duration::from_secs(timeout_secs);
        let mut keygen = KeyGenConfig::new(file.bits);
        if let Some(e) = file.public_exponent {
            keygen.public_exponent = e;
        }
        if let Some(t) = file.threads {
            keygen.threads = t;
        }
        if let Some(b) = file.batch {
            keygen.batch = b;
        }
        keygen.sieve_bound = file.sieve_bound;
        keygen.trial_division_bound = file.trial_division_bound;
        keygen.timeout = timeout;
        let resolve = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        Ok(Self {
            keygen,
            network: TcpConfig {
                index: file.index - 1,
                parties,
                listen: file.listen,
                timeout,
            },
            key_share: resolve(file.key_share),
            public_key: file.public_key.map(resolve),
            shared_public_key: file.shared_public_key.map(resolve),
        })
    }

    /// Reads the configuration file at `path` (at most 1 MiB).
    pub fn from_file(path: &Path) -> Result<Self, Error> {
        use std::io::Read;
        const MAX_LEN: u64 = 1 << 20;
        // Allocated once, so that no copy of the keys in it is left behind
        // by a reallocation.
        let mut bytes = Zeroizing::new(Vec::with_capacity(MAX_LEN as usize + 1));
        std::fs::File::open(path)?
            .take(MAX_LEN + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_LEN {
            return Err(Error::InvalidConfig("larger than 1 MiB".into()));
        }
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| Error::InvalidConfig("not UTF-8 text".into()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_toml(text, base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY_12: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    #[test]
    fn parses_a_full_config() {
        let text = format!(
            "index = 1\nbits = 1024\nthreads = 3\nkey_share = \"s.pem\"\n\
             shared_public_key = \"/keys/shared.pem\"\n\
             [[party]]\nindex = 1\naddress = \"127.0.0.1:7001\"\n\
             [[party]]\nindex = 2\naddress = \"127.0.0.1:7002\"\npsk = \"{KEY_12}\"\n\
             [[party]]\nindex = 3\naddress = \"127.0.0.1:7003\"\npsk = \"{KEY_12}\"\n"
        );
        let c = PartyConfig::from_toml(&text, Path::new("/tmp/x")).unwrap();
        assert_eq!(c.keygen.bits, 1024);
        assert_eq!(c.keygen.threads, 3);
        assert_eq!(c.network.index, 0);
        assert_eq!(c.network.parties.len(), 3);
        assert!(c.network.parties[0].psk.is_none());
        assert_eq!(c.network.parties[1].psk.as_deref().unwrap()[31], 0x1f);
        assert_eq!(c.key_share, Path::new("/tmp/x/s.pem"));
        assert_eq!(c.public_key, None);
        assert_eq!(
            c.shared_public_key.as_deref(),
            Some(Path::new("/keys/shared.pem"))
        );
    }

    #[test]
    fn rejects_bad_configs() {
        let base = Path::new(".");
        for text in [
            "index = 1\nbits = 1024\nkey_share = \"s\"\nparty = []\n".to_owned(),
            "index = 1\nbits = 1024\nkey_share = \"s\"\n[[party]]\nindex = 1\naddress = \"a:1\"\n\
             [[party]]\nindex = 2\naddress = \"b:1\"\npsk = \"zz\"\n"
                .to_owned(),
            format!(
                "index = 1\nbits = 1024\nkey_share = \"s\"\n[[party]]\nindex = 1\naddress = \"a:1\"\n\
                 [[party]]\nindex = 1\naddress = \"b:1\"\npsk = \"{KEY_12}\"\n"
            ),
            "index = 1\nbits = 1024\nkey_share = \"s\"\nunknown = 3\nparty = []\n".to_owned(),
            "not toml at all [".to_owned(),
        ] {
            assert!(PartyConfig::from_toml(&text, base).is_err(), "{text}");
        }
    }
}
