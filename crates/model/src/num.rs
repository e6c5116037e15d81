//! Decimal text to `f64`, for code the web page reaches.
//!
//! `str::parse::<f64>` brings std's exact float parser into the page's wasm bundle, with its
//! 128-bit powers-of-five table (about 10 KB that barely compresses). `lexical-parse-float`
//! built with its `compact` feature gives the same correctly rounded results from much
//! smaller code, so the page's parsing goes through [`parse_f64`]. It accepts exactly the
//! strings `str::parse::<f64>` accepts (the tests below compare the two).

use lexical_parse_float::FromLexical;

/// Parses `s` as `str::parse::<f64>` does: an optional sign, then digits with an optional
/// fraction (at least one digit on either side of the point) and an optional exponent, or
/// "inf", "infinity" or "nan" in any case. No surrounding whitespace. `None` where
/// `str::parse` gives an error.
pub fn parse_f64(s: &str) -> Option<f64> {
    f64::from_lexical(s.as_bytes()).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_f64;
    use proptest::prelude::*;

    fn same(s: &str) {
        let ours = parse_f64(s).map(f64::to_bits);
        let std = s.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, std, "{s:?}");
    }

    #[test]
    fn edge_cases() {
        for s in [
            "",
            "+",
            "-",
            ".",
            "+.",
            "-.",
            "e",
            "E",
            "e1",
            ".e1",
            "1e",
            "1e+",
            "1e-",
            "1E5",
            "1.",
            ".1",
            "-.1",
            "+1.",
            "1.e3",
            ".1e3",
            "0",
            "-0",
            "+0",
            "0.0",
            "-0.0",
            "00",
            "007.5",
            "1_000",
            "1,5",
            " 1",
            "1 ",
            "\t1",
            "1\n",
            "0x10",
            "0b1",
            "1f",
            "1.0f",
            "1d",
            "++1",
            "--1",
            "+-1",
            "1e++5",
            "1e--5",
            "1..2",
            "1.2.3",
            "1e5.5",
            "1e5e5",
            "inf",
            "INF",
            "Inf",
            "-inf",
            "+inf",
            "infinity",
            "Infinity",
            "INFINITY",
            "-Infinity",
            "+infinity",
            "infin",
            "infinit",
            "infinityx",
            "infx",
            "in",
            "i",
            "nan",
            "NaN",
            "NAN",
            "-nan",
            "+nan",
            "-NaN",
            "nanx",
            "na",
            "nan1",
            "1nan",
            "snan",
            "qnan",
            "nan(1)",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "-1e309",
            "2e-308",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "4.9e-324",
            "5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1e-400",
            "-1e-400",
            "1e-99999999999",
            "1e99999999999",
            "0e99999999999",
            "0e-99999999999",
            "1e18446744073709551616",
            "9007199254740993",
            "9007199254740992.5",
            "0.1",
            "0.2",
            "0.30000000000000004",
            "123456789012345678901234567890",
            "2.225073858507201136057409796709131975934819546351645648e-308",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
            "8.98846567431158e307",
            "3.14159",
            "100",
            "12.5",
            "-42",
            "1e-5",
            "6.02214076e23",
            "0.000000000000000000000000000000000000000000001",
            "\u{0661}",
            "１",
            "1\u{0}",
            "٫",
            "1e\u{0}",
        ] {
            same(s);
        }
        let long = format!("0.{}1", "0".repeat(800));
        same(&long);
        let long = format!("1{}e-800", "0".repeat(800));
        same(&long);
        let long = format!("{}.5", "9".repeat(400));
        same(&long);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Strings over the characters that matter to the grammar.
        #[test]
        fn same_as_std_on_grammar_strings(s in "[-+0-9.eE_ infatyINFATYx]{0,24}") {
            same(&s);
        }

        /// Numbers in the grammar's shape, with many digits and wide exponents.
        #[test]
        fn same_as_std_on_numbers(s in "[-+]?[0-9]{0,30}(\\.[0-9]{0,30})?([eE][-+]?[0-9]{1,4})?") {
            same(&s);
        }

        /// Any string.
        #[test]
        fn same_as_std_on_any_string(s in ".{0,16}") {
            same(&s);
        }

        /// Every f64 written out by Display and by LowerExp reads back bit-identical.
        #[test]
        fn same_as_std_on_written_floats(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            same(&x.to_string());
            same(&format!("{x:e}"));
            same(&format!("{x:.3e}"));
            same(&format!("{x:.17}"));
        }
    }
}
