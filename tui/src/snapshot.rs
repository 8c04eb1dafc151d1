//! A report as of one cycle: what the screen shows. Live, that cycle is the end of the report so far;
//! in replay it is the cursor, and whatever the run recorded after it stays hidden. Figures of stages
//! and tiles are shown as recorded.

use tigris_traces::{Report, Sample, TigrisEvent, TigrisFigures, TigrisStage, TigrisTile};

/// Something the user can select on the timeline: a tile, or a stage that has no tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    /// Indices into `tigris.stages` and that stage's `tiles`.
    pub stage: usize,
    pub tile: Option<usize>,
}

/// Where the fast-arena budget comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetSource {
    Plan,
    ArenaSize,
}

/// Fast-arena occupancy the runtime reported, as of the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastArena {
    pub used: u32,
    pub peak: u32,
    pub budget: Option<(u32, BudgetSource)>,
}

/// Cumulative slow-memory traffic over time: `(cycle, bytes read, bytes written)` since reset.
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    /// What the bytes are: the slow arena's region, or the non-SRAM regions of the board.
    pub title: String,
    pub points: Vec<(u64, u64, u64)>,
}

impl Traffic {
    /// Bytes read and written at `cycle` (the last point at or before it).
    pub fn at(&self, cycle: u64) -> (u64, u64) {
        let seen = self.points.partition_point(|p| p.0 <= cycle);
        seen.checked_sub(1)
            .map_or((0, 0), |last| (self.points[last].1, self.points[last].2))
    }

    /// Bytes read and written in each of `columns` equal intervals of `[start, start + span)`.
    pub fn per_column(&self, start: u64, span: u64, columns: u16) -> (Vec<u64>, Vec<u64>) {
        let boundary =
            |column: u16| start + (span as u128 * column as u128 / columns.max(1) as u128) as u64;
        (0..columns)
            .map(|column| {
                let (read_before, written_before) = self.at(boundary(column).saturating_sub(1));
                let (read_after, written_after) = self.at(boundary(column + 1).saturating_sub(1));
                (
                    read_after.saturating_sub(read_before),
                    written_after.saturating_sub(written_before),
                )
            })
            .unzip()
    }
}

#[derive(Clone, Copy)]
pub struct Snapshot<'a> {
    pub report: &'a Report,
    /// The cycle the run is shown at.
    pub cursor: u64,
}

impl<'a> Snapshot<'a> {
    /// The whole report, as live views show it.
    pub fn at_end(report: &'a Report) -> Self {
        Snapshot {
            report,
            cursor: report.totals.cycles,
        }
    }

    /// Cycles `[start, end)` the time axis covers (never empty, so scales can divide by its length):
    /// to the run's end, from the first stage's start when there are stages (the stage chart has
    /// nothing to show before it), else from reset.
    pub fn extent(&self) -> (u64, u64) {
        let start = self.stages().first().map_or(0, |s| s.start_cycle);
        (start, self.report.totals.cycles.max(start + 1))
    }

    /// The core clock, when it was one for the whole run; 0 (show cycles) when the firmware
    /// switched it, where cycles do not map onto time linearly.
    pub fn clock_hz(&self) -> u64 {
        let board = &self.report.board;
        if board.clock_changes.is_empty() {
            board.clock_hz
        } else {
            0
        }
    }

    /// Simulated time at cycle `cycles`, at the clocks the core ran at.
    pub fn time_at(&self, cycles: u64) -> String {
        crate::format::seconds(self.report.board.seconds(cycles))
    }

    /// Simulated time from cycle `start` to `end`.
    pub fn duration(&self, start: u64, end: u64) -> String {
        let board = &self.report.board;
        crate::format::seconds(board.seconds(end) - board.seconds(start))
    }

    /// Stages begun by the cursor.
    pub fn stages(&self) -> &'a [TigrisStage] {
        let stages = self
            .report
            .tigris
            .as_ref()
            .map_or(&[][..], |t| &t.stages[..]);
        &stages[..stages.partition_point(|s| s.start_cycle <= self.cursor)]
    }

    /// Tiles of `stage` begun by the cursor.
    pub fn tiles(&self, stage: &'a TigrisStage) -> &'a [TigrisTile] {
        &stage.tiles[..stage
            .tiles
            .partition_point(|t| t.start_cycle <= self.cursor)]
    }

    /// TiGrIS trace events up to the cursor.
    pub fn events(&self) -> &'a [TigrisEvent] {
        let events = self
            .report
            .tigris
            .as_ref()
            .map_or(&[][..], |t| &t.timeline[..]);
        &events[..events.partition_point(|e| e.cycle <= self.cursor)]
    }

    /// Timeline samples up to the cursor.
    pub fn samples(&self) -> &'a [Sample] {
        let samples = self
            .report
            .timeline
            .as_ref()
            .map_or(&[][..], |t| &t.samples[..]);
        &samples[..samples.partition_point(|s| s.cycle <= self.cursor)]
    }

    /// `[start, end)` of stage `index` as far as the cursor; a last stage without cycles yet is in
    /// progress and runs to the cursor.
    pub fn stage_span(&self, index: usize) -> Option<(u64, u64)> {
        let stages = self.stages();
        let stage = stages.get(index)?;
        let in_progress = stage.figures.cycles == 0 && index + 1 == stages.len();
        Some(self.clip(stage.start_cycle, stage.figures.cycles, in_progress))
    }

    /// `[start, end)` of a tile as far as the cursor; the same rule as for stages within its stage.
    pub fn tile_span(&self, stage: usize, tile: usize) -> Option<(u64, u64)> {
        let stage_entry = self.stages().get(stage)?;
        let tiles = self.tiles(stage_entry);
        let entry = tiles.get(tile)?;
        let in_progress = entry.figures.cycles == 0 && tile + 1 == tiles.len();
        let (start, end) = self.clip(entry.start_cycle, entry.figures.cycles, in_progress);
        let stage_end = self.stage_span(stage)?.1;
        Some((
            start,
            if in_progress {
                stage_end.max(start)
            } else {
                end
            },
        ))
    }

    fn clip(&self, start: u64, cycles: u64, in_progress: bool) -> (u64, u64) {
        let end = if in_progress {
            self.cursor
        } else {
            start.saturating_add(cycles)
        };
        (start, end.min(self.cursor).max(start))
    }

    pub fn span(&self, item: Item) -> Option<(u64, u64)> {
        match item.tile {
            Some(tile) => self.tile_span(item.stage, tile),
            None => self.stage_span(item.stage),
        }
    }

    /// Every selectable item in execution order.
    pub fn items(&self) -> Vec<Item> {
        self.stages()
            .iter()
            .enumerate()
            .flat_map(|(stage, entry)| {
                let tiles = self.tiles(entry).len();
                let tile_items = (0..tiles).map(move |tile| Item {
                    stage,
                    tile: Some(tile),
                });
                let stage_item = (tiles == 0).then_some(Item { stage, tile: None });
                stage_item.into_iter().chain(tile_items)
            })
            .collect()
    }

    /// Whether `item` was still running when the report was made (a live run's latest tile or
    /// stage, or the one a limit cut): its figures are those so far, and those the runtime gives
    /// only as the item goes on (halo bytes and cycles) may still be missing.
    pub fn unfinished(&self, item: Item) -> bool {
        let Some(tigris) = &self.report.tigris else {
            return false;
        };
        let Some(stage) = tigris.stages.get(item.stage) else {
            return false;
        };
        let (last, start) = match item.tile {
            Some(tile) => (
                tile + 1 == stage.tiles.len(),
                stage.tiles.get(tile).map(|t| t.start_cycle),
            ),
            None => (stage.tiles.is_empty(), Some(stage.start_cycle)),
        };
        let Some(start) = start else { return false };
        // The last item of the report ends with its stage's STAGE_END.
        let ended = (tigris.timeline.iter().rev())
            .take_while(|e| e.cycle >= start)
            .any(|e| e.kind == "stage_end");
        item.stage + 1 == tigris.stages.len() && last && !ended
    }

    /// The item's stage, its tile if any, and its figures, when the cursor has reached it.
    pub fn resolve(
        &self,
        item: Item,
    ) -> Option<(&'a TigrisStage, Option<&'a TigrisTile>, &'a TigrisFigures)> {
        let stage = self.stages().get(item.stage)?;
        match item.tile {
            None => Some((stage, None, &stage.figures)),
            Some(tile) => {
                let tile = self.tiles(stage).get(tile)?;
                Some((stage, Some(tile), &tile.figures))
            }
        }
    }

    /// The fast arena's budget: the plan's, else the arena's size.
    pub fn budget(&self) -> Option<(u32, BudgetSource)> {
        let tigris = self.report.tigris.as_ref()?;
        let plan = tigris
            .plan
            .as_ref()
            .and_then(|p| p.budget)
            .map(|b| (b, BudgetSource::Plan));
        plan.or_else(|| {
            tigris
                .arenas
                .as_ref()
                .map(|a| (a.fast_size, BudgetSource::ArenaSize))
        })
    }

    /// The fast arena as of the cursor, when the firmware runs TiGrIS.
    pub fn fast_arena(&self) -> Option<FastArena> {
        self.report.tigris.as_ref()?;
        let events = self.events();
        Some(FastArena {
            used: events.last().map_or(0, |e| e.fast_used),
            peak: events.iter().map(|e| e.fast_used).max().unwrap_or(0),
            budget: self.budget(),
        })
    }

    /// Slow-memory traffic up to the cursor: the slow arena on the bus when TiGrIS set up its arenas,
    /// else the sampled traffic of the board's regions that are neither SRAM nor MMIO.
    pub fn slow_traffic(&self) -> Option<Traffic> {
        if let Some(arenas) = self.report.tigris.as_ref().and_then(|t| t.arenas.as_ref()) {
            let region = arenas.slow_region.as_deref().unwrap_or("slow arena");
            return Some(Traffic {
                title: format!("slow arena, {region}"),
                points: self
                    .events()
                    .iter()
                    .map(|e| (e.cycle, e.slow_read_bytes, e.slow_write_bytes))
                    .collect(),
            });
        }
        let slow: Vec<usize> = (self.report.regions.iter().enumerate())
            .filter(|(_, r)| r.kind != "sram" && r.kind != "mmio")
            .map(|(i, _)| i)
            .collect();
        if slow.is_empty() {
            return None;
        }
        let sum = |values: &[u64]| slow.iter().filter_map(|&i| values.get(i)).sum::<u64>();
        let names: Vec<&str> = slow
            .iter()
            .map(|&i| self.report.regions[i].name.as_str())
            .collect();
        Some(Traffic {
            title: names.join(", "),
            points: self
                .samples()
                .iter()
                .map(|s| (s.cycle, sum(&s.read_bytes), sum(&s.write_bytes)))
                .collect(),
        })
    }

    /// Call stack of the latest sample, outermost first.
    pub fn sampled_stack(&self) -> Option<&'a str> {
        self.samples().last().map(|s| s.stack.as_str())
    }

    /// Cycle of the next (previous) start of a tile or, with `stages_only`, of a stage, after
    /// (before) the cursor.
    pub fn next_start(&self, forward: bool, stages_only: bool) -> Option<u64> {
        let stages = self
            .report
            .tigris
            .as_ref()
            .map_or(&[][..], |t| &t.stages[..]);
        let starts = stages.iter().flat_map(|stage| {
            let tiles = if stages_only {
                &[][..]
            } else {
                &stage.tiles[..]
            };
            std::iter::once(stage.start_cycle).chain(tiles.iter().map(|t| t.start_cycle))
        });
        if forward {
            starts.filter(|&c| c > self.cursor).min()
        } else {
            starts.filter(|&c| c < self.cursor).max()
        }
    }
}
