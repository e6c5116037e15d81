//! `costlab import postgres`: reads what PostgreSQL's planner reads about a table (spec
//! sections 2 and 11 of postgresql-cost-model.md) and turns it into a scenario file.
//!
//! * heap pages: the physical size (`pg_relation_size / 8192`), not pg_class.relpages,
//!   because the planner measures the file (spec 2.1);
//! * reltuples, relpages, relallvisible from pg_class; float4 catalog values (reltuples,
//!   null_frac, n_distinct, correlation, MCV frequencies) are read as `real` and widened, so the
//!   model sees the same double the planner does (spec 11);
//! * pg_stats per column, the arrays read through `::text` and parsed;
//! * btree indexes with their physical pages and the metapage's fast-root level (pageinspect),
//!   the value `_bt_getrootheight` returns;
//! * the cost settings in force for the connecting session, and the server's major version.

use crate::pgarray;
use costlab_core::catalog::{
    Column, ColumnStats, ColumnType, Index, IndexMethod, PgIndex, PgTable, Table, Value,
};
use costlab_core::knobs::{EngineVersion, Knob};
use costlab_core::scenario_file::ScenarioFile;
use postgres::{Client, NoTls};
use std::str::FromStr;
use std::time::Duration;

/// A failure, already phrased as the one line the command line prints.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError(pub String);

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImportError {}

/// What an import produced: the scenario and the caveats worth telling the user.
#[derive(Debug, Clone)]
pub struct Imported {
    pub scenario: ScenarioFile,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Count the rows (`SELECT count(*)`) for `Table::rows` instead of using the planner's
    /// estimate; exact but reads the whole table.
    pub count_rows: bool,
    /// Keep pg_stats' histogram ends as they are instead of replacing them with the
    /// column's actual minimum and maximum (see [`actual_endpoints`]).
    pub raw_histograms: bool,
    /// Schemas whose every table (plain and partitioned, by name) is imported after the
    /// named tables.
    pub schemas: Vec<String>,
}

/// Collapses a (possibly multi-line) message into one line.
pub fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

fn db_err(context: &str, e: postgres::Error) -> ImportError {
    let mut msg = e.to_string();
    if let Some(db) = e.as_db_error() {
        msg = db.message().to_string();
        if let Some(d) = db.detail() {
            msg.push_str(&format!(" ({d})"));
        }
    }
    ImportError(one_line(&format!("{context}: {msg}")))
}

/// Connects with a DSN (`host=... port=... user=... dbname=...` or a `postgresql://` URL).
/// Without a `connect_timeout` in the DSN, gives up after 10 seconds.
pub fn connect(dsn: &str) -> Result<Client, ImportError> {
    let mut config = postgres::Config::from_str(dsn)
        .map_err(|e| ImportError(one_line(&format!("invalid --dsn: {e}"))))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    let mut client = config
        .connect(NoTls)
        .map_err(|e| db_err("cannot connect to PostgreSQL", e))?;
    // Array and date literals are parsed below: fix their text forms.
    client
        .batch_execute(
            "SET DateStyle = ISO; SET extra_float_digits = 3; SET IntervalStyle = postgres",
        )
        .map_err(|e| db_err("cannot set up the session", e))?;
    Ok(client)
}

/// Connects and imports the named tables (`name` or `schema.name`).
pub fn import_postgres(
    dsn: &str,
    tables: &[String],
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut client = connect(dsn)?;
    import_with_client(&mut client, tables, options)
}

pub fn import_with_client(
    client: &mut Client,
    tables: &[String],
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut names: Vec<String> = tables.to_vec();
    for schema in &options.schemas {
        let rows = client
            .query(
                "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition \
                 ORDER BY c.relname",
                &[schema],
            )
            .map_err(|e| db_err(&format!("cannot list the tables of schema {schema}"), e))?;
        if rows.is_empty() {
            return Err(ImportError(format!(
                "schema {schema} has no tables (or does not exist)"
            )));
        }
        for r in rows {
            let t: String = r.get(0);
            let q = format!("{}.{}", quote_ident(schema), quote_ident(&t));
            if !names.contains(&q) && !names.contains(&t) {
                names.push(q);
            }
        }
    }
    if names.is_empty() {
        return Err(ImportError("no --table or --schema given".into()));
    }
    let mut warnings = Vec::new();
    let (version, version_text) = server_version(client, &mut warnings)?;
    let mut out = Vec::new();
    for name in &names {
        out.push(import_table(client, name, options, &mut warnings)?);
    }
    let mut file = ScenarioFile::new(version, out);
    file.settings = settings(client)?;
    file.functions = functions(client, &mut warnings)?;
    let when: String = client
        .query_one("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC', current_database()::text", &[])
        .and_then(|r| Ok(format!("database {} at {}", r.try_get::<_, String>(1)?, r.try_get::<_, String>(0)?)))
        .map_err(|e| db_err("cannot read the time", e))?;
    file.source = format!(
        "costlab import postgres: {version_text}, {when}{}",
        if options.raw_histograms {
            ""
        } else {
            "; histogram ends of index-leading columns are the actual min/max"
        }
    );
    file.validate().map_err(|e| {
        ImportError(one_line(&format!(
            "the imported statistics do not make a valid scenario: {e}"
        )))
    })?;
    Ok(Imported {
        scenario: file,
        warnings,
    })
}

/// The functions of the database's own schemas with their planner cost (pg_proc.procost),
/// one per name: the model finds a call by its name. Overloads of one name with different
/// costs are kept at the highest, with a warning.
fn functions(
    client: &mut Client,
    warnings: &mut Vec<String>,
) -> Result<Vec<costlab_core::catalog::Function>, ImportError> {
    let rows = client
        .query(
            "SELECT p.proname::text, p.procost::float8 FROM pg_proc p \
             JOIN pg_namespace n ON n.oid = p.pronamespace \
             WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') \
             AND n.nspname NOT LIKE 'pg\\_%' AND p.prokind = 'f' ORDER BY 1, 2",
            &[],
        )
        .map_err(|e| db_err("cannot list the schema's functions", e))?;
    let mut out: Vec<costlab_core::catalog::Function> = Vec::new();
    for r in rows {
        let name: String = r.get(0);
        let procost: f64 = r.get(1);
        match out.last_mut() {
            Some(f) if f.name == name => {
                if f.procost != procost {
                    warnings.push(format!(
                        "function {name} has overloads of cost {} and {procost}: the model \
                         prices every call of it at {procost}",
                        f.procost
                    ));
                    f.procost = procost;
                }
            }
            _ => out.push(costlab_core::catalog::Function::priced(name, procost)),
        }
    }
    Ok(out)
}

fn server_version(
    client: &mut Client,
    warnings: &mut Vec<String>,
) -> Result<(EngineVersion, String), ImportError> {
    let row = client
        .query_one(
            "SELECT current_setting('server_version_num')::int4, current_setting('server_version')",
            &[],
        )
        .map_err(|e| db_err("cannot read the server version", e))?;
    let num: i32 = row
        .try_get(0)
        .map_err(|e| db_err("cannot read the server version", e))?;
    let text: String = row
        .try_get(1)
        .map_err(|e| db_err("cannot read the server version", e))?;
    let major = num / 10000;
    let v = match major {
        15 => EngineVersion::Pg15,
        16 => EngineVersion::Pg16,
        17 => EngineVersion::Pg17,
        18 => EngineVersion::Pg18,
        m if m < 15 => {
            warnings.push(format!(
                "PostgreSQL {text} is older than the releases costlab models (15 to 18); using 15"
            ));
            EngineVersion::Pg15
        }
        _ => {
            warnings.push(format!(
                "PostgreSQL {text} is newer than the releases costlab models (15 to 18); using 18"
            ));
            EngineVersion::Pg18
        }
    };
    Ok((v, format!("PostgreSQL {text}")))
}

/// The knobs' settings for this session, in the knob table's units.
fn settings(client: &mut Client) -> Result<std::collections::BTreeMap<String, f64>, ImportError> {
    let mut out = std::collections::BTreeMap::new();
    for knob in Knob::for_engine(costlab_core::knobs::Engine::Postgres) {
        let def = knob.def();
        let row = client
            .query_opt(
                "SELECT setting, coalesce(unit, '') FROM pg_settings WHERE name = $1",
                &[&def.name],
            )
            .map_err(|e| db_err(&format!("cannot read setting {}", def.name), e))?;
        let Some(row) = row else { continue };
        let setting: String = row
            .try_get(0)
            .map_err(|e| db_err(&format!("cannot read setting {}", def.name), e))?;
        let unit: String = row
            .try_get(1)
            .map_err(|e| db_err(&format!("cannot read setting {}", def.name), e))?;
        let raw: f64 = setting.trim().parse().map_err(|_| {
            ImportError(format!(
                "setting {} = `{setting}` is not a number",
                def.name
            ))
        })?;
        let value = match knob {
            Knob::EffectiveCacheSize => kb(raw, &unit, def.name)? / 1024.0,
            Knob::WorkMem => kb(raw, &unit, def.name)?,
            _ => raw,
        };
        out.insert(def.name.to_string(), value);
    }
    Ok(out)
}

/// A memory setting in kB from pg_settings' value and unit ("8kB", "kB", "MB", ...).
fn kb(value: f64, unit: &str, name: &str) -> Result<f64, ImportError> {
    let factor = match unit {
        "B" => 1.0 / 1024.0,
        "kB" => 1.0,
        "8kB" => 8.0,
        "16kB" => 16.0,
        "32kB" => 32.0,
        "MB" => 1024.0,
        "GB" => 1024.0 * 1024.0,
        _ => {
            return Err(ImportError(format!(
                "setting {name} has an unknown unit `{unit}`"
            )))
        }
    };
    Ok(value * factor)
}

struct RelInfo {
    oid: u32,
    schema: String,
    name: String,
    kind: String,
    heap_bytes: i64,
    reltuples: f32,
    relpages: i32,
    relallvisible: i32,
    spcoptions: Option<String>,
}

fn find_relation(client: &mut Client, name: &str) -> Result<RelInfo, ImportError> {
    let ctx = format!("cannot read table {name}");
    let row = client
        .query_opt(
            "SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text, \
                    pg_relation_size(c.oid), c.reltuples, c.relpages, c.relallvisible, \
                    (SELECT s.spcoptions::text FROM pg_tablespace s \
                      WHERE s.oid = CASE WHEN c.reltablespace = 0 \
                        THEN (SELECT dattablespace FROM pg_database WHERE datname = current_database()) \
                        ELSE c.reltablespace END) \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.oid = to_regclass($1::text)",
            &[&name],
        )
        .map_err(|e| db_err(&ctx, e))?;
    let Some(row) = row else {
        return Err(ImportError(format!(
            "table {name} does not exist (or is not visible on the search_path)"
        )));
    };
    let get = |e| db_err(&ctx, e);
    Ok(RelInfo {
        oid: row.try_get(0).map_err(get)?,
        schema: row.try_get(1).map_err(get)?,
        name: row.try_get(2).map_err(get)?,
        kind: row.try_get(3).map_err(get)?,
        heap_bytes: row.try_get(4).map_err(get)?,
        reltuples: row.try_get(5).map_err(get)?,
        relpages: row.try_get(6).map_err(get)?,
        relallvisible: row.try_get(7).map_err(get)?,
        spcoptions: row.try_get(8).map_err(get)?,
    })
}

fn import_table(
    client: &mut Client,
    name: &str,
    options: &ImportOptions,
    warnings: &mut Vec<String>,
) -> Result<Table, ImportError> {
    let rel = find_relation(client, name)?;
    if rel.kind != "r" && rel.kind != "m" {
        return Err(ImportError(format!(
            "{name} is not a plain table (relkind {}); costlab models single heap tables",
            rel.kind
        )));
    }
    if let Some(opts) = &rel.spcoptions {
        warnings.push(format!(
            "{}: its tablespace overrides settings ({opts}); costlab uses the session's values",
            rel.name
        ));
    }
    let pages = (rel.heap_bytes / 8192) as f64;
    let reltuples = rel.reltuples as f64;
    let relpages = rel.relpages as f64;
    let counted = if options.count_rows {
        let q = format!(
            "SELECT count(*) FROM {}.{}",
            quote_ident(&rel.schema),
            quote_ident(&rel.name)
        );
        let n: i64 = client
            .query_one(&q, &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| db_err(&format!("cannot count the rows of {name}"), e))?;
        Some(n as f64)
    } else {
        None
    };

    let (mut columns, attnums) = read_columns(client, &rel, warnings)?;
    let indexes = read_indexes(client, &rel, &columns, &attnums, warnings)?;
    if !options.raw_histograms {
        actual_endpoints(client, &rel, &mut columns, &indexes)?;
    }
    let mut table = Table {
        name: rel.name.clone(),
        rows: 0.0,
        columns,
        indexes,
        pg: Some(PgTable {
            pages,
            reltuples,
            relpages,
            relallvisible: rel.relallvisible.max(0) as f64,
        }),
        mysql: None,
    };
    let (rows, warning) = uncounted_rows(&table)?;
    table.rows = counted.unwrap_or(rows);
    warnings.extend(warning);
    Ok(table)
}

/// The rows of an imported table as the planner estimates them (`estimate_rel_size`,
/// spec 2.1), and for a never-analysed table (reltuples -1) the warning that says how:
/// PostgreSQL plans a heap of fewer than 10 pages as 10 pages, with as many rows as the
/// column widths fit, and so does the scenario.
fn uncounted_rows(table: &Table) -> Result<(f64, Option<String>), ImportError> {
    let (pages, tuples) = costlab_core::pg::estimate_rel_size(table)
        .map_err(|e| ImportError(format!("{}: {e}", table.name)))?;
    let never_analysed = table.pg.as_ref().is_some_and(|p| p.reltuples < 0.0);
    let warning = never_analysed.then(|| {
        let physical = table.pg.as_ref().map_or(0.0, |p| p.pages);
        format!(
            "{}: never vacuumed or analyzed (reltuples = -1); as PostgreSQL's planner does, it is taken as {pages} pages{} of {tuples} rows (the density its column widths give); run VACUUM ANALYZE for real statistics",
            table.name,
            if physical < 10.0 {
                format!(" (the heap has {physical}; a never-vacuumed heap of fewer than 10 counts as 10)")
            } else {
                String::new()
            }
        )
    });
    Ok((tuples, warning))
}

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// How a column's statistic values are read.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Number,
    Date,
    Text,
    Bool,
    /// A type costlab has no ordering for: statistics values are dropped.
    Opaque,
}

fn column_type(typname: &str, typmod: i32) -> (ColumnType, Kind) {
    match typname {
        "int2" | "int4" => (ColumnType::Int4, Kind::Number),
        "int8" => (ColumnType::Int8, Kind::Number),
        "float4" | "float8" => (ColumnType::Float8, Kind::Number),
        "numeric" => (ColumnType::Numeric, Kind::Number),
        "date" => (ColumnType::Date, Kind::Date),
        "text" | "varchar" | "name" => (ColumnType::Text, Kind::Text),
        "bpchar" => (
            ColumnType::Char(if typmod > 4 { (typmod - 4) as u32 } else { 1 }),
            Kind::Text,
        ),
        "bool" => (ColumnType::Bool, Kind::Bool),
        // ANALYZE keeps no values for a point (no ordering, no equality): null_frac and
        // avg_width only, which is what the model uses.
        "point" => (ColumnType::Point, Kind::Opaque),
        _ => (ColumnType::Text, Kind::Opaque),
    }
}

fn to_value(kind: Kind, s: &str) -> Option<Value> {
    match kind {
        Kind::Number => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Value::Num),
        Kind::Date => costlab_core::date::parse(s)
            .ok()
            .map(|d| Value::Num(d as f64)),
        Kind::Text => Some(Value::Text(s.to_string())),
        Kind::Bool => match s {
            "t" | "true" => Some(Value::Num(1.0)),
            "f" | "false" => Some(Value::Num(0.0)),
            _ => None,
        },
        Kind::Opaque => None,
    }
}

/// Parses a pg_stats array; `None` (with a warning) when a value cannot be represented.
fn stat_values(
    kind: Kind,
    text: &str,
    what: &str,
    warnings: &mut Vec<String>,
) -> Option<Vec<Value>> {
    let items = match pgarray::parse(text) {
        Ok(items) => items,
        Err(e) => {
            warnings.push(format!("{what}: dropped, {e}"));
            return None;
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item.as_deref().and_then(|s| to_value(kind, s)) {
            Some(v) => out.push(v),
            None => {
                warnings.push(format!(
                    "{what}: dropped, the value `{}` cannot be represented (infinite, NULL or out of range)",
                    item.as_deref().unwrap_or("NULL")
                ));
                return None;
            }
        }
    }
    Some(out)
}

fn read_columns(
    client: &mut Client,
    rel: &RelInfo,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Column>, Vec<i16>), ImportError> {
    let ctx = format!("cannot read the columns of {}", rel.name);
    let rows = client
        .query(
            "SELECT a.attname::text, a.attnum, \
                    (SELECT b.typname::text FROM pg_type b \
                      WHERE b.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END), \
                    a.atttypmod, a.attnotnull, \
                    s.null_frac, s.n_distinct, s.most_common_vals::text, s.most_common_freqs, \
                    s.histogram_bounds::text, s.correlation, s.avg_width, s.attname IS NOT NULL \
             FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
             LEFT JOIN pg_stats s ON s.schemaname = $2 AND s.tablename = $3 \
                                 AND s.attname = a.attname AND NOT s.inherited \
             WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attnum",
            &[&rel.oid, &rel.schema, &rel.name],
        )
        .map_err(|e| db_err(&ctx, e))?;
    let mut columns = Vec::new();
    let mut attnums = Vec::new();
    let mut unanalyzed = Vec::new();
    for row in rows {
        let get = |e| db_err(&ctx, e);
        let name: String = row.try_get(0).map_err(get)?;
        let attnum: i16 = row.try_get(1).map_err(get)?;
        let typname: String = row.try_get(2).map_err(get)?;
        let typmod: i32 = row.try_get(3).map_err(get)?;
        let not_null: bool = row.try_get(4).map_err(get)?;
        let has_stats: bool = row.try_get(12).map_err(get)?;
        let (ty, kind) = column_type(&typname, typmod);
        if kind == Kind::Opaque && ty != ColumnType::Point {
            warnings.push(format!(
                "{}.{name}: type {typname} is imported as text without its value statistics",
                rel.name
            ));
        }
        let mut stats = ColumnStats::default();
        if has_stats {
            let null_frac: Option<f32> = row.try_get(5).map_err(get)?;
            let n_distinct: Option<f32> = row.try_get(6).map_err(get)?;
            let mcv_text: Option<String> = row.try_get(7).map_err(get)?;
            let mcv_freqs: Option<Vec<f32>> = row.try_get(8).map_err(get)?;
            let hist_text: Option<String> = row.try_get(9).map_err(get)?;
            let correlation: Option<f32> = row.try_get(10).map_err(get)?;
            let avg_width: Option<i32> = row.try_get(11).map_err(get)?;
            stats.null_frac = null_frac.unwrap_or(0.0) as f64;
            stats.n_distinct = n_distinct.unwrap_or(0.0) as f64;
            stats.correlation = correlation.unwrap_or(0.0) as f64;
            stats.avg_width = avg_width.unwrap_or(0) as f64;
            let col = format!("{}.{name}", rel.name);
            if let (Some(text), Some(freqs)) = (mcv_text, mcv_freqs) {
                if let Some(vals) =
                    stat_values(kind, &text, &format!("{col} most_common_vals"), warnings)
                {
                    if vals.len() == freqs.len() {
                        stats.mcv = vals
                            .into_iter()
                            .zip(freqs.into_iter().map(|f| f as f64))
                            .collect();
                    } else {
                        warnings.push(format!(
                            "{col}: {} most common values but {} frequencies; dropped",
                            vals.len(),
                            freqs.len()
                        ));
                    }
                }
            }
            if let Some(text) = hist_text {
                if let Some(vals) =
                    stat_values(kind, &text, &format!("{col} histogram_bounds"), warnings)
                {
                    stats.histogram = vals;
                }
            }
        } else {
            unanalyzed.push(name.clone());
        }
        attnums.push(attnum);
        columns.push(Column {
            name,
            ty,
            not_null,
            stats,
        });
    }
    if !unanalyzed.is_empty() {
        warnings.push(format!(
            "{}: no statistics for {} (run ANALYZE)",
            rel.name,
            unanalyzed.join(", ")
        ));
    }
    Ok((columns, attnums))
}

fn read_indexes(
    client: &mut Client,
    rel: &RelInfo,
    columns: &[Column],
    attnum_list: &[i16],
    warnings: &mut Vec<String>,
) -> Result<Vec<Index>, ImportError> {
    let ctx = format!("cannot read the indexes of {}", rel.name);
    let rows = client
        .query(
            "SELECT c.relname::text, i.indexrelid, i.indnkeyatts, i.indkey::int2[], i.indisunique, \
                    i.indisprimary, i.indexprs IS NOT NULL, i.indpred IS NOT NULL, am.amname::text, \
                    pg_relation_size(i.indexrelid), i.indisvalid \
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             JOIN pg_am am ON am.oid = c.relam \
             WHERE i.indrelid = $1 ORDER BY c.relname",
            &[&rel.oid],
        )
        .map_err(|e| db_err(&ctx, e))?;
    let mut indexes = Vec::new();
    let mut pageinspect: Option<Result<(), String>> = None;
    for row in rows {
        let get = |e| db_err(&ctx, e);
        let name: String = row.try_get(0).map_err(get)?;
        let oid: u32 = row.try_get(1).map_err(get)?;
        let nkey: i16 = row.try_get(2).map_err(get)?;
        let attnums: Vec<i16> = row.try_get(3).map_err(get)?;
        let unique: bool = row.try_get(4).map_err(get)?;
        let primary: bool = row.try_get(5).map_err(get)?;
        let has_exprs: bool = row.try_get(6).map_err(get)?;
        let partial: bool = row.try_get(7).map_err(get)?;
        let am: String = row.try_get(8).map_err(get)?;
        let bytes: i64 = row.try_get(9).map_err(get)?;
        let valid: bool = row.try_get(10).map_err(get)?;
        let method = match am.as_str() {
            "btree" => Some(IndexMethod::Btree),
            "gist" => Some(IndexMethod::Gist),
            _ => None,
        };
        let skip = if method.is_none() {
            Some(format!("a {am} index"))
        } else if partial {
            Some("a partial index".to_string())
        } else if !valid {
            Some("not valid (being built?)".to_string())
        } else {
            None
        };
        if let Some(why) = skip {
            warnings.push(format!(
                "{}: index {name} is skipped: {why}, which costlab does not model",
                rel.name
            ));
            continue;
        }
        let mut names = Vec::new();
        let mut expressions = Vec::new();
        if has_exprs {
            expressions = index_expressions(client, rel, oid, &name, &attnums, warnings)?;
        }
        for (k, &a) in attnums.iter().enumerate() {
            if a == 0 {
                match expressions.iter().find(|(pos, _)| *pos == k) {
                    Some((_, e)) => names.push(e.name.clone()),
                    None => {
                        return Err(ImportError(format!(
                            "index {name}: cannot read its expression number {}",
                            k + 1
                        )))
                    }
                }
                continue;
            }
            match attnum_list.iter().position(|&n| n == a) {
                Some(i) => names.push(columns[i].name.clone()),
                None => {
                    return Err(ImportError(format!(
                        "index {name} refers to column number {a} of {}, which was not read",
                        rel.name
                    )))
                }
            }
        }
        let nkey = (nkey.max(0) as usize).min(names.len());
        let include = names.split_off(nkey);
        let method = method.unwrap_or_default();
        if method == IndexMethod::Gist {
            // The model's GiST is point_ops: keys of any other type are skipped.
            let key_type = |k: &String| match expressions.iter().find(|(_, e)| e.name == *k) {
                Some((_, e)) => e.ty.clone(),
                None => columns
                    .iter()
                    .find(|c| c.name == *k)
                    .map_or(ColumnType::Text, |c| c.ty.clone()),
            };
            if let Some(k) = names.iter().find(|k| key_type(k) != ColumnType::Point) {
                warnings.push(format!(
                    "{}: index {name} is skipped: a gist index on {k}, which is not a point; \
                     costlab models GiST over points only",
                    rel.name
                ));
                continue;
            }
        }
        // plancat.c reads a root level from btrees only.
        let tree_height = match method {
            IndexMethod::Btree => tree_height(client, oid, &name, &mut pageinspect, warnings),
            IndexMethod::Gist => -1.0,
        };
        indexes.push(Index {
            name,
            columns: names,
            include,
            unique,
            primary,
            pg: Some(PgIndex {
                pages: (bytes / 8192) as f64,
                tree_height,
            }),
            mysql: None,
            expressions: expressions.into_iter().map(|(_, e)| e).collect(),
            method,
        });
    }
    Ok(indexes)
}

/// The expression keys of index `oid` (positions in its key list, 0-based) with the
/// statistics ANALYZE gathered for them: pg_stats holds them under the index's name, one
/// row per expression column (named `fnorm`, `lower`, ... by the server). Each is named
/// by its text as pg_get_indexdef prints it, which the planner matches queries against.
fn index_expressions(
    client: &mut Client,
    rel: &RelInfo,
    oid: u32,
    name: &str,
    attnums: &[i16],
    warnings: &mut Vec<String>,
) -> Result<Vec<(usize, Column)>, ImportError> {
    let index_rel = RelInfo {
        oid,
        schema: rel.schema.clone(),
        name: name.to_string(),
        kind: "i".into(),
        heap_bytes: 0,
        reltuples: 0.0,
        relpages: 0,
        relallvisible: 0,
        spcoptions: None,
    };
    let mut own = Vec::new();
    let (columns, index_attnums) = read_columns(client, &index_rel, &mut own)?;
    let ctx = format!("cannot read the expressions of index {name}");
    let mut out = Vec::new();
    for (k, &a) in attnums.iter().enumerate() {
        if a != 0 {
            continue;
        }
        let pos = (k + 1) as i32;
        let text: String = client
            .query_one("SELECT pg_get_indexdef($1, $2, true)", &[&oid, &pos])
            .and_then(|r| r.try_get(0))
            .map_err(|e| db_err(&ctx, e))?;
        let Some(i) = index_attnums.iter().position(|&n| n as i32 == pos) else {
            continue;
        };
        let mut col = columns[i].clone();
        if col.stats == ColumnStats::default() {
            warnings.push(format!(
                "{}: no statistics for the expression {text} of index {name} (run ANALYZE)",
                rel.name
            ));
        }
        // An index column's type is what the index stores (opckeytype: a GiST over points
        // stores boxes); the expression's own type is the operator class's input type.
        let input: String = client
            .query_one(
                "SELECT t.typname::text FROM pg_index i JOIN pg_opclass o \
                 ON o.oid = (i.indclass::oid[])[$2] JOIN pg_type t ON t.oid = o.opcintype \
                 WHERE i.indexrelid = $1",
                &[&oid, &(k as i32)],
            )
            .and_then(|r| r.try_get(0))
            .map_err(|e| db_err(&ctx, e))?;
        if input == "point" {
            col.ty = ColumnType::Point;
        }
        // An expression is not declared NOT NULL; its null_frac says how often it is.
        col.not_null = false;
        col.name = text;
        out.push((k, col));
    }
    Ok(out)
}

/// For a numeric or date column that leads a btree index, PostgreSQL's
/// ineq_histogram_selectivity does not trust the histogram's end bounds: when its binary
/// search touches the first or last bound, `get_actual_variable_range` (selfuncs.c) reads the
/// column's current minimum or maximum from the index and uses that instead (spec 7.4).
/// costlab's model takes the histogram's ends to be what that lookup returns, so the import
/// writes the actual minimum and maximum there (ANALYZE's sample rarely contains the true
/// extremes: for 1M uniform values in 0..1e6 the first bound is typically near 100, and
/// `a < 100` is then estimated at 12 rows instead of PostgreSQL's 94).
fn actual_endpoints(
    client: &mut Client,
    rel: &RelInfo,
    columns: &mut [Column],
    indexes: &[Index],
) -> Result<(), ImportError> {
    for col in columns.iter_mut() {
        let leads = indexes
            .iter()
            .any(|i| i.columns.first().is_some_and(|c| *c == col.name));
        let kind = match col.ty {
            ColumnType::Int4 | ColumnType::Int8 | ColumnType::Float8 | ColumnType::Numeric => {
                Kind::Number
            }
            ColumnType::Date => Kind::Date,
            _ => continue,
        };
        let n = col.stats.histogram.len();
        if !leads || n < 2 {
            continue;
        }
        let q = format!(
            "SELECT min({c})::text, max({c})::text FROM {}.{}",
            quote_ident(&rel.schema),
            quote_ident(&rel.name),
            c = quote_ident(&col.name)
        );
        let row = client.query_one(&q, &[]).map_err(|e| {
            db_err(
                &format!("cannot read the range of {}.{}", rel.name, col.name),
                e,
            )
        })?;
        let get = |i: usize| -> Option<Value> {
            row.try_get::<_, Option<String>>(i)
                .ok()
                .flatten()
                .and_then(|s| to_value(kind, &s))
        };
        let h = &mut col.stats.histogram;
        if let (Some(Value::Num(lo)), Some(first)) = (get(0), h[0].as_f64()) {
            if lo < first {
                h[0] = Value::Num(lo);
            }
        }
        if let (Some(Value::Num(hi)), Some(last)) = (get(1), h[n - 1].as_f64()) {
            if hi > last {
                h[n - 1] = Value::Num(hi);
            }
        }
    }
    Ok(())
}

/// The btree's fast-root level from its metapage (what `_bt_getrootheight` returns), or -1
/// when pageinspect is unavailable (not installed, or not allowed for this user).
fn tree_height(
    client: &mut Client,
    index: u32,
    name: &str,
    pageinspect: &mut Option<Result<(), String>>,
    warnings: &mut Vec<String>,
) -> f64 {
    if pageinspect.is_none() {
        let r = client
            .batch_execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
            .map_err(|e| {
                one_line(
                    &e.as_db_error()
                        .map(|d| d.message().to_string())
                        .unwrap_or_else(|| e.to_string()),
                )
            });
        *pageinspect = Some(r);
    }
    if let Some(Err(why)) = pageinspect {
        warnings.push(format!(
            "index {name}: tree height unknown (-1), pageinspect is not available: {why}"
        ));
        return -1.0;
    }
    match client
        .query_one(
            "SELECT fastlevel::int8 FROM bt_metap($1::oid::regclass::text)",
            &[&index],
        )
        .and_then(|r| r.try_get::<_, i64>(0))
    {
        Ok(level) => level as f64,
        Err(e) => {
            let why = e
                .as_db_error()
                .map(|d| d.message().to_string())
                .unwrap_or_else(|| e.to_string());
            warnings.push(one_line(&format!(
                "index {name}: tree height unknown (-1), bt_metap failed: {why}"
            )));
            -1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_units_convert_to_kb() {
        assert_eq!(kb(524288.0, "8kB", "x").unwrap() / 1024.0, 4096.0);
        assert_eq!(kb(4096.0, "kB", "x").unwrap(), 4096.0);
        assert_eq!(kb(2.0, "MB", "x").unwrap(), 2048.0);
        assert!(kb(1.0, "furlongs", "x").is_err());
    }

    #[test]
    fn values_by_type() {
        assert_eq!(to_value(Kind::Number, "42"), Some(Value::Num(42.0)));
        assert_eq!(to_value(Kind::Number, "Infinity"), None);
        assert_eq!(to_value(Kind::Date, "1970-01-02"), Some(Value::Num(1.0)));
        assert_eq!(to_value(Kind::Bool, "t"), Some(Value::Num(1.0)));
        assert_eq!(to_value(Kind::Text, "a b"), Some(Value::Text("a b".into())));
        let mut w = Vec::new();
        assert_eq!(
            stat_values(Kind::Number, "{1,2.5}", "x", &mut w),
            Some(vec![Value::Num(1.0), Value::Num(2.5)])
        );
        assert!(stat_values(Kind::Date, "{infinity}", "x", &mut w).is_none());
        assert_eq!(w.len(), 1);
        assert_eq!(column_type("bpchar", 14).0, ColumnType::Char(10));
    }

    fn never_analysed(columns: &[(&str, ColumnType)], pages: f64) -> Table {
        Table {
            name: "fresh".into(),
            rows: 0.0,
            columns: columns
                .iter()
                .map(|(n, ty)| Column {
                    name: (*n).into(),
                    ty: ty.clone(),
                    stats: ColumnStats::default(),
                    not_null: false,
                })
                .collect(),
            indexes: Vec::new(),
            pg: Some(PgTable {
                pages,
                reltuples: -1.0,
                relpages: 0.0,
                relallvisible: 0.0,
            }),
            mysql: None,
        }
    }

    /// A never-analysed table imports with the rows PostgreSQL plans it with, not 0.
    /// PostgreSQL 15 (`postgres --single`, 2026-12-01), fresh tables: `CREATE TABLE t2 (a
    /// int, b int); EXPLAIN SELECT * FROM t2` prints `rows=2260` (10 pages × floor(8168 /
    /// (8 + 28))); (bigint, text, date) `rows=1130` (10 × floor(8168 / (8 + 32 + 4 + 28)));
    /// (int, int) with 22,600 rows inserted (100 pages, reltuples still -1) `rows=22600`.
    #[test]
    fn never_analysed_tables_get_the_planners_rows() {
        let t = never_analysed(&[("a", ColumnType::Int4), ("b", ColumnType::Int4)], 0.0);
        let (rows, warning) = uncounted_rows(&t).unwrap();
        assert_eq!(rows, 2260.0);
        let w = warning.expect("a warning");
        assert!(w.contains("10 pages") && w.contains("2260 rows"), "{w}");
        assert!(w.contains("reltuples = -1") && !w.contains('\n'), "{w}");
        let t = never_analysed(
            &[
                ("id", ColumnType::Int8),
                ("v", ColumnType::Text),
                ("d", ColumnType::Date),
            ],
            3.0,
        );
        assert_eq!(uncounted_rows(&t).unwrap().0, 1130.0);
        // A heap of 100 pages loaded but never analysed: its own pages at that density.
        let t = never_analysed(&[("a", ColumnType::Int4), ("b", ColumnType::Int4)], 100.0);
        let (rows, warning) = uncounted_rows(&t).unwrap();
        assert_eq!(rows, 22_600.0);
        assert!(!warning.unwrap().contains("fewer than 10"));
        // Analysed: the stored density over the current pages, no warning.
        let mut t = t;
        t.pg = Some(PgTable {
            pages: 120.0,
            reltuples: 10_000.0,
            relpages: 100.0,
            relallvisible: 0.0,
        });
        assert_eq!(uncounted_rows(&t).unwrap(), (12_000.0, None));
    }

    #[test]
    fn messages_are_one_line() {
        assert_eq!(one_line("a\n  b\n\nc"), "a; b; c");
    }
}
