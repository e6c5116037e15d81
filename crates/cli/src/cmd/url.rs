//! `costlab url decode` and `costlab url encode`: playground links to JSON link files and
//! back (`costlab_core::url`), with the switch points the page shows.

use super::shared::{print, to_json, warn, Fail};
use clap::Subcommand;
use costlab_core::url::{self, LinkFile};
use std::io::Read;

#[derive(Subcommand)]
pub enum UrlAction {
    /// Read a playground link (or just its `#...` fragment) and print it as a JSON link file;
    /// parts the page would reject are reported, one line each, on stderr.
    Decode {
        link: String,
        /// Also print the switch points the page shows for this scenario.
        #[arg(long)]
        switches: bool,
    },
    /// Read a JSON link file (a path, or - for stdin) and print the link.
    Encode {
        file: String,
        /// Address of the playground to put before the fragment.
        #[arg(long, default_value = "")]
        base: String,
    },
}

/// Longest link file read (a link itself is capped by the decoder).
const MAX_LINK_FILE: u64 = 1024 * 1024;

/// `costlab url decode` and `costlab url encode`.
pub fn run(action: UrlAction) -> Result<(), Fail> {
    match action {
        UrlAction::Decode { link, switches } => decode(&link, switches),
        UrlAction::Encode { file, base } => encode(&file, &base),
    }
}

fn decode(link: &str, switches: bool) -> Result<(), Fail> {
    let fragment = link.split_once('#').map_or(link, |(_, f)| f);
    let d = url::decode(fragment);
    for p in &d.problems {
        warn(&p.to_string());
    }
    let file = LinkFile::from_link(&d.scenario, &d.embed);
    if !switches {
        return print(&to_json(&file)?);
    }
    let mut out = serde_json::Map::new();
    out.insert(
        "link".into(),
        serde_json::to_value(&file).map_err(|e| Fail::Error(e.to_string()))?,
    );
    let mut per_engine = serde_json::Map::new();
    for engine in d.scenario.engines.list() {
        let c = costlab_core::analysis::engine_curves(&d.scenario, engine)?;
        let list: Vec<serde_json::Value> = c
            .crossovers
            .iter()
            .map(|x| serde_json::json!({"fraction": x.x, "from": x.from.to_string(), "to": x.to.to_string()}))
            .collect();
        per_engine.insert(engine.name().to_string(), serde_json::Value::Array(list));
    }
    out.insert("switches".into(), serde_json::Value::Object(per_engine));
    print(&to_json(&out)?)
}

fn encode(file: &str, base: &str) -> Result<(), Fail> {
    let text = if file == "-" {
        let mut t = String::new();
        std::io::stdin()
            .take(MAX_LINK_FILE)
            .read_to_string(&mut t)
            .map_err(|e| Fail::Error(format!("stdin: {e}")))?;
        t
    } else {
        let meta = std::fs::metadata(file).map_err(|e| Fail::Error(format!("{file}: {e}")))?;
        if meta.len() > MAX_LINK_FILE {
            return Err(Fail::Error(format!(
                "{file}: larger than {MAX_LINK_FILE} bytes"
            )));
        }
        std::fs::read_to_string(file).map_err(|e| Fail::Error(format!("{file}: {e}")))?
    };
    let doc: LinkFile = serde_json::from_str(&text)
        .map_err(|e| Fail::Error(format!("{file}: not a link file: {e}")))?;
    let fragment = doc
        .to_fragment()
        .map_err(|e| Fail::Error(format!("{file}: {e}")))?;
    print(&format!("{base}#{fragment}\n"))
}
