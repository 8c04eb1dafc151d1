//! Attribution: each data access inside a view goes, byte by byte, through the layout's inverse to
//! the element stored there and the tile holding it.

use tigris_memmodels::AccessObserver;
use tigris_traces as traces;

use super::spec::ViewSpec;

/// Views up to this many bytes keep a table of the tile of every byte (4 bytes per byte); larger
/// ones look each byte up through the layout's inverse when it is accessed.
const TABLE_BYTES: u64 = 4 << 20;

/// A byte that holds no element (tile padding, a stride's gap).
const PADDING: u32 = u32::MAX;

/// Widths counted apart; any other width counts in the last slot.
const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];

#[derive(Clone, Copy)]
struct TileCounters {
    read_bytes: u64,
    write_bytes: u64,
    stall_cycles: u64,
    first: Option<u64>,
    last: u64,
}

struct Tracked {
    spec: ViewSpec,
    start: u64,
    end: u64,
    grid: Vec<u64>,
    /// Tile number of each byte, or PADDING; empty for views above `TABLE_BYTES`.
    table: Vec<u32>,
    tiles: Vec<TileCounters>,
    /// One bit per byte: accessed at all, read.
    touched: Vec<u64>,
    read_touched: Vec<u64>,
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    padding_read_bytes: u64,
    padding_write_bytes: u64,
    stall_cycles: u64,
    /// (reads, writes) per `WIDTHS` entry, then other widths.
    widths: [(u64, u64); WIDTHS.len() + 1],
    first_touch: Vec<u64>,
}

/// The declared views, fed every data access in their ranges by the memory system.
pub struct ViewTracker {
    views: Vec<Tracked>,
}

impl ViewTracker {
    pub fn new(specs: Vec<ViewSpec>) -> ViewTracker {
        ViewTracker {
            views: specs.into_iter().map(Tracked::new).collect(),
        }
    }

    /// One more view, seen from now on.
    pub fn add(&mut self, spec: ViewSpec) {
        self.views.push(Tracked::new(spec));
    }

    /// Names of the views.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.views.iter().map(|v| v.spec.name.as_str())
    }

    /// `[start, end)` of every view, for `MemorySystem::observe`.
    pub fn ranges(&self) -> Vec<(u32, u64)> {
        self.views.iter().map(|v| (v.start as u32, v.end)).collect()
    }

    pub fn profiles(&self) -> Vec<traces::TensorViewProfile> {
        self.views.iter().map(Tracked::profile).collect()
    }

    /// Bytes read and written in each view so far.
    pub fn traffic(&self) -> Vec<[u64; 2]> {
        self.views
            .iter()
            .map(|v| [v.read_bytes, v.write_bytes])
            .collect()
    }
}

impl AccessObserver for ViewTracker {
    fn access(&mut self, addr: u32, size: u32, write: bool, stall: u32, now: u64) {
        let (lo, hi) = (u64::from(addr), u64::from(addr) + u64::from(size));
        for v in &mut self.views {
            if lo < v.end && v.start < hi {
                v.access(lo.max(v.start), hi.min(v.end), size, write, stall, now);
            }
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

impl Tracked {
    fn new(spec: ViewSpec) -> Tracked {
        let by_axis = spec.grid();
        let grid: Vec<u64> = spec.order.iter().map(|&d| by_axis[d]).collect();
        let tile_count = grid.iter().product::<u64>() as usize;
        let words = spec.bytes.div_ceil(64) as usize;
        let mut t = Tracked {
            start: u64::from(spec.base),
            end: u64::from(spec.base) + spec.bytes,
            table: Vec::new(),
            tiles: vec![
                TileCounters {
                    read_bytes: 0,
                    write_bytes: 0,
                    stall_cycles: 0,
                    first: None,
                    last: 0,
                };
                tile_count
            ],
            touched: vec![0; words],
            read_touched: vec![0; words],
            reads: 0,
            writes: 0,
            read_bytes: 0,
            write_bytes: 0,
            padding_read_bytes: 0,
            padding_write_bytes: 0,
            stall_cycles: 0,
            widths: [(0, 0); WIDTHS.len() + 1],
            first_touch: Vec::new(),
            grid,
            spec,
        };
        if t.spec.bytes <= TABLE_BYTES {
            t.table = (0..t.spec.bytes).map(|b| t.lookup(b)).collect();
        }
        t
    }

    /// The tile of the element at byte `rel` of the view, through the layout's inverse.
    fn lookup(&self, rel: u64) -> u32 {
        match self.spec.layout.element_at_byte(rel) {
            Ok(Some(index)) => self.tile_number(&index),
            _ => PADDING,
        }
    }

    /// Row-major number, over the view's order, of the tile holding element `index`.
    fn tile_number(&self, index: &[u64]) -> u32 {
        let n = self
            .spec
            .order
            .iter()
            .zip(&self.grid)
            .fold(0u64, |n, (&d, &g)| n * g + index[d] / self.spec.tile[d]);
        n as u32
    }

    fn tile_of(&self, rel: u64) -> u32 {
        match self.table.get(rel as usize) {
            Some(&t) => t,
            None => self.lookup(rel),
        }
    }

    /// Bytes `[lo, hi)` of one access of `size` bytes, all inside the view.
    fn access(&mut self, lo: u64, hi: u64, size: u32, write: bool, stall: u32, now: u64) {
        let width = WIDTHS
            .iter()
            .position(|&w| w == size)
            .unwrap_or(WIDTHS.len());
        let slot = &mut self.widths[width];
        if write {
            self.writes += 1;
            slot.1 += 1;
        } else {
            self.reads += 1;
            slot.0 += 1;
        }
        self.stall_cycles += u64::from(stall);
        let mut charged = false;
        for b in lo..hi {
            let rel = b - self.start;
            let (word, bit) = ((rel / 64) as usize, 1u64 << (rel % 64));
            self.touched[word] |= bit;
            if !write {
                self.read_touched[word] |= bit;
            }
            let tile = self.tile_of(rel);
            if tile == PADDING {
                if write {
                    self.padding_write_bytes += 1;
                } else {
                    self.padding_read_bytes += 1;
                }
                continue;
            }
            let t = &mut self.tiles[tile as usize];
            if t.first.is_none() {
                t.first = Some(now);
                self.first_touch.push(u64::from(tile));
            }
            t.last = now;
            if !charged {
                t.stall_cycles += u64::from(stall);
                charged = true;
            }
            if write {
                t.write_bytes += 1;
                self.write_bytes += 1;
            } else {
                t.read_bytes += 1;
                self.read_bytes += 1;
            }
        }
    }

    /// Elements of the view inside tile `coords` (given in the view's order).
    fn tile_elements(&self, coords: &[u64]) -> u64 {
        let shape = self.spec.layout.shape();
        self.spec
            .order
            .iter()
            .zip(coords)
            .map(|(&d, &c)| {
                let t = self.spec.tile[d];
                t.min(shape[d] - c * t)
            })
            .product()
    }

    fn profile(&self) -> traces::TensorViewProfile {
        let s = &self.spec;
        let ones = |bits: &[u64]| bits.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        let distinct_read_bytes = ones(&self.read_touched);
        let tiles = self
            .tiles
            .iter()
            .enumerate()
            .map(|(n, c)| {
                let coords = coordinates(n as u64, &self.grid);
                traces::ViewTile {
                    elements: self.tile_elements(&coords),
                    tile: coords,
                    read_bytes: c.read_bytes,
                    write_bytes: c.write_bytes,
                    stall_cycles: c.stall_cycles,
                    first_cycle: c.first,
                    last_cycle: c.first.map(|_| c.last),
                }
            })
            .collect();
        let widths = self
            .widths
            .iter()
            .enumerate()
            .filter(|(_, w)| w.0 + w.1 > 0)
            .map(|(i, w)| traces::AccessWidth {
                bytes: WIDTHS.get(i).copied().unwrap_or(0),
                reads: w.0,
                writes: w.1,
            })
            .collect();
        traces::TensorViewProfile {
            name: s.name.clone(),
            address: s.base,
            bytes: s.bytes,
            region: s.region.clone(),
            dtype: s.dtype.to_string(),
            shape: s.layout.shape().to_vec(),
            axes: s.axes.clone(),
            layout: s.layout_text.clone(),
            tile: s.tile.clone(),
            order: s.order.iter().map(|&d| s.axes[d].clone()).collect(),
            grid: self.grid.clone(),
            heatmap: s
                .heatmap
                .map(|(r, c)| [s.axes[r].clone(), s.axes[c].clone()]),
            reads: self.reads,
            writes: self.writes,
            read_bytes: self.read_bytes,
            write_bytes: self.write_bytes,
            distinct_bytes: ones(&self.touched),
            distinct_read_bytes,
            reread_factor: if distinct_read_bytes == 0 {
                0.0
            } else {
                self.read_bytes as f64 / distinct_read_bytes as f64
            },
            padding_read_bytes: self.padding_read_bytes,
            padding_write_bytes: self.padding_write_bytes,
            stall_cycles: self.stall_cycles,
            widths,
            tiles,
            first_touch: self.first_touch.clone(),
        }
    }
}

/// Coordinates of tile number `n` in a row-major grid.
fn coordinates(mut n: u64, grid: &[u64]) -> Vec<u64> {
    let mut out = vec![0; grid.len()];
    for (k, &g) in grid.iter().enumerate().rev() {
        out[k] = n % g;
        n /= g;
    }
    out
}
