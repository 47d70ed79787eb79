//! The data-independent-timing guard: on where the CPU has the switch,
//! nested guards leave it on, and the state found is restored. On aarch64
//! under qemu (`.ci/aarch64-qemu` sets `NUMCRYPT_EXPECT_DIT`), the CPU
//! model has FEAT_DIT, so the switch itself is exercised there.

use numcrypt_limbs::DataIndependentTiming;

#[test]
fn guard_switches_on_nests_and_restores() {
    let available = DataIndependentTiming::is_available();
    if std::env::var_os("NUMCRYPT_EXPECT_DIT").is_some() {
        assert!(available, "this CPU was expected to have FEAT_DIT");
    }
    let before = DataIndependentTiming::is_enabled();
    assert!(!before || available);
    {
        let _outer = DataIndependentTiming::enable();
        assert_eq!(DataIndependentTiming::is_enabled(), available);
        {
            let _inner = DataIndependentTiming::enable();
            assert_eq!(DataIndependentTiming::is_enabled(), available);
        }
        // The inner guard found it on and leaves it on.
        assert_eq!(DataIndependentTiming::is_enabled(), available);
    }
    assert_eq!(DataIndependentTiming::is_enabled(), before);
}

#[test]
fn secret_operations_restore_the_state_they_found() {
    use numcrypt_limbs::{MontyParams, U256};
    let before = DataIndependentTiming::is_enabled();
    let m = MontyParams::new(U256::from_u64(0xffff_ffff_ffff_ffc5)).expect("odd");
    let x = m.to_monty(&U256::from_u64(3));
    let y = m.pow(&x, &U256::from_u64(5));
    assert_eq!(m.from_monty(&y), U256::from_u64(243));
    assert_eq!(DataIndependentTiming::is_enabled(), before);
}
