//! Every query the index answers reaches its rows through an index of the database, never by
//! reading a whole table of events or decisions: the guard that lets the indexer write no index
//! no query uses. (The decision keys, one row per distinct combination, are read whole to pick
//! a query's keys.)

use super::*;

/// SQLite's plan for `sql`, one line per step.
fn plan(conn: &Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let params = stmt.parameter_count();
    let args: Vec<i64> = vec![1; params];
    stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Fails when a step reads a whole table of events or decisions (`SCAN t` with no index).
fn assert_searched(conn: &Connection, sql: &str) {
    for step in plan(conn, sql) {
        let scans_table = step.starts_with("SCAN ") && !step.contains(" USING ");
        assert!(!scans_table, "`{sql}` reads a whole table: {step}");
        assert!(
            !step.contains("TEMP B-TREE"),
            "`{sql}` sorts its rows: {step}"
        );
    }
}

fn index_db() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let conn = schema::connect(&dir.path().join("index.sqlite")).unwrap();
    schema::ensure(&conn).unwrap();
    (dir, conn)
}

#[test]
fn tail_queries_search_an_index_for_each_filter() {
    let (_dir, conn) = index_db();
    assert_searched(&conn, TAIL_SQL);
    assert_searched(&conn, CHILDREN_SQL);
    assert_searched(&conn, "SELECT seg, off, len FROM events WHERE seq = ?1");
}

/// A filtered listing reads each matching key's rows through the table's `(key, seq)` index,
/// and picking the keys reads only the keys (and names) tables, whatever the filters.
#[test]
fn filtered_listings_read_each_key_through_its_index() {
    let (_dir, conn) = index_db();
    for (sql, index) in [
        (keys::NEWEST_DECISIONS.sql, "decisions_key"),
        (keys::OLDEST_EVENTS.sql, "events_key"),
    ] {
        assert_searched(&conn, sql);
        let steps = plan(&conn, sql).join("; ");
        assert!(steps.contains(index), "{steps}");
    }
    let tables: [(&str, &[&str]); 2] = [
        (
            keys::NEWEST_DECISIONS.keys,
            &["allow", "cap", "rule", "agent", "session", "package"],
        ),
        (keys::OLDEST_EVENTS.keys, &["actor", "kind"]),
    ];
    for (table, columns) in tables {
        for n in 0..=columns.len() {
            for step in plan(&conn, &keys_sql(table, &columns[..n])) {
                assert!(
                    !step.contains("decisions ") && !step.contains("events "),
                    "{step}"
                );
            }
        }
    }
}

/// A query asked again with other values reuses its prepared plan: SQLite would otherwise
/// re-prepare a statement whose bound `LIMIT` it planned as a constant at every binding.
#[test]
fn a_query_asked_again_is_not_prepared_again() {
    let (_dir, conn) = index_db();
    let listed = keys::NEWEST_DECISIONS.sql.to_string();
    for (sql, args) in [
        (
            TAIL_SQL.to_string(),
            vec![vec![0i64, 1], vec![5, 50], vec![9, 2]],
        ),
        (
            listed,
            vec![vec![1, 0, 9, 1], vec![1, 3, 90, 20], vec![2, 0, 50, 7]],
        ),
    ] {
        let mut stmt = conn.prepare_cached(&sql).unwrap();
        for values in args {
            let mut rows = stmt.query(rusqlite::params_from_iter(values)).unwrap();
            while rows.next().unwrap().is_some() {}
        }
        assert_eq!(
            stmt.get_status(rusqlite::StatementStatus::RePrepare),
            0,
            "`{sql}` was prepared again"
        );
    }
}
