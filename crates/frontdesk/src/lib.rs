//! frontdesk runtime: the MCP server and client built on the pure crates.
