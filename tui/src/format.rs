//! Numbers as the screen writes them.

/// `18318692` as `18,318,692`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `768 B`, `1.5 KiB`, `2.25 MiB`.
pub fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / KIB),
        _ => format!("{:.2} MiB", n as f64 / (KIB * KIB)),
    }
}

/// Simulated time of `cycles` at `clock_hz` (`76.329 ms`, `1.250 s`); cycles when the clock is unknown.
pub fn time(cycles: u64, clock_hz: u64) -> String {
    if clock_hz == 0 {
        return format!("{} cycles", thousands(cycles));
    }
    seconds(cycles as f64 / clock_hz as f64)
}

/// A simulated time in seconds: `76.329 ms`, `1.250 s`.
pub fn seconds(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else {
        format!("{:.3} ms", seconds * 1e3)
    }
}

/// `text` cut to `width` characters, its last one an ellipsis when it was cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    if width == 0 {
        kept
    } else {
        format!("{kept}\u{2026}")
    }
}

/// A clock: `240 MHz`, `32.768 kHz`.
pub fn frequency(hz: u64) -> String {
    match hz {
        0 => "clock unknown".into(),
        1..1_000_000 => format!("{} kHz", hz as f64 / 1e3),
        _ => format!("{} MHz", hz as f64 / 1e6),
    }
}

/// Ticks of a time axis over cycles `[start, start + span)`, at least `least_gap` cycles apart: their
/// cycles and labels. They fall on round milliseconds (1, 2 or 5 times a power of ten), or round
/// cycle counts when the clock is unknown.
pub fn axis_ticks(start: u64, span: u64, least_gap: u64, clock_hz: u64) -> Vec<(u64, String)> {
    let cycles_per_unit = if clock_hz == 0 {
        1.0
    } else {
        clock_hz as f64 / 1000.0
    };
    let least = least_gap.max(1) as f64 / cycles_per_unit;
    let magnitude = 10f64.powf(least.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&step| step >= least)
        .unwrap_or(least);
    let decimals = if clock_hz == 0 {
        0
    } else {
        (-step.log10().floor()).max(0.0) as usize
    };
    let first = (start as f64 / cycles_per_unit / step).ceil() as u64;
    (first..)
        .map(|k| {
            let units = k as f64 * step;
            ((units * cycles_per_unit).round() as u64, units)
        })
        .take_while(|&(cycle, _)| cycle < start.saturating_add(span))
        .map(|(cycle, units)| {
            let label = if clock_hz == 0 {
                thousands(cycle)
            } else {
                format!("{units:.decimals$} ms")
            };
            (cycle, label)
        })
        .collect()
}

/// `part` as a percentage of `whole`; 0 when `whole` is 0.
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(18_318_692), "18,318,692");
        assert_eq!(bytes(768), "768 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 * 1024 * 1024), "3.00 MiB");
        assert_eq!(time(18_318_692, 240_000_000), "76.328 ms");
        assert_eq!(time(480_000_000, 240_000_000), "2.000 s");
        assert_eq!(time(1234, 0), "1,234 cycles");
        assert_eq!(fit("esp32s3", 10), "esp32s3");
        assert_eq!(fit("esp32s3", 5), "esp3\u{2026}");
        assert_eq!(fit("esp32s3", 0), "");
        assert_eq!(frequency(240_000_000), "240 MHz");
        assert_eq!(frequency(25_165_824), "25.165824 MHz");
        assert_eq!(frequency(32_768), "32.768 kHz");
        assert_eq!(percent(1, 0), 0.0);
        assert_eq!(percent(1, 4), 25.0);
    }

    #[test]
    fn ticks_fall_on_round_times() {
        let labels = |ticks: Vec<(u64, String)>| {
            ticks
                .into_iter()
                .map(|(_, label)| label)
                .collect::<Vec<_>>()
        };
        // 76 ms over ~7 ticks of at least 10.9 ms: every 20 ms.
        assert_eq!(
            labels(axis_ticks(0, 18_318_692, 2_616_956, 240_000_000)),
            ["0 ms", "20 ms", "40 ms", "60 ms"]
        );
        // 1.05-3.05 ms, ticks at least 0.3 ms apart: every 0.5 ms from 1.5 ms.
        let ticks = axis_ticks(1_050, 2_000, 300, 1_000_000);
        let expected = [
            (1_500, "1.5 ms"),
            (2_000, "2.0 ms"),
            (2_500, "2.5 ms"),
            (3_000, "3.0 ms"),
        ];
        assert_eq!(
            ticks,
            expected.map(|(cycle, label)| (cycle, label.to_string()))
        );
        assert_eq!(labels(axis_ticks(0, 10_000, 3_000, 0)), ["0", "5,000"]);
        assert_eq!(labels(axis_ticks(0, 1, 0, 0)), ["0"]);
    }
}
