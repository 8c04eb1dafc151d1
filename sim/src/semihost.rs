//! Semihosting in two conventions sharing one console and host-file layer:
//! - Arm semihosting (Arm "Semihosting for AArch32 and AArch64", v2.0): operation in r0, parameter
//!   block in r1, result in r0;
//! - the Xtensa ISS `SIMCALL` interface that QEMU also serves: call number in a2, arguments in
//!   a3..a5, result in a2 and errno in a3; numbers as in Linux
//!   `arch/xtensa/platforms/iss/include/platform/simcall-iss.h`, open flags as in ESP-IDF
//!   `components/esp32/include/xtensa/simcall-fcntl.h`.
//!
//! Console output and exit are always served; operations that touch host files are refused unless
//! `--allow-host-fs`. Time queries answer in simulated time so runs stay deterministic.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use tigris_cores::{Core, CoreError, SemihostingAbi};

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
const EINVAL: u32 = 22;
const ENOSYS: u32 = 88; // newlib sys/errno.h (the ISS errno values follow newlib)

/// Xtensa ISS simcall numbers (simcall-iss.h).
mod simc {
    pub const EXIT: u32 = 1;
    pub const READ: u32 = 3;
    pub const WRITE: u32 = 4;
    pub const OPEN: u32 = 5;
    pub const CLOSE: u32 = 6;
    pub const LSEEK: u32 = 19;
    pub const ISATTY: u32 = 21;
    pub const ARGC: u32 = 1000;
    pub const ARGV_SIZE: u32 = 1001;
    /// simcall-fcntl.h open flags; the access mode is the low 2 bits (0 read, 1 write, 2 both).
    pub const O_APPEND: u32 = 0x0008;
    pub const O_CREAT: u32 = 0x0100;
    pub const O_TRUNC: u32 = 0x0200;
    pub const O_EXCL: u32 = 0x0400;
}

/// How a host file is opened, in neutral terms both conventions translate to.
struct OpenMode {
    read: bool,
    write: bool,
    append: bool,
    create: bool,
    truncate: bool,
    exclusive: bool,
}

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

/// The exit code an Arm semihosting exit call asks for, None for another operation: `SYS_EXIT`'s
/// argument is the reason code itself (AArch32), `SYS_EXIT_EXTENDED`'s points to reason and code;
/// a reason other than "application exit" is a failure (1).
pub(crate) fn arm_exit_code(core: &dyn Core, op: u32, arg: u32) -> Result<Option<i32>, CoreError> {
    let (reason, code) = match op {
        SYS_EXIT => (arg, 0),
        SYS_EXIT_EXTENDED => (word(core, arg)?, word(core, arg.wrapping_add(4))? as i32),
        _ => return Ok(None),
    };
    Ok(Some(if reason == ADP_APPLICATION_EXIT {
        code
    } else {
        1
    }))
}

/// The most bytes one request moves: a longer write or read moves this many and answers with
/// the count it moved (both calls allow short transfers), so no request allocates more.
const MAX_TRANSFER: u32 = 1 << 20;

/// Fails, without allocating for it, unless all of `len` bytes at `addr` are in memory: a length
/// the firmware got wrong (0xFFFFFFFF) is a bad pointer, checked a piece at a time.
fn check_range(core: &dyn Core, addr: u32, len: u32) -> Result<(), CoreError> {
    let bad = CoreError::Unmapped {
        addr,
        len: len as usize,
    };
    let end = addr as u64 + len as u64;
    if end > 1 << 32 {
        return Err(bad);
    }
    let mut piece = [0u8; 4096];
    let mut at = addr as u64;
    while at < end {
        let n = (end - at).min(piece.len() as u64) as usize;
        core.read_memory(at as u32, &mut piece[..n])
            .map_err(|_| CoreError::Unmapped {
                addr,
                len: len as usize,
            })?;
        at += n as u64;
    }
    Ok(())
}

/// The first `len` bytes at `addr` (at most [`MAX_TRANSFER`]), once all `len` are known to be
/// in memory.
fn bytes(core: &dyn Core, addr: u32, len: u32) -> Result<Vec<u8>, CoreError> {
    check_range(core, addr, len)?;
    let mut b = vec![0u8; len.min(MAX_TRANSFER) as usize];
    core.read_memory(addr, &mut b)?;
    Ok(b)
}

/// The NUL-terminated string at `addr`, at most `max_len` bytes.
pub(crate) fn c_string(
    core: &dyn Core,
    mut addr: u32,
    max_len: usize,
) -> Result<Vec<u8>, CoreError> {
    let mut out = Vec::new();
    loop {
        let mut b = [0u8; 1];
        core.read_memory(addr, &mut b)?;
        if b[0] == 0 || out.len() >= max_len {
            return Ok(out);
        }
        out.push(b[0]);
        addr += 1;
    }
}

impl Semihosting {
    pub fn new(allow_host_fs: bool, clock_hz: u64) -> Self {
        Semihosting {
            allow_host_fs,
            clock_hz,
            files: Vec::new(),
            errno: 0,
            output: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    fn file(&mut self, handle: u32) -> Option<&mut File> {
        self.files
            .get_mut(handle.checked_sub(FIRST_FILE_HANDLE)? as usize)?
            .as_mut()
    }

    fn refuse(&mut self, what: &str) -> u32 {
        self.note(format!("semihosting {what} refused: the firmware may not touch host files without --allow-host-fs"));
        self.errno = EPERM;
        u32::MAX
    }

    /// Serve the request the core stopped on in its convention, answer it, and say whether the
    /// firmware exits. Bad pointers in the request come back as an error.
    pub fn handle(&mut self, core: &mut dyn Core) -> Result<Effect, CoreError> {
        match core.semihosting_abi() {
            SemihostingAbi::Arm => self.handle_arm(core),
            SemihostingAbi::XtensaSimcall => self.handle_simcall(core),
        }
    }

    // ---- operations shared by both conventions ----

    /// Write to the console (handles 1 and 2) or a host file; the number of bytes written.
    fn write_handle(&mut self, handle: u32, data: Vec<u8>) -> Result<u32, u32> {
        match handle {
            1 | 2 => {
                let n = data.len() as u32;
                self.output.extend(data);
                Ok(n)
            }
            h => match self.file(h) {
                Some(f) => Ok(f.write(&data).unwrap_or(0) as u32),
                None => Err(EBADF),
            },
        }
    }

    /// Read up to `len` bytes; the console has no input (end of file).
    fn read_handle(&mut self, handle: u32, len: u32) -> Result<Vec<u8>, u32> {
        if handle < FIRST_FILE_HANDLE {
            return Ok(Vec::new());
        }
        let f = self.file(handle).ok_or(EBADF)?;
        let mut buf = vec![0u8; len.min(MAX_TRANSFER) as usize];
        let n = f.read(&mut buf).unwrap_or(0);
        buf.truncate(n);
        Ok(buf)
    }

    /// Open a host file (refused without --allow-host-fs); its handle.
    fn open_host(&mut self, name: &str, mode: OpenMode, what: &str) -> Result<u32, u32> {
        if !self.allow_host_fs {
            self.refuse(&format!("{what} of `{name}`"));
            return Err(EPERM);
        }
        let mut o = std::fs::OpenOptions::new();
        o.read(mode.read)
            .write(mode.write && !mode.append)
            .append(mode.append);
        if mode.exclusive {
            o.create_new(true);
        } else {
            o.create(mode.create).truncate(mode.truncate);
        }
        match o.open(name) {
            Ok(f) => {
                self.files.push(Some(f));
                Ok(FIRST_FILE_HANDLE + self.files.len() as u32 - 1)
            }
            Err(_) => Err(ENOENT),
        }
    }

    fn close_handle(&mut self, handle: u32) -> Result<(), u32> {
        if handle < FIRST_FILE_HANDLE {
            return Ok(());
        }
        match self.files.get_mut((handle - FIRST_FILE_HANDLE) as usize) {
            Some(slot @ Some(_)) => {
                *slot = None;
                Ok(())
            }
            _ => Err(EBADF),
        }
    }

    fn seek_handle(&mut self, handle: u32, to: SeekFrom) -> Result<u64, u32> {
        let f = self.file(handle).ok_or(EBADF)?;
        f.seek(to).map_err(|_| EINVAL)
    }

    // ---- Xtensa SIMCALL ----

    /// a2 = call number, a3..a5 = arguments; result in a2, errno in a3 (0 on success).
    fn handle_simcall(&mut self, core: &mut dyn Core) -> Result<Effect, CoreError> {
        let op = core.register(2);
        let a = [core.register(3), core.register(4), core.register(5)];
        let result: Result<u32, u32> = match op {
            simc::EXIT => return Ok(Effect::Exit(a[0] as i32)),
            simc::WRITE => {
                let data = bytes(core, a[1], a[2])?;
                self.write_handle(a[0], data)
            }
            simc::READ => {
                match check_range(core, a[1], a[2]).map(|()| self.read_handle(a[0], a[2]))? {
                    Ok(data) => {
                        core.write_memory(a[1], &data)?;
                        Ok(data.len() as u32)
                    }
                    Err(e) => Err(e),
                }
            }
            simc::OPEN => {
                let name = String::from_utf8_lossy(&c_string(core, a[0], 1 << 20)?).into_owned();
                let flags = a[1];
                let mode = OpenMode {
                    read: flags & 3 != 1,
                    write: flags & 3 != 0,
                    append: flags & simc::O_APPEND != 0,
                    create: flags & simc::O_CREAT != 0,
                    truncate: flags & simc::O_TRUNC != 0,
                    exclusive: flags & simc::O_EXCL != 0,
                };
                self.open_host(&name, mode, "SIMCALL open")
            }
            simc::CLOSE => self.close_handle(a[0]).map(|_| 0),
            simc::LSEEK => {
                let to = match a[2] {
                    0 => Some(SeekFrom::Start(a[1] as u64)),
                    1 => Some(SeekFrom::Current(a[1] as i32 as i64)),
                    2 => Some(SeekFrom::End(a[1] as i32 as i64)),
                    _ => None,
                };
                match to {
                    Some(to) => self.seek_handle(a[0], to).map(|p| p as u32),
                    None => Err(EINVAL),
                }
            }
            simc::ISATTY => Ok(u32::from(a[0] < FIRST_FILE_HANDLE)),
            simc::ARGC => Ok(0),
            simc::ARGV_SIZE => Ok(0),
            other => {
                self.note(format!("unknown SIMCALL {other} answered with -1 (ENOSYS)"));
                Err(ENOSYS)
            }
        };
        let (value, errno) = match result {
            Ok(v) => (v, 0),
            Err(e) => (u32::MAX, e),
        };
        core.finish_semihosting(value)?;
        core.set_register(3, errno)?;
        Ok(Effect::Continue)
    }

    // ---- Arm ----

    fn handle_arm(&mut self, core: &mut dyn Core) -> Result<Effect, CoreError> {
        let op = core.register(0);
        let arg = core.register(1);
        let args = |n: u32| -> Result<Vec<u32>, CoreError> {
            (0..n).map(|i| word(&*core, arg + 4 * i)).collect()
        };
        let result = match op {
            SYS_WRITEC => {
                self.output.extend(bytes(core, arg, 1)?);
                0
            }
            SYS_WRITE0 => {
                let s = c_string(core, arg, 1 << 20)?;
                self.output.extend(s);
                0
            }
            SYS_WRITE => {
                let a = args(3)?;
                let data = bytes(core, a[1], a[2])?;
                // Arm returns the number of bytes *not* written.
                a[2] - self.write_handle(a[0], data).unwrap_or(0)
            }
            SYS_READ => {
                let a = args(3)?;
                check_range(core, a[1], a[2])?;
                let data = self.read_handle(a[0], a[2]).unwrap_or_default();
                core.write_memory(a[1], &data)?;
                a[2] - data.len() as u32
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
                } else {
                    // fopen modes r, rb, r+, r+b, w, wb, w+, w+b, a, ab, a+, a+b.
                    let m = a[1];
                    let mode = OpenMode {
                        read: m < 4 || m % 4 >= 2,
                        write: m >= 4 || m % 4 >= 2,
                        append: m >= 8,
                        create: m >= 4,
                        truncate: (4..8).contains(&m),
                        exclusive: false,
                    };
                    match self.open_host(&name, mode, "SYS_OPEN") {
                        Ok(h) => h,
                        Err(e) => {
                            self.errno = e;
                            u32::MAX
                        }
                    }
                }
            }
            SYS_CLOSE => match self.close_handle(args(1)?[0]) {
                Ok(()) => 0,
                Err(e) => {
                    self.errno = e;
                    u32::MAX
                }
            },
            SYS_ISTTY => u32::from(args(1)?[0] < FIRST_FILE_HANDLE),
            SYS_SEEK => {
                let a = args(2)?;
                match self.seek_handle(a[0], SeekFrom::Start(a[1] as u64)) {
                    Ok(_) => 0,
                    Err(_) => u32::MAX,
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
                if op == SYS_SYSTEM {
                    // Never run, with or without --allow-host-fs, which is about files only.
                    self.note("semihosting SYS_SYSTEM refused: the firmware may not run host commands (--allow-host-fs allows files only)".into());
                    self.errno = EPERM;
                    u32::MAX
                } else if self.allow_host_fs {
                    self.note(format!(
                        "semihosting operation 0x{op:02x} is not implemented"
                    ));
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
                core.write_memory(
                    arg,
                    &[(c as u32).to_le_bytes(), ((c >> 32) as u32).to_le_bytes()].concat(),
                )?;
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
            SYS_EXIT | SYS_EXIT_EXTENDED => {
                let code = arm_exit_code(core, op, arg)?.unwrap_or(1);
                return Ok(Effect::Exit(code));
            }
            other => {
                self.note(format!(
                    "unknown semihosting operation 0x{other:02x} answered with -1"
                ));
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
