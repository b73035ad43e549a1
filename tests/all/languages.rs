//! Packages in every language a new user can pick, tried the way that user would: `limina pkg
//! new demo --lang X`, `limina pkg test`, `limina pkg build`, serve with `--packages --watch`,
//! call over MCP, edit and rebuild to see the change, then make the skill call a host import
//! the package did not declare and see it refused. Each language's real toolchain runs (the
//! pinned ones are installed into the user's cache the first time).

use crate::support::{Client, error_of, limina_ok as limina};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// One language's scaffold and the edits the test makes to it.
struct Lang {
    flag: &'static str,
    /// The file holding the `hello` skill.
    skill_file: &'static str,
    /// Text in that file right before which the perception call goes (the handler's first
    /// line), and the call itself.
    handler_start: &'static str,
    perception_call: &'static str,
}

const C: Lang = Lang {
    flag: "c",
    skill_file: "app.c",
    handler_start: "    char name[128];",
    perception_call: r#"    skill_package_string_t seen;
    limina_skill_agents_world_error_t denied;
    if (!limina_skill_agents_perception(&seen, &denied))
        return limina_fail(out, LIMINA_FORBIDDEN, "%.*s", (int)denied.val.forbidden.len,
                           (const char *)denied.val.forbidden.ptr);
"#,
};

const ZIG: Lang = Lang {
    flag: "zig",
    skill_file: "app.zig",
    handler_start: "    const args = try limina.parse",
    perception_call: r#"    var seen: limina.host.skill_package_string_t = undefined;
    var denied: limina.host.limina_skill_agents_world_error_t = undefined;
    if (!limina.host.limina_skill_agents_perception(&seen, &denied))
        return limina.fail(arena, error.Forbidden, "{s}", .{denied.val.forbidden.ptr[0..denied.val.forbidden.len]});
"#,
};

const JS: Lang = Lang {
    flag: "js",
    skill_file: "skills.js",
    handler_start: "      if (input.name.trim()",
    perception_call: "      host.perception();\n",
};

const PYTHON: Lang = Lang {
    flag: "python",
    skill_file: "skills.py",
    handler_start: "    return {\"greeting\"",
    perception_call: "    from wit_world.imports import agents\n    agents.perception()\n",
};

/// The languages whose template shows a resource and a prompt besides its skill.
const SHOWS_OFFERS: &[&str] = &["python", "js", "c", "zig"];

/// The template's page and prompt, as a client reads and gets them.
fn template_offers(c: &mut Client) {
    let read = c.request("resources/read", json!({"uri": "limina://pkg/demo/about"}));
    let page = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(page.contains("demo.hello"), "{page}");
    let got = c.request(
        "prompts/get",
        json!({"name": "demo.greet", "arguments": {"name": "Ada"}}),
    );
    let ask = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{got}"));
    assert!(
        ask.starts_with("Greet Ada with the demo.hello tool"),
        "{ask}"
    );
    let done = c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "demo.greet"}, "argument": {"name": "name", "value": "G"}}),
    );
    assert_eq!(
        done["result"]["completion"]["values"],
        json!(["Grace"]),
        "{done}"
    );
}

fn replace_in(file: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(old), "{} must hold `{old}`", file.display());
    std::fs::write(file, text.replace(old, new)).unwrap();
}

/// Calls `demo.hello` until `done` accepts the result (the watcher swaps the rebuilt package
/// in between calls), failing after a minute.
fn call_until(c: &mut Client, what: &str, done: impl Fn(&serde_json::Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let result = c.call("demo.hello", json!({"name": "Ada"}));
        if done(&result) {
            return;
        }
        if result["isError"] == true {
            eprintln!("{what} yet; meanwhile: {result}");
        }
        assert!(Instant::now() < deadline, "{what}: last result {result}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn new_user_flow(lang: &Lang) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_str().unwrap();
    let dir = tmp.path().join("demo");
    let dir_arg = dir.to_str().unwrap();

    let created = limina(&["pkg", "new", "demo", "--lang", lang.flag, "--dir", root]);
    assert!(created.contains("demo.hello"), "{created}");
    let tested = limina(&["pkg", "test", dir_arg]);
    assert!(tested.contains("tests passed"), "{tested}");
    let built = limina(&["pkg", "build", dir_arg]);
    assert!(built.contains("content_hash = \"sha256:"), "{built}");

    let mut c = Client::session("builder.readWrite", &["--packages", root, "--watch"]);
    let out = c.call_ok("demo.hello", json!({"name": "Ada"}));
    assert_eq!(out, json!({"greeting": "Hello, Ada!"}));
    if SHOWS_OFFERS.contains(&lang.flag) {
        template_offers(&mut c);
    }

    // Edit, rebuild: the next calls see the change, without restarting the host.
    replace_in(&dir.join(lang.skill_file), "Hello, ", "Howdy, ");
    limina(&["pkg", "build", dir_arg]);
    call_until(&mut c, "the edit never arrived", |r| {
        r["structuredContent"]["greeting"] == "Howdy, Ada!"
    });

    // Call a host import whose permission (agent.read) the package never declared.
    replace_in(
        &dir.join(lang.skill_file),
        lang.handler_start,
        &format!("{}{}", lang.perception_call, lang.handler_start),
    );
    limina(&["pkg", "build", dir_arg]);
    // Only the refusal ends the wait: another error (a call cut on a loaded machine) does not.
    call_until(&mut c, "the refusal never arrived", |r| {
        r["_meta"]["error"]["code"] == "forbidden"
    });
    let (code, message) = error_of(&c.call("demo.hello", json!({"name": "Ada"})));
    assert_eq!(code, "forbidden", "{message}");
    assert!(message.contains("agent.read"), "{message}");
    let denied = c.call_ok(
        "trace.tail",
        json!({"type": "security.permission.denied", "limit": 10}),
    );
    assert!(
        denied["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["payload"]["package"] == "demo" && e["payload"]["missing"] == "agent.read"),
        "{denied}"
    );
}

#[test]
fn a_c_package_scaffolds_tests_builds_serves_reloads_and_is_refused_an_undeclared_import() {
    new_user_flow(&C);
}

#[test]
fn a_zig_package_scaffolds_tests_builds_serves_reloads_and_is_refused_an_undeclared_import() {
    new_user_flow(&ZIG);
}

#[test]
fn a_js_package_scaffolds_tests_builds_serves_reloads_and_is_refused_an_undeclared_import() {
    new_user_flow(&JS);
}

#[test]
fn a_python_package_scaffolds_tests_builds_serves_reloads_and_is_refused_an_undeclared_import() {
    new_user_flow(&PYTHON);
}
