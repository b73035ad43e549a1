//! The floors `lib.rs` states, checked against the code: every `crate::` and `super::` path in
//! `host/src` outside test code must lead into the file's own room or a room on a lower
//! floor. The floor table is read from `lib.rs`'s doc, so the picture stated there is the one
//! checked. Run alone with `cargo test -p limina --lib floors`.
//!
//! The code is read with a small lexer (comments and literals dropped, so a path in a string
//! or a doc comment is no import) and items under `#[cfg(test)]` are skipped: tests may reach
//! anywhere. `use` trees (`crate::a::{b, c::d}`) are expanded; `pub(in crate::…)` is a
//! visibility, not a path.

mod code;
#[cfg(test)]
mod tests;

use code::{Named, Token, is_cfg_test, named_paths, skip_attributes, skip_item, tokens};
use std::path::{Path, PathBuf};

/// A room: one module path (`registry`, `mcp::wire`), or a group of sibling modules that
/// count as one (`mcp::engine::{inbox, outbox}`).
#[derive(Debug)]
struct Room {
    name: String,
    paths: Vec<Vec<String>>,
    floor: u32,
}

/// Every room by floor, as `lib.rs`'s table lists them.
#[derive(Debug)]
struct Floors {
    rooms: Vec<Room>,
}

impl Floors {
    /// Reads the table rows `//! | N | `room`, `room` | … |` of `lib.rs`.
    fn parse(lib: &str) -> Result<Floors, String> {
        let mut rooms = Vec::new();
        for line in lib.lines() {
            let Some(row) = line.strip_prefix("//! |") else {
                continue;
            };
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let Ok(floor) = cells[0].parse::<u32>() else {
                continue;
            };
            let names = cells
                .get(1)
                .ok_or_else(|| format!("floor {floor} names no room"))?;
            for name in names.split('`').skip(1).step_by(2) {
                rooms.push(Room {
                    name: name.to_string(),
                    paths: expand_room(name),
                    floor,
                });
            }
        }
        if rooms.is_empty() {
            return Err("lib.rs states no floors: expected rows `//! | N | `room` | … |`".into());
        }
        Ok(Floors { rooms })
    }

    /// The room `module` is in: the one with the longest matching path.
    fn room_of(&self, module: &[String]) -> Option<&Room> {
        self.rooms
            .iter()
            .flat_map(|room| room.paths.iter().map(move |path| (room, path)))
            .filter(|(_, path)| module.starts_with(path))
            .max_by_key(|(_, path)| path.len())
            .map(|(room, _)| room)
    }
}

/// `a::b` → [[a, b]]; `a::{b, c}` → [[a, b], [a, c]].
fn expand_room(name: &str) -> Vec<Vec<String>> {
    let split = |s: &str| -> Vec<String> {
        s.split("::")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect()
    };
    match name.split_once('{') {
        None => vec![split(name)],
        Some((base, group)) => {
            let base = split(base);
            group
                .trim_end_matches('}')
                .split(',')
                .map(|part| base.iter().cloned().chain(split(part)).collect())
                .collect()
        }
    }
}

/// A path that climbs (or names no room), said so that it can be fixed.
fn problem(floors: &Floors, file: &str, named: &Named) -> Option<String> {
    let at = format!("{file}:{}", named.line);
    let Some(from) = floors.room_of(&named.from) else {
        return Some(format!(
            "{at}: module `{}` is on no floor: add its room to the table in host/src/lib.rs",
            named.from.join("::")
        ));
    };
    let Some(to) = floors.room_of(&named.to) else {
        return Some(format!(
            "{at}: `{}` is in no room on a floor: add it to the table in host/src/lib.rs",
            named.to.join("::")
        ));
    };
    if std::ptr::eq(from, to) || to.floor < from.floor {
        return None;
    }
    let how = if to.floor == from.floor {
        "beside it on the same floor"
    } else {
        "above it"
    };
    Some(format!(
        "{at}: `{}` (room `{}`, floor {}) uses `{}` (room `{}`, floor {}), {how}: move what it needs down to a floor both can use, or pass it in",
        named.from.join("::"),
        from.name,
        from.floor,
        named.to.join("::"),
        to.name,
        to.floor
    ))
}

/// The module a file under `src` holds (`mcp/wire/mod.rs` → `mcp::wire`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Files only tests compile: the modules declared under `#[cfg(test)]` (`mod tests;`,
/// `#[path = "x_tests.rs"] mod tests;`), with everything below them.
fn test_only_files(file: &Path, text: &str) -> Vec<PathBuf> {
    let dir = file.parent().expect("a file has a folder");
    let is_root = matches!(
        file.file_name().and_then(|n| n.to_str()),
        Some("mod.rs" | "lib.rs")
    );
    let children = if is_root {
        dir.to_path_buf()
    } else {
        file.with_extension("")
    };
    let toks = tokens(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].0 == Token::Punct('#') && is_cfg_test(&toks, i) {
            let start = skip_attributes(&toks, i);
            let end = skip_item(&toks, start);
            let item: Vec<&Token> = toks[start..end].iter().map(|(t, _)| t).collect();
            // `mod name;`: a module in a file of its own (one with a body is inline).
            let name = item
                .iter()
                .position(|t| matches!(t, Token::Ident(w) if w == "mod"))
                .filter(|_| !item.contains(&&Token::Punct('{')))
                .and_then(|at| item.get(at + 1));
            if let Some(Token::Ident(name)) = name {
                out.push(children.join(format!("{name}.rs")));
                out.push(children.join(name));
            }
            i = end;
            continue;
        }
        i += 1;
    }
    // A `#[path]` under `#[cfg(test)]` names the file outright, from the declaring file's folder.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for pair in lines.windows(2) {
        if pair[0] == "#[cfg(test)]"
            && let Some(rest) = pair[1].strip_prefix("#[path = \"")
            && let Some(name) = rest.split('"').next()
        {
            out.push(dir.join(name));
        }
    }
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("host/src is readable") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every climbing path in the library's sources, and how many paths were read.
fn climbs(src: &Path) -> (Vec<String>, usize) {
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs is readable");
    let floors = Floors::parse(&lib).unwrap_or_else(|e| panic!("{e}"));
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("a source file is readable");
            (f, text)
        })
        .collect();
    let tests_only: Vec<PathBuf> = texts
        .iter()
        .flat_map(|(f, text)| test_only_files(f, text))
        .collect();
    let mut problems = Vec::new();
    let mut read = 0;
    for (file, text) in &texts {
        let relative = file.strip_prefix(src).expect("under src");
        // The binary (`main.rs`, `cli/`) is the top floor, and a crate of its own.
        if relative.starts_with("main.rs") || relative.starts_with("cli") {
            continue;
        }
        if tests_only.iter().any(|t| file.starts_with(t)) {
            continue;
        }
        let module = module_of(relative);
        let shown = format!("host/src/{}", relative.display());
        for named in named_paths(&module, text) {
            read += 1;
            problems.extend(problem(&floors, &shown, &named));
        }
    }
    (problems, read)
}

#[test]
fn no_import_climbs_the_floors_lib_rs_states() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (problems, read) = climbs(&src);
    // The sources hold well over a thousand such paths: far fewer means the walk broke.
    assert!(
        read > 1000,
        "only {read} paths read under {}",
        src.display()
    );
    assert!(
        problems.is_empty(),
        "{} paths climb the floors:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
