//! `--max-connections` and the other caps of a command's `--http` listener
//! (`serve`, `gateway`): what an operator raises behind a load balancer,
//! where every client has the balancer's address, or for many pending
//! 2025-11-25 questions (each holds its connection on HTTP/1.1).
//!
//! The defaults are [`HttpOptions`]'s own, read from it, so the help text
//! and the library never disagree.

use clap::Args;
use frontdesk::http::HttpOptions;

/// The connection, session and request caps of an HTTP listener.
#[derive(Debug, Clone, Args)]
pub struct ListenLimitArgs {
    /// Most open connections; more are answered `503` and closed.
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one,
          default_value_t = HttpOptions::default().max_connections)]
    pub max_connections: usize,
    /// Most open connections from one address; more are answered `429` and
    /// closed. Behind a load balancer every client has its address: raise
    /// this to --max-connections there.
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one,
          default_value_t = HttpOptions::default().max_connections_per_client)]
    pub max_connections_per_client: usize,
    /// Most 2025-11-25 sessions at once; when full, the least recently used
    /// idle one is ended, and with none idle a new one gets `503`.
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one,
          default_value_t = HttpOptions::default().max_sessions)]
    pub max_sessions: usize,
    /// Most 2025-11-25 sessions of one client (its principal, or its address
    /// when anonymous); at the cap it ends its own least recently used idle
    /// session to start another.
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one,
          default_value_t = HttpOptions::default().max_sessions_per_client)]
    pub max_sessions_per_client: usize,
    /// Most 2026-07-28 requests of one client in flight; more get `429`.
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one,
          default_value_t = HttpOptions::default().max_requests_per_client)]
    pub max_requests_per_client: usize,
}

impl ListenLimitArgs {
    /// `options` with these caps.
    ///
    /// ```ignore
    /// let options = args.limits.apply(HttpOptions::new().endpoint("/mcp"));
    /// ```
    pub fn apply(&self, options: HttpOptions) -> HttpOptions {
        options
            .max_connections(self.max_connections)
            .max_connections_per_client(self.max_connections_per_client)
            .max_sessions(self.max_sessions)
            .max_sessions_per_client(self.max_sessions_per_client)
            .max_requests_per_client(self.max_requests_per_client)
    }
}

/// A cap: a whole number of at least 1 (0 would refuse everything).
pub(crate) fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("a cap of 0 would refuse every client: give 1 or more".to_string()),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Probe {
        #[arg(long)]
        http: Option<String>,
        #[command(flatten)]
        limits: ListenLimitArgs,
    }

    #[test]
    fn the_defaults_are_the_librarys() {
        let probe = Probe::try_parse_from(["probe"]).unwrap();
        let applied = probe.limits.apply(HttpOptions::new());
        let library = HttpOptions::default();
        assert_eq!(applied.max_connections, library.max_connections);
        assert_eq!(
            applied.max_connections_per_client,
            library.max_connections_per_client
        );
        assert_eq!(applied.max_sessions, library.max_sessions);
        assert_eq!(
            applied.max_sessions_per_client,
            library.max_sessions_per_client
        );
        assert_eq!(
            applied.max_requests_per_client,
            library.max_requests_per_client
        );
    }

    #[test]
    fn each_flag_sets_its_cap() {
        let probe = Probe::try_parse_from([
            "probe",
            "--http",
            "127.0.0.1:0",
            "--max-connections",
            "30000",
            "--max-connections-per-client",
            "29000",
            "--max-sessions",
            "20000",
            "--max-sessions-per-client",
            "19000",
            "--max-requests-per-client",
            "500",
        ])
        .unwrap();
        let applied = probe.limits.apply(HttpOptions::new());
        assert_eq!(
            (
                applied.max_connections,
                applied.max_connections_per_client,
                applied.max_sessions,
                applied.max_sessions_per_client,
                applied.max_requests_per_client
            ),
            (30_000, 29_000, 20_000, 19_000, 500)
        );
    }

    #[test]
    fn zero_and_words_are_refused_and_the_caps_need_http() {
        let zero = Probe::try_parse_from(["probe", "--http", "x", "--max-connections", "0"])
            .unwrap_err()
            .to_string();
        assert!(
            zero.contains("a cap of 0 would refuse every client"),
            "{zero}"
        );
        let word = Probe::try_parse_from(["probe", "--http", "x", "--max-sessions", "many"])
            .unwrap_err()
            .to_string();
        assert!(word.contains("`many` is not a whole number"), "{word}");
        let alone = Probe::try_parse_from(["probe", "--max-connections", "9"])
            .unwrap_err()
            .to_string();
        assert!(alone.contains("--http"), "{alone}");
    }
}
