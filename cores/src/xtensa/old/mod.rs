//! Temporary: the hand-written decoder before the ISA table, and the exhaustive comparison with it.

mod old_decode;
mod old_disasm;

use super::config::XtensaConfig;
use super::decode::{decode, Insn, Op};
use super::disasm::{disasm, mnemonic};
use old_decode::*;
use old_disasm::*;

fn old_static_cost(insn: &Insn, cfg: &XtensaConfig) -> u32 {
    use Op::*;
    let t = &cfg.timing;
    t.base
        + match insn.op {
            Mul16u | Mul16s | Mull | Muluh | Mulsh => t.mul,
            Quou | Quos | Remu | Rems => t.div,
            _ => 0,
        }
}

fn configs() -> Vec<(&'static str, XtensaConfig)> {
    vec![
        ("esp8266", XtensaConfig::esp8266()),
        ("esp32", XtensaConfig::esp32()),
        ("esp32s3", XtensaConfig::esp32s3()),
    ]
}

/// Every 24-bit word (which covers every 16-bit narrow word too), at two PCs, on every configuration.
#[test]
#[ignore]
fn exhaustive_decode_matches_old() {
    let mut n = 0u64;
    for (name, cfg) in configs() {
        for pc in [0x4000_0000u32, 0x4008_1235] {
            let words: Vec<u32> = (0..1u32 << 24).collect();
            let mismatches: u64 = std::thread::scope(|sc| {
                let hs: Vec<_> = words
                    .chunks(1 << 22)
                    .map(|ch| {
                        let cfg = &cfg;
                        sc.spawn(move || {
                            let mut bad = 0u64;
                            for &w in ch {
                                let a = decode(w, pc, cfg);
                                let b = old_decode(w, pc, cfg);
                                let ok = a == b
                                    && a.ends_block() == old_ends_block(&b)
                                    && a.is_conditional_branch() == old_is_conditional_branch(&b)
                                    && a.is_ar_load() == old_is_ar_load(&b)
                                    && a.may_move_lend() == old_may_move_lend(&b)
                                    && mnemonic(a.op) == old_mnemonic(b.op)
                                    && super::exec::static_cost(&a, cfg) == old_static_cost(&b, cfg)
                                    && disasm(&a, pc, cfg.core) == old_disasm(&b, pc, cfg.core);
                                if !ok {
                                    if bad < 5 {
                                        eprintln!(
                                            "{name} pc {pc:#x} w {w:06x}: new {a:?} old {b:?}: {:?}",
                                            (
                                                (a.ends_block(), old_ends_block(&b)),
                                                (mnemonic(a.op), old_mnemonic(b.op)),
                                                disasm(&a, pc, cfg.core),
                                                old_disasm(&b, pc, cfg.core)
                                            )
                                        );
                                    }
                                    bad += 1;
                                }
                            }
                            bad
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).sum()
            });
            assert_eq!(mismatches, 0, "{name} pc {pc:#x}");
            n += words.len() as u64;
        }
    }
    eprintln!("exhaustive: {n} words compared, all identical");
}

/// Decode speed, old and new, one thread: every 24-bit word once, then only the legal ones.
#[test]
#[ignore]
fn bench_decode_old_new() {
    let ns = |d: std::time::Duration, n: usize| d.as_nanos() as f64 / n as f64;
    for (name, cfg) in configs() {
        let all: Vec<u32> = (0..1u32 << 24).collect();
        let legal: Vec<u32> = all
            .iter()
            .copied()
            .filter(|&w| old_decode(w, 0x4000_0000, &cfg).op != Op::Illegal)
            .collect();
        for (set, words) in [("all", &all), ("legal", &legal)] {
            let mut acc = 0u32;
            let t0 = std::time::Instant::now();
            for &w in words.iter() {
                acc = acc.wrapping_add(old_decode(w, 0x4000_0000, &cfg).imm);
            }
            let old = t0.elapsed();
            let t0 = std::time::Instant::now();
            for &w in words.iter() {
                acc = acc.wrapping_add(decode(w, 0x4000_0000, &cfg).imm);
            }
            let new = t0.elapsed();
            eprintln!(
                "{name} {set} ({} words): old {:.1} ns/word, new {:.1} ns/word ({acc})",
                words.len(),
                ns(old, words.len()),
                ns(new, words.len())
            );
        }
    }
}
