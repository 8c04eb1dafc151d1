//! Units of the plot axes and the text helpers that format them.

/// Maps simulated cycles to the time unit of the x axes: milliseconds at the board clock, or
/// megacycles when the report has no clock.
#[derive(Debug, Clone, Copy)]
pub struct TimeScale {
    cycles_per_unit: f64,
    clock_hz: u64,
}

impl TimeScale {
    pub fn new(clock_hz: u64) -> Self {
        let cycles_per_unit = if clock_hz > 0 {
            clock_hz as f64 / 1000.0
        } else {
            1e6
        };
        TimeScale {
            cycles_per_unit,
            clock_hz,
        }
    }

    pub fn at(&self, cycle: u64) -> f64 {
        cycle as f64 / self.cycles_per_unit
    }

    /// Short name of the unit, for rates ("per ms").
    pub fn unit(&self) -> &'static str {
        if self.clock_hz > 0 {
            "ms"
        } else {
            "Mcycle"
        }
    }

    pub fn axis_label(&self) -> String {
        if self.clock_hz > 0 {
            format!("simulated time (ms at {})", format_hz(self.clock_hz))
        } else {
            "simulated time (Mcycles; the report has no clock)".to_string()
        }
    }
}

pub fn format_hz(hz: u64) -> String {
    if hz == 0 {
        "an unknown clock".to_string()
    } else if hz >= 1_000_000 {
        format!("{} MHz", trim_decimals(hz as f64 / 1e6, 3))
    } else if hz >= 1_000 {
        format!("{} kHz", trim_decimals(hz as f64 / 1e3, 3))
    } else {
        format!("{hz} Hz")
    }
}

/// A power-of-ten or power-of-two unit picked so that an axis' largest value reads well.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    divisor: f64,
    pub name: &'static str,
}

impl Scale {
    /// cycles, kcycles, Mcycles or Gcycles.
    pub fn cycles(largest: f64) -> Self {
        Self::pick(
            largest,
            1000.0,
            &["cycles", "kcycles", "Mcycles", "Gcycles"],
        )
    }

    /// B, KiB, MiB or GiB.
    pub fn bytes(largest: f64) -> Self {
        Self::pick(largest, 1024.0, &["B", "KiB", "MiB", "GiB"])
    }

    fn pick(largest: f64, step: f64, names: &[&'static str]) -> Self {
        let mut divisor = 1.0;
        let mut index = 0;
        while index + 1 < names.len() && largest >= divisor * step {
            divisor *= step;
            index += 1;
        }
        Scale {
            divisor,
            name: names[index],
        }
    }

    pub fn of(&self, value: f64) -> f64 {
        value / self.divisor
    }

    /// `value` in this unit with three significant digits and the unit's name.
    pub fn format(&self, value: f64) -> String {
        format!("{} {}", significant(self.of(value)), self.name)
    }
}

/// Three significant digits, without trailing zeros.
pub fn significant(value: f64) -> String {
    let magnitude = value.abs();
    let decimals = if magnitude >= 100.0 {
        0
    } else if magnitude >= 10.0 {
        1
    } else {
        2
    };
    trim_decimals(value, decimals)
}

/// A tick label: as many decimals as the axis step needs, trailing zeros dropped.
pub fn tick(value: f64) -> String {
    trim_decimals(value, 3)
}

fn trim_decimals(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    // "-0" after rounding a tiny negative value.
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// The upper end of an axis showing values up to `largest`: a little headroom, and never an empty range.
pub fn axis_end(largest: f64) -> f64 {
    if largest.is_finite() && largest > 0.0 {
        largest * 1.08
    } else {
        1.0
    }
}

/// Text from a report made safe for a label: control characters (invalid in SVG) become `?`, and long
/// names are cut to `max_chars` with `...`.
pub fn label(text: &str, max_chars: usize) -> String {
    let clean = text.chars().map(|c| if c.is_control() { '?' } else { c });
    if text.chars().count() <= max_chars {
        clean.collect()
    } else {
        clean
            .take(max_chars.saturating_sub(3))
            .chain("...".chars())
            .collect()
    }
}
