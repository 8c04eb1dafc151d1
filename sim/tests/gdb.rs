//! `run --gdb`: gdb-multiarch against a Cortex-M run, a small remote-protocol client against the
//! Xtensa boards (Debian's gdb-multiarch has no Xtensa), and the report of a debugged run equal
//! to the run without a debugger.

mod common;

use common::{elf, root, run};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Longest any one step of these tests may take before it fails (and its processes are killed).
const TIMEOUT: Duration = Duration::from_secs(120);

/// A `tigris-sim run --gdb 0` child, killed when dropped.
struct Simulation {
    child: Child,
    port: u16,
    report: std::path::PathBuf,
}

impl Simulation {
    fn start(board: &str, elf: &str) -> Simulation {
        Simulation::start_with(board, elf, &[])
    }

    /// With `extra` options after `--gdb 0`.
    fn start_with(board: &str, elf: &str, extra: &[&str]) -> Simulation {
        let report = common::temp_path("gdb-report.json");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tigris-sim"))
            .args(["run", "--quiet", "--summary", "none", "--board", board, elf])
            .arg("--report")
            .arg(&report)
            .args(["--gdb", "0"])
            .args(extra)
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tigris-sim");
        // The first `gdb:` line on stderr names the port picked (warnings about the ELF may come
        // before it).
        let mut line = String::new();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr);
        while !line.starts_with("gdb:") {
            line.clear();
            assert_ne!(lines.read_line(&mut line).unwrap(), 0, "no gdb: line");
        }
        // Keep reading stderr so the child never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
        let port = line
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        let announced = match extra.contains(&"--gdb-continue") {
            true => "gdb: running; listening for a debugger on 127.0.0.1:",
            false => "gdb: waiting for a debugger on 127.0.0.1:",
        };
        assert!(line.starts_with(announced), "{line}");
        Simulation {
            child,
            port,
            report,
        }
    }

    /// Wait for the run to end; its exit code and report.
    fn finish(mut self) -> (i32, serde_json::Value) {
        let code = wait(&mut self.child, "tigris-sim");
        let text = std::fs::read_to_string(&self.report).unwrap();
        (code, serde_json::from_str(&text).unwrap())
    }
}

impl Drop for Simulation {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.report);
    }
}

/// Wait for `child` within the timeout, killing it after.
fn wait(child: &mut Child, what: &str) -> i32 {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not end within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The report of the same run without a debugger.
fn plain_report(board: &str, elf: &str) -> serde_json::Value {
    run(board, elf, &[]).1
}

#[test]
fn gdb_multiarch_breaks_steps_watches_and_the_report_is_unchanged() {
    if Command::new("gdb-multiarch")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: gdb-multiarch is not installed (apt-get install gdb-multiarch)");
        return;
    }
    let elf = elf("mps2-an386", "demo");
    let sim = Simulation::start("mps2-an386", &elf);
    let mut gdb = Command::new("gdb-multiarch")
        .args(["-batch", "-nx", "-ex", "set architecture arm"])
        .args(["-ex", &format!("target remote :{}", sim.port)])
        .args([
            "-ex",
            "break main",
            "-ex",
            "continue",
            "-ex",
            "next",
            "-ex",
            "step",
        ])
        .args([
            "-ex",
            "info registers",
            "-ex",
            "print rng",
            "-ex",
            "watch rng",
        ])
        .args([
            "-ex",
            "continue",
            "-ex",
            "delete",
            "-ex",
            "stepi",
            "-ex",
            "monitor cycles",
        ])
        .args(["-ex", "continue", &elf])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let code = wait(&mut gdb, "gdb-multiarch");
    let mut out = String::new();
    gdb.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    gdb.stderr.take().unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(code, 0, "{out}");
    for expected in [
        "Breakpoint 1, main () at firmware/programs/demo.c:",
        "crc_init () at firmware/programs/demo.c:",
        "pc             0x",
        "xpsr",
        "$1 = 305441741",
        "Hardware watchpoint 2: rng",
        "Old value = 305441741",
        "cycles: ",
        "[Inferior 1 (process 1) exited normally]",
    ] {
        assert!(out.contains(expected), "no {expected:?} in:\n{out}");
    }
    let (code, debugged) = sim.finish();
    assert_eq!(code, 0);
    assert!(
        debugged == plain_report("mps2-an386", &elf),
        "the report of the run under gdb differs from the run without it"
    );
}

/// A minimal remote-protocol client: packets with checksums, acknowledged.
struct Client {
    stream: TcpStream,
}

impl Client {
    fn connect(port: u16) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        Client { stream }
    }

    fn byte(&mut self) -> u8 {
        let mut b = [0u8];
        self.stream
            .read_exact(&mut b)
            .expect("a byte from the stub");
        b[0]
    }

    /// Send `payload` and return the reply's payload.
    fn ask(&mut self, payload: &str) -> String {
        let sum = payload.bytes().fold(0u8, |s, b| s.wrapping_add(b));
        write!(self.stream, "${payload}#{sum:02x}").unwrap();
        assert_eq!(self.byte(), b'+', "packet {payload} not acknowledged");
        self.reply()
    }

    fn reply(&mut self) -> String {
        while self.byte() != b'$' {}
        let mut payload = Vec::new();
        loop {
            match self.byte() {
                b'#' => break,
                b => payload.push(b),
            }
        }
        let sum = [self.byte(), self.byte()];
        let want = payload.iter().fold(0u8, |s, b| s.wrapping_add(*b));
        assert_eq!(std::str::from_utf8(&sum).unwrap(), format!("{want:02x}"));
        self.stream.write_all(b"+").unwrap();
        // Run-length encoding: `X*n` repeats X (n - 29) more times.
        let mut text = Vec::new();
        let mut bytes = payload.into_iter();
        while let Some(b) = bytes.next() {
            match (b, text.last().copied()) {
                (b'*', Some(last)) => {
                    let count = bytes.next().unwrap() - 29;
                    text.extend(std::iter::repeat_n(last, count as usize));
                }
                _ => text.push(b),
            }
        }
        String::from_utf8(text).unwrap()
    }

    /// `monitor COMMAND`: its output (hex-encoded 'O' packets until the closing OK).
    fn monitor(&mut self, command: &str) -> String {
        let hex: String = command.bytes().map(|b| format!("{b:02x}")).collect();
        let mut reply = self.ask(&format!("qRcmd,{hex}"));
        let mut text = Vec::new();
        while let Some(out) = reply.strip_prefix('O').filter(|_| reply != "OK") {
            let bytes = out.as_bytes().chunks(2);
            text.extend(
                bytes.map(|h| u8::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap()),
            );
            reply = self.reply();
        }
        assert_eq!(reply, "OK");
        String::from_utf8(text).unwrap()
    }

    /// Register `i` of a 'g' reply (32-bit little-endian words).
    fn register(&mut self, i: usize) -> u32 {
        let g = self.ask("g");
        let word = &g[i * 8..i * 8 + 8];
        u32::from_str_radix(word, 16).unwrap().swap_bytes()
    }
}

/// The address of `name` in `elf`'s symbol table.
fn symbol(elf: &str, name: &str) -> u32 {
    let bytes = std::fs::read(elf).unwrap();
    let parsed = goblin::elf::Elf::parse(&bytes).unwrap();
    parsed
        .syms
        .iter()
        .find(|s| parsed.strtab.get_at(s.st_name) == Some(name))
        .map(|s| s.st_value as u32)
        .unwrap_or_else(|| panic!("no {name} in {elf}"))
}

/// A stop reply for SIGINT (`S02`, or `T02` with details): the debugger's Ctrl-C.
fn is_interrupt(reply: &str) -> bool {
    reply.starts_with("S02") || reply.starts_with("T02")
}

/// A stop reply for SIGTRAP (`S05`, or `T05` with details).
fn is_trap(reply: &str) -> bool {
    reply.starts_with("S05") || reply.starts_with("T05")
}

fn entry(elf: &str) -> u32 {
    goblin::elf::Elf::parse(&std::fs::read(elf).unwrap())
        .unwrap()
        .entry as u32
}

/// On an Xtensa board: registers, memory, a breakpoint, a step and the end of the run; then the
/// report equals the run without the debugger. `pc` and `sp`: their indices in the 'g' packet.
fn xtensa_session(board: &str, elf: &str, pc: usize, sp: usize) {
    let sim = Simulation::start(board, elf);
    let mut gdb = Client::connect(sim.port);
    assert!(gdb
        .ask("qSupported:swbreak+;hwbreak+")
        .contains("PacketSize"));
    assert!(is_trap(&gdb.ask("?")));
    assert_eq!(gdb.register(pc), entry(elf));
    assert_ne!(gdb.register(sp), 0, "a1 holds the initial stack pointer");
    let main = symbol(elf, "main");
    let m = gdb.ask(&format!("m{main:x},4"));
    assert_eq!(m.len(), 8, "4 bytes of main: {m}");
    let first_byte = u8::from_str_radix(&m[..2], 16).unwrap();
    assert!(
        gdb.ask("m0,4").starts_with('E'),
        "unmapped memory is an error"
    );
    assert_eq!(gdb.ask(&format!("Z0,{main:x},3")), "OK");
    let stop = gdb.ask("c");
    assert!(
        stop.starts_with("T05") && stop.contains("swbreak"),
        "{stop}"
    );
    assert_eq!(gdb.register(pc), main);
    // A step advances by the length of the instruction at main: op0 8-13 are the 2-byte density
    // instructions, the others 3 bytes (Xtensa ISA Reference Manual, instruction formats).
    let length = if (8..=13).contains(&(first_byte & 0x0F)) {
        2
    } else {
        3
    };
    assert_eq!(gdb.ask(&format!("z0,{main:x},3")), "OK");
    let stepped = gdb.ask("s");
    assert!(is_trap(&stepped), "{stepped}");
    assert_eq!(gdb.register(pc), main + length);
    assert!(gdb.monitor("cycles").contains("cycles: "));
    let end = gdb.ask("c");
    assert!(end.starts_with('W'), "the run's end: {end}");
    let (code, debugged) = sim.finish();
    assert_eq!(code, 0);
    assert!(
        debugged == plain_report(board, elf),
        "the report of the run under the debugger differs from the run without it"
    );
}

#[test]
fn esp32s3_registers_breakpoint_step_and_unchanged_report() {
    // pc is register 0, a1 (as ar1 with WINDOWBASE 0) register 2.
    let elf = root().join("examples/esp32s3-demo.elf");
    xtensa_session("esp32s3", &elf.to_string_lossy(), 0, 2);
}

#[test]
fn esp8266_registers_breakpoint_step_and_unchanged_report() {
    // a0-a15 first, then pc (register 16).
    xtensa_session("esp8266", &elf("esp8266", "demo"), 16, 1);
}

#[test]
fn a_port_in_use_is_named() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = common::sim(&[
        "run",
        "examples/mps2-an386-demo.elf",
        "--board",
        "mps2-an386",
        "--gdb",
        &format!(":{port}"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("--gdb 127.0.0.1:{port}: cannot listen there")),
        "{err}"
    );
    let bad = common::sim(&["run", "examples/mps2-an386-demo.elf", "--gdb", "nowhere:x"]);
    assert_eq!(bad.status.code(), Some(2));
}

impl Client {
    /// Ctrl-C: the interrupt byte, outside any packet (GDB remote protocol, "Interrupts").
    fn interrupt(&mut self) -> String {
        self.stream.write_all(&[0x03]).unwrap();
        self.reply()
    }

    /// `c` without waiting for the stop reply.
    fn resume(&mut self) {
        let sum = b'c';
        write!(self.stream, "$c#{sum:02x}").unwrap();
        assert_eq!(self.byte(), b'+', "c not acknowledged");
    }
}

/// The PC is inside `main` of `elf` (its symbol's size).
fn in_main(elf: &str, pc: u32) -> bool {
    let bytes = std::fs::read(elf).unwrap();
    let parsed = goblin::elf::Elf::parse(&bytes).unwrap();
    parsed
        .syms
        .iter()
        .find(|s| parsed.strtab.get_at(s.st_name) == Some("main"))
        .is_some_and(|s| (s.st_value as u32 & !1..(s.st_value + s.st_size) as u32).contains(&pc))
}

/// A program that never ends is stopped by Ctrl-C inside its loop; it can be resumed and stopped
/// again, and `k` ends the run (exit code 124, the `stopped` limit).
#[test]
fn ctrl_c_stops_a_running_program() {
    let elf = elf("mps2-an386", "fault_busy_loop");
    let sim = Simulation::start("mps2-an386", &elf);
    let mut gdb = Client::connect(sim.port);
    assert!(is_trap(&gdb.ask("?")));
    let mut cycles = Vec::new();
    for _ in 0..2 {
        gdb.resume();
        std::thread::sleep(Duration::from_millis(300));
        let stop = gdb.interrupt();
        assert!(is_interrupt(&stop), "Ctrl-C: {stop}");
        let pc = gdb.register(15);
        assert!(
            in_main(&elf, pc),
            "stopped at 0x{pc:08x}, not in main's loop"
        );
        let text = gdb.monitor("cycles");
        let n: u64 = text
            .split_whitespace()
            .find_map(|w| w.replace(',', "").parse().ok())
            .unwrap_or_else(|| panic!("no cycle count in {text:?}"));
        cycles.push(n);
    }
    assert!(
        cycles[1] > cycles[0],
        "the second stop is later: {cycles:?}"
    );
    let _ = gdb.stream.write_all(b"$k#6b");
    let mut child = sim;
    let code = wait(&mut child.child, "tigris-sim after k");
    assert_eq!(
        code, 124,
        "a run the debugger kills ends as stopped (docs/debugging.md)"
    );
}

/// `--gdb-continue`: the program runs before any debugger connects; one attaching later finds it
/// stopped where it was, inside the loop, with cycles already run.
#[test]
fn gdb_continue_runs_until_a_debugger_attaches() {
    let elf = elf("mps2-an386", "fault_busy_loop");
    let sim = Simulation::start_with("mps2-an386", &elf, &["--gdb-continue"]);
    std::thread::sleep(Duration::from_secs(1));
    let mut gdb = Client::connect(sim.port);
    let stop = gdb.ask("?");
    assert!(is_interrupt(&stop) || is_trap(&stop), "attach: {stop}");
    let pc = gdb.register(15);
    assert!(
        in_main(&elf, pc),
        "attached at 0x{pc:08x}, not in main's loop"
    );
    assert_ne!(
        pc,
        entry(&elf) & !1,
        "the program ran before the debugger came"
    );
}

#[test]
fn the_second_core_of_a_dual_core_chip_is_thread_2() {
    // The ESP32-S3 demo leaves the second core (APP_CPU) in reset: thread 2 shows it there, at
    // the reset vector, while thread 1 stops at the firmware's entry; memory is the chip's.
    let elf = root().join("examples/esp32s3-demo.elf");
    let elf = elf.to_string_lossy();
    let sim = Simulation::start("esp32s3", &elf);
    let mut gdb = Client::connect(sim.port);
    assert!(is_trap(&gdb.ask("?")));
    assert_eq!(gdb.ask("qfThreadInfo"), "m01,02");
    assert_eq!(gdb.ask("qsThreadInfo"), "l");
    assert_eq!(gdb.ask("Hg1"), "OK");
    assert_eq!(gdb.register(0), entry(&elf));
    assert_eq!(gdb.ask("Hg2"), "OK");
    // Held in reset: the LX7 reset vector (ESP32-S3 TRM, "CPU Address Space"; the ROM's
    // ResetVector at 0x40000400).
    assert_eq!(gdb.register(0), 0x4000_0400);
    let main = symbol(&elf, "main");
    assert_eq!(
        gdb.ask(&format!("m{main:x},4")).len(),
        8,
        "memory reads the same from thread 2"
    );
    assert!(
        gdb.ask(&format!("G{}", "0".repeat(8))).starts_with('E'),
        "the second core's registers are read-only"
    );
    assert!(gdb.ask("c").starts_with('W'));
    let (code, debugged) = sim.finish();
    assert_eq!(code, 0);
    assert!(debugged == plain_report("esp32s3", &elf));
}

/// A direct ELF boot of an ESP-IDF app starts on the stack pointer the ESP-IDF bootloader hands
/// over (`boot_stack_used` in the board file): a1 at `call_start_cpu0` is the same whether the app
/// is loaded directly or boots from its flash image through the ROM and the bootloader.
#[test]
fn a_direct_esp_idf_boot_starts_on_the_stack_the_bootloader_hands_over() {
    for (board, fixture, rom) in [
        (
            "esp32",
            "esp32/idf-coredump-test.elf",
            "esp32_rev300_rom.elf",
        ),
        (
            "esp32s3",
            "esp32s3/idf-coredump-test.elf",
            "esp32s3_rev0_rom.elf",
        ),
    ] {
        let Some(elf) = common::fixture(fixture) else {
            return;
        };
        if !common::rom_available(rom) {
            eprintln!(
                "skipped {fixture}: the mask-ROM ELF {rom} was not found (see docs/esp-idf.md)"
            );
            return;
        }
        let Some(image) = common::flash_image(board, &elf) else {
            return;
        };
        let entry = symbol(&elf, "call_start_cpu0");
        // pc is register 0, a1 register 2 (ar1 counted from the current window).
        let direct = {
            let sim = Simulation::start(board, &elf);
            let mut gdb = Client::connect(sim.port);
            assert!(is_trap(&gdb.ask("?")));
            assert_eq!(gdb.register(0), entry, "{board}: the direct boot's entry");
            gdb.register(2)
        };
        let booted = {
            let sim = Simulation::start_with(board, &image.to_string_lossy(), &["--symbols", &elf]);
            let mut gdb = Client::connect(sim.port);
            assert!(is_trap(&gdb.ask("?")));
            assert_eq!(gdb.ask(&format!("Z0,{entry:x},3")), "OK");
            assert!(
                is_trap(&gdb.ask("c")),
                "{board}: the bootloader calls the app"
            );
            assert_eq!(gdb.register(0), entry);
            gdb.register(2)
        };
        let _ = std::fs::remove_file(&image);
        assert_eq!(
            direct, booted,
            "{board}: a1 at call_start_cpu0, direct boot 0x{direct:08x}, through the bootloader 0x{booted:08x}"
        );
    }
}
