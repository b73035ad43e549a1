use super::*;

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
    store.commit().unwrap();
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
    store.commit().unwrap();
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
    store.commit().unwrap();
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
    store.commit().unwrap();
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
    assert_eq!(store.commit(), Ok(()), "nothing pending, nothing to write");
}

#[test]
fn a_prepared_call_is_durable_only_once_finished_and_undone_when_finished_without_keeping() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite");
    let mut store = StateStore::open(&path).unwrap();
    let on_disk = || {
        let mut other = StateStore::open(&path).unwrap();
        text(other.get("memory", None, "k").unwrap())
    };
    store.begin();
    store
        .set("memory", None, "k", b"v1".to_vec(), QUOTA)
        .unwrap();
    store.prepare().unwrap();
    assert_eq!(on_disk(), None, "prepared is not committed");
    store.finish(false).unwrap();
    assert_eq!(on_disk(), None, "undone");
    assert_eq!(store.usage("memory").unwrap(), Usage::default());

    store.begin();
    store
        .set("memory", None, "k", b"v2".to_vec(), QUOTA)
        .unwrap();
    store.prepare().unwrap();
    store.finish(true).unwrap();
    assert_eq!(on_disk(), Some("v2".into()), "kept");
    assert_eq!(store.usage("memory").unwrap(), Usage { keys: 1, bytes: 3 });

    // A rollback after prepare undoes the open transaction too.
    store.begin();
    store.delete("memory", None, "k").unwrap();
    store.prepare().unwrap();
    store.rollback();
    assert_eq!(on_disk(), Some("v2".into()));
    assert_eq!(
        text(store.get("memory", None, "k").unwrap()),
        Some("v2".into())
    );
    // Nothing prepared: finishing either way does nothing.
    store.finish(true).unwrap();
    store.finish(false).unwrap();
}
