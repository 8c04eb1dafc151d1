//! `tigris-sim sweep` (docs/sweep.md): a grid of what-if runs of one firmware, each point the run
//! `tigris-sim run --plan ... --set ...` would give, in parallel, sharded and merged byte for byte.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{elf, root, run, sim, temp_path};
use serde_json::Value;

/// The reference firmware's tiled-mode plan for `budget` bytes, written by make_plans.py.
fn budget_plan(dir: &Path, budget: u32) -> String {
    let path = dir.join(format!("tiled_{budget}.tgrs"));
    let status = Command::new("python3")
        .arg(root().join("firmware/tigris/make_plans.py"))
        .args(["--budget", &budget.to_string(), "--plan"])
        .arg(&path)
        .status()
        .expect("python3 runs make_plans.py");
    assert!(status.success(), "make_plans.py --budget {budget}");
    path.to_string_lossy().into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = temp_path(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `sweep` with `args`: (exit code, stdout, stderr).
fn sweep(args: &[&str]) -> (i32, String, String) {
    let out = sim(&[&["sweep"], args].concat());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Three budgets by two PSRAM clocks on the ESP32-S3: the grid's arguments and its plans.
fn esp32s3_grid(dir: &Path) -> Vec<String> {
    let mut args = vec![elf("esp32s3", "tigris_tiled"), "--plans".into()];
    args.extend([5120, 6144, 8192].map(|b| budget_plan(dir, b)));
    args.extend(["--set".into(), "psram.clock_mhz=40,80".into()]);
    args
}

#[test]
fn three_budgets_by_two_psram_clocks_run_as_single_runs_do() {
    let dir = scratch("sweep-grid");
    let out = dir.join("out");
    let mut args = esp32s3_grid(&dir);
    args.extend(["--out".into(), out.to_string_lossy().into_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, table, stderr) = sweep(&args);
    assert_eq!(code, 0, "{table}{stderr}");
    assert!(table.contains("6 of 6 points"), "{table}");
    let s = json(&out.join("sweep.json"));
    let points = s["points"].as_array().unwrap();
    assert_eq!(points.len(), 6);
    // Point 2k is budget k at 40 MHz, 2k+1 at 80 MHz (the last axis varies fastest).
    for (i, p) in points.iter().enumerate() {
        assert_eq!(p["index"], i);
        assert_eq!(p["exit_code"], 0, "{p}");
        let budget = [5120, 6144, 8192][i / 2];
        assert_eq!(p["tigris"]["budget"], budget, "{p}");
        assert_eq!(
            p["tigris"]["fast_arena"], budget,
            "the plan's budget is the arena: {p}"
        );
        assert!(p["tigris"]["fast_peak"].as_u64().unwrap() <= budget);
    }
    for pair in points.chunks(2) {
        let latency = |p: &Value| p["tigris"]["cycles"].as_u64().unwrap();
        assert!(
            latency(&pair[0]) > latency(&pair[1]),
            "PSRAM at 40 MHz is slower than at 80: {} vs {}",
            pair[0],
            pair[1]
        );
    }
    // A point is the run `tigris-sim run` gives with the same options.
    let plan = args[2];
    let (code, report, _) = run(
        "esp32s3",
        args[0],
        &[
            "--plan",
            plan,
            "--fast-arena",
            "5120",
            "--set",
            "psram.clock_mhz=80",
        ],
    );
    assert_eq!(code, 0);
    let p = &points[1];
    assert_eq!(p["cycles"], report["totals"]["cycles"]);
    assert_eq!(p["tigris"]["cycles"], report["tigris"]["total"]["cycles"]);
    assert_eq!(
        p["tigris"]["slow_read_bytes"],
        report["tigris"]["total"]["slow_read_bytes"]
    );
    // The table, the CSV and the plot.
    for i in 0..6 {
        assert!(
            table
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{i}  "))),
            "row {i}: {table}"
        );
    }
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    assert!(csv.starts_with("point,board,plan,fast_arena,slow_arena,psram.clock_mhz,exit_code,"));
    let png = std::fs::read(out.join("pareto.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(out.join("pareto.svg")).unwrap();
    assert!(svg.contains("Pareto front"), "{svg}");
    let front = csv.lines().filter(|l| l.ends_with(",true")).count();
    assert!(
        front >= 1 && table.matches('*').count() == front,
        "{table}\n{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_merge_into_the_unsharded_sweep_byte_for_byte() {
    let dir = scratch("sweep-shards");
    let grid = esp32s3_grid(&dir);
    let with = |extra: &[&str]| {
        let mut args: Vec<&str> = grid.iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        let (code, table, stderr) = sweep(&args);
        assert_eq!(code, 0, "{extra:?}: {table}{stderr}");
    };
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    with(&["--out", &path("whole"), "--jobs", "1"]);
    with(&["--out", &path("parallel")]);
    with(&["--out", &path("shards"), "--shard", "1/2"]);
    with(&["--out", &path("shards"), "--shard", "2/2"]);
    let shard_files = [
        path("shards/sweep-1-of-2.json"),
        path("shards/sweep-2-of-2.json"),
    ];
    let one = json(Path::new(&shard_files[0]));
    assert_eq!(one["shard"]["index"], 1);
    assert_eq!(one["points"].as_array().unwrap().len(), 3);
    let (code, _, stderr) = sweep(&[
        "merge",
        &shard_files[1],
        &shard_files[0],
        "--out",
        &path("merged"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    for file in ["sweep.json", "sweep.csv", "pareto.svg", "pareto.png"] {
        let whole = std::fs::read(dir.join("whole").join(file)).unwrap();
        assert!(
            whole == std::fs::read(dir.join("merged").join(file)).unwrap(),
            "merged {file}"
        );
        assert!(
            whole == std::fs::read(dir.join("parallel").join(file)).unwrap(),
            "--jobs 1 vs all cores: {file}"
        );
    }
    // A slice missing, a slice twice, a whole sweep: refused, naming it.
    let (code, _, stderr) = sweep(&["merge", &shard_files[0]]);
    assert_eq!(code, 2);
    assert!(stderr.contains("shards missing: 2/2"), "{stderr}");
    let (code, _, stderr) = sweep(&["merge", &shard_files[0], &shard_files[0]]);
    assert_eq!(code, 2);
    assert!(stderr.contains("are both shard 1/2"), "{stderr}");
    let (code, _, stderr) = sweep(&["merge", &path("whole/sweep.json")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("a whole sweep, not a shard"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_planner_check_names_rankings_the_run_disagrees_with() {
    // The unbuffered chain's plan predicts no halo overhead, but the chain recomputes rows; the tiled
    // plan predicts and has some: the run ranks them the other way on halo bytes.
    let plans = root().join("firmware/tigris/plans");
    let plan = |mode: &str| {
        plans
            .join(format!("tigris_{mode}.tgrs"))
            .to_string_lossy()
            .into_owned()
    };
    let (tiled, chain) = (plan("tiled"), plan("chain"));
    let out = scratch("sweep-findings");
    let (code, table, stderr) = sweep(&[
        &elf("esp32s3", "tigris_tiled"),
        "--plans",
        &tiled,
        &chain,
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{table}{stderr}");
    let s = json(&out.join("sweep.json"));
    let findings = s["findings"].to_string();
    assert!(
        findings.contains("one way on halo bytes")
            && findings.contains("predicted overhead 768 vs 0")
            && findings.contains("points #0 and #1"),
        "{findings}"
    );
    assert!(table.contains("finding: the planner ranks"), "{table}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn plans_compiled_from_a_model_are_handed_to_the_firmware() {
    let tigris = Command::new("tigris").arg("--version").output();
    if !tigris.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: the `tigris` compiler is not installed (pip install tigris-ml; scripts/test.sh does)");
        return;
    }
    let dir = scratch("sweep-model");
    let status = Command::new("python3")
        .arg(root().join("sim/tests/tigris/make_models.py"))
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "make_models.py");
    let model = dir.join("convstack.onnx").to_string_lossy().into_owned();
    let out = dir.join("out").to_string_lossy().into_owned();
    let (_, table, stderr) = sweep(&[
        &elf("esp32s3", "tigris_tiled"),
        "--model",
        &model,
        "--budgets",
        "8K,16K",
        "--out",
        &out,
    ]);
    let s = json(&Path::new(&out).join("sweep.json"));
    let labels: Vec<&str> = s["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["convstack.onnx -m 8K", "convstack.onnx -m 16K"],
        "{table}{stderr}"
    );
    for (point, kib) in s["points"].as_array().unwrap().iter().zip([8, 16]) {
        // The compiled plan reached tigris_plan_load: the run read its budget there. (The reference
        // firmware's runtime executes its own model only, so it turns this one down: a result.)
        let compiled = Path::new(&out).join(format!("plans/convstack-{kib}K.tgrs"));
        let (code, inspect, _) = {
            let o = sim(&["plan", "inspect", "--json", &compiled.to_string_lossy()]);
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                (),
            )
        };
        assert_eq!(code, Some(0));
        let budget = serde_json::from_str::<Value>(&inspect).unwrap()["header"]["budget"].clone();
        assert_eq!(point["tigris"]["budget"], budget, "{point}");
        assert!(
            point["outcome"]
                .as_str()
                .unwrap()
                .contains("tigris_plan_load failed"),
            "{point}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_sweep_input_is_refused_before_anything_runs() {
    let fw = elf("esp32s3", "tigris_tiled");
    for (args, message) in [
        (vec!["--shard", "3/2"], "is not a shard K/N"),
        (vec!["--set", "psram.clock_mhz"], "expected KEY=VALUE"),
        (vec!["--set", "nosuch.key=1,2"], "nosuch"),
        (
            vec!["--set", "psram.clock_mhz=40", "--set", "psram.clock_mhz=80"],
            "is given twice",
        ),
        (vec!["--board", "esp32s3,nosuch"], "unknown board `nosuch`"),
        (vec!["--plans", "nosuch.tgrs"], "nosuch.tgrs"),
        (vec!["--fast-arena", "0"], "at least one byte"),
        (vec!["--budgets", "8K"], "--model"),
    ] {
        let mut all = vec![fw.as_str()];
        all.extend(&args);
        let (code, stdout, stderr) = sweep(&all);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// The fenced block after `<!-- test: NAME -->` in docs/sweep.md.
fn doc_block(name: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/sweep.md")).unwrap();
    let marker = format!("<!-- test: {name} -->");
    let after = &doc[doc
        .find(&marker)
        .unwrap_or_else(|| panic!("{marker} in docs/sweep.md"))
        + marker.len()..];
    let body = &after[after.find("```").unwrap() + 3..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_documented_actions_matrix_and_slurm_array_give_the_unsharded_sweep() {
    let dir = scratch("sweep-docs");
    let bin = Path::new(env!("CARGO_BIN_EXE_tigris-sim"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // A working directory as the docs assume one: fw.elf and plans/*.tgrs.
    let checkout = |name: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(d.join("plans")).unwrap();
        std::fs::copy(elf("esp32s3", "tigris_tiled"), d.join("fw.elf")).unwrap();
        for budget in [5120, 6144, 8192] {
            budget_plan(&d.join("plans"), budget);
        }
        d
    };
    let shell = |cwd: &Path, script: &str, env: &[(&str, String)]| {
        let out = Command::new("bash")
            .args(["-euc", script])
            .current_dir(cwd)
            .env("PATH", &path)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let whole = checkout("whole");
    shell(
        &whole,
        "tigris-sim sweep fw.elf --plans plans/*.tgrs --set psram.clock_mhz=40,80 --out sweep",
        &[],
    );
    let same_as_whole = |d: &Path, how: &str| {
        for file in ["sweep.json", "sweep.csv", "pareto.svg", "pareto.png"] {
            let (a, b) = (whole.join("sweep").join(file), d.join("sweep").join(file));
            assert!(
                std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                "{how}: {file}"
            );
        }
    };

    // GitHub Actions: each matrix shard's `run:` lines, then the merge job's (the artifacts of every
    // shard land in one sweep/ directory, as download-artifact with merge-multiple puts them).
    let workflow = doc_block("github-actions");
    let matrix = workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("shard: ["))
        .unwrap();
    let shards: Vec<&str> = matrix
        .trim_end_matches(']')
        .split(',')
        .map(str::trim)
        .collect();
    let runs: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- run: "))
        .filter(|r| r.contains("tigris-sim"))
        .collect();
    let (shard_runs, merge_runs): (Vec<&str>, Vec<&str>) =
        runs.iter().partition(|r| r.contains("${{ matrix.shard }}"));
    assert!(
        shards.len() > 1 && shard_runs.len() == 1 && merge_runs.len() == 1,
        "{workflow}"
    );
    let actions = checkout("actions");
    for shard in &shards {
        shell(
            &actions,
            &shard_runs[0].replace("${{ matrix.shard }}", shard),
            &[],
        );
    }
    shell(&actions, merge_runs[0], &[]);
    same_as_whole(&actions, "the GitHub Actions matrix");

    // Slurm: the array script once per task, then the merge line.
    let slurm = checkout("slurm");
    for task in 1..=shards.len() {
        let env = [
            ("SLURM_ARRAY_TASK_ID", task.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", shards.len().to_string()),
        ];
        shell(&slurm, &doc_block("slurm"), &env);
    }
    shell(&slurm, &doc_block("slurm-merge"), &[]);
    same_as_whole(&slurm, "the Slurm array");
    let _ = std::fs::remove_dir_all(&dir);
}
