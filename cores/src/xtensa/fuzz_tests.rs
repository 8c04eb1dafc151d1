//! Property tests: every instruction word decodes and disassembles on each core configuration,
//! whatever its bits, without a panic (bounded cases).

use super::config::XtensaConfig;
use super::decode::decode;
use super::disasm::disasm_word;
use super::pie::decode_pie;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn any_word_decodes_and_disassembles(word in any::<u32>(), pc in any::<u32>()) {
        for cfg in [XtensaConfig::esp32s3(), XtensaConfig::esp32(), XtensaConfig::esp8266()] {
            let _ = decode(word, pc, &cfg);
            let (_, len) = disasm_word(word, pc, &cfg);
            prop_assert!(len <= 4, "length {len}");
        }
        for len in [2u8, 3, 4] {
            let _ = decode_pie(word, len);
        }
    }
}
