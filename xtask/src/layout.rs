//! `cargo xtask layout [--write-allowlist]`: a check of the code's layout that can fail.
//!
//! It parses every library and binary target of the workspace's members (each one crate,
//! its module tree followed from the root file through `mod` declarations, `#[path]`
//! included; whatever is under `#[cfg(test)]` or `#[test]` left out) and reports four rules:
//!
//! 1. no import cycle between the modules of one crate. A module depends on another through
//!    every `use` item (re-exports and groups included; a path that starts with `crate`,
//!    `super`, `self` or one of the module's own child modules) and every path in its code
//!    (types, expressions, patterns, traits, macros and the paths in a macro's tokens) that
//!    starts with `crate::`, `super::` or `self::`. Each names the deepest module of the
//!    crate that its path reaches: `crate::pg::join::setup::Block` is module
//!    `pg::join::setup`, `super::Foo` the parent. Declaring a child (`mod child;`) and
//!    visibility (`pub(super)`, `pub(in crate::x)`) are no dependency. Every strongly
//!    connected component of two or more modules is one cycle;
//! 2. no file of those module trees over [`MAX_FILE_LINES`] lines (test-only modules are not
//!    in the trees; benches, examples, build scripts and tests/ are no library or binary);
//! 3. no function (free, in an impl or a trait) over [`MAX_FN_LINES`] lines, from its `fn`
//!    to its closing brace, in the planners ([`PLANNER_ROOTS`]);
//! 4. no query text in the planners: no read of a field named `sql` (`JoinQuery::sql`,
//!    `Filter::sql`, the text the front end read). The planners read the front end's typed
//!    blocks and expressions (`costlab_model::expr`); a query's text is for display and
//!    for a workload to find its truth by.
//!
//! Main has violations; `xtask/layout-allow.txt` lists them, one key a line. The check fails
//! on a violation not listed and on a listed one that no longer occurs, so the list only
//! shrinks and stays exact. `--write-allowlist` writes it from the code as it is.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Attribute, ImplItem, Item, Meta, TraitItem, UseTree};

/// The allowlist, relative to the workspace root.
pub const ALLOWLIST: &str = "xtask/layout-allow.txt";
/// Rule 2: a file of a library or binary over this many lines is a violation.
pub const MAX_FILE_LINES: usize = 1200;
/// Rule 3: a planner function over this many lines is a violation.
pub const MAX_FN_LINES: usize = 200;

/// Where the planners live, for rule 3: a package and a module path inside its crates
/// (`""`: the whole crate). The check fails when none of them matches anything, so a rename
/// cannot turn rule 3 off.
pub const PLANNER_ROOTS: &[(&str, &str)] = &[("costlab-pg", ""), ("costlab-mysql", "")];

pub fn run(args: &[String]) -> Result<(), String> {
    match args {
        [] => check(),
        [flag] if flag == "--write-allowlist" => write_allowlist(),
        _ => Err(format!(
            "unknown arguments {args:?}\nusage: cargo xtask layout [--write-allowlist]"
        )),
    }
}

/// The check as `cargo xtask test` runs it: the report, then an error when a violation is
/// new or an allowlist entry stale.
pub fn check() -> Result<(), String> {
    let root = crate::workspace::root();
    let found = workspace_violations(&root)?;
    let path = root.join(ALLOWLIST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!("cannot read {ALLOWLIST}: {e} (cargo xtask layout --write-allowlist makes it)")
    })?;
    let allowed = parse_allowlist(&text);
    let diff = Diff::new(&found, &allowed);
    print!("{}", report(&found, &diff));
    if diff.new.is_empty() && diff.stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "layout: {} new violations, {} stale entries in {ALLOWLIST}",
            diff.new.len(),
            diff.stale.len()
        ))
    }
}

fn write_allowlist() -> Result<(), String> {
    let root = crate::workspace::root();
    let found = workspace_violations(&root)?;
    let mut text = String::from(
        "# cargo xtask layout's allowlist: the layout violations the code has, one a line.\n\
         # The check fails on a violation not listed here and on a line that no longer occurs:\n\
         # fix one, delete its line. Written by `cargo xtask layout --write-allowlist`.\n",
    );
    for v in &found {
        text.push_str(&v.key);
        text.push('\n');
    }
    std::fs::write(root.join(ALLOWLIST), text)
        .map_err(|e| format!("cannot write {ALLOWLIST}: {e}"))?;
    print!(
        "{}",
        report(
            &found,
            &Diff::new(&found, &found.iter().map(|v| v.key.clone()).collect())
        )
    );
    println!("layout: wrote {} entries to {ALLOWLIST}", found.len());
    Ok(())
}

// ---- the workspace ------------------------------------------------------------------------

/// One crate to check: a library or binary target of a workspace member.
struct Target {
    package: String,
    /// The package's name for its library, `package (bin name)` for a binary.
    label: String,
    src: PathBuf,
}

/// The library and binary targets of the workspace's members, from `cargo metadata`.
fn targets(root: &Path) -> Result<Vec<Target>, String> {
    let out = crate::workspace::cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str())
        .collect();
    let mut found = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        if !members.contains(package["id"].as_str().unwrap_or("")) {
            continue;
        }
        let name = package["name"].as_str().unwrap_or("?");
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds: Vec<&str> = target["kind"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str())
                .collect();
            let bin = kinds.contains(&"bin");
            let lib = kinds.iter().any(|k| {
                matches!(
                    *k,
                    "lib" | "rlib" | "dylib" | "cdylib" | "staticlib" | "proc-macro"
                )
            });
            if !bin && !lib {
                continue; // tests, benches, examples, build scripts
            }
            let label = if lib {
                name.to_string()
            } else {
                format!("{name} (bin {})", target["name"].as_str().unwrap_or("?"))
            };
            let src = target["src_path"]
                .as_str()
                .ok_or("a target without src_path")?;
            found.push(Target {
                package: name.to_string(),
                label,
                src: PathBuf::from(src),
            });
        }
    }
    Ok(found)
}

fn workspace_violations(root: &Path) -> Result<Vec<Violation>, String> {
    // One thread per crate: parsing is most of the time (about 2 s in xtask's debug build).
    // A syn tree cannot leave its thread, so each thread returns the crate's violations.
    let targets = targets(root)?;
    let per_crate = std::thread::scope(|s| {
        let threads: Vec<_> = targets
            .iter()
            .map(|t| {
                s.spawn(move || {
                    let c = load_crate(&Disk, &t.package, &t.label, &t.src, root)?;
                    Ok((violations(&c), c.modules.iter().any(|m| m.planner)))
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err("layout: a parser thread panicked".into()))
            })
            .collect::<Result<Vec<_>, String>>()
    })?;
    if !per_crate.iter().any(|(_, planner)| *planner) {
        return Err(format!(
            "layout: no module matches PLANNER_ROOTS {PLANNER_ROOTS:?} (xtask/src/layout.rs): \
             where did the planners go?"
        ));
    }
    // A file in two crates' trees (a library's and a binary's) is one violation.
    let mut found: BTreeMap<(Rule, String), Violation> = BTreeMap::new();
    for v in per_crate.into_iter().flat_map(|(v, _)| v) {
        found.entry((v.rule, v.key.clone())).or_insert(v);
    }
    Ok(found.into_values().collect())
}

// ---- reading a crate's module tree ------------------------------------------------------

/// Where source files come from: the disk, or a map in the tests.
trait Files {
    fn read(&self, path: &Path) -> Option<String>;
}

struct Disk;

impl Files for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

impl Files for BTreeMap<PathBuf, String> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path).cloned()
    }
}

struct Module {
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Its path from the crate root, `crate` for the root.
    path: String,
    /// Inside [`PLANNER_ROOTS`].
    planner: bool,
}

struct SrcFile {
    /// As shown: relative to the workspace root.
    shown: String,
    lines: usize,
    ast: syn::File,
    /// The module whose file this is.
    module: usize,
}

/// Where one use of another module is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Site {
    file: usize,
    line: usize,
}

struct LongFn {
    file: usize,
    name: String,
    first: usize,
    last: usize,
}

struct CrateModel {
    label: String,
    modules: Vec<Module>,
    files: Vec<SrcFile>,
    /// (from, to) -> the first use that makes the edge.
    edges: BTreeMap<(usize, usize), Site>,
    long_fns: Vec<LongFn>,
    /// Rule 4: where a planner reads a field named `sql`.
    text_reads: Vec<Site>,
}

fn load_crate(
    files: &dyn Files,
    package: &str,
    label: &str,
    src: &Path,
    shown_base: &Path,
) -> Result<CrateModel, String> {
    let mut loader = Loader {
        files,
        package,
        shown_base,
        modules: vec![Module {
            parent: None,
            children: BTreeMap::new(),
            path: "crate".into(),
            planner: is_planner(package, ""),
        }],
        files_out: Vec::new(),
        inline: HashMap::new(),
    };
    loader.load_file(src, 0, true)?;
    let Loader {
        modules,
        files_out,
        inline,
        ..
    } = loader;
    let mut model = CrateModel {
        label: label.to_string(),
        modules,
        files: files_out,
        edges: BTreeMap::new(),
        long_fns: Vec::new(),
        text_reads: Vec::new(),
    };
    for file in 0..model.files.len() {
        let mut v = Collector {
            model: &model,
            inline: &inline,
            file,
            module: model.files[file].module,
            inline_path: Vec::new(),
            in_body: 0,
            owner: None,
            edges: Vec::new(),
            fns: Vec::new(),
            text_reads: Vec::new(),
        };
        v.visit_file(&model.files[file].ast);
        let (edges, fns, text_reads) = (v.edges, v.fns, v.text_reads);
        for (from, to, site) in edges {
            if from != to {
                let e = model.edges.entry((from, to)).or_insert(site);
                *e = (*e).min(site);
            }
        }
        if model.modules[model.files[file].module].planner {
            model.long_fns.extend(fns);
            model.text_reads.extend(text_reads);
        }
    }
    Ok(model)
}

fn is_planner(package: &str, module: &str) -> bool {
    PLANNER_ROOTS.iter().any(|&(p, m)| {
        p == package
            && (m.is_empty()
                || module == m
                || module
                    .strip_prefix(m)
                    .is_some_and(|rest| rest.starts_with("::")))
    })
}

struct Loader<'a> {
    files: &'a dyn Files,
    package: &'a str,
    shown_base: &'a Path,
    modules: Vec<Module>,
    files_out: Vec<SrcFile>,
    /// (file, line, column of the `mod` item's name) -> the inline module it declares.
    inline: HashMap<(usize, usize, usize), usize>,
}

impl Loader<'_> {
    /// Reads and parses the file of `module`; `mod_rs`: its children are beside it (a root
    /// file, a mod.rs, a file named by `#[path]`), not in a folder named after it.
    fn load_file(&mut self, path: &Path, module: usize, mod_rs: bool) -> Result<(), String> {
        let shown = path
            .strip_prefix(self.shown_base)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        let text = self
            .files
            .read(path)
            .ok_or_else(|| format!("cannot read {shown}"))?;
        let ast = syn::parse_file(&text).map_err(|e| {
            let at = e.span().start();
            format!("{shown}:{}:{}: {e}", at.line, at.column + 1)
        })?;
        if test_only(&ast.attrs) {
            // `#![cfg(test)]`: a test-only module after all.
            if let Some(parent) = self.modules[module].parent {
                self.modules[parent].children.retain(|_, m| *m != module);
            }
            return Ok(());
        }
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let children_dir = if mod_rs {
            dir.clone()
        } else {
            dir.join(path.file_stem().unwrap_or_default())
        };
        let file = self.files_out.len();
        self.files_out.push(SrcFile {
            shown,
            lines: text.lines().count(),
            ast,
            module,
        });
        let items = std::mem::take(&mut self.files_out[file].ast.items);
        let result = self.declare(&items, module, file, &children_dir, &dir);
        self.files_out[file].ast.items = items;
        result
    }

    /// Adds the modules that `items` declare below `module`. `children_dir`: where their
    /// files are; `path_base`: what a `#[path]` is relative to.
    fn declare(
        &mut self,
        items: &[Item],
        module: usize,
        file: usize,
        children_dir: &Path,
        path_base: &Path,
    ) -> Result<(), String> {
        for item in items {
            let Item::Mod(m) = item else { continue };
            if test_only(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            let id = self.modules.len();
            let path = if module == 0 {
                name.clone()
            } else {
                format!("{}::{name}", self.modules[module].path)
            };
            self.modules.push(Module {
                parent: Some(module),
                children: BTreeMap::new(),
                planner: is_planner(self.package, &path),
                path,
            });
            // Two declarations of one name (under exclusive cfgs): paths reach the first.
            self.modules[module]
                .children
                .entry(name.clone())
                .or_insert(id);
            if let Some((_, inner)) = &m.content {
                let at = m.ident.span().start();
                self.inline.insert((file, at.line, at.column), id);
                let dir = children_dir.join(&name);
                self.declare(inner, id, file, &dir, &dir)?;
                continue;
            }
            if let Some(p) = path_attr(&m.attrs) {
                self.load_file(&path_base.join(p), id, true)?;
                continue;
            }
            let flat = children_dir.join(format!("{name}.rs"));
            let nested = children_dir.join(&name).join("mod.rs");
            if self.files.read(&flat).is_some() {
                self.load_file(&flat, id, false)?;
            } else if self.files.read(&nested).is_some() {
                self.load_file(&nested, id, true)?;
            } else {
                return Err(format!(
                    "{}:{}: mod {name}: neither {} nor {} exists",
                    self.files_out[file].shown,
                    m.ident.span().start().line,
                    flat.display(),
                    nested.display()
                ));
            }
        }
        Ok(())
    }
}

fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// `#[cfg(test)]`, `#[cfg(all(test, ...))]` or a test function's `#[test]`.
fn test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        path.is_ident("cfg") && a.parse_args::<Meta>().is_ok_and(|m| cfg_needs_test(&m))
    })
}

fn cfg_needs_test(meta: &Meta) -> bool {
    match meta {
        Meta::Path(p) => p.is_ident("test"),
        Meta::List(l) if l.path.is_ident("all") => l
            .parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            .is_ok_and(|all| all.iter().any(cfg_needs_test)),
        _ => false,
    }
}

// ---- what a module uses -----------------------------------------------------------------

impl CrateModel {
    /// The deepest module that `segments` reach from `from`: the path starts with `crate`,
    /// `super` (once or more) or `self`, or, with `relative` (a `use` path), with a child
    /// module of `from`. None for anything else (another crate, a local item).
    fn resolve(&self, from: usize, segments: &[String], relative: bool) -> Option<usize> {
        let (mut at, mut rest) = match segments.first().map(String::as_str)? {
            "crate" => (0, &segments[1..]),
            "self" => (from, &segments[1..]),
            "super" => {
                let mut at = from;
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                (at, rest)
            }
            first if relative && self.modules[from].children.contains_key(first) => {
                (from, segments)
            }
            _ => return None,
        };
        while let Some(next) = rest.first().and_then(|s| self.modules[at].children.get(s)) {
            at = *next;
            rest = &rest[1..];
        }
        Some(at)
    }
}

/// Walks one file: the edges of its modules and, in the planners, the long functions.
struct Collector<'a> {
    model: &'a CrateModel,
    inline: &'a HashMap<(usize, usize, usize), usize>,
    file: usize,
    module: usize,
    /// The inline modules from the file's module down to here, for function names.
    inline_path: Vec<String>,
    /// Inside a function's body (nested items are part of it).
    in_body: usize,
    /// The impl's `Type`, `<Type as Trait>` or the trait's name around a method.
    owner: Option<String>,
    edges: Vec<(usize, usize, Site)>,
    fns: Vec<LongFn>,
    text_reads: Vec<Site>,
}

impl Collector<'_> {
    fn edge(&mut self, segments: &[String], span: Span, relative: bool) {
        if let Some(to) = self.model.resolve(self.module, segments, relative) {
            let site = Site {
                file: self.file,
                line: span.start().line,
            };
            self.edges.push((self.module, to, site));
        }
    }

    fn use_tree(&mut self, tree: &UseTree, prefix: &mut Vec<String>) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix);
                prefix.pop();
            }
            UseTree::Name(n) => self.use_leaf(&n.ident, prefix),
            UseTree::Rename(r) => self.use_leaf(&r.ident, prefix),
            UseTree::Glob(g) => {
                let prefix = prefix.clone();
                self.edge(&prefix, g.star_token.span, true);
            }
            UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix);
                }
            }
        }
    }

    fn use_leaf(&mut self, ident: &syn::Ident, prefix: &[String]) {
        let mut path = prefix.to_vec();
        if ident != "self" || path.is_empty() {
            path.push(ident.to_string());
        }
        self.edge(&path, ident.span(), true);
    }

    /// Paths in a macro's tokens: `crate`, `super` or `self` followed by `::`.
    fn macro_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => self.macro_tokens(g.stream()),
                TokenTree::Ident(id)
                    if (id == "crate" || id == "super" || id == "self")
                        && colons(&tokens, i + 1) =>
                {
                    let span = id.span();
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while colons(&tokens, j) {
                        let Some(TokenTree::Ident(next)) = tokens.get(j + 2) else {
                            break;
                        };
                        path.push(next.to_string());
                        j += 3;
                    }
                    self.edge(&path, span, false);
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn function(&mut self, name: &syn::Ident, fn_token: Span, block: &syn::Block) {
        if self.in_body > 0 {
            return;
        }
        let first = fn_token.start().line;
        let last = block.brace_token.span.close().start().line;
        if last + 1 - first > MAX_FN_LINES {
            let mut full: Vec<String> = self.inline_path.clone();
            full.extend(self.owner.clone());
            full.push(name.to_string());
            self.fns.push(LongFn {
                file: self.file,
                name: full.join("::"),
                first,
                last,
            });
        }
    }
}

/// `::` at `tokens[i..]`.
fn colons(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && b.as_char() == ':' && a.spacing() == proc_macro2::Spacing::Joint
    )
}

fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map_or("?".into(), |s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => "?".into(),
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast Item) {
        if !test_only(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // A file module is walked with its own file; `mod x;` is no edge.
        let Some((_, items)) = &m.content else { return };
        let at = m.ident.span().start();
        let inline = if self.in_body > 0 {
            None // a module inside a function: its items count as the function's module's
        } else {
            self.inline.get(&(self.file, at.line, at.column)).copied()
        };
        let saved = self.module;
        if let Some(id) = inline {
            self.module = id;
            self.inline_path.push(m.ident.to_string());
        }
        let owner = self.owner.take();
        for item in items {
            self.visit_item(item);
        }
        self.owner = owner;
        if inline.is_some() {
            self.inline_path.pop();
        }
        self.module = saved;
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_none() {
            self.use_tree(&u.tree, &mut Vec::new());
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first() {
                let segments: Vec<String> =
                    path.segments.iter().map(|s| s.ident.to_string()).collect();
                if first.ident == "crate" || first.ident == "super" || first.ident == "self" {
                    // `self` alone is the receiver, not a module path.
                    if segments.len() > 1 || first.ident != "self" {
                        self.edge(&segments, first.ident.span(), false);
                    }
                } else if segments.len() > 1 {
                    // `child::f()` without a `use`: a path through one of the module's own
                    // child modules is a dependency on it as much as `use child::f` is.
                    self.edge(&segments, first.ident.span(), true);
                }
            }
        }
        visit::visit_path(self, path);
    }

    fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
        if matches!(&e.member, syn::Member::Named(n) if n == "sql") {
            let line = match &e.member {
                syn::Member::Named(n) => n.span().start().line,
                syn::Member::Unnamed(i) => i.span.start().line,
            };
            self.text_reads.push(Site {
                file: self.file,
                line,
            });
        }
        visit::visit_expr_field(self, e);
    }

    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {
        // `pub(super)`, `pub(in crate::x)`: who may see, not what is used.
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.macro_tokens(mac.tokens.clone());
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let owner = self.owner.take();
        self.function(&f.sig.ident, f.sig.fn_token.span, &f.block);
        self.in_body += 1;
        visit::visit_item_fn(self, f);
        self.in_body -= 1;
        self.owner = owner;
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let ty = type_name(&i.self_ty);
        let name = match &i.trait_ {
            Some((_, path, _)) => {
                let tr = path
                    .segments
                    .last()
                    .map_or("?".into(), |s| s.ident.to_string());
                format!("<{ty} as {tr}>")
            }
            None => ty,
        };
        let saved = self.owner.replace(name);
        visit::visit_item_impl(self, i);
        self.owner = saved;
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        let saved = self.owner.replace(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.owner = saved;
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        let attrs = match item {
            ImplItem::Const(i) => &i.attrs[..],
            ImplItem::Fn(i) => &i.attrs,
            ImplItem::Type(i) => &i.attrs,
            ImplItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.sig.ident, f.sig.fn_token.span, &f.block);
        self.in_body += 1;
        visit::visit_impl_item_fn(self, f);
        self.in_body -= 1;
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        let attrs = match item {
            TraitItem::Const(i) => &i.attrs[..],
            TraitItem::Fn(i) => &i.attrs,
            TraitItem::Type(i) => &i.attrs,
            TraitItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.function(&f.sig.ident, f.sig.fn_token.span, block);
        }
        self.in_body += 1;
        visit::visit_trait_item_fn(self, f);
        self.in_body -= 1;
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        let attrs = match s {
            syn::Stmt::Local(l) => &l.attrs[..],
            syn::Stmt::Macro(m) => &m.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_stmt(self, s);
        }
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        if !test_only(&a.attrs) {
            visit::visit_arm(self, a);
        }
    }

    fn visit_field(&mut self, f: &'ast syn::Field) {
        if !test_only(&f.attrs) {
            visit::visit_field(self, f);
        }
    }

    fn visit_variant(&mut self, v: &'ast syn::Variant) {
        if !test_only(&v.attrs) {
            visit::visit_variant(self, v);
        }
    }
}

// ---- cycles ---------------------------------------------------------------------------------

/// The strongly connected components of a graph on `0..n`, each sorted (Tarjan).
fn strongly_connected(n: usize, edges: &BTreeMap<usize, Vec<usize>>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges.get(&v).into_iter().flatten() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.found.push(component);
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.found
}

struct Cycle {
    /// The sorted module paths: the allowlist's key.
    modules: Vec<String>,
    /// A closed walk through every module of the component, starting at the first:
    /// (module, the site of the edge from the previous one).
    chain: Vec<(usize, Site)>,
    start: usize,
}

fn cycles(model: &CrateModel) -> Vec<Cycle> {
    let mut adjacency: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(from, to) in model.edges.keys() {
        adjacency.entry(from).or_default().push(to);
    }
    let mut found = Vec::new();
    for component in strongly_connected(model.modules.len(), &adjacency) {
        if component.len() < 2 {
            continue;
        }
        let mut modules: Vec<String> = component
            .iter()
            .map(|&m| model.modules[m].path.clone())
            .collect();
        modules.sort();
        let inside: BTreeSet<usize> = component.iter().copied().collect();
        let start = *component
            .iter()
            .min_by_key(|&&m| &model.modules[m].path)
            .unwrap_or(&component[0]);
        // Walk to the nearest module not seen yet until all are, then back to the start.
        let mut seen = BTreeSet::from([start]);
        let mut at = start;
        let mut chain = Vec::new();
        loop {
            let target = |m: usize| {
                if seen.len() == inside.len() {
                    m == start
                } else {
                    !seen.contains(&m)
                }
            };
            let path = shortest(model, &inside, at, target);
            for &(m, site) in &path {
                seen.insert(m);
                chain.push((m, site));
            }
            at = path.last().map_or(start, |p| p.0);
            if at == start {
                break;
            }
        }
        found.push(Cycle {
            modules,
            chain,
            start,
        });
    }
    found
}

/// The shortest walk inside `inside` from `from` to the first module that `target` accepts
/// (not `from` itself), with each edge's site; in module order among equals.
fn shortest(
    model: &CrateModel,
    inside: &BTreeSet<usize>,
    from: usize,
    target: impl Fn(usize) -> bool,
) -> Vec<(usize, Site)> {
    let mut came: BTreeMap<usize, (usize, Site)> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(m) = queue.pop_front() {
        let mut next: Vec<(usize, Site)> = model
            .edges
            .range((m, 0)..(m + 1, 0))
            .map(|(&(_, to), &site)| (to, site))
            .filter(|(to, _)| inside.contains(to))
            .collect();
        next.sort_by(|a, b| model.modules[a.0].path.cmp(&model.modules[b.0].path));
        for (to, site) in next {
            if to == from || came.contains_key(&to) {
                if to == from && target(to) {
                    return vec![(to, site)];
                }
                continue;
            }
            came.insert(to, (m, site));
            if target(to) {
                let mut path = vec![(to, site)];
                let mut at = m;
                while at != from {
                    let (prev, s) = came[&at];
                    path.push((at, s));
                    at = prev;
                }
                path.reverse();
                return path;
            }
            queue.push_back(to);
        }
    }
    Vec::new() // unreachable in a strongly connected component
}

// ---- violations, the allowlist, the report ------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Rule {
    Cycle,
    File,
    Fn,
    Text,
}

#[derive(Debug)]
struct Violation {
    rule: Rule,
    /// The allowlist's form: stable under edits elsewhere.
    key: String,
    /// The report's line.
    shown: String,
}

/// One crate's violations, in the report's order.
fn violations(c: &CrateModel) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    {
        for cycle in cycles(c) {
            let site = |s: Site| format!("{}:{}", c.files[s.file].shown, s.line);
            let mut shown = format!("{}: {}", c.label, c.modules[cycle.start].path);
            for &(m, s) in &cycle.chain {
                shown.push_str(&format!(" -({})-> {}", site(s), c.modules[m].path));
            }
            found.push(Violation {
                rule: Rule::Cycle,
                key: format!("cycle {}: {}", c.label, cycle.modules.join(", ")),
                shown,
            });
        }
        for f in &c.files {
            let key = format!("file {}", f.shown);
            if f.lines > MAX_FILE_LINES && seen.insert(key.clone()) {
                found.push(Violation {
                    rule: Rule::File,
                    key,
                    shown: format!("{}: {} lines", f.shown, f.lines),
                });
            }
        }
        for f in &c.long_fns {
            let file = &c.files[f.file].shown;
            let mut key = format!("fn {file} {}", f.name);
            let mut n = 2;
            while seen.contains(&key) {
                key = format!("fn {file} {} #{n}", f.name);
                n += 1;
            }
            seen.insert(key.clone());
            found.push(Violation {
                rule: Rule::Fn,
                key,
                shown: format!(
                    "{file}:{}-{} {}: {} lines",
                    f.first,
                    f.last,
                    f.name,
                    f.last + 1 - f.first
                ),
            });
        }
        for s in &c.text_reads {
            let file = &c.files[s.file].shown;
            let key = format!("text {file}");
            if seen.insert(key.clone()) {
                found.push(Violation {
                    rule: Rule::Text,
                    key,
                    shown: format!("{file}:{}: reads a query's text (`.sql`)", s.line),
                });
            }
        }
    }
    found.sort_by(|a, b| (a.rule, &a.key).cmp(&(b.rule, &b.key)));
    found
}

/// The allowlist's entries, whitespace normalised; a line that starts with `#` is a comment.
fn parse_allowlist(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

struct Diff {
    /// Violations not in the allowlist.
    new: BTreeSet<String>,
    /// Allowlist entries that no longer occur.
    stale: BTreeSet<String>,
}

impl Diff {
    fn new(found: &[Violation], allowed: &BTreeSet<String>) -> Diff {
        let keys: BTreeSet<String> = found.iter().map(|v| v.key.clone()).collect();
        Diff {
            new: keys.difference(allowed).cloned().collect(),
            stale: allowed.difference(&keys).cloned().collect(),
        }
    }
}

fn report(found: &[Violation], diff: &Diff) -> String {
    let count = |rule| found.iter().filter(|v| v.rule == rule).count();
    let mut out = String::new();
    let sections = [
        (
            Rule::Cycle,
            "import cycles between modules (`a -(file:line)-> b`: a use in a that reaches b)",
        ),
        (Rule::File, "files over 1200 lines"),
        (Rule::Fn, "planner functions over 200 lines"),
        (Rule::Text, "planners reading a query's text"),
    ];
    for (rule, title) in sections {
        out.push_str(&format!("layout: {title}: {}\n", count(rule)));
        for v in found.iter().filter(|v| v.rule == rule) {
            let mark = if diff.new.contains(&v.key) {
                "NEW "
            } else {
                ""
            };
            out.push_str(&format!("  {mark}{}\n", v.shown));
        }
    }
    if !diff.new.is_empty() {
        out.push_str(&format!(
            "layout: not in {ALLOWLIST} (fix them; only if that cannot wait, add the line):\n"
        ));
        for k in &diff.new {
            out.push_str(&format!("  {k}\n"));
        }
    }
    if !diff.stale.is_empty() {
        out.push_str(&format!(
            "layout: in {ALLOWLIST} but no longer found (delete the lines):\n"
        ));
        for k in &diff.stale {
            out.push_str(&format!("  {k}\n"));
        }
    }
    out.push_str(&format!(
        "layout: {} cycles, {} files over {MAX_FILE_LINES} lines, {} functions over {MAX_FN_LINES} lines, {} planner files reading query text ({} new, {} stale allowlist entries)\n",
        count(Rule::Cycle),
        count(Rule::File),
        count(Rule::Fn),
        count(Rule::Text),
        diff.new.len(),
        diff.stale.len()
    ));
    out
}

#[cfg(test)]
mod tests;
