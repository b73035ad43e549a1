//! Relative links of a Markdown page, checked: the file exists, a `#fragment` names a heading
//! of its page (ids made as mdBook and GitHub make them), and a book page stays in the book.

use std::path::{Component, Path, PathBuf};

/// Every problem with the relative links of `text`, the Markdown of the file `page`. With
/// `within`, a link must resolve inside that folder.
pub fn check_page(page: &Path, text: &str, within: Option<&Path>) -> Vec<String> {
    let dir = page.parent().unwrap_or(Path::new("."));
    let mut problems = Vec::new();
    for target in targets(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            page.to_path_buf()
        } else {
            normalize(&dir.join(path))
        };
        if let Some(book) = within
            && !file.starts_with(normalize(book))
        {
            problems.push(format!(
                "`{target}` leaves the book (docs/); name a repository file as code instead"
            ));
            continue;
        }
        if !file.exists() {
            problems.push(format!("`{target}`: no such file"));
            continue;
        }
        let Some(fragment) = fragment else { continue };
        if file.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Ok(linked) = std::fs::read_to_string(&file) else {
            problems.push(format!("`{target}`: cannot read it"));
            continue;
        };
        if !heading_ids(&linked).iter().any(|id| id == fragment) {
            problems.push(format!("`{target}`: no heading with the id `{fragment}`"));
        }
    }
    problems
}

/// The targets of inline links and images (`[text](target)`, `![alt](target "title")`) and of
/// reference definitions (`[name]: target`), outside code blocks and code spans.
pub fn targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let line = without_code_spans(&line);
        if let Some(rest) = line.trim_start().strip_prefix('[')
            && let Some((_, def)) = rest.split_once("]:")
        {
            if let Some(t) = def.split_whitespace().next() {
                out.push(t.trim_matches(['<', '>']).to_string());
            }
            continue;
        }
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let inner = after[..end].trim();
            let target = inner.split_whitespace().next().unwrap_or("");
            if !target.is_empty() {
                out.push(target.trim_matches(['<', '>']).to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

/// The ids of a page's headings: its text without Markdown, lowercased, letters, digits, `_`
/// and `-` kept, spaces made `-`, the rest dropped; a repeated id gets `-1`, `-2`, ….
pub fn heading_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for line in prose_lines(text) {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !trimmed[hashes..].starts_with(' ') {
            continue;
        }
        let base = id_of(&plain(&trimmed[hashes..]));
        let mut id = base.clone();
        let mut n = 0;
        while ids.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        ids.push(id);
    }
    ids
}

/// A heading's text as an id.
pub fn id_of(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// A heading's text as it renders: link targets dropped, emphasis and code marks removed.
fn plain(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        rest = after.find(')').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    out.replace(['`', '*', '[', ']'], "")
}

/// The lines outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<String> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let marker = if t.starts_with("```") {
            Some("```")
        } else if t.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => out.push(line.to_string()),
            _ => {}
        }
    }
    out
}

/// A line with its code spans blanked out.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// `a/b/../c` as `a/c`, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_heading_text() {
        let ids = heading_ids(
            "# Limina\n## A person in the loop: `[[approve]]`\n```\n# not a heading\n```\n## Install: one file\n## Install: one file\n### [Link](x.md) here\n",
        );
        assert_eq!(
            ids,
            [
                "limina",
                "a-person-in-the-loop-approve",
                "install-one-file",
                "install-one-file-1",
                "link-here"
            ]
        );
    }

    #[test]
    fn targets_skip_code_and_read_titles_and_definitions() {
        let t = targets(
            "See [a](a.md#x \"title\") and `[b](b.md)`, ![i](img.png).\n```\n[c](c.md)\n```\n[d]: <d.md>\n",
        );
        assert_eq!(t, ["a.md#x", "img.png", "d.md"]);
    }

    #[test]
    fn a_dangling_file_a_missing_heading_and_a_link_out_of_the_book_are_named() {
        let dir = std::env::temp_dir().join(format!("xtask-links-{}", std::process::id()));
        let book = dir.join("docs");
        std::fs::create_dir_all(&book).unwrap();
        std::fs::write(dir.join("outside.md"), "# Out\n").unwrap();
        std::fs::write(book.join("b.md"), "# Bee\n## Two words\n").unwrap();
        let page = book.join("a.md");
        let text = "[ok](b.md#two-words) [self](#here) [gone](c.md) [anchor](b.md#three) \
                    [out](../outside.md)\n# Here\n";
        std::fs::write(&page, text).unwrap();
        let problems = check_page(&page, text, Some(&book));
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("`c.md`: no such file"), "{problems:?}");
        assert!(problems[1].contains("no heading with the id `three`"));
        assert!(problems[2].contains("leaves the book"));
        // The README may link anywhere in the repository.
        assert!(check_page(&dir.join("R.md"), "[o](outside.md#out)", None).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
