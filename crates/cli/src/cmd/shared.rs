//! What every subcommand shares: the failure type and its exit codes, printing to stdout,
//! reading scenario and profile files, writing files atomically, `--set` and `--disable`.
//! A leaf: it imports no other module of `cmd`.

use costlab::engines;
use costlab::import::one_line;
use costlab::simulate;
use costlab_core::knobs::{Engine, KnobValues};
use costlab_core::scenario::ServerSettings;
use costlab_core::scenario_file::{ScenarioFile, MAX_BYTES};
use costlab_core::sim::{builtin, MachineProfile};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// A failure and its exit code.
pub enum Fail {
    Usage(String),
    Error(String),
}

impl From<costlab_core::Error> for Fail {
    fn from(e: costlab_core::Error) -> Fail {
        Fail::Error(e.to_string())
    }
}

impl Fail {
    /// Prints the failure as one line on stderr; 2 for a wrong command line, else 1.
    pub fn exit(self) -> ExitCode {
        let (m, code) = match self {
            Fail::Usage(m) => (m, 2),
            Fail::Error(m) => (m, 1),
        };
        let _ = writeln!(std::io::stderr(), "costlab: {}", one_line(&m));
        ExitCode::from(code)
    }
}

pub fn usage(e: impl std::fmt::Display) -> Fail {
    Fail::Usage(e.to_string())
}

/// Clap's message in one line: the first line, plus the indented lines that continue it
/// (the list of missing arguments); usage and tips are dropped.
pub fn clap_one_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("invalid command line").trim();
    let mut msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let more: Vec<&str> = lines
        .take_while(|l| l.starts_with(' ') && !l.trim().is_empty())
        .map(str::trim)
        .collect();
    if !more.is_empty() {
        msg = format!("{} {}", msg.trim_end_matches(':'), more.join(", "));
    }
    msg
}

pub fn print(s: &str) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fail::Error(format!("cannot write to stdout: {e}"))),
    }
}

/// A warning line on stderr (`warning: ...`), in one line.
pub fn warn(w: &str) {
    let _ = writeln!(std::io::stderr(), "warning: {}", one_line(w));
}

pub fn to_json<T: serde::Serialize>(v: &T) -> Result<String, Fail> {
    serde_json::to_string_pretty(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Fail::Error(format!("cannot encode the report: {e}")))
}

/// Writes through a temporary file in the same directory and renames it over `path`, so a
/// failure never leaves a partial file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Fail> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| Fail::Error(format!("cannot write {}: {e}", path.display()));
    let mut tmp = tempfile::Builder::new()
        .prefix(".costlab-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

pub fn load_scenario(path: &Path) -> Result<ScenarioFile, Fail> {
    let fail = |e: std::io::Error| Fail::Error(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if meta.len() > MAX_BYTES as u64 {
        return Err(Fail::Error(format!(
            "{}: {} bytes is larger than the {MAX_BYTES} a scenario may have",
            path.display(),
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(fail)?;
    ScenarioFile::from_json(&text).map_err(|e| Fail::Error(format!("{}: {e}", path.display())))
}

/// The machine of `simulate` and `dbt3`: a built-in profile or a file's, exactly one of
/// them, with the server settings it presets (a built-in profile picked by id may preset
/// the seed's server; a file never does, whatever its id).
pub fn machine_profile(
    id: Option<&str>,
    file: Option<&Path>,
    cold: bool,
) -> Result<(MachineProfile, ServerSettings), Fail> {
    let (mut profile, server) = match (id, file) {
        (Some(id), None) => (
            builtin::find(id).map_err(usage)?,
            ServerSettings::preset_for_builtin(id),
        ),
        (None, Some(path)) => (load_profile(path)?, ServerSettings::DEFAULT),
        _ => {
            return Err(usage(
                "a machine is required: --profile ID (see costlab simulate --list-profiles) or --profile-file FILE",
            ))
        }
    };
    if cold {
        profile.warm_cache = false;
    }
    Ok((profile, server))
}

fn load_profile(path: &Path) -> Result<MachineProfile, Fail> {
    let fail = |e: std::io::Error| Fail::Error(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if meta.len() > simulate::MAX_PROFILE_BYTES as u64 {
        return Err(Fail::Error(format!(
            "{}: {} bytes is larger than the {} a profile may have",
            path.display(),
            meta.len(),
            simulate::MAX_PROFILE_BYTES
        )));
    }
    let text = std::fs::read_to_string(path).map_err(fail)?;
    let (profile, warnings) = simulate::profile_from_json(&text)
        .map_err(|e| Fail::Error(format!("{}: {e}", path.display())))?;
    for w in warnings {
        let _ = writeln!(
            std::io::stderr(),
            "warning: {}: {}",
            path.display(),
            one_line(&w)
        );
    }
    Ok(profile)
}

/// PostgreSQL's options with `--disable`'s switches off; MySQL has no such switches.
pub fn switches(engine: Engine, disable: &[String]) -> Result<costlab_core::pg::PgOptions, Fail> {
    match engine {
        Engine::Postgres => engines::pg_options(disable).map_err(usage),
        Engine::Mysql if !disable.is_empty() => Err(usage(
            "--disable takes PostgreSQL's enable_* switches; not available for MySQL",
        )),
        Engine::Mysql => Ok(Default::default()),
    }
}

/// Applies `--set name=value` assignments; each must be a knob of `engine`.
pub fn apply_sets(knobs: &mut KnobValues, sets: &[String], engine: Engine) -> Result<(), Fail> {
    for s in sets {
        let name = s.split('=').next().unwrap_or_default().trim();
        if name.to_ascii_lowercase().starts_with("enable_") {
            return Err(Fail::Usage(format!(
                "--set {name}: a planner switch, not a cost constant; turn it off with --disable {}",
                &name["enable_".len()..]
            )));
        }
        let knob = knobs.set_assignment(s).map_err(usage)?;
        if knob.def().engine != engine {
            return Err(Fail::Usage(format!(
                "--set {}: a {} knob has no effect on {}",
                knob.def().name,
                knob.def().engine.name(),
                engine.name()
            )));
        }
    }
    Ok(())
}
