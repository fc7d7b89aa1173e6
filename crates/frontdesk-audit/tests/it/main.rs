//! frontdesk-audit against the deliberately broken fixture (one defect per
//! check) and against frontdesk's own servers.
// Tests may unwrap: a panic there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(unreachable_pub)]

mod support;

mod defects;
mod frontdesk_servers;
mod report;
