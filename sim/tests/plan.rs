//! The `.tgrs` plan reader agrees with TiGrIS itself: `tigris-sim plan inspect --json` is compared
//! field by field with `tigris inspect --json` (tigris-ml, the compiler's own reader) on
//! - plans compiled here by `tigris compile` from small ONNX models that sim/tests/tigris/make_models.py
//!   builds with the `onnx` package, at several budgets (tiles, 2D tiles, chains, line buffering,
//!   grouped reductions at schema 10, int8 QDQ, residual add, LZ4 weight blocks, XIP, unnamed plans);
//! - every schema-compatibility plan of the tigris-ml sdist (schema 2 to 10), vendored in
//!   sim/tests/tigris/fixtures/;
//! - schema-1 plans compiled by tigris-ml 0.3.1 (the last release that writes schema 1, the schema of
//!   the public tigris-runtime) from the same models, compared with that release's own reader
//!   `read_binary_plan()` (it has no `inspect` command) through sim/tests/tigris/read_plan_v1.py.
//!
//! Needs python3 with `tigris-ml` and `onnx` (scripts/test.sh installs the pinned versions); without
//! them the tests fail and say so. The schema-1 test needs tigris-ml 0.3.1 in its own directory
//! (scripts/test.sh: `pip install --no-deps --target .deps/tigris-ml-0.3.1`, or `$TIGRIS_ML_V1_DIR`)
//! and skips, saying so, when it is absent.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

const TIGRIS_VERSION: &str = "0.12.1";
const INSTALL: &str =
    "python3 -m pip install tigris-ml==0.12.1 onnx==1.23.2 (scripts/test.sh does this)";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tigris")
}

/// The `tigris` CLI, found and checked once: the console script next to the python3 that has the
/// package (pip may not refresh a version manager's shims), else `tigris` on PATH. A missing python,
/// package or command fails every test that needs it.
fn tigris() -> &'static str {
    static FOUND: OnceLock<Result<String, String>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let script = "import os, sys, onnx, tigris\nprint(tigris.__version__)\n\
                      print(os.path.join(os.path.dirname(sys.executable), 'tigris'))";
        let out = match Command::new("python3").args(["-c", script]).output() {
            Err(e) => return Err(format!("python3 cannot be run ({e})")),
            Ok(o) if !o.status.success() => {
                let err = String::from_utf8_lossy(&o.stderr);
                return Err(format!("python3 lacks tigris-ml or onnx ({})", err.trim().lines().last().unwrap_or("")));
            }
            Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        };
        let mut lines = out.lines();
        let version = lines.next().unwrap_or("").trim().to_string();
        if version != TIGRIS_VERSION {
            eprintln!("note: tigris-ml {version} installed, these tests were written against {TIGRIS_VERSION}");
        }
        let beside = lines.next().unwrap_or("").trim().to_string();
        for cmd in [beside.as_str(), "tigris"] {
            if matches!(Command::new(cmd).arg("--version").output(), Ok(o) if o.status.success()) {
                return Ok(cmd.to_string());
            }
        }
        Err(format!("the `tigris` command runs neither as {beside} nor from PATH"))
    });
    match found {
        Ok(cmd) => cmd,
        Err(e) => panic!("these tests compare with the TiGrIS compiler and need it: {e}. Install it with {INSTALL}."),
    }
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn sim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tigris-sim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tigris-sim")
}

fn official(plan: &Path) -> Value {
    let out = run(Command::new(tigris())
        .arg("inspect")
        .arg(plan)
        .arg("--json"));
    serde_json::from_slice(&out.stdout).expect("tigris inspect --json is JSON")
}

fn ours(plan: &Path) -> Value {
    let out = sim(&["plan", "inspect", "--json", plan.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "tigris-sim plan inspect {} failed: {}",
        plan.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("tigris-sim plan inspect --json is JSON")
}

/// (tag, theirs, ours) of every item, `threads` at a time, sorted by tag.
fn in_parallel<T: Sync>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> (String, Value, Value) + Sync,
) -> Vec<(String, Value, Value)> {
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(item) = items.get(i) else {
                    break;
                };
                let r = f(item);
                results.lock().unwrap().push(r);
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    results
}

/// Scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tigris-sim-plan-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ---------------------------------------------------------------------------------------------------
// Field-by-field comparison

/// Header fields both tigris readers (0.12.1 `inspect`, 0.3.1 `read_binary_plan()`) report, besides
/// `version`.
const HEADER_FIELDS: [&str; 10] = [
    "file_size",
    "num_tensors",
    "num_ops",
    "num_stages",
    "num_tile_plans",
    "num_weights",
    "num_quant_params",
    "flags",
    "budget",
    "peak",
];
/// The tables and lists both report.
const PLAN_LISTS: [&str; 10] = [
    "tensors",
    "ops",
    "stages",
    "tile_plans",
    "weights",
    "quant_params",
    "model_inputs",
    "model_outputs",
    "weight_blocks",
    "weight_blocks_compression",
];

struct Diff {
    plan: String,
    errors: Vec<String>,
}

impl Diff {
    fn new(plan: &str) -> Self {
        Diff {
            plan: plan.to_string(),
            errors: Vec::new(),
        }
    }

    /// Lists of equal length whose elements are equal, element by element.
    fn same_lists(&mut self, name: &str, theirs: &[Value], ours: &[Value]) {
        self.same(
            &format!("{name}.len"),
            &theirs.len().into(),
            &ours.len().into(),
        );
        for (i, (a, b)) in theirs.iter().zip(ours).enumerate() {
            self.same(&format!("{name}[{i}]"), a, b);
        }
    }

    /// Lists of equal length whose elements agree on `keys` (their key, our key); returns each pair
    /// with its path for further checks.
    fn same_fields<'v>(
        &mut self,
        name: &str,
        theirs: &'v [Value],
        ours: &'v [Value],
        keys: &[(&str, &str)],
    ) -> Vec<(String, &'v Value, &'v Value)> {
        self.same(
            &format!("{name}.len"),
            &theirs.len().into(),
            &ours.len().into(),
        );
        let mut pairs = Vec::new();
        for (i, (a, b)) in theirs.iter().zip(ours).enumerate() {
            let path = format!("{name}[{i}]");
            for (k, ok) in keys {
                self.field(&path, a, k, b, ok);
            }
            pairs.push((path, a, b));
        }
        pairs
    }

    /// Equal JSON values; numbers compare by value (an f32 scale prints the same either way).
    fn same(&mut self, path: &str, theirs: &Value, ours: &Value) {
        let equal = match (theirs, ours) {
            (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    false
                } else {
                    for (i, (x, y)) in a.iter().zip(b).enumerate() {
                        self.same(&format!("{path}[{i}]"), x, y);
                    }
                    true
                }
            }
            (Value::Object(a), Value::Object(b)) => {
                for (k, x) in a {
                    match b.get(k) {
                        Some(y) => self.same(&format!("{path}.{k}"), x, y),
                        None => self
                            .errors
                            .push(format!("{path}.{k}: tigris has {x}, we have no such field")),
                    }
                }
                true
            }
            _ => theirs == ours,
        };
        if !equal {
            self.errors
                .push(format!("{path}: tigris {theirs}, tigris-sim {ours}"));
        }
    }

    fn field(&mut self, path: &str, theirs: &Value, key: &str, ours: &Value, our_key: &str) {
        match theirs.get(key) {
            Some(t) => self.same(&format!("{path}.{key}"), t, &ours[our_key]),
            None => self
                .errors
                .push(format!("{path}.{key}: missing from tigris inspect output")),
        }
    }

    /// A field of the reference's plan object that no comparison here knows is an error, so a field
    /// it gains cannot go unchecked.
    fn unknown_fields(&mut self, p: &Value, extra: &[&str], who: &str) {
        let known: BTreeSet<&str> = ["version", "model_name"]
            .into_iter()
            .chain(HEADER_FIELDS)
            .chain(PLAN_LISTS)
            .chain(extra.iter().copied())
            .collect();
        for k in p.as_object().expect("plan object").keys() {
            if !known.contains(k.as_str()) {
                self.errors.push(format!(
                    "plan.{k}: a field of {who} this test does not compare"
                ));
            }
        }
    }

    fn finish(self) -> usize {
        assert!(
            self.errors.is_empty(),
            "{}: {} differences\n  {}",
            self.plan,
            self.errors.len(),
            self.errors.join("\n  ")
        );
        0
    }
}

fn list<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is not a list in {v}"))
}

/// Compare our reading of a plan with tigris inspect's, every field inspect reports.
fn compare(name: &str, t: &Value, o: &Value) {
    let mut d = Diff::new(name);
    let p = &t["plan"];
    d.unknown_fields(p, &["state", "subgraphs"], "tigris inspect");
    d.same("format", &t["format"], &o["format"]);
    d.same("file_size_bytes", &t["file_size_bytes"], &o["file_size"]);
    d.same("name", &t["name"], &o["model_name"]);
    d.field("plan", p, "version", o, "schema");
    d.field("plan", p, "model_name", o, "model_name");
    for k in HEADER_FIELDS {
        d.field("plan", p, k, &o["header"], k);
    }
    for k in ["model_inputs", "model_outputs"] {
        d.field("plan", p, k, o, k);
    }

    let (tt, ot) = (list(p, "tensors"), list(o, "tensors"));
    let tensor_keys = [
        ("name", "name"),
        ("size_bytes", "size_bytes"),
        ("shape", "shape"),
        ("dtype", "dtype"),
        ("flags", "flags"),
        ("quant_param_idx", "quant_param"),
        ("iface_dtype", "iface_dtype_code"),
        ("interface_dtype", "interface_dtype"),
        ("layout", "layout"),
    ];
    for (path, a, b) in d.same_fields("tensors", tt, ot, &tensor_keys) {
        d.same(
            &format!("{path}.ndim"),
            &a["ndim"],
            &b["shape"].as_array().map_or(0, Vec::len).into(),
        );
    }

    let (to, oo) = (list(p, "ops"), list(o, "ops"));
    let op_keys = [
        ("name", "name"),
        ("op_type", "type_code"),
        ("type", "type"),
        ("inputs", "inputs"),
        ("outputs", "outputs"),
        ("stage", "stage"),
        ("spatial", "spatial"),
        ("weight_idx", "weight"),
        ("bias_idx", "bias"),
        ("fused_act", "fused_act"),
        ("fused_activation", "fused_activation"),
        ("act_min", "act_min"),
        ("act_max", "act_max"),
    ];
    for (path, a, b) in d.same_fields("ops", to, oo, &op_keys) {
        let (ta, oa) = (list(a, "attributes"), list(b, "attributes"));
        d.same(
            &format!("{path}.attributes.len"),
            &ta.len().into(),
            &oa.len().into(),
        );
        for (j, (x, y)) in ta.iter().zip(oa).enumerate() {
            let ap = format!("{path}.attributes[{j}]");
            let kind = x["type"].as_str().unwrap_or("");
            if let Some(code) = kind
                .strip_prefix("unknown(")
                .and_then(|s| s.strip_suffix(')'))
            {
                // Kinds tigris inspect does not decode: it lists the payload bytes.
                d.same(
                    &format!("{ap}.code"),
                    &code.parse::<u64>().unwrap_or(0).into(),
                    &y["code"],
                );
                d.same(&format!("{ap}.values"), &x["values"], &y["bytes"]);
            } else {
                d.same(&format!("{ap}.type"), &x["type"], &y["kind"]);
                d.same(&format!("{ap}.values"), &x["values"], &y["values"]);
            }
        }
    }

    let (ts, os) = (list(p, "stages"), list(o, "stages"));
    d.same_fields(
        "stages",
        ts,
        os,
        &[
            ("peak_bytes", "peak_bytes"),
            ("ops", "ops"),
            ("inputs", "inputs"),
            ("outputs", "outputs"),
            ("tile_plan_idx", "tile_plan"),
            ("chain_id", "chain_id"),
            ("chain_len", "chain_len"),
            ("chain_tile_h", "chain_tile_h"),
            ("flags", "flags"),
        ],
    );

    // Tile plans: every field inspect reports (schema 10 adds the raw band fields and the summary it
    // re-derives, which we derive too).
    let (tp, op) = (list(p, "tile_plans"), list(o, "tile_plans"));
    d.same_lists("tile_plans", tp, op);

    let (tw, ow) = (list(p, "weights"), list(o, "weights"));
    d.same_lists("weights", tw, ow);

    let (tq, oq) = (list(p, "quant_params"), list(o, "quant_params"));
    d.same("quant_params.len", &tq.len().into(), &oq.len().into());
    for (i, (a, b)) in tq.iter().zip(oq).enumerate() {
        let path = format!("quant_params[{i}]");
        d.same(&path, a, b);
        if a.get("multipliers").is_none() {
            d.same(
                &format!("{path}.multipliers (absent: per-tensor)"),
                &Value::Array(vec![]),
                &b["multipliers"],
            );
        }
    }

    d.same(
        "weight_blocks_compression",
        &p["weight_blocks_compression"],
        &o["weight_blocks"]["compression_code"],
    );
    let (tb, ob) = (
        list(p, "weight_blocks"),
        list(&o["weight_blocks"], "blocks"),
    );
    d.same_fields(
        "weight_blocks",
        tb,
        ob,
        &[
            ("stage_idx", "stage"),
            ("first_weight_idx", "first_weight"),
            ("num_weights", "num_weights"),
            ("blob_offset", "blob_offset"),
            ("compressed_size", "compressed_size"),
            ("uncompressed_size", "uncompressed_size"),
        ],
    );

    d.field("state", &p["state"], "bytes", &o["state"], "bytes");
    let (te, oe) = (list(&p["state"], "entries"), list(&o["state"], "entries"));
    d.same_fields(
        "state.entries",
        te,
        oe,
        &[
            ("input", "input"),
            ("output", "output"),
            ("offset", "offset"),
            ("bytes", "size_bytes"),
            ("initial", "size_bytes"),
        ],
    );

    let (tg, og) = (list(p, "subgraphs"), list(o, "subgraphs"));
    d.same_lists("subgraphs", tg, og);

    d.same("requirements", &t["requirements"], &o["requirements"]);

    let mut counts = serde_json::Map::new();
    for op in oo {
        let k = op["type"].as_str().unwrap().to_string();
        let n = counts.get(&k).and_then(Value::as_u64).unwrap_or(0);
        counts.insert(k, (n + 1).into());
    }
    d.same(
        "operator_counts",
        &t["operator_counts"],
        &Value::Object(counts),
    );
    d.finish();
}

/// Checks of the planner predictions that tigris inspect does not print but its figures imply.
fn check_predictions(name: &str, o: &Value) {
    let budget = o["header"]["budget"].as_u64().unwrap();
    let tensors = list(o, "tensors");
    for st in list(o, "stages") {
        let p = &st["prediction"];
        let i = st["index"].as_u64().unwrap();
        if let Some(c) = p["chain"].as_object() {
            if c["position"] == 0 {
                // Our re-computation of the chain's tile bytes reproduces the planner's solve: the
                // stored tile height fits the budget and one more row would not (unless capped).
                let (bytes, next) = (
                    c["tile_bytes"].as_u64().unwrap(),
                    c["next_height_bytes"].as_u64().unwrap(),
                );
                assert!(
                    bytes <= budget,
                    "{name} stage {i}: chain tile of {bytes} bytes over budget {budget}"
                );
                assert!(
                    next > budget || c["tile_h"] == c["output_rows"],
                    "{name} stage {i}: a chain tile one row higher ({next} bytes) would fit budget {budget}"
                );
                assert_eq!(st["chain_tile_h"], c["tile_h"], "{name} stage {i}");
                assert_eq!(st["line_buffered"], c["line_buffered"], "{name} stage {i}");
                let tiles = p["tiles"].as_u64().unwrap();
                let (rows, h) = (
                    c["output_rows"].as_u64().unwrap(),
                    c["tile_h"].as_u64().unwrap(),
                );
                assert_eq!(tiles, rows.div_ceil(h), "{name} stage {i}: chain tiles");
            }
        }
        // Where the plan stores the overhead (schema <= 9, 1D tiles) it is the halo rows of the stage
        // input per tile boundary: the estimate we give for schema 10, checked here on stored values.
        if p["execution"] == "tiled"
            && p["axis"] == 1
            && !p["overhead_estimated"].as_bool().unwrap()
        {
            let tp = &list(o, "tile_plans")[st["tile_plan"].as_u64().unwrap() as usize];
            if tp["record"] == "v9" {
                let input = list(st, "inputs")
                    .iter()
                    .map(|t| &tensors[t.as_u64().unwrap() as usize])
                    .find(|t| matches!(t["shape"].as_array().map(Vec::len), Some(3 | 4)));
                let (halo, h, n) = (
                    tp["halo"].as_u64().unwrap(),
                    tp["original_height"].as_u64().unwrap(),
                    tp["num_tiles"].as_u64().unwrap(),
                );
                if let (Some(t), true) = (input, h > 0) {
                    let est = t["size_bytes"].as_u64().unwrap() * halo / h * n.saturating_sub(1);
                    assert_eq!(
                        p["overhead_bytes"].as_u64().unwrap(),
                        est,
                        "{name} stage {i}: stored overhead vs estimate"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Tests

#[test]
fn schema_compat_fixtures_read_as_tigris_reads_them() {
    let dir = tests_dir().join("fixtures/schema_compat");
    let mut seen = BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "tgrs"));
    files.sort();
    for f in &files {
        let (t, o) = (official(f), ours(f));
        compare(&f.file_name().unwrap().to_string_lossy(), &t, &o);
        check_predictions(&f.display().to_string(), &o);
        seen.insert(o["schema"].as_u64().unwrap());
    }
    assert_eq!(
        seen,
        (2..=10).collect::<BTreeSet<u64>>(),
        "one fixture per schema 2..10"
    );
}

/// (model, budget, extra compile options)
const MATRIX: &[(&str, &str, &[&str])] = &[
    ("convstack", "8K", &[]),
    ("convstack", "16K", &[]),
    ("convstack", "32K", &[]),
    ("convstack", "16K", &["-c", "lz4"]),
    ("convstack_qdq", "8K", &[]),
    ("convstack_qdq", "16K", &[]),
    ("convstack_qdq", "32K", &[]),
    ("convstack_qdq", "32K", &["-c", "lz4"]),
    ("convstack_qdq", "16K", &["--xip"]),
    ("residual", "8K", &[]),
    ("residual", "16K", &[]),
    ("residual", "32K", &[]),
    ("depthwise", "8K", &[]),
    ("depthwise", "16K", &[]),
    ("depthwise", "32K", &[]),
    ("wide_gap", "2K", &[]),
    ("wide_gap", "4K", &[]),
    ("wide_gap", "8K", &[]),
    ("wide_gap", "16K", &[]),
    ("layouts", "16K", &[]),
    ("layouts", "24K", &[]),
    ("control", "4K", &[]),
];

#[test]
fn compiled_plans_read_as_tigris_reads_them() {
    let tool = tigris();
    let dir = scratch("compiled");
    run(Command::new("python3")
        .arg(tests_dir().join("make_models.py"))
        .arg(&dir));
    // (case, keep names) — one plan without names: inspect then sees empty names too.
    let mut cases: Vec<(String, String, Vec<String>, bool)> = MATRIX
        .iter()
        .map(|(m, b, extra)| {
            (
                m.to_string(),
                b.to_string(),
                extra.iter().map(|s| s.to_string()).collect(),
                true,
            )
        })
        .collect();
    cases.push(("convstack".into(), "16K".into(), vec![], false));

    let results = in_parallel(&cases, 4, |(model, budget, extra, names)| {
        let tag = format!(
            "{model}_{budget}{}{}",
            extra.join("").replace('-', "_"),
            if *names { "" } else { "_unnamed" }
        );
        let plan = dir.join(format!("{tag}.tgrs"));
        let mut cmd = Command::new(tool);
        cmd.arg("compile")
            .arg(dir.join(format!("{model}.onnx")))
            .args(["-m", budget])
            .args(extra)
            .arg("-o")
            .arg(&plan);
        if *names {
            cmd.arg("--keep-names");
        }
        run(&mut cmd);
        let (t, o) = (official(&plan), ours(&plan));
        (tag, t, o)
    });
    let mut schemas = BTreeSet::new();
    let (
        mut chains,
        mut line_buffered,
        mut tile_buffered,
        mut hw,
        mut grouped,
        mut v10_tiles,
        mut lz4,
        mut xip,
    ) = (0, 0, 0, 0, 0, 0, 0, 0);
    let (mut v10_transposes, mut v10_reshapes, mut subgraphs) = (0, 0, 0);
    for (tag, t, o) in &results {
        compare(tag, t, o);
        check_predictions(tag, o);
        let schema = o["schema"].as_u64().unwrap();
        schemas.insert(schema);
        for st in list(o, "stages") {
            if st["prediction"]["execution"] == "chain head" {
                chains += 1;
                if st["line_buffered"] == true {
                    line_buffered += 1;
                } else {
                    tile_buffered += 1;
                }
            }
        }
        for tp in list(o, "tile_plans") {
            hw += usize::from(tp["axis"] == 3);
            grouped += usize::from(tp.get("input_channel_group").is_some_and(|g| g != 0));
            v10_tiles += usize::from(tp["record"] == "v10");
        }
        // Schema-10 stages whose tile summary is re-derived from a banded transpose or reshape.
        for st in list(o, "stages") {
            let Some(tp) = st["tile_plan"]
                .as_u64()
                .map(|i| &list(o, "tile_plans")[i as usize])
            else {
                continue;
            };
            let ops = list(st, "ops");
            if tp["record"] == "v10" && ops.len() == 1 {
                let kind = &list(o, "ops")[ops[0].as_u64().unwrap() as usize]["type"];
                v10_transposes += usize::from(kind == "Transpose");
                v10_reshapes += usize::from(kind == "Reshape");
            }
        }
        subgraphs += list(o, "subgraphs").len();
        lz4 += usize::from(o["weight_blocks"]["compression"] == "lz4");
        xip += usize::from(o["header"]["xip"] == true);
        eprintln!(
            "{tag}: schema {schema}, {} stages, {} tile plans, {} chains",
            list(o, "stages").len(),
            list(o, "tile_plans").len(),
            list(o, "stages")
                .iter()
                .filter(|s| s["prediction"]["execution"] == "chain head")
                .count()
        );
    }
    // The matrix must keep exercising what it was built for.
    assert_eq!(schemas, BTreeSet::from([9, 10]), "compiled schemas");
    assert!(
        chains >= 5 && line_buffered >= 3 && tile_buffered >= 1,
        "chains {chains}, line buffered {line_buffered}, tile buffered {tile_buffered}"
    );
    assert!(
        hw >= 5 && grouped >= 3 && v10_tiles >= 6,
        "2D tile plans {hw}, grouped {grouped}, schema-10 tile plans {v10_tiles}"
    );
    assert!(lz4 >= 2 && xip >= 1, "LZ4 plans {lz4}, XIP plans {xip}");
    assert!(subgraphs >= 3, "subgraphs {subgraphs}");
    assert!(
        v10_transposes >= 4 && v10_reshapes >= 4,
        "schema-10 transposes {v10_transposes}, reshapes {v10_reshapes}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------------
// Schema 1: tigris-ml 0.3.1

const V1_VERSION: &str = "0.3.1";

/// Where tigris-ml 0.3.1 is installed apart from the pinned current release: `$TIGRIS_ML_V1_DIR`, else
/// `.deps/tigris-ml-0.3.1` in the repository (scripts/test.sh). `None` when it is not there.
fn tigris_v1_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TIGRIS_ML_V1_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".deps/tigris-ml-0.3.1"));
    dir.join("tigris/__init__.py").is_file().then_some(dir)
}

/// python3 with tigris-ml 0.3.1 first on its path (its dependencies come from the main install).
fn python_v1(dir: &Path) -> Command {
    let mut cmd = Command::new("python3");
    cmd.env("PYTHONPATH", dir);
    cmd
}

/// The old reader's dict renamed to our JSON's names, so that `Diff::same` checks every field it has
/// against ours: header counts under `header`, 0xFFFF indices as null, `ndim` as the shape's length.
fn v1_expected(p: &Value) -> Value {
    use serde_json::{json, Map};
    let none = |v: &Value| {
        if v == 0xFFFF {
            Value::Null
        } else {
            v.clone()
        }
    };
    let renamed = |v: &Value, renames: &[(&str, &str)], sentinels: &[&str]| -> Value {
        let mut out = Map::new();
        for (k, x) in v.as_object().expect("object") {
            let key = renames
                .iter()
                .find(|(a, _)| a == k)
                .map_or(k.as_str(), |(_, b)| b);
            let x = if sentinels.contains(&k.as_str()) {
                none(x)
            } else {
                x.clone()
            };
            out.insert(key.to_string(), x);
        }
        Value::Object(out)
    };
    let each = |key: &str, renames: &[(&str, &str)], sentinels: &[&str]| -> Value {
        Value::Array(
            list(p, key)
                .iter()
                .map(|v| renamed(v, renames, sentinels))
                .collect(),
        )
    };
    let mut header = Map::new();
    for k in std::iter::once("version").chain(HEADER_FIELDS) {
        header.insert(k.to_string(), p[k].clone());
    }
    let mut tensors = each(
        "tensors",
        &[("dtype", "dtype_code"), ("quant_param_idx", "quant_param")],
        &["quant_param_idx"],
    );
    for t in tensors.as_array_mut().unwrap() {
        let t = t.as_object_mut().unwrap();
        let ndim = t.remove("ndim").unwrap_or_default();
        t.insert("shape_len".into(), ndim);
    }
    json!({
        "schema": p["version"],
        "file_size": p["file_size"],
        "model_name": p["model_name"],
        "header": header,
        "model_inputs": p["model_inputs"],
        "model_outputs": p["model_outputs"],
        "tensors": tensors,
        "ops": each(
            "ops",
            &[
                ("op_type", "type_code"),
                ("stage", "stage_byte"),
                ("weight_idx", "weight"),
                ("bias_idx", "bias"),
            ],
            &["weight_idx", "bias_idx"],
        ),
        "stages": each(
            "stages",
            &[("tile_plan_idx", "tile_plan")],
            &["tile_plan_idx", "chain_id"],
        ),
        "tile_plans": each("tile_plans", &[], &[]),
        "weights": each("weights", &[], &[]),
        "quant_params": each("quant_params", &[], &[]),
        "weight_blocks": {
            "compression_code": p["weight_blocks_compression"],
            "blocks": each(
                "weight_blocks",
                &[("stage_idx", "stage"), ("first_weight_idx", "first_weight")],
                &[],
            ),
        },
    })
}

/// Every field of tigris-ml 0.3.1's `read_binary_plan()` against ours; the old reader's keys must all
/// be known here, so a field it gains cannot go unchecked.
fn compare_v1(name: &str, t: &Value, o: &Value) {
    let mut d = Diff::new(name);
    let p = &t["plan"];
    d.unknown_fields(p, &[], "read_binary_plan()");
    d.same("schema", &1.into(), &o["schema"]);
    // Our tensors with the shape's length beside them, for the old reader's `ndim`.
    let mut ours = o.clone();
    for t in ours["tensors"].as_array_mut().unwrap() {
        let n = t["shape"].as_array().map_or(0, Vec::len);
        t["shape_len"] = n.into();
    }
    d.same("plan", &v1_expected(p), &ours);
    // The schema-1 stage byte is the op's stage, as the stage table says.
    for (i, op) in list(o, "ops").iter().enumerate() {
        d.same(&format!("ops[{i}].stage"), &op["stage_byte"], &op["stage"]);
    }
    d.finish();
}

/// (model, budget, extra compile options) compiled by tigris-ml 0.3.1 (no `--keep-names`: it keeps
/// the names).
const MATRIX_V1: &[(&str, &str, &[&str])] = &[
    ("convstack", "4K", &[]),
    ("convstack", "8K", &[]),
    ("convstack", "32K", &[]),
    ("convstack", "16K", &["-c", "lz4"]),
    ("convstack_qdq", "8K", &[]),
    ("convstack_qdq", "32K", &[]),
    ("convstack_qdq", "16K", &["-c", "lz4"]),
    ("convstack_qdq", "16K", &["--xip"]),
    ("residual", "8K", &[]),
    ("residual", "32K", &[]),
    ("depthwise", "8K", &[]),
    ("depthwise", "16K", &[]),
    ("wide_gap", "4K", &[]),
    ("layouts", "24K", &[]),
    ("control", "4K", &[]),
];

#[test]
fn schema1_plans_read_as_tigris_ml_0_3_reads_them() {
    let Some(v1) = tigris_v1_dir() else {
        eprintln!(
            "skipped: tigris-ml {V1_VERSION} (schema 1) is not installed in .deps/tigris-ml-{V1_VERSION} \
             or $TIGRIS_ML_V1_DIR; install it with python3 -m pip install --no-deps --target \
             .deps/tigris-ml-{V1_VERSION} tigris-ml=={V1_VERSION} (scripts/test.sh does this)"
        );
        return;
    };
    let version = run(python_v1(&v1).args([
        "-c",
        "import tigris; print(tigris.__version__, tigris.SCHEMA_VERSION)",
    ]));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("{V1_VERSION} 1"),
        "tigris-ml in {}",
        v1.display()
    );
    let dir = scratch("schema1");
    run(Command::new("python3")
        .arg(tests_dir().join("make_models.py"))
        .arg(&dir));
    let results = in_parallel(MATRIX_V1, 2, |(model, budget, extra)| {
        let tag = format!("{model}_{budget}{}", extra.join("").replace('-', "_"));
        let plan = dir.join(format!("{tag}.tgrs"));
        run(python_v1(&v1)
            .args([
                "-c",
                "import sys; from tigris.cli import main; sys.argv[0] = 'tigris'; main()",
                "compile",
            ])
            .arg(dir.join(format!("{model}.onnx")))
            .args(["-m", budget])
            .args(*extra)
            .arg("-o")
            .arg(&plan));
        let out = run(python_v1(&v1)
            .arg(tests_dir().join("read_plan_v1.py"))
            .arg(&plan));
        let t: Value = serde_json::from_slice(&out.stdout).expect("read_plan_v1.py prints JSON");
        (tag, t, ours(&plan))
    });
    let (mut tiled, mut lz4, mut xip, mut quant, mut per_channel) = (0, 0, 0, 0, 0);
    for (tag, t, o) in &results {
        compare_v1(tag, t, o);
        tiled += list(o, "tile_plans").len();
        lz4 += usize::from(o["weight_blocks"]["compression"] == "lz4");
        xip += usize::from(o["header"]["xip"] == true);
        quant += list(o, "quant_params").len();
        per_channel += list(o, "quant_params")
            .iter()
            .filter(|q| q["num_channels"].as_u64() > Some(1))
            .count();
        eprintln!(
            "{tag}: schema 1, {} stages, {} tile plans, {} quant params",
            list(o, "stages").len(),
            list(o, "tile_plans").len(),
            list(o, "quant_params").len()
        );
    }
    assert_eq!(results.len(), MATRIX_V1.len());
    assert!(
        tiled >= 30 && lz4 >= 2 && xip >= 1 && quant >= 20 && per_channel >= 8,
        "tile plans {tiled}, LZ4 plans {lz4}, XIP plans {xip}, quant params {quant} \
         ({per_channel} per channel)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The schema-1 plans make_plans.py writes for the reference firmware's public-runtime generation
/// (firmware/tigris/README.md, `tigris_<mode>-v1.elf`) read field by field as tigris-ml 0.3.1 reads them.
#[test]
fn the_reference_schema1_plans_read_as_tigris_ml_0_3_reads_them() {
    let Some(v1) = tigris_v1_dir() else {
        eprintln!("skipped: tigris-ml {V1_VERSION} is not installed (see schema1_plans_read_as_tigris_ml_0_3_reads_them)");
        return;
    };
    for mode in ["normal", "tiled", "chain"] {
        let plan = root().join(format!("firmware/build/tigris/tigris_{mode}_v1.tgrs"));
        assert!(
            plan.exists(),
            "{} is missing: run firmware/build.sh",
            plan.display()
        );
        let out = run(python_v1(&v1)
            .arg(tests_dir().join("read_plan_v1.py"))
            .arg(&plan));
        let t: Value = serde_json::from_slice(&out.stdout).expect("read_plan_v1.py prints JSON");
        compare_v1(&format!("tigris_{mode}_v1"), &t, &ours(&plan));
    }
}

#[test]
fn bad_plans_exit_2_with_a_clear_error() {
    let dir = scratch("bad");
    let good = std::fs::read(tests_dir().join("fixtures/schema_compat/schema-v5-conv1d-axis.tgrs"))
        .unwrap();
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], "shorter than its 48-byte header"),
        (
            "elf",
            b"\x7fELF\x01\x01\x01\0\0\0\0\0\0\0\0\0".to_vec(),
            "magic",
        ),
        ("truncated", good[..good.len() - 10].to_vec(), "file_size"),
    ];
    let mut version = good.clone();
    version[4] = 11;
    cases.push(("version", version, "unsupported schema version 11"));
    for (name, bytes, expect) in cases {
        let path = dir.join(format!("{name}.tgrs"));
        std::fs::write(&path, &bytes).unwrap();
        for json in [false, true] {
            let mut args = vec!["plan", "inspect", path.to_str().unwrap()];
            if json {
                args.push("--json");
            }
            let out = sim(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{name}: exit code, stderr {err}"
            );
            assert!(
                err.contains("invalid TiGrIS plan") && err.contains(expect),
                "{name}: stderr {err}"
            );
            assert!(
                out.stdout.is_empty(),
                "{name}: printed {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    let out = sim(&[
        "plan",
        "inspect",
        dir.join("missing.tgrs").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn text_summary_names_stages_ops_and_tiling() {
    let f = tests_dir().join("fixtures/schema_compat/schema-v5-conv1d-axis.tgrs");
    let out = sim(&["plan", "inspect", f.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "schema 5",
        "stages",
        "stage 0",
        "Conv1D",
        "6 tiles of 49 over 256 rows (height), halo 2, rf 3",
        "tensors",
        "ops",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
}

/// Offset of section `kind` in a plan, from its directory.
fn section(plan: &[u8], kind: u32) -> usize {
    let word = |at: usize| u32::from_le_bytes(plan[at..at + 4].try_into().unwrap()) as usize;
    let mut at = word(12);
    while word(at) != 0 {
        if word(at) == kind as usize {
            return word(at + 4);
        }
        at += 8;
    }
    panic!("no section {kind}");
}

/// Our name of each op-type code and attribute kind is the one of the v10 schema JSON shipped in the
/// installed tigris-ml: each code is patched into a fixture plan and read back by `tigris-sim`.
#[test]
fn op_type_and_attribute_names_follow_the_v10_schema() {
    tigris();
    let out = run(Command::new("python3").args([
        "-c",
        "import importlib.resources as r; print(r.files('tigris').joinpath('schema/tigris-plan-v10.json').read_text())",
    ]));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("schema JSON");
    let dir = scratch("names");
    let fixtures = tests_dir().join("fixtures/schema_compat");

    let check = |fixture: &str, kind: u32, at: usize, table: &str, key: &str, attr: bool| {
        let base = std::fs::read(fixtures.join(fixture)).unwrap();
        let codes = schema[table].as_object().unwrap();
        assert!(!codes.is_empty());
        for (name, code) in codes {
            let code = code.as_u64().unwrap();
            let mut plan = base.clone();
            let off = section(&plan, kind) + at;
            plan[off] = code as u8;
            let path = dir.join(format!("{table}-{code}.tgrs"));
            std::fs::write(&path, &plan).unwrap();
            let ours = ours(&path);
            let got = if attr {
                &ours["ops"][0]["attributes"][0][key]
            } else {
                &ours["ops"][0][key]
            };
            assert_eq!(got.as_str(), Some(name.as_str()), "{table} code {code}");
        }
        codes.len()
    };
    // Op type: byte 4 of the first op record. Attribute kind: byte 2 of the first entry, after the
    // 4-byte section header; the v9 fixture's binary_requant payload (24 bytes) suits every kind.
    assert_eq!(
        check(
            "schema-v5-conv1d-axis.tgrs",
            2,
            4,
            "op_types",
            "type",
            false
        ),
        92
    );
    assert_eq!(
        check(
            "schema-v9-binary-requant.tgrs",
            11,
            4 + 2,
            "op_attribute_types",
            "kind",
            true
        ),
        20
    );

    // Tensor dtypes: the lower-case ONNX names `tigris inspect` prints (float32, float64).
    let out = run(Command::new("python3").args([
        "-c",
        "import onnx\nfor c in range(0, 29):\n    n = onnx.TensorProto.DataType.Name(c).lower()\n    print({'float': 'float32', 'double': 'float64'}.get(n, n))",
    ]));
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let base = std::fs::read(fixtures.join("schema-v2-linear.tgrs")).unwrap();
    for (code, name) in names.iter().enumerate() {
        let mut plan = base.clone();
        let off = section(&plan, 1) + 11; // dtype byte of tensor 0
        plan[off] = code as u8;
        let path = dir.join(format!("dtype-{code}.tgrs"));
        std::fs::write(&path, &plan).unwrap();
        assert_eq!(
            ours(&path)["tensors"][0]["dtype"].as_str(),
            Some(name.as_str()),
            "dtype {code}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
