//! Serves a fixed page over HTTPS, TLS 1.2 and 1.3, on numcrypt's rustls
//! provider: with an RSA certificate, numcrypt signs every handshake.
//!
//! ```text
//! https_server --cert CERT.pem --key KEY.pem [--port 8443] [--addr 127.0.0.1]
//! ```
//!
//! `CERT.pem` holds the certificate chain (leaf first), `KEY.pem` its
//! private key (PKCS#8, PKCS#1 or SEC1 PEM). `--port 0` takes any free
//! port. It prints the address it serves on, then one line per failed
//! connection; a connection has its own thread. Stop it with Ctrl-C.
//!
//! ```sh
//! openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 30 \
//!     -subj /CN=localhost -addext subjectAltName=DNS:localhost
//! cargo run --release -p numcrypt-rustls --example https_server -- --cert cert.pem --key key.pem --port 8443
//! curl --cacert cert.pem https://localhost:8443/
//! ```

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

const USAGE: &str =
    "usage: https_server --cert CERT.pem --key KEY.pem [--port 8443] [--addr 127.0.0.1]";

const PAGE: &str = "<!doctype html>\n<title>numcrypt</title>\n<p>Hello from numcrypt-rustls: \
                    this handshake was signed by numcrypt.</p>\n";

/// A request head longer than this is refused.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

struct Args {
    cert: PathBuf,
    key: PathBuf,
    port: u16,
    addr: IpAddr,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut cert, mut key, mut port, mut addr) =
        (None, None, 8443, IpAddr::V4(Ipv4Addr::LOCALHOST));
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg, None),
        };
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.to_string());
        }
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--cert" => cert = Some(PathBuf::from(value()?)),
            "--key" => key = Some(PathBuf::from(value()?)),
            "--port" => {
                let v = value()?;
                port = v
                    .parse()
                    .map_err(|_| format!("--port {v:?}: not a port number (0 to 65535)"))?;
            }
            "--addr" => {
                let v = value()?;
                addr = v
                    .parse()
                    .map_err(|_| format!("--addr {v:?}: not an IP address"))?;
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(Args {
        cert: cert.ok_or_else(|| format!("--cert is required\n{USAGE}"))?,
        key: key.ok_or_else(|| format!("--key is required\n{USAGE}"))?,
        port,
        addr,
    })
}

/// The server configuration, with an error that names the file at fault.
fn config(args: &Args) -> Result<ServerConfig, String> {
    let cert_name = args.cert.display();
    let certs = CertificateDer::pem_file_iter(&args.cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{cert_name}: cannot read certificates: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{cert_name}: no CERTIFICATE in it"));
    }
    let key_name = args.key.display();
    let key = PrivateKeyDer::from_pem_file(&args.key)
        .map_err(|e| format!("{key_name}: cannot read a private key: {e}"))?;
    ServerConfig::builder_with_provider(Arc::new(numcrypt_rustls::provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| match e {
            rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
                format!("{key_name}: not the private key of the certificate in {cert_name}")
            }
            e => format!("{key_name}: {e}"),
        })
}

/// One connection: the handshake, a request head, the page.
fn serve(config: Arc<ServerConfig>, tcp: TcpStream) -> Result<(), Box<dyn std::error::Error>> {
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    tcp.set_write_timeout(Some(Duration::from_secs(10)))?;
    let mut tls = StreamOwned::new(ServerConnection::new(config)?, tcp);
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tls.read(&mut buf)?;
        if n == 0 {
            return Err("the client closed before its request was complete".into());
        }
        head.extend_from_slice(&buf[..n]);
        if head.len() > MAX_REQUEST_HEAD {
            return Err("request head too long".into());
        }
    }
    write!(
        tls,
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{PAGE}",
        PAGE.len()
    )?;
    tls.conn.send_close_notify();
    tls.flush()?;
    Ok(())
}

fn run() -> Result<(), String> {
    let args = parse_args(std::env::args().skip(1))?;
    let config = Arc::new(config(&args)?);
    let listener = TcpListener::bind((args.addr, args.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", args.addr, args.port))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    println!(
        "https_server: serving https://localhost:{}/ on {local}",
        local.port()
    );
    for tcp in listener.incoming() {
        let Ok(tcp) = tcp else { continue };
        let config = config.clone();
        std::thread::spawn(move || {
            let peer = tcp.peer_addr().map(|a| a.to_string()).unwrap_or_default();
            if let Err(e) = serve(config, tcp) {
                eprintln!("https_server: {peer}: {e}");
            }
        });
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("https_server: error: {e}");
            ExitCode::from(2)
        }
    }
}
