//! `cargo xtask book`: the book in `docs/` built with a pinned mdBook, then every relative link
//! of the book and the README checked (mdBook itself builds past a dangling link).

use std::path::Path;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};
use limina_guest_build::tools::{Registry, Tool};
use limina_guest_build::{process, say};

use crate::layout;
use crate::links;

/// mdBook, pinned; without its `serve` and `watch` features, which CI never uses and which
/// double its compile.
pub const MDBOOK: Tool = Tool {
    package: "mdbook",
    version: "0.5.4",
    registry: Registry::Crates,
    purpose: "builds the book in docs/",
    size: "a few minutes of compiling",
    with: &["--no-default-features", "--features", "search"],
};

/// Builds the book into `target/book` and checks its links; fails naming each broken one.
pub fn run(args: &[String]) -> Result<ExitCode> {
    crate::no_args("book", args)?;
    let repo = layout::repo_root();
    let mdbook = MDBOOK.ensure()?.join("bin").join("mdbook");
    process::run_quietly(
        Command::new(&mdbook)
            .arg("build")
            .arg(repo.join("docs"))
            .arg("--dest-dir")
            .arg(layout::target_dir().join("book")),
    )
    .context("mdbook could not build docs/")?;
    let broken = check(&repo)?;
    if !broken.is_empty() {
        for b in &broken {
            eprintln!("xtask: {b}");
        }
        bail!(
            "{} broken link(s) in the book or the README: fix the path or the heading",
            broken.len()
        );
    }
    say!(
        "the book is in {}",
        layout::target_dir().join("book/index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The broken links of the README and of every page in `docs/`.
pub fn check(repo: &Path) -> Result<Vec<String>> {
    let mut pages = vec![repo.join("README.md")];
    collect(&repo.join("docs"), &mut pages)?;
    let book = repo.join("docs");
    let mut broken = Vec::new();
    for page in &pages {
        let text =
            std::fs::read_to_string(page).with_context(|| format!("reading {}", page.display()))?;
        // A book page may link only inside the book: mdBook copies nothing else, so a link
        // to a repository file would dangle on the built site.
        let within = page.starts_with(&book).then_some(book.as_path());
        for problem in links::check_page(page, &text, within) {
            broken.push(format!(
                "{}: {problem}",
                page.strip_prefix(repo).unwrap_or(page).display()
            ));
        }
    }
    Ok(broken)
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The book and the README as they are in this checkout: every relative link resolves.
    #[test]
    fn the_book_and_the_readme_have_no_broken_links() {
        let broken = super::check(&crate::layout::repo_root()).unwrap();
        assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    }
}
