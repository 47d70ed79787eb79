//! numcrypt's provider against the real `openssl s_server` and `openssl
//! s_client` (OpenSSL 3), over loopback TCP on ephemeral ports: each
//! signature scheme forced by openssl's `-sigalgs` (PSS on TLS 1.3, PSS
//! and PKCS#1 v1.5 on TLS 1.2), client certificates both ways, a chain
//! whose intermediate has an RSA-PSS key, a wrong key and a tampered
//! signature. Certificates are made by `openssl` from the fixture keys.
//! Skipped, with a note, where `openssl` is not installed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::thread;

use crate::common::*;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{
    ClientConfig, ClientConnection, ServerConfig, ServerConnection, SignatureScheme, StreamOwned,
};

/// (openssl's name, rustls' scheme, TLS 1.3 allows it)
const SIGALGS: [(&str, SignatureScheme, bool); 6] = [
    ("rsa_pss_rsae_sha256", SignatureScheme::RSA_PSS_SHA256, true),
    ("rsa_pss_rsae_sha384", SignatureScheme::RSA_PSS_SHA384, true),
    ("rsa_pss_rsae_sha512", SignatureScheme::RSA_PSS_SHA512, true),
    ("rsa_pkcs1_sha256", SignatureScheme::RSA_PKCS1_SHA256, false),
    ("rsa_pkcs1_sha384", SignatureScheme::RSA_PKCS1_SHA384, false),
    ("rsa_pkcs1_sha512", SignatureScheme::RSA_PKCS1_SHA512, false),
];

fn openssl(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Certificates made by openssl in a temporary folder: a CA (`ca.pem`'s
/// key), leaves for `localhost` and a client, and a chain through an
/// intermediate with an RSA-PSS key.
struct Certs {
    dir: tempfile::TempDir,
}

impl Certs {
    fn new() -> Self {
        let certs = Certs {
            dir: tempfile::tempdir().unwrap(),
        };
        let d = certs.dir.path();
        for (name, ext) in [
            (
                "ca",
                "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n",
            ),
            (
                "leaf",
                "basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost\n",
            ),
            (
                "client",
                "basicConstraints=CA:FALSE\nsubjectAltName=DNS:client.example\nextendedKeyUsage=clientAuth\n",
            ),
        ] {
            std::fs::write(d.join(format!("{name}.ext")), ext).unwrap();
        }
        openssl(
            d,
            &[
                "req",
                "-x509",
                "-new",
                "-key",
                s(&data("ca.pem")),
                "-subj",
                "/CN=numcrypt openssl root",
                "-days",
                "2",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign",
                "-out",
                "ca.crt",
            ],
        );
        for key in ["rsa2048", "rsa3072", "rsa4096", "pss-sha256"] {
            certs.issue(key, &format!("{key}.crt"), "ca", "leaf", &[]);
        }
        certs.issue("client", "client.crt", "ca", "client", &[]);
        // root --(sha512WithRSAEncryption)--> RSA-PSS intermediate
        //      --(RSASSA-PSS, SHA-256, salt 32)--> leaf
        certs.issue(
            "pss-sha256",
            "pss-intermediate.crt",
            "ca",
            "ca",
            &["-sha512"],
        );
        certs.issue(
            "rsa2048",
            "chained.crt",
            "pss-intermediate",
            "leaf",
            &[
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:digest",
                "-sha256",
            ],
        );
        certs
    }

    /// `out`, a certificate for `data/<key>.pem` with the extensions in
    /// `<ext>.ext`, issued by `<issuer>.crt` (whose key is
    /// `data/<issuer>.pem`, the intermediate's `pss-sha256.pem`).
    fn issue(&self, key: &str, out: &str, issuer: &str, ext: &str, extra: &[&str]) {
        let d = self.dir.path();
        let csr = format!("{out}.csr");
        let subject = format!("/CN={}", out.trim_end_matches(".crt"));
        openssl(
            d,
            &[
                "req",
                "-new",
                "-key",
                s(&data(&format!("{key}.pem"))),
                "-subj",
                &subject,
                "-out",
                &csr,
            ],
        );
        let issuer_key = data(if issuer == "ca" {
            "ca.pem"
        } else {
            "pss-sha256.pem"
        });
        let (ca, ext) = (format!("{issuer}.crt"), format!("{ext}.ext"));
        let mut args = vec![
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca,
            "-CAkey",
            s(&issuer_key),
            "-days",
            "2",
            "-extfile",
            &ext,
            "-out",
            out,
        ];
        args.extend(extra);
        openssl(d, &args);
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn chain(&self, names: &[&str]) -> Vec<CertificateDer<'static>> {
        names
            .iter()
            .map(|n| CertificateDer::from_pem_file(self.path(n)).unwrap())
            .collect()
    }

    fn ca(&self) -> CertificateDer<'static> {
        CertificateDer::from_pem_file(self.path("ca.crt")).unwrap()
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A child process, killed and reaped however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `openssl s_server -www` on an ephemeral loopback port, for one
/// connection; its port.
fn s_server(certs: &Certs, cert: &[&str], key: &str, extra: &[&str]) -> (Running, u16) {
    let mut args = vec![
        "s_server",
        "-accept",
        "127.0.0.1:0",
        "-naccept",
        "1",
        "-www",
        "-cert",
    ];
    let cert_path = certs.path(cert[0]);
    args.push(s(&cert_path));
    let chain_path = cert.get(1).map(|c| certs.path(c));
    if let Some(chain) = &chain_path {
        args.extend(["-cert_chain", s(chain)]);
    }
    let key_path = data(key);
    args.extend(["-key", s(&key_path)]);
    args.extend(extra);
    let mut server = Running(
        Command::new("openssl")
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(server.0.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "s_server {args:?} did not start"
        );
        if let Some(port) = line.trim().strip_prefix("ACCEPT 127.0.0.1:") {
            let port = port.parse().unwrap();
            // Keep draining its output so that it never blocks on a full pipe.
            thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
            return (server, port);
        }
    }
}

/// A rustls client on `config` fetching s_server's status page.
fn fetch(config: ClientConfig, port: u16) -> Result<String, std::io::Error> {
    let conn = ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
        .unwrap();
    let mut tls = StreamOwned::new(conn, TcpStream::connect(("127.0.0.1", port))?);
    tls.write_all(b"GET / HTTP/1.0\r\n\r\n")?;
    let mut page = Vec::new();
    match tls.read_to_end(&mut page) {
        Ok(_) => {}
        // s_server may close without close_notify once the page is sent.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !page.is_empty() => {}
        Err(e) => return Err(e),
    }
    Ok(String::from_utf8_lossy(&page).into_owned())
}

fn versions(tls13: bool) -> &'static [&'static rustls::SupportedProtocolVersion] {
    if tls13 { TLS13 } else { TLS12 }
}

/// rustls client on numcrypt's provider against `openssl s_server` signing
/// with each scheme in turn, at each size.
#[test]
fn numcrypt_client_against_s_server() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    for key in ["rsa2048", "rsa3072", "rsa4096"] {
        for (sigalg, scheme, in_tls13) in SIGALGS {
            for tls13 in [true, false] {
                if tls13 && !in_tls13 {
                    continue;
                }
                let (server, port) = s_server(
                    &certs,
                    &[&format!("{key}.crt")],
                    &format!("{key}.pem"),
                    &["-sigalgs", sigalg],
                );
                let (config, seen) =
                    client_config(Side::Numcrypt, versions(tls13), &certs.ca(), None);
                let page = fetch(config, port)
                    .unwrap_or_else(|e| panic!("{key} {sigalg} tls13={tls13}: {e}"));
                drop(server);
                assert!(page.starts_with("HTTP/1.0 200 ok"), "{page}");
                assert_eq!(seen.seen(), [scheme], "{key} {sigalg} tls13={tls13}");
            }
        }
    }
}

/// A rustls server on numcrypt's provider, one connection: the handshake,
/// a line in, `pong` out, close_notify.
fn serve_once(config: ServerConfig) -> (u16, thread::JoinHandle<Result<(), std::io::Error>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = thread::spawn(move || {
        let (tcp, _) = listener.accept()?;
        tcp.set_read_timeout(Some(std::time::Duration::from_secs(20)))?;
        let mut tls = StreamOwned::new(ServerConnection::new(Arc::new(config)).unwrap(), tcp);
        let mut line = Vec::new();
        let mut byte = [0u8];
        while byte[0] != b'\n' {
            tls.read_exact(&mut byte)?;
            line.push(byte[0]);
        }
        tls.write_all(b"pong\n")?;
        tls.conn.send_close_notify();
        tls.flush()
    });
    (port, handle)
}

/// `openssl s_client` against `port`, sending `ping`; its output
/// (standard output and error).
fn s_client(certs: &Certs, port: u16, extra: &[&str]) -> (bool, String) {
    let ca = certs.path("ca.crt");
    let connect = format!("127.0.0.1:{port}");
    let mut args = vec![
        "s_client",
        "-connect",
        &connect,
        "-CAfile",
        s(&ca),
        "-verify_return_error",
        "-verify_hostname",
        "localhost",
        "-brief",
        "-ign_eof",
    ];
    args.extend(extra);
    let mut child = Command::new("openssl")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // s_client may end before it reads (a handshake refused at once): the
    // broken pipe is then no failure of its own, and its exit status and
    // output below say what happened.
    match child.stdin.take().unwrap().write_all(b"ping\n") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The signature s_client saw (its `-brief` lines), as a scheme.
fn scheme_seen(output: &str) -> Option<SignatureScheme> {
    let field = |name: &str| {
        output
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
    };
    let hash = field("Hash used:")?;
    let pss = match field("Signature type:")? {
        "RSA-PSS" => true,
        "RSA" => false,
        _ => return None,
    };
    SIGALGS
        .iter()
        .find(|(name, _, _)| name.contains(&hash.to_lowercase()) && name.contains("pss") == pss)
        .map(|&(_, scheme, _)| scheme)
}

/// `openssl s_client` forcing each scheme against a rustls server on
/// numcrypt's provider, at each size.
#[test]
fn s_client_against_numcrypt_server() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    for key in ["rsa2048", "rsa3072", "rsa4096"] {
        for (sigalg, scheme, in_tls13) in SIGALGS {
            for tls13 in [true, false] {
                if tls13 && !in_tls13 {
                    continue;
                }
                let config = ServerConfig::builder_with_provider(Side::Numcrypt.provider())
                    .with_protocol_versions(versions(tls13))
                    .unwrap()
                    .with_no_client_auth()
                    .with_single_cert(
                        certs.chain(&[&format!("{key}.crt")]),
                        key_der(&format!("{key}.pem")),
                    )
                    .unwrap();
                let (port, server) = serve_once(config);
                let version = if tls13 { "-tls1_3" } else { "-tls1_2" };
                let (ok, out) = s_client(&certs, port, &["-sigalgs", sigalg, version]);
                server.join().unwrap().unwrap();
                assert!(
                    ok && out.contains("Verification: OK") && out.contains("pong"),
                    "{key} {sigalg} {version}: {out}"
                );
                assert_eq!(
                    scheme_seen(&out),
                    Some(scheme),
                    "{key} {sigalg} {version}: {out}"
                );
            }
        }
    }
}

/// Client certificates: s_client's signed with each scheme it is forced to
/// and checked by numcrypt; numcrypt's signed with the scheme s_server
/// asks for and checked by openssl.
#[test]
fn client_certificates_both_ways() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    let client_cert = certs.path("client.crt");
    let client_key = data("client.pem");
    for (sigalg, scheme, in_tls13) in SIGALGS {
        for tls13 in [true, false] {
            if tls13 && !in_tls13 {
                continue;
            }
            let version = if tls13 { "-tls1_3" } else { "-tls1_2" };
            // s_client → numcrypt server (verifying the client's signature).
            let recorder = ClientRecorder::new(&certs.ca());
            let config = ServerConfig::builder_with_provider(Side::Numcrypt.provider())
                .with_protocol_versions(versions(tls13))
                .unwrap()
                .with_client_cert_verifier(recorder.clone())
                .with_single_cert(certs.chain(&["rsa2048.crt"]), key_der("rsa2048.pem"))
                .unwrap();
            let (port, server) = serve_once(config);
            let (ok, out) = s_client(
                &certs,
                port,
                &[
                    version,
                    "-cert",
                    s(&client_cert),
                    "-key",
                    s(&client_key),
                    "-client_sigalgs",
                    sigalg,
                ],
            );
            server.join().unwrap().unwrap();
            assert!(ok && out.contains("pong"), "{sigalg} {version}: {out}");
            assert_eq!(recorder.seen(), [scheme], "{sigalg} {version}");

            // numcrypt client → s_server requiring a certificate and
            // asking for `sigalg` only.
            let ca = certs.path("ca.crt");
            let (server, port) = s_server(
                &certs,
                &["rsa2048.crt"],
                "rsa2048.pem",
                &[
                    "-Verify",
                    "1",
                    "-verify_return_error",
                    "-CAfile",
                    s(&ca),
                    "-client_sigalgs",
                    sigalg,
                ],
            );
            let config = ClientConfig::builder_with_provider(Side::Numcrypt.provider())
                .with_protocol_versions(versions(tls13))
                .unwrap()
                .with_root_certificates(roots(&certs.ca()))
                .with_client_auth_cert(certs.chain(&["client.crt"]), key_der("client.pem"))
                .unwrap();
            let page = fetch(config, port).unwrap_or_else(|e| panic!("{sigalg} {version}: {e}"));
            drop(server);
            // s_server's page shows the client certificate it verified.
            assert!(page.starts_with("HTTP/1.0 200 ok"), "{page}");
            assert!(
                page.contains("Client certificate") && page.contains("Subject: CN=client"),
                "{page}"
            );
        }
    }
}

/// A client certificate verifier (webpki on numcrypt's provider) that
/// records the schemes it checked.
#[derive(Debug)]
struct ClientRecorder {
    inner: Arc<dyn rustls::server::danger::ClientCertVerifier>,
    seen: std::sync::Mutex<Vec<SignatureScheme>>,
}

impl ClientRecorder {
    fn new(ca: &CertificateDer<'static>) -> Arc<Self> {
        Arc::new(Self {
            inner: client_verifier(Side::Numcrypt, ca),
            seen: Default::default(),
        })
    }

    fn seen(&self) -> Vec<SignatureScheme> {
        self.seen.lock().unwrap().clone()
    }
}

impl rustls::server::danger::ClientCertVerifier for ClientRecorder {
    fn root_hint_subjects(&self) -> &[rustls::DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::server::danger::ClientCertVerified, rustls::Error> {
        self.inner
            .verify_client_cert(end_entity, intermediates, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.seen.lock().unwrap().push(dss.scheme);
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.seen.lock().unwrap().push(dss.scheme);
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// root → intermediate with an RSA-PSS key (signed sha512WithRSAEncryption)
/// → leaf (signed RSASSA-PSS SHA-256 by that key): numcrypt's provider
/// verifies it; aws-lc-rs's has no algorithm for RSA-PSS keys.
#[test]
fn chain_through_an_rsa_pss_intermediate() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    // openssl itself accepts the chain.
    let ca = certs.path("ca.crt");
    let inter = certs.path("pss-intermediate.crt");
    openssl(
        certs.dir.path(),
        &[
            "verify",
            "-CAfile",
            s(&ca),
            "-untrusted",
            s(&inter),
            "chained.crt",
        ],
    );
    for (side, ok) in [(Side::Numcrypt, true), (Side::AwsLcRs, false)] {
        for tls13 in [true, false] {
            let (server, port) = s_server(
                &certs,
                &["chained.crt", "pss-intermediate.crt"],
                "rsa2048.pem",
                &[],
            );
            let (config, _) = client_config(side, versions(tls13), &certs.ca(), None);
            let result = fetch(config, port);
            drop(server);
            match result {
                Ok(page) => assert!(
                    ok && page.starts_with("HTTP/1.0 200 ok"),
                    "{side:?}: {page}"
                ),
                Err(e) => {
                    assert!(!ok, "{side:?} tls13={tls13}: {e}");
                    use rustls::CertificateError::*;
                    let inner = e.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>());
                    assert!(
                        matches!(
                            inner,
                            Some(rustls::Error::InvalidCertificate(
                                UnsupportedSignatureAlgorithmContext { .. }
                                    | UnsupportedSignatureAlgorithmForPublicKeyContext { .. }
                            ))
                        ),
                        "{e}"
                    );
                }
            }
        }
    }
}

/// A leaf with an RSA-PSS key (parameters: SHA-256, MGF1-SHA-256, salt 32)
/// on a numcrypt server. openssl offers `rsa_pss_pss_sha256`, the code
/// point RFC 8446 gives such keys, and refuses `rsa_pss_rsae_*` from them
/// (`wrong signature type`). On TLS 1.3 the key signs with the former; on
/// TLS 1.2 rustls drops code points it has no name for before the key
/// chooses, so the handshake fails (a limitation of rustls 0.23, tested so
/// that a change shows). A numcrypt client offers `rsa_pss_rsae_*` only
/// (the base's schemes) and verifies that on TLS 1.2 (on TLS 1.3 rustls
/// tries only a scheme's first algorithm, the `rsaEncryption` one).
#[test]
fn rsa_pss_key_on_the_server() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    let config = |tls13: bool| {
        ServerConfig::builder_with_provider(Side::Numcrypt.provider())
            .with_protocol_versions(versions(tls13))
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs.chain(&["pss-sha256.crt"]), key_der("pss-sha256.pem"))
            .unwrap()
    };
    for tls13 in [true, false] {
        for sigalgs in [None, Some("rsa_pss_pss_sha256")] {
            let (port, server) = serve_once(config(tls13));
            let mut args = vec![];
            if let Some(sigalgs) = sigalgs {
                args.extend(["-sigalgs", sigalgs]);
            }
            let (ok, out) = s_client(&certs, port, &args);
            let served = server.join().unwrap();
            if tls13 {
                assert!(
                    ok && served.is_ok() && out.contains("pong"),
                    "{sigalgs:?}: {out}"
                );
                assert!(
                    out.contains("Signature type: RSA-PSS") && out.contains("Hash used: SHA256"),
                    "{out}"
                );
            } else {
                // rsae refused by openssl, or, offered pss_pss only, no
                // scheme in common for rustls.
                let why = if sigalgs.is_some() {
                    "handshake failure"
                } else {
                    "wrong signature type"
                };
                assert!(!ok && out.contains(why), "{sigalgs:?}: {out}");
            }
        }
    }
    let (config_client, seen) = client_config(Side::Numcrypt, TLS12, &certs.ca(), None);
    let (mut c, mut s) = pair(config_client, config(false));
    handshake(&mut c, &mut s).unwrap();
    assert_eq!(seen.seen(), [SignatureScheme::RSA_PSS_SHA256]);
}

/// A numcrypt server with a key that is not its certificate's, and one
/// whose signature is tampered with: s_client refuses both.
#[test]
fn wrong_key_and_tampered_signature_refused_by_s_client() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    let provider = numcrypt_rustls::provider();
    let right = provider
        .key_provider
        .load_private_key(key_der("rsa2048.pem"))
        .unwrap();
    let wrong = provider
        .key_provider
        .load_private_key(key_der("rsa3072.pem"))
        .unwrap();
    for (what, key) in [
        ("wrong key", wrong),
        ("tampered", Arc::new(FlipSignature(right)) as _),
    ] {
        for tls13 in [true, false] {
            let config = server_config_with_key(
                Side::Numcrypt,
                versions(tls13),
                certs.chain(&["rsa2048.crt"]),
                key.clone(),
            );
            let (port, server) = serve_once(config);
            let version = if tls13 { "-tls1_3" } else { "-tls1_2" };
            let (ok, out) = s_client(&certs, port, &[version]);
            let served = server.join().unwrap();
            assert!(!ok && served.is_err(), "{what} {version}: {out}");
            assert!(out.contains("bad signature"), "{what} {version}: {out}");
        }
    }
}

/// `openssl s_server` on TLS 1.2 behind a proxy that flips a bit of its
/// ServerKeyExchange signature: numcrypt's client refuses it.
#[test]
fn tampered_server_key_exchange_refused_by_numcrypt() {
    if !have("openssl") {
        return;
    }
    let certs = Certs::new();
    let (server, port) = s_server(&certs, &["rsa2048.crt"], "rsa2048.pem", &["-tls1_2"]);
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_port = proxy.local_addr().unwrap().port();
    let relay = thread::spawn(move || {
        let (client, _) = proxy.accept().unwrap();
        let upstream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (mut c_in, mut u_out) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
        thread::spawn(move || std::io::copy(&mut c_in, &mut u_out));
        let (mut u_in, mut c_out) = (upstream, client);
        // Hold the server's bytes until its ServerKeyExchange is whole,
        // flip its last byte, then relay the rest untouched.
        let mut held = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = u_in.read(&mut buf).unwrap();
            assert!(n > 0, "s_server closed before its ServerKeyExchange");
            held.extend_from_slice(&buf[..n]);
            if flip_server_key_exchange(&mut held) {
                break;
            }
        }
        c_out.write_all(&held).unwrap();
        let _ = std::io::copy(&mut u_in, &mut c_out);
    });
    let (config, _) = client_config(Side::Numcrypt, TLS12, &certs.ca(), None);
    let err = fetch(config, proxy_port).unwrap_err();
    drop(server);
    let _ = relay.join();
    let inner = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>());
    assert_eq!(
        inner,
        Some(&rustls::Error::InvalidCertificate(
            rustls::CertificateError::BadSignature
        )),
        "{err}"
    );
}
