//! Hybrid encryption of any length in bounded memory: the STREAM
//! construction (Hoang, Reyhanitabar, Rogaway and Vizár, 2015), as `age`
//! uses it. A fresh KEM key ([`PublicKey::encapsulate`]) gives, through
//! HKDF-SHA256, a ChaCha20-Poly1305 key that seals the message in chunks of
//! [`CHUNK_LEN`] bytes. Each chunk's nonce is its index (88 bits,
//! big-endian) and a last-chunk flag, so chunks cannot be reordered,
//! dropped, repeated, or the stream cut at a chunk boundary without the
//! opener noticing.
//!
//! Layout: [`MAGIC`], the encapsulation ([`Group::element_len`] bytes), then
//! the chunks: `CHUNK_LEN + 16` bytes each except the last, which is
//! shorter or as long and is always there (it may hold no plaintext).
//!
//! [`Group::element_len`]: crate::Group::element_len

use alloc::vec::Vec;
use core::fmt;

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, KeyInit, Nonce};
use hkdf::Hkdf;
use rand_core::CryptoRng;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::{Error, PublicKey, SecretKey, SharedSecret};

/// The plaintext bytes in every chunk but the last.
pub const CHUNK_LEN: usize = 64 * 1024;

/// The first bytes of a stream (and its format's version).
pub const MAGIC: &[u8; 8] = b"NCEGSTR1";

/// ChaCha20-Poly1305's tag, after each chunk.
pub const TAG_LEN: usize = 16;

/// The HKDF `info` that separates the stream key from the KEM key, which
/// [`PublicKey::seal`] uses directly.
const STREAM_INFO: &[u8] = b"numcrypt-elgamal STREAM v1";

/// The state both directions share: the chunk key, the associated data,
/// the next chunk's index, and whether the last chunk has passed.
struct Chunks {
    cipher: ChaCha20Poly1305,
    associated_data: Vec<u8>,
    index: u64,
    finished: bool,
}

impl Chunks {
    fn new(kem_key: &SharedSecret, associated_data: &[u8]) -> Self {
        let mut key = Zeroizing::new([0u8; 32]);
        if Hkdf::<Sha256>::new(None, kem_key.as_bytes())
            .expand(STREAM_INFO, &mut *key)
            .is_err()
        {
            unreachable!("32 bytes is a valid HKDF-SHA256 output length");
        }
        Self {
            cipher: ChaCha20Poly1305::new((&*key).into()),
            associated_data: associated_data.to_vec(),
            index: 0,
            finished: false,
        }
    }

    /// The nonce of the next chunk, and the step past it: refused after the
    /// last chunk.
    fn next_nonce(&mut self, last: bool) -> Result<Nonce, Error> {
        if self.finished {
            return Err(Error::StreamFinished);
        }
        let mut nonce = Nonce::default();
        nonce[3..11].copy_from_slice(&self.index.to_be_bytes());
        nonce[11] = u8::from(last);
        self.index = self.index.checked_add(1).ok_or(Error::MessageTooLong)?;
        self.finished = last;
        Ok(nonce)
    }
}

/// Seals a stream chunk by chunk, from [`PublicKey::seal_stream`].
pub struct StreamSealer(Chunks);

/// Opens a stream chunk by chunk, from [`SecretKey::open_stream`].
pub struct StreamOpener(Chunks);

impl PublicKey {
    /// Starts a stream to this key, binding `associated_data` to every
    /// chunk: the header to write first ([`MAGIC`] and the encapsulation)
    /// and the sealer for the chunks.
    pub fn seal_stream<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        associated_data: &[u8],
    ) -> Result<(Vec<u8>, StreamSealer), Error> {
        let (encapsulation, key) = self.encapsulate(rng)?;
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&encapsulation);
        Ok((header, StreamSealer(Chunks::new(&key, associated_data))))
    }
}

impl StreamSealer {
    /// Seals the next chunk: exactly [`CHUNK_LEN`] bytes unless it is the
    /// `last` (which may be empty, and must come once, at the end).
    /// [`Error::InvalidChunk`] for a short chunk that is not the last,
    /// [`Error::StreamFinished`] after the last.
    pub fn seal_chunk(&mut self, chunk: &[u8], last: bool) -> Result<Vec<u8>, Error> {
        if chunk.len() > CHUNK_LEN || (!last && chunk.len() != CHUNK_LEN) {
            return Err(Error::InvalidChunk);
        }
        let nonce = self.0.next_nonce(last)?;
        self.0
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: chunk,
                    aad: &self.0.associated_data,
                },
            )
            .map_err(|_| Error::MessageTooLong)
    }
}

impl SecretKey {
    /// The length of a stream's header: [`MAGIC`] and the encapsulation.
    pub fn stream_header_len(&self) -> usize {
        MAGIC.len() + self.group().element_len()
    }

    /// Starts opening a stream made by [`PublicKey::seal_stream`] with the
    /// same associated data, from its header
    /// ([`stream_header_len`](Self::stream_header_len) bytes).
    /// [`Error::MalformedCiphertext`] if it is not a stream's header.
    pub fn open_stream(
        &self,
        header: &[u8],
        associated_data: &[u8],
    ) -> Result<StreamOpener, Error> {
        let encapsulation = header
            .strip_prefix(MAGIC.as_slice())
            .ok_or(Error::MalformedCiphertext)?;
        let key = self.decapsulate(encapsulation)?;
        Ok(StreamOpener(Chunks::new(&key, associated_data)))
    }
}

impl StreamOpener {
    /// Opens the next chunk (`last`: the stream ends after it). Every chunk
    /// but the last is [`CHUNK_LEN`]` + `[`TAG_LEN`] bytes. A chunk that was
    /// changed, moved, or marked last when it was not (a truncated stream)
    /// is [`Error::DecryptionFailed`]; the caller must discard what earlier
    /// chunks gave if a later one fails or the last never comes.
    pub fn open_chunk(&mut self, chunk: &[u8], last: bool) -> Result<Zeroizing<Vec<u8>>, Error> {
        let full = CHUNK_LEN + TAG_LEN;
        if chunk.len() < TAG_LEN || chunk.len() > full || (!last && chunk.len() != full) {
            return Err(Error::InvalidChunk);
        }
        let nonce = self.0.next_nonce(last)?;
        self.0
            .cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: chunk,
                    aad: &self.0.associated_data,
                },
            )
            .map(Zeroizing::new)
            .map_err(|_| Error::DecryptionFailed)
    }

    /// Whether the last chunk has been opened: only then is the message
    /// whole.
    pub fn is_finished(&self) -> bool {
        self.0.finished
    }
}

impl fmt::Debug for StreamSealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamSealer")
            .field("index", &self.0.index)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for StreamOpener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamOpener")
            .field("index", &self.0.index)
            .finish_non_exhaustive()
    }
}
