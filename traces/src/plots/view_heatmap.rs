//! `view_NAME`: one declared tensor view's traffic per tile over its two heatmap axes (the other
//! axes summed): bytes read above, bytes written below, darker for more.

use plotters::coord::Shift;
use plotters::prelude::SegmentValue::{CenterOf, Exact};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{self, Chart, DrawResult, Figure, Panel, CHAR_WIDTH, MARGIN, MARGIN_RIGHT};
use super::units::{label, Scale};
use crate::{HeatmapCells, Report, TensorViewProfile};

/// Bytes per cell of a (rows × columns) tile grid, row-major.
pub struct Heatmap {
    pub caption: String,
    pub row_axis: String,
    pub column_axis: String,
    pub rows: usize,
    pub columns: usize,
    pub cells: Vec<u64>,
    pub color: RGBColor,
}

/// The heatmap figures of every view that has two axes to draw, with their file names.
pub fn figures(report: &Report) -> Vec<(String, Figure)> {
    report
        .views
        .iter()
        .filter_map(|v| Some((file_name(&v.name), figure(report, v)?)))
        .collect()
}

/// `view_` and the view's name, with every character other than letters, digits, `-` and `_`
/// made `_` (a file name on every system).
fn file_name(view: &str) -> String {
    let safe: String = view
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("view_{safe}")
}

fn figure(report: &Report, v: &TensorViewProfile) -> Option<Figure> {
    let HeatmapCells {
        row_axis,
        column_axis,
        rows,
        columns,
        read_bytes,
        write_bytes,
    } = v.heatmap_cells()?;
    let panel = |what: &str, cells: Vec<u64>, color: usize| Panel {
        weight: 1,
        chart: Chart::Heatmap(Heatmap {
            caption: format!(
                "bytes {what} per tile ({} by {}, other axes summed)",
                label(&row_axis, 16),
                label(&column_axis, 16)
            ),
            row_axis: row_axis.clone(),
            column_axis: column_axis.clone(),
            rows,
            columns,
            cells,
            color: style::color(color),
        }),
    };
    let shape: Vec<String> = v.shape.iter().map(u64::to_string).collect();
    Some(Figure {
        height: style::HEIGHT,
        title: format!(
            "View {}: {} [{}] in {}",
            label(&v.name, 24),
            v.dtype,
            shape.join(", "),
            label(&v.region, 16)
        ),
        subtitle: style::run_summary(report),
        panels: vec![
            panel("read", read_bytes, 0),
            panel("written", write_bytes, 1),
        ],
    })
}

impl Heatmap {
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let mut chart = ChartBuilder::on(area)
            .caption(&self.caption, style::text_style())
            .margin(MARGIN)
            .margin_right(MARGIN_RIGHT)
            .x_label_area_size(40)
            .y_label_area_size(60)
            // A segmented range over 0..n has n + 1 cells: one per tile is 0..n - 1.
            .build_cartesian_2d(
                (0..self.columns - 1).into_segmented(),
                (0..self.rows - 1).into_segmented(),
            )?;
        // Tile numbers centred on their cells; row 0 at the top, as the buffer is laid out. (Not
        // `style::configure_mesh`: plotters loops forever on integer axes without light lines.)
        let rows = self.rows;
        chart
            .configure_mesh()
            .disable_mesh()
            .label_style(style::text_style())
            .axis_desc_style(style::axis_desc_style())
            .axis_style(RGBColor(120, 120, 120))
            .x_desc(format!("{} tile", label(&self.column_axis, 16)))
            .y_desc(format!("{} tile", label(&self.row_axis, 16)))
            .x_labels(self.columns.min(16))
            .y_labels(self.rows.min(16))
            .x_label_formatter(&|v| centre(v).map_or(String::new(), |c| c.to_string()))
            .y_label_formatter(&|v| centre(v).map_or(String::new(), |r| (rows - 1 - r).to_string()))
            .draw()?;
        let most = self.cells.iter().copied().max().unwrap_or(0);
        let scale = Scale::bytes(most as f64);
        let cell_width = chart.backend_coord(&(Exact(1), Exact(0))).0
            - chart.backend_coord(&(Exact(0), Exact(0))).0;
        for (i, &bytes) in self.cells.iter().enumerate() {
            let (row, column) = (i / self.columns, i % self.columns);
            // Row 0 at the top, as the buffer is laid out.
            let y = self.rows - 1 - row;
            let share = if most == 0 {
                0.0
            } else {
                bytes as f64 / most as f64
            };
            let fill = style::lighter(self.color, 1.0 - 0.85 * share);
            chart.draw_series([Rectangle::new(
                [(Exact(column), Exact(y)), (Exact(column + 1), Exact(y + 1))],
                fill.filled(),
            )])?;
            let text = scale.format(bytes as f64);
            if cell_width >= (text.len() as u32 * CHAR_WIDTH + 4) as i32 {
                // Text goes in pixels, relative to the plotting area, at the cell's centre.
                let (left, top) = chart.backend_coord(&(Exact(column), Exact(y + 1)));
                let (right, bottom) = chart.backend_coord(&(Exact(column + 1), Exact(y)));
                let plot = chart.plotting_area();
                let base = plot.get_base_pixel();
                let ink = if share > 0.6 { WHITE } else { style::INK };
                let style = style::text_style()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                plot.strip_coord_spec().draw(&Text::new(
                    text,
                    ((left + right) / 2 - base.0, (top + bottom) / 2 - base.1),
                    style,
                ))?;
            }
        }
        Ok(())
    }
}

/// The cell a segment label stands for, when it is a cell's centre.
fn centre(v: &SegmentValue<usize>) -> Option<usize> {
    match v {
        CenterOf(i) => Some(*i),
        _ => None,
    }
}
