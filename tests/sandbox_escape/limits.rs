//! Guests that misbehave are stopped by the sandbox, leave the world as it was, and the host
//! answers the next call normally.

use crate::support::{Client, error_of, guest_packages};
use serde_json::json;

#[test]
fn an_infinite_loop_is_stopped_by_fuel_and_the_next_call_is_answered() {
    let pkgs = guest_packages(&["spin"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    a_loop_is_stopped_by_fuel(&mut c);
    assert_eq!(c.call_ok("spin.ok", json!({}))["n"], 1);
    assert_eq!(
        c.call_ok("scene.createEntity", json!({}))["entity"],
        "ent_1"
    );
}

#[test]
fn growing_memory_past_the_limit_is_stopped_and_the_next_call_is_answered() {
    let pkgs = guest_packages(&["memhog"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    memory_past_the_limit_is_stopped(&mut c);
    assert_eq!(
        c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([])
    );
}

#[test]
fn a_guest_that_changes_the_world_then_panics_leaves_it_unchanged() {
    let pkgs = guest_packages(&["crasher"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    c.call_ok("scene.createEntity", json!({"position": [1, 0, 0]}));
    let (code, message) = error_of(&c.call("crasher.buildThenPanic", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("trapped"), "{message}");
    let all = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(all["entities"].as_array().unwrap().len(), 1, "{all}");
    assert_eq!(
        c.call_ok("scene.createEntity", json!({}))["entity"],
        "ent_3"
    );
}

/// Where the address space is too small for the pooled instance slots (`ulimit -v`, some
/// containers, valgrind), the host says so and allocates instances one by one — and every
/// limit still holds: memory past the package's limit and a loop past its fuel are stopped.
#[test]
fn without_address_space_for_pooled_slots_memory_and_fuel_are_still_capped() {
    let pkgs = guest_packages(&["memhog", "spin"]);
    let log = tempfile::NamedTempFile::new().unwrap();
    let args = ["--packages", pkgs.path().to_str().unwrap()];
    let mut c = Client::spawn_with(&args, |command| {
        command.stderr(log.reopen().unwrap());
        // 64 GiB: room for instances made one by one, not for the pool's ~2 TiB.
        let limit = libc::rlimit {
            rlim_cur: 64 << 30,
            rlim_max: 64 << 30,
        };
        // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent's.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(command, move || {
                if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    });
    c.initialize("builder.readWrite");
    let err = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        err.contains("no address space for pooled instance slots")
            && err.contains("allocated one by one"),
        "{err}"
    );

    memory_past_the_limit_is_stopped(&mut c);
    a_loop_is_stopped_by_fuel(&mut c);
    assert_eq!(
        c.call_ok("scene.createEntity", json!({}))["entity"],
        "ent_1"
    );
}

/// `memhog.grow` past its package's 4 MiB is stopped, and the package's next call is answered.
fn memory_past_the_limit_is_stopped(c: &mut Client) {
    let (code, message) = error_of(&c.call("memhog.grow", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(
        message.contains("memory") && message.contains("4194304"),
        "{message}"
    );
    assert_eq!(c.call_ok("memhog.ok", json!({}))["bytes"], 0);
}

/// `spin.forever` is stopped when its fuel runs out.
fn a_loop_is_stopped_by_fuel(c: &mut Client) {
    let (code, message) = error_of(&c.call("spin.forever", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains("fuel"), "{message}");
}
