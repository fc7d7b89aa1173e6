//! Every check `frontdesk audit` runs, as data: its id, what it checks, the
//! spec text it holds the server to, its severity, the revisions it applies
//! to and what it needs beyond the server itself.
//!
//! The spec references name the page and section of the MCP specification
//! (2025-11-25 and 2026-07-28) and paraphrase the requirement with its
//! keyword (MUST, SHOULD …); the checks' logic is in the crate's `checks` module.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much a failed check matters.
///
/// Ordered: `Info < Warning < Error < Critical`; `--fail-on S` fails the run
/// when a check of severity `S` or above fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Advice: worth knowing, nothing breaks.
    Info,
    /// A SHOULD of the spec is not met, or the server is fragile under abuse.
    Warning,
    /// A MUST of the spec is not met: correct clients will fail against it.
    Error,
    /// A hostile client can make the server act against its user (act on an
    /// answer that was never given, trust a tampered state).
    Critical,
}

impl Severity {
    /// Every severity, lowest first.
    pub const ALL: [Severity; 4] = [
        Severity::Info,
        Severity::Warning,
        Severity::Error,
        Severity::Critical,
    ];

    /// The stable lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Severity::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| format!("unknown severity {s:?} (info, warning, error, critical)"))
    }
}

/// Which protocol revisions a check applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applies {
    /// 2025-11-25 and 2026-07-28.
    Both,
    /// 2025-11-25 only.
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

/// What a check needs beyond the server and the tools it may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Needs {
    /// Nothing more.
    Nothing,
    /// A second principal (`--second-token-file` or `--second-command`).
    SecondPrincipal,
    /// A second instance of the server (`--also`).
    SecondInstance,
    /// A state lifetime to wait out (`--state-age SECS`).
    StateAge,
    /// `--stress` (a flood of requests).
    Stress,
}

macro_rules! checks {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $id:literal {
            title: $title:literal,
            severity: $severity:ident,
            applies: $applies:ident,
            needs: $needs:ident,
            spec: $spec:literal,
            rule: $rule:literal $(,)?
        }
    )*) => {
        /// The id of a check. The dotted names are stable: CI scripts and the
        /// JSON report use them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum CheckId {
            $( $(#[$doc])* #[serde(rename = $id)] $variant, )*
        }

        /// Every check, in the order of the report.
        pub const CHECKS: &[Check] = &[
            $( Check {
                id: CheckId::$variant,
                title: $title,
                severity: Severity::$severity,
                applies: Applies::$applies,
                needs: Needs::$needs,
                spec: $spec,
                rule: $rule,
            }, )*
        ];

        impl CheckId {
            /// The stable dotted name (`content.wrong-type`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( CheckId::$variant => $id, )*
                }
            }
        }
    };
}

/// One check: what it is and what it holds the server to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The id.
    pub id: CheckId,
    /// What it checks, in a line.
    pub title: &'static str,
    /// How much a failure matters.
    pub severity: Severity,
    /// The revisions it applies to.
    pub applies: Applies,
    /// What it needs to run at all.
    pub needs: Needs,
    /// Where the spec says so: page and section.
    pub spec: &'static str,
    /// The requirement, paraphrased, with its keyword.
    pub rule: &'static str,
}

impl CheckId {
    /// The catalog entry of this check.
    pub fn check(self) -> &'static Check {
        // Every id has exactly one entry (the macro writes both).
        CHECKS.iter().find(|c| c.id == self).unwrap_or(&CHECKS[0])
    }
}

impl fmt::Display for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CheckId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CHECKS
            .iter()
            .map(|c| c.id)
            .find(|id| id.as_str() == s)
            .ok_or_else(|| format!("no check is called {s:?} (`frontdesk audit --list-checks`)"))
    }
}

checks! {
    /// A form question's schema is inside the restricted subset.
    FormSubset = "form.subset" {
        title: "Form questions stay inside the schema subset",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Requested schema (2025-11-25, 2026-07-28)",
        rule: "requestedSchema is a flat object whose properties are primitive definitions \
               (string, number/integer, boolean, single- and multi-select enums of strings); \
               nested objects, arrays of objects, unknown formats and other JSON Schema \
               features are not supported, and a default must fit its own field",
    }
    /// No form asks for a secret.
    FormSecrets = "form.secrets" {
        title: "No form asks for a password, token, key or card number",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Security considerations (2025-11-25, 2026-07-28)",
        rule: "Servers MUST NOT use form mode to request sensitive information (passwords, \
               API keys, access tokens, payment credentials) and MUST use URL mode for it",
    }
    /// Forms follow the spec's advice.
    FormAdvice = "form.advice" {
        title: "Forms carry no links and no keywords outside the schema",
        severity: Warning,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Safe URL handling; Requested schema (2025-11-25, 2026-07-28)",
        rule: "Servers SHOULD NOT put URLs meant to be clicked in any field of a form \
               elicitation; `pattern` is not part of StringSchema in either revision's schema",
    }
    /// No URL question reaches a client that declared only form mode.
    ModeFormOnly = "mode.form-only" {
        title: "A form-only client is never sent a URL question",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Capabilities (2025-11-25, 2026-07-28); \
               basic/patterns/mrtr, Server requirements (2026-07-28)",
        rule: "A server MUST NOT send an elicitation whose mode the client did not declare \
               (a -32042 listing URL elicitations counts as sending them)",
    }
    /// No question at all reaches a client without the capability.
    ModeNone = "mode.none" {
        title: "A client without elicitation is never asked",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Capabilities (2025-11-25, 2026-07-28); \
               basic/patterns/mrtr, Server requirements (2026-07-28)",
        rule: "A server MUST NOT send elicitation/create (2025-11-25) or put it into \
               inputRequests (2026-07-28) unless the client declared elicitation",
    }
    /// The missing-capability error has its shape.
    ModeMissingCapability = "mode.missing-capability-error" {
        title: "A question the client cannot take ends in -32021 naming the capability",
        severity: Error,
        applies: Modern,
        needs: Nothing,
        spec: "basic/index, Capabilities; client/elicitation, Error handling (2026-07-28)",
        rule: "If a request needs a capability the client did not declare, the server MUST \
               return MissingRequiredClientCapabilityError (-32021) whose \
               data.requiredCapabilities lists what is missing",
    }
    /// Content of the wrong type is refused or asked again.
    ContentWrongType = "content.wrong-type" {
        title: "Accepted content of the wrong type is refused or asked again",
        severity: Critical,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Response actions; Security considerations \
               (2025-11-25, 2026-07-28)",
        rule: "Accepted content holds data matching the requestedSchema; servers SHOULD \
               validate received data against it: content outside it is never acted on",
    }
    /// A missing required field is refused or asked again.
    ContentMissingRequired = "content.missing-required" {
        title: "Accepted content without a required field is refused or asked again",
        severity: Critical,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Requested schema; Security considerations \
               (2025-11-25, 2026-07-28)",
        rule: "requestedSchema.required names the fields an answer must have; servers \
               SHOULD validate received data: an answer without them is never acted on",
    }
    /// An option that was not offered is refused or asked again.
    ContentUnknownOption = "content.unknown-option" {
        title: "An enum value that was not offered is refused or asked again",
        severity: Critical,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Requested schema; Security considerations \
               (2025-11-25, 2026-07-28)",
        rule: "A single- or multi-select answer is one of the offered values; servers \
               SHOULD validate received data: another value is never acted on",
    }
    /// Decline ends the call without the action.
    OutcomeDecline = "outcome.decline" {
        title: "Decline ends the call without the action",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Response actions (2025-11-25, 2026-07-28)",
        rule: "decline is an explicit refusal; servers MUST handle decline (2026-07-28) and \
               never act as if the question had been accepted",
    }
    /// Cancel ends the call without the action.
    OutcomeCancel = "outcome.cancel" {
        title: "Cancel ends the call without the action",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Response actions (2025-11-25, 2026-07-28)",
        rule: "cancel is a dismissal; servers MUST handle cancel (2026-07-28) and never act \
               as if the question had been accepted",
    }
    /// A tampered requestState is refused.
    StateTamper = "state.tamper" {
        title: "A tampered requestState changes nothing",
        severity: Critical,
        applies: Modern,
        needs: Nothing,
        spec: "basic/patterns/mrtr, Server requirements (2026-07-28)",
        rule: "requestState is attacker-controlled: when it affects what the server does, \
               the server MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject \
               state that fails verification",
    }
    /// Another principal cannot use a state.
    StatePrincipal = "state.principal" {
        title: "A requestState is refused with another principal's credentials",
        severity: Error,
        applies: Modern,
        needs: SecondPrincipal,
        spec: "basic/patterns/mrtr, Server requirements; client/elicitation, Identifying \
               the user (2026-07-28)",
        rule: "Servers SHOULD bind requestState to the authenticated principal and reject \
               it when another principal presents it; servers MUST bind elicitation \
               requests to the client and user identity",
    }
    /// The final retry of a tool with effects cannot be replayed.
    StateSingleUse = "state.single-use" {
        title: "The final retry of a tool with effects works once",
        severity: Error,
        applies: Modern,
        needs: Nothing,
        spec: "basic/patterns/mrtr, Server requirements (2026-07-28)",
        rule: "Integrity, principal and expiry do not make state single-use: if it must be \
               consumed at most once (a tool with effects) the server MUST enforce that \
               server-side",
    }
    /// A state expires.
    StateExpiry = "state.expiry" {
        title: "A requestState expires",
        severity: Warning,
        applies: Modern,
        needs: StateAge,
        spec: "basic/patterns/mrtr, Server requirements (2026-07-28)",
        rule: "Servers SHOULD put a short expiry inside the integrity-protected state and \
               check it on receipt",
    }
    /// A state only works for the request it came from.
    StateRequestBound = "state.request-bound" {
        title: "A requestState is refused on another request",
        severity: Warning,
        applies: Modern,
        needs: Nothing,
        spec: "basic/patterns/mrtr, Server requirements (2026-07-28)",
        rule: "Servers SHOULD bind requestState to the originating request (method and a \
               digest of its parameters) and reject it when presented on a non-matching \
               request, so an answer is only ever taken for the question it answers",
    }
    /// An answer is taken only under the key of its question.
    AnswerKeyBound = "answer.key-bound" {
        title: "An answer under another key is not taken",
        severity: Error,
        applies: Modern,
        needs: Nothing,
        spec: "basic/patterns/mrtr, Wire types and Server requirements (2026-07-28)",
        rule: "inputResponses answer inputRequests by key; unknown keys SHOULD be ignored, \
               and a retry missing a needed answer SHOULD be asked again, never served \
               with an answer given for another key",
    }
    /// A retry on another instance works.
    InstanceRetry = "instance.retry-elsewhere" {
        title: "A retry on another instance of the server works",
        severity: Error,
        applies: Modern,
        needs: SecondInstance,
        spec: "basic/patterns/mrtr, What it replaces; basic/index, Statelessness (2026-07-28)",
        rule: "Each round is an independent request: the server handling a retry needs \
               nothing that is not in the retry itself; servers SHOULD NOT require \
               connection reuse",
    }
    /// URL questions use https.
    UrlHttps = "url.https" {
        title: "URL questions use https",
        severity: Warning,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Safe URL handling (2025-11-25, 2026-07-28)",
        rule: "Servers SHOULD use HTTPS outside development environments (SEP-1036: only \
               HTTPS URLs)",
    }
    /// URL questions carry no userinfo.
    UrlUserinfo = "url.userinfo" {
        title: "URL questions carry no user name or password",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Safe URL handling (2025-11-25, 2026-07-28)",
        rule: "Servers MUST NOT put credentials or other sensitive information in the URL, \
               nor provide a pre-authenticated URL",
    }
    /// URL questions pass the URL review.
    UrlReview = "url.review" {
        title: "URL questions pass the client's URL review",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Safe URL handling; Phishing (2025-11-25, 2026-07-28)",
        rule: "Clients MUST show the full URL and SHOULD warn about suspicious ones \
               (Punycode, lookalike domains); a URL a careful client refuses to open \
               (malformed, another scheme, lookalike, bidi controls) cannot be used",
    }
    /// elicitationIds are fresh.
    UrlFreshId = "url.fresh-id" {
        title: "Every URL question has a fresh elicitationId",
        severity: Error,
        applies: Legacy,
        needs: Nothing,
        spec: "client/elicitation, URL mode elicitation requests (2025-11-25)",
        rule: "A URL elicitation MUST carry an elicitationId unique within the server's \
               context (the completion notification and -32042 are matched on it)",
    }
    /// The completion notification follows the flow.
    UrlCompleteAfterFlow = "url.complete-after-flow" {
        title: "notifications/elicitation/complete comes only after the flow",
        severity: Error,
        applies: Legacy,
        needs: Nothing,
        spec: "client/elicitation, Completion notifications for URL mode (2025-11-25)",
        rule: "A server MAY send notifications/elicitation/complete when the out-of-band \
               interaction completes, only to the client that started it and with its \
               elicitationId (the audit never opens a URL, so no flow completes)",
    }
    /// -32042 has the right shape, and only on 2025-11-25.
    UrlRequiredError = "url.required-error" {
        title: "-32042 has the right shape on 2025-11-25 and never appears on 2026-07-28",
        severity: Error,
        applies: Both,
        needs: Nothing,
        spec: "client/elicitation, Error handling (2025-11-25, 2026-07-28)",
        rule: "URLElicitationRequiredError (-32042) carries data.elicitations, URL mode \
               entries each with an elicitationId, url and message; in 2026-07-28 -32042 is \
               reserved and MUST NOT be emitted",
    }
    /// Unknown answers do not grow the server's state.
    LimitsAnswerKeys = "limits.answer-keys" {
        title: "A thousand unknown answers do not grow the reply",
        severity: Warning,
        applies: Modern,
        needs: Stress,
        spec: "basic/patterns/mrtr, Server requirements; Limits and bounds (2026-07-28)",
        rule: "Unknown keys in inputResponses SHOULD be ignored; servers should cap \
               requestState's size (it is echoed on every retry)",
    }
    /// Pending questions are bounded.
    LimitsPendingQuestions = "limits.pending-questions" {
        title: "A thousand unanswered questions in one session are bounded",
        severity: Warning,
        applies: Legacy,
        needs: Stress,
        spec: "client/elicitation, Security considerations; basic/lifecycle (2025-11-25)",
        rule: "Every input from the wire has a bound: one session cannot make the server \
               hold an unbounded number of questions open",
    }
    /// A flood of retries does not take the server down.
    LimitsRetryFlood = "limits.retry-flood" {
        title: "A flood of retries does not take the server down",
        severity: Error,
        applies: Modern,
        needs: Stress,
        spec: "basic/patterns/mrtr, Limits and bounds (2026-07-28)",
        rule: "Malicious clients can make a server re-ask repeatedly; that is handled with \
               ordinary rate limiting and throttling, and the server keeps serving",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_read_back() {
        let mut seen = std::collections::HashSet::new();
        for check in CHECKS {
            assert!(seen.insert(check.id.as_str()), "{} twice", check.id);
            assert_eq!(check.id.as_str().parse::<CheckId>(), Ok(check.id));
            assert_eq!(check.id.check().id, check.id);
            assert!(!check.title.is_empty() && !check.spec.is_empty() && !check.rule.is_empty());
        }
        assert!("no.such".parse::<CheckId>().is_err());
    }

    #[test]
    fn severities_order_and_read_back() {
        assert!(Severity::Info < Severity::Warning);
        assert!(Severity::Error < Severity::Critical);
        for s in Severity::ALL {
            assert_eq!(s.as_str().parse::<Severity>(), Ok(s));
        }
    }
}
