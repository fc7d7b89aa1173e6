//! The store's file is private from the start: its directory is checked
//! (this user's, not writable by group or others), and the file is created
//! `0600` before SQLite opens it (SQLite would create it `0644` less the
//! umask, and gives its `-wal` and `-shm` files the database's mode).

use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::store::StoreError;

fn refused(message: String) -> StoreError {
    StoreError::Backend(crate::Reason::new(format!("sqlite: {message}")))
}

/// Check the directory of `path`, then create the file owner-only (or make
/// an existing one of ours owner-only).
pub(super) fn prepare(path: &Path) -> Result<(), StoreError> {
    let me = rustix::process::geteuid().as_raw();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let meta = std::fs::metadata(dir)
        .map_err(|e| refused(format!("cannot read the directory {}: {e}", dir.display())))?;
    if !meta.is_dir() {
        return Err(refused(format!("{} is not a directory", dir.display())));
    }
    if meta.uid() != me {
        return Err(refused(format!(
            "the directory {} belongs to another user (uid {}, this is uid {me}); keep the \
             store in a directory of this user's, owner-only (chmod 700)",
            dir.display(),
            meta.uid()
        )));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(refused(format!(
            "{} can be written by other users (mode {mode:o}): they could have put files \
             in it; make it owner-only (chmod go-w, better chmod 700) and check what is in \
             it, or use another directory",
            dir.display()
        )));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        // An existing store is opened as it is.
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(|e| refused(format!("cannot open {}: {e}", path.display())))?;
    let meta = file
        .metadata()
        .map_err(|e| refused(format!("cannot read {}: {e}", path.display())))?;
    if meta.uid() != me {
        return Err(refused(format!(
            "{} belongs to another user (uid {})",
            path.display(),
            meta.uid()
        )));
    }
    // A file made by an earlier version, or by hand, with a wider mode.
    if meta.mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(|e| refused(format!("cannot make {} owner-only: {e}", path.display())))?;
    }
    Ok(())
}
