//! Reading Rust code for the paths it names: a small lexer (comments and literals dropped),
//! `#[cfg(test)]` items skipped, `use` trees expanded, `super::` resolved.

/// One token of code, with its line.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    Ident(String),
    Path,
    Punct(char),
}

/// The code's tokens, comments and literals left out.
pub(super) fn tokens(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let count_lines =
        |from: usize, to: usize| chars[from..to].iter().filter(|c| **c == '\n').count();
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = i;
            let mut depth = 0;
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
            line += count_lines(start, i);
        } else if let Some(end) = raw_string_end(&chars, i) {
            line += count_lines(i, end);
            i = end;
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            line += count_lines(start, i.min(chars.len()));
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{7b}'), or a lifetime ('a), which has no closing quote.
            if next == Some('\\') {
                // Past the backslash and the escaped character, then to the closing quote.
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push((Token::Path, line));
            i += 2;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Ident(chars[start..i].iter().collect()), line));
        } else {
            if !c.is_whitespace() {
                out.push((Token::Punct(c), line));
            }
            i += 1;
        }
    }
    out
}

/// Where a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i` ends, if one does.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r')
        || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
    {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// A path the code names, with the module it names it from.
#[derive(Debug)]
pub(super) struct Named {
    pub(super) line: usize,
    pub(super) from: Vec<String>,
    pub(super) to: Vec<String>,
}

/// Every `crate::` and `super::` path in a file of module `module`, test items left out.
pub(super) fn named_paths(module: &[String], text: &str) -> Vec<Named> {
    let toks = tokens(text);
    let mut found = Vec::new();
    // Inline modules open around the current token: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = |k: usize| toks.get(k).map(|(t, _)| t);
        match &toks[i].0 {
            Token::Punct('#') if is_cfg_test(&toks, i) => {
                i = skip_item(&toks, skip_attributes(&toks, i));
                continue;
            }
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Punct('{'))) =
                    (here(i + 1), here(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Token::Ident(word)
                if (word == "crate" || word == "super") && here(i + 1) == Some(&Token::Path) =>
            {
                let is_visibility = i >= 2
                    && toks[i - 1].0 == Token::Ident("in".into())
                    && toks[i - 2].0 == Token::Punct('(');
                let is_macro = i >= 1 && toks[i - 1].0 == Token::Punct('$');
                let current: Vec<String> = module
                    .iter()
                    .cloned()
                    .chain(inline.iter().map(|(name, _)| name.clone()))
                    .collect();
                let (tree, end) = use_tree(&toks, i);
                if !is_visibility && !is_macro {
                    for path in tree {
                        let to = resolve(&current, &path);
                        found.push(Named {
                            line: toks[i].1,
                            from: current.clone(),
                            to,
                        });
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Whether the attribute starting at `i` (`#`) is `#[cfg(test)]`.
pub(super) fn is_cfg_test(toks: &[(Token, usize)], i: usize) -> bool {
    let want = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
        Token::Ident("test".into()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    toks.len() >= i + want.len()
        && toks[i..i + want.len()]
            .iter()
            .map(|(t, _)| t)
            .eq(want.iter())
}

/// The first token after the attributes starting at `i`.
pub(super) fn skip_attributes(toks: &[(Token, usize)], mut i: usize) -> usize {
    while toks.get(i).map(|(t, _)| t) == Some(&Token::Punct('#')) {
        let mut depth = 0;
        i += 1;
        while i < toks.len() {
            match toks[i].0 {
                Token::Punct('[') => depth += 1,
                Token::Punct(']') => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    i
}

/// The first token after the item (or field, or statement) starting at `i`: its `;` or `,`,
/// the `}` closing its body, or the `}` closing what encloses it (left for the caller).
pub(super) fn skip_item(toks: &[(Token, usize)], mut i: usize) -> usize {
    let mut depth = 0i32;
    let mut opened = false;
    while i < toks.len() {
        match toks[i].0 {
            Token::Punct('{') | Token::Punct('(') | Token::Punct('[') => {
                opened |= toks[i].0 == Token::Punct('{');
                depth += 1;
            }
            Token::Punct('}') | Token::Punct(')') | Token::Punct(']') => {
                depth -= 1;
                if depth < 0 {
                    return i;
                }
                if depth == 0 && opened && toks[i].0 == Token::Punct('}') {
                    return i + 1;
                }
            }
            Token::Punct(';') | Token::Punct(',') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The paths of the use tree (or plain path) starting at `i`, and the token after it.
fn use_tree(toks: &[(Token, usize)], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        match toks.get(i).map(|(t, _)| t) {
            Some(Token::Ident(word)) => {
                prefix.push(word.clone());
                i += 1;
                if toks.get(i).map(|(t, _)| t) != Some(&Token::Path) {
                    return (vec![prefix], i);
                }
                i += 1;
            }
            Some(Token::Punct('{')) => {
                let mut paths = Vec::new();
                i += 1;
                while i < toks.len() && toks[i].0 != Token::Punct('}') {
                    if toks[i].0 == Token::Punct(',') {
                        i += 1;
                        continue;
                    }
                    let (inner, end) = use_tree(toks, i);
                    for path in inner {
                        paths.push(prefix.iter().cloned().chain(path).collect());
                    }
                    // `self` inside a group, `as` renames: skip to the next item.
                    i = end;
                    while i < toks.len()
                        && !matches!(toks[i].0, Token::Punct(',') | Token::Punct('}'))
                    {
                        i += 1;
                    }
                }
                return (paths, i + 1);
            }
            _ => return (vec![prefix], i),
        }
    }
}

/// `path` as named from module `from`, from the crate root.
fn resolve(from: &[String], path: &[String]) -> Vec<String> {
    match path.first().map(String::as_str) {
        Some("crate") => path[1..].to_vec(),
        _ => {
            let ups = path.iter().take_while(|p| *p == "super").count();
            let base = &from[..from.len().saturating_sub(ups)];
            base.iter()
                .cloned()
                .chain(path[ups..].iter().cloned())
                .collect()
        }
    }
}
