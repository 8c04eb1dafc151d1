//! Declared tensor views: the `--views FILE` TOML and the one-line `--view` form, validated.
//!
//! Rules (docs/views.md): the layouts and element types of the Hurray Format Specification ("Memory
//! Layout", "Tiled / Blocked Layout"), checked by [`Layout::from_fields`]; the named-axis rules of
//! NineToothed's named layouts: a view names its axes, then at most one permute, then exactly one
//! tile; names are unique and non-empty; same-name axes of different views agree in extent and tile
//! size. Every error names the view and the field.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Result};
use tigris_targets::Board;
use toml::Value;

use crate::elf::Symbol;
use crate::tigris::layout::{tag, Layout, LayoutFields, Mode, TilingFields};

/// Most tiles one view may have (each keeps its own counters).
pub const MAX_TILES: u64 = 1 << 18;

/// One view, validated and placed.
#[derive(Clone, Debug)]
pub struct ViewSpec {
    pub name: String,
    /// First byte of the view's buffer (the element [0, ...] lies `layout.byte_offset()` after it).
    pub base: u32,
    /// Bytes from `base` the layout occupies, padding included.
    pub bytes: u64,
    pub dtype: &'static str,
    pub layout: Layout,
    /// One name per dimension.
    pub axes: Vec<String>,
    /// Tile size per dimension (the whole extent where the file gives none).
    pub tile: Vec<u64>,
    /// Dimensions in the order tiles are numbered and shown (`permute`, else the axes' order).
    pub order: Vec<usize>,
    /// The two dimensions of the heatmap, when the view has two or more.
    pub heatmap: Option<(usize, usize)>,
    /// The board region the view lies in.
    pub region: String,
    /// How the layout was given, for the report (`row-major`, `tiled [8, 16] row-major/row-major`).
    pub layout_text: String,
    /// Where it was declared, for errors about the set: `FILE: view "NAME" (view[3])`.
    pub whence: String,
}

impl ViewSpec {
    /// Tiles per dimension (in the axes' order): ceil(extent / tile).
    pub fn grid(&self) -> Vec<u64> {
        self.layout
            .shape()
            .iter()
            .zip(&self.tile)
            .map(|(&n, &t)| n.div_ceil(t))
            .collect()
    }
}

/// Element types of the Hurray element-type table (names as the specification spells them) and
/// their widths in bits; `fp6` types are addressed in groups of 4 elements in 3 bytes.
const DTYPES: &[(&str, u32)] = &[
    ("bool", 1),
    ("int2", 2),
    ("uint2", 2),
    ("int4", 4),
    ("uint4", 4),
    ("float6_e2m3", 6),
    ("float6_e3m2", 6),
    ("int8", 8),
    ("uint8", 8),
    ("float8_e4m3", 8),
    ("float8_e5m2", 8),
    ("int16", 16),
    ("uint16", 16),
    ("float16", 16),
    ("bfloat16", 16),
    ("int32", 32),
    ("uint32", 32),
    ("float32", 32),
    ("int64", 64),
    ("uint64", 64),
    ("float64", 64),
];

/// Bits of an element of type `name`.
pub fn dtype_bits(name: &str) -> Option<u32> {
    DTYPES.iter().find(|d| d.0 == name).map(|d| d.1)
}

/// Where a view's declaration came from, for its error messages.
#[derive(Clone, Copy)]
pub enum Origin<'a> {
    File(&'a str),
    CommandLine,
    /// An automatic view of a TiGrIS activation (`--tigris-views`).
    Tigris,
}

/// Errors of one view: `FILE: view "NAME" (view[3]): FIELD: what`.
struct Ctx<'a> {
    origin: Origin<'a>,
    index: usize,
    name: Option<String>,
}

impl Ctx<'_> {
    fn err(&self, field: &str, what: impl std::fmt::Display) -> anyhow::Error {
        anyhow!("{}: {field}: {what}", self.whence())
    }

    /// `FILE: view "NAME" (view[3])` or `--view: view "NAME"`.
    fn whence(&self) -> String {
        let whence = match self.origin {
            Origin::File(path) => format!("{path}: "),
            Origin::CommandLine => "--view: ".to_string(),
            Origin::Tigris => "TiGrIS activation: ".to_string(),
        };
        let which = match (&self.name, self.origin) {
            (Some(n), Origin::File(_)) => format!("view \"{n}\" (view[{}])", self.index),
            (Some(n), Origin::CommandLine | Origin::Tigris) => format!("view \"{n}\""),
            (None, _) => format!("view[{}]", self.index),
        };
        format!("{whence}{which}")
    }
}

/// A view of a TiGrIS activation, declared with `tigris = TENSOR` (its name or index in the plan)
/// and made when the runtime places that tensor in the slow arena.
#[derive(Clone, Debug)]
pub struct TigrisRequest {
    pub tensor: String,
    /// The declaration's own fields (`name`, `tile`, `heatmap`, `permute`).
    table: toml::Table,
    path: String,
    index: usize,
}

impl TigrisRequest {
    /// The view's name as declared, if it has one.
    pub fn name(&self) -> Option<&str> {
        self.table.get("name").and_then(Value::as_str)
    }

    /// `FILE: view[3]`, for notes about it.
    pub fn whence(&self) -> String {
        format!(
            "{}: view[{}] (tigris = \"{}\")",
            self.path, self.index, self.tensor
        )
    }
}

/// Axes of a TiGrIS activation's view: its stored NHWC order (NLC as [n, l, 1, c]).
pub const ACTIVATION_AXES: [&str; 4] = ["n", "h", "w", "c"];

/// Fields a `tigris` view may give; the others come from the plan.
const TIGRIS_KEYS: &[&str] = &["name", "tigris", "tile", "heatmap", "permute"];

/// A `[[view]]` with `tigris = ...`: its axis fields checked now, its extents when it is placed.
fn tigris_request(t: &toml::Table, ctx: &mut Ctx, path: &str) -> Result<TigrisRequest> {
    if let Some(Value::String(n)) = t.get("name") {
        ctx.name = Some(n.clone());
        if n.trim().is_empty() {
            return Err(ctx.err("name", "must not be empty"));
        }
    }
    for key in t.keys() {
        if !TIGRIS_KEYS.contains(&key.as_str()) {
            return Err(ctx.err(
                key,
                format!(
                    "not allowed with `tigris` (the plan gives the tensor's place, type and shape; allowed: {})",
                    TIGRIS_KEYS.join(", ")
                ),
            ));
        }
    }
    let tensor = match t.get("tigris") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::Integer(i)) if *i >= 0 => i.to_string(),
        _ => {
            return Err(ctx.err(
                "tigris",
                "must name a tensor of the plan (its name, or its index)",
            ))
        }
    };
    let axes: Vec<String> = ACTIVATION_AXES.map(String::from).to_vec();
    let order = permute(t.get("permute"), &axes, ctx)?;
    tile(t.get("tile"), &axes, &[1; 4], ctx)?;
    heatmap(t.get("heatmap"), &axes, &order, ctx)?;
    Ok(TigrisRequest {
        tensor,
        table: t.clone(),
        path: path.to_string(),
        index: ctx.index,
    })
}

/// The view of a TiGrIS activation the runtime placed at `base`: `dims` ([n, h, w, c]) of
/// `dtype`, named `name`, in tiles of `band` rows, unless `request` says otherwise.
pub fn activation_view(
    request: Option<&TigrisRequest>,
    name: &str,
    base: u32,
    dims: [u32; 4],
    dtype: &str,
    band: Option<u32>,
    board: &Board,
) -> Result<ViewSpec> {
    let mut t = request.map(|r| r.table.clone()).unwrap_or_default();
    t.remove("tigris");
    t.entry("name")
        .or_insert_with(|| Value::String(name.into()));
    t.insert("at".into(), Value::Integer(i64::from(base)));
    t.insert("dtype".into(), Value::String(dtype.into()));
    let list = |items: Vec<Value>| Value::Array(items);
    t.insert(
        "shape".into(),
        list(dims.iter().map(|&d| Value::Integer(i64::from(d))).collect()),
    );
    t.insert(
        "axes".into(),
        list(
            ACTIVATION_AXES
                .iter()
                .map(|&a| Value::String(a.into()))
                .collect(),
        ),
    );
    if let (false, Some(rows)) = (t.contains_key("tile"), band) {
        let mut tile = toml::Table::new();
        tile.insert("h".into(), Value::Integer(i64::from(rows)));
        t.insert("tile".into(), Value::Table(tile));
    }
    t.entry("heatmap")
        .or_insert_with(|| list(vec![Value::String("h".into()), Value::String("w".into())]));
    let mut ctx = match request {
        Some(r) => Ctx {
            origin: Origin::File(&r.path),
            index: r.index,
            name: None,
        },
        None => Ctx {
            origin: Origin::Tigris,
            index: 0,
            name: None,
        },
    };
    view_from_table(&t, &mut ctx, &[], board)
}

/// The views of a `--views` file: placed ones, and TiGrIS activations' to place when they are.
pub fn parse_file(
    path: &str,
    text: &str,
    symbols: &[Symbol],
    board: &Board,
) -> Result<(Vec<ViewSpec>, Vec<TigrisRequest>)> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| anyhow!("{path}: not valid TOML: {}", e.message()))?;
    for key in doc.keys() {
        if key != "view" {
            bail!("{path}: unknown key `{key}` (a views file holds [[view]] tables only)");
        }
    }
    let Some(list) = doc.get("view") else {
        bail!("{path}: no [[view]] table");
    };
    let Value::Array(list) = list else {
        bail!("{path}: `view` must be an array of tables ([[view]])");
    };
    let (mut views, mut tigris) = (Vec::new(), Vec::new());
    for (index, v) in list.iter().enumerate() {
        let mut ctx = Ctx {
            origin: Origin::File(path),
            index,
            name: None,
        };
        let Value::Table(t) = v else {
            return Err(ctx.err("view", "must be a table"));
        };
        if t.contains_key("tigris") {
            tigris.push(tigris_request(t, &mut ctx, path)?);
        } else {
            views.push(view_from_table(t, &mut ctx, symbols, board)?);
        }
    }
    Ok((views, tigris))
}

/// A `--view` argument: `NAME@AT:DTYPE:SHAPE[:AXES[:TILE]]`, e.g.
/// `a@matrix_a:int8:32x64:m,k:m=8,k=16` (row-major; a file gives the other layouts).
pub fn parse_short(arg: &str, index: usize, symbols: &[Symbol], board: &Board) -> Result<ViewSpec> {
    let mut ctx = Ctx {
        origin: Origin::CommandLine,
        index,
        name: None,
    };
    let usage = "expected NAME@AT:DTYPE:SHAPE[:AXES[:TILE]], e.g. a@matrix_a:int8:32x64:m,k:m=8";
    let (name, rest) = arg.split_once('@').ok_or_else(|| ctx.err("view", usage))?;
    ctx.name = Some(name.to_string());
    let parts: Vec<&str> = rest.split(':').collect();
    if !(3..=5).contains(&parts.len()) {
        return Err(ctx.err("view", usage));
    }
    let mut t = toml::Table::new();
    t.insert("name".into(), Value::String(name.into()));
    t.insert("at".into(), Value::String(parts[0].into()));
    t.insert("dtype".into(), Value::String(parts[1].into()));
    let shape = parts[2]
        .split('x')
        .map(|d| {
            d.trim().parse::<i64>().map(Value::Integer).map_err(|_| {
                ctx.err(
                    "shape",
                    format!("`{d}` is not a size (sizes joined by x: 32x64)"),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    t.insert("shape".into(), Value::Array(shape));
    if let Some(axes) = parts.get(3).filter(|a| !a.is_empty()) {
        let names = axes.split(',').map(|a| Value::String(a.into())).collect();
        t.insert("axes".into(), Value::Array(names));
    }
    if let Some(tile) = parts.get(4).filter(|a| !a.is_empty()) {
        let mut sizes = toml::Table::new();
        for item in tile.split(',') {
            let (axis, size) = item
                .split_once('=')
                .ok_or_else(|| ctx.err("tile", format!("`{item}`: expected AXIS=SIZE")))?;
            let size = size
                .parse::<i64>()
                .map_err(|_| ctx.err("tile", format!("`{item}`: {size} is not a size")))?;
            sizes.insert(axis.into(), Value::Integer(size));
        }
        t.insert("tile".into(), Value::Table(sizes));
    }
    view_from_table(&t, &mut ctx, symbols, board)
}

const VIEW_KEYS: &[&str] = &[
    "name",
    "at",
    "byte_offset",
    "dtype",
    "shape",
    "axes",
    "layout",
    "permute",
    "tile",
    "heatmap",
];

fn view_from_table(
    t: &toml::Table,
    ctx: &mut Ctx,
    symbols: &[Symbol],
    board: &Board,
) -> Result<ViewSpec> {
    if let Some(Value::String(n)) = t.get("name") {
        ctx.name = Some(n.clone());
    }
    for key in t.keys() {
        if !VIEW_KEYS.contains(&key.as_str()) {
            return Err(ctx.err(
                key,
                format!("unknown field (known: {})", VIEW_KEYS.join(", ")),
            ));
        }
    }
    let name = string(t, "name", ctx)?;
    if name.trim().is_empty() {
        return Err(ctx.err("name", "must not be empty"));
    }
    let dtype_name = string(t, "dtype", ctx)?;
    let &(dtype, elem_bits) = DTYPES
        .iter()
        .find(|(n, _)| *n == dtype_name)
        .ok_or_else(|| {
            let known: Vec<&str> = DTYPES.iter().map(|d| d.0).collect();
            ctx.err(
                "dtype",
                format!(
                    "unknown element type `{dtype_name}` (known: {})",
                    known.join(", ")
                ),
            )
        })?;
    let shape = sizes(t.get("shape"), "shape", ctx, true)?.ok_or_else(|| {
        ctx.err(
            "shape",
            "missing (the size of each dimension, [] for a scalar)",
        )
    })?;
    let rank = shape.len();
    let axes = axes(t, rank, ctx)?;
    let byte_offset = match t.get("byte_offset") {
        None => 0,
        Some(v) => integer(v, "byte_offset", ctx)?,
    };
    let (layout_fields, layout_text) = layout(t.get("layout"), ctx)?;
    let fields = LayoutFields {
        shape: shape.clone(),
        byte_offset,
        elem_bits,
        ..layout_fields
    };
    let layout = Layout::from_fields(&fields, Mode::Strict).map_err(|e| {
        let field = if e.field.starts_with("tiling") {
            e.field.replacen("tiling", "layout.tiled", 1)
        } else if e.field == "strides" {
            "layout.strided".to_string()
        } else {
            e.field.clone()
        };
        ctx.err(&field, e.kind)
    })?;
    let order = permute(t.get("permute"), &axes, ctx)?;
    let tile = tile(t.get("tile"), &axes, &shape, ctx)?;
    let heatmap = heatmap(t.get("heatmap"), &axes, &order, ctx)?;
    let tiles = shape
        .iter()
        .zip(&tile)
        .try_fold(1u64, |n, (&e, &t)| n.checked_mul(e.div_ceil(t)))
        .filter(|&n| n <= MAX_TILES);
    if tiles.is_none() {
        return Err(ctx.err(
            "tile",
            format!("more than {MAX_TILES} tiles: choose larger tiles"),
        ));
    }
    let (base, symbol_size) = at(t.get("at"), symbols, ctx)?;
    let bytes = extent(&layout).map_err(|e| ctx.err("shape", e))?;
    if bytes == 0 {
        return Err(ctx.err("shape", "the view holds no element (a dimension is 0)"));
    }
    if let Some(size) = symbol_size.filter(|&s| s > 0 && bytes > u64::from(s)) {
        return Err(ctx.err(
            "shape",
            format!("the layout needs {bytes} bytes but the symbol is {size} bytes"),
        ));
    }
    let region = region_of(board, base, bytes).map_err(|e| ctx.err("at", e))?;
    Ok(ViewSpec {
        name,
        base,
        bytes,
        dtype,
        layout,
        axes,
        tile,
        order,
        heatmap,
        region,
        layout_text,
        whence: ctx.whence(),
    })
}

fn string(t: &toml::Table, key: &str, ctx: &Ctx) -> Result<String> {
    match t.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ctx.err(key, "must be a string")),
        None => Err(ctx.err(key, "missing")),
    }
}

fn integer(v: &Value, field: &str, ctx: &Ctx) -> Result<u64> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        Value::Integer(i) => Err(ctx.err(field, format!("{i} is negative"))),
        _ => Err(ctx.err(field, "must be an integer")),
    }
}

/// A list of sizes; `zero_ok` for shapes (an empty dimension), not for tiles.
fn sizes(v: Option<&Value>, field: &str, ctx: &Ctx, zero_ok: bool) -> Result<Option<Vec<u64>>> {
    let Some(v) = v else { return Ok(None) };
    let Value::Array(items) = v else {
        return Err(ctx.err(field, "must be a list of sizes"));
    };
    items
        .iter()
        .enumerate()
        .map(|(k, x)| {
            let f = format!("{field}[{k}]");
            let n = integer(x, &f, ctx)?;
            if n == 0 && !zero_ok {
                return Err(ctx.err(&f, "a tile size must be > 0"));
            }
            Ok(n)
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

fn strides(v: &Value, field: &str, ctx: &Ctx) -> Result<Vec<i64>> {
    let Value::Array(items) = v else {
        return Err(ctx.err(field, "must be a list of strides (in elements)"));
    };
    items
        .iter()
        .enumerate()
        .map(|(k, x)| match x {
            Value::Integer(i) => Ok(*i),
            _ => Err(ctx.err(&format!("{field}[{k}]"), "must be an integer")),
        })
        .collect()
}

/// Every dimension of a positive-rank view is named, once.
fn axes(t: &toml::Table, rank: usize, ctx: &Ctx) -> Result<Vec<String>> {
    let names: Vec<String> = match t.get("axes") {
        None if rank == 0 => return Ok(Vec::new()),
        None => {
            return Err(ctx.err(
                "axes",
                format!("missing: a view of rank {rank} names each of its axes"),
            ))
        }
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(k, x)| match x {
                Value::String(s) => Ok(s.clone()),
                _ => Err(ctx.err(&format!("axes[{k}]"), "must be a string")),
            })
            .collect::<Result<_>>()?,
        Some(_) => return Err(ctx.err("axes", "must be a list of names")),
    };
    if names.len() != rank {
        return Err(ctx.err(
            "axes",
            format!("{} names for a shape of rank {rank}", names.len()),
        ));
    }
    for (k, n) in names.iter().enumerate() {
        if n.trim().is_empty() {
            return Err(ctx.err(&format!("axes[{k}]"), "an axis name must not be empty"));
        }
        if names[..k].contains(n) {
            return Err(ctx.err(&format!("axes[{k}]"), format!("axis `{n}` is named twice")));
        }
    }
    Ok(names)
}

/// The view's layout fields (shape, offset and width are filled in by the caller) and its text.
fn layout(v: Option<&Value>, ctx: &Ctx) -> Result<(LayoutFields, String)> {
    let order_only = |tag| LayoutFields {
        tag,
        ..LayoutFields::default()
    };
    match v {
        None => Ok((order_only(tag::ROW_MAJOR), "row-major".into())),
        Some(Value::String(s)) => match named_order(s) {
            Some(t) => Ok((order_only(t), s.clone())),
            None => Err(ctx.err(
                "layout",
                format!("`{s}`: expected \"row-major\", \"col-major\", {{ strided = [...] }} or {{ tiled = {{ ... }} }}"),
            )),
        },
        Some(Value::Table(t)) => {
            let (key, inner) = single_key(t, "layout", &["strided", "tiled"], ctx)?;
            if key == "strided" {
                let s = strides(inner, "layout.strided", ctx)?;
                let text = format!("strided {s:?}");
                Ok((
                    LayoutFields {
                        tag: tag::STRIDED,
                        strides: Some(s),
                        ..LayoutFields::default()
                    },
                    text,
                ))
            } else {
                let (tiling, text) = tiling(inner, "layout.tiled", ctx)?;
                Ok((
                    LayoutFields {
                        tag: tag::TILED,
                        tiling: Some(tiling),
                        ..LayoutFields::default()
                    },
                    text,
                ))
            }
        }
        Some(_) => Err(ctx.err("layout", "must be a string or a table")),
    }
}

fn named_order(s: &str) -> Option<u8> {
    match s {
        "row-major" => Some(tag::ROW_MAJOR),
        "col-major" => Some(tag::COL_MAJOR),
        _ => None,
    }
}

/// The one key of a `{ key = value }` table, among `allowed`.
fn single_key<'a>(
    t: &'a toml::Table,
    field: &str,
    allowed: &[&str],
    ctx: &Ctx,
) -> Result<(&'a str, &'a Value)> {
    let mut it = t.iter();
    match (it.next(), it.next()) {
        (Some((k, v)), None) if allowed.contains(&k.as_str()) => Ok((k, v)),
        _ => Err(ctx.err(
            field,
            format!("expected exactly one of {}", allowed.join(", ")),
        )),
    }
}

/// `{ tile = [...], outer = ORDER, inner = ORDER | { tiled = {...} } }` at `path`.
fn tiling(v: &Value, path: &str, ctx: &Ctx) -> Result<(TilingFields, String)> {
    let Value::Table(t) = v else {
        return Err(ctx.err(
            path,
            "must be a table { tile = [...], outer = ..., inner = ... }",
        ));
    };
    for key in t.keys() {
        if !["tile", "outer", "inner"].contains(&key.as_str()) {
            return Err(ctx.err(
                &format!("{path}.{key}"),
                "unknown field (known: tile, outer, inner)",
            ));
        }
    }
    let tile = sizes(t.get("tile"), &format!("{path}.tile"), ctx, false)?.ok_or_else(|| {
        ctx.err(
            &format!("{path}.tile"),
            "missing (the tile size per dimension)",
        )
    })?;
    let mut fields = TilingFields {
        tile_shape: tile.clone(),
        outer_layout: tag::ROW_MAJOR,
        inner_layout: tag::ROW_MAJOR,
        ..TilingFields::default()
    };
    let order = |key: &str, ctx: &Ctx| -> Result<(u8, Option<Vec<i64>>, String)> {
        let field = format!("{path}.{key}");
        match t.get(key) {
            None => Ok((tag::ROW_MAJOR, None, "row-major".into())),
            Some(Value::String(s)) => {
                named_order(s).map(|o| (o, None, s.clone())).ok_or_else(|| {
                    ctx.err(
                        &field,
                        format!(
                            "`{s}`: expected \"row-major\", \"col-major\" or {{ strided = [...] }}"
                        ),
                    )
                })
            }
            Some(Value::Table(st)) if st.contains_key("strided") => {
                let (_, s) = single_key(st, &field, &["strided"], ctx)?;
                let s = strides(s, &format!("{field}.strided"), ctx)?;
                let text = format!("strided {s:?}");
                Ok((tag::STRIDED, Some(s), text))
            }
            Some(_) => Err(ctx.err(
                &field,
                "expected \"row-major\", \"col-major\" or { strided = [...] }",
            )),
        }
    };
    let (outer, outer_strides, outer_text) = order("outer", ctx)?;
    fields.outer_layout = outer;
    fields.outer_strides = outer_strides;
    let inner_text = match t.get("inner") {
        Some(Value::Table(it)) if it.contains_key("tiled") => {
            let field = format!("{path}.inner");
            let (_, sub) = single_key(it, &field, &["tiled"], ctx)?;
            let (sub, text) = tiling(sub, &format!("{field}.tiled"), ctx)?;
            fields.inner_layout = tag::TILED;
            fields.inner = Some(Box::new(sub));
            format!("({text})")
        }
        _ => {
            let (inner, inner_strides, text) = order("inner", ctx)?;
            fields.inner_layout = inner;
            fields.inner_strides = inner_strides;
            text
        }
    };
    Ok((fields, format!("tiled {tile:?} {outer_text}/{inner_text}")))
}

/// `permute = [names]`: the order tiles are numbered and shown in (at most one permute per view).
fn permute(v: Option<&Value>, axes: &[String], ctx: &Ctx) -> Result<Vec<usize>> {
    let Some(v) = v else {
        return Ok((0..axes.len()).collect());
    };
    let Value::Array(items) = v else {
        return Err(ctx.err("permute", "must be a list of the view's axis names"));
    };
    let mut order = Vec::new();
    for (k, x) in items.iter().enumerate() {
        let field = format!("permute[{k}]");
        let Value::String(name) = x else {
            return Err(ctx.err(&field, "must be an axis name"));
        };
        let axis = axis_index(axes, name, &field, ctx)?;
        if order.contains(&axis) {
            return Err(ctx.err(&field, format!("axis `{name}` is listed twice")));
        }
        order.push(axis);
    }
    if order.len() != axes.len() {
        return Err(ctx.err(
            "permute",
            format!("must list each of the {} axes once", axes.len()),
        ));
    }
    Ok(order)
}

fn axis_index(axes: &[String], name: &str, field: &str, ctx: &Ctx) -> Result<usize> {
    axes.iter().position(|a| a == name).ok_or_else(|| {
        ctx.err(
            field,
            format!(
                "`{name}` is not an axis of the view (axes: {})",
                axes.join(", ")
            ),
        )
    })
}

/// `tile = { axis = size }`: the blocks traffic is aggregated by; an absent axis is one block.
fn tile(v: Option<&Value>, axes: &[String], shape: &[u64], ctx: &Ctx) -> Result<Vec<u64>> {
    let mut tile: Vec<u64> = shape.iter().map(|&n| n.max(1)).collect();
    let Some(v) = v else { return Ok(tile) };
    let Value::Table(t) = v else {
        return Err(ctx.err("tile", "must be a table { axis = size, ... }"));
    };
    if axes.is_empty() && !t.is_empty() {
        return Err(ctx.err("tile", "a rank-0 view cannot be tiled"));
    }
    for (name, size) in t {
        let field = format!("tile.{name}");
        let axis = axis_index(axes, name, &field, ctx)?;
        let n = integer(size, &field, ctx)?;
        if n == 0 {
            return Err(ctx.err(&field, "a tile size must be > 0"));
        }
        tile[axis] = n;
    }
    Ok(tile)
}

/// `heatmap = [axis, axis]`, else the first two axes in the view's order.
fn heatmap(
    v: Option<&Value>,
    axes: &[String],
    order: &[usize],
    ctx: &Ctx,
) -> Result<Option<(usize, usize)>> {
    let Some(v) = v else {
        return Ok((order.len() >= 2).then(|| (order[0], order[1])));
    };
    let names = match v {
        Value::Array(items) if items.len() == 2 => items,
        _ => {
            return Err(ctx.err(
                "heatmap",
                "must name two axes: [\"row axis\", \"column axis\"]",
            ))
        }
    };
    let mut pick = [0; 2];
    for (k, x) in names.iter().enumerate() {
        let field = format!("heatmap[{k}]");
        let Value::String(name) = x else {
            return Err(ctx.err(&field, "must be an axis name"));
        };
        pick[k] = axis_index(axes, name, &field, ctx)?;
    }
    if pick[0] == pick[1] {
        return Err(ctx.err("heatmap", "needs two different axes"));
    }
    Ok(Some((pick[0], pick[1])))
}

/// `at`: an address (integer or "0x..." text) or a symbol, optionally `symbol+offset`; the
/// symbol's size when it has one.
fn at(v: Option<&Value>, symbols: &[Symbol], ctx: &Ctx) -> Result<(u32, Option<u32>)> {
    let text = match v {
        None => return Err(ctx.err("at", "missing (a symbol or an address)")),
        Some(Value::Integer(i)) => {
            return u32::try_from(*i)
                .map(|a| (a, None))
                .map_err(|_| ctx.err("at", format!("{i} is not a 32-bit address")))
        }
        Some(Value::String(s)) => s.trim(),
        Some(_) => return Err(ctx.err("at", "must be a symbol name or an address")),
    };
    if let Some(addr) = parse_number(text) {
        return u32::try_from(addr)
            .map(|a| (a, None))
            .map_err(|_| ctx.err("at", format!("{text} is not a 32-bit address")));
    }
    let (name, offset) = match text.rsplit_once('+') {
        Some((n, o)) if parse_number(o.trim()).is_some() => (n.trim(), parse_number(o.trim())),
        _ => (text, None),
    };
    let symbol = symbols
        .iter()
        .filter(|s| !s.is_function)
        .find(|s| s.is_named(name))
        .or_else(|| symbols.iter().find(|s| s.is_named(name)))
        .ok_or_else(|| ctx.err("at", format!("no symbol `{name}` in the ELF")))?;
    match offset {
        None => Ok((symbol.addr, Some(symbol.size))),
        Some(o) => {
            let addr = u64::from(symbol.addr) + o;
            let addr = u32::try_from(addr)
                .map_err(|_| ctx.err("at", format!("{text} is past the 32-bit address space")))?;
            Ok((addr, Some(symbol.size.saturating_sub(o as u32))))
        }
    }
}

fn parse_number(s: &str) -> Option<u64> {
    let s = s.replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Bytes the layout occupies from the buffer start (its last element's end).
fn extent(layout: &Layout) -> Result<u64, String> {
    layout.extent_bytes().map_err(|e| e.to_string())
}

/// The name of the one region holding `[base, base + bytes)` (its base range or an alias).
fn region_of(board: &Board, base: u32, bytes: u64) -> Result<String, String> {
    let end = u64::from(base) + bytes;
    let inside = |start: u32, size: u32| {
        u64::from(base) >= u64::from(start) && end <= u64::from(start) + u64::from(size)
    };
    for r in &board.regions {
        if inside(r.base, r.size) || r.aliases.iter().any(|&a| inside(a, r.size)) {
            return Ok(r.name.clone());
        }
    }
    match board.regions.iter().find(|r| r.contains(base)) {
        Some(r) => Err(format!(
            "0x{base:08x}..0x{end:08x} runs past the end of region {} (0x{:08x})",
            r.name,
            r.end()
        )),
        None => Err(format!(
            "0x{base:08x} is in no memory region of board {}",
            board.name
        )),
    }
}

/// Refuse views whose same-name axes disagree in extent or tile size; list overlapping views.
pub fn check_set(views: &[ViewSpec]) -> Result<Vec<String>> {
    let mut names = BTreeMap::new();
    for v in views {
        if let Some(first) = names.insert(v.name.as_str(), v) {
            bail!(
                "{}: name: \"{}\" is also the name of {}: view names must be unique",
                v.whence,
                v.name,
                first.whence
            );
        }
    }
    let mut axes: BTreeMap<&str, (&ViewSpec, u64, u64)> = BTreeMap::new();
    for v in views {
        for (k, a) in v.axes.iter().enumerate() {
            let (extent, tile) = (v.layout.shape()[k], v.tile[k]);
            match axes.get(a.as_str()) {
                None => {
                    axes.insert(a, (v, extent, tile));
                }
                Some(&(other, e, t)) if e != extent || t != tile => bail!(
                    "{}: axes[{k}]: axis `{a}` has extent {extent} and tile {tile}, but in {} extent {e} and tile {t}: same-name axes must agree (rename one if they are different axes)",
                    v.whence,
                    other.whence
                ),
                Some(_) => {}
            }
        }
    }
    let mut overlaps = Vec::new();
    for (i, a) in views.iter().enumerate() {
        for b in &views[i + 1..] {
            let (a0, a1) = (u64::from(a.base), u64::from(a.base) + a.bytes);
            let (b0, b1) = (u64::from(b.base), u64::from(b.base) + b.bytes);
            if a0 < b1 && b0 < a1 {
                overlaps.push(format!(
                    "views \"{}\" and \"{}\" overlap at 0x{:08x}..0x{:08x}: accesses there count in both",
                    a.name,
                    b.name,
                    a0.max(b0),
                    a1.min(b1)
                ));
            }
        }
    }
    Ok(overlaps)
}
