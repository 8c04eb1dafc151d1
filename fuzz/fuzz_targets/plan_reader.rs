//! Any bytes read as a TiGrIS `.tgrs` plan give a plan or an error naming the field, never a
//! panic; a plan that reads gives every stage's prediction, the runtime's requirements and the
//! units of the derived breakdown.
#![no_main]

// The plan reader of `tigris-sim` (sim/src/tigris/plan/), compiled into this target as it is: it
// uses nothing else of the simulator, and its interface is crate-private there (`pub(crate)`),
// so it is included here rather than exported from sim's library. Only the reading is fuzzed:
// the rest of the module is unused here.
#[allow(dead_code, unused_imports)]
#[path = "../../sim/src/tigris/plan/mod.rs"]
mod plan;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    let Ok(plan) = plan::Plan::parse(bytes) else {
        return;
    };
    for stage in 0..plan.stages.len() {
        let _ = plan.prediction(stage);
    }
    let _ = plan.requirements();
    let _ = plan.units();
});
