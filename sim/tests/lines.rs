//! The per-source-line profile (`run --lines`) on both ISAs, through the real binary.

mod common;

use common::{elf, root, run};
use serde_json::Value;

fn strip_lines(mut report: Value) -> Value {
    let r = report.as_object_mut().unwrap();
    r.remove("lines");
    r.remove("notes");
    r.remove("tool");
    report
}

#[test]
fn lines_of_the_demo_add_up_to_the_run_and_name_the_convolution_loop() {
    for board in ["mps2-an386", "esp32s3"] {
        let demo = elf(board, "demo");
        let (code, plain, _) = run(board, &demo, &[]);
        assert_eq!(code, 0, "{board}");
        let (code, r, stdout) = run(board, &demo, &["--lines"]);
        assert_eq!(code, 0, "{board}");
        let lines = r["lines"].as_array().unwrap();
        let sum = |key: &str| lines.iter().map(|l| l[key].as_u64().unwrap()).sum::<u64>();
        // Every cycle and instruction of the run is on exactly one line.
        assert_eq!(
            sum("cycles"),
            r["totals"]["cycles"].as_u64().unwrap(),
            "{board}"
        );
        let instructions = r["totals"]["instructions"].as_u64().unwrap();
        assert_eq!(sum("instructions"), instructions, "{board}");
        // The hottest line of the demo's own code is the multiply-accumulate of the 3x3
        // convolution (demo.c: `for (int ci ...)` and `acc += px[ci] * wp[ci]`).
        let hottest = lines
            .iter()
            .find(|l| l["function"] == "conv2d_3x3_s8_relu")
            .unwrap();
        let at = hottest["location"].as_str().unwrap();
        assert!(
            [
                "firmware/programs/demo.c:100",
                "firmware/programs/demo.c:101"
            ]
            .contains(&at),
            "{board}: {hottest}"
        );
        assert!(stdout.contains("hot source lines:"), "{board}");
        assert!(
            stdout.contains(&format!("  {at} conv2d_3x3_s8_relu")),
            "{board}"
        );
        // The function profile says where each function starts.
        let conv = common::function(&r, "conv2d_3x3_s8_relu");
        let source = conv["source"].as_str().unwrap();
        assert!(
            source.starts_with("firmware/programs/demo.c:"),
            "{board}: {source}"
        );
        // Following every block changes nothing else in the report.
        assert_eq!(strip_lines(r), strip_lines(plain), "{board}");
    }
}

#[test]
fn without_dwarf_the_lines_are_whole_functions_and_a_note_says_why() {
    let stripped = root().join("examples/mps2-an386-demo.elf");
    let (code, r, _) = run("mps2-an386", stripped.to_str().unwrap(), &["--lines"]);
    assert_eq!(code, 0);
    let first = &r["lines"][0];
    assert_eq!(first["function"], "conv2d_3x3_s8_relu", "{first}");
    assert!(first["location"].is_null(), "{first}");
    assert!(
        r["functions"][0].get("source").is_none(),
        "{}",
        r["functions"][0]
    );
    assert!(r["notes"].to_string().contains("no DWARF line information"));
}
