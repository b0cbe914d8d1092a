//! The layering check (`cargo xtask layers`, run by `ci` and `.ci/run`).
//!
//! ARCHITECTURE.md gives each crate a layer list: a fenced block with the
//! info string `layers` under the crate's `` ### `path` `` heading, one layer
//! per line, lowest first, module paths separated by spaces or commas:
//!
//! ````text
//! ```layers
//! error span
//! syntax
//! eval
//! ```
//! ````
//!
//! A module may use only modules of the layers below its own: the modules of
//! one layer are independent of each other (so the CLI's command modules,
//! listed in one layer, cannot borrow from one another).
//! Every `crate::` path in `src/` (in `use` trees and in expressions; `super::`
//! and `self::` paths are resolved to the same form, and names the crate root
//! re-exports are followed to their module) is checked against the list: a
//! path into a higher layer is an upward import, one into the same layer a
//! same-layer import, and circles are named as such with every site. Each file belongs to the longest listed module
//! path that contains it (`commands::build` before `commands`); the crate root
//! (`lib.rs`, `main.rs`) is above every layer. A file no entry covers, and an
//! entry no file has, are errors too, so the list cannot drift from the code.
//!
//! Comments, string and character literals are skipped, so a path in a doc
//! comment or a message is not an import; so are `#[cfg(test)]` items (unit
//! tests may use the whole crate). Files under `src/bin/` are crates of
//! their own and are not checked.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// One crate's layer list: the crate's directory as ARCHITECTURE.md names it
/// (`crates/prompt-core`, `xtask`) and its layers, lowest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LayerList {
    pub(crate) dir: String,
    pub(crate) layers: Vec<Vec<String>>,
}

/// Reads every `layers` block of ARCHITECTURE.md, with the crate heading it
/// sits under.
pub(crate) fn parse_architecture(text: &str) -> Result<Vec<LayerList>, String> {
    let mut lists: Vec<LayerList> = Vec::new();
    let mut section: Option<String> = None;
    let mut block: Option<(usize, Vec<Vec<String>>)> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some((start, layers)) = &mut block {
            if line.trim() == "```" {
                let dir = section.clone().ok_or_else(|| {
                    format!("ARCHITECTURE.md:{start}: a layers block outside a crate section")
                })?;
                if lists.iter().any(|list| list.dir == dir) {
                    return Err(format!(
                        "ARCHITECTURE.md:{start}: a second layers block for `{dir}`"
                    ));
                }
                lists.push(LayerList { dir, layers: std::mem::take(layers) });
                block = None;
            } else {
                let layer: Vec<String> = line
                    .split(|c: char| c.is_whitespace() || c == ',')
                    .filter(|word| !word.is_empty())
                    .map(str::to_owned)
                    .collect();
                if !layer.is_empty() {
                    layers.push(layer);
                }
            }
            continue;
        }
        if let Some(heading) = line.strip_prefix("### ") {
            section = heading
                .trim()
                .strip_prefix('`')
                .and_then(|rest| rest.strip_suffix('`'))
                .map(|dir| dir.trim_end_matches('/').to_owned());
        } else if line.starts_with("## ") {
            section = None;
        } else if line.trim() == "```layers" {
            block = Some((number, Vec::new()));
        }
    }
    if let Some((start, _)) = block {
        return Err(format!("ARCHITECTURE.md:{start}: a layers block that never closes"));
    }
    Ok(lists)
}

/// One source file: its path as shown in messages, its module path inside
/// the crate (empty for the root), and its text.
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub(crate) shown: String,
    pub(crate) module: Vec<String>,
    pub(crate) text: String,
}

/// Every `.rs` file under `src`, with its module path (`a/b.rs` and
/// `a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` are the root), sorted.
pub(crate) fn read_sources(root: &Path, src: &Path) -> Result<Vec<SourceFile>, String> {
    let mut files = Vec::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            fs::read_dir(&dir).map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|err| format!("cannot read {}: {err}", dir.display()))?.path();
            if path.is_dir() {
                if path != src.join("bin") {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = fs::read_to_string(&path)
                    .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
                let relative = path.strip_prefix(src).unwrap_or(&path);
                let shown = path.strip_prefix(root).unwrap_or(&path).display().to_string();
                files.push(SourceFile { shown, module: module_of(relative), text });
            }
        }
    }
    files.sort_by(|a, b| a.shown.cmp(&b.shown));
    Ok(files)
}

fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    if let Some(last) = parts.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_owned();
        let is_root = parts.is_empty() && (stem == "lib" || stem == "main");
        if stem != "mod" && !is_root {
            parts.push(stem);
        }
    }
    parts
}

/// Checks one crate's files against its layers; returns every violation, one
/// line each, in a stable order.
pub(crate) fn check(layers: &[Vec<String>], files: &[SourceFile]) -> Vec<String> {
    let mut problems = Vec::new();
    // Each entry: its path and its layer.
    let mut entries: Vec<(Vec<String>, usize)> = Vec::new();
    for (layer, modules) in layers.iter().enumerate() {
        for module in modules {
            let path: Vec<String> = module.split("::").map(str::to_owned).collect();
            if entries.iter().any(|(known, _)| *known == path) {
                problems.push(format!("`{module}` is listed twice"));
            } else {
                entries.push((path, layer));
            }
        }
    }
    let entry_of = |path: &[String]| -> Option<usize> {
        entries
            .iter()
            .enumerate()
            .filter(|(_, (entry, _))| path.starts_with(entry))
            .max_by_key(|(_, (entry, _))| entry.len())
            .map(|(index, _)| index)
    };
    let name = |entry: usize| entries[entry].0.join("::");

    for (entry, _) in &entries {
        if !files.iter().any(|file| file.module.starts_with(entry)) {
            problems.push(format!(
                "`{}` is listed but no file under src/ is that module",
                entry.join("::")
            ));
        }
    }
    // The first segments that name modules of this crate; any other first
    // segment is an item of the root (or a macro) and is looked up there.
    let top_modules: Vec<&String> = files.iter().filter_map(|file| file.module.first()).collect();
    let mut root_names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files.iter().filter(|file| file.module.is_empty()) {
        for (path, alias) in root_uses(&tokenize(&file.text)) {
            if let (Some(first), Some(last)) = (path.first(), path.last())
                && top_modules.contains(&first)
            {
                root_names.insert(alias.unwrap_or_else(|| last.clone()), path);
            }
        }
    }

    // Edges between entries: (from, to) -> the first place it happens.
    let mut edges: BTreeMap<(usize, usize), String> = BTreeMap::new();
    let mut reported: std::collections::BTreeSet<(String, usize)> = Default::default();
    for file in files {
        if file.module.is_empty() {
            continue;
        }
        let Some(from) = entry_of(&file.module) else {
            problems.push(format!(
                "{}: module `{}` is not in the crate's layer list",
                file.shown,
                file.module.join("::")
            ));
            continue;
        };
        for (line, mut path) in crate_paths(&tokenize(&file.text), &file.module) {
            if let Some(first) = path.first()
                && !top_modules.contains(&first)
                && let Some(target) = root_names.get(first)
            {
                path.splice(0..1, target.iter().cloned());
            }
            let Some(to) = entry_of(&path) else { continue };
            if to == from {
                continue;
            }
            let site = format!("{}:{line}", file.shown);
            // One line per place and target, however many names it brings in.
            if entries[to].1 >= entries[from].1 && reported.insert((site.clone(), to)) {
                let what = if entries[to].1 > entries[from].1 { "upward" } else { "same-layer" };
                problems.push(format!(
                    "{site}: {what} import: `{}` (layer {}) uses `{}` (layer {})",
                    name(from),
                    entries[from].1 + 1,
                    name(to),
                    entries[to].1 + 1
                ));
            }
            edges.entry((from, to)).or_insert(site);
        }
    }
    for circle in circles(entries.len(), &edges) {
        let names: Vec<String> = circle.iter().map(|&entry| format!("`{}`", name(entry))).collect();
        let sites: Vec<String> = circle
            .windows(2)
            .map(|pair| {
                format!(
                    "{}: `{}` uses `{}`",
                    edges[&(pair[0], pair[1])],
                    name(pair[0]),
                    name(pair[1])
                )
            })
            .collect();
        problems.push(format!("circle: {} ({})", names.join(" -> "), sites.join("; ")));
    }
    problems
}

/// One circle per strongly connected component of more than one entry, as a
/// closed walk (first entry repeated at the end).
fn circles(count: usize, edges: &BTreeMap<(usize, usize), String>) -> Vec<Vec<usize>> {
    let successors =
        |node: usize| edges.keys().filter(move |(from, _)| *from == node).map(|(_, to)| *to);
    let reaches = |start: usize, goal: usize| -> Option<Vec<usize>> {
        // Breadth first from `start`, so the walk found is a shortest one.
        let mut previous: Vec<Option<usize>> = vec![None; count];
        let mut queue = std::collections::VecDeque::from([start]);
        let mut seen = vec![false; count];
        seen[start] = true;
        while let Some(node) = queue.pop_front() {
            for next in successors(node) {
                if next == goal {
                    let mut walk = vec![goal, node];
                    let mut at = node;
                    while let Some(before) = previous[at] {
                        walk.push(before);
                        at = before;
                    }
                    walk.reverse();
                    return Some(walk);
                }
                if !seen[next] {
                    seen[next] = true;
                    previous[next] = Some(node);
                    queue.push_back(next);
                }
            }
        }
        None
    };
    let mut covered = vec![false; count];
    let mut found = Vec::new();
    for node in 0..count {
        if covered[node] {
            continue;
        }
        if let Some(walk) = reaches(node, node) {
            // Everything on a circle through `node`, and everything that both
            // reaches it and is reached from it, is the same component.
            for (other, covered) in covered.iter_mut().enumerate() {
                if other == node
                    || (reaches(node, other).is_some() && reaches(other, node).is_some())
                {
                    *covered = true;
                }
            }
            found.push(walk);
        }
    }
    found
}

/// Loads ARCHITECTURE.md and checks every crate it lists and every crate of
/// the workspace (a crate with no list is an error).
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let architecture = fs::read_to_string(root.join("ARCHITECTURE.md"))
        .map_err(|err| format!("cannot read ARCHITECTURE.md: {err}"))?;
    let lists = parse_architecture(&architecture)?;
    let mut dirs: Vec<String> = vec!["xtask".to_owned()];
    // The library crates, and the language bindings layered above them.
    for parent in ["crates", "bindings"] {
        let entries = fs::read_dir(root.join(parent))
            .map_err(|err| format!("cannot read {parent}/: {err}"))?;
        for entry in entries {
            let path: PathBuf =
                entry.map_err(|err| format!("cannot read {parent}/: {err}"))?.path();
            if path.join("src").is_dir() {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                dirs.push(format!("{parent}/{name}"));
            }
        }
    }
    dirs.sort();
    let mut problems = Vec::new();
    for list in &lists {
        if !dirs.contains(&list.dir) {
            problems.push(format!(
                "ARCHITECTURE.md: a layer list for `{}`, which is not a crate",
                list.dir
            ));
        }
    }
    for dir in &dirs {
        let Some(list) = lists.iter().find(|list| &list.dir == dir) else {
            problems.push(format!("{dir}: no layer list in ARCHITECTURE.md"));
            continue;
        };
        let files = read_sources(root, &root.join(dir).join("src"))?;
        problems.extend(check(&list.layers, &files));
    }
    if problems.is_empty() {
        eprintln!("layers: {} crates checked against ARCHITECTURE.md", dirs.len());
        Ok(())
    } else {
        for problem in &problems {
            eprintln!("{problem}");
        }
        Err(format!("{} layering problem(s)", problems.len()))
    }
}

/// Prints which top-level modules each module of the crate at `dir` uses
/// (`cargo xtask layers --graph crates/NAME`), for writing its layer list.
pub(crate) fn graph(root: &Path, dir: &str) -> Result<(), String> {
    let files = read_sources(root, &root.join(dir).join("src"))?;
    for file in files.iter().filter(|file| !file.module.is_empty()) {
        let mut used: Vec<String> = crate_paths(&tokenize(&file.text), &file.module)
            .into_iter()
            .filter_map(|(_, path)| path.first().cloned())
            .filter(|first| Some(first) != file.module.first())
            .collect();
        used.sort();
        used.dedup();
        println!("{}: {}", file.module.join("::"), used.join(" "));
    }
    Ok(())
}

/// A token of Rust source: an identifier or keyword, or one punctuation
/// character (`::` is its own token), with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    line: usize,
}

/// Tokens of `text` with comments, strings and character literals left out.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let count_lines =
        |from: usize, to: usize| chars[from..to].iter().filter(|&&c| c == '\n').count();
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let start = i;
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += count_lines(start, i.min(chars.len()));
        } else if c == '"' || ((c == 'b' || c == 'c') && next == Some('"')) {
            let start = i;
            i += if c == '"' { 1 } else { 2 };
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            line += count_lines(start, i.min(chars.len()));
        } else if let Some(hashes) = raw_string_start(&chars[i..]) {
            let start = i;
            i += hashes.1;
            let closing: Vec<char> =
                std::iter::once('"').chain(std::iter::repeat_n('#', hashes.0)).collect();
            while i < chars.len() && !chars[i..].starts_with(&closing) {
                i += 1;
            }
            i += closing.len();
            line += count_lines(start, i.min(chars.len()));
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && is_ident(chars[i]) {
                    i += 1;
                }
            }
        } else if is_ident(c) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            tokens.push(Token { text: chars[start..i].iter().collect(), line });
        } else if c == ':' && next == Some(':') {
            tokens.push(Token { text: "::".to_owned(), line });
            i += 2;
        } else {
            tokens.push(Token { text: c.to_string(), line });
            i += 1;
        }
    }
    tokens
}

/// `r"`, `r#"`, `br##"`, ...: the number of `#` and the length of the opener.
fn raw_string_start(chars: &[char]) -> Option<(usize, usize)> {
    let mut i = 0;
    if matches!(chars.first(), Some('b' | 'c')) {
        i += 1;
    }
    if chars.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
    i += hashes;
    (chars.get(i) == Some(&'"')).then_some((hashes, i + 1))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `crate::`, `super::` and `self::` path in `tokens`, as a path from the
/// crate root, with its line. `module` is the file's module path.
fn crate_paths(tokens: &[Token], module: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut paths = Vec::new();
    // Inline modules (`mod tests { ... }`): their names and the brace depth
    // inside them, so `super::` inside one means the file's own module.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let text = |index: usize| tokens.get(index).map(|token| token.text.as_str());
    let mut i = 0;
    while i < tokens.len() {
        if is_cfg_test(tokens, i) {
            i = past_item(tokens, i + 7);
            continue;
        }
        match tokens[i].text.as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, at)| *at == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if text(i + 2) == Some("{") => {
                inline.push((tokens[i + 1].text.clone(), depth + 1));
            }
            word @ ("crate" | "super" | "self")
                if text(i + 1) == Some("::")
                    && !matches!(i.checked_sub(1).and_then(text), Some("::" | "$")) =>
            {
                let line = tokens[i].line;
                let mut base: Vec<String> = Vec::new();
                let mut at = i;
                if word != "crate" {
                    base = module.to_vec();
                    base.extend(inline.iter().map(|(name, _)| name.clone()));
                    if word == "self" {
                        at += 2;
                    } else {
                        while text(at) == Some("super") && text(at + 1) == Some("::") {
                            if base.pop().is_none() {
                                break;
                            }
                            at += 2;
                        }
                    }
                } else {
                    at += 2;
                }
                if word == "crate" {
                    // Nothing to strip: `at` is past `crate::`.
                }
                let mut found = Vec::new();
                let end = use_tree(tokens, at, base, &mut found);
                paths.extend(found.into_iter().map(|(path, _)| (line, path)));
                i = end.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    paths
}

/// Whether `#[cfg(test)]` starts at `i`.
fn is_cfg_test(tokens: &[Token], i: usize) -> bool {
    const ATTRIBUTE: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    tokens.len() >= i + ATTRIBUTE.len()
        && tokens[i..i + ATTRIBUTE.len()]
            .iter()
            .zip(ATTRIBUTE)
            .all(|(token, text)| token.text == text)
}

/// The index after the item starting at `i`: after its `;`, or after the
/// brace that closes its first `{`.
fn past_item(tokens: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            ";" if depth == 0 => return i + 1,
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The paths a root file's `use` items bring in, with their aliases (for
/// following `crate::Name` to the module that defines `Name`).
fn root_uses(tokens: &[Token]) -> Vec<(Vec<String>, Option<String>)> {
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if token.text == "use" {
            let mut start = i + 1;
            if tokens.get(start).is_some_and(|token| token.text == "crate" || token.text == "self")
                && tokens.get(start + 1).is_some_and(|token| token.text == "::")
            {
                start += 2;
            }
            use_tree(tokens, start, Vec::new(), &mut found);
        }
    }
    found
}

/// Parses a use tree (or an expression path) at `i` below `prefix`, pushing
/// every full path with its alias; returns the index after it.
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let text = |index: usize| tokens.get(index).map(|token| token.text.as_str());
    loop {
        match text(i) {
            Some("{") => {
                i += 1;
                while let Some(token) = text(i) {
                    match token {
                        "}" => break,
                        "," => i += 1,
                        _ => {
                            let next = use_tree(tokens, i, prefix.clone(), out);
                            // Never stall on a token the grammar does not expect.
                            i = next.max(i + 1);
                        }
                    }
                }
                return i + 1;
            }
            Some("*") => {
                out.push((prefix, None));
                return i + 1;
            }
            Some(word) if word.chars().next().is_some_and(is_ident) => {
                if word != "self" {
                    prefix.push(word.to_owned());
                }
                i += 1;
                if text(i) == Some("::") {
                    i += 1;
                    continue;
                }
                let alias = (text(i) == Some("as")).then(|| text(i + 1).unwrap_or("_").to_owned());
                out.push((prefix, alias));
                return if text(i) == Some("as") { i + 2 } else { i };
            }
            _ => {
                out.push((prefix, None));
                return i;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            shown: path.to_owned(),
            module: module_of(Path::new(path)),
            text: text.to_owned(),
        }
    }

    fn layers(lines: &[&str]) -> Vec<Vec<String>> {
        lines.iter().map(|line| line.split_whitespace().map(str::to_owned).collect()).collect()
    }

    #[test]
    fn module_paths_follow_the_file_layout() {
        assert_eq!(module_of(Path::new("lib.rs")), Vec::<String>::new());
        assert_eq!(module_of(Path::new("main.rs")), Vec::<String>::new());
        assert_eq!(module_of(Path::new("error.rs")), ["error"]);
        assert_eq!(module_of(Path::new("syntax/mod.rs")), ["syntax"]);
        assert_eq!(module_of(Path::new("syntax/ast.rs")), ["syntax", "ast"]);
        // Only the crate root is the root: a nested lib.rs is a module.
        assert_eq!(module_of(Path::new("a/lib.rs")), ["a", "lib"]);
    }

    #[test]
    fn paths_come_from_use_trees_and_expressions() {
        let tokens = tokenize(
            "use crate::{error::{Error, Kind as K}, span::*, self as _};\n\
             fn f() { crate::eval::run::<T>(); }\n",
        );
        let paths: Vec<(usize, String)> = crate_paths(&tokens, &["m".to_owned()])
            .into_iter()
            .map(|(line, p)| (line, p.join("::")))
            .collect();
        assert_eq!(
            paths,
            [
                (1, "error::Error".to_owned()),
                (1, "error::Kind".to_owned()),
                (1, "span".to_owned()),
                (1, String::new()),
                (2, "eval::run".to_owned())
            ]
        );
    }

    #[test]
    fn comments_strings_and_macros_are_not_imports() {
        let tokens = tokenize(
            "/// use crate::a;\n// crate::b::c\n/* crate::d /* nested */ crate::e */\n\
             const S: &str = \"crate::f\"; const R: &str = r#\"crate::g \"# ;\n\
             const C: char = '\"'; fn l<'a>(x: &'a str) {}\n\
             macro_rules! m { () => { $crate::h::x() } }\npub(crate) fn p() {}\n\
             use crate::real;\n",
        );
        let paths: Vec<(usize, Vec<String>)> = crate_paths(&tokens, &[]);
        assert_eq!(paths, [(8, vec!["real".to_owned()])]);
    }

    #[test]
    fn super_and_self_resolve_from_the_file_and_inline_modules() {
        let tokens = tokenize(
            "use super::build::Args;\nuse self::inner::X;\n\
             mod inner { use super::*; use super::super::run::go; }\nuse super::super::top;\n\
             #[cfg(test)]\nmod tests { use crate::anything::Goes; }\n#[cfg(test)] use crate::x;\n\
             use crate::after::Tests;\n",
        );
        let module = ["commands".to_owned(), "render".to_owned()];
        let paths: Vec<(usize, String)> = crate_paths(&tokens, &module)
            .into_iter()
            .map(|(line, p)| (line, p.join("::")))
            .collect();
        assert_eq!(
            paths,
            [
                (1, "commands::build::Args".to_owned()),
                (2, "commands::render::inner::X".to_owned()),
                // Inside `mod inner`, `super` is the file's own module.
                (3, "commands::render".to_owned()),
                (3, "commands::run::go".to_owned()),
                (4, "top".to_owned()),
                (8, "after::Tests".to_owned()),
            ]
        );
    }

    #[test]
    fn downward_imports_pass() {
        let files = [
            file("lib.rs", "mod error; mod syntax; mod eval; pub use eval::run;"),
            file("error.rs", "pub struct Error;"),
            file("syntax/mod.rs", "use crate::error::Error; mod ast;"),
            file("syntax/ast.rs", "use super::super::error::Error; use crate::syntax::Node;"),
            file("eval.rs", "use crate::{error::Error, syntax::ast};"),
        ];
        assert_eq!(check(&layers(&["error", "syntax", "eval"]), &files), Vec::<String>::new());
    }

    #[test]
    fn an_upward_import_names_the_file_line_and_both_modules() {
        let files = [
            file("error.rs", "pub struct Error;"),
            file("syntax.rs", "\n\nuse crate::eval::Environment;"),
            file("eval.rs", "use crate::syntax;"),
        ];
        assert_eq!(
            check(&layers(&["error", "syntax", "eval"]), &files),
            [
                "syntax.rs:3: upward import: `syntax` (layer 2) uses `eval` (layer 3)",
                "circle: `syntax` -> `eval` -> `syntax` (syntax.rs:3: `syntax` uses `eval`; \
                 eval.rs:1: `eval` uses `syntax`)"
            ]
        );
    }

    #[test]
    fn a_circle_in_one_layer_is_reported_with_its_sites() {
        let files = [
            file("random.rs", "use crate::exact::Path;"),
            file("exact.rs", "\nuse crate::random::Draws;"),
            file("value.rs", ""),
        ];
        assert_eq!(
            check(&layers(&["value", "random exact"]), &files),
            [
                "random.rs:1: same-layer import: `random` (layer 2) uses `exact` (layer 2)",
                "exact.rs:2: same-layer import: `exact` (layer 2) uses `random` (layer 2)",
                "circle: `random` -> `exact` -> `random` (random.rs:1: `random` uses `exact`; \
              exact.rs:2: `exact` uses `random`)"
            ]
        );
    }

    #[test]
    fn sibling_commands_are_separate_entries() {
        let files = [
            file("args.rs", ""),
            file("commands/mod.rs", "mod build; mod render;"),
            file("commands/build.rs", "use crate::args::Common;"),
            file("commands/render.rs", "use super::build::BuildArgs;"),
        ];
        let list = layers(&["args", "commands::build commands::render", "commands"]);
        assert_eq!(
            check(&list, &files),
            ["commands/render.rs:1: same-layer import: `commands::render` (layer 2) uses \
              `commands::build` (layer 2)"]
        );
        let list = layers(&["args", "commands::build", "commands::render", "commands"]);
        assert_eq!(check(&list, &files), Vec::<String>::new());
        let list = layers(&["args", "commands::render", "commands::build", "commands"]);
        assert_eq!(
            check(&list, &files),
            ["commands/render.rs:1: upward import: `commands::render` (layer 2) uses \
              `commands::build` (layer 3)"]
        );
    }

    #[test]
    fn names_the_root_re_exports_are_followed_to_their_module() {
        let files = [
            file("lib.rs", "mod error; mod params; pub use params::{Params as P};"),
            file("error.rs", "use crate::P;"),
            file("params.rs", "pub struct Params;"),
        ];
        assert_eq!(
            check(&layers(&["error", "params"]), &files),
            ["error.rs:1: upward import: `error` (layer 1) uses `params` (layer 2)"]
        );
    }

    #[test]
    fn the_list_and_the_files_must_agree() {
        let files = [file("error.rs", ""), file("extra.rs", "")];
        assert_eq!(
            check(&layers(&["error gone", "error"]), &files),
            [
                "`error` is listed twice",
                "`gone` is listed but no file under src/ is that module",
                "extra.rs: module `extra` is not in the crate's layer list",
            ]
        );
    }

    #[test]
    fn architecture_blocks_belong_to_their_crate_heading() {
        let text = "## Code map\n\n### `crates/a`\n\nText.\n\n```layers\nerror, span\n\nsyntax\n```\n\n\
                    ### `xtask`\n\n```layers\nlayers\n```\n";
        assert_eq!(
            parse_architecture(text).unwrap(),
            [
                LayerList { dir: "crates/a".to_owned(), layers: layers(&["error span", "syntax"]) },
                LayerList { dir: "xtask".to_owned(), layers: layers(&["layers"]) },
            ]
        );
        assert!(parse_architecture("## Invariants\n```layers\na\n```\n").is_err());
        assert!(parse_architecture("### `x`\n```layers\na\n").is_err());
    }

    #[test]
    fn the_workspace_follows_its_layer_lists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        run(root).unwrap();
    }
}
