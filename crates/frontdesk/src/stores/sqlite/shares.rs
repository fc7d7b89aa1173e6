//! Redemptions with a share per owner, on the writer's connection: the same
//! rules as [`InMemoryNonceStore`](crate::state::InMemoryNonceStore), with
//! the ids on disk and only the owners' counts and floors in memory.
//!
//! Each redeemed state is charged to its owner. When an owner holds more
//! than its share, its earliest-issued state is evicted and, unless that
//! one had expired anyway, the owner's floor rises to its issue time: every
//! state of that owner issued at or before the floor is refused from then
//! on, redeemed or not, so forgetting an id never lets it be replayed. When
//! the store holds more than its total, the same happens to the owner
//! holding the most. An evicted state's row stays in the file until the
//! evictions are settled ([`Shares::settle`], with the owners' order every
//! [`ORDER_EVERY`] redemptions and before a sweep): its delete and the
//! floor its eviction raised reach the file in one transaction, and until
//! then the row itself refuses a replay. A floor is kept until every state
//! it stands for has expired.
//!
//! An owner's earliest-issued state, and the states that expired, are
//! found in the `owner_order` table, which is not written with each
//! redemption: the states redeemed since its last write are listed in
//! memory ([`Shares::unordered`]) and written together, [`ORDER_EVERY`] at
//! a time or before a sweep looks there, so a commit of redemptions writes
//! the end of `redeemed_states` and nothing else (see the `schema`
//! module). An eviction looks at both: the first of the owner's rows in
//! `owner_order` not yet evicted (read a few at a time, [`Head`]) and the
//! earliest of its listed ones (a full store evicts
//! at every redemption, and writing the list each time would undo its
//! batching: 21–22 against 18 CPU-µs per redemption in the stores
//! benchmark's full store).
//!
//! Every change here runs inside the writer's batch transaction. The counts
//! in memory follow the rows written; if the batch does not commit, the
//! writer reloads them from the file ([`Shares::load`]), and the load adds
//! to `owner_order` whatever redeemed rows it lacks (those listed in memory
//! when the process stopped).

use std::collections::{BTreeSet, HashMap, VecDeque};

use rusqlite::{Connection, params};

use super::backend;
use crate::state::StateId;
use crate::store::StoreError;

/// Redemptions listed in memory before they are written to `owner_order`
/// together: one write of an owner's pages per this many redemptions (the
/// list costs 40 bytes a redemption).
pub(super) const ORDER_EVERY: usize = 256;

/// An owner's next rows in `owner_order` after `(?2, ?3)`, at most `?4`.
///
/// The owner and the limit are given through `CAST`: SQLite's planner
/// fits the plan to a bound value it sees there (a bare `owner = ?1`
/// matched against the `ORDER BY`, a bare `LIMIT ?4`), and then prepares the
/// statement again whenever a different value is bound (an eviction at every
/// redemption of a full store spent about 6 % of the server's CPU parsing
/// it). The plan is the same: the primary key, no sort. Every statement
/// of the store that binds a limit gives it the same way.
const NEXT_ORDERED: &str = "SELECT issued_at, id, expires_at FROM owner_order
     WHERE owner = CAST(?1 AS INTEGER) AND (issued_at, id) > (?2, ?3)
     ORDER BY issued_at, id LIMIT CAST(?4 AS INTEGER)";

/// The states expired by `?1` in `owner_order`, at most `?2`, taken out of
/// it (the sweep).
pub(super) const ORDER_EXPIRED: &str = "DELETE FROM owner_order WHERE (owner, issued_at, id) IN
     (SELECT owner, issued_at, id FROM owner_order WHERE expires_at <= ?1
      LIMIT CAST(?2 AS INTEGER))
     RETURNING owner, id";

/// The fewest and most rows of one owner's order read ahead at a time
/// ([`Head`]): each read of an owner since the last settle takes twice
/// the one before, so an owner evicting once reads a few rows and one
/// evicting at every redemption reads [`ORDER_EVERY`] at a time.
const HEAD_READ: (usize, usize) = (8, ORDER_EVERY);

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
    /// No state in `unordered` was issued before this (`i64::MAX` when it
    /// is empty): an eviction whose owner's first ordered row is earlier
    /// does not look there.
    unordered_issued_from: i64,
    /// Owners whose floors were raised in memory and not yet written to
    /// `nonce_owners` (see [`settle`](Self::settle)).
    raised: Vec<i64>,
    /// Evicted states whose rows are still in the file, deleted together
    /// by [`settle`](Self::settle): (owner, issued at, id, whether it is in
    /// `owner_order`). Counted off their owners already.
    evicted: Vec<(i64, i64, Box<[u8]>, bool)>,
    /// Per owner, its next rows of `owner_order` read ahead for evictions;
    /// read again after each settle (which changes the table).
    heads: HashMap<i64, Head>,
}

/// An owner's next rows of `owner_order` not yet evicted, in the table's
/// order: the rows before them were evicted since the last settle, and are
/// still in the table.
#[derive(Debug, Default)]
struct Head {
    /// (issued at, id, expires at).
    rows: VecDeque<(i64, Box<[u8]>, i64)>,
    /// The last row read (the next read starts after it).
    after: Option<(i64, Box<[u8]>)>,
    /// The table has no rows of this owner after `after`.
    read_all: bool,
    /// How many rows the next read asks for.
    next_read: usize,
}

impl Shares {
    /// Read the owners and count their rows (once at start, and after a
    /// batch that did not commit).
    pub(super) fn load(conn: &Connection) -> Result<Self, StoreError> {
        let mut shares = Self {
            next_key: 1,
            unordered_expire_from: i64::MAX,
            unordered_issued_from: i64::MAX,
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
        self.unordered_issued_from = self.unordered_issued_from.min(r.issued_at);
        self.add_live(key, 1);
        // As in memory, the one forgotten is among those redeemed before.
        // At most two a redemption: a share found over its bound (read
        // again after a batch that did not commit, or lowered between two
        // runs) comes back down one state per redemption.
        for _ in 0..2 {
            if self.live(key) <= r.limits.max_per_owner
                || !self.evict_earliest(conn, key, &r.id, now)?
            {
                break;
            }
        }
        for _ in 0..2 {
            match self.by_size.last() {
                Some(&(_, largest)) if self.total > r.limits.max_entries => {
                    if !self.evict_earliest(conn, largest, &r.id, now)? {
                        break;
                    }
                }
                _ => break,
            }
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
        if self.unordered.len() >= ORDER_EVERY || self.evicted.len() >= ORDER_EVERY {
            self.write_order(conn)?;
        }
        Ok(true)
    }

    /// Delete the evicted states' rows and write the floors their
    /// evictions raised, in the caller's transaction.
    ///
    /// Until then an evicted state's row stays in the file (counted off its
    /// owner already, and skipped by the next evictions): a replay of it is
    /// refused as redeemed whether the floor is on disk or not, so the floor
    /// and the deletes need to reach the file together, not with the
    /// eviction's own commit. A full store evicts at every redemption; one
    /// commit then writes the end of `redeemed_states` again rather than
    /// the start of every owner's order, the owners' floors and the start
    /// of `redeemed_states` as well (the load benchmark with full shares:
    /// 57.5–59.9 against 71.0–71.3 CPU-µs per call).
    pub(super) fn settle(&mut self, conn: &Connection) -> Result<(), StoreError> {
        self.heads.clear();
        if !self.evicted.is_empty() {
            // In the order of `owner_order`'s key.
            self.evicted.sort_unstable();
            let mut delete = conn
                .prepare_cached("DELETE FROM redeemed_states WHERE id = ?1")
                .map_err(backend)?;
            for (_, _, id, _) in &self.evicted {
                delete.execute(params![id]).map_err(backend)?;
            }
            for (key, issued_at, id, ordered) in self.evicted.drain(..) {
                if ordered {
                    forget_order(conn, key, issued_at, &id)?;
                }
            }
        }
        self.write_floors(conn)
    }

    /// Write the floors raised since the last call to `nonce_owners`, one
    /// statement per owner (a full store evicts at every redemption, and
    /// the same owner's floor rises each time).
    fn write_floors(&mut self, conn: &Connection) -> Result<(), StoreError> {
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

    /// Settle the evictions, then write the redemptions listed in memory
    /// to `owner_order`, in the table's order. (A state deleted while
    /// listed left the list then.)
    pub(super) fn write_order(&mut self, conn: &Connection) -> Result<(), StoreError> {
        self.settle(conn)?;
        self.unordered.sort_unstable();
        let mut insert = conn
            .prepare_cached(
                "INSERT OR IGNORE INTO owner_order (owner, issued_at, id, expires_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(backend)?;
        self.unordered_expire_from = i64::MAX;
        self.unordered_issued_from = i64::MAX;
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
        // Evicted states go first: they are counted off already.
        if let Some(shares) = shares.as_deref_mut() {
            if shares.unordered_expire_from <= now {
                shares.write_order(conn)?;
            } else {
                shares.settle(conn)?;
            }
        }
        let expired = conn
            .prepare_cached(ORDER_EXPIRED)
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
    /// state other than `except` is.
    fn earliest_listed(&self, key: i64, except: &StateId) -> Option<usize> {
        self.unordered
            .iter()
            .enumerate()
            .filter(|(_, (k, _, id, _))| *k == key && id != except)
            .min_by_key(|(_, (_, issued_at, id, _))| (*issued_at, *id))
            .map(|(at, _)| at)
    }

    /// Where in `key`'s [`Head`] its earliest row other than `except` is,
    /// reading more of `owner_order` when the rows read are used up.
    fn earliest_ordered(
        &mut self,
        conn: &Connection,
        key: i64,
        except: &StateId,
    ) -> Result<Option<usize>, StoreError> {
        let head = self.heads.entry(key).or_default();
        loop {
            if let Some(at) = head
                .rows
                .iter()
                .position(|(_, id, _)| **id != *except.as_bytes())
            {
                return Ok(Some(at));
            }
            if head.read_all {
                return Ok(None);
            }
            let want = head.next_read.clamp(HEAD_READ.0, HEAD_READ.1);
            head.next_read = want.saturating_mul(2);
            // From the start (no row sorts before `i64::MIN` and no id).
            let (after_issued, after_id) = head.after.take().unwrap_or((i64::MIN, Box::default()));
            let mut statement = conn.prepare_cached(NEXT_ORDERED).map_err(backend)?;
            let rows = statement
                .query_map(
                    params![
                        key,
                        after_issued,
                        after_id,
                        i64::try_from(want).unwrap_or(i64::MAX)
                    ],
                    |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, Vec<u8>>(1)?.into_boxed_slice(),
                            r.get::<_, i64>(2)?,
                        ))
                    },
                )
                .map_err(backend)?;
            let mut read = 0;
            for row in rows {
                head.rows.push_back(row.map_err(backend)?);
                read += 1;
            }
            head.read_all = read < want;
            if read > 0 {
                // The last row pushed is the last read.
                head.after = head.rows.back().map(|(i, id, _)| (*i, id.clone()));
            }
        }
    }

    /// Evict `key`'s earliest-issued state other than `except` (the one
    /// being redeemed): count it off, and unless it had expired raise the
    /// owner's floor over it. Its row stays in the file until the next
    /// [`settle`](Self::settle). `false` when the owner has no such state.
    fn evict_earliest(
        &mut self,
        conn: &Connection,
        key: i64,
        except: &StateId,
        now: i64,
    ) -> Result<bool, StoreError> {
        // The earliest is the first of `owner_order` not yet evicted or,
        // rarely, one still listed in memory (the list is not written for
        // this: under a full store every redemption evicts, and writing
        // the list each time would undo its batching).
        let ordered = self.earliest_ordered(conn, key, except)?;
        let first_ordered = ordered.and_then(|o| self.heads.get(&key)?.rows.get(o));
        let listed = match first_ordered {
            // Nothing listed can come first: no need to look.
            Some((o_issued_at, _, _)) if *o_issued_at < self.unordered_issued_from => None,
            _ => self.earliest_listed(key, except).filter(|&l| {
                let (_, issued_at, id, _) = &self.unordered[l];
                first_ordered.is_none_or(|(o_issued_at, o_id, _)| {
                    (*issued_at, &id.as_bytes()[..]) < (*o_issued_at, &o_id[..])
                })
            }),
        };
        let (issued_at, id, expires_at, in_order) = if let Some(l) = listed {
            let (_, issued_at, id, expires_at) = self.unordered.remove(l);
            (issued_at, Box::from(&id.as_bytes()[..]), expires_at, false)
        } else if let Some((issued_at, id, expires_at)) =
            ordered.and_then(|o| self.heads.get_mut(&key)?.rows.remove(o))
        {
            (issued_at, id, expires_at, true)
        } else {
            return Ok(false);
        };
        self.evicted.push((key, issued_at, id, in_order));
        if expires_at > now
            && let Some(owner) = self.owners.get_mut(&key)
        {
            // Raised before the count drops, so an owner left without rows
            // is kept as long as its floor stands for something.
            // Written with the evicted rows' deletes (`settle`).
            let floor = owner.floor.map_or(issued_at, |f| f.max(issued_at));
            owner.floor = Some(floor);
            owner.floor_until = owner.floor_until.max(expires_at);
            if self.raised.last() != Some(&key) {
                self.raised.push(key);
            }
            tracing::debug!(floor, "nonce share full; floor raised");
        }
        self.add_live(key, -1);
        Ok(true)
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
mod tests;
