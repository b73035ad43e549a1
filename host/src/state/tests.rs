use super::*;
use std::path::Path;

const QUOTA: Usage = Usage { keys: 3, bytes: 40 };

fn text(v: Option<Vec<u8>>) -> Option<String> {
    v.map(|v| String::from_utf8(v).unwrap())
}

#[test]
fn a_call_sees_its_own_writes_and_a_commit_keeps_them_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let mut store = StateStore::open(&path).unwrap();
    store.begin();
    store
        .set("memory", None, "k", b"v1".to_vec(), QUOTA)
        .unwrap();
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v1".into())
    );
    store.end_call(true).unwrap();
    drop(store);
    let mut store = StateStore::open(&path).unwrap();
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v1".into())
    );
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 3 });
}

#[test]
fn a_rollback_drops_every_change_of_the_call() {
    let mut store = StateStore::in_memory();
    store.begin();
    store
        .set("memory", None, "kept", b"1".to_vec(), QUOTA)
        .unwrap();
    store.end_call(true).unwrap();
    store.begin();
    store
        .set("memory", None, "new", b"2".to_vec(), QUOTA)
        .unwrap();
    assert!(store.delete("memory", None, "kept").unwrap());
    assert_eq!(store.keys("memory", None, "").unwrap(), ["new"]);
    store.rollback();
    assert_eq!(store.keys("memory", None, "").unwrap(), ["kept"]);
    assert_eq!(store.get("memory", None, "new").unwrap(), None);
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 5 });
}

#[test]
fn scopes_keep_packages_and_agents_apart() {
    let mut store = StateStore::in_memory();
    store.begin();
    store
        .set("memory", Some("ann"), "k", b"ann's".to_vec(), QUOTA)
        .unwrap();
    store
        .set("memory", None, "k", b"shared".to_vec(), QUOTA)
        .unwrap();
    store
        .set("other", None, "k", b"other's".to_vec(), QUOTA)
        .unwrap();
    store.end_call(true).unwrap();
    assert_eq!(
        text(store.get("memory", Some("ann"), "k").unwrap()),
        Some("ann's".into())
    );
    assert_eq!(store.get("memory", Some("bob"), "k").unwrap(), None);
    assert_eq!(
        store.get("memory", Some(""), "k").unwrap(),
        None,
        "an empty agent id is an agent"
    );
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("shared".into())
    );
    assert_eq!(
        text(store.get("other", None, "k").unwrap()),
        Some("other's".into())
    );
    assert_eq!(store.get("other", Some("ann"), "k").unwrap(), None);
    assert_eq!(
        store.keys("memory", Some("bob"), "").unwrap(),
        Vec::<String>::new()
    );
}

#[test]
fn the_quota_counts_keys_and_bytes_stored_and_pending() {
    let mut store = StateStore::in_memory();
    store.begin();
    store.set("p", None, "a", vec![0; 10], QUOTA).unwrap();
    store.set("p", Some("x"), "b", vec![0; 10], QUOTA).unwrap();
    store.end_call(true).unwrap();
    store.begin();
    // Replacing a value counts its new size only.
    store.set("p", None, "a", vec![0; 15], QUOTA).unwrap();
    let err = store.set("p", None, "c", vec![0; 20], QUOTA).unwrap_err();
    assert!(
        matches!(&err, StateError::Quota(m) if m.contains("past its quota of 3 keys and 40 bytes") && m.contains("`c`")),
        "{err:?}"
    );
    store.set("p", None, "c", vec![0; 5], QUOTA).unwrap();
    let err = store.set("p", None, "d", vec![], QUOTA).unwrap_err();
    assert!(
        matches!(&err, StateError::Quota(m) if m.contains("4 keys")),
        "{err:?}"
    );
    assert_eq!(
        store.usage("p").unwrap(),
        Usage {
            keys: 3,
            bytes: 16 + 11 + 6
        }
    );
    assert_eq!(
        store.usage("q").unwrap(),
        Usage::default(),
        "another package's is its own"
    );
    store.rollback();
    assert_eq!(store.usage("p").unwrap(), Usage { keys: 2, bytes: 22 });
}

#[test]
fn bad_keys_and_values_name_the_limit_and_change_nothing() {
    let mut store = StateStore::in_memory();
    store.begin();
    let err = store.set("p", None, "", b"v".to_vec(), QUOTA).unwrap_err();
    assert!(
        matches!(&err, StateError::Invalid(m) if m.contains("1 to 1024 bytes")),
        "{err:?}"
    );
    let long = "k".repeat(MAX_STATE_KEY_BYTES + 1);
    assert!(matches!(
        store.get("p", None, &long),
        Err(StateError::Invalid(_))
    ));
    let big = vec![0; MAX_STATE_VALUE_BYTES + 1];
    let roomy = Usage {
        keys: 10,
        bytes: u64::MAX,
    };
    let err = store.set("p", None, "k", big, roomy).unwrap_err();
    assert!(
        matches!(&err, StateError::Invalid(m) if m.contains("over the 1048576 byte limit")),
        "{err:?}"
    );
    assert_eq!(store.usage("p").unwrap(), Usage::default());
}

#[test]
fn an_unavailable_store_says_why() {
    let mut store = StateStore::unavailable("no state off the engine");
    let err = store.get("p", None, "k").unwrap_err();
    assert_eq!(
        err,
        StateError::Unavailable("no state off the engine".into())
    );
    store.begin();
    assert_eq!(
        store.end_call(true),
        Ok(()),
        "nothing pending, nothing to write"
    );
}

#[test]
fn a_call_ended_unkept_leaves_nothing_and_a_kept_one_is_on_disk_when_it_returns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let mut store = StateStore::open(&path).unwrap();
    store.begin();
    store
        .set("memory", None, "k", b"v1".to_vec(), QUOTA)
        .unwrap();
    store.end_call(false).unwrap();
    assert_eq!(on_disk(&path), None, "not kept");
    assert_eq!(store.usage("memory").unwrap(), Usage::default());

    store.begin();
    store
        .set("memory", None, "k", b"v2".to_vec(), QUOTA)
        .unwrap();
    store.end_call(true).unwrap();
    assert_eq!(on_disk(&path), Some("v2".into()), "kept");
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 3 });
    assert_eq!(
        store.take_owed(),
        None,
        "written at once: nothing to wait for"
    );
}

/// What a store of its own finds for `memory`'s key `k` in `path` (a restarted host).
fn on_disk(path: &Path) -> Option<String> {
    let mut other = StateStore::open(path).unwrap();
    text(other.get("memory", None, "k").unwrap())
}

/// A store over `path` whose commits are grouped, and a count of its wake-ups.
fn grouped(path: &Path) -> (StateStore, Arc<std::sync::atomic::AtomicUsize>) {
    let mut store = StateStore::open(path).unwrap();
    let woken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = woken.clone();
    store.group_commits(move || {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    });
    (store, woken)
}

fn put(store: &mut StateStore, key: &str, value: &str) -> Result<(), String> {
    store.begin();
    store
        .set("memory", None, key, value.as_bytes().to_vec(), QUOTA)
        .map_err(|e| e.to_string())?;
    store.end_call(true)
}

#[test]
fn grouped_commits_are_seen_at_once_owed_to_their_replies_and_on_disk_once_settled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let (mut store, woken) = grouped(&path);
    put(&mut store, "k", "v1").unwrap();
    let first = store.take_owed().expect("the reply waits for its batch");
    put(&mut store, "k", "v2").unwrap();
    let second = store.take_owed().expect("and the next for its own");
    assert!(second > first, "{first} {second}");
    // Later calls see what is in flight, and a reply that read it waits for it too.
    store.begin();
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v2".into())
    );
    assert_eq!(store.keys("memory", None, "").unwrap(), ["k"]);
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 3 });
    store.end_call(true).unwrap();
    assert_eq!(store.take_owed(), Some(second));

    let settled = store.settle_all();
    assert_eq!(
        settled.last(),
        Some(&Settled::Durable(second)),
        "{settled:?}"
    );
    // The writer wakes the engine just after it reports: the report may be read first.
    let waking = std::time::Instant::now();
    while woken.load(std::sync::atomic::Ordering::SeqCst) == 0
        && waking.elapsed() < std::time::Duration::from_secs(5)
    {
        std::thread::yield_now();
    }
    assert!(
        woken.load(std::sync::atomic::Ordering::SeqCst) >= 1,
        "the engine was woken"
    );
    assert_eq!(on_disk(&path), Some("v2".into()));
    // Settled: reading it now owes nothing.
    store.begin();
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v2".into())
    );
    assert_eq!(store.take_owed(), None);
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 3 });
}

#[test]
fn a_group_that_cannot_be_written_is_dropped_refused_and_writing_resumes_after_a_pause() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let (mut store, _) = grouped(&path);
    put(&mut store, "k", "v1").unwrap();
    assert!(matches!(
        store.settle_all().last(),
        Some(Settled::Durable(_))
    ));

    // Another connection holds the write lock: the writer's transaction cannot start.
    let blocker = Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    put(&mut store, "k", "v2").unwrap();
    put(&mut store, "other", "x").unwrap();
    let owed = store.take_owed().unwrap();
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v2".into())
    );
    let settled = store.settle_all();
    let Some(Settled::Failed { through, cause }) = settled.last() else {
        panic!("the group failed: {settled:?}");
    };
    assert_eq!(*through, owed);
    assert!(cause.contains("could not be written"), "{cause}");
    assert!(
        settled.iter().all(|s| matches!(s, Settled::Failed { .. })),
        "nothing of it is durable: {settled:?}"
    );
    blocker.execute_batch("ROLLBACK").unwrap();
    // What was in flight is gone: the store is as the disk says.
    store.begin();
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v1".into())
    );
    assert_eq!(store.get("memory", None, "other").unwrap(), None);
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 3 });
    // Writes are refused for a while, naming the cause, and change nothing.
    let refused = put(&mut store, "k", "v3").unwrap_err();
    assert!(
        refused.contains("could not be written") && refused.contains("refused"),
        "{refused}"
    );
    assert_eq!(on_disk(&path), Some("v1".into()));
    std::thread::sleep(std::time::Duration::from_millis(
        crate::limits::STATE_RETRY_MS + 20,
    ));
    put(&mut store, "k", "v4").unwrap();
    let last = store.take_owed().unwrap();
    assert_eq!(store.settle_all().last(), Some(&Settled::Durable(last)));
    assert_eq!(on_disk(&path), Some("v4".into()));
}

#[test]
fn reads_come_from_the_copy_kept_up_to_date_and_a_lost_group_drops_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let (mut store, _) = grouped(&path);
    put(&mut store, "a", "1").unwrap();
    put(&mut store, "b", "2").unwrap();
    store.settle_all();
    // Another process's edit behind the engine's back is not seen: the engine's copy of the
    // scope is what reads use once it is made.
    let before = store.keys("memory", None, "").unwrap();
    assert_eq!(before, ["a", "b"]);
    Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM state WHERE key = 'a'", [])
        .unwrap();
    assert_eq!(
        store.keys("memory", None, "").unwrap(),
        ["a", "b"],
        "read from the copy"
    );
    // The copy follows every kept call, and not a rolled-back one.
    store.begin();
    assert!(store.delete("memory", None, "b").unwrap());
    store
        .set("memory", None, "c", b"3".to_vec(), QUOTA)
        .unwrap();
    store.end_call(true).unwrap();
    store.begin();
    store
        .set("memory", None, "d", b"4".to_vec(), QUOTA)
        .unwrap();
    store.rollback();
    assert_eq!(store.keys("memory", None, "").unwrap(), ["a", "c"]);
    assert_eq!(store.get("memory", None, "b").unwrap(), None);
    assert_eq!(
        text(store.get("memory", None, "c").unwrap()),
        Some("3".into())
    );
    store.settle_all();

    // A group that cannot be written drops the copy: what it held of the group is gone.
    let blocker = Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    put(&mut store, "e", "5").unwrap();
    assert!(
        store
            .keys("memory", None, "")
            .unwrap()
            .contains(&"e".to_string())
    );
    assert!(matches!(
        store.settle_all().last(),
        Some(Settled::Failed { .. })
    ));
    blocker.execute_batch("ROLLBACK").unwrap();
    assert_eq!(
        store.keys("memory", None, "").unwrap(),
        ["c"],
        "as the disk says: `e` lost, and the other process's deletion of `a` seen again"
    );
    assert_eq!(store.get("memory", None, "e").unwrap(), None);
}

#[test]
fn a_copy_made_while_changes_are_in_flight_holds_them_and_the_reply_still_waits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let (mut store, _) = grouped(&path);
    put(&mut store, "a", "1").unwrap();
    store.settle_all();
    // Written by one store, read by a fresh one that made no copy yet: hand a change over,
    // then make the copy while it is (maybe) still in flight.
    let (mut fresh, _) = grouped(&path);
    put(&mut fresh, "b", "2").unwrap();
    let owed = fresh.take_owed().unwrap();
    fresh.begin();
    assert_eq!(fresh.keys("memory", None, "").unwrap(), ["a", "b"]);
    assert_eq!(
        text(fresh.get("memory", None, "b").unwrap()),
        Some("2".into())
    );
    // Settled or not, a reply that read `b` waits for no ticket newer than its own.
    assert!(fresh.take_owed().is_none_or(|t| t == owed));
    fresh.end_call(true).unwrap();
    assert_eq!(fresh.settle_all().last(), Some(&Settled::Durable(owed)));
    drop(store);
    assert_eq!(
        StateStore::open(&path)
            .unwrap()
            .keys("memory", None, "")
            .unwrap(),
        ["a", "b"]
    );
}

#[test]
fn the_copies_stay_within_their_bounds() {
    use crate::limits::{STATE_CACHE_BYTES, STATE_CACHE_SCOPE_BYTES};
    let quota = Usage {
        keys: 1 << 20,
        bytes: 1 << 40,
    };
    let mut store = StateStore::in_memory();
    // A scope larger than a copy may be is read from SQLite, and reads as it should.
    let value = vec![7u8; 64 << 10];
    for i in 0..(STATE_CACHE_SCOPE_BYTES / value.len() + 2) {
        store.begin();
        store
            .set("big", None, &format!("k{i:04}"), value.clone(), quota)
            .unwrap();
        store.end_call(true).unwrap();
    }
    assert_eq!(
        store.keys("big", None, "").unwrap().len(),
        STATE_CACHE_SCOPE_BYTES / value.len() + 2
    );
    assert_eq!(store.cache.bytes(), 0, "too large: not copied");
    // Many small scopes: the least recently read go past the bound.
    let value = vec![1u8; 16 << 10];
    for agent in 0..(2 * STATE_CACHE_BYTES / value.len()) {
        store.begin();
        store
            .set("many", Some(&agent.to_string()), "k", value.clone(), quota)
            .unwrap();
        store.end_call(true).unwrap();
        assert!(store.cache.bytes() <= STATE_CACHE_BYTES);
    }
    assert_eq!(
        store.get("many", Some("0"), "k").unwrap(),
        Some(value),
        "an evicted scope is read again"
    );
}
