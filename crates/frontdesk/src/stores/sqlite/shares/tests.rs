//! The shares against an in-memory SQLite file.

use super::super::schema::in_memory;
use super::*;

fn at(n: u8, issued_at: i64, owner: &str, per_owner: u64) -> Redeem {
    Redeem {
        id: StateId::from_bytes([n; 16]),
        issued_at,
        expires_at: issued_at + 100,
        owner: owner.into(),
        limits: Limits {
            max_entries: 4,
            max_per_owner: per_owner,
        },
    }
}

#[test]
fn counts_and_floors_survive_a_reload() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    for n in 0..3 {
        assert!(
            shares
                .redeem(&conn, &at(n, 990 + i64::from(n), "a", 2), 1000)
                .unwrap()
        );
    }
    // The share is 2: the first id went, the floor is 990 (in memory,
    // and its row in the file, until the evictions are settled).
    assert!(!shares.redeem(&conn, &at(9, 990, "a", 2), 1000).unwrap());
    assert!(shares.redeem(&conn, &at(10, 995, "b", 2), 1000).unwrap());
    assert_eq!(floor_on_disk(&conn, "a"), None);
    assert_eq!(
        states(&conn),
        [vec![0; 16], vec![1; 16], vec![2; 16], vec![10; 16]]
    );
    // Replayed before the settle, it is refused all the same.
    assert!(!shares.redeem(&conn, &at(0, 990, "a", 2), 1000).unwrap());
    shares.settle(&conn).unwrap();
    assert_eq!(floor_on_disk(&conn, "a"), Some(990));
    assert_eq!(states(&conn), [vec![1; 16], vec![2; 16], vec![10; 16]]);
    let again = Shares::load(&conn).unwrap();
    assert_eq!(again.total, 3);
    assert_eq!(again.live(again.keys["a"]), 2);
    assert_eq!(again.owners[&again.keys["a"]].floor, Some(990));
    assert_eq!(again.by_size, shares.by_size);
    assert_eq!(again.idle, shares.idle);
}

/// A process that stops between an eviction and its settle leaves the
/// evicted state's row in the file and its floor not written: read
/// again, the state is still refused (as redeemed), and the share over
/// its bound comes back down, two evictions a redemption.
#[test]
fn an_eviction_not_settled_still_refuses_its_state() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    for n in 0..4 {
        assert!(
            shares
                .redeem(&conn, &at(n, 990 + i64::from(n), "a", 2), 1000)
                .unwrap()
        );
    }
    // Ids 0 and 1 evicted, the floor 991 in memory only.
    assert_eq!(shares.owners[&1].floor, Some(991));
    drop(shares);
    let mut shares = Shares::load(&conn).unwrap();
    assert_eq!(floor_on_disk(&conn, "a"), None);
    assert_eq!(shares.live(1), 4);
    for n in 0..2 {
        assert!(
            !shares
                .redeem(&conn, &at(n, 990 + i64::from(n), "a", 2), 1000)
                .unwrap()
        );
    }
    // Over the share by two: the next redemption evicts 0 and 1 again.
    assert!(shares.redeem(&conn, &at(4, 994, "a", 2), 1000).unwrap());
    assert_eq!(shares.live(1), 3);
    assert!(shares.redeem(&conn, &at(5, 995, "a", 2), 1000).unwrap());
    assert_eq!(shares.live(1), 2);
    assert_eq!(shares.owners[&1].floor, Some(993));
    shares.settle(&conn).unwrap();
    assert_eq!(floor_on_disk(&conn, "a"), Some(993));
    assert_eq!(states(&conn), [vec![4; 16], vec![5; 16]]);
}

/// The eviction's read of an owner's order runs as prepared, whatever
/// owner, row and limit it is bound to, and still reads the primary key
/// in order from that row on (no sort).
#[test]
fn the_next_rows_are_read_without_preparing_again() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    for n in 0..8 {
        let owner = if n % 2 == 0 { "a" } else { "b" };
        let r = Redeem {
            limits: Limits {
                max_entries: 8,
                max_per_owner: 8,
            },
            ..at(n, 990 + i64::from(n), owner, 8)
        };
        assert!(shares.redeem(&conn, &r, 1000).unwrap());
    }
    shares.write_order(&conn).unwrap();
    let mut statement = conn.prepare_cached(NEXT_ORDERED).unwrap();
    for n in 0..8u8 {
        let key = 1 + i64::from(n % 2);
        let limit = 1 + usize::from(n % 3);
        let next: Vec<(i64, Vec<u8>)> = statement
            .query_map(
                params![key, 990 + i64::from(n), vec![n; 16], limit as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // The same owner's next ones, after the one given.
        let expected: Vec<_> = [n + 2, n + 4, n + 6]
            .into_iter()
            .filter(|&m| m < 8)
            .take(limit)
            .map(|m| (990 + i64::from(m), vec![m; 16]))
            .collect();
        assert_eq!(next, expected);
    }
    // With a bare `owner = ?1` or `LIMIT ?4`, once per run.
    assert_eq!(
        statement.get_status(rusqlite::StatementStatus::RePrepare),
        0
    );
    let plan: Vec<String> = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {NEXT_ORDERED}"))
        .unwrap()
        .query_map(params![1, 0, vec![0u8; 16], 2], |r| r.get(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        plan,
        ["SEARCH owner_order USING PRIMARY KEY (owner=? AND (issued_at,id)>(?,?))"]
    );
}

fn states(conn: &Connection) -> Vec<Vec<u8>> {
    conn.prepare("SELECT id FROM redeemed_states ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn floor_on_disk(conn: &Connection, owner: &str) -> Option<i64> {
    conn.query_row(
        "SELECT floor FROM nonce_owners WHERE name = ?1",
        [owner],
        |r| r.get(0),
    )
    .unwrap()
}

fn ordered(conn: &Connection) -> Vec<(i64, i64, Vec<u8>)> {
    conn.prepare("SELECT owner, issued_at, id FROM owner_order ORDER BY owner, issued_at, id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Redemptions still listed in memory when the process stops are in
/// `owner_order` once the file is loaded again, and the earliest of them
/// is the one a full share gives up.
#[test]
fn the_order_not_yet_written_is_rebuilt_on_load() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    // Issued out of id order: 3 first, then 1, then 2.
    for (n, issued_at) in [(1u8, 992), (2, 993), (3, 991)] {
        assert!(
            shares
                .redeem(&conn, &at(n, issued_at, "a", 3), 1000)
                .unwrap()
        );
    }
    assert_eq!(shares.unordered.len(), 3);
    assert!(
        ordered(&conn).is_empty(),
        "written in bulk, not with each redemption"
    );
    drop(shares);
    let mut shares = Shares::load(&conn).unwrap();
    assert_eq!(
        ordered(&conn),
        [
            (1, 991, vec![3; 16]),
            (1, 992, vec![1; 16]),
            (1, 993, vec![2; 16])
        ]
    );
    // Over the share of 3: id 3 (issued earliest) goes, the floor is 991;
    // id 4 stays listed in memory (an eviction does not write the list).
    assert!(shares.redeem(&conn, &at(4, 995, "a", 3), 1000).unwrap());
    assert_eq!(shares.owners[&1].floor, Some(991));
    assert!(!shares.redeem(&conn, &at(3, 991, "a", 3), 1000).unwrap());
    // Its rows go when the evictions are settled.
    assert_eq!(ordered(&conn).len(), 3);
    shares.settle(&conn).unwrap();
    assert_eq!(
        ordered(&conn),
        [(1, 992, vec![1; 16]), (1, 993, vec![2; 16])]
    );
    assert_eq!(states(&conn), [vec![1; 16], vec![2; 16], vec![4; 16]]);
    assert_eq!(shares.unordered.len(), 1);
}

/// An owner's earliest state may still be listed in memory only (issued
/// before those in `owner_order`): it is the one evicted, taken off the
/// list, and neither the list nor the table's order is written for it.
#[test]
fn the_earliest_may_be_evicted_from_the_list_in_memory() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    for (n, issued_at) in [(1u8, 992), (2, 993)] {
        assert!(
            shares
                .redeem(&conn, &at(n, issued_at, "a", 3), 1000)
                .unwrap()
        );
    }
    drop(shares);
    let mut shares = Shares::load(&conn).unwrap();
    assert_eq!(
        ordered(&conn),
        [(1, 992, vec![1; 16]), (1, 993, vec![2; 16])]
    );
    // Issued before both, listed in memory.
    assert!(shares.redeem(&conn, &at(3, 990, "a", 3), 1000).unwrap());
    // Over the share of 3: id 3 goes (from the list), not id 1.
    assert!(shares.redeem(&conn, &at(4, 995, "a", 3), 1000).unwrap());
    assert_eq!(shares.owners[&1].floor, Some(990));
    assert_eq!(
        ordered(&conn),
        [(1, 992, vec![1; 16]), (1, 993, vec![2; 16])]
    );
    let listed: Vec<_> = shares
        .unordered
        .iter()
        .map(|&(_, i, id, _)| (i, id))
        .collect();
    assert_eq!(listed, [(995, StateId::from_bytes([4; 16]))]);
    // Its row stays until the evictions are settled.
    assert_eq!(
        states(&conn),
        [vec![1; 16], vec![2; 16], vec![3; 16], vec![4; 16]]
    );
    // Replayed, it is refused (below the floor).
    assert!(!shares.redeem(&conn, &at(3, 990, "a", 3), 1000).unwrap());
    shares.settle(&conn).unwrap();
    assert_eq!(states(&conn), [vec![1; 16], vec![2; 16], vec![4; 16]]);
    // Reloaded, the order is complete again and the floor kept.
    drop(shares);
    let again = Shares::load(&conn).unwrap();
    assert_eq!(again.owners[&1].floor, Some(990));
    assert_eq!(
        ordered(&conn),
        [
            (1, 992, vec![1; 16]),
            (1, 993, vec![2; 16]),
            (1, 995, vec![4; 16])
        ]
    );
}

/// The order is written once [`ORDER_EVERY`] redemptions are listed, and
/// the sweep takes expired states out of it with their rows.
#[test]
fn the_order_is_written_in_bulk_and_swept() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    let limits = Limits {
        max_entries: 10_000,
        max_per_owner: 10_000,
    };
    for n in 0..ORDER_EVERY {
        let mut id = [0u8; 16];
        id[..8].copy_from_slice(&(n as u64).to_be_bytes());
        let r = Redeem {
            id: StateId::from_bytes(id),
            issued_at: 900,
            // Half of them expire at 1001.
            expires_at: if n % 2 == 0 { 1001 } else { 2000 },
            owner: if n % 3 == 0 { "a" } else { "b" }.into(),
            limits,
        };
        assert!(shares.redeem(&conn, &r, 1000).unwrap());
    }
    assert!(shares.unordered.is_empty());
    assert_eq!(ordered(&conn).len(), ORDER_EVERY);
    let swept = Shares::sweep(Some(&mut shares), &conn, 1001, 10_000).unwrap();
    assert_eq!(swept, ORDER_EVERY / 2);
    assert_eq!(ordered(&conn).len(), ORDER_EVERY / 2);
    assert_eq!(shares.total, (ORDER_EVERY / 2) as u64);
    let again = Shares::load(&conn).unwrap();
    assert_eq!(again.by_size, shares.by_size);
}

/// The sweep finds expired states in `owner_order`: those still listed
/// in memory are written there first, and swept like the others.
#[test]
fn states_listed_in_memory_are_swept_too() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    for n in 0..3 {
        assert!(
            shares
                .redeem(&conn, &at(n, 900 + i64::from(n), "a", 10), 999)
                .unwrap()
        );
    }
    assert!(ordered(&conn).is_empty());
    // Issued at 900, 901, 902: expiring at 1000, 1001, 1002. Before the
    // first expires the sweep leaves them listed.
    assert_eq!(Shares::sweep(Some(&mut shares), &conn, 999, 10).unwrap(), 0);
    assert_eq!(shares.unordered.len(), 3);
    assert!(ordered(&conn).is_empty());
    let swept = Shares::sweep(Some(&mut shares), &conn, 1001, 10).unwrap();
    assert_eq!(swept, 2);
    assert!(shares.unordered.is_empty());
    assert_eq!(ordered(&conn), [(1, 902, vec![2; 16])]);
    let left: i64 = conn
        .query_row("SELECT count(*) FROM redeemed_states", [], |r| r.get(0))
        .unwrap();
    assert_eq!((left, shares.total), (1, 1));
}

/// Evictions take an owner's states in issue order across its reads of
/// `owner_order` (8, then 16, then 32 rows), skipping the rows evicted
/// before them, and the settle deletes exactly those.
#[test]
fn evictions_follow_the_order_across_reads() {
    let conn = in_memory();
    let mut shares = Shares::load(&conn).unwrap();
    for n in 0..40u8 {
        let r = Redeem {
            limits: Limits {
                max_entries: 1_000,
                max_per_owner: 1_000,
            },
            ..at(n, 1000 + i64::from(n), "a", 1_000)
        };
        assert!(shares.redeem(&conn, &r, 1000).unwrap());
    }
    shares.write_order(&conn).unwrap();
    // The share lowered to 10: two evictions a redemption, earliest first.
    for k in 1..=20u8 {
        let r = Redeem {
            limits: Limits {
                max_entries: 1_000,
                max_per_owner: 10,
            },
            ..at(100 + k, 2000 + i64::from(k), "a", 10)
        };
        assert!(shares.redeem(&conn, &r, 1000).unwrap());
        assert_eq!(shares.owners[&1].floor, Some(999 + 2 * i64::from(k)));
    }
    assert_eq!(shares.live(1), 20);
    assert_eq!(shares.evicted.len(), 40);
    shares.write_order(&conn).unwrap();
    let expected: Vec<_> = (101..=120u8).map(|n| vec![n; 16]).collect();
    assert_eq!(states(&conn), expected);
    assert_eq!(ordered(&conn).len(), 20);
    assert_eq!(floor_on_disk(&conn, "a"), Some(1039));
}
