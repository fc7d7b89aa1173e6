//! Targets and option sets the tests share.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::BoxFuture;
use frontdesk::client::auth::{
    AuthError, MemoryTokenStore, OAuthConfig, PendingRedirect, StoredGrant, TokenStore, Tokens,
    UserAgent,
};
use frontdesk_audit::fixture::{Defect, Fixture};
use frontdesk_audit::target::Pipe;
use frontdesk_audit::{CheckId, Endpoint, Options, Outcome, Report, Target, audit};

/// An in-process fixture as an endpoint (a new pipe per session).
pub(crate) fn pipe_to(fixture: &Arc<Fixture>) -> Endpoint {
    let fixture = fixture.clone();
    Endpoint::pipe(
        "fixture",
        move || -> BoxFuture<'static, std::io::Result<Pipe>> {
            let fixture = fixture.clone();
            Box::pin(async move { Ok(fixture.pipe()) })
        },
    )
}

/// Never signs in: the token is in the store already.
struct NoSignIn;

impl UserAgent for NoSignIn {
    fn prepare(&self) -> BoxFuture<'_, Result<Box<dyn PendingRedirect>, AuthError>> {
        Box::pin(async { Err(AuthError::Unattended) })
    }
}

/// `url` reached with the bearer token `token` (the fixture's principal).
pub(crate) fn bearer(url: &str, token: &str) -> Endpoint {
    let endpoint = url.to_owned();
    let token = token.to_owned();
    Endpoint::url(url).configured(move |config| {
        let store = MemoryTokenStore::default();
        let grant = StoredGrant {
            client: None,
            tokens: Some(Tokens {
                access_token: token.clone(),
                refresh_token: None,
                expires_at: None,
                scopes: Vec::new(),
            }),
        };
        store.save(&endpoint, &grant).map_err(|e| e.to_string())?;
        config.oauth = Some(OAuthConfig::new(NoSignIn).store(store));
        Ok(())
    })
}

/// Options that call every tool, with short time limits.
pub(crate) fn options() -> Options {
    Options {
        call_all: true,
        timeout: Duration::from_secs(5),
        ..Options::default()
    }
}

/// The checks that failed.
pub(crate) fn failed(report: &Report) -> Vec<CheckId> {
    report
        .summary
        .iter()
        .filter(|s| s.outcome == Outcome::Fail)
        .map(|s| s.check)
        .collect()
}

/// The outcome of `check`'s summary line.
pub(crate) fn outcome(report: &Report, check: CheckId) -> Option<Outcome> {
    report.outcome_of(check)
}

/// Audit a fixture with `defect` over a pipe.
pub(crate) async fn audit_fixture(defect: Option<Defect>, options: &Options) -> Report {
    let fixture = Fixture::new(defect);
    audit(&Target::new(pipe_to(&fixture)), options).await
}

/// The table, for failure messages.
pub(crate) fn shown(report: &Report) -> String {
    frontdesk_audit::render::table(report, None)
}

/// Every check passed, but those that need what the run did not give
/// (another principal, a second instance, a state lifetime), which were
/// skipped.
pub(crate) fn passes_all_it_can(report: &Report) {
    for check in frontdesk_audit::CHECKS {
        let needs_more = matches!(
            check.id,
            CheckId::StatePrincipal | CheckId::InstanceRetry | CheckId::StateExpiry
        );
        let want = if needs_more {
            Outcome::Skipped
        } else {
            Outcome::Pass
        };
        assert_eq!(
            outcome(report, check.id),
            Some(want),
            "{}:\n{}",
            check.id,
            shown(report)
        );
    }
}

/// Audit `target` (two principals, a second instance, states of a short
/// lifetime) with only the checks that need those, and require each passes.
pub(crate) async fn passes_the_checks_that_need_more(target: &Target, base: Options) {
    let only = vec![
        CheckId::StatePrincipal,
        CheckId::InstanceRetry,
        CheckId::StateExpiry,
    ];
    let opts = Options {
        state_age: Some(std::time::Duration::from_secs(3)),
        only: only.clone(),
        ..base
    };
    let report = audit(target, &opts).await;
    for check in only {
        assert_eq!(
            outcome(&report, check),
            Some(Outcome::Pass),
            "{check}:\n{}",
            shown(&report)
        );
    }
}
