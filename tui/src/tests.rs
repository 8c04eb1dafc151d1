//! Screens drawn on ratatui's test backend from small reports built here, and the keys' effects.

use crate::app::{App, Mode, Run};
use crate::draw::draw;
use crate::snapshot::{Item, Snapshot};
use crate::{Command, Status, Update};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::Terminal;
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;
use tigris_traces::testing::*;
use tigris_traces::*;

/// A 1 MHz board, so 1000 cycles are 1 ms.
const CLOCK_HZ: u64 = 1_000_000;

/// Figures of `cycles` (two an instruction) whose fast-arena peak was `fast_peak`, by the runtime and on the bus.
fn peak_figures(cycles: u64, fast_peak: u32) -> TigrisFigures {
    TigrisFigures {
        instructions: cycles / 2,
        fast_peak,
        fast_peak_bus: fast_peak,
        ..figures(cycles)
    }
}

/// A tile of `rows` that loads 1.5 KiB and spills 5 KiB; its fast peak and halo grow with its index.
fn loading_tile(index: u16, start_cycle: u64, cycles: u64, rows: [i32; 2]) -> TigrisTile {
    let figures = TigrisFigures {
        load_bytes: 1536,
        spill_bytes: 5120,
        halo_rows: 2 * u64::from(index),
        ..peak_figures(cycles, 4096 + 512 * u32::from(index))
    };
    TigrisTile {
        rows,
        ..tile(index, start_cycle, figures)
    }
}

/// A run without TiGrIS: 10,000 cycles, three functions, a console, sampled stacks.
fn plain_report() -> Report {
    Report {
        console: "hello\nline two\nlast line\n".into(),
        functions: vec![
            function("memcpy", 2_500, 2_500, 40),
            function("tigris_conv2d_s8", 6_250, 6_250, 2),
            function("main", 1_250, 1_250, 1),
        ],
        timeline: Some(Timeline {
            interval_cycles: 2_500,
            samples: vec![
                sample(2_500, "Reset_Handler;main;make_input", &[], &[]),
                sample(5_000, "Reset_Handler;main;conv2d_3x3", &[], &[]),
                sample(7_500, "Reset_Handler;main;conv2d_3x3", &[], &[]),
                sample(10_000, "Reset_Handler;main;dense", &[], &[]),
            ],
        }),
        ..report(CLOCK_HZ, 10_000)
    }
}

/// The same run with TiGrIS: stage 0 untiled at 1,000-4,000, stage 1 tiled at 5,000-9,000 with tiles
/// at 5,100 and 7,000; an 8 KiB budget, 6 KiB in use at the end, a 7.5 KiB peak.
fn tigris_report() -> Report {
    let tiles = vec![
        loading_tile(0, 5_100, 1_900, [0, 11]),
        loading_tile(1, 7_000, 1_950, [8, 20]),
    ];
    let stages = vec![
        TigrisStage {
            op_names: vec!["conv0".into()],
            ..stage(0, "normal", 1_000, peak_figures(3_000, 5_120), vec![])
        },
        TigrisStage {
            op_names: vec!["conv1".into()],
            ..stage(1, "tiled", 5_000, peak_figures(4_000, 6_656), tiles)
        },
    ];
    let timeline = vec![
        event(1_000, "stage_begin"),
        TigrisEvent {
            fast_used: 7_680,
            slow_read_bytes: 1_024,
            ..event(2_000, "load")
        },
        TigrisEvent {
            slow_read_bytes: 1_024,
            ..event(4_000, "stage_end")
        },
        TigrisEvent {
            slow_read_bytes: 1_024,
            ..event(5_000, "stage_begin")
        },
        TigrisEvent {
            slow_read_bytes: 1_024,
            ..event(5_100, "tile_begin")
        },
        TigrisEvent {
            fast_used: 4_096,
            slow_read_bytes: 2_560,
            ..event(5_500, "load")
        },
        TigrisEvent {
            fast_used: 6_144,
            slow_read_bytes: 2_560,
            ..event(7_000, "tile_begin")
        },
        TigrisEvent {
            fast_used: 6_144,
            slow_read_bytes: 2_560,
            ..event(9_000, "stage_end")
        },
    ];
    Report {
        tigris: Some(TigrisProfile {
            plan: Some(plan(8_192)),
            arenas: Some(arenas("sram1", 16_384)),
            total: peak_figures(7_000, 7_680),
            ..tigris(stages, timeline)
        }),
        ..plain_report()
    }
}

fn render(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, app)).unwrap();
    terminal
}

fn screen_lines(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect()
        })
        .collect()
}

fn screen(app: &App) -> Vec<String> {
    screen_lines(&render(app, 120, 36))
}

/// The one line holding every one of `parts`.
fn line_with<'a>(lines: &'a [String], parts: &[&str]) -> &'a str {
    let found = lines
        .iter()
        .find(|line| parts.iter().all(|part| line.contains(part)));
    found.unwrap_or_else(|| panic!("no line holds {parts:?}:\n{}", lines.join("\n")))
}

fn contains(lines: &[String], text: &str) -> bool {
    lines.iter().any(|line| line.contains(text))
}

fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn live_app() -> (App, Receiver<Command>) {
    let (commands, received) = channel();
    (App::live(commands), received)
}

fn progress(report: Report, paused: bool) -> Update {
    let status = Status {
        wall_seconds: 1.0,
        mips: 12.5,
        paused,
        current_stack: "main;conv2d_3x3".into(),
    };
    Update::Progress {
        report: Box::new(report),
        status,
    }
}

#[test]
fn stage_rows_show_their_tiles_as_segments() {
    let lines = screen(&App::replay(tigris_report()));
    assert!(contains(&lines, " Timeline: 2 stages, 2 tiles "));
    line_with(&lines, &["S0 normal", "conv0"]);
    line_with(&lines, &["S1 tiled", "tile 0", "tile 1"]);
    // Tile 0 starts left of tile 1, after stage 0.
    let row = line_with(&lines, &["S1 tiled"]);
    let stage_0 = line_with(&lines, &["S0 normal"]).find("conv0").unwrap();
    assert!(
        stage_0 < row.find("tile 0").unwrap()
            && row.find("tile 0").unwrap() < row.find("tile 1").unwrap()
    );
    line_with(
        &lines,
        &["time", "\u{2502}2 ms", "\u{2502}4 ms", "\u{2502}8 ms"],
    );
}

#[test]
fn fast_arena_gauge_is_measured_against_the_plan_budget() {
    let lines = screen(&App::replay(tigris_report()));
    line_with(&lines, &["6.0 KiB of 8.0 KiB (75%)"]);
    line_with(&lines, &["peak 7.5 KiB (94% of plan budget)"]);
    assert!(contains(&lines, " Fast arena (sram1) "));

    // Without a plan budget, the arena's size is the budget.
    let mut report = tigris_report();
    let tigris = report.tigris.as_mut().unwrap();
    tigris.plan = None;
    tigris.arenas.as_mut().unwrap().fast_size = 24_576;
    let lines = screen(&App::replay(report));
    line_with(&lines, &["6.0 KiB of 24.0 KiB (25%)"]);
    line_with(&lines, &["peak 7.5 KiB (31% of arena size)"]);
}

#[test]
fn slow_traffic_totals_come_from_the_arena_counters() {
    let lines = screen(&App::replay(tigris_report()));
    assert!(contains(
        &lines,
        " Slow memory traffic (slow arena, psram) "
    ));
    line_with(&lines, &["whole run 2.5 KiB read, 0 B written"]);
}

#[test]
fn traffic_is_split_into_equal_intervals() {
    let report = tigris_report();
    let traffic = Snapshot::at_end(&report).slow_traffic().unwrap();
    // 1,024 bytes by cycle 2,000 and 1,536 more at 5,500: intervals of 2,500 cycles.
    let (read, written) = traffic.per_column(0, 10_000, 4);
    assert_eq!(read, [1_024, 0, 1_536, 0]);
    assert_eq!(written, [0; 4]);
}

#[test]
fn hot_functions_are_sorted_by_self_cycles_with_their_share() {
    let mut report = tigris_report();
    report.functions[1].source = Some("firmware/tigris/kernels.c:120".into());
    let lines = screen(&App::replay(report));
    assert!(line_with(&lines, &["tigris_conv2d_s8  kernels.c:120"]).contains("62.5%"));
    let conv = lines
        .iter()
        .position(|l| l.contains("62.5%") && l.contains("tigris_conv2d_s8"))
        .unwrap();
    let memcpy = lines
        .iter()
        .position(|l| l.contains("25.0%") && l.contains("40") && l.contains("memcpy"))
        .unwrap();
    let main = lines
        .iter()
        .position(|l| l.contains("12.5%") && l.contains("main"))
        .unwrap();
    assert!(conv < memcpy && memcpy < main);
}

#[test]
fn console_shows_its_tail() {
    let mut report = plain_report();
    report.console = (1..=60).map(|i| format!("console line {i}\n")).collect();
    let lines = screen(&App::replay(report));
    line_with(&lines, &["console line 60"]);
    assert!(
        !contains(&lines, "console line 1 "),
        "the head scrolled away"
    );
}

#[test]
fn selected_tile_shows_its_figures_and_stands_out() {
    let mut app = App::replay(tigris_report());
    // Items in order: stage 0 (untiled), tile 0, tile 1.
    for _ in 0..3 {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(1)
        })
    );
    let terminal = render(&app, 120, 36);
    let lines = screen_lines(&terminal);
    assert!(contains(&lines, " Tile 1 of stage 1 (tiled), rows [8,20) "));
    line_with(&lines, &["cycles", "1,950", "1.950 ms"]);
    line_with(&lines, &["load", "1.5 KiB", "spill 5.0 KiB"]);
    line_with(&lines, &["halo", "2 rows"]);
    line_with(&lines, &["fast peak", "4.5 KiB (56%)"]);
    // The selected segment is drawn highlighted, its label in brackets.
    let y = lines.iter().position(|l| l.contains("[tile 1")).unwrap() as u16;
    let x = lines[y as usize].chars().position(|c| c == '[').unwrap() as u16;
    assert_eq!(terminal.backend().buffer()[(x, y)].bg, Color::Yellow);
}

#[test]
fn help_overlay_lists_the_keys_of_the_mode() {
    let mut app = App::replay(tigris_report());
    press(&mut app, KeyCode::Char('?'));
    let lines = screen(&app);
    assert!(contains(&lines, " Keys: replay "));
    line_with(&lines, &["space", "play / pause the cursor"]);
    line_with(
        &lines,
        &["Home / End", "cursor to the start / end of the run"],
    );
    // Esc closes the help instead of quitting.
    press(&mut app, KeyCode::Esc);
    assert!(!app.help && !app.quit);

    let (mut live, _commands) = live_app();
    live.apply(progress(tigris_report(), false));
    press(&mut live, KeyCode::Char('?'));
    let lines = screen(&live);
    line_with(
        &lines,
        &["n", "run to the next tile (or stage), then pause"],
    );
}

#[test]
fn small_terminal_gets_one_line_instead_of_the_screen() {
    let lines = screen_lines(&render(&App::replay(tigris_report()), 40, 10));
    // Wrapped at 40 columns; nothing else drawn.
    assert_eq!(lines[0].trim_end(), "terminal too small: need 80x24, have");
    assert_eq!(lines[1].trim_end(), "40x10");
    assert!(lines[2..].iter().all(|line| line.trim().is_empty()));
    let lines = screen_lines(&render(&App::replay(tigris_report()), 79, 40));
    assert_eq!(
        lines[0].trim_end(),
        "terminal too small: need 80x24, have 79x40"
    );
}

#[test]
fn the_screen_is_laid_out_again_after_a_resize() {
    let app = App::replay(tigris_report());
    let mut terminal = render(&app, 120, 36);
    terminal.backend_mut().resize(90, 30);
    terminal.draw(|frame| draw(frame, &app)).unwrap();
    let lines = screen_lines(&terminal);
    assert_eq!(lines.len(), 30);
    assert!(lines.iter().all(|line| line.chars().count() == 90));
    line_with(&lines, &["S1 tiled", "tile 0"]);
    assert!(lines[29].contains("q quit"));
    // The minimum size draws everything too.
    let lines = screen_lines(&render(&app, 80, 24));
    line_with(&lines, &["S1 tiled"]);
    line_with(&lines, &["tigris_conv2d_s8"]);
}

#[test]
fn live_view_shows_running_then_paused_then_the_outcome() {
    let (mut app, _commands) = live_app();
    line_with(&screen(&app), &["waiting for the simulator's first report"]);

    app.apply(progress(tigris_report(), false));
    let lines = screen(&app);
    line_with(
        &lines,
        &[" RUNNING ", "10,000 cycles", "10.000 ms", "12.5 MIPS"],
    );
    line_with(&lines, &["in main \u{203a} conv2d_3x3"]);

    app.apply(progress(tigris_report(), true));
    line_with(&screen(&app), &[" PAUSED "]);

    let mut last = tigris_report();
    last.outcome = Outcome::Exited { code: 3 };
    app.apply(Update::Finished(Box::new(last)));
    line_with(&screen(&app), &[" FINISHED ", "exited with code 3"]);
    // A late progress report does not replace the final one.
    app.apply(progress(tigris_report(), false));
    line_with(&screen(&app), &[" FINISHED ", "exited with code 3"]);
}

#[test]
fn a_fault_and_a_failure_show_what_went_wrong() {
    let mut report = plain_report();
    report.outcome = Outcome::Fault;
    report.fault = Some(FaultReport {
        kind: "bad read".into(),
        pc: 0x100,
        location: Some("main+0x10".into()),
        source: None,
        address: Some(0),
        instruction: None,
        message: "read of unmapped address 0x0".into(),
        backtrace: vec![],
        registers: vec![],
    });
    let lines = screen(&App::replay(report.clone()));
    line_with(&lines, &["fault: bad read at main+0x10"]);
    line_with(&lines, &["fault: read of unmapped address 0x0"]);

    let (mut app, _commands) = live_app();
    app.apply(progress(report, false));
    app.apply(Update::Failed("cannot load the ELF".into()));
    let lines = screen(&app);
    line_with(&lines, &[" FAILED "]);
    line_with(&lines, &["simulator error: cannot load the ELF"]);
}

#[test]
fn a_run_without_tigris_shows_its_call_stack_over_time() {
    let lines = screen(&App::replay(plain_report()));
    assert!(contains(&lines, "no TiGrIS runtime in this firmware"));
    // The frames all samples share are left out: rows start at main's callees.
    line_with(&lines, &["make_input", "conv2d_3x3", "dense"]);
    line_with(&lines, &["no TiGrIS arenas in this run"]);
    assert!(contains(&lines, " Run "));
}

#[test]
fn replay_cursor_hides_what_came_after_it() {
    let mut app = App::replay(tigris_report());
    press(&mut app, KeyCode::Home);
    // n: the next tile or stage start is stage 0's, N: stage 1's.
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(cursor(&app), 1_000);
    let lines = screen(&app);
    line_with(&lines, &["S0 normal"]);
    assert!(!contains(&lines, "S1 tiled"));
    assert!(contains(&lines, " Timeline: 1 stage, 0 tiles "));
    line_with(&lines, &["1.000 ms of 10.000 ms", "cycle 1,000"]);

    press(&mut app, KeyCode::Char('N'));
    assert_eq!(cursor(&app), 5_000);
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(cursor(&app), 5_100);
    // The jump selects the tile that starts there; tile 1 is still to come.
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(0)
        })
    );
    let lines = screen(&app);
    assert!(contains(&lines, " Tile 0 of stage 1 (tiled), rows [0,11) "));
    assert!(!contains(&lines, "tile 1"));
    // The fast arena as of the cursor: nothing in use yet, the peak of stage 0.
    line_with(&lines, &["0 B of 8.0 KiB (0%)"]);
    line_with(&lines, &["peak 7.5 KiB"]);

    press(&mut app, KeyCode::Char('p'));
    assert_eq!(cursor(&app), 5_000);
    press(&mut app, KeyCode::End);
    assert_eq!(cursor(&app), 10_000);
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(cursor(&app), 10_000, "nothing starts after the end");
}

fn cursor(app: &App) -> u64 {
    match &app.mode {
        Mode::Replay(replay) => replay.cursor,
        Mode::Live(_) => panic!("not a replay"),
    }
}

#[test]
fn playing_moves_the_cursor_and_stops_at_the_end() {
    let mut app = App::replay(tigris_report());
    // Space at the end plays from the start.
    press(&mut app, KeyCode::Char(' '));
    assert_eq!(cursor(&app), 0);
    assert!(app.is_playing());
    // The whole run is in the window: it takes 10 s to cross.
    app.advance(Duration::from_secs(1));
    assert_eq!(cursor(&app), 1_000);
    press(&mut app, KeyCode::Char(' '));
    app.advance(Duration::from_secs(1));
    assert_eq!(cursor(&app), 1_000, "paused");
    press(&mut app, KeyCode::Char(' '));
    app.advance(Duration::from_secs(60));
    assert_eq!(cursor(&app), 10_000);
    assert!(!app.is_playing());
}

#[test]
fn zoom_and_scroll_move_the_window() {
    let mut app = App::replay(tigris_report());
    let window = |app: &App| app.view.window(&app.snapshot().unwrap());
    // The stage chart starts at the first stage: nothing to show before it.
    assert_eq!((window(&app).start, window(&app).span), (1_000, 9_000));
    press(&mut app, KeyCode::Char('+'));
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.view.zoom, 2);
    // A following window keeps the shown cycle (the end) at its right edge.
    assert_eq!((window(&app).start, window(&app).span), (7_750, 2_250));
    assert!(contains(&screen(&app), " zoom 4x "));
    press(&mut app, KeyCode::Left);
    assert_eq!(app.view.pinned_start, Some(7_188));
    press(&mut app, KeyCode::Left);
    assert_eq!(window(&app).start, 6_626);
    // Scrolling back to the end follows it again.
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Right);
    assert_eq!(app.view.pinned_start, None);
    press(&mut app, KeyCode::Char('-'));
    press(&mut app, KeyCode::Char('-'));
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.view.zoom, 0);
    assert_eq!(window(&app).start, 1_000);
}

#[test]
fn selection_steps_through_tiles_and_untiled_stages_and_wraps() {
    let mut app = App::replay(tigris_report());
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 0,
            tile: None
        })
    );
    press(&mut app, KeyCode::Tab);
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(0)
        })
    );
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(1)
        }),
        "wraps to the last"
    );
    // Zoomed in on a selection, the window centres on it.
    press(&mut app, KeyCode::Char('+'));
    press(&mut app, KeyCode::Char('+'));
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 0,
            tile: None
        })
    );
    let window = app.view.window(&app.snapshot().unwrap());
    assert_eq!((window.start, window.span), (2_500 - 1_125, 2_250));
}

#[test]
fn live_keys_send_commands_to_the_simulation() {
    let (mut app, commands) = live_app();
    app.apply(progress(tigris_report(), false));
    for key in ['n', 'N', 's', ' '] {
        press(&mut app, KeyCode::Char(key));
    }
    let sent: Vec<Command> = commands.try_iter().collect();
    assert_eq!(
        sent,
        [
            Command::StepTile,
            Command::StepStage,
            Command::StepStage,
            Command::Pause
        ]
    );

    app.apply(progress(tigris_report(), true));
    press(&mut app, KeyCode::Char(' '));
    assert_eq!(commands.try_recv(), Ok(Command::Resume));

    // Quit asks the run to stop, then waits for its final report.
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(commands.try_iter().collect::<Vec<_>>(), [Command::Quit]);
    assert!(app.quit && !app.should_exit());
    line_with(&screen(&app), &[" STOPPING "]);
    app.apply(Update::Finished(Box::new(tigris_report())));
    assert!(app.should_exit());
}

#[test]
fn a_vanished_simulation_is_a_failure_and_quitting_then_needs_no_answer() {
    let (mut app, commands) = live_app();
    drop(commands);
    app.disconnected();
    let failed = Run::Failed("the simulation ended without a final report".into());
    assert!(matches!(&app.mode, Mode::Live(live) if live.run == failed));
    app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(app.should_exit());
}

#[test]
fn odd_reports_draw_without_panicking() {
    let mut empty = plain_report();
    empty.totals = Totals {
        cycles: 0,
        instructions: 0,
        cpi: 0.0,
        seconds: 0.0,
        stall_cycles: 0,
    };
    empty.board.clock_hz = 0;
    empty.functions.clear();
    empty.console.clear();
    empty.timeline = None;
    let mut no_stages = tigris_report();
    let tigris = no_stages.tigris.as_mut().unwrap();
    tigris.stages.clear();
    tigris.timeline.clear();
    tigris.plan = None;
    tigris.arenas = None;
    let mut in_progress = tigris_report();
    let stage = &mut in_progress.tigris.as_mut().unwrap().stages[1];
    stage.figures.cycles = 0;
    stage.tiles[1].figures.cycles = 0;
    let mut empty_tigris = empty.clone();
    empty_tigris.tigris = no_stages.tigris.clone();

    for report in [empty, no_stages, in_progress, empty_tigris] {
        let mut app = App::replay(report);
        for code in [
            KeyCode::Down,
            KeyCode::Char('+'),
            KeyCode::Left,
            KeyCode::Char('n'),
            KeyCode::Char('P'),
        ] {
            press(&mut app, code);
            for (width, height) in [(80, 24), (120, 36), (200, 60)] {
                let lines = screen_lines(&render(&app, width, height));
                assert!(lines[height as usize - 1].contains("q quit"));
            }
        }
    }
}

#[test]
fn a_stage_in_progress_runs_to_the_shown_cycle() {
    let mut report = tigris_report();
    let stage = &mut report.tigris.as_mut().unwrap().stages[1];
    stage.figures.cycles = 0;
    stage.tiles[1].figures.cycles = 0;
    let snapshot = Snapshot::at_end(&report);
    assert_eq!(snapshot.stage_span(1), Some((5_000, 10_000)));
    assert_eq!(snapshot.tile_span(1, 1), Some((7_000, 10_000)));
    assert_eq!(snapshot.tile_span(1, 0), Some((5_100, 7_000)));
}

/// A run whose firmware switched the core clock: the header and the run box give the simulated
/// time at the clocks the core ran at, and the timeline's axis counts cycles (they are not
/// proportional to time then).
#[test]
fn a_clock_switch_is_timed_piecewise_and_the_axis_counts_cycles() {
    let mut report = plain_report();
    // 5,000 cycles at CLOCK_HZ, then 5,000 at twice that: 1.5 × the time of 5,000 at CLOCK_HZ.
    report.board.clock_changes = vec![ClockChange {
        cycle: 5_000,
        hz: 2 * CLOCK_HZ,
    }];
    let lines = screen(&App::replay(report));
    let expect = crate::format::time(7_500, CLOCK_HZ);
    let header = line_with(&lines, &[&format!("{expect} of {expect}"), "from 1 MHz"]);
    // Too long for the screen: cut with an ellipsis.
    assert!(header.trim_end().ends_with('\u{2026}'), "{header}");
    line_with(&lines, &["time", &expect]);
    line_with(&lines, &["cycles", "│2,000", "│4,000"]);
}

/// Replay at the start (`Home`): the placeholder of the empty call-stack chart is whole, not
/// overwritten by the cursor's line.
#[test]
fn the_empty_chart_placeholder_is_not_hidden_by_the_cursor() {
    let mut app = App::replay(plain_report());
    press(&mut app, KeyCode::Home);
    assert_eq!(cursor(&app), 0);
    let lines = screen(&app);
    line_with(&lines, &["\u{2502}no samples yet"]);
}

/// Where a live run paused by `n` at cycle `cycles` of `tigris_report`: the report cut there, the
/// stage or tile that begins there with no figures yet.
fn paused_at(cycles: u64) -> Report {
    let mut report = tigris_report();
    report.totals.cycles = cycles;
    let tigris = report.tigris.as_mut().unwrap();
    tigris.stages.retain(|s| s.start_cycle <= cycles);
    for stage in &mut tigris.stages {
        stage.tiles.retain(|t| t.start_cycle <= cycles);
    }
    tigris.timeline.retain(|e| e.cycle <= cycles);
    report
}

fn window_of(app: &App) -> (u64, u64) {
    let window = app.view.window(&app.snapshot().unwrap());
    (window.start, window.start + window.span)
}

/// `n` from `--paused`: the set-up before the first stage takes most of the run so far, yet the
/// timeline starts at the first stage, so that the stages show at a readable width.
#[test]
fn stepping_to_a_stage_shows_the_stages_not_the_set_up_before_them() {
    let (mut app, _commands) = live_app();
    // 8 ms of set-up, stage 0 from 8,000 to 8,400, stage 1 begins at 8,400.
    let stages = vec![
        TigrisStage {
            op_names: vec!["conv0".into()],
            ..stage(0, "normal", 8_000, figures(400), vec![])
        },
        stage(1, "normal", 8_400, figures(0), vec![]),
    ];
    let timeline = vec![
        event(8_000, "stage_begin"),
        event(8_400, "stage_end"),
        event(8_400, "stage_begin"),
    ];
    let report = Report {
        tigris: Some(tigris(stages, timeline)),
        ..report(CLOCK_HZ, 8_400)
    };
    app.apply(progress(report, true));
    assert_eq!(window_of(&app), (8_000, 8_400));
    let lines = screen(&app);
    // The whole label fits: stage 0 fills the chart, not 5 of its 105 columns.
    line_with(&lines, &["S0 normal", "conv0 0.400 ms"]);
    line_with(&lines, &["time", "\u{2502}8.0 ms", "\u{2502}8.3 ms"]);
    // Home scrolls to the first stage; nothing before it is a stage chart's.
    press(&mut app, KeyCode::Home);
    assert_eq!(window_of(&app), (8_000, 8_400));
}

/// Resuming with a tile selected: the window follows the run until the tile would leave it, then
/// stays on it; End (or scrolling) hands the window back to following.
#[test]
fn a_selected_tile_stays_in_view_while_the_run_goes_on() {
    let (mut app, _commands) = live_app();
    app.apply(progress(tigris_report(), true));
    press(&mut app, KeyCode::Char('+'));
    // Tile 1 (7,000-8,950) is in the following window 5,500-10,000: selecting it scrolls nothing.
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(1)
        })
    );
    assert_eq!(window_of(&app), (5_500, 10_000));
    let went_on = |cycles| {
        let mut report = tigris_report();
        report.totals.cycles = cycles;
        progress(report, false)
    };
    // Following would show 10,500-20,000: the window stops with the tile at its left edge.
    app.apply(went_on(20_000));
    assert_eq!(window_of(&app), (7_000, 16_500));
    assert!(contains(&screen(&app), "[tile 1"));
    app.apply(went_on(30_000));
    assert_eq!(window_of(&app).0, 7_000);
    // End follows the run again, selection or not.
    press(&mut app, KeyCode::End);
    app.apply(went_on(40_000));
    assert_eq!(window_of(&app), (20_500, 40_000));
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(1)
        })
    );
}

/// Paused at a tile's start, the tile's halo rows are known (from its rows) but not its halo's
/// bytes and cycles: they show as pending, not as 0, until the tile has them.
#[test]
fn an_unfinished_tile_shows_its_halo_figures_as_pending() {
    let (mut app, _commands) = live_app();
    let mut report = paused_at(7_000);
    let tigris = report.tigris.as_mut().unwrap();
    tigris.stages[1].tiles[1].figures = TigrisFigures {
        halo_rows: 2,
        ..Default::default()
    };
    app.apply(progress(report, true));
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.view.selected,
        Some(Item {
            stage: 1,
            tile: Some(1)
        })
    );
    let lines = screen(&app);
    assert!(contains(
        &lines,
        " so far: Tile 1 of stage 1 (tiled), rows [8,20) "
    ));
    // At 80 columns the title is cut, its mark kept.
    let narrow = screen_lines(&render(&app, 80, 24));
    line_with(
        &narrow,
        &[
            "\u{2510}",
            " so far: Tile 1 of stage 1 (tiled)",
            "\u{2026}\u{2510}",
        ],
    );
    line_with(&lines, &["halo", "2 rows  (B, cyc pending)"]);
    assert!(!contains(&lines, "0 B  0 cyc"));

    // Its stage ended: the tile has its figures.
    let mut ended = tigris_report();
    ended.tigris.as_mut().unwrap().stages[1].tiles[1]
        .figures
        .halo_bytes = 256;
    app.apply(progress(ended, true));
    let lines = screen(&app);
    assert!(contains(&lines, " Tile 1 of stage 1 (tiled), rows [8,20) "));
    line_with(&lines, &["halo", "2 rows  256 B  0 cyc"]);
    // Earlier tiles ended when the next began.
    press(&mut app, KeyCode::Up);
    assert!(contains(
        &screen(&app),
        " Tile 0 of stage 1 (tiled), rows [0,11) "
    ));
}

#[test]
fn help_lists_every_key_the_view_handles() {
    for (mut app, mode_keys) in [
        (live_app().0, &["space", "n", "N or s", "Home / End"][..]),
        (
            App::replay(tigris_report()),
            &["space", "n / p", "N or s / P", "Home / End"][..],
        ),
    ] {
        app.apply(progress(tigris_report(), false));
        press(&mut app, KeyCode::Char('?'));
        for (width, height) in [(80, 24), (120, 36)] {
            let lines = screen_lines(&render(&app, width, height));
            let view_keys = [
                "+ (=) / -",
                "\u{2190} / \u{2192}",
                "\u{2193} Tab / \u{2191} Shift-Tab",
                "? ",
                "Esc closes it too",
                "q, Esc, Ctrl-C",
            ];
            for key in mode_keys.iter().chain(&view_keys) {
                assert!(
                    contains(&lines, key),
                    "{key} missing:\n{}",
                    lines.join("\n")
                );
            }
            // Whole: the widest meaning is not cut at the minimum size.
            line_with(
                &lines,
                &["select the next / previous tile: its figures show"],
            );
        }
    }
}

/// On a tall terminal the timeline gets 40% of the screen even when its chart is short.
#[test]
fn a_tall_terminal_gives_the_timeline_a_fair_share() {
    let lines = screen_lines(&render(&App::replay(tigris_report()), 200, 50));
    let top = lines
        .iter()
        .position(|l| l.starts_with("\u{250c} Timeline"))
        .unwrap();
    let bottom = top
        + lines[top..]
            .iter()
            .position(|l| l.starts_with('\u{2514}'))
            .unwrap();
    assert!(
        bottom - top + 1 >= 19,
        "timeline {} of 48 rows",
        bottom - top + 1
    );
    // The panels below still show.
    line_with(&lines, &["tigris_conv2d_s8"]);
    line_with(&lines, &["last line"]);
}

/// A console line wider than the panel wraps, and the newest lines stay at the bottom.
#[test]
fn long_console_lines_wrap_and_the_newest_stay_visible() {
    let mut report = plain_report();
    let long = format!("{}END", "x".repeat(100));
    report.console = (1..=40).map(|i| format!("console line {i}\n")).collect();
    report.console.push_str(&format!("{long}\nnewest\n"));
    let lines = screen(&App::replay(report));
    let newest = lines.iter().position(|l| l.contains("newest")).unwrap();
    // 120 columns: the console's inside is 58 wide, so the long line takes two rows above.
    assert!(lines[newest - 1].contains("xxEND"), "{}", lines.join("\n"));
    assert!(lines[newest - 2].contains(&"x".repeat(58)));
    assert!(lines[newest - 3].contains("console line 40"));
    assert!(
        lines[newest + 1].starts_with('\u{2514}'),
        "newest is the last row"
    );
}

#[test]
fn wrapping_counts_display_columns() {
    assert_eq!(crate::draw::wrap("abcdef", 4), ["abcd", "ef"]);
    assert_eq!(crate::draw::wrap("", 4), [""]);
    assert_eq!(
        crate::draw::wrap("\u{65e5}\u{672c}\u{8a9e}", 4),
        ["\u{65e5}\u{672c}", "\u{8a9e}"]
    );
    // Narrower than a wide character: one a row rather than none.
    assert_eq!(
        crate::draw::wrap("\u{65e5}\u{672c}", 1),
        ["\u{65e5}", "\u{672c}"]
    );
}

#[test]
fn v_shows_each_tensor_view_in_turn_then_the_hot_functions_again() {
    let mut report = plain_report();
    report.views = vec![
        tensor_view("weights", 2, 3, &[0, 10, 20, 30, 40, 50]),
        TensorViewProfile {
            heatmap: None,
            ..tensor_view("bias", 1, 2, &[7])
        },
    ];
    let mut app = App::replay(report);
    assert!(contains(&screen(&app), "Hot functions"));
    press(&mut app, KeyCode::Char('v'));
    let lines = screen(&app);
    line_with(&lines, &["View weights (1/2)"]);
    line_with(&lines, &["read 150 B", "written 0 B"]);
    // Row 0's cells: none, then a little, then more; row 1 ends with the busiest, full.
    line_with(
        &lines,
        &["   0 \u{b7}\u{b7}\u{2591}\u{2591}\u{2592}\u{2592}"],
    );
    line_with(
        &lines,
        &["   1 \u{2593}\u{2593}\u{2588}\u{2588}\u{2588}\u{2588}"],
    );
    press(&mut app, KeyCode::Char('v'));
    let lines = screen(&app);
    line_with(&lines, &["View bias (2/2)"]);
    line_with(&lines, &["tile    0: read 7 B"]);
    press(&mut app, KeyCode::Char('v'));
    assert!(contains(&screen(&app), "Hot functions"));
}
