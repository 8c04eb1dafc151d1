//! Plots of a report, as SVG and PNG (docs/plots.md says what each shows and from which fields).
//!
//! Rendering needs no system font or font file: SVG text is left to the viewer, and PNG text is drawn
//! with our own bitmap font (font.rs) through a wrapper around plotters' bitmap backend (backend.rs).
//! The same report always gives byte-identical files.

mod arena;
mod backend;
mod bars;
mod compare;
mod font;
mod gantt;
mod pareto;
mod rows;
mod slow_traffic;
mod style;
mod tile_cycles;
mod timechart;
mod top_functions;
mod units;
mod view_heatmap;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::sweep::Sweep;
use crate::Report;
use style::{Figure, WIDTH};

/// A plot that could not be drawn or written.
#[derive(Debug)]
pub struct PlotError {
    /// The file (or directory) being written.
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "cannot write plot {}: {}",
            self.path.display(),
            self.message
        )
    }
}

impl std::error::Error for PlotError {}

impl PlotError {
    fn new(path: &Path, message: impl fmt::Display) -> Self {
        PlotError {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

/// Write every plot the report has data for into `dir` (created if missing), as NAME.svg and NAME.png;
/// returns the files written, in a fixed order.
pub fn write_plots(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir).map_err(|e| PlotError::new(dir, e))?;
    let figures = [
        ("arena", arena::figure(report)),
        ("tile_cycles", tile_cycles::figure(report)),
        ("slow_traffic", slow_traffic::figure(report)),
        ("gantt", gantt::figure(report)),
        ("top_functions", top_functions::figure(report)),
    ];
    let mut written = Vec::new();
    for (name, figure) in figures {
        if let Some(figure) = figure {
            written.extend(write_figure(&figure, &dir.join(name))?);
        }
    }
    for (name, figure) in view_heatmap::figures(report) {
        written.extend(write_figure(&figure, &dir.join(name))?);
    }
    Ok(written)
}

/// Two runs side by side (cycles per TiGrIS stage, or when either has no TiGrIS data: totals and top functions),
/// written as `stem`.svg and `stem`.png; `labels` name the two runs in the legend.
pub fn write_compare_plot(
    a: &Report,
    b: &Report,
    labels: (&str, &str),
    stem: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    if let Some(dir) = stem.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| PlotError::new(dir, e))?;
    }
    write_figure(&compare::figure(a, b, labels), stem)
}

/// A sweep's Pareto plot (latency against fast-arena peak), written as `stem`.svg and `stem`.png; `None`
/// when no point was measured.
pub fn write_pareto_plot(sweep: &Sweep, stem: &Path) -> Result<Option<Vec<PathBuf>>, PlotError> {
    pareto::figure(sweep)
        .map(|figure| write_figure(&figure, stem))
        .transpose()
}

/// `stem` with `.extension` appended (not replacing a dot already in the name).
fn with_extension(stem: &Path, extension: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

fn write_figure(figure: &Figure, stem: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let svg_path = with_extension(stem, "svg");
    let svg = render_svg(figure).map_err(|message| PlotError::new(&svg_path, message))?;
    std::fs::write(&svg_path, svg).map_err(|e| PlotError::new(&svg_path, e))?;
    let png_path = with_extension(stem, "png");
    let png = render_png(figure).map_err(|message| PlotError::new(&png_path, message))?;
    std::fs::write(&png_path, png).map_err(|e| PlotError::new(&png_path, e))?;
    Ok(vec![svg_path, png_path])
}

fn render_svg(figure: &Figure) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, figure.height)).into_drawing_area();
        figure
            .draw(&root)
            .map_err(|e| format!("drawing failed: {e}"))?;
        root.present().map_err(|e| format!("drawing failed: {e}"))?;
    }
    Ok(svg)
}

fn render_png(figure: &Figure) -> Result<Vec<u8>, String> {
    let (width, height) = (WIDTH, figure.height);
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = backend::PixelFontBackend::new(&mut rgb, (width, height)).into_drawing_area();
        figure
            .draw(&root)
            .map_err(|e| format!("drawing failed: {e}"))?;
        root.present().map_err(|e| format!("drawing failed: {e}"))?;
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // Plots are mostly flat colour: the best deflate level with per-row filters makes them ~10x smaller.
    encoder.set_compression(png::Compression::Best);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .write_image_data(&rgb)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(png)
}
