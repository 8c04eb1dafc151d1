//! Core dumps in probe-rs's format (the `CoreDump` of probe-rs's `probe-rs/src/core/dump.rs`,
//! written with `rmp_serde::encode::write_named`: MessagePack maps with field names), so a simulated
//! run can be compared with, or opened like, a dump probe-rs captured on the chip.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;
use tigris_cores::Core;
use tigris_targets::{Board, CoreKind, RegionKind};

/// A register value as probe-rs stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegisterValue {
    U32(u32),
    U64(u64),
    U128(u128),
}

/// probe-rs `InstructionSet` (probe-rs-target `chip_family.rs`); the variants a Cortex-M dump uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InstructionSet {
    Thumb2,
    A32,
    A64,
    RV32,
    RV32C,
    RV64,
    RV64C,
    Xtensa,
}

/// probe-rs `CoreType` (probe-rs-target `chip_family.rs`, snake_case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreType {
    Armv6m,
    Armv7a,
    Armv7r,
    Armv7m,
    Armv7em,
    Armv8a,
    Armv8m,
    Riscv,
    Riscv64,
    Xtensa,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CoreDump {
    /// By probe-rs register id: Cortex-M r0-r12 = 0-12, SP 13, LR 14, PC 15, xPSR 16
    /// (probe-rs `architecture/arm/core/registers/cortex_m.rs`).
    pub registers: BTreeMap<u16, RegisterValue>,
    pub data: Vec<(Range<u64>, Vec<u8>)>,
    pub instruction_set: InstructionSet,
    pub supports_native_64bit_access: bool,
    pub core_type: CoreType,
    pub fpu_support: bool,
    pub floating_point_register_count: Option<usize>,
}

impl CoreDump {
    /// The core's registers now and the whole of every writable SRAM region of the board.
    pub fn capture(core: &dyn Core, board: &Board) -> Result<CoreDump> {
        let core_type = match board.core.kind {
            CoreKind::CortexM0Plus => CoreType::Armv6m,
            CoreKind::CortexM3 => CoreType::Armv7m,
            CoreKind::CortexM4 | CoreKind::CortexM7 => CoreType::Armv7em,
            CoreKind::CortexM33 => CoreType::Armv8m,
            other => anyhow::bail!(
                "--core-dump: probe-rs core dumps of a {} core are not supported",
                other.name()
            ),
        };
        // The order of `Core::registers`: r0-r12, sp, lr, pc, then xpsr.
        let registers = core
            .registers()
            .iter()
            .enumerate()
            .map(|(i, (_, v))| (i as u16, RegisterValue::U32(*v)))
            .collect();
        let mut data = Vec::new();
        for r in board
            .regions
            .iter()
            .filter(|r| r.kind == RegionKind::Sram && r.access.write)
        {
            let mut bytes = vec![0u8; r.size as usize];
            core.read_memory(r.base, &mut bytes)
                .with_context(|| format!("--core-dump: reading region `{}`", r.name))?;
            data.push((r.base as u64..r.base as u64 + r.size as u64, bytes));
        }
        Ok(CoreDump {
            registers,
            data,
            instruction_set: InstructionSet::Thumb2,
            supports_native_64bit_access: false,
            core_type,
            fpu_support: board.core.fpu,
            floating_point_register_count: board.core.fpu.then_some(32),
        })
    }

    pub fn write(&self, path: &str) -> Result<()> {
        let bytes = rmp_serde::encode::to_vec_named(self).context("encoding the core dump")?;
        std::fs::write(path, bytes).with_context(|| format!("cannot write core dump {path}"))
    }
}
