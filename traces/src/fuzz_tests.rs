//! Property tests: a report file mutated at random is read or refused with a message, never a
//! panic (bounded cases).

use crate::testing::report;
use crate::Report;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mutated_reports_never_panic(
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        let mut bytes = report(240_000_000, 7200).to_json().into_bytes();
        for (at, b) in edits {
            let i = at % bytes.len();
            bytes[i] = b;
        }
        bytes.truncate(bytes.len() - cut % 8);
        let _ = Report::from_json(&String::from_utf8_lossy(&bytes));
    }
}
