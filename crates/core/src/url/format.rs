//! The link format's constants, its result and problem types, and the spellings of
//! values that writing and reading share (engines, versions, numbers, a plan diagram; the
//! percent-encoding and the truncation of long text).

use crate::scenario::{DiagramSpec, Engines, Scenario};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KNOBS};

pub const VERSION: u32 = 1;
/// Longer fragments are refused before parsing (RFC 9110 asks servers to take 8,000).
pub const MAX_FRAGMENT: usize = 8000;
/// Most pairs read from one link.
pub(super) const MAX_PAIRS: usize = 200;
/// Longest custom machine name a link carries, in characters; longer names are cut, by the
/// encoder and the decoder alike. A measured machine's name ("Measured: <CPU model>, <file
/// system> on <device> (<model>)") is often over 80 characters, the limit before; even
/// fully percent-encoded (12 bytes a character) 200 keep a link far below [`MAX_FRAGMENT`].
pub const MAX_NAME_CHARS: usize = 200;

/// What went wrong with part of a link; the rest of it was used.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkProblem {
    /// The key (or "link" for the whole thing).
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Presentation options of an embed: outside the scenario, so authors can change them
/// without re-encoding it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmbedOptions {
    pub embed: bool,
    pub read_only: bool,
    /// "light", "dark", or None to follow the system.
    pub theme: Option<String>,
    /// Knobs shown beside the chart in an embed (empty: none).
    pub knobs: Vec<Knob>,
}

/// A decoded link: the scenario, the embed options and every problem found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decoded {
    pub scenario: Scenario,
    pub embed: EmbedOptions,
    pub problems: Vec<LinkProblem>,
}

/// `dg`: engine, query (or `all`), x knob, y knob (or `-`), then the words `open` and
/// `regret` when they hold, comma-separated: `pg,12,rpc,ecs,open`.
pub(super) fn diagram_value(d: &DiagramSpec) -> String {
    let mut parts = vec![
        engines_key(Engines::One(d.engine)).to_string(),
        d.query.map_or("all".into(), |q| q.to_string()),
        d.x.def().url_key.to_string(),
        d.y.map_or("-", |k| k.def().url_key).to_string(),
    ];
    if d.open {
        parts.push("open".into());
    }
    if d.regret {
        parts.push("regret".into());
    }
    parts.join(",")
}

/// Reads `dg` (see [`diagram_value`]) for the engines on show.
pub(super) fn parse_diagram(v: &str, engines: Engines) -> std::result::Result<DiagramSpec, String> {
    let parts: Vec<&str> = v.split(',').collect();
    let [engine, query, x, y, flags @ ..] = parts.as_slice() else {
        return Err("is not a diagram (engine,query,x,y[,open][,regret])".into());
    };
    let engine = match *engine {
        "mysql" => Engine::Mysql,
        "pg" => Engine::Postgres,
        _ => {
            return Err(format!(
                "names no engine (mysql, pg) but `{}`",
                truncate(engine)
            ))
        }
    };
    if !engines.list().contains(&engine) {
        return Err(format!(
            "is a {} diagram, but {} is not shown",
            engine.name(),
            engine.name()
        ));
    }
    let query = match *query {
        "all" => None,
        q => match q.parse::<u8>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(format!(
                    "names no query (all or a number) but `{}`",
                    truncate(q)
                ))
            }
        },
    };
    let knob = |key: &str| {
        KNOBS
            .iter()
            .find(|d| d.url_key == key)
            .map(|d| d.knob)
            .ok_or_else(|| format!("names no knob `{}`", truncate(key)))
    };
    let x = knob(x)?;
    let y = match *y {
        "-" => None,
        k => Some(knob(k)?),
    };
    let (mut open, mut regret) = (false, false);
    for f in flags {
        match *f {
            "open" => open = true,
            "regret" => regret = true,
            other => {
                return Err(format!(
                    "has `{}`, neither open nor regret",
                    truncate(other)
                ))
            }
        }
    }
    let d = DiagramSpec {
        open,
        engine,
        query,
        x,
        y,
        regret,
    };
    d.check()?;
    Ok(d)
}

pub(super) fn engines_key(e: Engines) -> &'static str {
    match e {
        Engines::One(Engine::Mysql) => "mysql",
        Engines::One(Engine::Postgres) => "pg",
        Engines::Both => "both",
    }
}

pub(super) fn version_key(v: EngineVersion) -> &'static str {
    match v {
        EngineVersion::Pg15 => "15",
        EngineVersion::Pg16 => "16",
        EngineVersion::Pg17 => "17",
        EngineVersion::Pg18 => "18",
        EngineVersion::Mysql57 => "5.7",
        EngineVersion::Mysql80 => "8.0",
        EngineVersion::Mysql84 => "8.4",
    }
}

pub(super) fn parse_version(engine: Engine, s: &str) -> Option<EngineVersion> {
    EngineVersion::ALL
        .into_iter()
        .find(|v| v.engine() == engine && version_key(*v) == s)
}

/// Numbers as the shortest text that reads back to the same f64.
pub(super) fn num(x: f64) -> String {
    format!("{x}")
}

/// Percent-encodes every byte outside a small readable set, so that any text a user can type
/// (a machine named `NVMe+RAID`, `50% & more`, `ü`, a tab) reads back exactly. Non-ASCII text is
/// written as its UTF-8 bytes in `%XX`, as the browser itself writes it into `location.hash`,
/// so the fragment the page writes is the one it reads back.
pub(super) fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for &b in v.as_bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b':'
            | b','
            | b'!'
            | b'*'
            | b'\''
            | b'('
            | b')'
            | b'/'
            | b'?'
            | b'@'
            | b';'
            | b'$' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub(super) fn truncate_chars(v: &str, max: usize) -> String {
    v.chars().take(max).collect()
}

/// Reverses [`escape`]. A `+` is a plus sign: costlab never wrote `+` for a space (it wrote
/// `%20`), so reading it as a space, as HTML forms do, turned every `+` a link carried
/// into a space (`NVMe+RAID` came back as `NVMe RAID`, `1e+5` as a non-number).
pub(super) fn unescape(v: &str) -> Option<String> {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Exactly two hex digits (`from_str_radix` alone would take `%+F`).
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

pub(super) fn truncate(s: &str) -> String {
    let t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}
