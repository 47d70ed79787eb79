//! CPU-specific kernels. The only place in numcrypt with `unsafe`: inline
//! assembly, each block with its `// SAFETY:` argument. Every backend here
//! implements [`Kernels`](crate::kernels::Kernels) and is tested against the
//! portable one in the same test run.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_adx;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_ifma;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
