//! `--set key=value`: change one board parameter for a run, in the board file's own terms.

use crate::file::{CACHE_KEYS, CONSOLE_KEYS, CORE_KEYS, REGION_KEYS, TOP_KEYS};
use crate::BoardError;

/// Names of the entries of the `[[regions]]` or `[[caches]]` array of the parsed board file.
fn entry_names(doc: &toml::Table, array: &str) -> Vec<String> {
    doc.get(array)
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|e| e.get("name").and_then(|n| n.as_str()).map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Apply one `key=value` to the parsed board file, checking that the key exists. Keys are written as in
/// the board file, prefixed by their section: `core.clock_hz`, `console.uart_data`, a region's or a
/// cache's name (`psram.clock_mhz`, `dcache.size`).
pub(crate) fn apply_override(doc: &mut toml::Table, setting: &str) -> Result<(), BoardError> {
    let fail = |message: String| BoardError::Override {
        setting: setting.to_string(),
        message,
    };
    let (key, raw) = setting
        .split_once('=')
        .ok_or_else(|| fail("expected key=value".into()))?;
    let (key, raw) = (key.trim(), raw.trim());
    // A TOML value if it parses as one (numbers, booleans, "strings"), else a bare string ("16K").
    let value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let expect = |known: &[&str], field: &str| {
        if known.contains(&field) {
            Ok(())
        } else {
            Err(fail(format!(
                "unknown key `{field}`; known keys here: {}",
                known.join(", ")
            )))
        }
    };
    let path: Vec<&str> = key.split('.').collect();
    match path.as_slice() {
        [field] => {
            expect(TOP_KEYS, field)?;
            doc.insert(field.to_string(), value);
        }
        [section @ ("core" | "console"), field] => {
            expect(if *section == "core" { CORE_KEYS } else { CONSOLE_KEYS }, field)?;
            let mut t = doc.get(*section).and_then(|v| v.as_table()).cloned().unwrap_or_default();
            t.insert(field.to_string(), value);
            doc.insert(section.to_string(), toml::Value::Table(t));
        }
        [name, field] => {
            let (array, known) = if entry_names(doc, "regions").iter().any(|n| n == name) {
                ("regions", REGION_KEYS)
            } else if entry_names(doc, "caches").iter().any(|n| n == name) {
                ("caches", CACHE_KEYS)
            } else {
                let mut names = entry_names(doc, "regions");
                names.extend(entry_names(doc, "caches"));
                return Err(fail(format!(
                    "no key, region or cache `{name}`: use core.*, console.* or one of {}",
                    names.join(", ")
                )));
            };
            expect(known, field)?;
            let entry = doc
                .get_mut(array)
                .and_then(|a| a.as_array_mut())
                .and_then(|a| a.iter_mut().filter_map(|e| e.as_table_mut()).find(|e| e.get("name").and_then(|n| n.as_str()) == Some(name)))
                .expect("the entry was found by name above");
            // Naming a PSRAM's mode fits that part: it no longer follows the firmware's driver.
            if *field == "mode" {
                entry.remove("follows_driver");
            }
            entry.insert(field.to_string(), value);
        }
        _ => return Err(fail(format!("unknown key `{key}`: keys have the form SECTION.KEY (core.clock_hz, REGION.wait_states, CACHE.size)"))),
    }
    Ok(())
}
