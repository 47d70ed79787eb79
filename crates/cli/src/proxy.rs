//! A TCP proxy that holds every byte a fixed time in each direction: a
//! wide-area network's latency for parties on one machine (this kernel has
//! no `netem`). `numcrypt shared-rsa demo --delay-ms` puts one in front of
//! every party, so every connection crosses exactly one.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A running proxy; it stops accepting when dropped (connections in
/// progress end with their endpoints).
pub struct DelayProxy {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl DelayProxy {
    /// Listens on a free loopback port and forwards each connection to
    /// `target`, delaying each direction by `delay`.
    pub fn start(target: SocketAddr, delay: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((inbound, _)) => {
                            let _ = inbound.set_nonblocking(false);
                            if let Ok(outbound) = TcpStream::connect(target) {
                                let _ = inbound.set_nodelay(true);
                                let _ = outbound.set_nodelay(true);
                                forward(&inbound, &outbound, delay);
                                forward(&outbound, &inbound, delay);
                            }
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            })
        };
        Ok(Self {
            address,
            stop,
            acceptor: Some(acceptor),
        })
    }

    /// Where the proxy listens.
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(a) = self.acceptor.take() {
            let _ = a.join();
        }
    }
}

/// Copies `from` to `to`, each chunk written `delay` after it was read (a
/// reader thread stamps the chunks, a writer thread waits for their time):
/// latency, not a bandwidth limit. The end of `from` closes `to`'s writing
/// side once the last chunk is out.
fn forward(from: &TcpStream, to: &TcpStream, delay: Duration) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx
                        .send((Instant::now() + delay, buf[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    std::thread::spawn(move || {
        for (due, chunk) in rx {
            let wait = due.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
            if to.write_all(&chunk).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
