use std::collections::HashSet;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::FontTransform;

use super::*;
use crate::testing::*;
use crate::*;

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tigris-plots-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A run of 1 M cycles at 100 MHz with a few functions, an SRAM and a PSRAM region, and timeline
/// samples every 100 k cycles in which the PSRAM is read steadily.
fn plain_report() -> Report {
    let samples = (1..=10u64)
        .map(|step| {
            sample(
                step * 100_000,
                "main",
                &[step * 4096, step * 1000],
                &[step * 2048, 0],
            )
        })
        .collect();
    let run = report(100_000_000, 1_000_000);
    Report {
        firmware: Firmware {
            file: "synthetic.elf".into(),
            ..run.firmware
        },
        functions: vec![
            function("conv_kernel", 700_000, 700_000, 1),
            function("main", 200_000, 1_000_000, 1),
            function("memcpy", 100_000, 100_000, 1),
        ],
        regions: vec![region("sram", "sram"), region("psram", "psram")],
        timeline: Some(Timeline {
            interval_cycles: 100_000,
            samples,
        }),
        ..run
    }
}

/// `plain_report` running TiGrIS: an untiled stage and a stage of three tiles, an 8 KiB arena.
fn tigris_report() -> Report {
    let tiles = vec![
        tile(0, 300_000, figures(250_000)),
        tile(1, 550_000, figures(250_000)),
        tile(2, 800_000, figures(100_000)),
    ];
    let stages = vec![
        stage(0, "normal", 100_000, figures(200_000), Vec::new()),
        stage(1, "tiled", 300_000, figures(600_000), tiles),
    ];
    let timeline = vec![
        event(100_000, "stage_begin"),
        TigrisEvent {
            fast_used: 4096,
            slow_read_bytes: 2048,
            ..event(150_000, "load")
        },
        TigrisEvent {
            fast_used: 6000,
            slow_read_bytes: 2048,
            ..event(300_000, "stage_begin")
        },
        TigrisEvent {
            fast_used: 7000,
            slow_read_bytes: 2048,
            slow_write_bytes: 4096,
            ..event(600_000, "spill")
        },
        TigrisEvent {
            slow_read_bytes: 4096,
            slow_write_bytes: 4096,
            ..event(900_000, "stage_end")
        },
    ];
    Report {
        tigris: Some(TigrisProfile {
            plan: Some(plan(8192)),
            arenas: Some(arenas("sram", 8192)),
            ..tigris(stages, timeline)
        }),
        ..plain_report()
    }
}

fn file_names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|file| file.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn svg_text(path: &Path) -> String {
    let svg = std::fs::read_to_string(path).unwrap();
    roxmltree::Document::parse(&svg)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    svg
}

/// The text of every `<text>` element of an SVG file.
fn svg_labels(path: &Path) -> Vec<String> {
    let svg = svg_text(path);
    let document = roxmltree::Document::parse(&svg).unwrap();
    let texts = document
        .descendants()
        .filter(|node| node.has_tag_name("text"));
    texts
        .map(|node| node.text().unwrap_or_default().trim().to_string())
        .collect()
}

/// Width, height and RGB pixels of a PNG file.
fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    pixels.truncate(frame.buffer_size());
    (frame.width, frame.height, pixels)
}

/// Pixels that are not white in the middle of the image, where the plot area is.
fn inked_pixels_in_middle(path: &Path) -> usize {
    let (width, height, pixels) = decode_png(path);
    let mut inked = 0;
    for y in height / 4..height * 3 / 4 {
        for x in width / 4..width * 3 / 4 {
            let at = ((y * width + x) * 3) as usize;
            if pixels[at..at + 3] != [255, 255, 255] {
                inked += 1;
            }
        }
    }
    inked
}

#[test]
fn a_tigris_run_gets_every_plot_in_a_fixed_order() {
    let dir = scratch("tigris");
    let files = write_plots(&tigris_report(), &dir.join("plots")).unwrap();
    let expected: Vec<String> = [
        "arena",
        "tile_cycles",
        "slow_traffic",
        "gantt",
        "top_functions",
    ]
    .iter()
    .flat_map(|name| [format!("{name}.svg"), format!("{name}.png")])
    .collect();
    assert_eq!(file_names(&files), expected);
    for file in &files {
        assert!(file.is_file(), "{} missing", file.display());
        assert!(file.starts_with(dir.join("plots")));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn svgs_are_xml_with_titles_and_axis_labels_with_units() {
    let dir = scratch("svg-text");
    write_plots(&tigris_report(), &dir).unwrap();
    let expectations = [
        (
            "arena",
            vec![
                "TiGrIS fast-arena use over time",
                "simulated time (ms at 100 MHz)",
                "fast arena in use (KiB)",
                "plan budget = arena size (8 KiB)",
                "stage 1",
            ],
        ),
        (
            "tile_cycles",
            vec![
                "Cycles per TiGrIS tile, by stage",
                "cycles (kcycles)",
                "stage 0",
                "stage 1 tile 2",
            ],
        ),
        (
            "slow_traffic",
            vec![
                "Slow-memory traffic over time",
                "traffic (KiB per ms)",
                "slow-arena reads (4 KiB in all)",
                "psram read",
            ],
        ),
        (
            "gantt",
            vec![
                "TiGrIS stages and tiles over time",
                "stage 1 (tiled)",
                "simulated time (ms at 100 MHz)",
                "6 ms, 3 tiles",
            ],
        ),
        (
            "top_functions",
            vec![
                "Top 3 functions by self cycles",
                "conv_kernel",
                "cycles (Mcycles)",
                "self 700 kcycles, 70.0%",
            ],
        ),
    ];
    for (name, texts) in expectations {
        let svg = svg_text(&dir.join(format!("{name}.svg")));
        assert!(
            svg.contains("synthetic.elf on testboard"),
            "{name} lacks the run summary"
        );
        for text in texts {
            assert!(svg.contains(text), "{name}.svg lacks {text:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pngs_decode_at_the_canvas_size_and_are_drawn_on() {
    let dir = scratch("png");
    let files = write_plots(&tigris_report(), &dir).unwrap();
    for file in files
        .iter()
        .filter(|file| file.extension().unwrap() == "png")
    {
        let (width, height, _) = decode_png(file);
        assert_eq!(width, WIDTH);
        assert!(
            (240..=style::HEIGHT).contains(&height),
            "{} is {height} pixels high",
            file.display()
        );
        // Bars, lines and shading cover far more than a stray tick label would.
        let inked = inked_pixels_in_middle(file);
        assert!(
            inked > 2000,
            "{} has only {inked} inked pixels in its plot area",
            file.display()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_report_gives_byte_identical_files() {
    let dir = scratch("deterministic");
    let first = write_plots(&tigris_report(), &dir.join("a")).unwrap();
    let second = write_plots(&tigris_report(), &dir.join("b")).unwrap();
    assert_eq!(file_names(&first), file_names(&second));
    for (a, b) in first.iter().zip(&second) {
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{} differs between runs",
            a.display()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_without_tigris_gets_only_traffic_and_functions() {
    let dir = scratch("plain");
    let files = write_plots(&plain_report(), &dir).unwrap();
    assert_eq!(
        file_names(&files),
        [
            "slow_traffic.svg",
            "slow_traffic.png",
            "top_functions.svg",
            "top_functions.png"
        ]
    );
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk,
        [
            "slow_traffic.png",
            "slow_traffic.svg",
            "top_functions.png",
            "top_functions.svg"
        ]
    );
    let labels = svg_labels(&dir.join("slow_traffic.svg"));
    let series: Vec<&String> = labels
        .iter()
        .filter(|label| label.contains(" in all)"))
        .collect();
    assert_eq!(
        series,
        ["psram read (9.77 KiB in all)"],
        "only non-SRAM regions with traffic have a series"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sram_only_traffic_gives_no_traffic_plot() {
    let dir = scratch("sram-only");
    let mut report = plain_report();
    for sample in &mut report.timeline.as_mut().unwrap().samples {
        sample.read_bytes[1] = 0;
    }
    let files = write_plots(&report, &dir).unwrap();
    assert_eq!(
        file_names(&files),
        ["top_functions.svg", "top_functions.png"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_report_writes_nothing() {
    let dir = scratch("empty");
    let report = Report {
        functions: Vec::new(),
        timeline: None,
        ..plain_report()
    };
    assert!(write_plots(&report, &dir).unwrap().is_empty());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn odd_reports_draw_without_panicking() {
    let mut zero = tigris_report();
    zero.totals.cycles = 0;
    zero.board.clock_hz = 0;
    zero.functions = vec![function("idle", 0, 0, 1)];
    let tigris = zero.tigris.as_mut().unwrap();
    tigris.timeline = vec![event(0, "alloc")];
    for stage in &mut tigris.stages {
        stage.start_cycle = 0;
        stage.figures.cycles = 0;
        stage
            .tiles
            .iter_mut()
            .for_each(|tile| *tile = testing::tile(tile.index, 0, figures(0)));
    }
    zero.timeline = Some(Timeline {
        interval_cycles: 0,
        samples: Vec::new(),
    });

    let mut huge = tigris_report();
    huge.totals.cycles = u64::MAX;
    huge.functions = vec![
        function("x\u{1}<&>\"\u{e9}\u{4e2d}", u64::MAX, u64::MAX, 1),
        function(&"long_name_".repeat(30), u64::MAX / 2, 0, 1),
    ];
    let tigris = huge.tigris.as_mut().unwrap();
    tigris.stages[1].start_cycle = u64::MAX - 5;
    tigris.stages[1].figures.cycles = u64::MAX;
    tigris.timeline.push(TigrisEvent {
        fast_used: u32::MAX,
        slow_read_bytes: u64::MAX,
        ..event(u64::MAX, "stage_end")
    });
    // Sample vectors shorter than the region list, a counter going backwards.
    huge.timeline = Some(Timeline {
        interval_cycles: 1,
        samples: vec![
            sample(10, "", &[], &[0, 5]),
            sample(5, "", &[0, 9], &[0, 1]),
        ],
    });

    let no_stages = Report {
        tigris: Some(TigrisProfile {
            stages: Vec::new(),
            timeline: Vec::new(),
            plan: None,
            arenas: None,
            ..tigris_report().tigris.unwrap()
        }),
        ..plain_report()
    };

    for (name, report) in [("zero", zero), ("huge", huge), ("no-stages", no_stages)] {
        let dir = scratch(name);
        let files = write_plots(&report, &dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!files.is_empty(), "{name} wrote nothing");
        for file in files
            .iter()
            .filter(|file| file.extension().unwrap() == "svg")
        {
            svg_text(file);
        }
        write_compare_plot(
            &report,
            &tigris_report(),
            ("odd", "normal"),
            &dir.join("compare"),
        )
        .unwrap();
        svg_text(&dir.join("compare.svg"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn compare_shows_stages_when_both_ran_tigris_else_totals_and_functions() {
    let dir = scratch("compare");
    let mut slower = tigris_report();
    slower.tigris.as_mut().unwrap().stages[1].tiles[0]
        .figures
        .cycles = 300_000;
    let files = write_compare_plot(
        &tigris_report(),
        &slower,
        ("budget 8K", "budget 6K"),
        &dir.join("nested/v1.2"),
    )
    .unwrap();
    assert_eq!(file_names(&files), ["v1.2.svg", "v1.2.png"]);
    let svg = svg_text(&files[0]);
    for text in [
        "Cycles per TiGrIS stage and tile: budget 8K vs budget 6K",
        "budget 8K",
        "budget 6K",
        "stage 1 tile 0",
        "+20.0%",
        "whole run",
    ] {
        assert!(svg.contains(text), "stage comparison lacks {text:?}");
    }
    assert!(inked_pixels_in_middle(&files[1]) > 2000);

    let files = write_compare_plot(
        &tigris_report(),
        &plain_report(),
        ("a", "b"),
        &dir.join("plain"),
    )
    .unwrap();
    let svg = svg_text(&files[0]);
    for text in [
        "Total cycles and top functions: a vs b",
        "whole run",
        "conv_kernel",
        "self cycles (kcycles)",
    ] {
        assert!(svg.contains(text), "fallback comparison lacks {text:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_the_file_that_could_not_be_written() {
    let dir = scratch("error");
    std::fs::create_dir_all(&dir).unwrap();
    let blocker = dir.join("not-a-directory");
    std::fs::write(&blocker, "").unwrap();
    let error = write_plots(&tigris_report(), &blocker.join("plots")).unwrap_err();
    assert!(
        error.to_string().contains("not-a-directory/plots"),
        "{error}"
    );
    let error = write_compare_plot(
        &tigris_report(),
        &tigris_report(),
        ("a", "b"),
        &blocker.join("compare"),
    )
    .unwrap_err();
    assert!(
        error.to_string().starts_with("cannot write plot "),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_printable_ascii_glyph_is_distinct_and_inked() {
    let mut seen = HashSet::new();
    for c in (b' '..=b'~').map(char::from) {
        let mut pixels = Vec::new();
        font::for_each_pixel(&c.to_string(), |x, y| pixels.push((x, y)));
        assert_eq!(pixels.is_empty(), c == ' ', "{c:?}");
        assert!(
            pixels
                .iter()
                .all(|&(x, y)| x < font::GLYPH_WIDTH && y < font::GLYPH_HEIGHT),
            "{c:?}"
        );
        assert!(seen.insert(pixels), "{c:?} looks like another glyph");
    }
    assert_eq!(seen.len(), 95);
}

#[test]
fn characters_outside_ascii_are_drawn_as_question_marks() {
    let pixels = |text: &str| {
        let mut pixels = Vec::new();
        font::for_each_pixel(text, |x, y| pixels.push((x, y)));
        pixels
    };
    assert_eq!(pixels("\u{e9}\u{1}"), pixels("??"));
}

/// Bounding box (x0, y0, x1, y1) of the non-white pixels of an RGB buffer.
fn ink_box(rgb: &[u8], width: u32) -> Option<(u32, u32, u32, u32)> {
    let inked = rgb
        .chunks(3)
        .enumerate()
        .filter(|(_, pixel)| *pixel != [255, 255, 255])
        .map(|(at, _)| (at as u32 % width, at as u32 / width));
    inked.fold(None, |bounds, (x, y)| {
        let (x0, y0, x1, y1) = bounds.unwrap_or((x, y, x, y));
        Some((x0.min(x), y0.min(y), x1.max(x), y1.max(y)))
    })
}

/// Draws `text` at (100, 100) on a white 200x200 canvas and returns the ink's bounding box.
fn draw_text_box(text: &str, size: f64, transform: FontTransform) -> (u32, u32, u32, u32) {
    let mut rgb = vec![255; 200 * 200 * 3];
    {
        let root = backend::PixelFontBackend::new(&mut rgb, (200, 200)).into_drawing_area();
        let style = ("sans-serif", size)
            .into_font()
            .transform(transform)
            .color(&BLACK);
        root.draw_text(text, &style, (100, 100)).unwrap();
        root.present().unwrap();
    }
    ink_box(&rgb, 200).expect("text left no ink")
}

#[test]
fn png_text_is_drawn_at_the_estimated_size_and_rotates() {
    let (x0, y0, x1, y1) = draw_text_box("HH", 15.0, FontTransform::None);
    // Two 5x7 capitals with a one-pixel gap, from the anchor at the top left.
    assert_eq!((x0, y0, x1 - x0 + 1, y1 - y0 + 1), (100, 100, 11, 7));
    let (x0, y0, x1, y1) = draw_text_box("HH", 26.0, FontTransform::None);
    assert_eq!(
        (x1 - x0 + 1, y1 - y0 + 1),
        (22, 14),
        "scale 2 doubles every pixel"
    );
    // The y-axis label turns by 270 degrees: it reads upwards from the anchor.
    let (x0, y0, x1, y1) = draw_text_box("HH", 15.0, FontTransform::Rotate270);
    assert_eq!((x1 - x0 + 1, y1 - y0 + 1), (7, 11));
    assert!(
        y1 <= 100 && x0 >= 100,
        "rotated text should lie above and right of its anchor"
    );

    let mut pixel = [0; 3];
    let backend = backend::PixelFontBackend::new(&mut pixel, (1, 1));
    let style = ("sans-serif", 15.0).into_font().color(&BLACK);
    assert_eq!(
        backend.estimate_text_size("HH", &style).unwrap(),
        (11, 9),
        "width of the ink, height with descenders"
    );
}

#[test]
fn traffic_rates_add_up_to_the_bytes_moved() {
    let time = units::TimeScale::new(1_000_000);
    let integral = |steps: &[timechart::Step]| {
        steps
            .iter()
            .map(|step| step.value * (step.end - step.start))
            .sum::<f64>()
    };
    // Running totals at events: 100 bytes by cycle 50, 300 by 250, a restart to 0, 40 by 990.
    let totals = [(50, 100), (250, 300), (400, 0), (990, 40)];
    let steps = slow_traffic::binned_rates(&totals, 100, 1000, time);
    assert_eq!(steps.len(), 10);
    assert!((integral(&steps) - 340.0).abs() < 1e-9);
    assert!(
        (steps[2].value - 200.0 / time.at(100)).abs() < 1e-9,
        "the bytes go to the interval of the event showing them"
    );
    let steps = slow_traffic::sample_rates(&[(0, 0), (100, 50), (300, 250)], time);
    assert!((integral(&steps) - 250.0).abs() < 1e-9);
    assert_eq!(steps[1].value, steps[0].value * 2.0);
}

#[test]
fn units_fit_the_largest_value() {
    assert_eq!(units::Scale::cycles(999.0).name, "cycles");
    assert_eq!(
        units::Scale::cycles(3_490_000.0).format(3_490_000.0),
        "3.49 Mcycles"
    );
    assert_eq!(units::Scale::bytes(8192.0).format(8192.0), "8 KiB");
    assert_eq!(units::Scale::bytes(f64::MAX).name, "GiB");
    assert_eq!(units::label("a\u{1}b", 10), "a?b");
    assert_eq!(units::label("abcdefghijk", 8), "abcde...");
}

#[test]
fn each_view_gets_a_heatmap_with_its_cells_labelled() {
    let dir = scratch("views");
    let mut report = plain_report();
    report.views = vec![
        tensor_view("a/b", 2, 3, &[1, 2, 3, 4, 5, 600]),
        // One axis only: nothing to draw over two axes.
        TensorViewProfile {
            heatmap: None,
            ..tensor_view("flat", 1, 4, &[1])
        },
        tensor_view("one tile", 1, 1, &[]),
    ];
    let files = write_plots(&report, &dir).unwrap();
    let names = file_names(&files);
    assert!(names.contains(&"view_a_b.svg".to_string()), "{names:?}");
    assert!(
        names.contains(&"view_one_tile.png".to_string()),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("view_flat")),
        "{names:?}"
    );
    let labels = svg_labels(&dir.join("view_a_b.svg"));
    for want in ["600 B", "5 B", "h tile", "w tile"] {
        assert!(labels.iter().any(|l| l == want), "{want} in {labels:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
