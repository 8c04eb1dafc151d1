//! Source lines and inlined frames from an ELF's DWARF (`addr2line` over `gimli`), and demangled
//! symbol names (Rust v0 and legacy, C++), for every PC a user sees.

use goblin::elf::{section_header::SHF_COMPRESSED, Elf};
use std::borrow::Cow;
use std::sync::Arc;

/// A DWARF section's bytes, shared.
pub type Reader = gimli::EndianArcSlice<gimli::RunTimeEndian>;

/// The bytes of the ELF's section `name`, or `None` when it is absent or compressed (not read).
pub fn section_bytes(elf: &Elf, bytes: &[u8], name: &str) -> Option<Reader> {
    let data = elf
        .section_headers
        .iter()
        .find(|sh| {
            sh.sh_flags & u64::from(SHF_COMPRESSED) == 0
                && elf.shdr_strtab.get_at(sh.sh_name) == Some(name)
        })
        .and_then(|sh| sh.file_range())
        .and_then(|r| bytes.get(r))?;
    Some(gimli::EndianArcSlice::new(Arc::from(data), endian(elf)))
}

fn endian(elf: &Elf) -> gimli::RunTimeEndian {
    if elf.little_endian {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    }
}

/// One frame at a PC, innermost first: an inlined function, then the function it was inlined into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFrame {
    /// The function's name, demangled (`None` when DWARF has no name for it).
    pub function: Option<String>,
    /// `file:line` (the path as the compiler recorded it), when the line table covers the PC.
    pub location: Option<String>,
}

/// The DWARF of one ELF.
pub struct DebugInfo {
    context: addr2line::Context<Reader>,
    /// Every unit's compilation directory, with a trailing `/`, longest first.
    comp_dirs: Vec<String>,
}

impl std::fmt::Debug for DebugInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DebugInfo")
    }
}

impl DebugInfo {
    /// The ELF's DWARF, or `None` when it has no line table or unit (stripped, or built without
    /// `-g`) or its debug sections are compressed (not read: say so with the ELF's name).
    pub fn load(elf: &Elf, bytes: &[u8]) -> Option<DebugInfo> {
        let section = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            Ok(section_bytes(elf, bytes, id.name())
                .unwrap_or_else(|| gimli::EndianArcSlice::new(Arc::from(&[][..]), endian(elf))))
        };
        let dwarf = gimli::Dwarf::load(section).ok()?;
        let (mut comp_dirs, mut units) = (Vec::new(), 0);
        let mut headers = dwarf.units();
        while let Ok(Some(header)) = headers.next() {
            units += 1;
            let dir = dwarf.unit(header).ok().and_then(|u| u.comp_dir);
            comp_dirs.extend(dir.as_ref().and_then(dir_with_slash));
        }
        if units == 0 {
            return None;
        }
        comp_dirs.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        comp_dirs.dedup();
        let context = addr2line::Context::from_dwarf(dwarf).ok()?;
        Some(DebugInfo { context, comp_dirs })
    }

    /// The frames at `pc`, innermost (inlined) first; empty when DWARF does not cover it.
    pub fn frames(&self, pc: u32) -> Vec<SourceFrame> {
        let Ok(mut frames) = self.context.find_frames(u64::from(pc)).skip_all_loads() else {
            return Vec::new();
        };
        // A path under its unit's compilation directory is shown relative to it, as gdb does; when
        // the PC's unit is not found, relative to the longest compilation directory it lies under.
        let unit_dir = self
            .context
            .find_dwarf_and_unit(u64::from(pc))
            .skip_all_loads()
            .and_then(|unit| unit.comp_dir.as_ref().and_then(dir_with_slash));
        let shown = |file: &str| -> String {
            unit_dir
                .iter()
                .chain(&self.comp_dirs)
                .find_map(|dir| file.strip_prefix(dir.as_str()))
                .unwrap_or(file)
                .to_string()
        };
        let mut out = Vec::new();
        while let Ok(Some(frame)) = frames.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|f| f.demangle().ok())
                .map(Cow::into_owned);
            let location = frame.location.and_then(|l| {
                let file = shown(l.file?);
                Some(match l.line {
                    Some(line) => format!("{file}:{line}"),
                    None => file.to_string(),
                })
            });
            out.push(SourceFrame { function, location });
        }
        out
    }
}

/// A compilation directory as a prefix to strip: with one trailing `/`.
fn dir_with_slash(dir: &Reader) -> Option<String> {
    let dir = gimli::Reader::to_string_lossy(dir).ok()?;
    Some(format!("{}/", dir.trim_end_matches('/')))
}

/// A linker symbol as users read it: Rust (v0 and legacy, without the hash) and C++ demangled;
/// `None` when the name is not mangled.
pub fn demangle(symbol: &str) -> Option<String> {
    match addr2line::demangle_auto(Cow::Borrowed(symbol), None) {
        Cow::Owned(name) if name != symbol => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_and_cpp_names_are_demangled_and_c_names_left_alone() {
        assert_eq!(
            demangle("_ZN17nested_exceptions18__cortex_m_rt_main17h7d3ef2420aa50a5aE").as_deref(),
            Some("nested_exceptions::__cortex_m_rt_main")
        );
        assert_eq!(
            demangle("_RNvCs1234_7mycrate4main").as_deref(),
            Some("mycrate::main")
        );
        assert_eq!(
            demangle("_ZN4tflm6Kernel4evalEPKci").as_deref(),
            Some("tflm::Kernel::eval(char const*, int)")
        );
        assert_eq!(demangle("main"), None);
        assert_eq!(demangle("_SEGGER_RTT"), None);
    }
}
