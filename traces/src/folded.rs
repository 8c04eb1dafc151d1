//! Folded stacks (`outer;inner cycles`, one call path per line), the input of flame-graph tools
//! such as flamegraph.pl, inferno and speedscope. Exact: from the report's per-path self cycles. A
//! frame whose function has a source location reads `name (file:line)`, as py-spy writes frames.

use crate::Report;

/// One line per call path that took cycles, in the report's (sorted) order.
pub fn folded(report: &Report) -> String {
    let sources = report.function_sources();
    let frame = |name: &str| match sources.get(name) {
        Some(source) => format!("{name} ({source})"),
        None => name.to_string(),
    };
    report
        .stacks
        .iter()
        .filter(|s| s.cycles > 0)
        .map(|s| {
            let frames: Vec<String> = s.stack.split(';').map(frame).collect();
            format!("{} {}\n", frames.join(";"), s.cycles)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perfetto::tests::report_with_tigris;
    use crate::testing::function;
    use crate::FunctionProfile;

    #[test]
    fn one_line_per_path_with_cycles() {
        assert_eq!(folded(&report_with_tigris()), "main 200\nmain;conv 7000\n");
    }

    #[test]
    fn frames_carry_their_source_when_dwarf_gave_one() {
        let mut report = report_with_tigris();
        report.functions.push(FunctionProfile {
            source: Some("kernels.c:12".into()),
            ..function("conv", 7000, 7000, 1)
        });
        assert_eq!(folded(&report), "main 200\nmain;conv (kernels.c:12) 7000\n");
    }
}
