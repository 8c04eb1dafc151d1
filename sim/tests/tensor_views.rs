//! Tensor views (`run --views`, `--view`; docs/views.md): the tiled GEMM's traffic per matrix and
//! tile follows from its loop order, and every rule of the views file is refused with the view
//! and field named.

mod common;
use common::{elf, run, sim, temp_path};
use serde_json::Value;

// programs/gemm_tiled.c: C[M,N] = A[M,K] B[K,N] in BM x BN x BK blocks.
const M: u64 = 32;
const N: u64 = 48;
const K: u64 = 64;
const BM: u64 = 8;
const BN: u64 = 16;
const BK: u64 = 16;
const VIEWS: &str = "firmware/programs/gemm_tiled.views.toml";

fn view<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["views"]
        .as_array()
        .expect("the report has views")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no view {name} in the report"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

/// The per-tile figure `field` of every tile of `v`.
fn per_tile(v: &Value, field: &str) -> Vec<u64> {
    v["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| u(&t[field]))
        .collect()
}

/// The GEMM's views on `board`: every count the loop order implies; the report's C view.
fn check_gemm(board: &str, program: &str) -> Value {
    let (code, report, stdout) = run(board, &elf(board, program), &["--views", VIEWS]);
    // The firmware checks its own result: exit code 1 when the checksum is wrong.
    assert_eq!(code, 0, "{stdout}");

    // A (row-major int8): each element read once per column block of C, N / BN times (written by
    // the start-up code's .bss clearing and by main).
    let a = view(&report, "A");
    assert_eq!(u(&a["bytes"]), M * K);
    assert_eq!(u(&a["distinct_read_bytes"]), M * K);
    assert_eq!(u(&a["read_bytes"]), M * K * (N / BN));
    assert_eq!(a["reread_factor"].as_f64(), Some((N / BN) as f64));
    assert_eq!(u(&a["distinct_bytes"]), M * K);
    assert_eq!(a["grid"], serde_json::json!([M / BM, K / BK]));
    let a_tile = BM * BK * (N / BN);
    assert_eq!(per_tile(a, "read_bytes"), vec![a_tile; 16]);

    // B (column-major int8): each element read once per row block, M / BM times.
    let b = view(&report, "B");
    assert_eq!(u(&b["read_bytes"]), K * N * (M / BM));
    assert_eq!(b["reread_factor"].as_f64(), Some((M / BM) as f64));
    assert_eq!(u(&b["distinct_bytes"]), K * N);
    let b_tile = BK * BN * (M / BM);
    assert_eq!(per_tile(b, "read_bytes"), vec![b_tile; 12]);

    // C (tiled int32): every tile written once, whole, never read; first touched column block by
    // column block, as the kernel's loops run.
    let c = view(&report, "C");
    assert_eq!(u(&c["write_bytes"]), M * N * 4);
    assert_eq!(u(&c["read_bytes"]), 0);
    assert_eq!(c["reread_factor"].as_f64(), Some(0.0));
    assert_eq!(per_tile(c, "write_bytes"), vec![BM * BN * 4; 12]);
    assert_eq!(per_tile(c, "elements"), vec![BM * BN; 12]);
    let tiles_per_row = N / BN;
    let order: Vec<u64> = (0..N / BN)
        .flat_map(|jb| (0..M / BM).map(move |ib| ib * tiles_per_row + jb))
        .collect();
    let first: Vec<u64> = c["first_touch"].as_array().unwrap().iter().map(u).collect();
    assert_eq!(first, order);
    // Tiles written later start later.
    let tiles = c["tiles"].as_array().unwrap();
    let starts: Vec<u64> = order
        .iter()
        .map(|&t| u(&tiles[t as usize]["first_cycle"]))
        .collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
    assert_eq!(
        per_tile(c, "stall_cycles").iter().sum::<u64>(),
        u(&c["stall_cycles"])
    );
    c.clone()
}

#[test]
fn gemm_views_on_a_cortex_m_board_follow_the_loop_order() {
    check_gemm("mps2-an386", "gemm_tiled");
}

#[test]
fn gemm_views_on_esp32s3_follow_the_loop_order_and_price_psram() {
    let c = check_gemm("esp32s3", "gemm_tiled-windowed");
    assert_eq!(c["region"], "psram");
    assert!(u(&c["stall_cycles"]) > 0, "C lies in PSRAM: {c}");
}

#[test]
fn a_one_line_view_matches_the_file() {
    let elf = elf("mps2-an386", "gemm_tiled");
    let (code, report, _) = run(
        "mps2-an386",
        &elf,
        &["--view", "A@matrix_a:int8:32x64:m,k:m=8,k=16"],
    );
    assert_eq!(code, 0);
    let a = view(&report, "A");
    assert_eq!(u(&a["read_bytes"]), M * K * (N / BN));
    assert_eq!(per_tile(a, "read_bytes").len(), 16);
}

#[test]
fn no_views_no_views_object() {
    let (code, report, _) = run("mps2-an386", &elf("mps2-an386", "gemm_tiled"), &[]);
    assert_eq!(code, 0);
    assert!(report.get("views").is_none());
}

/// `tigris-sim run --quiet` of the GEMM on mps2-an386 with `extra` options, without a report.
fn run_gemm(extra: &[&str]) -> std::process::Output {
    let elf = elf("mps2-an386", "gemm_tiled");
    let mut args = vec!["run", "--quiet", "--board", "mps2-an386", &elf];
    args.extend_from_slice(extra);
    sim(&args)
}

/// The report's TiGrIS stage that ran tiled.
fn tiled_stage(report: &Value) -> &Value {
    report["tigris"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == "tiled")
        .expect("a tiled stage")
}

/// A views file with the matrices' A view followed by `extra`; the run's exit code and stderr.
fn refused(view_a: &str, extra: &str) -> String {
    let path = temp_path("views.toml");
    std::fs::write(&path, format!("{view_a}\n{extra}")).unwrap();
    let file = path.to_string_lossy().into_owned();
    let out = run_gemm(&["--views", &file]);
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(0), "accepted:\n{view_a}\n{extra}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains(&file), "the file is named: {stderr}");
    stderr
}

const A: &str = r#"[[view]]
name = "A"
at = "matrix_a"
dtype = "int8"
shape = [32, 64]
axes = ["m", "k"]
"#;

/// A view named `name` on matrix_b with the given extra lines.
fn b_view(lines: &str) -> String {
    format!("[[view]]\nname = \"B\"\nat = \"matrix_b\"\ndtype = \"int8\"\n{lines}\n")
}

#[test]
fn each_rule_of_a_view_is_refused_with_view_and_field_named() {
    let cases: &[(&str, &str)] = &[
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\ncolour = \"red\"",
            "view \"B\" (view[1]): colour: unknown field",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\ndtype2 = 1",
            "dtype2: unknown field",
        ),
        (
            "shape = [64, 48]",
            "view \"B\" (view[1]): axes: missing: a view of rank 2",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\"]",
            "axes: 1 names for a shape of rank 2",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"\"]",
            "axes[1]: an axis name must not be empty",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"k\"]",
            "axes[1]: axis `k` is named twice",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\ntile = { n = 0 }",
            "tile.n: a tile size must be > 0",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\ntile = { q = 4 }",
            "tile.q: `q` is not an axis of the view (axes: k, n)",
        ),
        (
            "shape = []\ntile = { k = 1 }",
            "tile: a rank-0 view cannot be tiled",
        ),
        (
            "shape = []\nlayout = { tiled = { tile = [] } }",
            "a tiled layout is not allowed for a rank-0 (scalar) tensor",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\nlayout = { tiled = { tile = [16, 0] } }",
            "layout.tiled.tile[1]: a tile size must be > 0",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\nlayout = { strided = [1] }",
            "layout.strided: expected 2 entries (one per dimension), got 1",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\nlayout = \"diagonal\"",
            "layout: `diagonal`: expected",
        ),
        (
            "shape = [64, 48]\naxes = [\"k\", \"n\"]\npermute = [\"n\"]",
            "permute: must list each of the 2 axes once",
        ),
        (
            "shape = [64, 49]\naxes = [\"k\", \"n\"]",
            "shape: the layout needs 3136 bytes but the symbol is 3072 bytes",
        ),
        (
            "shape = [64, 0]\naxes = [\"k\", \"n\"]",
            "the view holds no element",
        ),
    ];
    for (lines, want) in cases {
        let err = refused(A, &b_view(lines));
        assert!(err.contains(want), "{lines}: want `{want}` in:\n{err}");
    }
}

#[test]
fn element_types_names_and_places_are_checked() {
    let bad_dtype = A.replace("int8", "int7");
    let err = refused(&bad_dtype, "");
    assert!(
        err.contains("view \"A\" (view[0]): dtype: unknown element type `int7` (known: "),
        "{err}"
    );
    let err = refused(&A.replace("name = \"A\"", "name = \" \""), "");
    assert!(err.contains("name: must not be empty"), "{err}");
    let err = refused(&A.replace("matrix_a", "no_such_buffer"), "");
    assert!(
        err.contains("at: no symbol `no_such_buffer` in the ELF"),
        "{err}"
    );
    // An address in no region, and a view running past its region's end.
    let err = refused(&A.replace("\"matrix_a\"", "0xf0000000"), "");
    assert!(
        err.contains("at: 0xf0000000 is in no memory region of board mps2-an386"),
        "{err}"
    );
    let err = refused(&A.replace("\"matrix_a\"", "\"0x003ffff0\""), "");
    assert!(err.contains("runs past the end of region"), "{err}");
    let err = refused("[view]\nname = 1", "");
    assert!(
        err.contains("`view` must be an array of tables ([[view]])"),
        "{err}"
    );
    let err = refused("[[views]]", "");
    assert!(err.contains("unknown key `views`"), "{err}");
    let err = refused("[[view]\n", "");
    assert!(err.contains("not valid TOML"), "{err}");
}

#[test]
fn recursive_tiling_is_capped() {
    let mut tiled = "{ tile = [1, 1] }".to_string();
    for _ in 0..9 {
        tiled = format!("{{ tile = [1, 1], inner = {{ tiled = {tiled} }} }}");
    }
    let lines = format!("shape = [64, 48]\naxes = [\"k\", \"n\"]\nlayout = {{ tiled = {tiled} }}");
    let err = refused(A, &b_view(&lines));
    assert!(
        err.contains("recursive tiling nests deeper than the cap of 8 levels"),
        "{err}"
    );
}

#[test]
fn views_across_the_file_agree_and_overlaps_are_said() {
    let err = refused(
        A,
        &A.replace("shape = [32, 64]", "shape = [64, 32]")
            .replace("\"A\"", "\"A2\""),
    );
    assert!(
        err.contains("view \"A2\" (view[1]): axes[0]: axis `m` has extent 64 and tile 64, but in "),
        "{err}"
    );
    assert!(
        err.contains("view \"A\" (view[0]) extent 32 and tile 32: same-name axes must agree"),
        "{err}"
    );
    let err = refused(A, A);
    assert!(
        err.contains("view \"A\" (view[1]): name: \"A\" is also the name of "),
        "{err}"
    );
    assert!(
        err.contains("view \"A\" (view[0]): view names must be unique"),
        "{err}"
    );
    // Same extents, other names: accepted, and the overlap is said.
    let path = temp_path("overlap.toml");
    let second = A
        .replace("\"A\"", "\"A_rows\"")
        .replace("\"m\", \"k\"", "\"row\", \"col\"");
    std::fs::write(&path, format!("{A}\n{second}")).unwrap();
    let file = path.to_string_lossy().into_owned();
    let (code, report, _) = run(
        "mps2-an386",
        &elf("mps2-an386", "gemm_tiled"),
        &["--views", &file],
    );
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0);
    assert_eq!(
        view(&report, "A")["read_bytes"],
        view(&report, "A_rows")["read_bytes"]
    );
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let notes = notes.join("\n");
    assert!(
        notes.contains("views \"A\" and \"A_rows\" overlap"),
        "{notes}"
    );
}

#[test]
fn a_bad_one_line_view_names_the_option() {
    for (arg, want) in [
        (
            "A:matrix_a",
            "--view: view[0]: view: expected NAME@AT:DTYPE:SHAPE",
        ),
        (
            "A@matrix_a:int8:32by64",
            "--view: view \"A\": shape: `32by64` is not a size",
        ),
        (
            "A@matrix_a:int8:32x64:m,k:m8",
            "tile: `m8`: expected AXIS=SIZE",
        ),
    ] {
        let out = run_gemm(&["--view", arg]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{arg}");
        assert!(stderr.contains(want), "{arg}: want `{want}` in {stderr}");
    }
}

/// The shipped TiGrIS example: its tiled stage (3) reads conv2_out in 4 overlapping row bands.
const TIGRIS_EXAMPLE: &str = "examples/esp32s3-tigris.elf";

#[test]
fn a_one_row_view_of_the_tiled_stages_input_shows_each_halo_rows_extra_reads() {
    let path = temp_path("halo.toml");
    std::fs::write(
        &path,
        "[[view]]\ntigris = \"conv2_out\"\nname = \"conv3 input by row\"\ntile = { h = 1 }\n",
    )
    .unwrap();
    let file = path.to_string_lossy().into_owned();
    let (code, report, _) = run("esp32s3", TIGRIS_EXAMPLE, &["--views", &file]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0);
    let views = report["views"].as_array().unwrap();
    assert_eq!(views.len(), 1, "only the declared activation gets a view");
    let v = view(&report, "conv3 input by row");
    assert_eq!(v["axes"], serde_json::json!(["n", "h", "w", "c"]));
    let rows = u(&v["shape"][1]);
    let row_bytes = u(&v["bytes"]) / rows;
    assert_eq!(v["grid"], serde_json::json!([1, rows, 1, 1]));

    // The stage reading it, as the TiGrIS profile reports it: its tiles' input rows and halo rows.
    let stage = tiled_stage(&report);
    let mut loads = vec![0u64; rows as usize];
    for tile in stage["tiles"].as_array().unwrap() {
        for r in u(&tile["rows"][0])..u(&tile["rows"][1]) {
            loads[r as usize] += 1;
        }
    }
    // Each row is read once by the tile loads that cover it (written once by the stage before).
    let per_row = per_tile(v, "read_bytes");
    let loaded: Vec<u64> = loads.iter().map(|n| n * row_bytes).collect();
    assert_eq!(per_row, loaded);
    let extra_rows: u64 = per_row.iter().map(|b| b / row_bytes - 1).sum();
    assert_eq!(extra_rows, u(&stage["halo_rows"]));
    assert!(extra_rows > 0);
    assert_eq!(per_tile(v, "write_bytes"), vec![row_bytes; rows as usize]);
}

#[test]
fn tigris_views_cover_every_activation_in_the_slow_arena_in_tile_bands() {
    let (code, report, _) = run("esp32s3", TIGRIS_EXAMPLE, &["--tigris-views"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = report["views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"conv2_out"), "{names:?}");
    let stage = tiled_stage(&report);
    let band = u(&stage["predicted"]["tile_height"]);
    // The tiled stage's input: bands of its tile height; its reads are what it loaded.
    let v = view(&report, "conv2_out");
    assert_eq!(u(&v["tile"][1]), band);
    assert_eq!(u(&v["read_bytes"]), u(&stage["load_bytes"]));
    // Deterministic, and a run without views has none.
    let (_, again, _) = run("esp32s3", TIGRIS_EXAMPLE, &["--tigris-views"]);
    assert_eq!(report["views"], again["views"]);
    let (_, plain, _) = run("esp32s3", TIGRIS_EXAMPLE, &[]);
    assert!(plain.get("views").is_none());
    assert_eq!(
        plain["totals"], report["totals"],
        "views do not change the timing"
    );
}

#[test]
fn tigris_views_need_the_runtime_and_name_only_plan_tensors() {
    let out = run_gemm(&["--tigris-views"]);
    assert_ne!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not link it"), "{stderr}");
    let err = refused(A, "[[view]]\ntigris = \"conv2_out\"\ndtype = \"int8\"\n");
    assert!(
        err.contains("view[1]: dtype: not allowed with `tigris`"),
        "{err}"
    );
    let err = refused(A, "[[view]]\ntigris = \"conv2_out\"\ntile = { y = 2 }\n");
    assert!(
        err.contains("tile.y: `y` is not an axis of the view (axes: n, h, w, c)"),
        "{err}"
    );
    let err = refused(A, "[[view]]\ntigris = \"\"\n");
    assert!(
        err.contains("tigris: must name a tensor of the plan"),
        "{err}"
    );
    // A tensor the runtime never places: said in the report.
    let path = temp_path("never.toml");
    std::fs::write(&path, "[[view]]\ntigris = \"no_such_tensor\"\n").unwrap();
    let file = path.to_string_lossy().into_owned();
    let (code, report, _) = run("esp32s3", TIGRIS_EXAMPLE, &["--views", &file]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0);
    assert!(report.get("views").is_none());
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("never placed that tensor in the slow arena"),
        "{notes}"
    );
}
