//! Redemptions with a share per owner, on the writer's connection: the same
//! rules as [`InMemoryNonceStore`](crate::state::InMemoryNonceStore), with
//! the ids on disk and only the owners' counts and floors in memory.
//!
//! Each redeemed state is charged to its owner. When an owner holds more
//! than its share, its earliest-issued state is deleted and, unless that
//! one had expired anyway, the owner's floor rises to its issue time: every
//! state of that owner issued at or before the floor is refused from then
//! on, redeemed or not, so forgetting an id never lets it be replayed. When
//! the store holds more than its total, the same happens to the owner
//! holding the most. A floor is kept (on disk, written with the batch of
//! the eviction that raised it, see [`Shares::write_floors`]) until every
//! state it stands for has expired.
//!
//! An owner's earliest-issued state, and the states that expired, are
//! found in the `owner_order` table, which is not written with each
//! redemption: the states redeemed since its last write are listed in
//! memory ([`Shares::unordered`]) and written together, [`ORDER_EVERY`] at
//! a time or before a sweep looks there, so a commit of redemptions writes
//! the end of `redeemed_states` and nothing else (see the `schema`
//! module). An eviction looks at both: the first of the owner's rows in
//! `owner_order` and the earliest of its listed ones (a full store evicts
//! at every redemption, and writing the list each time would undo its
//! batching: 21–22 against 18 CPU-µs per redemption in the stores
//! benchmark's full store).
//!
//! Every change here runs inside the writer's batch transaction. The counts
//! in memory follow the rows written; if the batch does not commit, the
//! writer reloads them from the file ([`Shares::load`]), and the load adds
//! to `owner_order` whatever redeemed rows it lacks (those listed in memory
//! when the process stopped).

use std::collections::{BTreeSet, HashMap};

use rusqlite::{Connection, OptionalExtension, params};

use super::backend;
use crate::state::StateId;
use crate::store::StoreError;

/// Redemptions listed in memory before they are written to `owner_order`
/// together: one write of an owner's pages per this many redemptions (the
/// list costs 40 bytes a redemption).
pub(super) const ORDER_EVERY: usize = 256;

/// An owner's earliest row in `owner_order`, other than `?2`.
///
/// The owner is compared through `CAST`: with a bare `owner = ?1`, SQLite's
/// planner matches the `ORDER BY` against the equality using the bound
/// value, and the statement is then prepared again at every run (an
/// eviction at every redemption of a full store spent about 6 % of the
/// server's CPU parsing it). The plan is the same: the primary key, no sort.
const EARLIEST_ORDERED: &str = "SELECT issued_at, id FROM owner_order
     WHERE owner = CAST(?1 AS INTEGER) AND id != ?2 ORDER BY issued_at, id LIMIT 1";

/// How many redeemed states are kept, in all and per owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    pub(super) max_entries: u64,
    pub(super) max_per_owner: u64,
}

/// One redemption, as the writer gets it.
pub(super) struct Redeem {
    pub(super) id: StateId,
    pub(super) issued_at: i64,
    pub(super) expires_at: i64,
    pub(super) owner: Box<str>,
    pub(super) limits: Limits,
}

/// What is kept per owner.
#[derive(Debug)]
struct Owner {
    name: Box<str>,
    /// Its rows in `redeemed_states` (expired ones too, until swept).
    live: u64,
    /// Its states issued at or before this are refused.
    floor: Option<i64>,
    /// When the floor stands for nothing alive any more.
    floor_until: i64,
}

impl Owner {
    /// When an owner without rows can be forgotten.
    fn forget_at(&self) -> i64 {
        if self.floor.is_some() {
            self.floor_until
        } else {
            0
        }
    }
}

/// The owners' counts and floors, kept in step with the file.
#[derive(Debug, Default)]
pub(super) struct Shares {
    keys: HashMap<Box<str>, i64>,
    owners: HashMap<i64, Owner>,
    /// Owners with rows, by how many, to find the largest.
    by_size: BTreeSet<(u64, i64)>,
    /// Owners without rows, by when they can be forgotten.
    idle: BTreeSet<(i64, i64)>,
    /// Rows in `redeemed_states`.
    total: u64,
    next_key: i64,
    /// Redemptions not yet in `owner_order`: (owner, issued at, id, expires
    /// at), in the table's order once sorted.
    unordered: Vec<(i64, i64, StateId, i64)>,
    /// No state in `unordered` expires before this (`i64::MAX` when it is
    /// empty): until then a sweep has nothing to find there.
    unordered_expire_from: i64,
    /// Owners whose floors were raised in memory and not yet written to
    /// `nonce_owners` (see [`write_floors`](Self::write_floors)).
    raised: Vec<i64>,
}

impl Shares {
    /// Read the owners and count their rows (once at start, and after a
    /// batch that did not commit).
    pub(super) fn load(conn: &Connection) -> Result<Self, StoreError> {
        let mut shares = Self {
            next_key: 1,
            unordered_expire_from: i64::MAX,
            ..Self::default()
        };
        let mut owners = conn
            .prepare("SELECT key, name, floor, floor_until FROM nonce_owners")
            .map_err(backend)?;
        let rows = owners
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .map_err(backend)?;
        for row in rows {
            let (key, name, floor, floor_until) = row.map_err(backend)?;
            let owner = Owner {
                name: name.into(),
                live: 0,
                floor,
                floor_until,
            };
            shares.idle.insert((owner.forget_at(), key));
            shares.keys.insert(owner.name.clone(), key);
            shares.owners.insert(key, owner);
            shares.next_key = shares.next_key.max(key.saturating_add(1));
        }
        let mut counts = conn
            .prepare("SELECT owner, count(*) FROM redeemed_states GROUP BY owner")
            .map_err(backend)?;
        let rows = counts
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .map_err(backend)?;
        // Every row, those of owners no longer known too.
        let mut redeemed = 0;
        for row in rows {
            let (key, count) = row.map_err(backend)?;
            redeemed += count;
            if shares.owners.contains_key(&key) {
                shares.set_live(key, u64::try_from(count).unwrap_or(0));
            }
        }
        complete_order(conn, redeemed)?;
        Ok(shares)
    }

    /// Record `r` unless it was redeemed (or is refused by its owner's
    /// floor, or expired): `true` when this is its first redemption.
    pub(super) fn redeem(
        &mut self,
        conn: &Connection,
        r: &Redeem,
        now: i64,
    ) -> Result<bool, StoreError> {
        if r.expires_at <= now {
            return Ok(false);
        }
        let key = match self.keys.get(&r.owner) {
            Some(&key) => key,
            None => self.add_owner(conn, &r.owner)?,
        };
        if self.below_floor(key, r.issued_at) {
            tracing::debug!("request state issued below its owner's floor");
            return Ok(false);
        }
        let inserted = conn
            .prepare_cached(
                "INSERT OR IGNORE INTO redeemed_states (id, expires_at, owner, issued_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    &r.id.as_bytes()[..],
                    r.expires_at,
                    key,
                    r.issued_at
                ])
            })
            .map_err(backend)?;
        if inserted == 0 {
            return Ok(false);
        }
        self.unordered.push((key, r.issued_at, r.id, r.expires_at));
        self.unordered_expire_from = self.unordered_expire_from.min(r.expires_at);
        self.add_live(key, 1);
        // As in memory, the one forgotten is among those redeemed before.
        if self.live(key) > r.limits.max_per_owner {
            self.evict_earliest(conn, key, &r.id, now)?;
        }
        if self.total > r.limits.max_entries
            && let Some(&(_, largest)) = self.by_size.last()
        {
            self.evict_earliest(conn, largest, &r.id, now)?;
        }
        // Evicting may have raised this owner's floor over the new state
        // (or deleted it): it is refused like every state below the floor.
        if self.below_floor(key, r.issued_at) {
            let deleted = conn
                .prepare_cached("DELETE FROM redeemed_states WHERE id = ?1")
                .and_then(|mut s| s.execute(params![&r.id.as_bytes()[..]]))
                .map_err(backend)?;
            if deleted > 0 {
                self.add_live(key, -1);
                // Listed last: an eviction takes others off the list, not
                // this one, and does not write the list out.
                if self
                    .unordered
                    .last()
                    .is_some_and(|&(_, _, id, _)| id == r.id)
                {
                    self.unordered.pop();
                }
                forget_order(conn, key, r.issued_at, &r.id.as_bytes()[..])?;
            }
            return Ok(false);
        }
        if self.unordered.len() >= ORDER_EVERY {
            self.write_order(conn)?;
        }
        Ok(true)
    }

    /// Write the floors raised since the last call to `nonce_owners`, one
    /// statement per owner: called by the batch before it commits, so a
    /// floor is on disk with the evictions that raised it (a full store
    /// evicts at every redemption, and the same owner's floor rises each
    /// time).
    pub(super) fn write_floors(&mut self, conn: &Connection) -> Result<(), StoreError> {
        if self.raised.is_empty() {
            return Ok(());
        }
        self.raised.sort_unstable();
        self.raised.dedup();
        let mut update = conn
            .prepare_cached("UPDATE nonce_owners SET floor = ?2, floor_until = ?3 WHERE key = ?1")
            .map_err(backend)?;
        for key in self.raised.drain(..) {
            // An owner forgotten since has no row to update.
            if let Some(owner) = self.owners.get(&key) {
                update
                    .execute(params![key, owner.floor, owner.floor_until])
                    .map_err(backend)?;
            }
        }
        Ok(())
    }

    /// Write the redemptions listed in memory to `owner_order`, in the
    /// table's order. (A state deleted while listed left the list then.)
    pub(super) fn write_order(&mut self, conn: &Connection) -> Result<(), StoreError> {
        self.unordered.sort_unstable();
        let mut insert = conn
            .prepare_cached(
                "INSERT OR IGNORE INTO owner_order (owner, issued_at, id, expires_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(backend)?;
        self.unordered_expire_from = i64::MAX;
        for (key, issued_at, id, expires_at) in self.unordered.drain(..) {
            insert
                .execute(params![key, issued_at, &id.as_bytes()[..], expires_at])
                .map_err(backend)?;
        }
        Ok(())
    }

    /// Delete up to `limit` redeemed states expired by `now` (with their
    /// rows in `owner_order`) and count them off their owners: how many.
    ///
    /// The expired states are found in `owner_order`, so the redemptions
    /// still listed in memory are written there first when one of them may
    /// have expired (a store redeeming a state a minute writes them when
    /// the first expires, not at every sweep). Without `shares`
    /// (being read again after a batch that did not commit) that list is
    /// gone, and the states it held are swept once the load has put them
    /// back in the table.
    pub(super) fn sweep(
        mut shares: Option<&mut Self>,
        conn: &Connection,
        now: i64,
        limit: i64,
    ) -> Result<usize, StoreError> {
        if let Some(shares) = shares.as_deref_mut()
            && shares.unordered_expire_from <= now
        {
            shares.write_order(conn)?;
        }
        let expired = conn
            .prepare_cached(
                "DELETE FROM owner_order WHERE (owner, issued_at, id) IN
                 (SELECT owner, issued_at, id FROM owner_order WHERE expires_at <= ?1 LIMIT ?2)
                 RETURNING owner, id",
            )
            .and_then(|mut s| {
                s.query_map(params![now, limit], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
                })?
                .collect::<Result<Vec<_>, _>>()
            })
            .map_err(backend)?;
        let mut delete = conn
            .prepare_cached("DELETE FROM redeemed_states WHERE id = ?1")
            .map_err(backend)?;
        let mut swept = 0;
        for (key, id) in &expired {
            // An order row without its state (a file changed by hand) only
            // goes itself.
            if delete.execute(params![id]).map_err(backend)? == 0 {
                continue;
            }
            swept += 1;
            if let Some(shares) = shares.as_deref_mut()
                && shares.owners.contains_key(key)
            {
                shares.add_live(*key, -1);
            }
        }
        Ok(swept)
    }

    /// Forget up to `limit` owners without rows whose floors stand for
    /// nothing alive at `now`: how many.
    pub(super) fn forget_idle(
        &mut self,
        conn: &Connection,
        now: i64,
        limit: usize,
    ) -> Result<usize, StoreError> {
        let mut gone = 0;
        while gone < limit {
            let Some(&(at, key)) = self.idle.first() else {
                break;
            };
            if at > now {
                break;
            }
            conn.prepare_cached("DELETE FROM nonce_owners WHERE key = ?1")
                .and_then(|mut s| s.execute(params![key]))
                .map_err(backend)?;
            self.idle.remove(&(at, key));
            if let Some(owner) = self.owners.remove(&key) {
                self.keys.remove(&owner.name);
            }
            gone += 1;
        }
        Ok(gone)
    }

    fn live(&self, key: i64) -> u64 {
        self.owners.get(&key).map_or(0, |o| o.live)
    }

    fn below_floor(&self, key: i64, issued_at: i64) -> bool {
        self.owners
            .get(&key)
            .and_then(|o| o.floor)
            .is_some_and(|floor| issued_at <= floor)
    }

    fn add_owner(&mut self, conn: &Connection, name: &str) -> Result<i64, StoreError> {
        let key = self.next_key;
        conn.prepare_cached("INSERT INTO nonce_owners (key, name) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![key, name]))
            .map_err(backend)?;
        self.next_key = key.saturating_add(1);
        let name: Box<str> = name.into();
        self.keys.insert(name.clone(), key);
        self.owners.insert(
            key,
            Owner {
                name,
                live: 0,
                floor: None,
                floor_until: 0,
            },
        );
        self.idle.insert((0, key));
        Ok(key)
    }

    fn add_live(&mut self, key: i64, delta: i64) {
        let live = self.live(key).saturating_add_signed(delta);
        self.set_live(key, live);
    }

    /// Move `key` to `live` rows in every index.
    fn set_live(&mut self, key: i64, live: u64) {
        let Some(owner) = self.owners.get_mut(&key) else {
            return;
        };
        let before = owner.live;
        if before == live {
            return;
        }
        owner.live = live;
        self.total = self.total.saturating_sub(before).saturating_add(live);
        if before > 0 {
            self.by_size.remove(&(before, key));
        } else {
            self.idle.remove(&(owner.forget_at(), key));
        }
        if live > 0 {
            self.by_size.insert((live, key));
        } else {
            self.idle.insert((owner.forget_at(), key));
        }
    }

    /// Where in [`unordered`](Self::unordered) `key`'s earliest-issued
    /// state other than `except` is, with its issue time and id.
    fn earliest_listed(&self, key: i64, except: &StateId) -> Option<(usize, i64, StateId)> {
        self.unordered
            .iter()
            .enumerate()
            .filter(|(_, (k, _, id, _))| *k == key && id != except)
            .min_by_key(|(_, (_, issued_at, id, _))| (*issued_at, *id))
            .map(|(at, &(_, issued_at, id, _))| (at, issued_at, id))
    }

    /// Delete `key`'s earliest-issued state other than `except` (the one
    /// being redeemed); unless it had expired, raise the owner's floor over
    /// it.
    fn evict_earliest(
        &mut self,
        conn: &Connection,
        key: i64,
        except: &StateId,
        now: i64,
    ) -> Result<(), StoreError> {
        // The earliest is the first of `owner_order` or, rarely, one still
        // listed in memory (the list is not written for this: under a full
        // store every redemption evicts, and writing the list each time
        // would undo its batching).
        let (issued_at, expires_at) = loop {
            let first: Option<(i64, Vec<u8>)> = conn
                .prepare_cached(EARLIEST_ORDERED)
                .and_then(|mut s| {
                    s.query_row(params![key, &except.as_bytes()[..]], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })
                    .optional()
                })
                .map_err(backend)?;
            let listed = self.earliest_listed(key, except);
            let listed_first = listed.filter(|&(_, issued_at, id)| {
                first
                    .as_ref()
                    .is_none_or(|(i, fid)| (issued_at, &id.as_bytes()[..]) < (*i, fid.as_slice()))
            });
            let (issued_at, id) = match (listed_first, first) {
                (Some((at, issued_at, id)), _) => {
                    self.unordered.remove(at);
                    (issued_at, id.as_bytes().to_vec())
                }
                (None, Some((issued_at, id))) => {
                    forget_order(conn, key, issued_at, &id)?;
                    (issued_at, id)
                }
                (None, None) => return Ok(()),
            };
            // `owner_order` holds only rows of `redeemed_states`; one that
            // does not (a file changed by hand) is dropped and the next
            // one taken.
            let expires_at: Option<i64> = conn
                .prepare_cached("DELETE FROM redeemed_states WHERE id = ?1 RETURNING expires_at")
                .and_then(|mut s| s.query_row(params![id], |r| r.get(0)).optional())
                .map_err(backend)?;
            if let Some(expires_at) = expires_at {
                break (issued_at, expires_at);
            }
        };
        if expires_at > now
            && let Some(owner) = self.owners.get_mut(&key)
        {
            // Raised before the count drops, so an owner left without rows
            // is kept as long as its floor stands for something.
            // Written with the batch (`write_floors`), once per owner.
            let floor = owner.floor.map_or(issued_at, |f| f.max(issued_at));
            owner.floor = Some(floor);
            owner.floor_until = owner.floor_until.max(expires_at);
            if self.raised.last() != Some(&key) {
                self.raised.push(key);
            }
            tracing::debug!(floor, "nonce share full; floor raised");
        }
        self.add_live(key, -1);
        Ok(())
    }
}

/// Take a redeemed state out of `owner_order` (a no-op when it is not
/// there yet).
fn forget_order(conn: &Connection, key: i64, issued_at: i64, id: &[u8]) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM owner_order WHERE owner = ?1 AND issued_at = ?2 AND id = ?3")
        .and_then(|mut s| s.execute(params![key, issued_at, id]))
        .map(drop)
        .map_err(backend)
}

/// Make `owner_order` list every redeemed state and nothing else, when its
/// count says it does not hold the `redeemed` rows of `redeemed_states`
/// (the states redeemed since its last write, when the process stopped or
/// a batch did not commit; every row of a file of schema version 4 or
/// older).
fn complete_order(conn: &Connection, redeemed: i64) -> Result<(), StoreError> {
    let ordered: i64 = conn
        .query_row("SELECT count(*) FROM owner_order", [], |r| r.get(0))
        .map_err(backend)?;
    if ordered == redeemed {
        return Ok(());
    }
    conn.execute_batch(
        "DELETE FROM owner_order WHERE NOT EXISTS
             (SELECT 1 FROM redeemed_states r WHERE r.id = owner_order.id);
         INSERT OR IGNORE INTO owner_order (owner, issued_at, id, expires_at)
             SELECT owner, issued_at, id, expires_at FROM redeemed_states;",
    )
    .map_err(backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        super::super::schema::prepare(&conn, std::path::Path::new(":memory:")).unwrap();
        conn
    }

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
        let conn = conn();
        let mut shares = Shares::load(&conn).unwrap();
        for n in 0..3 {
            assert!(
                shares
                    .redeem(&conn, &at(n, 990 + i64::from(n), "a", 2), 1000)
                    .unwrap()
            );
        }
        // The share is 2: the first id went, the floor is 990 (in memory
        // until the batch writes it).
        assert!(!shares.redeem(&conn, &at(9, 990, "a", 2), 1000).unwrap());
        assert!(shares.redeem(&conn, &at(10, 995, "b", 2), 1000).unwrap());
        assert_eq!(floor_on_disk(&conn, "a"), None);
        shares.write_floors(&conn).unwrap();
        assert_eq!(floor_on_disk(&conn, "a"), Some(990));
        let again = Shares::load(&conn).unwrap();
        assert_eq!(again.total, 3);
        assert_eq!(again.live(again.keys["a"]), 2);
        assert_eq!(again.owners[&again.keys["a"]].floor, Some(990));
        assert_eq!(again.by_size, shares.by_size);
        assert_eq!(again.idle, shares.idle);
    }

    /// The eviction's query runs as prepared, whatever owner it is bound
    /// to, and still reads the primary key in order (no sort).
    #[test]
    fn the_earliest_is_found_without_preparing_again() {
        let conn = conn();
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
        for n in 0..8u8 {
            let key = 1 + i64::from(n % 2);
            let first: (i64, Vec<u8>) = conn
                .prepare_cached(EARLIEST_ORDERED)
                .unwrap()
                .query_row(params![key, vec![n; 16]], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap();
            // The first of each owner, unless it is the one excluded.
            let expected = if n < 2 { n + 2 } else { n % 2 };
            assert_eq!(first, (990 + i64::from(expected), vec![expected; 16]));
        }
        let statement = conn.prepare_cached(EARLIEST_ORDERED).unwrap();
        assert_eq!(
            statement.get_status(rusqlite::StatementStatus::RePrepare),
            0
        );
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {EARLIEST_ORDERED}"))
            .unwrap()
            .query_map(params![1, vec![0u8; 16]], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(plan, ["SEARCH owner_order USING PRIMARY KEY (owner=?)"]);
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
        let conn = conn();
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
        assert_eq!(
            ordered(&conn),
            [(1, 992, vec![1; 16]), (1, 993, vec![2; 16])]
        );
        assert_eq!(shares.unordered.len(), 1);
    }

    /// An owner's earliest state may still be listed in memory only (issued
    /// before those in `owner_order`): it is the one evicted, taken off the
    /// list, and neither the list nor the table's order is written for it.
    #[test]
    fn the_earliest_may_be_evicted_from_the_list_in_memory() {
        let conn = conn();
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
        let rows: Vec<Vec<u8>> = conn
            .prepare("SELECT id FROM redeemed_states ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows, [vec![1; 16], vec![2; 16], vec![4; 16]]);
        // Replayed, it is refused (below the floor).
        assert!(!shares.redeem(&conn, &at(3, 990, "a", 3), 1000).unwrap());
        // Reloaded, the order is complete again and the floor kept.
        shares.write_floors(&conn).unwrap();
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
        let conn = conn();
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
        let conn = conn();
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
}
