//! What can be wrong with a plan ([`PlanError`]), the section directory's types, and the
//! bounds-checked byte access every parse goes through: a read outside its section is an error, never
//! a panic.
//!
//! Sources: tigris-ml 0.12.1 `tigris/emitters/binary/reader.py` and `section_types` of
//! `tigris/schema/tigris-plan-v10.json` (section codes); tigris-runtime include/tigris.h (section
//! directory).

use super::format::{MAX_SCHEMA, MIN_SCHEMA};

/// Everything that can be wrong with a plan. Messages name the field or section and the byte offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PlanError {
    #[error("not a TiGrIS plan: magic at offset 0 is {found:02x?}, expected \"TGRS\"")]
    BadMagic { found: Vec<u8> },
    #[error("plan is {len} bytes, shorter than its 48-byte header")]
    TooShort { len: usize },
    #[error("unsupported schema version {version} (header offset 4); this reader knows {MIN_SCHEMA} to {MAX_SCHEMA}")]
    UnsupportedVersion { version: u32 },
    #[error("header file_size (offset 8) says {header} bytes, the plan has {actual}: truncated or padded")]
    FileSizeMismatch { header: u32, actual: usize },
    #[error("section directory offset {offset} (header offset 12) lies inside the 48-byte header")]
    DirectoryInHeader { offset: u32 },
    #[error("section directory starting at offset {offset} has no type-0 end entry before the end of the plan")]
    NoDirectoryEnd { offset: u32 },
    #[error("unknown section type {kind} in the directory entry at offset {at}")]
    UnknownSection { kind: u32, at: u64 },
    #[error("section {name} (type {kind}) listed twice; second entry at offset {at}")]
    DuplicateSection {
        name: &'static str,
        kind: u32,
        at: u64,
    },
    #[error("section {name} starts at offset {offset}, past the end of the {len}-byte plan")]
    SectionPastEnd {
        name: &'static str,
        offset: u32,
        len: usize,
    },
    #[error("section {name} starts at offset {offset}, inside the header or the section directory (which ends at {dir_end})")]
    SectionOverlapsDirectory {
        name: &'static str,
        offset: u32,
        dir_end: u64,
    },
    #[error("required section {name} (type {kind}) is missing")]
    MissingSection { name: &'static str, kind: u32 },
    #[error(
        "{what} needs bytes {start}..{end}, outside section {section} ({sec_start}..{sec_end})"
    )]
    OutOfSection {
        what: String,
        section: &'static str,
        start: u64,
        end: u64,
        sec_start: u64,
        sec_end: u64,
    },
    #[error("{what}: the string at offset {offset} of section strings has no NUL before the section ends")]
    UnterminatedString { what: String, offset: u32 },
    #[error("{what}: the string at offset {offset} of section strings is not UTF-8")]
    BadString { what: String, offset: u32 },
    #[error("{what} refers to {target} {index}, but the plan has {count}")]
    BadReference {
        what: String,
        target: &'static str,
        index: u32,
        count: usize,
    },
    #[error("{what}: {reason}")]
    Invalid { what: String, reason: String },
}

pub(super) type Result<T> = std::result::Result<T, PlanError>;

pub(super) fn invalid(what: impl Into<String>, reason: impl Into<String>) -> PlanError {
    PlanError::Invalid {
        what: what.into(),
        reason: reason.into(),
    }
}

/// Section types of the directory (tigris-ml 0.12.1 emitters/binary/reader.py; `section_types` of the v10
/// schema JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    Tensors = 1,
    Ops = 2,
    Stages = 3,
    TilePlans = 4,
    IndexPool = 5,
    ShapePool = 6,
    Strings = 7,
    Weights = 8,
    QuantParams = 9,
    WeightBlocks = 10,
    OpAttributes = 11,
    State = 12,
    Subgraphs = 13,
}

const SECTIONS: [Section; 13] = [
    Section::Tensors,
    Section::Ops,
    Section::Stages,
    Section::TilePlans,
    Section::IndexPool,
    Section::ShapePool,
    Section::Strings,
    Section::Weights,
    Section::QuantParams,
    Section::WeightBlocks,
    Section::OpAttributes,
    Section::State,
    Section::Subgraphs,
];

impl Section {
    pub(super) fn from_code(code: u32) -> Option<Section> {
        SECTIONS.iter().copied().find(|s| *s as u32 == code)
    }
    pub(super) fn name(self) -> &'static str {
        match self {
            Section::Tensors => "tensors",
            Section::Ops => "ops",
            Section::Stages => "stages",
            Section::TilePlans => "tile_plans",
            Section::IndexPool => "index_pool",
            Section::ShapePool => "shape_pool",
            Section::Strings => "strings",
            Section::Weights => "weights",
            Section::QuantParams => "quant_params",
            Section::WeightBlocks => "weight_blocks",
            Section::OpAttributes => "op_attributes",
            Section::State => "state",
            Section::Subgraphs => "subgraphs",
        }
    }
}

/// Where a section lies: from its directory offset to the next larger section offset, or to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SectionSpan {
    pub(super) section: Section,
    pub(super) start: u64,
    pub(super) end: u64,
}

/// Little-endian field reader over one record that was already bounds-checked; a read past the
/// slice yields 0 instead of panicking (cannot happen for the record sizes used here).
pub(super) struct Fields<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    pub(super) fn new(b: &'a [u8]) -> Self {
        Fields { b, pos: 0 }
    }
    pub(super) fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(s) = self.b.get(self.pos..self.pos + N) {
            out.copy_from_slice(s);
        }
        self.pos += N;
        out
    }
    pub(super) fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    pub(super) fn i8(&mut self) -> i8 {
        self.take::<1>()[0] as i8
    }
    pub(super) fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    pub(super) fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    pub(super) fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    pub(super) fn f32(&mut self) -> f32 {
        f32::from_le_bytes(self.take())
    }
}

pub(super) struct Reader<'a> {
    pub(super) data: &'a [u8],
    pub(super) spans: Vec<SectionSpan>,
}

impl<'a> Reader<'a> {
    pub(super) fn span(&self, s: Section) -> Option<SectionSpan> {
        self.spans.iter().copied().find(|x| x.section == s)
    }

    /// Bytes `start..start+len` of the plan, which must lie inside section `s`.
    pub(super) fn bytes(
        &self,
        s: Section,
        start: u64,
        len: u64,
        what: &dyn Fn() -> String,
    ) -> Result<&'a [u8]> {
        let Some(span) = self.span(s) else {
            return Err(PlanError::MissingSection {
                name: s.name(),
                kind: s as u32,
            });
        };
        let end = start.saturating_add(len);
        let outside = || PlanError::OutOfSection {
            what: what(),
            section: s.name(),
            start,
            end,
            sec_start: span.start,
            sec_end: span.end,
        };
        if start < span.start || end > span.end {
            return Err(outside());
        }
        self.data
            .get(start as usize..end as usize)
            .ok_or_else(outside)
    }

    /// Record `index` of a table of `size`-byte records at the start of section `s` (or at `base`).
    pub(super) fn record(
        &self,
        s: Section,
        base: u64,
        index: u64,
        size: u64,
        what: &dyn Fn() -> String,
    ) -> Result<Fields<'a>> {
        Ok(Fields::new(self.bytes(
            s,
            base + index * size,
            size,
            what,
        )?))
    }

    pub(super) fn string(&self, offset: u32, what: &dyn Fn() -> String) -> Result<String> {
        let span = self
            .span(Section::Strings)
            .ok_or(PlanError::MissingSection {
                name: "strings",
                kind: 7,
            })?;
        let start = span.start + offset as u64;
        let tail = self.bytes(
            Section::Strings,
            start,
            span.end.saturating_sub(start).max(1),
            what,
        )?;
        let Some(nul) = tail.iter().position(|b| *b == 0) else {
            return Err(PlanError::UnterminatedString {
                what: what(),
                offset,
            });
        };
        String::from_utf8(tail[..nul].to_vec()).map_err(|_| PlanError::BadString {
            what: what(),
            offset,
        })
    }

    /// `count` u16 elements of the index pool from element `offset`.
    pub(super) fn indices(
        &self,
        offset: u16,
        count: u64,
        what: &dyn Fn() -> String,
    ) -> Result<Vec<u16>> {
        self.pool(Section::IndexPool, offset, count, what, u16::from_le_bytes)
    }

    /// `ndim` i32 elements of the shape pool from element `offset`.
    pub(super) fn shape(
        &self,
        offset: u16,
        ndim: u8,
        what: &dyn Fn() -> String,
    ) -> Result<Vec<i32>> {
        self.pool(
            Section::ShapePool,
            offset,
            ndim as u64,
            what,
            i32::from_le_bytes,
        )
    }

    /// `count` little-endian `N`-byte elements of pool section `s` from element `offset`.
    fn pool<const N: usize, T>(
        &self,
        s: Section,
        offset: u16,
        count: u64,
        what: &dyn Fn() -> String,
        decode: fn([u8; N]) -> T,
    ) -> Result<Vec<T>> {
        let base = self.span(s).map_or(0, |x| x.start);
        let size = N as u64;
        let b = self.bytes(s, base + offset as u64 * size, count * size, what)?;
        Ok(b.chunks_exact(N)
            .map(|c| {
                let mut e = [0u8; N];
                e.copy_from_slice(c);
                decode(e)
            })
            .collect())
    }
}
