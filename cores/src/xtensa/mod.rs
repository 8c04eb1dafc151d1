//! Xtensa instruction-set simulator (LX106, LX6, LX7). Under construction.
