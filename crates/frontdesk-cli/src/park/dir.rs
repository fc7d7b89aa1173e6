//! Where parked calls' sockets live: a directory only this user can open.
//!
//! 1. `$FRONTDESK_PARK_DIR`, when set;
//! 2. else `$XDG_RUNTIME_DIR/frontdesk` (the runtime directory is this user's
//!    and `0700`, so nobody else can create anything in it);
//! 3. else `$TMPDIR/frontdesk-UID` (`/tmp` when `TMPDIR` is unset).
//!
//! Each is created `0700` when missing and used only when it is a directory
//! (not a symlink), this user's, and closed to group and others. For the first
//! two, anything else is refused with what to do (the user chose them, or made
//! them so). The third is in a directory everyone can write to, so another user
//! can create it first: then it is left alone, and the calls park in a private
//! directory beside it, `$TMPDIR/frontdesk-UID-XXXXXXXX`, made with a random
//! name (like `mkdtemp`), `0700`, checked the same way, and reused by later
//! calls; `respond` looks in every such directory of this user's.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use anyhow::bail;

/// This process's (effective) user id.
fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Why `dir` may not hold parked calls, if it may not.
fn unusable(dir: &Path, uid: u32) -> Option<String> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) => return Some(format!("cannot be read ({e})")),
    };
    if !meta.is_dir() {
        Some("is not a directory (a symlink?)".to_owned())
    } else if meta.uid() != uid {
        Some("belongs to another user".to_owned())
    } else if meta.mode() & 0o077 != 0 {
        Some("can be opened by other users".to_owned())
    } else {
        None
    }
}

/// Create `dir` owner-only unless it exists; whether this call created it.
fn create(dir: &Path) -> anyhow::Result<bool> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => bail!("cannot create {}: {e}", dir.display()),
    }
}

/// The directory the user chose (or the runtime one), created and checked.
fn chosen() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("FRONTDESK_PARK_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|d| !d.is_empty())
        .map(|run| PathBuf::from(run).join("frontdesk"))
}

fn checked(dir: PathBuf, uid: u32) -> anyhow::Result<PathBuf> {
    create(&dir)?;
    match unusable(&dir, uid) {
        None => Ok(dir),
        Some(why) if why.starts_with("can be opened") => {
            bail!("{} {why}; `chmod 700` it or remove it", dir.display())
        }
        Some(why) => bail!("{} {why}; remove it", dir.display()),
    }
}

/// `$TMPDIR/frontdesk-UID`.
fn shared_tmp(uid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("frontdesk-{uid}"))
}

/// The private directories beside `$TMPDIR/frontdesk-UID` that are this
/// user's and usable, by name.
fn private_ones(uid: u32) -> Vec<PathBuf> {
    let prefix = format!("frontdesk-{uid}-");
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .map(|e| e.path())
        .filter(|p| unusable(p, uid).is_none())
        .collect();
    found.sort();
    found
}

/// A fresh private directory beside `$TMPDIR/frontdesk-UID`.
fn new_private(uid: u32) -> anyhow::Result<PathBuf> {
    for _ in 0..16 {
        let dir = std::env::temp_dir().join(format!("frontdesk-{uid}-{}", super::random_hex()));
        if create(&dir)? {
            if let Some(why) = unusable(&dir, uid) {
                bail!("{} {why} right after it was made", dir.display());
            }
            return Ok(dir);
        }
    }
    bail!(
        "cannot make a private directory in {}",
        std::env::temp_dir().display()
    )
}

/// The directory a new parked call goes in (see the module docs).
pub fn for_new_call() -> anyhow::Result<PathBuf> {
    let uid = current_uid();
    if let Some(dir) = chosen() {
        return checked(dir, uid);
    }
    let shared = shared_tmp(uid);
    create(&shared)?;
    let Some(why) = unusable(&shared, uid) else {
        return Ok(shared);
    };
    let dir = match private_ones(uid).into_iter().next() {
        Some(dir) => dir,
        None => new_private(uid)?,
    };
    crate::output::note(&format!(
        "frontdesk: {} is not usable ({why}; someone may have made it to stop parked \
         calls); parking in {} instead. Set FRONTDESK_PARK_DIR to choose another.",
        shared.display(),
        dir.display()
    ));
    Ok(dir)
}

/// The directory holding the parked call `call`'s socket.
pub fn of_call(call: &str) -> anyhow::Result<PathBuf> {
    let uid = current_uid();
    if let Some(dir) = chosen() {
        return checked(dir, uid);
    }
    let shared = shared_tmp(uid);
    let mut candidates = Vec::new();
    if unusable(&shared, uid).is_none() {
        candidates.push(shared.clone());
    }
    candidates.extend(private_ones(uid));
    let socket = format!("{call}.sock");
    Ok(candidates
        .iter()
        .find(|d| d.join(&socket).exists())
        .or(candidates.first())
        .cloned()
        // No such call anywhere: the shared directory says so.
        .unwrap_or(shared))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_private_directories_of_ours_are_usable() {
        use std::os::unix::fs::PermissionsExt;
        let uid = current_uid();
        let root = std::env::temp_dir().join(format!("fd-dir-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let ours = root.join("ours");
        assert!(create(&ours).unwrap());
        assert_eq!(unusable(&ours, uid), None);
        assert!(!create(&ours).unwrap(), "exists already");
        let open = root.join("open");
        assert!(create(&open).unwrap());
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            unusable(&open, uid).as_deref(),
            Some("can be opened by other users")
        );
        assert_eq!(
            unusable(&ours, uid.wrapping_add(1)).as_deref(),
            Some("belongs to another user")
        );
        let link = root.join("link");
        std::os::unix::fs::symlink(&ours, &link).unwrap();
        assert_eq!(
            unusable(&link, uid).as_deref(),
            Some("is not a directory (a symlink?)")
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
