//! frontdesk-audit against the deliberately broken fixture (one defect per
//! check) and against frontdesk's own servers.

mod support;

mod defects;
mod frontdesk_servers;
