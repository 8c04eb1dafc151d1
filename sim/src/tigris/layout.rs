//! Tensor addressing: map a tensor element to its bytes and a bus address back to its tensor element.
//!
//! Two levels (rules: Hurray Format Specification, "Memory Layout" and "Tiled / Blocked Layout", tag 0x04):
//!
//! - [`Layout`], a validated layout descriptor built from raw [`LayoutFields`]: contiguous row-major (tag
//!   0x01) and column-major (0x02), strided with explicit strides (0x03), and tiled (0x04) with an outer
//!   order over the tile grid and an inner order inside a tile, which may itself be tiled again (recursive
//!   tiling, at most [`MAX_TILING_DEPTH`] levels). It maps an element index to a byte (and, for sub-byte
//!   types, a bit) and a byte back to the element stored there, or to nothing for padding and gaps.
//! - [`TensorView`] and [`ArenaMap`], the TiGrIS side: an activation of logical shape [N, H, W, C] stored
//!   channels-last (or in model order when the plan flags it linear) at a base address in an arena, whole
//!   or as a band of rows, so that a bus address names the tensor, element, row, column, channel and tile.
//!
//! Nothing here panics on any input: every size and offset is computed with checked arithmetic and a
//! failure is a [`LayoutError`] that names the offending field.

// The TiGrIS runtime observer (the per-row and per-tile attribution of slow-arena traffic) is the user of
// this module. Until it lands the binary calls none of it, so dead-code warnings are silenced outside
// tests, where every item is exercised.
#![cfg_attr(not(test), allow(dead_code))]

use std::fmt;
use std::ops::{Range, RangeInclusive};

/// Most tiling levels a descriptor may nest, counting the top-level tiled layout as level 1.
pub const MAX_TILING_DEPTH: usize = 8;

/// The dynamic-dimension sentinel of a shape: the size is not known statically and must be resolved
/// (see [`Layout::resolve`]) before any element is addressed.
pub const DYNAMIC: u64 = u64::MAX;

/// Most search steps one inverse lookup in a strided layout may take before it gives up with an error.
const SEARCH_BUDGET: u32 = 1 << 16;

/// Layout tags this reader interprets.
pub mod tag {
    /// Contiguous, last index varying fastest.
    pub const ROW_MAJOR: u8 = 0x01;
    /// Contiguous, first index varying fastest.
    pub const COL_MAJOR: u8 = 0x02;
    /// Explicit per-dimension strides in elements (may be negative, zero or leave gaps).
    pub const STRIDED: u8 = 0x03;
    /// Uniform rectangular tiles with an outer (tile-grid) and an inner (within-tile) order.
    pub const TILED: u8 = 0x04;
}

// ---------------------------------------------------------------------------------------------------------
// Errors

/// A rejected descriptor or a failed lookup: the field at fault and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    /// Path of the offending field, e.g. `tiling.inner.tile_shape[1]` or `shape[0]`.
    pub field: String,
    pub kind: ErrorKind,
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.kind)
    }
}

impl std::error::Error for LayoutError {}

/// What is wrong (the field is in [`LayoutError`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("layout tag 0x{0:02X} is reserved and always rejected")]
    ReservedTag(u8),
    #[error("unknown layout tag 0x{tag:02X} ({class}); accepted only in permissive mode")]
    UnknownTag { tag: u8, class: &'static str },
    #[error(
        "layout tag 0x{0:02X} was accepted in permissive mode, so its data is never interpreted"
    )]
    Uninterpreted(u8),
    #[error("must be 0 for sparse, indirect and virtual layouts (tag 0x{tag:02X}), got {value}")]
    OffsetMustBeZero { tag: u8, value: u64 },
    #[error("{value} is past the end of the {buffer}-byte buffer")]
    OffsetPastBuffer { value: u64, buffer: u64 },
    #[error("unsupported element width of {0} bits (1, 2, 4, 6 or a multiple of 8)")]
    ElementBits(u32),
    #[error("expected {expected} entries (one per dimension), got {got}")]
    Length { expected: usize, got: usize },
    #[error("missing, but required {0}")]
    Missing(&'static str),
    #[error("present, but allowed only {0}")]
    Unexpected(&'static str),
    #[error("layout tag 0x{tag:02X} not allowed here (allowed: {allowed})")]
    TagNotAllowed { tag: u8, allowed: &'static str },
    #[error("reserved byte must be 0x00, got 0x{0:02X}")]
    ReservedByte(u8),
    #[error("a tiled layout is not allowed for a rank-0 (scalar) tensor")]
    ScalarTiled,
    #[error("tile size must be greater than 0")]
    ZeroTile,
    #[error("recursive tiling nests deeper than the cap of {cap} levels")]
    TooDeep { cap: usize },
    #[error(
        "the inner layout reaches element slots {min}..={max}, outside the tile's {slots} slots"
    )]
    InnerOutsideTile { min: i128, max: i128, slots: i128 },
    #[error("dynamic dimension (u64::MAX) must be resolved before use")]
    Dynamic,
    #[error("resolved size {resolved} differs from the static size {fixed}")]
    ResolveMismatch { resolved: u64, fixed: u64 },
    #[error("shard_offset {offset} + shape {size} exceeds parent_shape {parent}")]
    ShardOutOfBounds { offset: u64, size: u64, parent: u64 },
    #[error(
        "a sub-byte tensor must start on a byte boundary, this one starts at bit {bit} of a byte"
    )]
    NotByteAligned { bit: u64 },
    #[error("a 6-bit tensor must start on a group boundary (4 elements in 3 bytes), this one starts at element {pos} of a group")]
    NotGroupAligned { pos: u64 },
    #[error("6-bit types are addressed per group of 4 elements in 3 bytes, not per element")]
    GroupAddressed,
    #[error("group addressing applies only to 6-bit types")]
    NotGroupType,
    #[error("index {index} out of bounds for a dimension of size {size}")]
    IndexOutOfBounds { index: u64, size: u64 },
    #[error("bit position {0} is not within a byte (0..=7)")]
    BitOutOfRange(u8),
    #[error("arithmetic overflow")]
    Overflow,
    #[error("the address lies outside the 64-bit byte range")]
    AddressOutOfRange,
    #[error("the lowest element would lie {bytes} bytes before the start of the buffer")]
    BeforeBuffer { bytes: i128 },
    #[error("the layout needs {need} bytes but the buffer has {have}")]
    BufferTooSmall { need: i128, have: u64 },
    #[error("only affine layouts (row-major, column-major, strided) have sub-blocks")]
    NotAffine,
    #[error("the strided inverse search gave up after {0} steps")]
    SearchBudget(u32),
    #[error("{what} exceeds {limit}")]
    TooLarge {
        what: &'static str,
        limit: &'static str,
    },
    #[error("rows {start}..{end} are not a non-empty range within the tensor's {height} rows")]
    BadRows { start: u32, end: u32, height: u32 },
    #[error("bytes 0x{start:08X}..0x{end:08X} overlap tensor {other}")]
    Overlap { start: u64, end: u64, other: u32 },
}

fn err(field: impl Into<String>, kind: ErrorKind) -> LayoutError {
    LayoutError {
        field: field.into(),
        kind,
    }
}

/// Result of the internal helpers: the caller adds the field name.
type Res<T> = Result<T, ErrorKind>;

fn ovf<T>(v: Option<T>) -> Res<T> {
    v.ok_or(ErrorKind::Overflow)
}

// ---------------------------------------------------------------------------------------------------------
// Raw descriptor fields

/// How unknown layout tags are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Reject any tag this reader does not interpret.
    #[default]
    Strict,
    /// Accept a tag this reader does not interpret, but refuse every lookup into its data.
    Permissive,
}

/// The fields of a tensor descriptor as read, before validation. Rank is `shape.len()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayoutFields {
    pub tag: u8,
    /// Size per dimension; 0 is an empty dimension, [`DYNAMIC`] an unresolved one.
    pub shape: Vec<u64>,
    /// Bytes from the start of the buffer to the element at index [0, ..., 0].
    pub byte_offset: u64,
    /// Element width: 1, 2 or 4 (packed sub-byte), 6 (groups of 4 in 3 bytes) or a multiple of 8.
    pub elem_bits: u32,
    /// Size of the data buffer when known; `byte_offset` must not exceed it.
    pub buffer_bytes: Option<u64>,
    /// Strides in elements, one per dimension: required for 0x03 and refused otherwise.
    pub strides: Option<Vec<i64>>,
    /// Tiling fields: required for 0x04 and refused otherwise.
    pub tiling: Option<TilingFields>,
    /// Present when the tensor is a rectangular part of a larger logical tensor.
    pub shard: Option<ShardFields>,
}

/// The tiled-layout fields of one tiling level; `inner` holds the next level when `inner_layout` is 0x04.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TilingFields {
    /// Tile size per dimension, every entry > 0.
    pub tile_shape: Vec<u64>,
    /// Order of the tile grid: 0x01, 0x02 or 0x03 (then `outer_strides`, in tiles).
    pub outer_layout: u8,
    /// Order within a tile: 0x01, 0x02, 0x03 (then `inner_strides`, in elements) or 0x04 (then `inner`).
    pub inner_layout: u8,
    /// Must be zero.
    pub reserved: [u8; 2],
    pub outer_strides: Option<Vec<i64>>,
    pub inner_strides: Option<Vec<i64>>,
    pub inner: Option<Box<TilingFields>>,
}

/// Position of a shard inside its parent tensor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShardFields {
    pub parent_shape: Vec<u64>,
    pub shard_offset: Vec<u64>,
}

// ---------------------------------------------------------------------------------------------------------
// Validated layout

/// Element width classes, from `elem_bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    /// Whole bytes per element.
    Bytes(u64),
    /// 1, 2 or 4 bits, packed from the least significant bit.
    Bits(u8),
    /// 6-bit floats: 4 elements per 3 bytes, addressed per group.
    Group6,
}

/// An affine order over a box of extents.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Order {
    RowMajor,
    ColMajor,
    Strided(Vec<i64>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Inner {
    Order(Order),
    Tiled(Box<Tiling>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Tiling {
    tile_shape: Vec<u64>,
    /// Elements per tile (product of `tile_shape`), the distance between consecutive tile numbers.
    tile_elems: i128,
    outer: Order,
    inner: Inner,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A tag accepted in permissive mode; never interpreted.
    Opaque,
    Affine(Order),
    Tiled(Tiling),
}

/// A validated layout descriptor. Build it with [`Layout::from_fields`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    fields: LayoutFields,
    mode: Mode,
    elem: Elem,
    kind: Kind,
}

/// Byte (and bit, for 1-, 2- and 4-bit types; 0 otherwise) of an element, relative to the buffer start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    pub byte: u64,
    pub bit: u8,
}

/// Where a 6-bit element lives: the first of its group's 3 bytes and its position (0..4) in the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupAddress {
    pub byte: u64,
    pub position: u8,
}

/// How a tiled layout places one element (all offsets in elements).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TilePosition {
    /// Tile coordinates, index / tile_shape per dimension.
    pub tile: Vec<u64>,
    /// Linear tile number under the outer order.
    pub tile_number: i128,
    /// First element slot of the tile, tile_number * elements per tile.
    pub tile_start: i128,
    /// Coordinates inside the tile, index mod tile_shape per dimension.
    pub intra: Vec<u64>,
    /// Offset inside the tile under the inner order (recursively tiled or not).
    pub intra_offset: i128,
    /// Linear element offset, tile_start + intra_offset.
    pub offset: i128,
}

fn tag_class(t: u8) -> &'static str {
    match t {
        0x05 | 0x40 => "a dense layout this reader does not implement",
        0x06..=0x09 => "a sparse layout",
        0x0A => "an indirect layout",
        0x0B => "the virtual (composite) layout",
        0xF0..=0xFE => "an implementation-private extension layout",
        _ => "unassigned",
    }
}

fn check_len<T>(v: &[T], rank: usize, field: &str) -> Result<(), LayoutError> {
    if v.len() == rank {
        Ok(())
    } else {
        Err(err(
            field,
            ErrorKind::Length {
                expected: rank,
                got: v.len(),
            },
        ))
    }
}

/// The order a tag names, with its strides; `field` is the tag's field, `strides_field` the strides'.
fn compile_order(
    tag: u8,
    strides: &Option<Vec<i64>>,
    rank: usize,
    field: &str,
    strides_field: &str,
    allowed: &'static str,
) -> Result<Order, LayoutError> {
    match tag {
        tag::ROW_MAJOR | tag::COL_MAJOR => {
            if strides.is_some() {
                return Err(err(
                    strides_field,
                    ErrorKind::Unexpected("with the strided order 0x03"),
                ));
            }
            Ok(if tag == tag::ROW_MAJOR {
                Order::RowMajor
            } else {
                Order::ColMajor
            })
        }
        tag::STRIDED => match strides {
            None => Err(err(
                strides_field,
                ErrorKind::Missing("by the strided order 0x03"),
            )),
            Some(s) => {
                check_len(s, rank, strides_field)?;
                Ok(Order::Strided(s.clone()))
            }
        },
        t => Err(err(field, ErrorKind::TagNotAllowed { tag: t, allowed })),
    }
}

fn compile_tiling(
    t: &TilingFields,
    rank: usize,
    level: usize,
    path: &str,
) -> Result<Tiling, LayoutError> {
    if level >= MAX_TILING_DEPTH {
        return Err(err(
            path,
            ErrorKind::TooDeep {
                cap: MAX_TILING_DEPTH,
            },
        ));
    }
    for (k, &b) in t.reserved.iter().enumerate() {
        if b != 0 {
            return Err(err(
                format!("{path}._reserved[{k}]"),
                ErrorKind::ReservedByte(b),
            ));
        }
    }
    check_len(&t.tile_shape, rank, &format!("{path}.tile_shape"))?;
    let mut tile_elems: i128 = 1;
    for (k, &n) in t.tile_shape.iter().enumerate() {
        if n == 0 {
            return Err(err(format!("{path}.tile_shape[{k}]"), ErrorKind::ZeroTile));
        }
        tile_elems = tile_elems
            .checked_mul(i128::from(n))
            .ok_or_else(|| err(format!("{path}.tile_shape"), ErrorKind::Overflow))?;
    }
    let outer = compile_order(
        t.outer_layout,
        &t.outer_strides,
        rank,
        &format!("{path}.outer_layout"),
        &format!("{path}.outer_strides"),
        "0x01, 0x02, 0x03",
    )?;
    let inner = if t.inner_layout == tag::TILED {
        if t.inner_strides.is_some() {
            return Err(err(
                format!("{path}.inner_strides"),
                ErrorKind::Unexpected("with the strided inner order 0x03"),
            ));
        }
        let next = format!("{path}.inner");
        match &t.inner {
            None => {
                return Err(err(
                    next,
                    ErrorKind::Missing("by the recursive inner order 0x04"),
                ))
            }
            Some(sub) => Inner::Tiled(Box::new(compile_tiling(sub, rank, level + 1, &next)?)),
        }
    } else {
        if t.inner.is_some() {
            return Err(err(
                format!("{path}.inner"),
                ErrorKind::Unexpected("with the recursive inner order 0x04"),
            ));
        }
        Inner::Order(compile_order(
            t.inner_layout,
            &t.inner_strides,
            rank,
            &format!("{path}.inner_layout"),
            &format!("{path}.inner_strides"),
            "0x01, 0x02, 0x03, 0x04",
        )?)
    };
    // Tile n starts at n * tile_elems, so the inner order must stay inside those slots or tiles overlap.
    let inner_field = match &inner {
        Inner::Order(Order::Strided(_)) => format!("{path}.inner_strides"),
        _ => format!("{path}.inner"),
    };
    let range = inner
        .range(&t.tile_shape)
        .map_err(|k| err(&inner_field, k))?;
    if let Some((min, max)) = range {
        if min < 0 || max >= tile_elems {
            return Err(err(
                inner_field,
                ErrorKind::InnerOutsideTile {
                    min,
                    max,
                    slots: tile_elems,
                },
            ));
        }
    }
    Ok(Tiling {
        tile_shape: t.tile_shape.clone(),
        tile_elems,
        outer,
        inner,
    })
}

impl Layout {
    /// Validate raw descriptor fields. Dynamic dimensions are accepted here; lookups refuse them until
    /// [`Layout::resolve`] gives their sizes.
    pub fn from_fields(fields: &LayoutFields, mode: Mode) -> Result<Layout, LayoutError> {
        let f = fields;
        let rank = f.shape.len();
        if f.tag == 0x00 || f.tag == 0xFF {
            return Err(err("tag", ErrorKind::ReservedTag(f.tag)));
        }
        let elem = match f.elem_bits {
            1 => Elem::Bits(1),
            2 => Elem::Bits(2),
            4 => Elem::Bits(4),
            6 => Elem::Group6,
            b if b >= 8 && b % 8 == 0 => Elem::Bytes(u64::from(b / 8)),
            b => return Err(err("elem_bits", ErrorKind::ElementBits(b))),
        };
        if let Some(buffer) = f.buffer_bytes {
            if f.byte_offset > buffer {
                return Err(err(
                    "byte_offset",
                    ErrorKind::OffsetPastBuffer {
                        value: f.byte_offset,
                        buffer,
                    },
                ));
            }
        }
        if let Some(s) = &f.shard {
            check_len(&s.parent_shape, rank, "shard.parent_shape")?;
            check_len(&s.shard_offset, rank, "shard.shard_offset")?;
            for k in 0..rank {
                let (size, parent, offset) = (f.shape[k], s.parent_shape[k], s.shard_offset[k]);
                if size == DYNAMIC || parent == DYNAMIC {
                    continue; // checked again once resolved
                }
                let field = format!("shard.shard_offset[{k}]");
                let end = offset
                    .checked_add(size)
                    .ok_or_else(|| err(&field, ErrorKind::Overflow))?;
                if end > parent {
                    return Err(err(
                        field,
                        ErrorKind::ShardOutOfBounds {
                            offset,
                            size,
                            parent,
                        },
                    ));
                }
            }
        }
        let kind = match f.tag {
            tag::ROW_MAJOR | tag::COL_MAJOR | tag::STRIDED => {
                if f.tiling.is_some() {
                    return Err(err(
                        "tiling",
                        ErrorKind::Unexpected("with the tiled layout 0x04"),
                    ));
                }
                Kind::Affine(compile_order(
                    f.tag,
                    &f.strides,
                    rank,
                    "tag",
                    "strides",
                    "0x01, 0x02, 0x03",
                )?)
            }
            tag::TILED => {
                if f.strides.is_some() {
                    return Err(err(
                        "strides",
                        ErrorKind::Unexpected("with the strided layout 0x03"),
                    ));
                }
                if rank == 0 {
                    return Err(err("shape", ErrorKind::ScalarTiled));
                }
                match &f.tiling {
                    None => {
                        return Err(err(
                            "tiling",
                            ErrorKind::Missing("by the tiled layout 0x04"),
                        ))
                    }
                    Some(t) => Kind::Tiled(compile_tiling(t, rank, 0, "tiling")?),
                }
            }
            t => {
                if mode == Mode::Strict {
                    return Err(err(
                        "tag",
                        ErrorKind::UnknownTag {
                            tag: t,
                            class: tag_class(t),
                        },
                    ));
                }
                if (0x06..=0x0B).contains(&t) && f.byte_offset != 0 {
                    return Err(err(
                        "byte_offset",
                        ErrorKind::OffsetMustBeZero {
                            tag: t,
                            value: f.byte_offset,
                        },
                    ));
                }
                Kind::Opaque
            }
        };
        let layout = Layout {
            fields: f.clone(),
            mode,
            elem,
            kind,
        };
        if layout.unresolved().is_none() {
            layout.check_extent()?;
        }
        Ok(layout)
    }

    /// The same descriptor with its dynamic dimensions given sizes. `shape` must repeat every static size;
    /// `parent_shape` does the same for a shard's parent (ignored without a shard).
    pub fn resolve(
        &self,
        shape: &[u64],
        parent_shape: Option<&[u64]>,
    ) -> Result<Layout, LayoutError> {
        fn merge(old: &[u64], new: &[u64], name: &str) -> Result<Vec<u64>, LayoutError> {
            check_len(new, old.len(), name)?;
            for (k, (&o, &n)) in old.iter().zip(new).enumerate() {
                if n == DYNAMIC {
                    return Err(err(format!("{name}[{k}]"), ErrorKind::Dynamic));
                }
                if o != DYNAMIC && o != n {
                    return Err(err(
                        format!("{name}[{k}]"),
                        ErrorKind::ResolveMismatch {
                            resolved: n,
                            fixed: o,
                        },
                    ));
                }
            }
            Ok(new.to_vec())
        }
        let mut f = self.fields.clone();
        f.shape = merge(&self.fields.shape, shape, "shape")?;
        if let Some(s) = &mut f.shard {
            if let Some(p) = parent_shape {
                s.parent_shape = merge(&s.parent_shape, p, "shard.parent_shape")?;
            }
        }
        Layout::from_fields(&f, self.mode)
    }

    pub fn tag(&self) -> u8 {
        self.fields.tag
    }

    pub fn shape(&self) -> &[u64] {
        &self.fields.shape
    }

    pub fn elem_bits(&self) -> u32 {
        self.fields.elem_bits
    }

    pub fn byte_offset(&self) -> u64 {
        self.fields.byte_offset
    }

    /// The first dynamic dimension still unresolved, if any (shape first, then a shard's parent).
    fn unresolved(&self) -> Option<String> {
        if let Some(k) = self.fields.shape.iter().position(|&n| n == DYNAMIC) {
            return Some(format!("shape[{k}]"));
        }
        let parent = self
            .fields
            .shard
            .as_ref()
            .map(|s| s.parent_shape.as_slice())
            .unwrap_or(&[]);
        parent
            .iter()
            .position(|&n| n == DYNAMIC)
            .map(|k| format!("shard.parent_shape[{k}]"))
    }

    /// Refuse lookups on an uninterpreted tag or an unresolved shape.
    fn ready(&self) -> Result<(), LayoutError> {
        if self.kind == Kind::Opaque {
            return Err(err("tag", ErrorKind::Uninterpreted(self.fields.tag)));
        }
        match self.unresolved() {
            Some(field) => Err(err(field, ErrorKind::Dynamic)),
            None => Ok(()),
        }
    }

    fn check_index(&self, index: &[u64]) -> Result<(), LayoutError> {
        check_len(index, self.fields.shape.len(), "index")?;
        for (k, (&i, &n)) in index.iter().zip(&self.fields.shape).enumerate() {
            if i >= n {
                return Err(err(
                    format!("index[{k}]"),
                    ErrorKind::IndexOutOfBounds { index: i, size: n },
                ));
            }
        }
        Ok(())
    }

    /// Linear element offset (slot) of an element: its distance from element [0, ..., 0] in elements.
    /// Negative only for strided layouts with negative strides.
    pub fn offset(&self, index: &[u64]) -> Result<i128, LayoutError> {
        self.ready()?;
        self.check_index(index)?;
        let shape = &self.fields.shape;
        match &self.kind {
            Kind::Affine(o) => o.offset(index, shape),
            Kind::Tiled(t) => t.offset(index, shape),
            Kind::Opaque => Err(ErrorKind::Uninterpreted(self.fields.tag)),
        }
        .map_err(|k| err("index", k))
    }

    /// Byte and bit of an element relative to the buffer start (byte_offset included).
    pub fn address(&self, index: &[u64]) -> Result<Address, LayoutError> {
        let slot = self.offset(index)?;
        self.slot_to_address(slot)
            .map_err(|k| err(self.address_field(k == ErrorKind::GroupAddressed), k))
    }

    fn address_field(&self, group: bool) -> &'static str {
        if group {
            "elem_bits"
        } else {
            "index"
        }
    }

    /// Group address of a 6-bit element.
    pub fn group_address(&self, index: &[u64]) -> Result<GroupAddress, LayoutError> {
        if self.elem != Elem::Group6 {
            return Err(err("elem_bits", ErrorKind::NotGroupType));
        }
        let slot = self.offset(index)?;
        let group = slot.div_euclid(4);
        let byte = group
            .checked_mul(3)
            .and_then(|b| b.checked_add(i128::from(self.fields.byte_offset)))
            .and_then(|b| u64::try_from(b).ok())
            .ok_or_else(|| err("index", ErrorKind::AddressOutOfRange))?;
        Ok(GroupAddress {
            byte,
            position: slot.rem_euclid(4) as u8,
        })
    }

    /// First byte and bit of a slot relative to the buffer (for 6-bit types: its group's first byte),
    /// and how many bytes from there on it touches. May be negative (before the buffer).
    fn slot_bytes(&self, slot: i128) -> Res<(i128, u8, i128)> {
        let base = i128::from(self.fields.byte_offset);
        Ok(match self.elem {
            Elem::Bytes(n) => (
                ovf(slot
                    .checked_mul(i128::from(n))
                    .and_then(|b| b.checked_add(base)))?,
                0,
                i128::from(n),
            ),
            Elem::Bits(b) => {
                let per_byte = i128::from(8 / b);
                let bit = (slot.rem_euclid(per_byte) * i128::from(b)) as u8;
                (ovf(slot.div_euclid(per_byte).checked_add(base))?, bit, 1)
            }
            Elem::Group6 => (
                ovf(slot
                    .div_euclid(4)
                    .checked_mul(3)
                    .and_then(|b| b.checked_add(base)))?,
                0,
                3,
            ),
        })
    }

    fn slot_to_address(&self, slot: i128) -> Res<Address> {
        if self.elem == Elem::Group6 {
            return Err(ErrorKind::GroupAddressed);
        }
        let (byte, bit, _) = self.slot_bytes(slot)?;
        let byte = u64::try_from(byte).map_err(|_| ErrorKind::AddressOutOfRange)?;
        Ok(Address { byte, bit })
    }

    /// Every element must lie inside the buffer: not before its start, not past its end when its size is
    /// known, and within the u64 byte range.
    fn check_extent(&self) -> Result<(), LayoutError> {
        let Some((min, max)) = self.slot_range_inner().map_err(|k| err("shape", k))? else {
            return Ok(());
        };
        let (first, _, _) = self.slot_bytes(min).map_err(|k| err("shape", k))?;
        if first < 0 {
            let field = if self.fields.tag == tag::STRIDED {
                "strides"
            } else {
                "byte_offset"
            };
            return Err(err(field, ErrorKind::BeforeBuffer { bytes: -first }));
        }
        let (last, _, len) = self.slot_bytes(max).map_err(|k| err("shape", k))?;
        let need = ovf(last.checked_add(len)).map_err(|k| err("shape", k))?;
        if need > i128::from(u64::MAX) {
            return Err(err("shape", ErrorKind::AddressOutOfRange));
        }
        if let Some(have) = self.fields.buffer_bytes {
            if need > i128::from(have) {
                return Err(err(
                    "buffer_bytes",
                    ErrorKind::BufferTooSmall { need, have },
                ));
            }
        }
        Ok(())
    }

    /// The element stored at a byte (and bit, for 1-, 2- and 4-bit types; ignored otherwise) of the buffer.
    /// `Ok(None)` for bytes that hold no element: padding of partial tiles, gaps of strided layouts, bytes
    /// outside the tensor. A byte inside a multi-byte element maps to that element. For strided layouts
    /// whose strides overlap, one of the elements sharing the byte is returned.
    pub fn index_at(&self, byte: u64, bit: u8) -> Result<Option<Vec<u64>>, LayoutError> {
        self.ready()?;
        if bit > 7 {
            return Err(err("bit", ErrorKind::BitOutOfRange(bit)));
        }
        let rel = i128::from(byte) - i128::from(self.fields.byte_offset);
        let slot = match self.elem {
            Elem::Bytes(n) => rel.div_euclid(i128::from(n)),
            Elem::Bits(b) => ovf(rel
                .checked_mul(i128::from(8 / b))
                .and_then(|s| s.checked_add(i128::from(bit / b))))
            .map_err(|k| err("byte", k))?,
            Elem::Group6 => return Err(err("elem_bits", ErrorKind::GroupAddressed)),
        };
        self.index_of_slot(slot)
    }

    /// The element at a linear element offset, or `None` when no element is stored there.
    pub fn index_of_slot(&self, slot: i128) -> Result<Option<Vec<u64>>, LayoutError> {
        self.ready()?;
        let shape = &self.fields.shape;
        let mut budget = SEARCH_BUDGET;
        match &self.kind {
            Kind::Affine(o) => o.inverse(slot, shape, &mut budget),
            Kind::Tiled(t) => t.inverse(slot, shape, &mut budget),
            Kind::Opaque => Err(ErrorKind::Uninterpreted(self.fields.tag)),
        }
        .map_err(|k| err("byte", k))
    }

    /// Smallest and largest element slot the layout uses (padding of partial tiles included), or `None`
    /// for an empty tensor. A rank-0 tensor uses slot 0.
    pub fn slot_range(&self) -> Result<Option<RangeInclusive<i128>>, LayoutError> {
        self.ready()?;
        Ok(self
            .slot_range_inner()
            .map_err(|k| err("shape", k))?
            .map(|(a, b)| a..=b))
    }

    /// Bytes of the buffer the layout uses: up to the end of its highest slot (padding included),
    /// byte_offset included; 0 for an empty tensor.
    pub fn extent_bytes(&self) -> Result<u64, LayoutError> {
        self.ready()?;
        let Some((_, max)) = self.slot_range_inner().map_err(|k| err("shape", k))? else {
            return Ok(0);
        };
        let (last, _, len) = self.slot_bytes(max).map_err(|k| err("shape", k))?;
        last.checked_add(len)
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| err("shape", ErrorKind::AddressOutOfRange))
    }

    /// The element holding a byte of the buffer, as `index_at` (bit 0), and for 6-bit types the
    /// first element of the byte's group.
    pub fn element_at_byte(&self, byte: u64) -> Result<Option<Vec<u64>>, LayoutError> {
        if self.elem != Elem::Group6 {
            return self.index_at(byte, 0);
        }
        let rel = i128::from(byte) - i128::from(self.fields.byte_offset);
        self.index_of_slot(rel.div_euclid(3) * 4)
    }

    fn slot_range_inner(&self) -> Res<Option<(i128, i128)>> {
        let shape = &self.fields.shape;
        match &self.kind {
            Kind::Affine(o) => o.range(shape),
            Kind::Tiled(t) => t.range(shape),
            Kind::Opaque => Ok(None),
        }
    }

    /// Tile coordinates, tile number and offsets of an element of a tiled layout (top level).
    pub fn tile_position(&self, index: &[u64]) -> Result<TilePosition, LayoutError> {
        self.ready()?;
        self.check_index(index)?;
        let Kind::Tiled(t) = &self.kind else {
            return Err(err(
                "tag",
                ErrorKind::TagNotAllowed {
                    tag: self.fields.tag,
                    allowed: "0x04",
                },
            ));
        };
        t.position(index, &self.fields.shape)
            .map_err(|k| err("index", k))
    }

    /// Index of the element in the parent tensor when this layout is a shard (identity otherwise).
    pub fn to_parent(&self, index: &[u64]) -> Result<Vec<u64>, LayoutError> {
        self.ready()?;
        self.check_index(index)?;
        match &self.fields.shard {
            None => Ok(index.to_vec()),
            Some(s) => index
                .iter()
                .zip(&s.shard_offset)
                .map(|(&i, &o)| {
                    i.checked_add(o)
                        .ok_or_else(|| err("shard.shard_offset", ErrorKind::Overflow))
                })
                .collect(),
        }
    }

    /// Describe the box `offset .. offset + shape` of this (affine) tensor as a shard sharing its buffer: a
    /// strided layout whose byte_offset points at the box's first element. A sub-byte tensor's box must
    /// start on a byte boundary and a 6-bit tensor's on a group boundary.
    pub fn sub_block(&self, offset: &[u64], shape: &[u64]) -> Result<Layout, LayoutError> {
        self.ready()?;
        let Kind::Affine(order) = &self.kind else {
            return Err(err("tag", ErrorKind::NotAffine));
        };
        let rank = self.fields.shape.len();
        check_len(offset, rank, "shard.shard_offset")?;
        check_len(shape, rank, "shape")?;
        if let Some(k) = shape.iter().position(|&n| n == DYNAMIC) {
            return Err(err(format!("shape[{k}]"), ErrorKind::Dynamic));
        }
        let strides = order
            .strides(&self.fields.shape)
            .map_err(|k| err("strides", k))?;
        let mut start: i128 = 0;
        for (k, (&o, &s)) in offset.iter().zip(&strides).enumerate() {
            let end = o
                .checked_add(shape[k])
                .ok_or_else(|| err(format!("shard.shard_offset[{k}]"), ErrorKind::Overflow))?;
            if end > self.fields.shape[k] {
                return Err(err(
                    format!("shard.shard_offset[{k}]"),
                    ErrorKind::ShardOutOfBounds {
                        offset: o,
                        size: shape[k],
                        parent: self.fields.shape[k],
                    },
                ));
            }
            start = ovf(i128::from(o)
                .checked_mul(i128::from(s))
                .and_then(|v| v.checked_add(start)))
            .map_err(|k| err("shard.shard_offset", k))?;
        }
        let bits = ovf(start.checked_mul(i128::from(self.fields.elem_bits)))
            .map_err(|k| err("byte_offset", k))?;
        match self.elem {
            Elem::Bits(_) if bits.rem_euclid(8) != 0 => {
                return Err(err(
                    "byte_offset",
                    ErrorKind::NotByteAligned {
                        bit: bits.rem_euclid(8) as u64,
                    },
                ));
            }
            Elem::Group6 if start.rem_euclid(4) != 0 => {
                return Err(err(
                    "byte_offset",
                    ErrorKind::NotGroupAligned {
                        pos: start.rem_euclid(4) as u64,
                    },
                ));
            }
            _ => {}
        }
        let byte_offset = bits
            .div_euclid(8)
            .checked_add(i128::from(self.fields.byte_offset))
            .and_then(|b| u64::try_from(b).ok())
            .ok_or_else(|| err("byte_offset", ErrorKind::AddressOutOfRange))?;
        let shard = match &self.fields.shard {
            None => ShardFields {
                parent_shape: self.fields.shape.clone(),
                shard_offset: offset.to_vec(),
            },
            Some(s) => ShardFields {
                parent_shape: s.parent_shape.clone(),
                shard_offset: s
                    .shard_offset
                    .iter()
                    .zip(offset)
                    .map(|(&a, &b)| {
                        a.checked_add(b)
                            .ok_or_else(|| err("shard.shard_offset", ErrorKind::Overflow))
                    })
                    .collect::<Result<_, _>>()?,
            },
        };
        let fields = LayoutFields {
            tag: tag::STRIDED,
            shape: shape.to_vec(),
            byte_offset,
            elem_bits: self.fields.elem_bits,
            buffer_bytes: self.fields.buffer_bytes,
            strides: Some(strides),
            tiling: None,
            shard: Some(shard),
        };
        Layout::from_fields(&fields, self.mode)
    }
}

// ---------------------------------------------------------------------------------------------------------
// Affine orders

fn product(ext: &[u64]) -> Res<i128> {
    ext.iter()
        .try_fold(1i128, |acc, &n| ovf(acc.checked_mul(i128::from(n))))
}

/// ceil(a / b) for b > 0.
fn div_ceil(a: i128, b: i128) -> Res<i128> {
    Ok(-ovf(ovf(a.checked_neg())?.checked_div_euclid(b))?)
}

impl Order {
    /// Element strides of the order over `ext`.
    fn strides(&self, ext: &[u64]) -> Res<Vec<i64>> {
        let mut out = vec![0i64; ext.len()];
        let mut mult: i128 = 1;
        let mut put = |k: usize, mult: &mut i128| -> Res<()> {
            out[k] = i64::try_from(*mult).map_err(|_| ErrorKind::Overflow)?;
            *mult = ovf(mult.checked_mul(i128::from(ext[k])))?;
            Ok(())
        };
        match self {
            Order::RowMajor => {
                for k in (0..ext.len()).rev() {
                    put(k, &mut mult)?;
                }
            }
            Order::ColMajor => {
                for k in 0..ext.len() {
                    put(k, &mut mult)?;
                }
            }
            Order::Strided(s) => return Ok(s.clone()),
        }
        Ok(out)
    }

    /// Slot of `idx` (each entry < its extent) over extents `ext`.
    fn offset(&self, idx: &[u64], ext: &[u64]) -> Res<i128> {
        let mut acc: i128 = 0;
        let mut mult: i128 = 1;
        let mut step = |i: u64, n: u64| -> Res<()> {
            acc = ovf(i128::from(i)
                .checked_mul(mult)
                .and_then(|v| v.checked_add(acc)))?;
            mult = mult.saturating_mul(i128::from(n)); // only a later, never-used step can saturate
            Ok(())
        };
        match self {
            Order::RowMajor => idx
                .iter()
                .zip(ext)
                .rev()
                .try_for_each(|(&i, &n)| step(i, n))?,
            Order::ColMajor => idx.iter().zip(ext).try_for_each(|(&i, &n)| step(i, n))?,
            Order::Strided(s) => {
                for (&i, &st) in idx.iter().zip(s) {
                    acc = ovf(i128::from(i)
                        .checked_mul(i128::from(st))
                        .and_then(|v| v.checked_add(acc)))?;
                }
            }
        }
        Ok(acc)
    }

    /// Smallest and largest slot over the box `ext`, `None` when the box is empty.
    fn range(&self, ext: &[u64]) -> Res<Option<(i128, i128)>> {
        if ext.contains(&0) {
            return Ok(None);
        }
        match self {
            Order::RowMajor | Order::ColMajor => Ok(Some((0, product(ext)? - 1))),
            Order::Strided(s) => {
                let (mut lo, mut hi) = (0i128, 0i128);
                for (&n, &st) in ext.iter().zip(s) {
                    let reach = ovf(i128::from(n - 1).checked_mul(i128::from(st)))?;
                    if reach < 0 {
                        lo = ovf(lo.checked_add(reach))?;
                    } else {
                        hi = ovf(hi.checked_add(reach))?;
                    }
                }
                Ok(Some((lo, hi)))
            }
        }
    }

    /// Index of the element at `slot` over extents `ext`, `None` if no element is there.
    fn inverse(&self, slot: i128, ext: &[u64], budget: &mut u32) -> Res<Option<Vec<u64>>> {
        match self {
            Order::RowMajor | Order::ColMajor => {
                let total = product(ext)?;
                if slot < 0 || slot >= total {
                    return Ok(None);
                }
                let mut idx = vec![0u64; ext.len()];
                let mut rem = slot;
                let mut digit = |k: usize| {
                    let n = i128::from(ext[k]); // > 0: total > 0
                    idx[k] = (rem % n) as u64;
                    rem /= n;
                };
                if *self == Order::RowMajor {
                    (0..ext.len()).rev().for_each(&mut digit);
                } else {
                    (0..ext.len()).for_each(&mut digit);
                }
                Ok(Some(idx))
            }
            Order::Strided(s) => strided_inverse(s, ext, slot, budget),
        }
    }
}

/// Find i with sum(i_k * s_k) == slot and 0 <= i_k < ext_k: depth-first over the dimensions by decreasing
/// |stride|, trying only candidates the remaining dimensions can still complete. Nested strides (every
/// practical layout) take one step per dimension; the budget bounds pathological ones.
fn strided_inverse(
    strides: &[i64],
    ext: &[u64],
    slot: i128,
    budget: &mut u32,
) -> Res<Option<Vec<u64>>> {
    if ext.contains(&0) {
        return Ok(None);
    }
    // Substitute i -> n-1-i for negative strides so every stride is positive; zero strides take index 0.
    let mut target = slot;
    let mut dims: Vec<(usize, i128, i128)> = Vec::new(); // (dimension, |stride|, extent)
    for (k, (&st, &n)) in strides.iter().zip(ext).enumerate() {
        let (st, n) = (i128::from(st), i128::from(n));
        if st < 0 {
            target = ovf((n - 1).checked_mul(-st).and_then(|v| v.checked_add(target)))?;
        }
        if st != 0 {
            dims.push((k, st.abs(), n));
        }
    }
    dims.sort_by_key(|d| std::cmp::Reverse(d.1));
    let m = dims.len();
    // cap[j]: the most the dimensions after j can add.
    let mut cap = vec![0i128; m];
    for j in (0..m.saturating_sub(1)).rev() {
        let (_, s, n) = dims[j + 1];
        cap[j] = ovf((n - 1)
            .checked_mul(s)
            .and_then(|v| v.checked_add(cap[j + 1])))?;
    }
    let Some(chosen) = search(&dims, &cap, target, budget)? else {
        return Ok(None);
    };
    let mut idx = vec![0u64; ext.len()];
    for (&(k, _, n), &c) in dims.iter().zip(&chosen) {
        // 0 <= c < n <= u64::MAX, so the casts are exact.
        idx[k] = if strides[k] < 0 {
            (n - 1 - c) as u64
        } else {
            c as u64
        };
    }
    Ok(Some(idx))
}

/// The depth-first search of [`strided_inverse`], without recursion: `hi[j]` is the candidate being tried
/// at level j (tried from the largest down to `lo[j]`), `rem[j]` what levels j.. still have to add up to.
fn search(
    dims: &[(usize, i128, i128)],
    cap: &[i128],
    target: i128,
    budget: &mut u32,
) -> Res<Option<Vec<i128>>> {
    let m = dims.len();
    if m == 0 {
        return Ok((target == 0).then(Vec::new));
    }
    let mut hi = vec![0i128; m];
    let mut lo = vec![0i128; m];
    let mut rem = vec![0i128; m + 1];
    let bounds = |j: usize, r: i128, hi: &mut [i128], lo: &mut [i128]| -> Res<()> {
        let (_, s, n) = dims[j];
        if r < 0 {
            (hi[j], lo[j]) = (-1, 0);
        } else {
            hi[j] = (n - 1).min(r / s);
            lo[j] = div_ceil(ovf(r.checked_sub(cap[j]))?, s)?.max(0);
        }
        Ok(())
    };
    rem[0] = target;
    bounds(0, target, &mut hi, &mut lo)?;
    let mut level = 0usize;
    loop {
        if hi[level] < lo[level] {
            if level == 0 {
                return Ok(None);
            }
            level -= 1;
            hi[level] -= 1;
            continue;
        }
        *budget = budget
            .checked_sub(1)
            .ok_or(ErrorKind::SearchBudget(SEARCH_BUDGET))?;
        // hi[level] <= rem[level] / s, so this stays within 0..=rem[level].
        rem[level + 1] = rem[level] - hi[level] * dims[level].1;
        if level + 1 == m {
            if rem[m] == 0 {
                return Ok(Some(hi));
            }
            hi[level] -= 1;
        } else {
            level += 1;
            bounds(level, rem[level], &mut hi, &mut lo)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Tiled layouts

/// Tiles per dimension, ceil(shape / tile). Never overflows: the result is at most the shape.
fn grid(shape: &[u64], tile: &[u64]) -> Vec<u64> {
    shape
        .iter()
        .zip(tile)
        .map(|(&n, &t)| n / t + u64::from(n % t != 0))
        .collect()
}

impl Tiling {
    fn position(&self, idx: &[u64], shape: &[u64]) -> Res<TilePosition> {
        let tile: Vec<u64> = idx
            .iter()
            .zip(&self.tile_shape)
            .map(|(&i, &t)| i / t)
            .collect();
        let intra: Vec<u64> = idx
            .iter()
            .zip(&self.tile_shape)
            .map(|(&i, &t)| i % t)
            .collect();
        let tile_number = self.outer.offset(&tile, &grid(shape, &self.tile_shape))?;
        let tile_start = ovf(tile_number.checked_mul(self.tile_elems))?;
        let intra_offset = self.inner.offset(&intra, &self.tile_shape)?;
        let offset = ovf(tile_start.checked_add(intra_offset))?;
        Ok(TilePosition {
            tile,
            tile_number,
            tile_start,
            intra,
            intra_offset,
            offset,
        })
    }

    fn offset(&self, idx: &[u64], shape: &[u64]) -> Res<i128> {
        Ok(self.position(idx, shape)?.offset)
    }

    fn range(&self, shape: &[u64]) -> Res<Option<(i128, i128)>> {
        let Some((omin, omax)) = self.outer.range(&grid(shape, &self.tile_shape))? else {
            return Ok(None);
        };
        let Some((imin, imax)) = self.inner.range(&self.tile_shape)? else {
            return Ok(None);
        };
        let min = ovf(omin
            .checked_mul(self.tile_elems)
            .and_then(|v| v.checked_add(imin)))?;
        let max = ovf(omax
            .checked_mul(self.tile_elems)
            .and_then(|v| v.checked_add(imax)))?;
        Ok(Some((min, max)))
    }

    fn inverse(&self, slot: i128, shape: &[u64], budget: &mut u32) -> Res<Option<Vec<u64>>> {
        // tile_elems > 0 (every tile size is), and the inner order stays within 0..tile_elems.
        let number = slot.div_euclid(self.tile_elems);
        let within = slot.rem_euclid(self.tile_elems);
        let Some(tile) = self
            .outer
            .inverse(number, &grid(shape, &self.tile_shape), budget)?
        else {
            return Ok(None);
        };
        let Some(intra) = self.inner.inverse(within, &self.tile_shape, budget)? else {
            return Ok(None);
        };
        let mut idx = Vec::with_capacity(shape.len());
        for (((&t, &e), &ts), &n) in tile.iter().zip(&intra).zip(&self.tile_shape).zip(shape) {
            match t.checked_mul(ts).and_then(|v| v.checked_add(e)) {
                Some(i) if i < n => idx.push(i),
                _ => return Ok(None), // padding of a partial tile
            }
        }
        Ok(Some(idx))
    }
}

impl Inner {
    fn offset(&self, e: &[u64], tile: &[u64]) -> Res<i128> {
        match self {
            Inner::Order(o) => o.offset(e, tile),
            Inner::Tiled(t) => t.offset(e, tile),
        }
    }

    fn range(&self, tile: &[u64]) -> Res<Option<(i128, i128)>> {
        match self {
            Inner::Order(o) => o.range(tile),
            Inner::Tiled(t) => t.range(tile),
        }
    }

    fn inverse(&self, slot: i128, tile: &[u64], budget: &mut u32) -> Res<Option<Vec<u64>>> {
        match self {
            Inner::Order(o) => o.inverse(slot, tile, budget),
            Inner::Tiled(t) => t.inverse(slot, tile, budget),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// TiGrIS activations in an arena

/// Axis order of a stored TiGrIS activation (tensor record flag 0x08 picks `Linear`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Storage {
    /// Channels-last, N H W C (rank-3 NLC tensors as [N, L, 1, C]): the default for activations.
    #[default]
    ChannelsLast,
    /// Model (ONNX) order, N C H W: tensors the plan flags linear.
    Linear,
}

/// One activation placed in an arena: its bytes, whole or as a band of rows, and optionally the row
/// ranges of the tiles that produce or consume it. Dimensions are the logical N, H, W, C whatever the
/// storage order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorView {
    tensor: u32,
    base: u32,
    dims: [u32; 4],
    elem_bytes: u32,
    storage: Storage,
    rows: Range<u32>,
    tiles: Vec<Range<u32>>,
}

/// What a bus address holds: tensor, element, its coordinates and the tile whose rows contain it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The caller's tensor id (the plan's tensor index).
    pub tensor: u32,
    /// Linear index of the element in the whole tensor, in its storage order (band or not).
    pub element: u64,
    pub n: u32,
    /// Row in the whole tensor (a band's first row is its start row, not 0).
    pub h: u32,
    pub w: u32,
    pub c: u32,
    /// Byte within the element (0 for one-byte types).
    pub byte: u32,
    /// First tile, in the order given to [`TensorView::with_tiles`], whose row range contains `h`.
    pub tile: Option<usize>,
}

impl TensorView {
    /// The whole tensor, channels-last, at `base`. The bytes must fit below 4 GiB.
    pub fn new(
        tensor: u32,
        base: u32,
        dims: [u32; 4],
        elem_bytes: u32,
    ) -> Result<TensorView, LayoutError> {
        if elem_bytes == 0 {
            return Err(err("elem_bytes", ErrorKind::ElementBits(0)));
        }
        let view = TensorView {
            tensor,
            base,
            dims,
            elem_bytes,
            storage: Storage::ChannelsLast,
            rows: 0..dims[1],
            tiles: Vec::new(),
        };
        let too_large = || {
            err(
                "dims",
                ErrorKind::TooLarge {
                    what: "base + tensor bytes",
                    limit: "the 32-bit address space",
                },
            )
        };
        let bytes = dims
            .iter()
            .try_fold(u64::from(elem_bytes), |a, &d| a.checked_mul(u64::from(d)))
            .ok_or_else(too_large)?;
        match bytes.checked_add(u64::from(base)) {
            Some(end) if end <= 1u64 << 32 => Ok(view),
            _ => Err(too_large()),
        }
    }

    /// Stored in model order (N C H W) rather than channels-last.
    pub fn linear(mut self) -> TensorView {
        self.storage = Storage::Linear;
        self
    }

    /// Only rows `rows` of the tensor are stored at the base, contiguously in the same axis order, as
    /// TiGrIS stores a tile band (for N C H W: the band of every channel plane in turn).
    pub fn band(mut self, rows: Range<u32>) -> Result<TensorView, LayoutError> {
        let height = self.dims[1];
        if rows.start >= rows.end || rows.end > height {
            return Err(err(
                "rows",
                ErrorKind::BadRows {
                    start: rows.start,
                    end: rows.end,
                    height,
                },
            ));
        }
        self.rows = rows;
        Ok(self)
    }

    /// Row ranges (whole-tensor rows) of the tiles, in tile order; ranges may overlap (halo rows).
    pub fn with_tiles(mut self, tiles: Vec<Range<u32>>) -> Result<TensorView, LayoutError> {
        let height = self.dims[1];
        for (i, r) in tiles.iter().enumerate() {
            if r.start >= r.end || r.end > height {
                return Err(err(
                    format!("tiles[{i}]"),
                    ErrorKind::BadRows {
                        start: r.start,
                        end: r.end,
                        height,
                    },
                ));
            }
        }
        self.tiles = tiles;
        Ok(self)
    }

    pub fn tensor(&self) -> u32 {
        self.tensor
    }

    /// Bus addresses the stored rows occupy.
    pub fn span(&self) -> Range<u64> {
        let [n, _, w, c] = self.dims.map(u64::from);
        let rows = u64::from(self.rows.end - self.rows.start);
        // Bounded by the whole tensor, checked below 2^32 in `new`.
        let bytes = n * rows * w * c * u64::from(self.elem_bytes);
        u64::from(self.base)..u64::from(self.base) + bytes
    }

    /// The tensor element stored at a bus address, or `None` outside the stored rows.
    pub fn locate(&self, addr: u32) -> Option<Location> {
        let span = self.span();
        let a = u64::from(addr);
        if !span.contains(&a) {
            return None;
        }
        let off = a - span.start;
        let e = off / u64::from(self.elem_bytes);
        let byte = (off % u64::from(self.elem_bytes)) as u32;
        // A non-empty span means every dimension and the band height are > 0.
        let [_, h_dim, w_dim, c_dim] = self.dims.map(u64::from);
        let rows = u64::from(self.rows.end - self.rows.start);
        let r0 = u64::from(self.rows.start);
        let (n, h, w, c, element) = match self.storage {
            Storage::ChannelsLast => {
                let (c, rest) = (e % c_dim, e / c_dim);
                let (w, rest) = (rest % w_dim, rest / w_dim);
                let (h, n) = (r0 + rest % rows, rest / rows);
                (n, h, w, c, ((n * h_dim + h) * w_dim + w) * c_dim + c)
            }
            Storage::Linear => {
                let (w, rest) = (e % w_dim, e / w_dim);
                let (h, rest) = (r0 + rest % rows, rest / rows);
                let (c, n) = (rest % c_dim, rest / c_dim);
                (n, h, w, c, ((n * c_dim + c) * h_dim + h) * w_dim + w)
            }
        };
        // Each coordinate is below its u32 dimension.
        let h = h as u32;
        Some(Location {
            tensor: self.tensor,
            element,
            n: n as u32,
            h,
            w: w as u32,
            c: c as u32,
            byte,
            tile: self.tiles.iter().position(|r| r.contains(&h)),
        })
    }

    /// The stored bytes as a layout descriptor relative to the base: row-major over the stored axis order
    /// (N H W C or N C H W), a shard of the whole tensor when only a band is stored.
    pub fn layout(&self) -> Result<Layout, LayoutError> {
        let [n, h, w, c] = self.dims.map(u64::from);
        let rows = u64::from(self.rows.end - self.rows.start);
        let r0 = u64::from(self.rows.start);
        let (shape, parent, offset) = match self.storage {
            Storage::ChannelsLast => (vec![n, rows, w, c], vec![n, h, w, c], vec![0, r0, 0, 0]),
            Storage::Linear => (vec![n, c, rows, w], vec![n, c, h, w], vec![0, 0, r0, 0]),
        };
        let band = rows != h;
        let fields = LayoutFields {
            tag: tag::ROW_MAJOR,
            shape,
            byte_offset: 0,
            elem_bits: self
                .elem_bytes
                .checked_mul(8)
                .ok_or_else(|| err("elem_bytes", ErrorKind::Overflow))?,
            buffer_bytes: Some(self.span().end - self.span().start),
            strides: None,
            tiling: None,
            shard: band.then_some(ShardFields {
                parent_shape: parent,
                shard_offset: offset,
            }),
        };
        Layout::from_fields(&fields, Mode::Strict)
    }
}

/// Tile row ranges of `height` rows cut into tiles of `tile_h` rows (the last one may be shorter).
pub fn uniform_tiles(height: u32, tile_h: u32) -> Vec<Range<u32>> {
    if tile_h == 0 {
        return Vec::new();
    }
    (0..height)
        .step_by(tile_h as usize)
        .map(|s| s..s.saturating_add(tile_h).min(height))
        .collect()
}

/// The activations live in one arena at one moment: non-overlapping views, looked up by address.
#[derive(Clone, Debug, Default)]
pub struct ArenaMap {
    /// Sorted by base; never empty spans, never overlapping.
    views: Vec<TensorView>,
}

impl ArenaMap {
    /// Add a view, replacing any view of the same tensor. Refused if it overlaps another tensor's bytes
    /// (the map is then unchanged). A view with no bytes is accepted and never found.
    pub fn insert(&mut self, view: TensorView) -> Result<(), LayoutError> {
        let old = self.remove(view.tensor);
        let span = view.span();
        if span.is_empty() {
            return Ok(());
        }
        let pos = self.views.partition_point(|v| v.span().start <= span.start);
        let clash = pos
            .checked_sub(1)
            .and_then(|p| self.views.get(p))
            .filter(|v| v.span().end > span.start);
        let clash = clash.or_else(|| self.views.get(pos).filter(|v| v.span().start < span.end));
        if let Some(other) = clash {
            let e = err(
                "base",
                ErrorKind::Overlap {
                    start: span.start,
                    end: span.end,
                    other: other.tensor,
                },
            );
            if let Some(old) = old {
                let _ = self.insert(old); // it fitted before
            }
            return Err(e);
        }
        self.views.insert(pos, view);
        Ok(())
    }

    pub fn remove(&mut self, tensor: u32) -> Option<TensorView> {
        let i = self.views.iter().position(|v| v.tensor == tensor)?;
        Some(self.views.remove(i))
    }

    pub fn clear(&mut self) {
        self.views.clear();
    }

    /// The tensor element at a bus address, if any view holds it.
    pub fn locate(&self, addr: u32) -> Option<Location> {
        let pos = self
            .views
            .partition_point(|v| v.span().start <= u64::from(addr));
        self.views.get(pos.checked_sub(1)?)?.locate(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a tiny deterministic generator for the property tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: u64) -> u64 {
            if n == 0 {
                0
            } else {
                self.next() % n
            }
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len() as u64) as usize]
        }
    }

    fn dense(tag: u8, shape: &[u64], elem_bits: u32) -> LayoutFields {
        LayoutFields {
            tag,
            shape: shape.to_vec(),
            elem_bits,
            ..Default::default()
        }
    }

    fn tiling(tile: &[u64], outer: u8, inner: u8) -> TilingFields {
        TilingFields {
            tile_shape: tile.to_vec(),
            outer_layout: outer,
            inner_layout: inner,
            ..Default::default()
        }
    }

    fn tiled(shape: &[u64], t: TilingFields, elem_bits: u32) -> LayoutFields {
        LayoutFields {
            tiling: Some(t),
            ..dense(tag::TILED, shape, elem_bits)
        }
    }

    fn build(f: &LayoutFields) -> Layout {
        match Layout::from_fields(f, Mode::Strict) {
            Ok(l) => l,
            Err(e) => panic!("rejected: {e}"),
        }
    }

    fn rejected(f: &LayoutFields, mode: Mode) -> String {
        match Layout::from_fields(f, mode) {
            Ok(_) => panic!("accepted: {f:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// `depth` nested tiling levels of [2, 2] tiles, the innermost with a row-major inner order.
    fn chain(depth: usize) -> TilingFields {
        let mut t = tiling(&[2, 2], tag::ROW_MAJOR, tag::ROW_MAJOR);
        for _ in 1..depth {
            t = TilingFields {
                inner: Some(Box::new(t)),
                ..tiling(&[2, 2], tag::ROW_MAJOR, tag::TILED)
            };
        }
        t
    }

    // --- one test per rule -------------------------------------------------------------------------------

    #[test]
    fn tags_00_and_ff_are_always_rejected() {
        for mode in [Mode::Strict, Mode::Permissive] {
            assert_eq!(
                rejected(&dense(0x00, &[4], 8), mode),
                "tag: layout tag 0x00 is reserved and always rejected"
            );
            assert_eq!(
                rejected(&dense(0xFF, &[4], 8), mode),
                "tag: layout tag 0xFF is reserved and always rejected"
            );
        }
    }

    #[test]
    fn unknown_tags_are_rejected_in_strict_mode() {
        assert_eq!(
            rejected(&dense(0x37, &[4], 8), Mode::Strict),
            "tag: unknown layout tag 0x37 (unassigned); accepted only in permissive mode"
        );
        assert_eq!(
            rejected(&dense(0x06, &[4], 8), Mode::Strict),
            "tag: unknown layout tag 0x06 (a sparse layout); accepted only in permissive mode"
        );
        assert_eq!(
            rejected(&dense(0xF3, &[4], 8), Mode::Strict),
            "tag: unknown layout tag 0xF3 (an implementation-private extension layout); accepted only in permissive mode"
        );
    }

    #[test]
    fn permissive_mode_accepts_unknown_tags_but_never_interprets_them() {
        let l = Layout::from_fields(&dense(0x37, &[4], 8), Mode::Permissive).unwrap();
        let msg = "tag: layout tag 0x37 was accepted in permissive mode, so its data is never interpreted";
        assert_eq!(l.address(&[1]).unwrap_err().to_string(), msg);
        assert_eq!(l.index_at(0, 0).unwrap_err().to_string(), msg);
        assert_eq!(l.slot_range().unwrap_err().to_string(), msg);
        assert_eq!(l.sub_block(&[0], &[1]).unwrap_err().to_string(), msg);
        assert_eq!(l.to_parent(&[0]).unwrap_err().to_string(), msg);
    }

    #[test]
    fn sparse_indirect_and_virtual_tags_need_a_zero_byte_offset() {
        let f = LayoutFields {
            byte_offset: 16,
            ..dense(0x0A, &[4], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Permissive),
            "byte_offset: must be 0 for sparse, indirect and virtual layouts (tag 0x0A), got 16"
        );
        let f = LayoutFields {
            byte_offset: 0,
            ..f
        };
        assert!(Layout::from_fields(&f, Mode::Permissive).is_ok());
    }

    #[test]
    fn tiled_layout_is_refused_for_rank_0() {
        let f = tiled(&[], tiling(&[], tag::ROW_MAJOR, tag::ROW_MAJOR), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "shape: a tiled layout is not allowed for a rank-0 (scalar) tensor"
        );
        // A contiguous scalar is fine: one element at the byte offset.
        let s = build(&LayoutFields {
            byte_offset: 64,
            ..dense(tag::ROW_MAJOR, &[], 32)
        });
        assert_eq!(s.address(&[]).unwrap(), Address { byte: 64, bit: 0 });
        assert_eq!(s.index_at(67, 0).unwrap(), Some(vec![]));
        assert_eq!(s.index_at(68, 0).unwrap(), None);
    }

    #[test]
    fn tile_sizes_must_be_positive_at_every_level() {
        let f = tiled(&[6, 8], tiling(&[2, 0], tag::ROW_MAJOR, tag::ROW_MAJOR), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.tile_shape[1]: tile size must be greater than 0"
        );
        let inner = tiling(&[0, 2], tag::ROW_MAJOR, tag::ROW_MAJOR);
        let t = TilingFields {
            inner: Some(Box::new(inner)),
            ..tiling(&[2, 4], tag::ROW_MAJOR, tag::TILED)
        };
        assert_eq!(
            rejected(&tiled(&[6, 8], t, 8), Mode::Strict),
            "tiling.inner.tile_shape[0]: tile size must be greater than 0"
        );
    }

    #[test]
    fn recursion_deeper_than_the_cap_is_rejected() {
        let side = 1u64 << MAX_TILING_DEPTH;
        assert!(Layout::from_fields(
            &tiled(&[side, side], chain(MAX_TILING_DEPTH), 8),
            Mode::Strict
        )
        .is_ok());
        let msg = format!(
            "tiling{}: recursive tiling nests deeper than the cap of 8 levels",
            ".inner".repeat(8)
        );
        assert_eq!(
            rejected(
                &tiled(&[side, side], chain(MAX_TILING_DEPTH + 1), 8),
                Mode::Strict
            ),
            msg
        );
        // A very deep descriptor is cut off at the cap, not walked to its end.
        assert_eq!(rejected(&tiled(&[4, 4], chain(1000), 8), Mode::Strict), msg);
    }

    #[test]
    fn dynamic_dimensions_must_be_resolved_before_use() {
        let l = build(&dense(tag::ROW_MAJOR, &[2, DYNAMIC], 8));
        let msg = "shape[1]: dynamic dimension (u64::MAX) must be resolved before use";
        assert_eq!(l.address(&[0, 0]).unwrap_err().to_string(), msg);
        assert_eq!(l.index_at(0, 0).unwrap_err().to_string(), msg);
        let r = l.resolve(&[2, 5], None).unwrap();
        assert_eq!(r.address(&[1, 3]).unwrap().byte, 8);
        assert_eq!(
            l.resolve(&[3, 5], None).unwrap_err().to_string(),
            "shape[0]: resolved size 3 differs from the static size 2"
        );
        assert_eq!(l.resolve(&[2, DYNAMIC], None).unwrap_err().to_string(), msg);
        // A shard's dynamic parent dimension blocks lookups too, and its bound is checked once resolved.
        let shard = ShardFields {
            parent_shape: vec![DYNAMIC, 4],
            shard_offset: vec![1, 0],
        };
        let l = build(&LayoutFields {
            shard: Some(shard),
            ..dense(tag::ROW_MAJOR, &[2, 4], 8)
        });
        assert_eq!(
            l.address(&[0, 0]).unwrap_err().to_string(),
            "shard.parent_shape[0]: dynamic dimension (u64::MAX) must be resolved before use"
        );
        assert_eq!(
            l.resolve(&[2, 4], Some(&[3, 4]))
                .unwrap()
                .to_parent(&[1, 2])
                .unwrap(),
            vec![2, 2]
        );
        assert_eq!(
            l.resolve(&[2, 4], Some(&[2, 4])).unwrap_err().to_string(),
            "shard.shard_offset[0]: shard_offset 1 + shape 2 exceeds parent_shape 2"
        );
    }

    #[test]
    fn shards_must_fit_their_parent() {
        let shard = ShardFields {
            parent_shape: vec![4, 6],
            shard_offset: vec![0, 3],
        };
        let f = LayoutFields {
            shard: Some(shard),
            ..dense(tag::ROW_MAJOR, &[4, 4], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "shard.shard_offset[1]: shard_offset 3 + shape 4 exceeds parent_shape 6"
        );
        let shard = ShardFields {
            parent_shape: vec![u64::MAX - 1],
            shard_offset: vec![u64::MAX - 1],
        };
        let f = LayoutFields {
            shard: Some(shard),
            ..dense(tag::ROW_MAJOR, &[4], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "shard.shard_offset[0]: arithmetic overflow"
        );
        let shard = ShardFields {
            parent_shape: vec![4],
            shard_offset: vec![0, 0],
        };
        let f = LayoutFields {
            shard: Some(shard),
            ..dense(tag::ROW_MAJOR, &[4], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "shard.shard_offset: expected 1 entries (one per dimension), got 2"
        );
        let shard = ShardFields {
            parent_shape: vec![8, 6],
            shard_offset: vec![4, 2],
        };
        let l = build(&LayoutFields {
            shard: Some(shard),
            ..dense(tag::ROW_MAJOR, &[4, 4], 8)
        });
        assert_eq!(l.to_parent(&[3, 3]).unwrap(), vec![7, 5]);
    }

    #[test]
    fn byte_offset_and_extent_must_fit_the_buffer() {
        let f = LayoutFields {
            byte_offset: 65,
            buffer_bytes: Some(64),
            ..dense(tag::ROW_MAJOR, &[0], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "byte_offset: 65 is past the end of the 64-byte buffer"
        );
        let f = LayoutFields {
            byte_offset: 8,
            buffer_bytes: Some(64),
            ..dense(tag::ROW_MAJOR, &[15], 32)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "buffer_bytes: the layout needs 68 bytes but the buffer has 64"
        );
        // Padding of partial tiles counts: [5, 7] in [2, 4] tiles stores 3 x 2 tiles of 8.
        let f = LayoutFields {
            buffer_bytes: Some(47),
            ..tiled(&[5, 7], tiling(&[2, 4], 1, 1), 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "buffer_bytes: the layout needs 48 bytes but the buffer has 47"
        );
        // Negative strides may not reach before the buffer.
        let f = LayoutFields {
            byte_offset: 2,
            strides: Some(vec![-1]),
            ..dense(tag::STRIDED, &[4], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "strides: the lowest element would lie 1 bytes before the start of the buffer"
        );
    }

    #[test]
    fn sub_byte_blocks_must_start_on_a_byte_boundary() {
        let nibbles = build(&dense(tag::ROW_MAJOR, &[3, 5], 4));
        assert_eq!(
            nibbles.sub_block(&[1, 0], &[2, 5]).unwrap_err().to_string(),
            "byte_offset: a sub-byte tensor must start on a byte boundary, this one starts at bit 4 of a byte"
        );
        let ok = nibbles.sub_block(&[2, 0], &[1, 4]).unwrap();
        assert_eq!(ok.byte_offset(), 5);
        assert_eq!(ok.address(&[0, 3]).unwrap(), Address { byte: 6, bit: 4 });
        assert_eq!(ok.to_parent(&[0, 3]).unwrap(), vec![2, 3]);
        let bits = build(&dense(tag::ROW_MAJOR, &[2, 12], 1));
        assert_eq!(
            bits.sub_block(&[1, 0], &[1, 12]).unwrap_err().to_string(),
            "byte_offset: a sub-byte tensor must start on a byte boundary, this one starts at bit 4 of a byte"
        );
        assert_eq!(bits.sub_block(&[0, 8], &[2, 4]).unwrap().byte_offset(), 1);
        let six = build(&dense(tag::ROW_MAJOR, &[3, 6], 6));
        assert_eq!(
            six.sub_block(&[0, 2], &[1, 4]).unwrap_err().to_string(),
            "byte_offset: a 6-bit tensor must start on a group boundary (4 elements in 3 bytes), this one starts at element 2 of a group"
        );
        assert_eq!(six.sub_block(&[2, 0], &[1, 4]).unwrap().byte_offset(), 9);
        assert_eq!(
            nibbles.sub_block(&[2, 2], &[1, 4]).unwrap_err().to_string(),
            "shard.shard_offset[1]: shard_offset 2 + shape 4 exceeds parent_shape 5"
        );
        let t = build(&tiled(&[4, 4], tiling(&[2, 2], 1, 1), 8));
        assert_eq!(
            t.sub_block(&[0, 0], &[2, 2]).unwrap_err().to_string(),
            "tag: only affine layouts (row-major, column-major, strided) have sub-blocks"
        );
    }

    #[test]
    fn six_bit_types_are_addressed_per_group() {
        let l = build(&LayoutFields {
            byte_offset: 64,
            ..dense(tag::ROW_MAJOR, &[2, 6], 6)
        });
        assert_eq!(
            l.address(&[1, 1]).unwrap_err().to_string(),
            "elem_bits: 6-bit types are addressed per group of 4 elements in 3 bytes, not per element"
        );
        // [1, 1] is slot 7: group 1 (bytes 67..70), position 3.
        assert_eq!(
            l.group_address(&[1, 1]).unwrap(),
            GroupAddress {
                byte: 67,
                position: 3
            }
        );
        assert_eq!(
            l.index_at(67, 0).unwrap_err().kind,
            ErrorKind::GroupAddressed
        );
        let bytes = build(&dense(tag::ROW_MAJOR, &[2], 8));
        assert_eq!(
            bytes.group_address(&[0]).unwrap_err().to_string(),
            "elem_bits: group addressing applies only to 6-bit types"
        );
    }

    #[test]
    fn tiling_tags_reserved_bytes_and_strides_are_checked() {
        let f = tiled(&[6, 8], tiling(&[2, 4], 0x04, tag::ROW_MAJOR), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.outer_layout: layout tag 0x04 not allowed here (allowed: 0x01, 0x02, 0x03)"
        );
        let f = tiled(&[6, 8], tiling(&[2, 4], tag::ROW_MAJOR, 0x05), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.inner_layout: layout tag 0x05 not allowed here (allowed: 0x01, 0x02, 0x03, 0x04)"
        );
        let f = tiled(
            &[6, 8],
            TilingFields {
                reserved: [0, 1],
                ..tiling(&[2, 4], 1, 1)
            },
            8,
        );
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling._reserved[1]: reserved byte must be 0x00, got 0x01"
        );
        let f = tiled(&[6, 8], tiling(&[2, 4], tag::STRIDED, 1), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.outer_strides: missing, but required by the strided order 0x03"
        );
        let f = tiled(
            &[6, 8],
            TilingFields {
                inner_strides: Some(vec![4]),
                ..tiling(&[2, 4], 1, tag::STRIDED)
            },
            8,
        );
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.inner_strides: expected 2 entries (one per dimension), got 1"
        );
        let f = tiled(&[6, 8], tiling(&[2, 4, 1], 1, 1), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.tile_shape: expected 2 entries (one per dimension), got 3"
        );
        let f = tiled(&[6, 8], tiling(&[2, 4], 1, tag::TILED), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.inner: missing, but required by the recursive inner order 0x04"
        );
        let f = dense(tag::TILED, &[6, 8], 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling: missing, but required by the tiled layout 0x04"
        );
        let f = LayoutFields {
            strides: Some(vec![8, 1]),
            ..dense(tag::ROW_MAJOR, &[6, 8], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "strides: present, but allowed only with the strided order 0x03"
        );
        let f = dense(tag::STRIDED, &[6, 8], 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "strides: missing, but required by the strided order 0x03"
        );
    }

    #[test]
    fn inner_orders_must_stay_inside_their_tile() {
        // Row stride 5 in a [2, 4] tile reaches slot 8, the first slot of the next tile.
        let t = TilingFields {
            inner_strides: Some(vec![5, 1]),
            ..tiling(&[2, 4], 1, tag::STRIDED)
        };
        assert_eq!(
            rejected(&tiled(&[6, 8], t, 8), Mode::Strict),
            "tiling.inner_strides: the inner layout reaches element slots 0..=8, outside the tile's 8 slots"
        );
        // [3, 3] sub-tiles do not divide a [4, 4] tile: 2 x 2 of them need 36 slots.
        let inner = tiling(&[3, 3], 1, 1);
        let t = TilingFields {
            inner: Some(Box::new(inner)),
            ..tiling(&[4, 4], 1, tag::TILED)
        };
        assert_eq!(
            rejected(&tiled(&[8, 8], t, 8), Mode::Strict),
            "tiling.inner: the inner layout reaches element slots 0..=35, outside the tile's 16 slots"
        );
    }

    #[test]
    fn element_widths_are_checked() {
        for bits in [0, 3, 5, 12] {
            assert_eq!(
                rejected(&dense(tag::ROW_MAJOR, &[2], bits), Mode::Strict),
                format!("elem_bits: unsupported element width of {bits} bits (1, 2, 4, 6 or a multiple of 8)")
            );
        }
    }

    #[test]
    fn sizes_beyond_the_arithmetic_are_rejected_not_wrapped() {
        let f = dense(tag::ROW_MAJOR, &[u64::MAX - 1, u64::MAX - 1, 4], 8);
        assert_eq!(rejected(&f, Mode::Strict), "shape: arithmetic overflow");
        let f = dense(tag::ROW_MAJOR, &[1 << 62, 8], 64);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "shape: the address lies outside the 64-bit byte range"
        );
        let f = LayoutFields {
            strides: Some(vec![i64::MAX, i64::MAX]),
            ..dense(tag::STRIDED, &[1 << 62, 4], 8)
        };
        assert_eq!(
            rejected(&f, Mode::Strict),
            "shape: the address lies outside the 64-bit byte range"
        );
        let f = tiled(&[4, 4], tiling(&[u64::MAX, u64::MAX], 1, 1), 8);
        assert_eq!(
            rejected(&f, Mode::Strict),
            "tiling.tile_shape: arithmetic overflow"
        );
    }

    #[test]
    fn indices_are_checked() {
        let l = build(&dense(tag::ROW_MAJOR, &[6, 8], 8));
        assert_eq!(
            l.address(&[1]).unwrap_err().to_string(),
            "index: expected 2 entries (one per dimension), got 1"
        );
        assert_eq!(
            l.address(&[6, 0]).unwrap_err().to_string(),
            "index[0]: index 6 out of bounds for a dimension of size 6"
        );
        assert_eq!(
            l.index_at(0, 8).unwrap_err().to_string(),
            "bit: bit position 8 is not within a byte (0..=7)"
        );
    }

    // --- worked examples ---------------------------------------------------------------------------------

    #[test]
    fn spec_worked_example() {
        let l = build(&tiled(
            &[6, 8],
            tiling(&[2, 4], tag::ROW_MAJOR, tag::ROW_MAJOR),
            8,
        ));
        let p = l.tile_position(&[3, 5]).unwrap();
        assert_eq!(p.tile, vec![1, 1]);
        assert_eq!(p.tile_number, 3);
        assert_eq!(p.tile_start, 24);
        assert_eq!(p.intra, vec![1, 1]);
        assert_eq!(p.intra_offset, 5);
        assert_eq!(p.offset, 29);
        assert_eq!(l.address(&[3, 5]).unwrap(), Address { byte: 29, bit: 0 });
        assert_eq!(l.index_at(29, 0).unwrap(), Some(vec![3, 5]));
        assert_eq!(l.slot_range().unwrap(), Some(0..=47));
        assert_eq!(
            (l.tag(), l.elem_bits(), l.shape()),
            (tag::TILED, 8, &[6, 8][..])
        );
    }

    #[test]
    fn partial_tiles_are_padding() {
        // [5, 7] in [2, 4] tiles: a 3 x 2 grid of 8-slot tiles, 48 slots for 35 elements.
        let l = build(&tiled(&[5, 7], tiling(&[2, 4], 1, 1), 8));
        // [4, 6]: tile [2, 1] = number 5 at 40, intra [0, 2] = 2.
        assert_eq!(l.offset(&[4, 6]).unwrap(), 42);
        assert_eq!(l.index_at(43, 0).unwrap(), None); // column 7 of the last tile column
        assert_eq!(l.index_at(44, 0).unwrap(), None); // row 5
        let stored = (0..48)
            .filter(|&b| l.index_at(b, 0).unwrap().is_some())
            .count();
        assert_eq!(stored, 35);
        assert_eq!(l.index_at(48, 0).unwrap(), None);
    }

    #[test]
    fn recursive_tiling_by_hand() {
        // [4, 8] in [4, 4] tiles, each tile row-major in [2, 2] sub-tiles, each sub-tile row-major.
        // Element [3, 6]: tile [0, 1] = number 1, starting at 16. Inside it [3, 2]: sub-tile [1, 1] =
        // number 3 of the 2 x 2 sub-grid, starting at 12, and [1, 0] inside it = 2. Offset 16 + 14 = 30.
        let inner = tiling(&[2, 2], tag::ROW_MAJOR, tag::ROW_MAJOR);
        let t = TilingFields {
            inner: Some(Box::new(inner)),
            ..tiling(&[4, 4], tag::ROW_MAJOR, tag::TILED)
        };
        let l = build(&LayoutFields {
            byte_offset: 128,
            ..tiled(&[4, 8], t, 16)
        });
        let p = l.tile_position(&[3, 6]).unwrap();
        assert_eq!(
            (p.tile.as_slice(), p.tile_number, p.tile_start),
            (&[0, 1][..], 1, 16)
        );
        assert_eq!(
            (p.intra.as_slice(), p.intra_offset, p.offset),
            (&[3, 2][..], 14, 30)
        );
        assert_eq!(l.address(&[3, 6]).unwrap().byte, 128 + 60);
        assert_eq!(l.index_at(128 + 61, 0).unwrap(), Some(vec![3, 6]));
        // Element [1, 1] ends the first sub-tile: slot 3.
        assert_eq!(l.offset(&[1, 1]).unwrap(), 3);
        assert_eq!(l.offset(&[0, 2]).unwrap(), 4);
    }

    #[test]
    fn sub_byte_addressing_by_hand() {
        // 4-bit [3, 5] at byte 64: [2, 3] is slot 13 -> byte 64 + 6, bit 4; [2, 2] is slot 12 -> bit 0.
        let l = build(&LayoutFields {
            byte_offset: 64,
            ..dense(tag::ROW_MAJOR, &[3, 5], 4)
        });
        assert_eq!(l.address(&[2, 3]).unwrap(), Address { byte: 70, bit: 4 });
        assert_eq!(l.address(&[2, 2]).unwrap(), Address { byte: 70, bit: 0 });
        assert_eq!(l.index_at(70, 4).unwrap(), Some(vec![2, 3]));
        assert_eq!(l.index_at(70, 7).unwrap(), Some(vec![2, 3]));
        assert_eq!(l.index_at(70, 3).unwrap(), Some(vec![2, 2]));
        assert_eq!(l.index_at(71, 4).unwrap(), None); // the unused high nibble after slot 14
                                                      // 1-bit [2, 10] at byte 8: [1, 4] is slot 14 -> byte 8 + 1, bit 6.
        let b = build(&LayoutFields {
            byte_offset: 8,
            ..dense(tag::ROW_MAJOR, &[2, 10], 1)
        });
        assert_eq!(b.address(&[1, 4]).unwrap(), Address { byte: 9, bit: 6 });
        assert_eq!(b.index_at(9, 6).unwrap(), Some(vec![1, 4]));
        assert_eq!(b.index_at(8, 0).unwrap(), Some(vec![0, 0]));
        assert_eq!(b.index_at(10, 3).unwrap(), Some(vec![1, 9]));
        assert_eq!(b.index_at(10, 4).unwrap(), None);
        // 2-bit, same shape: slot 14 -> byte 8 + 3, bit 4.
        let q = build(&LayoutFields {
            byte_offset: 8,
            ..dense(tag::ROW_MAJOR, &[2, 10], 2)
        });
        assert_eq!(q.address(&[1, 4]).unwrap(), Address { byte: 11, bit: 4 });
        // Column-major 4-bit [3, 5]: [2, 3] is slot 2 + 3 * 3 = 11 -> byte 5, bit 4.
        let c = build(&dense(tag::COL_MAJOR, &[3, 5], 4));
        assert_eq!(c.address(&[2, 3]).unwrap(), Address { byte: 5, bit: 4 });
    }

    #[test]
    fn overlapping_strides_return_an_element_stored_there() {
        // Stride 0 broadcasts each row: every byte holds three elements.
        let l = build(&LayoutFields {
            strides: Some(vec![0, 1]),
            ..dense(tag::STRIDED, &[3, 4], 8)
        });
        let i = l.index_at(2, 0).unwrap().unwrap();
        assert_eq!(l.offset(&i).unwrap(), 2);
        assert_eq!(l.index_at(4, 0).unwrap(), None);
    }

    // --- round trips ------------------------------------------------------------------------------------

    fn round_trip_layouts() -> Vec<LayoutFields> {
        let rec3 = {
            let l3 = tiling(&[1, 3], tag::COL_MAJOR, tag::ROW_MAJOR);
            let l2 = TilingFields {
                inner: Some(Box::new(l3)),
                ..tiling(&[2, 3], tag::ROW_MAJOR, tag::TILED)
            };
            TilingFields {
                inner: Some(Box::new(l2)),
                ..tiling(&[4, 6], tag::COL_MAJOR, tag::TILED)
            }
        };
        vec![
            LayoutFields {
                byte_offset: 64,
                ..dense(tag::ROW_MAJOR, &[3, 4, 5], 16)
            },
            dense(tag::COL_MAJOR, &[3, 4, 5], 32),
            LayoutFields {
                byte_offset: 100,
                strides: Some(vec![10, -2]),
                ..dense(tag::STRIDED, &[4, 3], 8)
            },
            LayoutFields {
                strides: Some(vec![3, 2]),
                ..dense(tag::STRIDED, &[2, 3], 8)
            }, // not nested
            tiled(
                &[7, 9],
                TilingFields {
                    inner_strides: Some(vec![1, 3]),
                    ..tiling(&[3, 4], 2, 3)
                },
                8,
            ),
            tiled(
                &[7, 9],
                TilingFields {
                    outer_strides: Some(vec![1, 4]),
                    ..tiling(&[3, 4], 3, 1)
                },
                16,
            ),
            tiled(&[10, 12], rec3, 8),
            LayoutFields {
                byte_offset: 3,
                ..dense(tag::ROW_MAJOR, &[5, 7], 4)
            },
            tiled(&[5, 11], tiling(&[2, 8], 1, 2), 1),
            tiled(&[2, 3, 5, 4], tiling(&[1, 2, 2, 4], 1, 1), 8),
        ]
    }

    fn all_indices(shape: &[u64]) -> Vec<Vec<u64>> {
        let mut out = vec![vec![]];
        for &n in shape {
            out = out
                .into_iter()
                .flat_map(|p| (0..n).map(move |i| [p.clone(), vec![i]].concat()))
                .collect();
        }
        out
    }

    #[test]
    fn forward_and_inverse_round_trip_on_random_indices() {
        let mut rng = Rng(0x5EED);
        for f in round_trip_layouts() {
            let l = build(&f);
            for _ in 0..500 {
                let idx: Vec<u64> = f.shape.iter().map(|&n| rng.below(n)).collect();
                let a = l.address(&idx).unwrap();
                assert_eq!(
                    l.index_at(a.byte, a.bit).unwrap(),
                    Some(idx.clone()),
                    "{f:?}"
                );
            }
        }
    }

    #[test]
    fn inverse_is_a_bijection_onto_the_elements() {
        for f in round_trip_layouts() {
            let l = build(&f);
            let elements = all_indices(&f.shape);
            let mut slots: Vec<i128> = elements.iter().map(|i| l.offset(i).unwrap()).collect();
            slots.sort_unstable();
            slots.dedup();
            assert_eq!(slots.len(), elements.len(), "distinct slots: {f:?}");
            let range = l.slot_range().unwrap().unwrap();
            let mut found = 0;
            for s in range.clone() {
                if let Some(i) = l.index_of_slot(s).unwrap() {
                    assert_eq!(l.offset(&i).unwrap(), s);
                    found += 1;
                }
            }
            assert_eq!(found, elements.len(), "{f:?}");
            assert_eq!(l.index_of_slot(range.start() - 1).unwrap(), None);
            assert_eq!(l.index_of_slot(range.end() + 1).unwrap(), None);
        }
    }

    #[test]
    fn sub_blocks_address_the_parent_bytes() {
        let parent = build(&LayoutFields {
            byte_offset: 64,
            ..dense(tag::ROW_MAJOR, &[4, 6, 3], 16)
        });
        let block = parent.sub_block(&[1, 2, 0], &[2, 3, 3]).unwrap();
        let inner = block.sub_block(&[1, 1, 1], &[1, 2, 2]).unwrap();
        for i in all_indices(&[1, 2, 2]) {
            let p = inner.to_parent(&i).unwrap();
            assert_eq!(inner.address(&i).unwrap(), parent.address(&p).unwrap());
            let a = parent.address(&p).unwrap();
            assert_eq!(inner.index_at(a.byte, 0).unwrap(), Some(i));
        }
        // A byte of the parent outside the block is a gap of the block.
        assert_eq!(block.index_at(64, 0).unwrap(), None);
    }

    /// Random, mostly invalid descriptors and lookups: errors are fine, panics are not.
    #[test]
    fn no_input_panics() {
        let mut rng = Rng(42);
        let sizes = [0, 1, 2, 3, 7, 64, DYNAMIC, u64::MAX - 1, 1 << 40, 1 << 63];
        let strides = [0, 1, -1, 3, -7, 1 << 40, i64::MAX, i64::MIN];
        let tags = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x37, 0xFF];
        let bits = [0, 1, 2, 3, 4, 6, 8, 12, 16, 64, u32::MAX - 7];
        for _ in 0..20_000 {
            let rank = rng.below(4) as usize;
            let dims = |rng: &mut Rng, r: usize| -> Vec<u64> {
                (0..r)
                    .map(|_| {
                        if rng.below(3) == 0 {
                            rng.pick(&sizes)
                        } else {
                            rng.below(9)
                        }
                    })
                    .collect()
            };
            let strs = |rng: &mut Rng, r: usize| -> Option<Vec<i64>> {
                (rng.below(4) != 0).then(|| {
                    (0..r)
                        .map(|_| {
                            if rng.below(2) == 0 {
                                rng.pick(&strides)
                            } else {
                                rng.below(9) as i64 - 4
                            }
                        })
                        .collect()
                })
            };
            let mut t: Option<TilingFields> = None;
            for _ in 0..rng.below(11) {
                let r = if rng.below(8) == 0 { rank + 1 } else { rank };
                t = Some(TilingFields {
                    tile_shape: dims(&mut rng, r),
                    outer_layout: rng.pick(&[1, 2, 3, 4]),
                    inner_layout: if t.is_some() {
                        4
                    } else {
                        rng.pick(&[1, 2, 3, 4, 5])
                    },
                    reserved: [0, u8::from(rng.below(16) == 0)],
                    outer_strides: strs(&mut rng, rank),
                    inner_strides: strs(&mut rng, rank),
                    inner: t.map(Box::new),
                });
            }
            let f = LayoutFields {
                tag: rng.pick(&tags),
                shape: dims(&mut rng, rank),
                byte_offset: {
                    let any = rng.next();
                    rng.pick(&[0, 3, 64, u64::MAX, any])
                },
                elem_bits: rng.pick(&bits),
                buffer_bytes: rng.pick(&[None, Some(0), Some(64), Some(u64::MAX)]),
                strides: strs(&mut rng, rank),
                tiling: t,
                shard: (rng.below(3) == 0).then(|| ShardFields {
                    parent_shape: dims(&mut rng, rank),
                    shard_offset: {
                        let r = if rng.below(8) == 0 { rank + 1 } else { rank };
                        dims(&mut rng, r)
                    },
                }),
            };
            for mode in [Mode::Strict, Mode::Permissive] {
                let Ok(l) = Layout::from_fields(&f, mode) else {
                    continue;
                };
                let r = if rng.below(8) == 0 { rank + 1 } else { rank };
                let idx = dims(&mut rng, r);
                let any = rng.next();
                let _ = l.offset(&idx);
                let _ = l.address(&idx);
                let _ = l.group_address(&idx);
                let _ = l.tile_position(&idx);
                let _ = l.to_parent(&idx);
                let _ = l.index_at(rng.pick(&[0, 1, 63, u64::MAX, any]), rng.below(10) as u8);
                let _ = l.index_of_slot(rng.pick(&[0, -1, i128::MAX, i128::MIN, i128::from(any)]));
                let _ = l.slot_range();
                let _ = l.sub_block(&idx, &dims(&mut rng, rank));
                let _ = l.resolve(&dims(&mut rng, rank), Some(&dims(&mut rng, rank)));
            }
        }
    }

    // --- TiGrIS views ------------------------------------------------------------------------------------

    const BASE: u32 = 0x3C00_1000;

    #[test]
    fn nhwc_row_attribution_by_hand() {
        // int8 [1, 6, 4, 3] channels-last, tiles of 2 rows. Byte 47: channel 47 % 3 = 2, then 15 = w 3 of
        // row 3 -> tile 1.
        let v = TensorView::new(7, BASE, [1, 6, 4, 3], 1)
            .unwrap()
            .with_tiles(uniform_tiles(6, 2))
            .unwrap();
        let loc = v.locate(BASE + 47).unwrap();
        assert_eq!(
            loc,
            Location {
                tensor: 7,
                element: 47,
                n: 0,
                h: 3,
                w: 3,
                c: 2,
                byte: 0,
                tile: Some(1)
            }
        );
        assert_eq!(v.locate(BASE - 1), None);
        assert_eq!(v.locate(BASE + 72), None);
        // f32: byte 4 * 29 + 2 is byte 2 of element 29: c 2, then 9 = w 1 of row 2 -> tile 1.
        let f = TensorView::new(8, BASE, [1, 6, 4, 3], 4)
            .unwrap()
            .with_tiles(uniform_tiles(6, 4))
            .unwrap();
        let loc = f.locate(BASE + 4 * 29 + 2).unwrap();
        assert_eq!(
            (loc.element, loc.h, loc.w, loc.c, loc.byte, loc.tile),
            (29, 2, 1, 2, 2, Some(0))
        );
        // Batch 2: element 72 + 47 is the same spot in image 1.
        let b = TensorView::new(9, BASE, [2, 6, 4, 3], 1).unwrap();
        let loc = b.locate(BASE + 72 + 47).unwrap();
        assert_eq!((loc.n, loc.h, loc.w, loc.c, loc.element), (1, 3, 3, 2, 119));
    }

    #[test]
    fn bands_and_linear_tensors_by_hand() {
        // A band of rows 2..4 of int8 [1, 6, 4, 3] stored alone: byte 13 is channel 1, w 0 of its second
        // row, i.e. row 3 of the tensor, element (3 * 4 + 0) * 3 + 1 = 37.
        let tiles = vec![0..3, 2..5, 4..6]; // overlapping input tiles with a halo of one row
        let band = TensorView::new(7, BASE, [1, 6, 4, 3], 1)
            .unwrap()
            .band(2..4)
            .unwrap()
            .with_tiles(tiles.clone())
            .unwrap();
        let loc = band.locate(BASE + 13).unwrap();
        assert_eq!(
            (loc.h, loc.w, loc.c, loc.element, loc.tile),
            (3, 0, 1, 37, Some(1))
        );
        assert_eq!(band.locate(BASE + 24), None);
        assert_eq!(band.locate(BASE).unwrap().tile, Some(0)); // row 2 is in tiles 0 and 1: the first wins
                                                              // Linear (N C H W) [1, 6, 4, 3]: byte 53 is w 1, then 13 = row 1 of channel plane 2.
        let lin = TensorView::new(3, BASE, [1, 6, 4, 3], 1).unwrap().linear();
        let loc = lin.locate(BASE + 53).unwrap();
        assert_eq!((loc.h, loc.w, loc.c, loc.element), (1, 1, 2, 53));
        // Its band of rows 2..4 holds 2 rows of each of the 3 planes: byte 13 is w 1, then 3 = second row
        // of plane 1, row 3: element ((1 * 6) + 3) * 4 + 1 = 37.
        let lb = lin.band(2..4).unwrap();
        let loc = lb.locate(BASE + 13).unwrap();
        assert_eq!((loc.h, loc.w, loc.c, loc.element), (3, 1, 1, 37));
    }

    #[test]
    fn views_agree_with_their_layout_descriptor() {
        let views = [
            TensorView::new(1, BASE, [2, 5, 3, 4], 2).unwrap(),
            TensorView::new(1, BASE, [2, 5, 3, 4], 2)
                .unwrap()
                .band(1..4)
                .unwrap(),
            TensorView::new(1, BASE, [2, 5, 3, 4], 1).unwrap().linear(),
            TensorView::new(1, BASE, [2, 5, 3, 4], 4)
                .unwrap()
                .linear()
                .band(3..5)
                .unwrap(),
        ];
        for v in views {
            let layout = v.layout().unwrap();
            let span = v.span();
            for a in span.clone() {
                let loc = v.locate(a as u32).unwrap();
                let stored = layout.index_at(a - span.start, 0).unwrap().unwrap();
                let full = layout.to_parent(&stored).unwrap();
                let expect = match v.storage {
                    Storage::ChannelsLast => [loc.n, loc.h, loc.w, loc.c],
                    Storage::Linear => [loc.n, loc.c, loc.h, loc.w],
                };
                assert_eq!(full, expect.map(u64::from).to_vec());
                let whole = build(&dense(
                    tag::ROW_MAJOR,
                    &layout
                        .fields
                        .shard
                        .as_ref()
                        .map_or(layout.shape().to_vec(), |s| s.parent_shape.clone()),
                    8,
                ));
                assert_eq!(whole.offset(&full).unwrap(), i128::from(loc.element));
            }
        }
    }

    #[test]
    fn view_arguments_are_checked() {
        let v = TensorView::new(1, BASE, [1, 6, 4, 3], 1).unwrap();
        assert_eq!(
            v.clone().band(4..4).unwrap_err().to_string(),
            "rows: rows 4..4 are not a non-empty range within the tensor's 6 rows"
        );
        assert_eq!(
            v.clone().band(5..7).unwrap_err().to_string(),
            "rows: rows 5..7 are not a non-empty range within the tensor's 6 rows"
        );
        assert_eq!(
            v.with_tiles(vec![0..3, 3..7]).unwrap_err().to_string(),
            "tiles[1]: rows 3..7 are not a non-empty range within the tensor's 6 rows"
        );
        assert_eq!(
            TensorView::new(1, 0xFFFF_0001, [1, 256, 256, 1], 1)
                .unwrap_err()
                .to_string(),
            "dims: base + tensor bytes exceeds the 32-bit address space"
        );
        assert_eq!(
            TensorView::new(1, 0, [u32::MAX; 4], u32::MAX)
                .unwrap_err()
                .to_string(),
            "dims: base + tensor bytes exceeds the 32-bit address space"
        );
        assert!(TensorView::new(1, 0xFFFF_0000, [1, 256, 256, 1], 1).is_ok()); // ends exactly at 2^32
        assert_eq!(
            TensorView::new(1, 0, [1, 1, 1, 1], 0).unwrap_err().field,
            "elem_bytes"
        );
        assert_eq!(uniform_tiles(7, 3), vec![0..3, 3..6, 6..7]);
        assert!(uniform_tiles(7, 0).is_empty());
    }

    #[test]
    fn arena_map_finds_the_tensor_of_an_address() {
        let mut arena = ArenaMap::default();
        arena
            .insert(TensorView::new(1, BASE, [1, 4, 4, 2], 1).unwrap())
            .unwrap(); // 32 bytes
        arena
            .insert(TensorView::new(2, BASE + 64, [1, 2, 2, 2], 4).unwrap())
            .unwrap(); // 32 bytes
        arena
            .insert(TensorView::new(5, BASE + 40, [0, 4, 4, 2], 1).unwrap())
            .unwrap(); // empty
        assert_eq!(
            arena.locate(BASE + 31).map(|l| (l.tensor, l.h)),
            Some((1, 3))
        );
        assert_eq!(arena.locate(BASE + 32), None);
        assert_eq!(
            arena
                .locate(BASE + 64 + 17)
                .map(|l| (l.tensor, l.h, l.w, l.byte)),
            Some((2, 1, 0, 1))
        );
        assert_eq!(arena.locate(BASE - 1), None);
        let clash = TensorView::new(3, BASE + 24, [1, 1, 1, 16], 1).unwrap();
        assert_eq!(
            arena.insert(clash).unwrap_err().to_string(),
            format!(
                "base: bytes 0x{:08X}..0x{:08X} overlap tensor 1",
                BASE + 24,
                BASE + 40
            )
        );
        // Re-placing tensor 2 moves it; a refused move leaves it where it was.
        arena
            .insert(TensorView::new(2, BASE + 128, [1, 2, 2, 2], 4).unwrap())
            .unwrap();
        assert_eq!(arena.locate(BASE + 64), None);
        assert_eq!(arena.locate(BASE + 128).map(|l| l.tensor), Some(2));
        assert!(arena
            .insert(TensorView::new(2, BASE + 16, [1, 2, 2, 2], 4).unwrap())
            .is_err());
        assert_eq!(arena.locate(BASE + 128).map(|l| l.tensor), Some(2));
        assert_eq!(arena.remove(1).map(|v| v.tensor()), Some(1));
        assert_eq!(arena.locate(BASE), None);
        arena.clear();
        assert_eq!(arena.locate(BASE + 128), None);
    }
}
