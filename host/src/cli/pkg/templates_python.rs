//! The files `limina pkg new NAME --lang python` writes: a package whose skills are plain
//! Python functions (`skills.py`), with native unit tests. The glue that exports them (the
//! `Skill` record, the errors, the component's entry) is not among them: `limina pkg build`
//! and `limina pkg test` write it into `bindings/` from the SDK this limina carries.

/// `(file, text)` for every file of a new Python package named `name`.
pub fn files(name: &str) -> Vec<(&'static str, String)> {
    let fill = |text: &str| text.replace("{{name}}", name);
    vec![
        (
            "limina.toml",
            super::templates::manifest(name, super::Lang::Python),
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
  declared with its JSON Schemas in the `SKILLS` list; and what the package serves besides
  them: a page, `limina://pkg/{name}/about` (`RESOURCES`), and a prompt, `{name}.greet`
  (`PROMPTS`), which clients list and read or get;
- `test_skills.py` — native unit tests;
- `bindings/` — written by every build and test run from the Limina SDK, never edited:
  `limina_skill` (the `Skill`, `Resource` and `Prompt` records and the errors a handler
  raises: `InvalidInput`, `NotFound`, `Forbidden`), `limina_app` (the component's entry,
  which exports them) and
  `limina_http`, a small HTTP client over `wasi:http` (`limina_http.get(url)`), usable once
  `limina.toml` declares `[grants] network` and the host gives it.

Test the handlers natively (`bindings/` goes on the module path):

```sh
limina pkg test
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
