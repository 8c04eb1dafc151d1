//! Folded stacks (`outer;inner cycles`, one call path per line), the input of flame-graph tools
//! such as flamegraph.pl, inferno and speedscope. Exact: from the report's per-path self cycles.

use crate::Report;

/// One line per call path that took cycles, in the report's (sorted) order.
pub fn folded(report: &Report) -> String {
    report
        .stacks
        .iter()
        .filter(|s| s.cycles > 0)
        .map(|s| format!("{} {}\n", s.stack, s.cycles))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perfetto::tests::report_with_tigris;

    #[test]
    fn one_line_per_path_with_cycles() {
        assert_eq!(folded(&report_with_tigris()), "main 200\nmain;conv 7000\n");
    }
}
