//! [`Revision`]: the one representation of "which protocol" in every crate.
//!
//! Server, client and transports all speak one of two revisions. 2025-11-25 is
//! the handshake revision (it also serves the older revisions an `initialize`
//! may negotiate down to, listed in [`version::HANDSHAKE`](crate::version::HANDSHAKE));
//! 2026-07-28 is stateless.

use std::fmt;
use std::str::FromStr;

use crate::constants::version;

/// A protocol revision frontdesk speaks.
///
/// ```
/// use frontdesk_wire::Revision;
///
/// let r: Revision = "2026-07-28".parse()?;
/// assert_eq!(r, Revision::V2026_07_28);
/// assert!(r.is_stateless());
/// assert_eq!(Revision::V2025_11_25.to_string(), "2025-11-25");
/// # Ok::<(), frontdesk_wire::UnknownRevision>(())
/// ```
///
/// Deliberately exhaustive (unlike the wire's other enums): a new revision
/// changes how every message is read and answered, so code that matches on
/// it should stop compiling until it says what it does for the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Revision {
    /// 2025-11-25: the `initialize` handshake, sessions, server-to-client
    /// requests (`elicitation/create` while a call is open).
    V2025_11_25,
    /// 2026-07-28: no handshake, per-request `_meta`, `input_required` results
    /// retried by the client.
    V2026_07_28,
}

impl Revision {
    /// Every revision, newest first (what `server/discover` advertises).
    pub const ALL: [Revision; 2] = [Revision::V2026_07_28, Revision::V2025_11_25];

    /// The version string on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2025_11_25 => version::V2025_11_25,
            Self::V2026_07_28 => version::V2026_07_28,
        }
    }

    /// The revision whose version string is exactly `version` (older
    /// handshake versions such as `2025-06-18` are not revisions of their own:
    /// see [`Revision::serving`]).
    pub fn from_version(version: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == version)
    }

    /// The revision that serves a negotiated `version`: 2026-07-28 itself, or
    /// 2025-11-25 for every version of [`version::HANDSHAKE`].
    pub fn serving(version: &str) -> Option<Self> {
        if version == version::V2026_07_28 {
            Some(Self::V2026_07_28)
        } else if version::HANDSHAKE.contains(&version) {
            Some(Self::V2025_11_25)
        } else {
            None
        }
    }

    /// Whether requests stand alone (2026-07-28): no session, `_meta` on every
    /// request, questions as `input_required` results.
    pub const fn is_stateless(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version string that is not a [`Revision`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol revision {0:?} (known: 2026-07-28, 2025-11-25)")]
pub struct UnknownRevision(String);

impl UnknownRevision {
    /// The version string that was read.
    pub fn value(&self) -> &str {
        &self.0
    }
}

impl FromStr for Revision {
    type Err = UnknownRevision;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_version(s).ok_or_else(|| UnknownRevision(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_lists_agree() {
        let names: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names, version::SUPPORTED);
        assert_eq!(version::HANDSHAKE[0], Revision::V2025_11_25.as_str());
        for v in version::HANDSHAKE {
            assert_eq!(Revision::serving(v), Some(Revision::V2025_11_25), "{v}");
        }
        assert_eq!(Revision::serving("2026-07-28"), Some(Revision::V2026_07_28));
        assert_eq!(Revision::serving("2024-11-05"), None);
        assert_eq!(Revision::from_version("2025-06-18"), None);
        assert!("v999".parse::<Revision>().is_err());
    }
}
