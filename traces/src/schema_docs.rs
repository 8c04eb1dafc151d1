//! docs/report.md keeps up with the schema: every field a report's `tigris` object can hold is
//! named in its section there.

use crate::testing::{arenas, event, figures, plan, stage, tigris, tile};
use crate::{RegionCycles, TigrisPrediction};

/// Every object key of `value` and what it holds, at any depth.
fn keys(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                out.push(key.clone());
                keys(v, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[test]
fn every_tigris_field_is_documented() {
    // Every optional part present and every list non-empty, so that every key is serialised.
    let mut figures = figures(10);
    figures.stalls.push(RegionCycles {
        region: "psram".into(),
        cycles: 1,
    });
    let mut tile = tile(0, 0, figures.clone());
    tile.out_rows = Some([0, 1]);
    let mut stage = stage(0, "tiled", 0, figures, vec![tile]);
    stage.op_names.push("conv".into());
    stage.predicted = Some(TigrisPrediction {
        execution: "tiled".into(),
        tiles: 1,
        tile_height: 1,
        halo: 0,
        receptive_field: 1,
        peak_bytes: 0,
        overhead_bytes: 0,
        line_buffered: false,
    });
    let mut t = tigris(vec![stage], vec![event(0, "stage_begin")]);
    t.plan = Some(plan(1024));
    t.arenas = Some(arenas("sram", 1024));
    t.sink = Some(0);
    t.findings.push("a finding".into());
    let mut found = Vec::new();
    keys(&serde_json::to_value(&t).unwrap(), &mut found);
    let doc = include_str!("../../docs/report.md");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("The `tigris` object"))
        .expect("docs/report.md has a section \"The `tigris` object\"");
    found.sort();
    found.dedup();
    let missing: Vec<&String> = found
        .iter()
        .filter(|k| {
            ![
                format!("`{k}`"),
                format!("`{k}[]`"),
                format!(".{k}`"),
                format!(".{k}[]`"),
            ]
            .iter()
            .any(|named| section.contains(named.as_str()))
        })
        .collect();
    assert!(missing.is_empty(), "not in docs/report.md: {missing:?}");
}
