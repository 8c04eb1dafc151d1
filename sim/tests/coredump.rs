//! The third-party firmware of probe-rs's unwind tests runs to its `bkpt`, and the simulator's core
//! state there equals what probe-rs captured on the real chip (`.coredump` beside each ELF in
//! `../shared/fixtures/cortex-m/`): PC, LR, SP, xPSR, r0-r12 and the memory the dump saved.
//!
//! The dump format is probe-rs's `CoreDump` (probe-rs `probe-rs/src/core/dump.rs`), MessagePack
//! with named fields (`rmp_serde::encode::write_named`); registers by probe-rs id (Cortex-M: r0-r12
//! = 0-12, SP 13, LR 14, PC 15, xPSR 16, probe-rs `architecture/arm/core/registers/cortex_m.rs`).

mod common;

use common::{root, sim};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
enum RegisterValue {
    U32(u32),
    U64(u64),
    U128(u128),
}

#[derive(Deserialize)]
struct CoreDump {
    registers: HashMap<u16, RegisterValue>,
    data: Vec<(Range<u64>, Vec<u8>)>,
}

impl CoreDump {
    fn load(path: &std::path::Path) -> CoreDump {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        rmp_serde::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{}: not a probe-rs core dump: {e}", path.display()))
    }

    fn register(&self, id: u16) -> u32 {
        match self.registers.get(&id) {
            Some(RegisterValue::U32(v)) => *v,
            other => panic!("register {id}: {other:?}"),
        }
    }

    /// The byte at `addr`, if the dump saved it.
    fn byte(&self, addr: u64) -> Option<u8> {
        self.data
            .iter()
            .find(|(r, _)| r.contains(&addr))
            .map(|(r, d)| d[(addr - r.start) as usize])
    }
}

const NAMES: [&str; 17] = [
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr",
    "pc", "xpsr",
];

/// Run `elf` on `board` to its breakpoint with RAM filled with `fill` first: the simulator's dump.
fn simulate(fw: &std::path::Path, board: &str, fill: &str) -> CoreDump {
    let name = fw.file_stem().unwrap().to_string_lossy();
    let ours = std::env::temp_dir().join(format!(
        "tigris-coredump-{}-{name}-{fill}.coredump",
        std::process::id()
    ));
    let (fw_s, ours_s) = (fw.to_string_lossy(), ours.to_string_lossy());
    // The firmware reaches its breakpoint within a few million cycles on the chip.
    let args = [
        "run",
        "--quiet",
        "--board",
        board,
        &fw_s,
        "--max-cycles",
        "200000000",
        "--fill-ram",
        fill,
        "--core-dump",
        &ours_s,
    ];
    let out = sim(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("fault: breakpoint"),
        "{name}: did not stop at its bkpt:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = CoreDump::load(&ours);
    let _ = std::fs::remove_file(&ours);
    dump
}

/// Compare the simulator with probe-rs's dump from the chip. Memory the firmware never wrote holds
/// what the RAM powered up with on the chip, and r0-r12 start with what the flasher left in them
/// (UNKNOWN out of reset): the simulator runs twice, with RAM and r0-r12 filled with 0x00 and with
/// 0xFF, and a byte (or register) that differs between the two runs came from such state and is
/// left out, counted. Everything else must equal the chip.
fn compare_with_silicon(elf: &str, board: &str) {
    let dir = root().join("../shared/fixtures/cortex-m");
    let (fw, chip) = (
        dir.join(format!("{elf}.elf")),
        dir.join(format!("{elf}.coredump")),
    );
    if !fw.exists() || !chip.exists() {
        eprintln!("skipped: fixture absent: {}", fw.display());
        return;
    }
    let (zeros, ones, chip_dump) = (
        simulate(&fw, board, "0x00"),
        simulate(&fw, board, "0xff"),
        CoreDump::load(&chip),
    );
    let mut mismatches = Vec::new();
    let mut uninitialised = Vec::new();
    for (id, name) in NAMES.iter().enumerate().map(|(i, n)| (i as u16, *n)) {
        let (s, c) = (zeros.register(id), chip_dump.register(id));
        if s != ones.register(id) {
            uninitialised.push(name);
        } else if s != c {
            mismatches.push(format!("{name}: simulator 0x{s:08x}, chip 0x{c:08x}"));
        }
    }
    // The stack the dump saved: from SP up to the end of its range.
    let sp = chip_dump.register(13) as u64;
    let range = chip_dump
        .data
        .iter()
        .find(|(r, _)| r.contains(&sp))
        .map(|(r, _)| r.clone())
        .expect("the dump holds the stack");
    let (mut compared, mut never_written) = (0, 0);
    for addr in sp..range.end {
        let (s, c) = (zeros.byte(addr), chip_dump.byte(addr));
        if s != ones.byte(addr) {
            never_written += 1;
            continue;
        }
        compared += 1;
        if s != c && mismatches.len() < 40 {
            mismatches.push(format!(
                "stack byte 0x{addr:08x}: simulator {s:02x?}, chip {c:02x?}"
            ));
        }
    }
    eprintln!(
        "{elf}: {compared} stack bytes equal the chip; {never_written} never written (left out); registers from never-written memory or reset values: {uninitialised:?}"
    );
    assert!(compared > 0);
    assert!(
        !uninitialised
            .iter()
            .any(|r| ["pc", "lr", "sp", "xpsr"].contains(r)),
        "{uninitialised:?}"
    );
    assert!(
        mismatches.is_empty(),
        "{elf} differs from the chip ({compared} stack bytes compared):\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn rp2040_stops_at_its_breakpoint_as_on_the_chip() {
    compare_with_silicon("RP2040_full_unwind", "rp2040");
}

#[test]
fn nrf52833_stops_at_its_breakpoint_as_on_the_chip() {
    compare_with_silicon("nRF52833_xxAA_full_unwind", "nrf52833");
}

#[test]
fn atsamd51_stops_at_its_breakpoint_as_on_the_chip() {
    compare_with_silicon("atsamd51p19a", "atsamd51p19a");
}
