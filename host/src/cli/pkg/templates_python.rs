//! The files `limina pkg new NAME --lang python` writes: a package whose skills are plain
//! Python functions (`skills.py`), exported by a small glue module (`app.py`) that
//! componentize-py turns into the component, with native unit tests.

/// `(file, text)` for every file of a new Python package named `name`.
pub fn files(name: &str) -> Vec<(&'static str, String)> {
    let fill = |text: &str| text.replace("{{name}}", name);
    vec![
        (
            "limina.toml",
            super::templates::manifest(name, super::Lang::Python),
        ),
        ("app.py", include_str!("python_template/app.py").to_string()),
        (
            "limina_skill.py",
            include_str!("python_template/limina_skill.py").to_string(),
        ),
        ("skills.py", fill(include_str!("python_template/skills.py"))),
        (
            "test_skills.py",
            fill(include_str!("python_template/test_skills.py")),
        ),
        ("README.md", readme(name)),
        (".gitignore", GITIGNORE.to_string()),
    ]
}

/// Ignores the build output, the SDK modules each build writes and Python's caches.
const GITIGNORE: &str = "/*.wasm\n/bindings/\n__pycache__/\n";

/// `README.md`: how to test, build and serve the package.
fn readme(name: &str) -> String {
    format!(
        r#"# {name}

A Limina skill package in Python: `{name}.hello {{name}}` answers `{{greeting}}`.

- `skills.py` — your skills: plain functions from an input dict to an output dict, each
  declared with its JSON Schemas;
- `app.py` — exports them as the component's `skill` interface (leave it as it is);
- `limina_skill.py` — the `Skill` record and the errors a handler raises
  (`InvalidInput`, `NotFound`, `Forbidden`);
- `bindings/` — written by every build and test run from the Limina SDK, never edited:
  `limina_http`, a small HTTP client over `wasi:http` (`limina_http.get(url)`), usable once
  `limina.toml` declares `[grants] network` and the host gives it;
- `test_skills.py` — native unit tests.

Test the handlers natively:

```sh
python3 -m unittest
```

Build the component (`{name}.wasm`, about 18 MB) and pin its hash in `limina.toml`; the first
build installs componentize-py into your cache folder:

```sh
limina pkg build
```

Serve it, with every package in the parent folder, and call it from any MCP client (the first
start compiles the component, later starts load it from the cache):

```sh
limina --mcp-stdio --packages ..
```

`print()` output reaches the host log and, as `info` log lines, MCP clients that asked for
them. The sandbox grants no files, environment or network: only clocks and randomness.
"#
    )
}
