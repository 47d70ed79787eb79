//! One field in whichever of two representations is the faster on this
//! architecture, where that differs between architectures.

/// The architecture's choice between two representations, by type:
/// `<ByArch<A_HERE> as Pick<A, B>>::Backend` is `A` where `A_HERE` (a
/// constant of the limbs crate's, the one place that knows the
/// architecture, such as [`numcrypt_limbs::fixed::P414_UNSATURATED`]) and
/// `B` elsewhere. The field type is then exactly the chosen backend's: no
/// wrapper, nothing to forward, the same bounds.
pub struct ByArch<const A_HERE: bool>;

/// See [`ByArch`].
pub trait Pick<A, B> {
    /// The representation chosen.
    type Backend;
}

impl<A, B> Pick<A, B> for ByArch<true> {
    type Backend = A;
}

impl<A, B> Pick<A, B> for ByArch<false> {
    type Backend = B;
}
