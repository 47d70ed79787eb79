//! Message encoding: fixed-width integers and ring elements, read back
//! with every length and range checked (a malformed message is an error
//! naming its sender, never a panic).

use crate::Error;
use crate::arith::{Elem, Ring};

/// Builds one message.
#[derive(Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn elem(&mut self, ring: &Ring, x: &Elem) {
        ring.write(x, &mut self.0);
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// Reads one message from `party` (0-based).
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    party: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], party: usize) -> Self {
        Self { buf, party }
    }

    pub(crate) fn malformed(&self, what: &'static str) -> Error {
        Error::Malformed {
            party: self.party + 1,
            what,
        }
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Error> {
        if self.buf.len() < n {
            return Err(self.malformed(what));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, Error> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn elem(&mut self, ring: &Ring, what: &'static str) -> Result<Elem, Error> {
        let b = self.take(ring.elem_bytes(), what)?;
        ring.read(b).ok_or_else(|| self.malformed(what))
    }

    /// Checks that nothing is left over.
    pub(crate) fn end(&self) -> Result<(), Error> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(self.malformed("trailing bytes"))
        }
    }
}
