//! AWS-LC's `BN_mod_exp_mont_consttime` for the modexp bench, through
//! aws-lc-sys (aws-lc-rs has no big-number API). The only `unsafe` in the
//! benches: a handful of C calls, each checked.
#![allow(unsafe_code)]

use aws_lc_sys::{
    BIGNUM, BN_CTX, BN_CTX_free, BN_CTX_new, BN_bn2le_padded, BN_free, BN_le2bn,
    BN_mod_exp_mont_consttime, BN_new,
};

/// An AWS-LC `BIGNUM`, freed on drop.
pub struct Bn(*mut BIGNUM);

impl Bn {
    /// The value of little-endian words.
    pub fn from_words(words: &[u64]) -> Self {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        // SAFETY: `bytes` is valid for its length; a null `ret` asks for a
        // new BIGNUM, which is checked below.
        let bn = unsafe { BN_le2bn(bytes.as_ptr(), bytes.len(), core::ptr::null_mut()) };
        assert!(!bn.is_null(), "BN_le2bn");
        Self(bn)
    }

    /// The value as `limbs` little-endian words.
    pub fn words(&self, limbs: usize) -> Vec<u64> {
        let mut bytes = vec![0u8; 8 * limbs];
        // SAFETY: `self.0` is a live BIGNUM and `bytes` is writable for its
        // length.
        let ok = unsafe { BN_bn2le_padded(bytes.as_mut_ptr(), bytes.len(), self.0) };
        assert_eq!(ok, 1, "BN_bn2le_padded");
        bytes
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

impl Drop for Bn {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from BN_le2bn/BN_new and is freed once.
        unsafe { BN_free(self.0) }
    }
}

/// `out = base^exp mod m` with `BN_mod_exp_mont_consttime`, the Montgomery
/// context built per call (no `BN_MONT_CTX` passed), as OpenSSL's bench
/// entry does.
pub struct ModExp {
    out: Bn,
    ctx: *mut BN_CTX,
}

impl ModExp {
    pub fn new() -> Self {
        // SAFETY: plain constructors; both results are checked.
        let (out, ctx) = unsafe { (BN_new(), BN_CTX_new()) };
        assert!(!out.is_null() && !ctx.is_null(), "BN_new / BN_CTX_new");
        Self { out: Bn(out), ctx }
    }

    pub fn run(&mut self, base: &Bn, exp: &Bn, m: &Bn) -> &Bn {
        // SAFETY: every pointer is a live BIGNUM or BN_CTX owned by these
        // wrappers; a null BN_MONT_CTX is allowed (built per call).
        let ok = unsafe {
            BN_mod_exp_mont_consttime(self.out.0, base.0, exp.0, m.0, self.ctx, core::ptr::null())
        };
        assert_eq!(ok, 1, "BN_mod_exp_mont_consttime");
        &self.out
    }
}

impl Drop for ModExp {
    fn drop(&mut self) {
        // SAFETY: `self.ctx` came from BN_CTX_new and is freed once.
        unsafe { BN_CTX_free(self.ctx) }
    }
}
