//! The checker itself, on small made-up floors and files: it must catch what climbs.

use super::code::named_paths;
use super::{Floors, problem};

/// A small table like lib.rs's, for the checks below.
fn sample_floors() -> Floors {
    Floors::parse(
        "//! | floor | rooms | what |\n\
         //! |---|---|---|\n\
         //! | 4 | `mcp::engine` | the loop |\n\
         //! | 3 | `sandbox`, `mcp::dispatch`, `mcp::transport` | |\n\
         //! | 2 | `net` | |\n\
         //! | 1 | `call`, `mcp::engine::{inbox, outbox}` | |\n",
    )
    .unwrap()
}

fn problems_in(module: &str, text: &str) -> Vec<String> {
    let floors = sample_floors();
    let module: Vec<String> = module.split("::").map(String::from).collect();
    named_paths(&module, text)
        .iter()
        .filter_map(|named| problem(&floors, "x.rs", named))
        .collect()
}

#[test]
fn a_climbing_import_is_named_with_its_file_and_line() {
    let problems = problems_in("net::body", "//! doc\n\nuse crate::sandbox::Interrupt;\n");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("x.rs:3: `net::body` (room `net`, floor 2) uses `sandbox::Interrupt` (room `sandbox`, floor 3), above it"),
        "{}",
        problems[0]
    );
}

#[test]
fn paths_down_and_within_a_room_pass() {
    let text = "use crate::call::{Cancel, Failure};\nuse super::outgoing::Check;\nfn f() { crate::call::Cancel::default(); }\n";
    assert_eq!(problems_in("net::body", text), Vec::<String>::new());
    // A room that groups modules counts as one: inbox may use outbox.
    assert_eq!(
        problems_in("mcp::engine::inbox", "use super::outbox::Outbox;\n"),
        Vec::<String>::new()
    );
    // The loop (a file in `mcp/engine/`) may use the shared pieces below it.
    assert_eq!(
        problems_in("mcp::engine::thread", "use super::inbox::Inbound;\n"),
        Vec::<String>::new()
    );
}

#[test]
fn sideways_super_and_grouped_climbs_are_caught() {
    // Beside it: dispatch and transport share a floor and must not use each other.
    let sideways = problems_in(
        "mcp::transport::ws",
        "use super::super::dispatch::server::Server;\n",
    );
    assert_eq!(sideways.len(), 1, "{sideways:?}");
    assert!(
        sideways[0].contains("beside it on the same floor"),
        "{}",
        sideways[0]
    );
    // Inside a use group spread over lines (named at the statement's first line).
    let grouped = problems_in(
        "call",
        "use crate::{\n    net::Reach,\n    call::Cancel,\n};\n",
    );
    assert_eq!(grouped.len(), 1, "{grouped:?}");
    assert!(
        grouped[0].starts_with("x.rs:1: `call` (room `call`"),
        "{}",
        grouped[0]
    );
    // The shared pieces below the loop may not reach the loop.
    let up = problems_in(
        "mcp::engine::outbox",
        "fn f() -> crate::mcp::engine::Engine { todo!() }\n",
    );
    assert_eq!(up.len(), 1, "{up:?}");
}

#[test]
fn comments_strings_visibilities_and_test_code_are_no_imports() {
    let text = "//! see `crate::sandbox`\n\
                /// [`crate::sandbox::Cancel`]\n\
                pub(in crate::mcp) fn f() -> &'static str { \"crate::sandbox::X\" }\n\
                /* crate::sandbox::Y */\n\
                const C: char = '{';\n\
                #[cfg(test)]\n\
                fn helper() { let _ = crate::sandbox::Z; }\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::sandbox::Sandbox;\n}\n";
    assert_eq!(problems_in("net", text), Vec::<String>::new());
    // …but code after a test item is read again.
    let after = format!("{text}fn g() {{ crate::sandbox::W; }}\n");
    assert_eq!(problems_in("net", &after).len(), 1);
}

#[test]
fn a_module_on_no_floor_is_named() {
    let problems = problems_in("weather", "use crate::call::Cancel;\n");
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].contains("module `weather` is on no floor"),
        "{}",
        problems[0]
    );
}
