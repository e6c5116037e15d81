//! PostgreSQL's text form of a one-dimensional array (`{1,2,"a b",NULL}`), as `anyarray::text`
//! prints pg_stats' most_common_vals and histogram_bounds.

/// Elements of a one-dimensional array literal; `None` for an unquoted NULL.
pub fn parse(text: &str) -> Result<Vec<Option<String>>, String> {
    let mut s = text.trim();
    // Arrays whose lower bound is not 1 print their dimensions first: `[0:2]={...}`.
    if s.starts_with('[') {
        match s.find('=') {
            Some(eq) => s = s[eq + 1..].trim_start(),
            None => return Err(format!("`{}` is not an array literal", clip(text))),
        }
    }
    let inner = s
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(|| format!("`{}` is not an array literal", clip(text)))?;
    let mut out = Vec::new();
    if inner.trim().is_empty() {
        return Ok(out);
    }
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            Some('{') => {
                return Err(format!(
                    "`{}` is a multi-dimensional array; expected one dimension",
                    clip(text)
                ))
            }
            Some('"') => {
                chars.next();
                let mut v = String::new();
                loop {
                    match chars.next() {
                        None => return Err(format!("unterminated quote in `{}`", clip(text))),
                        Some('\\') => match chars.next() {
                            Some(c) => v.push(c),
                            None => return Err(format!("dangling backslash in `{}`", clip(text))),
                        },
                        Some('"') => break,
                        Some(c) => v.push(c),
                    }
                }
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                out.push(Some(v));
            }
            _ => {
                let mut v = String::new();
                while let Some(&c) = chars.peek() {
                    if c == ',' {
                        break;
                    }
                    chars.next();
                    if c == '\\' {
                        if let Some(e) = chars.next() {
                            v.push(e);
                        }
                    } else {
                        v.push(c);
                    }
                }
                let v = v.trim_end().to_string();
                if v.eq_ignore_ascii_case("NULL") {
                    out.push(None);
                } else {
                    out.push(Some(v));
                }
            }
        }
        match chars.next() {
            None => break,
            Some(',') => continue,
            Some(c) => return Err(format!("unexpected `{c}` in array `{}`", clip(text))),
        }
    }
    Ok(out)
}

fn clip(s: &str) -> String {
    if s.chars().count() > 60 {
        let mut c: String = s.chars().take(57).collect();
        c.push_str("...");
        c
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn some(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some(s.to_string())).collect()
    }

    #[test]
    fn parses_numbers_strings_nulls_and_escapes() {
        assert_eq!(parse("{1,2,-3.5}").unwrap(), some(&["1", "2", "-3.5"]));
        assert_eq!(parse("{}").unwrap(), Vec::<Option<String>>::new());
        assert_eq!(
            parse(r#"{abc,"x y","q\"uote","back\\slash","",NULL,"NULL"}"#).unwrap(),
            vec![
                Some("abc".into()),
                Some("x y".into()),
                Some("q\"uote".into()),
                Some("back\\slash".into()),
                Some("".into()),
                None,
                Some("NULL".into()),
            ]
        );
        assert_eq!(
            parse("{1994-01-01,2000-02-29}").unwrap(),
            some(&["1994-01-01", "2000-02-29"])
        );
        assert_eq!(parse("[0:1]={7,8}").unwrap(), some(&["7", "8"]));
        assert_eq!(parse(r#"{"a,b",c}"#).unwrap(), some(&["a,b", "c"]));
    }

    #[test]
    fn rejects_what_is_not_a_flat_array() {
        for bad in ["", "1,2", "{1,2", "{{1,2},{3,4}}", r#"{"abc}"#, r#"{"a"b}"#] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
