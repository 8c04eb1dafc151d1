//! defmt over RTT: a firmware built with defmt (ferrous-systems' deferred-formatting logger) sends
//! frames of an interned-string index and its arguments instead of text; the strings stay in the
//! ELF's `.defmt` section. The simulator decodes what arrives on RTT up buffer 0 with the defmt
//! project's own decoder (`defmt-decoder`, the crate probe-rs and defmt-print use), from the
//! table it reads from the ELF, and puts the decoded lines on the console as `defmt-print` shows
//! them (level and message).
//!
//! Frames may arrive split across simulation slices: with the `rzcobs` encoding (defmt's
//! default) a frame ends at its 0x00 delimiter, with `raw` the table's decoder reports how many
//! bytes a complete frame took; the rest waits for the next slice.

use defmt_decoder::{DecodeError, Encoding, Table};

pub struct Defmt {
    table: Table,
    /// Bytes of a frame not complete yet.
    pending: Vec<u8>,
    /// Frames that did not decode (shown once each as a marker line).
    pub malformed: u64,
}

impl Defmt {
    /// The firmware's defmt table, if its ELF has one. A table that does not parse is an error
    /// naming why (e.g. an unsupported defmt version).
    pub fn find(elf: &[u8]) -> anyhow::Result<Option<Defmt>> {
        Ok(Table::parse(elf)
            .map_err(|e| anyhow::anyhow!("the ELF's defmt table: {e}"))?
            .map(|table| Defmt {
                table,
                pending: Vec::new(),
                malformed: 0,
            }))
    }

    /// Decode what arrived; complete frames become text lines.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        match self.table.encoding() {
            Encoding::Raw => loop {
                match self.table.decode(&self.pending) {
                    Ok((frame, used)) => {
                        out.push_str(&format!("{}\n", frame.display(false)));
                        self.pending.drain(..used);
                    }
                    Err(DecodeError::UnexpectedEof) => break,
                    Err(DecodeError::Malformed) => {
                        // Raw frames carry no delimiter to resynchronise on: drop what is there.
                        self.malformed += 1;
                        out.push_str("(malformed defmt frame)\n");
                        self.pending.clear();
                        break;
                    }
                }
            },
            Encoding::Rzcobs => {
                let Some(end) = self.pending.iter().rposition(|&b| b == 0) else {
                    return Vec::new();
                };
                let complete: Vec<u8> = self.pending.drain(..=end).collect();
                let mut decoder = self.table.new_stream_decoder();
                decoder.received(&complete);
                loop {
                    match decoder.decode() {
                        Ok(frame) => out.push_str(&format!("{}\n", frame.display(false))),
                        Err(DecodeError::UnexpectedEof) => break,
                        Err(DecodeError::Malformed) => {
                            self.malformed += 1;
                            out.push_str("(malformed defmt frame)\n");
                        }
                    }
                }
            }
            // A newer encoding this decoder version names but the simulator does not know:
            // pass the bytes on as they came.
            _ => return std::mem::take(&mut self.pending),
        }
        out.into_bytes()
    }
}
