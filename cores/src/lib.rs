//! CPU backends behind one interface (see `core_api`): Cortex-M on Unicorn, Xtensa on our own ISS.

#[cfg(feature = "cortex-m")]
pub mod cortex_m;
pub mod xtensa;
