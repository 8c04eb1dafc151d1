//! Our own firmware (`firmware/clocks/clock_tree.c`) brings each Cortex-M board's clock tree up as
//! its vendor's reference manual prescribes (oscillator, voltage scaling, flash latency read back,
//! PLL, system clock switch, each waiting for its ready bit), then prints over the console UART
//! what the modelled registers reported (issue 12). The firmware bounds every wait and prints
//! which ready bit never came, so a lost ready bit fails here with its name.

mod common;

use common::{elf, root, run, sim};
use tigris_targets::periph::PeripheralSpec;

/// What each board's firmware prints: the state the reference manual says the registers are in
/// once the sequence is through (e.g. SWS = SW = PLL, LATENCY as written, every ON bit with its
/// RDY bit).
fn expected(board: &str) -> Option<&'static str> {
    Some(match board {
        // RCC_CR: HSION|HSIRDY, HSEON|HSERDY, PLLON|PLLRDY (RM0090 §7.3.1).
        "stm32f407vg" => {
            "clock_tree: stm32f407vg PLL 168000000 Hz, SWS=2 FLASH_ACR.LATENCY=5 RCC_CR=0x03030003"
        }
        // With HSEBYP (bit 18): the Nucleo's HSE is the ST-LINK's MCO (RM0383 §6.3.1, RM0390 §6.3.1).
        "stm32f411re" => {
            "clock_tree: stm32f411re PLL 100000000 Hz, SWS=2 FLASH_ACR.LATENCY=3 RCC_CR=0x03070003"
        }
        "stm32f446re" => {
            "clock_tree: stm32f446re PLL 180000000 Hz, SWS=2 FLASH_ACR.LATENCY=5 RCC_CR=0x03070003"
        }
        // HSION|HSIRDY (bits 0, 2), HSEON|HSERDY, PLL1ON|PLL1RDY (RM0433 §8.7); SWS 3 = PLL1.
        "stm32h753" => {
            "clock_tree: stm32h753 PLL1 480000000 Hz, SWS=3 FLASH_ACR.LATENCY=4 RCC_CR=0x03030005"
        }
        // MSISON|MSISRDY (bits 0, 2), PLL1ON|PLL1RDY (RM0456 §11.8).
        "stm32u585" => {
            "clock_tree: stm32u585 PLL1 160000000 Hz, SWS=3 FLASH_ACR.LATENCY=4 RCC_CR=0x03000005"
        }
        // GENCTRL0.SRC 7 = DPLL0; DPLL0STATUS LOCK|CLKRDY (DS60001507 §14, §28).
        "atsamd51p19a" => {
            "clock_tree: atsamd51p19a DPLL0 120000000 Hz, GENCTRL0.SRC=7 DPLL0STATUS=0x00000003 NVMCTRL.AUTOWS=1"
        }
        // MCKR: PRES /2 (bits 6:4 = 1), CSS 2 = PLLA; PMC_SR MOSCXTS|LOCKA|MCKRDY|MOSCSELS|MOSCRCS;
        // MAINF: 12 MHz crystal cycles in 16 slow-clock periods (11057 §28).
        "atsam3x8e" => {
            "clock_tree: atsam3x8e PLLA 84000000 Hz, PMC_MCKR=0x00000012 PMC_SR=0x0003000b MAINF=6000 EEFC_FMR.FWS=4,4"
        }
        // HFCLKSTAT: SRC = Xtal, STATE = running; LFCLKSTAT: STATE running, SRC = Xtal (PS §6.4).
        "nrf52833" => {
            "clock_tree: nrf52833 HFXO 64000000 Hz, HFCLKSTAT=0x00010001 LFCLKSTAT=0x00010001"
        }
        "nrf52840" => {
            "clock_tree: nrf52840 HFXO 64000000 Hz, HFCLKSTAT=0x00010001 LFCLKSTAT=0x00010001"
        }
        // CLK_SYS_SELECTED one-hot of SRC 1 (aux); PLL CS.LOCK with REFDIV 1 (datasheet §2.15, §2.18).
        // PWR: PD, VCOPD and POSTDIVPD cleared through the CLR alias, DSMPD (bit 2) left as reset;
        // CLK_PERI_CTRL.ENABLE set through the SET alias (datasheet §2.1.2, §2.18.4, §2.15.7).
        "rp2040" => {
            "clock_tree: rp2040 PLL_SYS 125000000 Hz, CLK_SYS_SELECTED=0x00000002 PLL_SYS.CS=0x80000001 PLL_SYS.PWR=0x00000004 CLK_PERI_CTRL=0x00000800"
        }
        // The RP2040's blocks at the RP2350's bases; post dividers 5 x 2.
        "rp2350" => {
            "clock_tree: rp2350 PLL_SYS 150000000 Hz, CLK_SYS_SELECTED=0x00000002 PLL_SYS.CS=0x80000001 PLL_SYS.PWR=0x00000004 CLK_PERI_CTRL=0x00000800"
        }
        "mps2-an386" => "clock_tree: mps2-an386 (fixed FPGA clocks)",
        "mps2-an500" => "clock_tree: mps2-an500 (fixed FPGA clocks)",
        _ => return None,
    })
}

/// The start-up delay (simulated seconds) the board's data gives the ready bit that follows the
/// enable bits `enable_mask` of `block.register` when the firmware writes `written` there, if it
/// has one.
fn start_up_seconds(
    blocks: &[PeripheralSpec],
    block: &str,
    register: &str,
    enable_mask: u32,
    written: u32,
) -> Option<f64> {
    let b = blocks.iter().find(|b| b.name == block)?;
    let cr = b.registers.iter().position(|r| r.name == register)?;
    b.registers
        .iter()
        .flat_map(|r| &r.follows)
        .find(|f| f.from == cr && f.mask == enable_mask)
        .map(|f| (f.delay_ns + f.delay_count.map_or(0, |c| c.ns(written))) as f64 * 1e-9)
}

#[test]
fn the_clock_tree_comes_up_and_the_uart_prints_on_every_cortex_m_board() {
    let boards: Vec<_> = tigris_targets::builtin_names()
        .into_iter()
        .map(|n| tigris_targets::load(n).unwrap())
        .filter(|b| b.core.kind.is_cortex_m())
        .collect();
    assert!(boards.len() >= 12, "{} Cortex-M boards", boards.len());
    for board in &boards {
        let name = board.name.as_str();
        let want = expected(name).unwrap_or_else(|| {
            panic!("{name}: a new Cortex-M board: give firmware/clocks/clock_tree.c and this test its clock tree")
        });
        let (code, r, _) = run(name, &elf(name, "clock_tree"), &[]);
        let console = r["console"].as_str().unwrap();
        assert_eq!(code, 0, "{name}: {console}");
        assert_eq!(
            console,
            format!("{want}\nclock_tree: every ready bit seen\n"),
            "{name}"
        );
        // A firmware that started the HSE (RCC_CR.HSEON, bit 16, in what it printed) waited its
        // start-up time before HSERDY (the board data's delay): the run lasts at least that long.
        let hse_on = want
            .split("RCC_CR=0x")
            .nth(1)
            .and_then(|v| u32::from_str_radix(v, 16).ok())
            .is_some_and(|v| v & 0x1_0000 != 0);
        let seconds = r["totals"]["seconds"].as_f64().unwrap();
        if let (true, Some(t)) = (
            hse_on,
            start_up_seconds(&board.peripherals, "RCC", "CR", 0x1_0000, 0x1_0000),
        ) {
            assert!(
                t > 0.0 && seconds >= t,
                "{name}: {seconds} s, HSE start-up {t} s"
            );
        }
        // The SAM3X firmware starts the crystal (CKGR_MOR: KEY, MOSCXTST = 8, MOSCRCEN, MOSCXTEN)
        // and waits for MOSCXTS.
        let mor = 0x0037_0809;
        if let Some(t) = start_up_seconds(&board.peripherals, "PMC", "CKGR_MOR", 0x1, mor) {
            assert!(
                t > 0.0 && seconds >= t,
                "{name}: {seconds} s, crystal start-up {t} s"
            );
        }
    }
}

/// Run `board`'s clock_tree firmware on a copy of its board file changed by `edit` (given the
/// directory the copy goes to); returns the exit code and the console.
fn run_edited(
    board: &str,
    edit: impl Fn(&str, &std::path::Path) -> String,
) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("tigris-clock-{board}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text =
        std::fs::read_to_string(root().join(format!("targets/boards/{board}.toml"))).unwrap();
    let file = dir.join(format!("{board}-edited.toml"));
    std::fs::write(&file, edit(&text, &dir)).unwrap();
    let report = dir.join("report.json");
    let out = sim(&[
        "run",
        "--quiet",
        "--board",
        file.to_str().unwrap(),
        &elf(board, "clock_tree"),
        "--report",
        report.to_str().unwrap(),
    ]);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        r["console"].as_str().unwrap().to_string(),
    )
}

/// A copy of built-in chip file `chip` in `dir` without its block `block` (the rest of the chip's
/// blocks stay); its path, for a board file's `peripherals`.
fn chip_without(chip: &str, block: &str, dir: &std::path::Path) -> String {
    let text =
        std::fs::read_to_string(root().join(format!("targets/peripherals/{chip}.toml"))).unwrap();
    let start = text
        .find(&format!("[[block]]\nname = \"{block}\""))
        .unwrap();
    let next = start + 1 + text[start + 1..].find("[[block]]").unwrap();
    let without = dir.join(format!("{chip}-no-{block}.toml"));
    std::fs::write(&without, format!("{}{}", &text[..start], &text[next..])).unwrap();
    without.to_str().unwrap().replace('\\', "/")
}

/// The modelled ready bits are what the firmware waits for: without the RCC model (plain memory
/// that reads 0) the same firmware reports the first ready bit it never saw.
#[test]
fn without_the_rcc_model_the_firmware_names_the_ready_bit_it_missed() {
    let (code, console) = run_edited("stm32f407vg", |text, dir| {
        let path = chip_without("stm32f4", "RCC", dir);
        text.replace(
            "peripherals = [\"stm32f4\", \"stm32f407\"]",
            &format!("peripherals = [\"{path}\", \"stm32f407\"]"),
        )
    });
    assert_eq!(code, Some(1), "{console}");
    assert!(
        console.ends_with("clock_tree: timeout waiting for HSERDY\n"),
        "{console}"
    );
}

/// The same on the SAM3X without its PMC block (the UART, in the same chip file, still prints):
/// the crystal's MOSCXTS is the first ready bit that never comes.
#[test]
fn without_the_pmc_model_the_sam3x_firmware_names_the_ready_bit_it_missed() {
    let (code, console) = run_edited("atsam3x8e", |text, dir| {
        let path = chip_without("sam3x", "PMC", dir);
        text.replace(
            "peripherals = [\"sam3x\"]",
            &format!("peripherals = [\"{path}\"]"),
        )
    });
    assert_eq!(code, Some(1), "{console}");
    assert!(
        console.ends_with("clock_tree: timeout waiting for MOSCXTS\n"),
        "{console}"
    );
}
