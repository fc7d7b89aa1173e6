//! [`ServerConfig`]: the server's budgets. Human time is not machine time:
//! waiting for a person has its own budget.

use std::time::Duration;

/// Tunables, with setters for building without `Default::default()` and
/// field assignments.
///
/// ```
/// use std::time::Duration;
/// use frontdesk::server::ServerConfig;
///
/// let config = ServerConfig::new()
///     .human_wait(Duration::from_secs(300))
///     .reask_limit(2);
/// assert_eq!(config.reask_limit, 2);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerConfig {
    /// How long a 2025-11-25 question waits for the person (default 10 min).
    pub human_wait: Duration,
    /// Interval of progress keep-alives while waiting (default 15 s).
    pub keepalive_interval: Duration,
    /// How long a 2026-07-28 retry is held for a URL flow to finish before the
    /// same URL is asked again (default 10 s).
    pub url_hold: Duration,
    /// Lifetime of a sealed `requestState` (default 30 min).
    pub state_ttl: Duration,
    /// How many times 2025-11-25 asks again when accepted content fails the
    /// schema, before giving up (default 1).
    pub reask_limit: u32,
    /// Largest accepted message, in bytes (default 4 MiB).
    pub max_message_bytes: usize,
    /// Longest resource URI a client may send, in bytes (default 8 KiB):
    /// checked before any lookup or template matching (`resources/read`,
    /// `resources/subscribe`, `resources/unsubscribe`, a completion's
    /// resource reference); a longer one is answered `-32602`.
    pub max_uri_bytes: usize,
    /// `ttlMs` of 2026-07-28 list and discover results, and of resource
    /// reads whose handler chose none (default 5 min).
    pub list_ttl_ms: u64,
    /// Most requests in flight on the whole server, both revisions (default
    /// 20 000; more are answered `-32000`, HTTP `503`). A 2026-07-28 retry
    /// whose request was dropped counts until its round ends.
    pub max_requests: usize,
    /// Most requests in flight on one 2025-11-25 session (default 32; more are
    /// answered `-32000`, HTTP `429`).
    pub max_requests_per_session: usize,
    /// Most 2025-11-25 questions waiting for an answer on the whole server
    /// (default 20 000).
    pub max_questions: usize,
    /// Most 2025-11-25 questions waiting for an answer on one session
    /// (default 16). A handler over a bound gets [`AskError::Busy`](crate::server::api::error::AskError::Busy).
    pub max_questions_per_session: usize,
    /// Lifetime of a URL flow started by a 2026-07-28 first round (default
    /// 15 min): a flow nobody continues is gone soon.
    pub url_flow_ttl: Duration,
    /// Most URL flows pending for one client (its principal, or its address
    /// when anonymous; default 32). Over it, the client's handler gets
    /// [`AskError::Busy`](crate::server::api::error::AskError::Busy); other clients are not
    /// affected.
    pub max_flows_per_client: usize,
    /// How long the reply to a 2026-07-28 retry is kept for the same retry
    /// sent again, after a dropped connection (default 60 s). Within this time
    /// a replayed state gets the reply it got the first time (the handler does
    /// not run again); after it, the replay is refused. With a nonce store
    /// that shares replies among instances (Redis), the reply of a retry
    /// whose request was lost mid-round is kept there as long, for the same
    /// retry sent to another instance.
    pub retry_reply_ttl: Duration,
    /// Most retry replies kept (default 4 096; the oldest finished one makes
    /// room). One client (the one a call's states are charged to) keeps at
    /// most a sixteenth of them (at least 64), so a flood of retries only
    /// pushes out the flooder's own.
    pub max_retry_replies: usize,
    /// How long a task is kept after it is created (default 1 h); a task
    /// still running then is stopped.
    pub task_ttl: Duration,
    /// The polling interval tasks suggest (`pollIntervalMs`, default 1 s).
    pub task_poll_interval: Duration,
    /// With a task store ([`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store)):
    /// how long a running task's record says its instance runs it (default
    /// 15 s). The instance renews it every third of that; a task whose
    /// lease ran out is reported `failed` on every instance (its instance
    /// stopped). Longer tolerates longer store outages; shorter reports a
    /// lost task sooner.
    pub task_lease: Duration,
    /// With a task store: how often the instance running a task that
    /// waits for input looks for answers and a cancel left on another
    /// instance (default 250 ms). A working task learns of a cancel from
    /// elsewhere when it renews its lease.
    pub task_inbox_poll: Duration,
    /// Most tasks kept at once (default 10 000). To make room for a new
    /// task the oldest finished one (completed, failed or cancelled) is
    /// forgotten; when every task is still running, a call that would make
    /// another continues within the call instead.
    pub max_tasks: usize,
    /// Most tasks kept at once for one client (its principal, or its address
    /// when anonymous; default 256). To make room the client's own oldest
    /// finished task is forgotten; when all of them are still running, its
    /// call continues within the call instead. A running task is never
    /// forgotten to make room, so other clients are not affected.
    ///
    /// Both task bounds are per instance, also with a task store: each
    /// instance counts the tasks it runs (and removes from the store a
    /// finished task it forgets to make room).
    pub max_tasks_per_client: usize,
    /// Most resource subscriptions on the whole server (default 20 000):
    /// those of 2025-11-25 sessions (`resources/subscribe`) and of
    /// 2026-07-28 `subscriptions/listen` streams. Over it a subscription is
    /// refused `-32000` (HTTP `503`).
    pub max_subscriptions: usize,
    /// Most resource subscriptions of one client, over all its sessions and
    /// listen streams (its principal, or its address when anonymous; default
    /// 1 024). Over it a subscription is refused `-32000` (HTTP `429`);
    /// other clients are not affected.
    pub max_subscriptions_per_client: usize,
    /// Most resources one 2025-11-25 session, or one `subscriptions/listen`
    /// stream, subscribes to (default 64). Over it a subscription is refused
    /// `-32000` (HTTP `429`). A session's subscriptions are given back when
    /// it ends.
    pub max_subscriptions_per_session: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            human_wait: Duration::from_secs(600),
            keepalive_interval: Duration::from_secs(15),
            url_hold: Duration::from_secs(10),
            state_ttl: Duration::from_secs(1800),
            reask_limit: 1,
            max_message_bytes: 4 * 1024 * 1024,
            max_uri_bytes: 8 * 1024,
            list_ttl_ms: 300_000,
            max_requests: 20_000,
            max_requests_per_session: 32,
            max_questions: 20_000,
            max_questions_per_session: 16,
            url_flow_ttl: Duration::from_secs(900),
            max_flows_per_client: 32,
            retry_reply_ttl: Duration::from_secs(60),
            max_retry_replies: 4_096,
            task_ttl: Duration::from_secs(3600),
            task_poll_interval: Duration::from_secs(1),
            task_lease: Duration::from_secs(15),
            task_inbox_poll: Duration::from_millis(250),
            max_tasks: 10_000,
            max_tasks_per_client: 256,
            max_subscriptions: 20_000,
            max_subscriptions_per_client: 1_024,
            max_subscriptions_per_session: 64,
        }
    }
}

impl ServerConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long a 2025-11-25 question waits for the person.
    pub fn human_wait(mut self, budget: Duration) -> Self {
        self.human_wait = budget;
        self
    }

    /// Interval of progress keep-alives while waiting.
    pub fn keepalive_interval(mut self, every: Duration) -> Self {
        self.keepalive_interval = every;
        self
    }

    /// How long a 2026-07-28 retry waits for a URL flow to finish.
    pub fn url_hold(mut self, hold: Duration) -> Self {
        self.url_hold = hold;
        self
    }

    /// Lifetime of a sealed `requestState`.
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// How many times 2025-11-25 asks again after an invalid answer.
    pub fn reask_limit(mut self, times: u32) -> Self {
        self.reask_limit = times;
        self
    }

    /// Largest accepted message, in bytes.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Longest resource URI a client may send, in bytes.
    pub fn max_uri_bytes(mut self, bytes: usize) -> Self {
        self.max_uri_bytes = bytes;
        self
    }

    /// `ttlMs` of 2026-07-28 list and discover results.
    pub fn list_ttl_ms(mut self, ms: u64) -> Self {
        self.list_ttl_ms = ms;
        self
    }

    /// Most requests in flight on the whole server.
    pub fn max_requests(mut self, n: usize) -> Self {
        self.max_requests = n;
        self
    }

    /// Most requests in flight on one 2025-11-25 session.
    pub fn max_requests_per_session(mut self, n: usize) -> Self {
        self.max_requests_per_session = n;
        self
    }

    /// Most 2025-11-25 questions waiting on the whole server.
    pub fn max_questions(mut self, n: usize) -> Self {
        self.max_questions = n;
        self
    }

    /// Most 2025-11-25 questions waiting on one session.
    pub fn max_questions_per_session(mut self, n: usize) -> Self {
        self.max_questions_per_session = n;
        self
    }

    /// Lifetime of a URL flow started by a 2026-07-28 first round.
    pub fn url_flow_ttl(mut self, ttl: Duration) -> Self {
        self.url_flow_ttl = ttl;
        self
    }

    /// Most URL flows pending for one client.
    pub fn max_flows_per_client(mut self, n: usize) -> Self {
        self.max_flows_per_client = n;
        self
    }

    /// How long the reply to a 2026-07-28 retry is kept for a resend.
    pub fn retry_reply_ttl(mut self, ttl: Duration) -> Self {
        self.retry_reply_ttl = ttl;
        self
    }

    /// Most retry replies kept.
    pub fn max_retry_replies(mut self, n: usize) -> Self {
        self.max_retry_replies = n;
        self
    }

    /// How long a task is kept after it is created.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// The polling interval tasks suggest.
    pub fn task_poll_interval(mut self, every: Duration) -> Self {
        self.task_poll_interval = every;
        self
    }

    /// How long a running task's record holds its instance's lease.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.task_lease = lease;
        self
    }

    /// How often a task waiting for input looks for answers left elsewhere.
    pub fn task_inbox_poll(mut self, every: Duration) -> Self {
        self.task_inbox_poll = every;
        self
    }

    /// Most tasks kept at once.
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.max_tasks = tasks;
        self
    }

    /// Most tasks kept at once for one client.
    pub fn max_tasks_per_client(mut self, tasks: usize) -> Self {
        self.max_tasks_per_client = tasks;
        self
    }

    /// Most resource subscriptions on the whole server.
    pub fn max_subscriptions(mut self, n: usize) -> Self {
        self.max_subscriptions = n;
        self
    }

    /// Most resource subscriptions of one client.
    pub fn max_subscriptions_per_client(mut self, n: usize) -> Self {
        self.max_subscriptions_per_client = n;
        self
    }

    /// Most resources one session or listen stream subscribes to.
    pub fn max_subscriptions_per_session(mut self, n: usize) -> Self {
        self.max_subscriptions_per_session = n;
        self
    }
}
