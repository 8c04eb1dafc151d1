//! ARM semihosting (Arm "Semihosting for AArch32 and AArch64", v2.0): console output and exit are
//! always served; operations that touch host files are refused unless `--allow-host-fs`. Time
//! queries answer in simulated time so runs stay deterministic.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use tigris_cores::{Core, CoreError};

const SYS_OPEN: u32 = 0x01;
const SYS_CLOSE: u32 = 0x02;
const SYS_WRITEC: u32 = 0x03;
const SYS_WRITE0: u32 = 0x04;
const SYS_WRITE: u32 = 0x05;
const SYS_READ: u32 = 0x06;
const SYS_READC: u32 = 0x07;
const SYS_ISERROR: u32 = 0x08;
const SYS_ISTTY: u32 = 0x09;
const SYS_SEEK: u32 = 0x0A;
const SYS_FLEN: u32 = 0x0C;
const SYS_REMOVE: u32 = 0x0E;
const SYS_RENAME: u32 = 0x0F;
const SYS_CLOCK: u32 = 0x10;
const SYS_TIME: u32 = 0x11;
const SYS_SYSTEM: u32 = 0x12;
const SYS_ERRNO: u32 = 0x13;
const SYS_GET_CMDLINE: u32 = 0x15;
const SYS_HEAPINFO: u32 = 0x16;
const SYS_EXIT: u32 = 0x18;
const SYS_EXIT_EXTENDED: u32 = 0x20;
const SYS_ELAPSED: u32 = 0x30;
const SYS_TICKFREQ: u32 = 0x31;
/// ADP_Stopped_ApplicationExit: a normal exit.
const ADP_APPLICATION_EXIT: u32 = 0x20026;
/// First handle given to a host file; 0-2 are the console.
const FIRST_FILE_HANDLE: u32 = 3;
const ENOENT: u32 = 2;
const EPERM: u32 = 1;
const EBADF: u32 = 9;

/// What a semihosting call asks of the run.
pub enum Effect {
    Continue,
    Exit(i32),
}

pub struct Semihosting {
    allow_host_fs: bool,
    clock_hz: u64,
    files: Vec<Option<File>>,
    errno: u32,
    /// Console bytes written by the firmware.
    pub output: Vec<u8>,
    /// Operations refused or unknown, reported once each.
    pub notes: Vec<String>,
}

fn word(core: &dyn Core, addr: u32) -> Result<u32, CoreError> {
    let mut b = [0u8; 4];
    core.read_memory(addr, &mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn bytes(core: &dyn Core, addr: u32, len: u32) -> Result<Vec<u8>, CoreError> {
    let mut b = vec![0u8; len as usize];
    core.read_memory(addr, &mut b)?;
    Ok(b)
}

fn c_string(core: &dyn Core, mut addr: u32) -> Result<Vec<u8>, CoreError> {
    let mut out = Vec::new();
    loop {
        let mut b = [0u8; 1];
        core.read_memory(addr, &mut b)?;
        if b[0] == 0 || out.len() >= 1 << 20 {
            return Ok(out);
        }
        out.push(b[0]);
        addr += 1;
    }
}

impl Semihosting {
    pub fn new(allow_host_fs: bool, clock_hz: u64) -> Self {
        Semihosting { allow_host_fs, clock_hz, files: Vec::new(), errno: 0, output: Vec::new(), notes: Vec::new() }
    }

    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    fn file(&mut self, handle: u32) -> Option<&mut File> {
        self.files.get_mut(handle.checked_sub(FIRST_FILE_HANDLE)? as usize)?.as_mut()
    }

    fn refuse(&mut self, what: &str) -> u32 {
        self.note(format!("semihosting {what} refused: the firmware may not touch host files without --allow-host-fs"));
        self.errno = EPERM;
        u32::MAX
    }

    /// Serve the request the core stopped on (operation in r0, argument in r1), answer it, and say
    /// whether the firmware exits. Bad pointers in the request come back as an error.
    pub fn handle(&mut self, core: &mut dyn Core) -> Result<Effect, CoreError> {
        let op = core.register(0);
        let arg = core.register(1);
        let args = |n: u32| -> Result<Vec<u32>, CoreError> { (0..n).map(|i| word(&*core, arg + 4 * i)).collect() };
        let result = match op {
            SYS_WRITEC => {
                self.output.extend(bytes(core, arg, 1)?);
                0
            }
            SYS_WRITE0 => {
                let s = c_string(core, arg)?;
                self.output.extend(s);
                0
            }
            SYS_WRITE => {
                let a = args(3)?;
                let data = bytes(core, a[1], a[2])?;
                match a[0] {
                    1 | 2 => {
                        self.output.extend(data);
                        0
                    }
                    h => match self.file(h) {
                        Some(f) => a[2] - f.write(&data).unwrap_or(0) as u32,
                        None => a[2],
                    },
                }
            }
            SYS_READ => {
                let a = args(3)?;
                match self.file(a[0]) {
                    Some(f) => {
                        let mut buf = vec![0u8; a[2] as usize];
                        let n = f.read(&mut buf).unwrap_or(0);
                        core.write_memory(a[1], &buf[..n])?;
                        a[2] - n as u32
                    }
                    None => a[2], // the console has no input: end of file
                }
            }
            SYS_READC => u32::MAX,
            SYS_OPEN => {
                let a = args(3)?;
                let name = String::from_utf8_lossy(&bytes(core, a[0], a[2])?).into_owned();
                if name == ":tt" {
                    // The console: read modes get stdin, write modes stdout, append modes stderr.
                    match a[1] {
                        0..=3 => 0,
                        4..=7 => 1,
                        _ => 2,
                    }
                } else if !self.allow_host_fs {
                    self.refuse(&format!("SYS_OPEN of `{name}`"))
                } else {
                    let mut o = std::fs::OpenOptions::new();
                    match a[1] {
                        0..=3 => o.read(true).write(a[1] >= 2),
                        4..=7 => o.write(true).create(true).truncate(true).read(a[1] >= 6),
                        _ => o.append(true).create(true).read(a[1] >= 10),
                    };
                    match o.open(&name) {
                        Ok(f) => {
                            self.files.push(Some(f));
                            FIRST_FILE_HANDLE + self.files.len() as u32 - 1
                        }
                        Err(_) => {
                            self.errno = ENOENT;
                            u32::MAX
                        }
                    }
                }
            }
            SYS_CLOSE => {
                let h = args(1)?[0];
                if h < FIRST_FILE_HANDLE {
                    0
                } else if let Some(slot) = self.files.get_mut((h - FIRST_FILE_HANDLE) as usize) {
                    *slot = None;
                    0
                } else {
                    self.errno = EBADF;
                    u32::MAX
                }
            }
            SYS_ISTTY => u32::from(args(1)?[0] < FIRST_FILE_HANDLE),
            SYS_SEEK => {
                let a = args(2)?;
                match self.file(a[0]).map(|f| f.seek(SeekFrom::Start(a[1] as u64))) {
                    Some(Ok(_)) => 0,
                    _ => u32::MAX,
                }
            }
            SYS_FLEN => {
                let h = args(1)?[0];
                match self.file(h).and_then(|f| f.metadata().ok()) {
                    Some(m) => m.len() as u32,
                    None => u32::MAX,
                }
            }
            SYS_REMOVE | SYS_RENAME | SYS_SYSTEM => {
                if self.allow_host_fs && op != SYS_SYSTEM {
                    self.note(format!("semihosting operation 0x{op:02x} is not implemented"));
                    u32::MAX
                } else {
                    self.refuse(&format!("operation 0x{op:02x}"))
                }
            }
            SYS_ISERROR => u32::from((args(1)?[0] as i32) < 0),
            SYS_ERRNO => self.errno,
            SYS_CLOCK => (core.cycles() * 100 / self.clock_hz) as u32,
            SYS_TIME => (core.cycles() / self.clock_hz) as u32,
            SYS_ELAPSED => {
                let c = core.cycles();
                core.write_memory(arg, &[(c as u32).to_le_bytes(), ((c >> 32) as u32).to_le_bytes()].concat())?;
                0
            }
            SYS_TICKFREQ => self.clock_hz as u32,
            SYS_GET_CMDLINE => {
                let a = args(2)?;
                if a[1] > 0 {
                    core.write_memory(a[0], &[0])?;
                }
                core.write_memory(arg + 4, &0u32.to_le_bytes())?;
                0
            }
            SYS_HEAPINFO => {
                // Zeroes tell the C library to use its linker-script defaults.
                let block = word(core, arg)?;
                core.write_memory(block, &[0u8; 16])?;
                0
            }
            SYS_EXIT => {
                // AArch32: the argument is the reason code itself.
                return Ok(Effect::Exit(if arg == ADP_APPLICATION_EXIT { 0 } else { 1 }));
            }
            SYS_EXIT_EXTENDED => {
                let a = args(2)?;
                return Ok(Effect::Exit(if a[0] == ADP_APPLICATION_EXIT { a[1] as i32 } else { 1 }));
            }
            other => {
                self.note(format!("unknown semihosting operation 0x{other:02x} answered with -1"));
                u32::MAX
            }
        };
        core.finish_semihosting(result)?;
        Ok(Effect::Continue)
    }

    /// Flush host files (called at the end of the run).
    pub fn close(&mut self) {
        for f in self.files.iter_mut().flatten() {
            let _ = f.flush();
        }
    }
}
