//! The files `limina pkg new NAME --lang c|zig|js` writes: one example skill, native tests,
//! a manifest with limits sized for the language, and a README saying how to test, build and
//! serve. The Limina glue is not among them: `limina pkg build` and `limina pkg test` write it
//! into `bindings/` from the SDK this limina carries.

use super::Lang;

/// `(file, text)` for every file of a new package named `name` in `lang`.
pub fn files(lang: Lang, name: &str) -> Vec<(&'static str, String)> {
    let fill = |text: &str| text.replace("{{name}}", name);
    let mut files = match lang {
        Lang::C => vec![
            ("app.c", fill(include_str!("template_c/app.c"))),
            ("test.c", fill(include_str!("template_c/test.c"))),
        ],
        Lang::Zig => vec![("app.zig", fill(include_str!("template_zig/app.zig")))],
        Lang::Js => vec![
            ("skills.js", fill(include_str!("template_js/skills.js"))),
            (
                "skills.test.js",
                fill(include_str!("template_js/skills.test.js")),
            ),
            (
                "package.json",
                fill(include_str!("template_js/package.json")),
            ),
        ],
        Lang::Rust | Lang::Python => unreachable!("scaffolded by their own templates"),
    };
    files.push(("limina.toml", super::templates::manifest(name, lang)));
    files.push(("README.md", readme(lang, name)));
    files.push((".gitignore", "/*.wasm\nbindings/\n".to_string()));
    files
}

/// Where the skill lives in each language's scaffold.
pub fn skill_file(lang: Lang) -> &'static str {
    match lang {
        Lang::C => "app.c",
        Lang::Zig => "app.zig",
        Lang::Js => "skills.js",
        Lang::Rust => "src/lib.rs",
        Lang::Python => "skills.py",
    }
}

/// `README.md`: the package's files and the loop of test, build, serve, reload.
fn readme(lang: Lang, name: &str) -> String {
    let files = match lang {
        Lang::C => {
            "- `app.c` — your skills: handlers from JSON input to JSON output; what the package \
             serves besides them: a page (`RESOURCES`) and a prompt (`PROMPTS`), which clients \
             list and read or get; and the tables that export them;\n- `test.c` — native tests \
             (`#include \"app.c\"`, then `limina_invoke`, `limina_read_resource`, \
             `limina_get_prompt`);"
        }
        Lang::Zig => {
            "- `app.zig` — your skills (handlers from JSON text to JSON text); what the package \
             serves besides them: a page (`resources`) and a prompt (`prompts`), which clients \
             list and read or get; and their `test` blocks;"
        }
        _ => {
            "- `skills.js` — your skills: handlers from an input object to an output object, \
             with the host imports in their `host` argument; and what the package serves \
             besides them: a page (`resources`) and a prompt (`prompts`), which clients list \
             and read or get;\n- `skills.test.js` — native tests (`node --test`);"
        }
    };
    format!(
        r#"# {name}

A Limina skill package in {lang}: `{name}.hello {{name}}` answers `{{greeting}}`.

{files}
- `limina.toml` — the manifest: name, version, capabilities, limits;
- `bindings/` — written by `limina pkg build` and `limina pkg test` (the Limina glue, the
  component's entry and the bindings of the WIT contract); not yours to edit.

```sh
limina pkg test                                  # native tests
limina pkg build                                 # → {name}.wasm, content_hash pinned
limina --mcp-stdio --packages .. --watch         # serve; rebuild to hot-reload
```

The first build installs the pinned toolchain into `~/.cache/limina/tools` (once).
See the SDK guide (`sdk/README.md` of the Limina checkout) for the WIT contract, errors,
permissions and host imports.
"#,
        lang = super::lang_name(lang),
    )
}
