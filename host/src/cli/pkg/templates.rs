//! The files `limina pkg new` writes.

use super::Lang;
use std::path::Path;

/// `(file, text)` for every file of a new Rust package named `name` on the SDK at `sdk`.
pub fn files(name: &str, sdk: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("Cargo.toml", cargo_toml(name, sdk)),
        ("limina.toml", manifest(name, Lang::Rust)),
        ("src/lib.rs", lib_rs(name)),
        ("README.md", readme(name)),
        (".gitignore", GITIGNORE.to_string()),
    ]
}

/// Ignores the build output.
const GITIGNORE: &str = "/target/\n/*.wasm\n";

/// A TOML basic string holding `text`, escaped.
fn toml_string(text: &str) -> String {
    toml_edit::Value::from(text).to_string().trim().to_string()
}

/// `Cargo.toml`: a cdylib in its own workspace, depending on the SDK at `sdk`.
fn cargo_toml(name: &str, sdk: &Path) -> String {
    let sdk = toml_string(&sdk.to_string_lossy());
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
# A cdylib is what becomes the component; `cargo test` still runs the unit tests natively.
crate-type = ["cdylib"]

[dependencies]
limina-sdk = {{ path = {sdk} }}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"

# Its own workspace, so that it builds standalone wherever it lives.
[workspace]

# Small, fast guests; the same settings as the packages in the Limina repository.
[profile.release]
opt-level = "s"
lto = true
codegen-units = 1
panic = "abort"
strip = true
"#
    )
}

/// `limina.toml`, with per-call limits sized for the language: an interpreter (Python,
/// QuickJS) needs more fuel and memory than compiled code.
pub fn manifest(name: &str, lang: Lang) -> String {
    let (fuel, memory, timeout_ms, note) = match lang {
        Lang::Rust => ("5_000_000", "8_388_608", 1000, ""),
        Lang::C | Lang::Zig => (
            "5_000_000",
            "8_388_608",
            500,
            " Compiled code needs little.",
        ),
        Lang::Python => (
            "200_000_000",
            "67_108_864",
            2000,
            " The Python interpreter needs more of each than a compiled guest.",
        ),
        Lang::Js => (
            "50_000_000",
            "33_554_432",
            500,
            " The QuickJS engine needs more of each than a compiled guest.",
        ),
    };
    format!(
        r#"name = "{name}"
version = "0.1.0"
kind = "skills"
description = "The {name} skill package."
# Host versions the package works with.
engine = ">=0.1.0"
# Written by `limina pkg build`.
component = "{name}.wasm"
# Host interfaces the package's skills may use, e.g. ["scene.read", "scene.write"]; a host
# import outside this list is refused (`forbidden`) even when the caller holds the permission.
capabilities = []

# Per call: fuel (about one per wasm instruction), linear memory, wall-clock time.{note}
[limits]
fuel_per_call = {fuel}
memory_bytes = {memory}
timeout_ms = {timeout_ms}

# What the package may reach outside the world. The host's configuration must give the same
# (or more) under [packages.{name}.grants], or the package is refused at load
# (`package.overclaim`); a session's profile must also hold the matching permission
# (net.outbound, files.read / files.write, secrets.read, state.read / state.write).
# [grants]
# network = ["https://api.example.com/v1"]   # scheme://host[:port][/path prefix]; *.host for subdomains
# files = ["read:rules"]                     # read:NAME or write:NAME of a host-defined volume
# secrets = ["API_KEY"]                      # visible to the guest as environment variables
# state = {{ keys = 1000, bytes = 1048576 }}   # its own key-value store, within this quota
"#
    )
}

/// `src/lib.rs`: one skill, `<name>.hello`, and a native unit test of its handler.
fn lib_rs(name: &str) -> String {
    format!(
        r#"//! `{name}`: a Limina skill package.
//!
//! Each skill is a plain function from a typed input to a typed output; the SDK derives their
//! JSON Schemas and exports them from the component. `limina pkg build` turns the crate into
//! that component, and `cargo test` runs the unit tests natively.

use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct HelloInput {{
    /// Who to greet.
    #[schemars(length(min = 1, max = 100))]
    name: String,
}}

#[derive(Serialize, JsonSchema)]
struct HelloOutput {{
    /// The greeting.
    greeting: String,
}}

/// `{name}.hello`: greets someone by name.
fn hello(input: HelloInput, _ctx: &CallContext) -> Result<HelloOutput, SkillError> {{
    Ok(HelloOutput {{
        greeting: format!("Hello, {{}}!", input.name),
    }})
}}

/// A page the package serves as a resource (`resources/read`).
fn about(_uri: &str, _ctx: &CallContext) -> Result<Option<String>, SkillError> {{
    Ok(Some("{name} greets people by name with `{name}.hello`.\n".to_string()))
}}

/// A prompt a client offers its user (`prompts/get`).
fn greet_prompt(
    arguments: &[(String, String)],
    _ctx: &CallContext,
) -> Result<Vec<PromptMessage>, SkillError> {{
    let name = limina_sdk::argument(arguments, "name").unwrap_or("friend");
    Ok(vec![limina_sdk::user(ContentBlock::text(format!(
        "Greet {{name}} with the {name}.hello tool and tell them what you can do."
    )))])
}}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new(
            "{name}.hello",
            "0.1.0",
            "Greet someone by name.",
            hello,
        ))
        .resource(
            Resource::new("limina://pkg/{name}/about", "About {name}", "text/markdown", about)
                .description("What this package does."),
        )
        .prompt(Prompt::new(
            "{name}.greet",
            "Greet someone with this package's tool.",
            &[("name", "Who to greet", false)],
            greet_prompt,
        ))
);

#[cfg(test)]
mod tests {{
    use super::*;

    fn context() -> CallContext {{
        CallContext {{
            agent_id: "tester".into(),
            session_id: "session".into(),
            profile: "default".into(),
            tick: 0,
            invocation_id: "call".into(),
        }}
    }}

    #[test]
    fn hello_greets_by_name() {{
        let input = HelloInput {{
            name: "Ada".into(),
        }};
        let output = hello(input, &context()).unwrap();
        assert_eq!(output.greeting, "Hello, Ada!");
    }}
}}
"#
    )
}

/// `README.md`: how to test, build, serve and sign the package.
fn readme(name: &str) -> String {
    format!(
        r#"# {name}

A Limina skill package: `{name}.hello {{name}}` answers `{{greeting}}`.

Test the handlers natively:

```sh
cargo test
```

Build the component (`{name}.wasm`) and pin its hash in `limina.toml`; the first build sets up
the guest toolchain:

```sh
limina pkg build
```

See what the component holds (skills, schemas, imports, limits):

```sh
limina pkg inspect .
```

Serve it, with every package in the parent folder, and call it from any MCP client:

```sh
limina --mcp-stdio --packages ..
```

Add `--watch` to pick up each `limina pkg build` without a restart.

Sign it (hosts that require signatures trust the printed public key):

```sh
limina pkg keygen --out ~/.config/limina/signing.key
limina pkg sign --key ~/.config/limina/signing.key
```
"#
    )
}
