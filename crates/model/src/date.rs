//! Calendar dates, the one implementation for the whole project: `YYYY-MM-DD` literals in
//! the proleptic Gregorian calendar (what PostgreSQL's `date` and MySQL's `DATE` use), held
//! as days since 1970-01-01 because that is how statistics and predicates compare them.
//!
//! The rules are the engines': a year of four digits from 0001 to 9999 (the range both
//! engines share: MySQL's `DATE` ends at 9999-12-31), a month from 1 to 12 and a day that
//! exists in that month, with 29 February only in leap years (divisible by 4, except
//! centuries not divisible by 400). PostgreSQL rejects `'1995-02-30'` with
//! `date/time field value out of range: "1995-02-30"` and so does this module, rather than
//! rolling it over to 1995-03-02.
//!
//! The day arithmetic is Howard Hinnant's `days_from_civil` / `civil_from_days`
//! (public domain, <https://howardhinnant.github.io/date_algorithms.html>).

use crate::{Error, Result};

/// First and last years a literal may name.
pub const YEARS: std::ops::RangeInclusive<i64> = 1..=9999;
/// Days since 1970-01-01 of 0001-01-01 and of 9999-12-31.
pub const DAYS: std::ops::RangeInclusive<i64> = -719_162..=2_932_896;

pub fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1 to 12) of `year`; 0 for a month that does not exist.
pub fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 of a date; the fields must already be valid (see [`parse`]).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month and day of a count of days since 1970-01-01 (any `i64` within ±1e12).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days.clamp(-1_000_000_000_000, 1_000_000_000_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `YYYY-MM-DD` for days since 1970-01-01.
pub fn format(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` literal (surrounding blanks allowed, month and
/// day of one or two digits), or an error naming the literal in PostgreSQL's words.
pub fn parse(literal: &str) -> Result<i64> {
    let syntax = || {
        Error::invalid(
            "date",
            format!(
                "invalid input syntax for type date: \"{}\" (costlab reads YYYY-MM-DD)",
                shown(literal)
            ),
        )
    };
    let mut fields = literal.trim().split('-');
    let mut field = |digits: std::ops::RangeInclusive<usize>| {
        let f = fields.next().ok_or_else(syntax)?;
        if !digits.contains(&f.len()) || !f.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        // At most four ASCII digits: always fits.
        f.parse::<i64>().map_err(|_| syntax())
    };
    let (year, month, day) = (field(4..=4)?, field(1..=2)?, field(1..=2)?);
    if fields.next().is_some() {
        return Err(syntax());
    }
    if !YEARS.contains(&year) || !(1..=days_in_month(year, month)).contains(&day) {
        return Err(Error::invalid(
            "date",
            format!("date/time field value out of range: \"{}\"", shown(literal)),
        ));
    }
    Ok(days_from_civil(year, month, day))
}

/// A literal as an error message shows it: at most 40 characters.
fn shown(s: &str) -> String {
    let t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Days since 1970-01-01 from Python's `date.toordinal() - date(1970, 1, 1).toordinal()`.
    #[test]
    fn known_days() {
        for (s, days) in [
            ("1970-01-01", 0),
            ("1969-12-31", -1),
            ("1992-01-01", 8035),
            ("1995-03-02", 9191),
            ("1998-12-01", 10561),
            ("2000-02-29", 11016),
            ("2000-03-01", 11017),
            ("0001-01-01", -719_162),
            ("9999-12-31", 2_932_896),
            (" 1995-3-2 ", 9191),
        ] {
            assert_eq!(parse(s), Ok(days), "{s}");
        }
        assert_eq!(parse("0001-01-01").ok(), Some(*DAYS.start()));
        assert_eq!(parse("9999-12-31").ok(), Some(*DAYS.end()));
    }

    /// What PostgreSQL says of each (`SELECT date '…'`): out of range for a day or month
    /// that does not exist, invalid syntax for the rest.
    #[test]
    fn invalid_literals_are_named() {
        for (s, says) in [
            (
                "1995-02-30",
                "date/time field value out of range: \"1995-02-30\"",
            ),
            ("1995-02-29", "out of range: \"1995-02-29\""),
            ("1900-02-29", "out of range"),
            ("2100-02-29", "out of range"),
            ("1995-04-31", "out of range"),
            ("1995-06-31", "out of range"),
            ("1995-09-31", "out of range"),
            ("1995-11-31", "out of range"),
            ("1995-01-32", "out of range"),
            ("1995-01-00", "out of range"),
            ("1995-00-10", "out of range"),
            ("1995-13-01", "out of range: \"1995-13-01\""),
            ("0000-01-01", "out of range"),
            ("abc", "invalid input syntax for type date: \"abc\""),
            ("", "invalid input syntax"),
            ("1995-01", "invalid input syntax"),
            ("1995-01-01-01", "invalid input syntax"),
            ("1995/01/01", "invalid input syntax"),
            ("95-01-01", "invalid input syntax"),
            ("10000-01-01", "invalid input syntax"),
            ("-1995-01-01", "invalid input syntax"),
            ("1995-+1-01", "invalid input syntax"),
            ("1995-001-01", "invalid input syntax"),
            ("1995-01-01x", "invalid input syntax"),
            ("１９９５-01-01", "invalid input syntax"),
        ] {
            let e = parse(s).unwrap_err().to_string();
            assert!(e.contains(says), "{s}: {e}");
        }
        // Leap days that exist.
        for s in [
            "2000-02-29",
            "1996-02-29",
            "2024-02-29",
            "0004-02-29",
            "9996-02-29",
        ] {
            assert!(parse(s).is_ok(), "{s}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Every day of the valid range prints as a literal that reads back to it.
        #[test]
        fn days_to_date_to_days(days in DAYS) {
            let s = format(days);
            prop_assert_eq!(parse(&s), Ok(days), "{}", s);
        }

        /// Every valid date reads as a day that prints back as the same date, and the next
        /// day of the calendar is the next count (month lengths and leap years agree).
        #[test]
        fn date_to_days_to_date(y in YEARS, m in 1i64..=12, d in 1i64..=31) {
            let s = format!("{y:04}-{m:02}-{d:02}");
            let exists = d <= days_in_month(y, m);
            prop_assert_eq!(parse(&s).is_ok(), exists, "{}", s);
            if exists {
                let days = parse(&s).unwrap();
                prop_assert_eq!(civil_from_days(days), (y, m, d));
                prop_assert_eq!(format(days), s);
                let next = if d < days_in_month(y, m) {
                    (y, m, d + 1)
                } else if m < 12 {
                    (y, m + 1, 1)
                } else {
                    (y + 1, 1, 1)
                };
                prop_assert_eq!(civil_from_days(days + 1), next);
            }
        }

        #[test]
        fn never_panics(s in "\\PC{0,20}", days in any::<i64>()) {
            let _ = parse(&s);
            let _ = format(days);
        }
    }

    #[test]
    fn years_have_365_or_366_days() {
        for y in 1..9999 {
            let len = days_from_civil(y + 1, 1, 1) - days_from_civil(y, 1, 1);
            assert_eq!(len, if is_leap_year(y) { 366 } else { 365 }, "{y}");
        }
    }
}
