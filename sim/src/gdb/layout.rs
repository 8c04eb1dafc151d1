//! The registers a debugger sees, in the order of its 'g' packet, and their target descriptions.

use tigris_cores::Core;
use tigris_targets::{Board, CoreKind};

/// One register of a layout: its name for the debugger and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reg {
    pub name: String,
    pub bits: u32,
}

/// How registers map onto the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    CortexM,
    /// Windowed Xtensa: `ar<n>` shown with WINDOWBASE 0, i.e. counted from the current window
    /// (as ESP-IDF's own gdbstub presents them), WINDOWSTART rotated to match.
    XtensaWindowed,
    XtensaCall0,
}

/// The register layout of a board's core.
#[derive(Debug, Clone)]
pub struct Layout {
    family: Family,
    pub regs: Vec<Reg>,
    /// The target description served as `target.xml`.
    pub xml: String,
}

fn regs(names: &[&str], bits: u32) -> Vec<Reg> {
    names
        .iter()
        .map(|n| Reg {
            name: n.to_string(),
            bits,
        })
        .collect()
}

fn numbered(prefix: &str, count: usize, bits: u32) -> Vec<Reg> {
    (0..count)
        .map(|i| Reg {
            name: format!("{prefix}{i}"),
            bits,
        })
        .collect()
}

/// Cortex-M: gdb's M-profile core feature (r0-r12, sp, lr, pc, xpsr) and, with an FPU, its VFP
/// feature (d0-d15, fpscr; gdb derives s0-s31 from the d registers), both as named in gdb's
/// `gdb/features/arm/arm-m-profile.xml` and `arm-vfpv2.xml`, numbered in this order.
fn cortex_m(fpu: bool) -> Layout {
    let mut core = numbered("r", 13, 32);
    core.extend(regs(&["sp", "lr", "pc", "xpsr"], 32));
    let mut features = vec![("org.gnu.gdb.arm.m-profile", core.clone())];
    let mut all = core;
    if fpu {
        let mut vfp = numbered("d", 16, 64);
        vfp.extend(regs(&["fpscr"], 32));
        all.extend(vfp.clone());
        features.push(("org.gnu.gdb.arm.vfp", vfp));
    }
    Layout {
        family: Family::CortexM,
        xml: target_xml("arm", &features),
        regs: all,
    }
}

/// ESP32-S3 (LX7) and ESP32 (LX6): the register file ESP-IDF's gdbstub sends to Espressif's
/// xtensa-esp32s3-elf-gdb / xtensa-esp32-elf-gdb (espressif/esp-idf,
/// components/esp_gdbstub/src/port/xtensa/include/esp_gdbstub_arch.h, `esp_gdbstub_gdb_regfile_t`):
/// pc, ar0-ar63, the loop, shift and window registers, configid0/1, ps, threadptr, br, scompare1,
/// the MAC16 registers, on the ESP32 its double-precision accelerator's four, then f0-f15, fcr,
/// fsr. The same numbering as Zephyr's scripts/coredump/gdbstubs/arch/xtensa.py gives for both
/// chips (PC 0, AR0 1, LBEG 65, SAR 68, WINDOWBASE 69, PS 73).
fn xtensa_windowed(double_precision_accelerator: bool) -> Layout {
    let mut all = regs(&["pc"], 32);
    all.extend(numbered("ar", 64, 32));
    all.extend(regs(
        &[
            "lbeg",
            "lend",
            "lcount",
            "sar",
            "windowbase",
            "windowstart",
            "configid0",
            "configid1",
            "ps",
            "threadptr",
            "br",
            "scompare1",
            "acclo",
            "acchi",
            "m0",
            "m1",
            "m2",
            "m3",
        ],
        32,
    ));
    if double_precision_accelerator {
        all.extend(regs(&["expstate", "f64r_lo", "f64r_hi", "f64s"], 32));
    }
    all.extend(numbered("f", 16, 32));
    all.extend(regs(&["fcr", "fsr"], 32));
    Layout {
        family: Family::XtensaWindowed,
        xml: target_xml("xtensa", &[("org.gnu.gdb.xtensa.core", all.clone())]),
        regs: all,
    }
}

/// ESP8266 (LX106, CALL0 ABI): a0-a15, pc, sar, litbase, sr176, sr208, ps, the order
/// xtensa-lx106-elf-gdb reads (the lx106 overlay's gdb/regformats/reg-xtensa.dat, which
/// Espressif's esp-gdbstub and Mongoose OS's esp_exc.h `struct regfile` follow). SR 176 and 208
/// are CONFIGID0 and CONFIGID1.
fn xtensa_call0() -> Layout {
    let mut all = numbered("a", 16, 32);
    all.extend(regs(&["pc", "sar", "litbase", "sr176", "sr208", "ps"], 32));
    Layout {
        family: Family::XtensaCall0,
        xml: target_xml("xtensa", &[("org.gnu.gdb.xtensa.core", all.clone())]),
        regs: all,
    }
}

fn target_xml(architecture: &str, features: &[(&str, Vec<Reg>)]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n<architecture>{architecture}</architecture>\n"
    );
    let mut regnum = 0;
    for (name, regs) in features {
        xml.push_str(&format!("<feature name=\"{name}\">\n"));
        for r in regs {
            let kind = match (r.bits, r.name.as_str()) {
                (64, _) => "ieee_double",
                (_, "pc") => "code_ptr",
                (_, "sp" | "ar1" | "a1") => "data_ptr",
                _ => "uint32",
            };
            xml.push_str(&format!(
                "<reg name=\"{}\" bitsize=\"{}\" type=\"{kind}\" regnum=\"{regnum}\"/>\n",
                r.name, r.bits
            ));
            regnum += 1;
        }
        xml.push_str("</feature>\n");
    }
    xml.push_str("</target>\n");
    xml
}

impl Layout {
    pub fn of(board: &Board) -> Layout {
        match board.core.kind {
            CoreKind::XtensaLx7 => xtensa_windowed(false),
            CoreKind::XtensaLx6 => xtensa_windowed(true),
            CoreKind::XtensaLx106 => xtensa_call0(),
            _ => cortex_m(board.core.fpu),
        }
    }

    /// Register `i`'s value on core `which` (0: the core the run follows, 1: a dual-core chip's
    /// second core), None when the core has no such register (sent as unavailable).
    pub fn read(&self, core: &dyn Core, which: usize, i: usize) -> Option<u64> {
        let name = self.regs.get(i)?.name.as_str();
        let number = |prefix: &str| name.strip_prefix(prefix)?.parse::<u32>().ok();
        let get = |n: &str| core.core_register(which, n).map(u64::from);
        match self.family {
            Family::CortexM => match number("d") {
                Some(d) => {
                    let low = get(&format!("s{}", 2 * d))?;
                    Some(low | get(&format!("s{}", 2 * d + 1))? << 32)
                }
                None => get(name),
            },
            Family::XtensaWindowed => match (name, number("ar")) {
                (_, Some(n)) => get(&format!("a{n}")),
                ("windowbase", _) => Some(0),
                ("windowstart", _) => {
                    let (ws, wb) = (get("windowstart")?, get("windowbase")?);
                    Some(u64::from((ws as u16).rotate_right(wb as u32)))
                }
                _ => get(name),
            },
            Family::XtensaCall0 => match name {
                "sr176" => get("configid0"),
                "sr208" => get("configid1"),
                _ => get(name),
            },
        }
    }

    /// Write register `i`. The window registers of a windowed Xtensa are shown relative to the
    /// current window: writes to them are ignored, as gdb only writes back what it read.
    pub fn write(&self, core: &mut dyn Core, i: usize, value: u64) -> Result<(), String> {
        let name = self
            .regs
            .get(i)
            .map(|r| r.name.as_str())
            .ok_or_else(|| format!("no register {i}"))?;
        let number = |prefix: &str| name.strip_prefix(prefix)?.parse::<u32>().ok();
        let mut set = |n: &str, v: u64| {
            core.set_debug_register(n, v as u32)
                .map_err(|e| e.to_string())
        };
        match self.family {
            Family::CortexM => match number("d") {
                Some(d) => {
                    set(&format!("s{}", 2 * d), value)?;
                    set(&format!("s{}", 2 * d + 1), value >> 32)
                }
                None => set(name, value),
            },
            Family::XtensaWindowed => match (name, number("ar")) {
                (_, Some(n)) => set(&format!("a{n}"), value),
                ("windowbase" | "windowstart", _) => Ok(()),
                _ => set(name, value),
            },
            Family::XtensaCall0 => match name {
                "sr176" | "sr208" => Ok(()),
                _ => set(name, value),
            },
        }
    }

    /// Index of the program counter.
    pub fn pc_index(&self) -> usize {
        self.regs.iter().position(|r| r.name == "pc").unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn espressif_numbering_is_kept() {
        let s3 = xtensa_windowed(false);
        let at = |name: &str| s3.regs.iter().position(|r| r.name == name);
        assert_eq!(
            (
                at("pc"),
                at("ar0"),
                at("lbeg"),
                at("sar"),
                at("windowbase"),
                at("ps")
            ),
            (Some(0), Some(1), Some(65), Some(68), Some(69), Some(73))
        );
        // The ESP32's 'g' packet: 105 registers of 4 bytes (Zephyr's SOC_GDB_GPKT_BIN_SIZE 420).
        assert_eq!(xtensa_windowed(true).regs.len() * 4, 420);
        assert_eq!(xtensa_call0().regs.len(), 22);
    }

    #[test]
    fn cortex_m_registers_follow_the_target_description() {
        let with_fpu = cortex_m(true);
        assert_eq!(with_fpu.regs.len(), 17 + 17);
        assert!(with_fpu.xml.contains("org.gnu.gdb.arm.m-profile"));
        assert!(with_fpu.xml.contains("<reg name=\"d15\" bitsize=\"64\""));
        assert!(!cortex_m(false).xml.contains("vfp"));
    }
}
