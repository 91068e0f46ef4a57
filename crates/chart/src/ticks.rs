//! Where an axis's ticks go and how their labels read.
//!
//! The rule is the usual "nice numbers" one (matplotlib's default locator uses it too): at most
//! `max_intervals` intervals over [lo, hi], the step the smallest of {1, 2, 2.5, 5, 10} × 10^k that
//! fits, ticks at the step's multiples inside the range. How many intervals an axis gets follows
//! its length: one per two tick-label heights on a vertical axis, one per three on a horizontal
//! one (labels are wider than tall), at most 8.

const MANTISSAS: [f64; 5] = [1.0, 2.0, 2.5, 5.0, 10.0];

/// The tick step for [lo, hi] with at most `max_intervals` intervals.
pub fn step(lo: f64, hi: f64, max_intervals: usize) -> f64 {
    let span = (hi - lo).abs();
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let raw = span / max_intervals.max(1) as f64;
    let scale = 10f64.powf(raw.log10().floor());
    for m in MANTISSAS {
        // a relative tolerance, so that 0.3 / 3 = 0.09999… still takes the mantissa 1
        if m * scale >= raw * (1.0 - 1e-9) {
            return m * scale;
        }
    }
    10.0 * scale
}

/// The multiples of `step` inside [lo, hi] (ends included, to a millionth of a step).
pub fn positions(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let eps = step * 1e-6;
    let first = ((lo - eps) / step).ceil() as i64;
    let last = ((hi + eps) / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Intervals an axis `length_pt` long gets with labels `font_pt` tall: `per_label` label heights
/// per interval (2 vertical, 3 horizontal), between 1 and 8.
pub fn max_intervals(length_pt: f64, font_pt: f64, per_label: f64) -> usize {
    ((length_pt / (font_pt * per_label)).floor() as usize).clamp(1, 8)
}

/// A tick's label: as many decimals as the step needs (0.5 → 1, 2.5 → 1, 0.25 → 2, 500 → 0), a
/// true minus sign, and no "-0".
pub fn label(value: f64, step: f64) -> String {
    let mut decimals = 0usize;
    let mut s = step;
    while decimals < 12 && (s - s.round()).abs() > 1e-9 * step.abs().max(1.0) {
        s *= 10.0;
        decimals += 1;
    }
    let text = format!("{:.*}", decimals, value);
    let zero = text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.');
    match text.strip_prefix('-') {
        Some(rest) if !zero => format!("\u{2212}{rest}"),
        Some(rest) => rest.to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The incast figure's three axes (hand-computed): queue 0..2307 KB on a 2.2-inch panel
    // (158.4 pt / (9 pt · 2) = 8 intervals → raw 288 → 500), throughput 0..28.75 Gbps (raw 3.6 → 5),
    // time −0.5..2.5 ms on 6 inches (432 pt / 27 pt = 16 → 8 intervals; raw 0.375 → 0.5).
    #[test]
    fn incast_axes() {
        assert_eq!(max_intervals(158.4, 9.0, 2.0), 8);
        assert_eq!(step(0.0, 2307.0, 8), 500.0);
        assert_eq!(positions(0.0, 2307.0, 500.0), vec![0.0, 500.0, 1000.0, 1500.0, 2000.0]);
        assert_eq!(step(0.0, 28.75, 8), 5.0);
        assert_eq!(max_intervals(432.0, 9.0, 3.0), 8);
        assert_eq!(step(-0.5, 2.5, 8), 0.5);
        let xs = positions(-0.5, 2.5, 0.5);
        assert_eq!(xs.len(), 7);
        let labels: Vec<String> = xs.iter().map(|&x| label(x, 0.5)).collect();
        assert_eq!(labels, ["\u{2212}0.5", "0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]);
    }

    #[test]
    fn mantissas_and_decimals() {
        assert_eq!(step(0.0, 1.0, 4), 0.25);
        assert_eq!(label(0.75, 0.25), "0.75");
        assert_eq!(step(0.0, 10.0, 4), 2.5);
        assert_eq!(label(7.5, 2.5), "7.5");
        assert_eq!(step(0.0, 0.3, 3), 0.1);
        assert_eq!(label(-0.0, 0.1), "0.0");
        assert_eq!(label(-1e-12, 1.0), "0");
        assert_eq!(step(5.0, 5.0, 8), 1.0); // an empty range still gets a step
    }
}
