//! Setting values as PostgreSQL reads and shows them (guc.c: `parse_int`, `parse_real`,
//! `convert_to_base_unit`, `convert_int_from_base_unit`), so that `--set work_mem=64MB`
//! and the page's entry fields mean what `SET work_mem = '64MB'` means.
//!
//! A memory parameter has a base unit (work_mem: kB, effective_cache_size: 8 kB pages);
//! a bare number is in it. A unit (B, kB, MB, GB, TB, case-sensitive) converts to it; a
//! fractional value with a unit is first rounded to the next smaller unit, then the result
//! to a whole number of base units (round half to even, as `rint` does).

/// The base unit of a PostgreSQL memory parameter (`GUC_UNIT_KB`, `GUC_UNIT_BLOCKS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgMemoryUnit {
    Kb,
    /// BLCKSZ pages of 8 kB.
    Blocks,
}

impl PgMemoryUnit {
    pub fn bytes(self) -> f64 {
        match self {
            PgMemoryUnit::Kb => 1024.0,
            PgMemoryUnit::Blocks => 8192.0,
        }
    }

    /// What a bare number counts, in words.
    pub fn name(self) -> &'static str {
        match self {
            PgMemoryUnit::Kb => "kB",
            PgMemoryUnit::Blocks => "8kB pages",
        }
    }
}

/// The units PostgreSQL accepts for memory, largest first (memory_unit_conversion_table).
const MEMORY_UNITS: [(&str, f64); 5] = [
    ("TB", 1024.0 * 1024.0 * 1024.0 * 1024.0),
    ("GB", 1024.0 * 1024.0 * 1024.0),
    ("MB", 1024.0 * 1024.0),
    ("kB", 1024.0),
    ("B", 1.0),
];

/// guc.c's memory_units_hint.
pub const MEMORY_UNITS_HINT: &str = "valid units are B, kB, MB, GB and TB (case-sensitive)";

/// Why a value was refused; the caller names the parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum GucError {
    /// Not a number (the hint says what is accepted).
    Syntax(String),
    /// A number with a unit this parameter does not take.
    Unit(String),
    /// Beyond a 32-bit integer, as PostgreSQL's int parameters are.
    Range(String),
}

impl std::fmt::Display for GucError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GucError::Syntax(m) | GucError::Unit(m) | GucError::Range(m) => f.write_str(m),
        }
    }
}

/// C's `strtol(s, &end, 0)` on the leading part of `s`: optional whitespace and sign,
/// then hexadecimal (`0x`), octal (leading `0`) or decimal digits. The value and the rest;
/// `None` when no digit was read.
fn strtol(s: &str) -> Option<(f64, &str)> {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if (t.starts_with("0x") || t.starts_with("0X"))
        && t[2..].starts_with(|c: char| c.is_ascii_hexdigit())
    {
        (16, &t[2..])
    } else if t.starts_with('0') {
        (8, t)
    } else {
        (10, t)
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    let mut v = 0f64;
    for c in digits[..end].chars() {
        v = v * radix as f64 + c.to_digit(radix).unwrap_or(0) as f64;
    }
    Some((if neg { -v } else { v }, &digits[end..]))
}

/// C's `strtod` on the leading part of `s` (decimal forms only): the value and the rest.
fn strtod(s: &str) -> Option<(f64, &str)> {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - frac_start;
        i = j;
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    crate::num::parse_f64(&t[..i]).map(|v| (v, &t[i..]))
}

/// PostgreSQL's `parse_int` for an integer parameter: a memory parameter when `base` is
/// given, else one without unit. The value in base units, a whole number.
pub fn parse_int(text: &str, base: Option<PgMemoryUnit>) -> Result<f64, GucError> {
    let syntax = || {
        GucError::Syntax(match base {
            Some(b) => format!(
                "`{text}` is not a memory size: a number with a unit ({MEMORY_UNITS_HINT}), or a bare number of {}",
                b.name()
            ),
            None => format!("`{text}` is not a number"),
        })
    };
    // Integer first (allowing octal and hex); re-read as a float where that stops at a
    // decimal point or an exponent.
    let (mut val, rest) = match strtol(text) {
        Some((v, rest)) if !rest.starts_with(['.', 'e', 'E']) => (v, rest),
        _ => strtod(text).ok_or_else(syntax)?,
    };
    let unit = rest.trim();
    if !unit.is_empty() {
        let Some(b) = base else {
            return Err(GucError::Unit(format!(
                "`{text}` has a unit, but this parameter takes a bare number"
            )));
        };
        val = convert_to_base_unit(val, unit, b).ok_or_else(|| {
            GucError::Unit(format!(
                "`{text}`: `{unit}` is not a memory unit; {MEMORY_UNITS_HINT}"
            ))
        })?;
    }
    let val = val.round_ties_even();
    if !(i32::MIN as f64..=i32::MAX as f64).contains(&val) {
        return Err(GucError::Range(format!(
            "`{text}` exceeds PostgreSQL's integer range"
        )));
    }
    Ok(val)
}

/// PostgreSQL's `parse_real` for a parameter without unit (the cost constants).
pub fn parse_real(text: &str) -> Result<f64, GucError> {
    match strtod(text) {
        Some((v, rest)) if rest.trim().is_empty() && v.is_finite() => Ok(v),
        Some((_, rest)) if !rest.trim().is_empty() => Err(GucError::Unit(format!(
            "`{text}` has a unit or trailing text, but this parameter takes a bare number"
        ))),
        _ => Err(GucError::Syntax(format!("`{text}` is not a number"))),
    }
}

/// guc.c's `convert_to_base_unit` for memory: `value unit` in base units, a fractional
/// value first rounded to a whole number of the next smaller unit.
fn convert_to_base_unit(value: f64, unit: &str, base: PgMemoryUnit) -> Option<f64> {
    let i = MEMORY_UNITS.iter().position(|(u, _)| *u == unit)?;
    let per_base = |bytes: f64| bytes / base.bytes();
    let cvalue = value * per_base(MEMORY_UNITS[i].1);
    Some(match MEMORY_UNITS.get(i + 1) {
        Some((_, smaller)) => {
            let m = per_base(*smaller);
            (cvalue / m).round_ties_even() * m
        }
        None => cvalue,
    })
}

/// A memory value as `SHOW` prints it: the largest unit that divides it evenly (kB at
/// least), e.g. 524288 pages as `4GB`, 64 pages as `512kB`.
pub fn format_memory(base_value: f64, base: PgMemoryUnit) -> String {
    let v = base_value.floor();
    if v == 0.0 {
        return "0".into();
    }
    for (unit, bytes) in MEMORY_UNITS {
        let m = bytes / base.bytes();
        if m <= 1.0 || v % m == 0.0 {
            return format!("{}{unit}", v / m);
        }
    }
    format!("{v}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use PgMemoryUnit::{Blocks, Kb};

    /// Values and what PostgreSQL 15 stores for them (`SET x = '...'; SHOW x` in
    /// `postgres --single`, 2026-12-01): work_mem in kB, effective_cache_size in 8 kB
    /// pages. Results under work_mem's minimum of 64 are PostgreSQL's range errors
    /// ("2 kB is outside the valid range"), which name the parsed value.
    #[test]
    fn reads_memory_as_postgresql_does() {
        let cases: &[(&str, PgMemoryUnit, f64)] = &[
            ("64MB", Kb, 65_536.0),
            ("64", Kb, 64.0),
            ("4GB", Kb, 4_194_304.0),
            ("1TB", Kb, 1_073_741_824.0),
            ("1.5MB", Kb, 1536.0),
            // 0.0001 MB = 0.1024 kB, rounded to whole kB first: 0.
            ("0.0001MB", Kb, 0.0),
            ("65536B", Kb, 64.0),
            // Bytes to kB: 1536 B = 1.5 kB, rint (half to even) gives 2.
            ("1536B", Kb, 2.0),
            ("2560B", Kb, 2.0),
            // 64.5 kB: half to even, 64; 65 kB: 65.
            ("66048B", Kb, 64.0),
            ("66560B", Kb, 65.0),
            (" 64 MB ", Kb, 65_536.0),
            ("4GB", Blocks, 524_288.0),
            ("64", Blocks, 64.0),
            ("512kB", Blocks, 64.0),
            ("1MB", Blocks, 128.0),
            // 0.5 GB = 512 MB exactly: 65536 pages.
            ("0.5GB", Blocks, 65_536.0),
            // 12 kB = 1.5 pages, half to even: 2; 20 kB = 2.5 pages: 2.
            ("12kB", Blocks, 2.0),
            ("20kB", Blocks, 2.0),
            ("520kB", Blocks, 65.0),
            // strtol with base 0: octal and hexadecimal integers.
            ("010", Kb, 8.0),
            ("0x10", Kb, 16.0),
            ("1e3", Kb, 1000.0),
            ("2.5", Kb, 2.0),
            ("3.5", Kb, 4.0),
        ];
        for (text, base, want) in cases {
            assert_eq!(parse_int(text, Some(*base)), Ok(*want), "{text}");
        }
    }

    #[test]
    fn refuses_what_postgresql_refuses_naming_value_and_units() {
        for text in [
            "64mb", "64 Mb", "64KB", "64kb", "4 GiB", "64MB x", "MB", "", "nan",
        ] {
            let e = parse_int(text, Some(Kb)).unwrap_err().to_string();
            assert!(e.contains(&format!("`{text}`")), "{e}");
            assert!(e.contains("B, kB, MB, GB and TB"), "{text}: {e}");
        }
        assert!(matches!(
            parse_int("3TB", Some(Kb)),
            Err(GucError::Range(_))
        ));
        assert!(matches!(parse_int("2MB", None), Err(GucError::Unit(_))));
        assert_eq!(parse_int("2.6", None), Ok(3.0));
        assert_eq!(parse_real("1.1"), Ok(1.1));
        assert_eq!(parse_real(" 4e-3 "), Ok(0.004));
        assert!(matches!(parse_real("1.1x"), Err(GucError::Unit(_))));
        assert!(matches!(parse_real("x"), Err(GucError::Syntax(_))));
        assert!(parse_real("nan").is_err());
    }

    /// `SHOW` after the SETs above (PostgreSQL 15 printed these).
    #[test]
    fn shows_memory_as_postgresql_does() {
        assert_eq!(format_memory(4096.0, Kb), "4MB");
        assert_eq!(format_memory(65.0, Kb), "65kB");
        assert_eq!(format_memory(1_048_576.0, Kb), "1GB");
        assert_eq!(format_memory(524_288.0, Blocks), "4GB");
        assert_eq!(format_memory(64.0, Blocks), "512kB");
        assert_eq!(format_memory(128.0, Blocks), "1MB");
        for (v, base) in [
            (4096.0, Kb),
            (64.0, Blocks),
            (524_288.0, Blocks),
            (1536.0, Kb),
        ] {
            assert_eq!(parse_int(&format_memory(v, base), Some(base)), Ok(v));
        }
    }
}
