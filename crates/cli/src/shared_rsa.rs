//! `numcrypt shared-rsa …`: shared RSA key generation among several
//! parties (Boneh–Franklin) and threshold signing.
//!
//! Exit status: 0 on success, 1 when the partial signatures make no
//! signature (fewer than threshold + 1 pass their proofs; the parties whose
//! own partial signature fails are named), 2 on a usage, input or protocol
//! error (one line on standard error).

use std::io::IsTerminal;
use std::net::TcpListener;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};
use numcrypt_rsa::HashAlg;
use numcrypt_shared_rsa::{
    Error, IdentityKey, Improvements, KeyGenConfig, KeyGenOutput, KeyGenProgress, PartialSignature,
    PartyConfig, PartyIdentity, SharedKeyShare, SharedPublicKey, TlsPeer, TlsTransport,
    certificate_from_pem, combine_checked, encode_pkcs1v15, encode_pkcs1v15_prehashed,
    encode_pss_prehashed, fingerprint, generate_key, generate_key_with_progress, names_party,
    sign_jointly,
};

use crate::files;
use crate::output::{Output, write_all, write_public};
use crate::proxy::DelayProxy;

#[derive(Subcommand)]
pub enum SharedRsaCommand {
    /// Makes this party's identity, on its own machine: a TLS key
    /// (`tls-key.pem`, secret, mode 0600: it never leaves this machine)
    /// and a self-signed certificate (`tls-cert.pem`, for whoever runs
    /// `init`), and prints the certificate's fingerprint to compare.
    Identity {
        /// This party's number (1-based).
        #[arg(long)]
        index: usize,
        /// The folder to write `tls-key.pem` and `tls-cert.pem` into.
        #[arg(long)]
        out: PathBuf,
        /// Replace existing files.
        #[arg(long)]
        force: bool,
    },
    /// Assembles a deployment from the parties' certificates (public
    /// files only): writes `party-<i>/party.toml` for each party, pinning
    /// every party's certificate, with paths relative to that folder (it
    /// goes beside the party's `tls-key.pem` and `tls-cert.pem`).
    Init(InitArgs),
    /// Runs every party on this machine over loopback (mutual TLS):
    /// generates a shared key, prints what it took, then signs a message
    /// jointly and verifies the signature under the ordinary RSA public key.
    Demo {
        /// Number of parties (at least 3).
        #[arg(long, default_value_t = 3)]
        parties: usize,
        /// Any threshold + 1 parties sign (default: (parties − 1)/2).
        #[arg(long)]
        threshold: Option<usize>,
        /// Delay every byte between parties by this many milliseconds each
        /// way (a proxy in front of every party), to see a wide-area
        /// network's effect.
        #[arg(long, default_value_t = 0)]
        delay_ms: u64,
        /// Key size in bits (even, 512 to 8192).
        #[arg(long, default_value_t = 2048)]
        bits: u32,
        /// Key generations to run; with more than one, a summary with
        /// medians follows.
        #[arg(long, default_value_t = 1)]
        runs: usize,
        /// Write the last run's key shares (`share-1.pem`…) and `public.pem`
        /// here, to try `sign` and `combine` with. Demo keys only: every
        /// share on one machine is the whole key.
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Replace existing files in --out-dir.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        tuning: Tuning,
    },
    /// Runs one party of a real deployment, as its TOML configuration
    /// says (as `init` writes it; the crate documentation has the format);
    /// writes its key share (mode 0600, atomically) and, if configured, the
    /// public key (what `openssl` and `combine` read).
    Party {
        /// The party's configuration file.
        #[arg(long)]
        config: PathBuf,
        /// Replace an existing key share (refused otherwise, before the
        /// protocol starts).
        #[arg(long)]
        force: bool,
    },
    /// Makes this party's partial signature on a message (a PEM file for
    /// `combine`), with a proof that it used this party's share, signed by
    /// this party's identity key. Any threshold + 1 parties' partial
    /// signatures make a signature.
    Sign {
        /// This party's key share.
        #[arg(long)]
        key: PathBuf,
        /// This party's identity key (`tls-key.pem`), which signs the
        /// partial signature so that `combine` can attribute it (needed
        /// when the key records the parties' identities, as keys made by
        /// `party` do).
        #[arg(long)]
        identity_key: Option<PathBuf>,
        #[command(flatten)]
        message: MessageArgs,
    },
    /// Combines the partial signatures of any threshold + 1 parties into an
    /// ordinary RSA signature (raw bytes, as `openssl dgst -sign` writes),
    /// and checks it; among more, it finds threshold + 1 good ones, and it
    /// names a party whose own partial signature fails its proof.
    Combine {
        /// A party's `public.pem` (the file its `public_key` setting names),
        /// or any party's key share.
        #[arg(long)]
        key: PathBuf,
        #[command(flatten)]
        message: MessageArgs,
        /// The partial signatures, of distinct parties.
        #[arg(required = true)]
        partials: Vec<PathBuf>,
    },
}

/// Key-generation knobs shared by `demo` (the `party` command reads them
/// from its configuration file).
#[derive(Args)]
pub struct Tuning {
    /// The public exponent: odd, with no prime factor up to the number of
    /// parties (threshold signing needs it prime to n!).
    #[arg(long, default_value_t = 65537)]
    exponent: u32,
    /// Lanes (threads) of candidates per party.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Candidates per lane per round trip (default: chosen by party 1 from
    /// the measured round trip, 32 on loopback).
    #[arg(long)]
    batch: Option<usize>,
    /// Distributed sieving bound (default: the largest that fits).
    #[arg(long)]
    sieve_bound: Option<u32>,
    /// Trial-division bound for N (default: tuned by key size).
    #[arg(long)]
    trial_division_bound: Option<u32>,
    /// Switch off distributed sieving.
    #[arg(long)]
    no_distributed_sieving: bool,
    /// Switch off multithreading (one lane, one candidate in flight).
    #[arg(long)]
    no_multithreading: bool,
    /// Switch off load balancing of the biprimality test.
    #[arg(long)]
    no_load_balancing: bool,
    /// Switch off parallel trial division.
    #[arg(long)]
    no_parallel_trial_division: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Scheme {
    /// RSASSA-PKCS1-v1_5 (the name `numcrypt rsa` uses; `pkcs1` also
    /// accepted).
    #[value(alias = "pkcs1")]
    Pkcs1v15,
    /// RSASSA-PSS (MGF1 with the same hash); every party needs the same --salt.
    Pss,
}

/// The message and how it is encoded (the same at every party), and where
/// the result goes.
#[derive(Args)]
pub struct MessageArgs {
    /// The message file (`-`: standard input).
    #[arg(long = "in")]
    input: PathBuf,
    /// The signature scheme.
    #[arg(long, value_enum, default_value_t = Scheme::Pkcs1v15)]
    scheme: Scheme,
    /// The hash: sha224, sha256, sha384 or sha512.
    #[arg(long, default_value = "sha256")]
    hash: String,
    /// PSS only: the salt, in hex, chosen once by the requester and given
    /// to every party (e.g. `openssl rand -hex 32`).
    #[arg(long)]
    salt: Option<String>,
    /// Write the result (`sign`: the partial signature; `combine`: the
    /// signature) here instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

impl MessageArgs {
    /// The encoded message representative for `public`.
    fn encode(&self, public: &SharedPublicKey) -> Result<Vec<u8>, String> {
        let hash: HashAlg = self.hash.parse().map_err(|e| format!("--hash: {e}"))?;
        let digest = files::digest_file(hash, &self.input)?;
        match (self.scheme, &self.salt) {
            (Scheme::Pkcs1v15, None) => {
                encode_pkcs1v15_prehashed(public, hash, &digest).map_err(|e| e.to_string())
            }
            (Scheme::Pkcs1v15, Some(_)) => Err("--salt is for --scheme pss only".into()),
            (Scheme::Pss, None) => {
                Err("--scheme pss needs --salt: the same hex salt at every party".into())
            }
            (Scheme::Pss, Some(hex)) => {
                let salt = parse_hex(hex).ok_or("--salt: expected hex digits")?;
                encode_pss_prehashed(public, hash, &digest, &salt).map_err(|e| e.to_string())
            }
        }
    }
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    hex::decode(text.trim()).ok()
}

pub fn run(command: SharedRsaCommand) -> ExitCode {
    match command {
        SharedRsaCommand::Identity { index, out, force } => {
            files::exit(identity(index, &out, force))
        }
        SharedRsaCommand::Init(args) => files::exit(init(&args)),
        SharedRsaCommand::Demo {
            parties,
            threshold,
            delay_ms,
            bits,
            runs,
            out_dir,
            force,
            tuning,
        } => files::exit(demo(
            &DemoArgs {
                n: parties,
                threshold,
                delay: Duration::from_millis(delay_ms),
                bits,
                runs: runs.max(1),
            },
            out_dir.as_deref(),
            force,
            &tuning,
        )),
        SharedRsaCommand::Party { config, force } => files::exit(party(&config, force)),
        SharedRsaCommand::Sign {
            key,
            identity_key,
            message,
        } => files::exit(sign(&key, identity_key.as_deref(), &message)),
        SharedRsaCommand::Combine {
            key,
            message,
            partials,
        } => match combine_files(&key, &message, &partials) {
            Ok(()) => ExitCode::SUCCESS,
            Err(Failure::Invalid(message)) => {
                eprintln!("numcrypt: {message}");
                ExitCode::from(1)
            }
            Err(Failure::Input(message)) => files::fail(&message),
        },
    }
}

/// Prints key-generation progress on standard error: one line rewritten in
/// place on a terminal, else a line every [`ProgressPrinter::LOG_EVERY`].
struct ProgressPrinter {
    label: String,
    terminal: bool,
    last_line: Option<Duration>,
}

impl ProgressPrinter {
    /// How often reports reach the library's callback.
    const INTERVAL: Duration = Duration::from_millis(500);
    /// How often a line is printed when standard error is not a terminal.
    const LOG_EVERY: Duration = Duration::from_secs(5);

    fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            terminal: std::io::stderr().is_terminal(),
            last_line: None,
        }
    }

    fn print(&mut self, progress: &KeyGenProgress) -> ControlFlow<()> {
        let (stats, found) = match progress {
            KeyGenProgress::Searching(s) => (s, false),
            KeyGenProgress::Found(s) => (s, true),
            _ => return ControlFlow::Continue(()),
        };
        let counts = format!(
            "{:.1} s, {} candidates, {} passed trial division, {} biprimality tests, {:.2} MB sent",
            stats.elapsed.as_secs_f64(),
            stats.candidates,
            stats.trial_division_survivors,
            stats.biprimality_tests,
            stats.bytes_sent as f64 / 1e6
        );
        let label = &self.label;
        if found {
            let end = if self.terminal { "\r\x1b[K" } else { "" };
            eprintln!("{end}{label}: biprime found ({counts}); computing the shares of d");
        } else if self.last_line.is_none() {
            eprintln!("{label}: all parties agree on the parameters; searching for a biprime");
            self.last_line = Some(stats.elapsed);
        } else if self.terminal {
            eprint!("\r\x1b[K{label}: {counts}");
        } else if self
            .last_line
            .is_some_and(|t| stats.elapsed >= t + Self::LOG_EVERY)
        {
            eprintln!("{label}: {counts}");
            self.last_line = Some(stats.elapsed);
        }
        ControlFlow::Continue(())
    }
}

fn keygen_config(bits: u32, threshold: Option<usize>, tuning: &Tuning) -> KeyGenConfig {
    let mut c = KeyGenConfig::new(bits);
    c.threshold = threshold;
    c.progress_interval = ProgressPrinter::INTERVAL;
    c.public_exponent = tuning.exponent;
    c.threads = tuning.threads;
    c.batch = tuning.batch;
    c.sieve_bound = tuning.sieve_bound;
    c.trial_division_bound = tuning.trial_division_bound;
    c.improvements = Improvements {
        distributed_sieving: !tuning.no_distributed_sieving,
        multithreading: !tuning.no_multithreading,
        load_balancing: !tuning.no_load_balancing,
        parallel_trial_division: !tuning.no_parallel_trial_division,
    };
    c
}

/// Each party's TLS configuration and listener, and the proxies in front
/// of them.
type Loopback = (
    Vec<(numcrypt_shared_rsa::TlsConfig, TcpListener)>,
    Vec<DelayProxy>,
);

/// `n` parties on loopback, each with a fresh identity of its own, pinned
/// by the others: each party's listener and its configuration. With a
/// `delay`, every party's address is a proxy in front of its listener that
/// holds each byte that long in each direction (the proxies, returned too,
/// run until dropped).
fn loopback(n: usize, delay: Duration) -> Result<Loopback, String> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("listening on loopback: {e}"))?;
    let mut addresses = Vec::with_capacity(n);
    let mut proxies = Vec::new();
    for l in &listeners {
        let real = l.local_addr().map_err(|e| e.to_string())?;
        if delay.is_zero() {
            addresses.push(real.to_string());
        } else {
            let proxy = DelayProxy::start(real, delay).map_err(|e| format!("proxy: {e}"))?;
            addresses.push(proxy.address().to_string());
            proxies.push(proxy);
        }
    }
    let identities = (0..n)
        .map(PartyIdentity::generate)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let peers: Vec<TlsPeer> = addresses
        .into_iter()
        .zip(&identities)
        .map(|(address, id)| TlsPeer {
            address,
            fingerprint: Some(id.fingerprint),
        })
        .collect();
    let configs = listeners
        .into_iter()
        .zip(&identities)
        .map(|(l, id)| {
            id.tls_config(peers.clone(), Duration::from_secs(120))
                .map(|c| (c, l))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    Ok((configs, proxies))
}

/// One party's key generation, joint signature, and signing time.
type PartyRun = (KeyGenOutput, Result<Vec<u8>, Error>, Duration);

struct DemoRun {
    outputs: Vec<KeyGenOutput>,
    signature_ok: Result<(), String>,
    keygen_time: Duration,
    sign_time: Duration,
}

/// One key generation and joint signature among `n` parties on loopback.
fn demo_run(n: usize, delay: Duration, config: &KeyGenConfig) -> Result<DemoRun, String> {
    let (setups, _proxies) = loopback(n, delay)?;
    let results: Vec<Result<PartyRun, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = setups
            .into_iter()
            .map(|(tcp, listener)| {
                s.spawn(move || {
                    let transport = TlsTransport::connect_with_listener(&tcp, listener)
                        .map_err(|e| format!("party {}: {e}", tcp.index + 1))?;
                    let mut rng = files::rng()?;
                    // The first party speaks for all: they report the same counts.
                    let out = if tcp.index == 0 {
                        let mut report = ProgressPrinter::new("demo");
                        generate_key_with_progress(&transport, config, &mut rng, &mut |p| {
                            report.print(p)
                        })
                    } else {
                        generate_key(&transport, config, &mut rng)
                    }
                    .map_err(|e| format!("party {}: {e}", tcp.index + 1))?;
                    let start = Instant::now();
                    let public = out.share.public_key();
                    let em = encode_pkcs1v15(public, HashAlg::Sha256, DEMO_MESSAGE)
                        .map_err(|e| e.to_string())?;
                    let sig = sign_jointly(
                        &mut rng,
                        &transport,
                        &out.share,
                        &em,
                        Duration::from_secs(60),
                    );
                    Ok((out, sig, start.elapsed()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a party panicked".into())))
            .collect()
    });
    let mut outputs = Vec::with_capacity(n);
    let mut signatures = Vec::with_capacity(n);
    let mut sign_time = Duration::ZERO;
    for r in results {
        let (out, sig, t) = r?;
        outputs.push(out);
        signatures.push(sig);
        sign_time = sign_time.max(t);
    }
    let keygen_time = outputs
        .iter()
        .map(|o| o.stats.elapsed)
        .max()
        .unwrap_or_default();
    let public = outputs[0].share.public_key().clone();
    let signature_ok = match &signatures[0] {
        Ok(sig) if signatures.iter().all(|s| s.as_ref().ok() == Some(sig)) => {
            verify_demo_signature(&public, sig)
        }
        Ok(_) => Err("the parties returned different signatures".into()),
        Err(e) => Err(e.to_string()),
    };
    Ok(DemoRun {
        outputs,
        signature_ok,
        keygen_time,
        sign_time,
    })
}

const DEMO_MESSAGE: &[u8] = b"numcrypt shared-rsa demo";

/// Verifies with numcrypt-rsa, which reads keys from 1024 bits; smaller
/// (test-size) keys are checked as `sig^e mod N = EM`.
fn verify_demo_signature(public: &SharedPublicKey, sig: &[u8]) -> Result<(), String> {
    if public.bits() >= 1024 {
        let key = public.rsa_public_key().map_err(|e| e.to_string())?;
        return key
            .verify_pkcs1v15(HashAlg::Sha256, DEMO_MESSAGE, sig)
            .map_err(|e| format!("numcrypt-rsa rejects the signature: {e}"));
    }
    use numcrypt_limbs::{BoxedUint, MontyParams};
    let em = encode_pkcs1v15(public, HashAlg::Sha256, DEMO_MESSAGE).map_err(|e| e.to_string())?;
    let params = MontyParams::new(public.n().clone()).map_err(|e| e.to_string())?;
    let s = params.to_monty(&BoxedUint::from_be_slice_auto(sig));
    let e = BoxedUint::from_u64(u64::from(public.e()), 1);
    if params.from_monty(&params.pow_vartime(&s, &e)) == BoxedUint::from_be_slice_auto(&em) {
        Ok(())
    } else {
        Err("the signature does not verify".into())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// What `demo` runs.
struct DemoArgs {
    n: usize,
    threshold: Option<usize>,
    delay: Duration,
    bits: u32,
    runs: usize,
}

fn demo(
    args: &DemoArgs,
    out_dir: Option<&Path>,
    force: bool,
    tuning: &Tuning,
) -> Result<(), String> {
    let DemoArgs {
        n,
        threshold,
        delay,
        bits,
        runs,
    } = *args;
    let config = keygen_config(bits, threshold, tuning);
    let mut key_files = match out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let shares: Vec<PathBuf> = (1..=n)
                .map(|i| dir.join(format!("share-{i}.pem")))
                .collect();
            Some(KeyOutputs::open(
                &shares,
                Some(&dir.join("public.pem")),
                force,
            )?)
        }
        None => None,
    };
    let imp = config.improvements;
    let network = match delay.as_millis() {
        0 => "loopback TLS".to_string(),
        ms => format!("loopback TLS through proxies delaying {ms} ms each way"),
    };
    outln!(
        "shared RSA: {n} parties, {bits}-bit key, e = {}, {network}; threads {}, batch {}; \
         sieving {}, multithreading {}, load balancing {}, parallel trial division {}",
        config.public_exponent,
        config.threads,
        config
            .batch
            .map_or("from the round trip".to_string(), |b| b.to_string()),
        on_off(imp.distributed_sieving),
        on_off(imp.multithreading),
        on_off(imp.load_balancing),
        on_off(imp.parallel_trial_division),
    );
    let mut times = Vec::new();
    let mut per_candidate = Vec::new();
    let mut candidates = Vec::new();
    let mut tests = Vec::new();
    let mut traffic = Vec::new();
    let mut rounds = Vec::new();
    for run in 1..=runs {
        let r = demo_run(n, delay, &config)?;
        let s = &r.outputs[0].stats;
        let public = r.outputs[0].share.public_key();
        if run == 1 {
            outln!(
                "sieve bound {} (M excludes primes up to {n}), trial division to {}",
                s.sieve_bound,
                s.trial_division_bound
            );
        }
        let bytes: Vec<u64> = r.outputs.iter().map(|o| o.stats.bytes_sent).collect();
        let mean_bytes = bytes.iter().sum::<u64>() as f64 / n as f64;
        outln!(
            "run {run}: {:.2} s, {} rounds (batch {}), {} candidates ({:.3} ms each), {} passed \
             trial division, {} biprimality tests ({} to the end), sent per party {} (mean {:.2} MB)",
            r.keygen_time.as_secs_f64(),
            s.rounds,
            s.batch,
            s.candidates,
            r.keygen_time.as_secs_f64() * 1e3 / s.candidates.max(1) as f64,
            s.trial_division_survivors,
            s.biprimality_tests,
            s.full_tests,
            bytes
                .iter()
                .map(|b| format!("{:.2} MB", *b as f64 / 1e6))
                .collect::<Vec<_>>()
                .join(" / "),
            mean_bytes / 1e6,
        );
        if run == 1 {
            outln!(
                "public key: N = {:#x}…  ({} bits), e = {}; any {} of the {n} parties sign",
                TruncatedHex(public.n()),
                public.bits(),
                public.e(),
                public.threshold() + 1
            );
        }
        match &r.signature_ok {
            Ok(()) => outln!(
                "  joint PKCS#1 v1.5 signature on {:?}: {:.1} ms, verified under (N, e)",
                String::from_utf8_lossy(DEMO_MESSAGE),
                r.sign_time.as_secs_f64() * 1e3
            ),
            Err(e) => return Err(format!("joint signature: {e}")),
        }
        if run == runs
            && let (Some(files), Some(dir)) = (key_files.take(), out_dir)
        {
            files.write(&r.outputs.iter().map(|o| &o.share).collect::<Vec<_>>())?;
            outln!("shares and public.pem written to {}", dir.display());
        }
        times.push(r.keygen_time.as_secs_f64());
        per_candidate.push(r.keygen_time.as_secs_f64() * 1e3 / s.candidates.max(1) as f64);
        candidates.push(s.candidates as f64);
        tests.push(s.biprimality_tests as f64);
        traffic.push(mean_bytes);
        rounds.push(s.rounds as f64);
    }
    if runs > 1 {
        outln!(
            "median of {runs}: {:.2} s, {:.0} rounds, {:.0} candidates, {:.3} ms per candidate, \
             {:.0} biprimality tests, {:.2} MB sent per party (mean time {:.2} s)",
            median(times.clone()),
            median(rounds),
            median(candidates),
            median(per_candidate),
            median(tests),
            median(traffic) / 1e6,
            times.iter().sum::<f64>() / runs as f64
        );
    }
    Ok(())
}

/// The files a key generation writes: shares, and the public key (the SPKI
/// that verifiers read, then the shared public key that `combine` reads).
/// Opened before the generation, so that an existing share is refused
/// before any work.
struct KeyOutputs {
    shares: Vec<Output>,
    public: Option<Output>,
}

impl KeyOutputs {
    fn open(shares: &[PathBuf], public: Option<&Path>, force: bool) -> Result<Self, String> {
        if let Some(p) = public
            && shares.iter().any(|s| s == p)
        {
            return Err(format!("{}: named for two outputs", p.display()));
        }
        let shares = shares
            .iter()
            .map(|p| Output::secret(Some(p), force))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            shares,
            public: public.map(|p| Output::public(Some(p))).transpose()?,
        })
    }

    /// Writes `shares` (one per share output) and their public key.
    fn write(self, shares: &[&SharedKeyShare]) -> Result<(), String> {
        for (out, share) in self.shares.into_iter().zip(shares) {
            write_all(out, share.to_pem().map_err(|e| e.to_string())?.as_bytes())?;
        }
        if let Some(out) = self.public {
            let pem = shares[0]
                .public_key()
                .to_public_pem()
                .map_err(|e| e.to_string())?;
            write_all(out, pem.as_bytes())?;
        }
        Ok(())
    }
}

/// `init`'s arguments: the parties' certificates, their network layout
/// and the key size.
#[derive(clap::Args)]
pub struct InitArgs {
    /// Any threshold + 1 parties sign (default: (parties − 1)/2, the
    /// largest; at least 1, and parties >= 2·threshold + 1).
    #[arg(long)]
    pub threshold: Option<usize>,
    /// The host every party listens on (each on a port of its own), or
    /// one host per party, comma-separated, in party order.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Party i listens on port base-port + i.
    #[arg(long)]
    pub base_port: u16,
    /// Key size in bits (even, 512 to 8192).
    #[arg(long, default_value_t = 2048)]
    pub bits: u32,
    /// The folder to write `party-<i>/party.toml` into.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace existing files.
    #[arg(long)]
    pub force: bool,
    /// Each party's certificate (the `tls-cert.pem` its `identity` made),
    /// in party order: 3 to 64 of them.
    #[arg(required = true)]
    pub certificates: Vec<PathBuf>,
}

fn identity(index: usize, out: &Path, force: bool) -> Result<(), String> {
    if !(1..=numcrypt_shared_rsa::MAX_PARTIES).contains(&index) {
        return Err(format!(
            "--index {index}: from 1 to {}",
            numcrypt_shared_rsa::MAX_PARTIES
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let (key_path, cert_path) = (out.join("tls-key.pem"), out.join("tls-cert.pem"));
    // Both are opened (and refused if they exist) before either is written.
    let key = Output::secret(Some(&key_path), force)?;
    let cert = match force {
        true => Output::public(Some(&cert_path))?,
        false => Output::public_new(Some(&cert_path))?,
    };
    let me = PartyIdentity::generate(index - 1).map_err(|e| e.to_string())?;
    write_all(key, me.private_key_pem.as_bytes())?;
    write_all(cert, me.certificate_pem.as_bytes())?;
    outln!(
        "party {index}: {} (secret, mode 0600; it stays on this machine) and {} (for whoever \
         runs init); certificate SHA-256 {}",
        key_path.display(),
        cert_path.display(),
        colon_hex(&me.fingerprint)
    );
    Ok(())
}

/// `aa:bb:…`, as `openssl x509 -fingerprint -sha256` prints a fingerprint.
fn colon_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn init(args: &InitArgs) -> Result<(), String> {
    let n = args.certificates.len();
    // The same checks the parties make, before anything is written.
    let mut keygen = KeyGenConfig::new(args.bits);
    keygen.threshold = args.threshold;
    keygen.check(n).map_err(|e| e.to_string())?;
    if usize::from(args.base_port) + n > usize::from(u16::MAX) {
        return Err(format!(
            "--base-port {}: ports up to {} needed",
            args.base_port,
            usize::from(args.base_port) + n
        ));
    }
    let hosts: Vec<&str> = args.host.split(',').map(str::trim).collect();
    if hosts
        .iter()
        .any(|h| h.is_empty() || h.contains(char::is_whitespace))
        || !(hosts.len() == 1 || hosts.len() == n)
    {
        return Err(format!(
            "--host {:?}: a host name or address, or {n} of them comma-separated",
            args.host
        ));
    }
    // Party i (1-based) listens on its host, port base-port + i.
    let address = |i: usize| {
        let host = hosts[(i - 1) % hosts.len()];
        let port = usize::from(args.base_port) + i;
        if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        }
    };
    // Each certificate must be its party's, and each party distinct.
    let mut fingerprints: Vec<[u8; 32]> = Vec::with_capacity(n);
    for (i, path) in args.certificates.iter().enumerate() {
        let text = files::read_text(path)?;
        let cert = certificate_from_pem(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if !names_party(&cert, i) {
            return Err(format!(
                "{}: not party {}'s certificate (the {} given must be made by `identity --index \
                 {}`)",
                path.display(),
                i + 1,
                ordinal(i + 1),
                i + 1
            ));
        }
        let f = fingerprint(&cert);
        if let Some(j) = fingerprints.iter().position(|g| *g == f) {
            return Err(format!(
                "{}: the same certificate as party {}'s",
                path.display(),
                j + 1
            ));
        }
        fingerprints.push(f);
    }
    let threshold = args.threshold.unwrap_or((n - 1) / 2);
    // Every output is opened (and refused if it exists) before any is written.
    let mut outputs = Vec::new();
    for i in 1..=n {
        let dir = args.out.join(format!("party-{i}"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join("party.toml");
        outputs.push(match args.force {
            true => Output::public(Some(&path))?,
            false => Output::public_new(Some(&path))?,
        });
    }
    for (i, config) in outputs.into_iter().enumerate() {
        let mut toml = format!(
            "# Party {} of {n}, written by `numcrypt shared-rsa init`. Beside this file: this\n\
             # party's tls-key.pem (secret) and tls-cert.pem, from `numcrypt shared-rsa identity`.\n\
             # Run `numcrypt shared-rsa party --config party.toml`; it writes share.pem (secret)\n\
             # and public.pem. Paths are relative to this file's folder.\n\
             index = {}\nbits = {}\nthreshold = {threshold}\n\
             key_share = \"share.pem\"\npublic_key = \"public.pem\"\n\
             certificate = \"tls-cert.pem\"\nprivate_key = \"tls-key.pem\"\n",
            i + 1,
            i + 1,
            args.bits,
        );
        for (j, f) in fingerprints.iter().enumerate() {
            toml += &format!(
                "\n[[party]]\nindex = {}\naddress = \"{}\"\nfingerprint = \"{}\"\n",
                j + 1,
                address(j + 1),
                hex::encode(f)
            );
        }
        write_all(config, toml.as_bytes())?;
    }
    outln!(
        "{n} parties (any {} sign): {}/party-<i>/party.toml, each to go beside party i's \
         tls-key.pem and tls-cert.pem; party 1 listens on {}, party {n} on {}. Each party \
         should check the fingerprints its file pins:",
        threshold + 1,
        args.out.display(),
        address(1),
        address(n)
    );
    for (i, f) in fingerprints.iter().enumerate() {
        outln!("  party {}: {}", i + 1, colon_hex(f));
    }
    Ok(())
}

fn ordinal(i: usize) -> String {
    let suffix = match (i % 10, i % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{i}{suffix}")
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// The first 16 hex digits of a number, for display.
struct TruncatedHex<'a>(&'a numcrypt_limbs::BoxedUint);

impl std::fmt::LowerHex for TruncatedHex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let full = format!("{:x}", self.0);
        f.write_str(full.get(..16).unwrap_or(&full))
    }
}

fn party(path: &Path, force: bool) -> Result<(), String> {
    let mut config =
        PartyConfig::from_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    config.keygen.progress_interval = ProgressPrinter::INTERVAL;
    let outputs = KeyOutputs::open(
        std::slice::from_ref(&config.key_share),
        config.public_key.as_deref(),
        force,
    )?;
    let me = config.network.index + 1;
    eprintln!(
        "party {me} of {}: connecting…",
        config.network.parties.len()
    );
    let transport = TlsTransport::connect(&config.network).map_err(|e| e.to_string())?;
    let rejected = transport.rejected_connections();
    eprintln!(
        "party {me}: connected{}; generating a {}-bit key",
        match rejected {
            0 => String::new(),
            r => format!(
                " ({r} connection{} from strangers dropped)",
                if r == 1 { "" } else { "s" }
            ),
        },
        config.keygen.bits
    );
    let mut rng = files::rng()?;
    let mut report = ProgressPrinter::new(format!("party {me}"));
    let out = generate_key_with_progress(&transport, &config.keygen, &mut rng, &mut |p| {
        report.print(p)
    })
    .map_err(|e| e.to_string())?;
    outputs.write(&[&out.share])?;
    let s = &out.stats;
    outln!(
        "party {me}: {}-bit shared key in {:.2} s ({} rounds, {} candidates, {} biprimality \
         tests, {:.2} MB sent); any {} parties sign; share written to {}",
        out.share.public_key().bits(),
        s.elapsed.as_secs_f64(),
        s.rounds,
        s.candidates,
        s.biprimality_tests,
        s.bytes_sent as f64 / 1e6,
        out.share.public_key().threshold() + 1,
        config.key_share.display()
    );
    drop(transport);
    Ok(())
}

fn sign(key: &Path, identity_key: Option<&Path>, message: &MessageArgs) -> Result<(), String> {
    let text = files::read_text(key)?;
    let share = SharedKeyShare::from_pem(&text).map_err(|e| format!("{}: {e}", key.display()))?;
    let public = share.public_key();
    let identity = match identity_key {
        Some(path) => {
            let text = files::read_text(path)?;
            Some(IdentityKey::from_pem(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None if public.identities().is_some() => {
            return Err(
                "this key records each party's identity: --identity-key (this party's \
                 tls-key.pem) signs the partial signature, so that combine can attribute it"
                    .into(),
            );
        }
        None => None,
    };
    let em = message.encode(public)?;
    let mut rng = files::rng()?;
    let mut partial = share
        .sign_partial(&mut rng, &em)
        .map_err(|e| e.to_string())?;
    if let Some(identity) = &identity {
        partial
            .sign_identity(public, identity)
            .map_err(|e| format!("--identity-key: {e}"))?;
    }
    let pem = partial.to_pem().map_err(|e| e.to_string())?;
    write_public(message.out.as_deref(), pem.as_bytes())
}

enum Failure {
    Invalid(String),
    Input(String),
}

fn combine_files(key: &Path, message: &MessageArgs, partials: &[PathBuf]) -> Result<(), Failure> {
    let text = files::read_text(key).map_err(Failure::Input)?;
    let public = SharedPublicKey::from_pem(&text)
        .map_err(|e| Failure::Input(format!("{}: {e}", key.display())))?;
    let em = message.encode(&public).map_err(Failure::Input)?;
    let partials = partials
        .iter()
        .map(|p| {
            let text = files::read_text(p)?;
            PartialSignature::from_pem(&text).map_err(|e| format!("{}: {e}", p.display()))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::Input)?;
    match combine_checked(&public, &em, &partials) {
        Ok(combined) => {
            // The signature is good; say which partial signatures were not.
            if !combined.faulty.is_empty() {
                eprintln!(
                    "numcrypt: warning: faulty partial signature (fails its proof, signed by its \
                     party): party {}",
                    list(&combined.faulty)
                );
            }
            if !combined.unattributed.is_empty() {
                eprintln!(
                    "numcrypt: warning: a partial signature naming party {} fails its proof and \
                     is not signed by that party (forged or altered; nobody blamed)",
                    list(&combined.unattributed)
                );
            }
            write_public(message.out.as_deref(), &combined.signature).map_err(Failure::Input)
        }
        Err(e @ (Error::InvalidPartials { .. } | Error::InvalidSignature)) => {
            Err(Failure::Invalid(e.to_string()))
        }
        Err(e) => Err(Failure::Input(e.to_string())),
    }
}

fn list(parties: &[usize]) -> String {
    parties
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
