//! Cortex-M on Unicorn.
