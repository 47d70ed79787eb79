//! Batches of private operations: many signatures or decryptions in one
//! call, their CRT halves run together by the limbs crate's batch
//! exponentiation (eight a pass in the lanes of AVX-512 IFMA registers,
//! four with AVX2, pairs elsewhere).
//!
//! Every request goes through the same steps as a single one, in the same
//! order, each with its own values ([`RsaPrivateKey::private_op_batch`]):
//! its own blinding pair, its own check against the public key. Outputs
//! are byte for byte those of the single calls (PKCS#1 v1.5 signatures are
//! deterministic, so the same bytes; PSS and the decryptions as
//! verifiable). A request that fails (a fault caught by its check, a
//! digest or ciphertext of the wrong length, a padding that is wrong)
//! fails alone.
//!
//! Two shapes: the `_each` forms and the decryptions return one result
//! per request, inside an outer result for what concerns the whole call
//! (the key's size or restriction, a weak hash); [`sign_pkcs1v15_batch`]
//! and [`sign_pss_batch`] return the signatures themselves, all or an
//! error, retrying alone (once) a request whose check failed, as OpenSSL
//! recomputes a faulty CRT result.
//!
//! [`sign_pkcs1v15_batch`]: RsaPrivateKey::sign_pkcs1v15_batch
//! [`sign_pss_batch`]: RsaPrivateKey::sign_pss_batch

use alloc::vec::Vec;

use numcrypt_limbs::SecretUint;
use rand_core::TryCryptoRng;
use zeroize::Zeroizing;

use crate::private::{BatchInput, Mode};
use crate::pss::{Params as PssParams, SaltLength};
use crate::{Error, HashAlg, RsaPrivateKey};

/// One result per request.
pub type BatchResults<T> = Vec<Result<T, Error>>;

impl RsaPrivateKey {
    /// Signs every message of `msgs` with RSASSA-PKCS1-v1_5 and `hash`, as
    /// [`sign_pkcs1v15`](Self::sign_pkcs1v15) signs each (the same bytes),
    /// the private operations batched. `rng` feeds the blinding.
    ///
    /// Errors: those of `sign_pkcs1v15` for the key and hash (then nothing
    /// is signed); [`Error::FaultDetected`] if a request's check fails
    /// twice (once in the batch, once alone): then no signature is
    /// returned. For one result per message, see
    /// [`sign_pkcs1v15_prehashed_batch_each`](Self::sign_pkcs1v15_prehashed_batch_each).
    pub fn sign_pkcs1v15_batch<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        msgs: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>, Error> {
        let digests: Vec<Vec<u8>> = msgs.iter().map(|m| hash.digest(m)).collect();
        let digests: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
        let results = self.sign_pkcs1v15_prehashed_batch_each(rng, hash, &digests)?;
        results
            .into_iter()
            .zip(&digests)
            .map(|(r, digest)| match r {
                Err(Error::FaultDetected) => self.sign_pkcs1v15_prehashed(rng, hash, digest),
                r => r,
            })
            .collect()
    }

    /// Signs every digest of `digests` (made with `hash`) with
    /// RSASSA-PKCS1-v1_5, one result per digest: a digest of the wrong
    /// length, or a request whose check fails, fails alone. The outer
    /// error: what fails every request (a weak hash, the key's size or an
    /// RSA-PSS restriction), before any work.
    pub fn sign_pkcs1v15_prehashed_batch_each<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digests: &[&[u8]],
    ) -> Result<BatchResults<Vec<u8>>, Error> {
        self.pkcs1v15_signing_preconditions(hash, false)?;
        let inputs: Vec<_> = digests
            .iter()
            .map(|d| self.pkcs1v15_representative(hash, d))
            .collect();
        Ok(self.run_batch(rng, inputs, |_, s| {
            Ok(self.public_key().i2osp(&s)?.to_vec())
        }))
    }

    /// Signs, for each request, its message with its key
    /// (RSASSA-PKCS1-v1_5 and `hash`): a batch across keys, for a server
    /// that holds many. Keys of one size share passes of the batch
    /// exponentiation (keys of other sizes work too, in passes of their
    /// own). One result per request, each the bytes
    /// [`sign_pkcs1v15`](Self::sign_pkcs1v15) gives: a key too small or
    /// restricted to RSA-PSS fails its own requests. The outer error: a
    /// weak hash (SHA-1), which fails them all.
    pub fn sign_pkcs1v15_batch_keys<R: TryCryptoRng + ?Sized>(
        rng: &mut R,
        hash: HashAlg,
        requests: &[(&RsaPrivateKey, &[u8])],
    ) -> Result<BatchResults<Vec<u8>>, Error> {
        if hash.is_sha1() {
            return Err(Error::WeakHash);
        }
        let inputs: Vec<Result<SecretUint, Error>> = requests
            .iter()
            .map(|(key, msg)| {
                key.pkcs1v15_signing_preconditions(hash, false)?;
                key.pkcs1v15_representative(hash, &hash.digest(msg))
            })
            .collect();
        let lanes: Vec<BatchInput<'_>> = requests
            .iter()
            .zip(&inputs)
            .filter_map(|((key, _), x)| Some((*key, x.as_ref().ok()?, Mode::default())))
            .collect();
        // One result per lane, in the order of the inputs that were made.
        let mut done = Self::private_op_batch(rng, &lanes).into_iter();
        Ok(requests
            .iter()
            .zip(&inputs)
            .map(|((key, _), x)| {
                let _ = x.as_ref().map_err(|e| *e)?;
                let s = done.next().ok_or(Error::FaultDetected)??;
                Ok(key.public_key().i2osp(&s)?.to_vec())
            })
            .collect())
    }

    /// Signs every message of `msgs` with RSASSA-PSS, `hash` for the
    /// message and MGF1 and a fresh random salt of `salt_len` each, as
    /// [`sign_pss`](Self::sign_pss) does, the private operations batched.
    /// Errors as for [`sign_pkcs1v15_batch`](Self::sign_pkcs1v15_batch)
    /// (a request whose check fails twice fails the call), and a generator
    /// that fails ([`Error::Rng`]).
    pub fn sign_pss_batch<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        msgs: &[&[u8]],
        salt_len: SaltLength,
    ) -> Result<Vec<Vec<u8>>, Error> {
        let params = PssParams::new(hash).salt_len(salt_len);
        let digests: Vec<Vec<u8>> = msgs.iter().map(|m| hash.digest(m)).collect();
        let digests: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
        let results = self.sign_pss_prehashed_batch_each(rng, &params, &digests)?;
        results
            .into_iter()
            .zip(&digests)
            .map(|(r, digest)| match r {
                Err(Error::FaultDetected) => self.sign_pss_prehashed_with(rng, &params, digest),
                r => r,
            })
            .collect()
    }

    /// Signs every digest of `digests` with RSASSA-PSS and `params`, one
    /// result per digest (see
    /// [`sign_pkcs1v15_prehashed_batch_each`](Self::sign_pkcs1v15_prehashed_batch_each)).
    pub fn sign_pss_prehashed_batch_each<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        params: &PssParams,
        digests: &[&[u8]],
    ) -> Result<BatchResults<Vec<u8>>, Error> {
        let s_len = self.pss_signing_preconditions(params, false)?;
        let inputs: Vec<_> = digests
            .iter()
            .map(|d| self.pss_representative(rng, params, s_len, d))
            .collect();
        Ok(self.run_batch(rng, inputs, |_, s| {
            Ok(self.public_key().i2osp(&s)?.to_vec())
        }))
    }

    /// Decrypts every ciphertext of `ciphertexts` with RSAES-OAEP (`hash`
    /// for both the label and MGF1, and `label`), as
    /// [`decrypt_oaep`](Self::decrypt_oaep) does each, the private
    /// operations batched. One result per ciphertext: a wrong length, a
    /// value not below `n` or a padding that is wrong ([`Error::Decryption`])
    /// fails that one alone. The outer error: the key's size or an RSA-PSS
    /// restriction, before any work.
    pub fn decrypt_oaep_batch<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        ciphertexts: &[&[u8]],
    ) -> Result<BatchResults<Zeroizing<Vec<u8>>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let params = crate::oaep::Params::new(hash).label(label);
        self.oaep_decryption_preconditions(&params)?;
        let inputs: Vec<_> = ciphertexts
            .iter()
            .map(|c| self.public_key().read_input(c))
            .collect();
        Ok(self.run_batch(rng, inputs, |_, m| self.oaep_unpad(&params, &m)))
    }

    /// Decrypts every ciphertext of `ciphertexts` with RSAES-PKCS1-v1_5 and
    /// implicit rejection, as [`decrypt_pkcs1v15`](Self::decrypt_pkcs1v15)
    /// does each (a wrong padding gives that ciphertext's synthetic
    /// message, not an error), the private operations batched. One result
    /// per ciphertext: a wrong length or a value not below `n` fails that
    /// one alone. The outer error: the key's size or an RSA-PSS
    /// restriction.
    pub fn decrypt_pkcs1v15_batch<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        ciphertexts: &[&[u8]],
    ) -> Result<BatchResults<Zeroizing<Vec<u8>>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.check_private_size()?;
        self.public_key().check_not_pss_only()?;
        let inputs: Vec<_> = ciphertexts
            .iter()
            .map(|c| self.public_key().read_input(c))
            .collect();
        Ok(self.run_batch(rng, inputs, |i, m| {
            let em = self.public_key().i2osp(&m)?;
            Ok(crate::pkcs1v15::implicit_rejection_unpad(
                &em,
                &self.kdk_key,
                ciphertexts[i],
            ))
        }))
    }

    /// The private operation on every input that was made (the others keep
    /// their errors), then `finish` on each result with its request's
    /// index, in order.
    pub(crate) fn run_batch<R: TryCryptoRng + ?Sized, T>(
        &self,
        rng: &mut R,
        inputs: Vec<Result<SecretUint, Error>>,
        finish: impl Fn(usize, SecretUint) -> Result<T, Error>,
    ) -> BatchResults<T> {
        let lanes: Vec<BatchInput<'_>> = inputs
            .iter()
            .filter_map(|x| Some((self, x.as_ref().ok()?, Mode::default())))
            .collect();
        // One result per lane, in the order of the inputs that were made.
        let mut done = Self::private_op_batch(rng, &lanes).into_iter();
        inputs
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let _ = x.as_ref().map_err(|e| *e)?;
                finish(i, done.next().ok_or(Error::FaultDetected)??)
            })
            .collect()
    }
}
