//! 2026-07-28: per-request `_meta` validation, the sealed round state, and
//! [`ModernRound`], which answers questions from `inputResponses` and from
//! answers carried in `requestState`, and records what is still pending.

use std::sync::Mutex;
use std::time::SystemTime;

use frontdesk_wire::{ErrorObject, Meta, ProgressToken};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::answer::{Answer, AskError, ElicitOutcome, InputRequest, Kind, parse_elicit_result};
use super::context::CallInner;
use super::flow_port::{FlowTicket, Progress};
use super::form::FormSchema;
use super::rpc::RpcError;
use super::{Revision, ServerInner};
use crate::state::{Binding, RedeemError, RequestDigest, canonical_json, open_single_use};

/// `_meta` keys of 2026-07-28.
pub(crate) use frontdesk_wire::meta_key::{
    CLIENT_CAPABILITIES as META_CAPS, PROTOCOL_VERSION as META_VERSION,
    SERVER_INFO as META_SERVER_INFO,
};

/// What a valid request `_meta` says.
pub(crate) struct RequestMeta {
    pub(crate) capabilities: Value,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) logging: bool,
}

/// Check `params._meta` in the order the conformance suite probes it:
/// missing `_meta` or version (-32602), unsupported version (-32022),
/// missing capabilities (-32602). All of these are HTTP 400.
pub(crate) fn validate_meta(
    meta: Option<&Meta>,
    supported: &[&str],
) -> Result<RequestMeta, RpcError> {
    let missing = |what: &str| {
        RpcError::invalid_params(format!("Invalid params: missing required {what}"))
            .with_status(400)
    };
    let meta = meta.ok_or_else(|| missing("_meta"))?;
    let version = meta
        .protocol_version()
        .ok_or_else(|| missing("_meta[\"io.modelcontextprotocol/protocolVersion\"]"))?;
    if version != Revision::V2026_07_28.as_str() {
        return Err(RpcError::from(ErrorObject::unsupported_protocol_version(
            version,
            supported.iter().copied(),
        ))
        .with_status(400));
    }
    let capabilities = match meta.client_capabilities() {
        Some(Ok(_)) => meta.get(META_CAPS).cloned(),
        _ => None,
    }
    .ok_or_else(|| missing("_meta[\"io.modelcontextprotocol/clientCapabilities\"]"))?;
    Ok(RequestMeta {
        capabilities,
        progress_token: meta.progress_token().and_then(Result::ok),
        logging: matches!(meta.log_level(), Some(Ok(_))),
    })
}

/// The one error every unacceptable `requestState` gets.
pub(crate) fn state_rejected() -> RpcError {
    RpcError::invalid_params("Invalid params: requestState is invalid or expired")
}

/// A digest pinning an answer to the exact question (method + params).
fn question_digest(request: &InputRequest) -> String {
    let bytes = canonical_json(&request.to_input_request());
    let hash = Sha256::digest(&bytes);
    hash[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// What the sealed state carries between rounds.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct RoundState {
    /// Answers so far: key → `{d: question digest, r: the client's result}`.
    #[serde(default)]
    answers: Map<String, Value>,
    /// Questions asked in the last round: key → question digest.
    #[serde(default)]
    pending: Map<String, Value>,
    /// URL flows: key → `{id, url}`.
    #[serde(default)]
    flows: Map<String, Value>,
}

/// Open the state of a retry; every failure is [`state_rejected`].
pub(crate) async fn open_state(
    server: &ServerInner,
    token: &str,
    binding: &Binding,
) -> Result<RoundState, RpcError> {
    let opened = match &server.nonces {
        Some(store) => open_single_use(
            &server.sealer,
            store.as_ref(),
            token,
            binding,
            SystemTime::now(),
        )
        .await
        .map_err(|e| match e {
            RedeemError::Store(e) => {
                tracing::error!(error = %e, "nonce store failed");
                RpcError::internal("Internal error: request state store unavailable")
            }
            _ => state_rejected(),
        })?,
        None => server
            .sealer
            .open(token, binding, SystemTime::now())
            .map_err(|_| state_rejected())?,
    };
    serde_json::from_value(opened.into_payload()).map_err(|_| state_rejected())
}

pub(crate) fn binding(
    principal: &str,
    method: &str,
    name: &str,
    arguments: Option<&Value>,
) -> Binding {
    Binding::new(principal, RequestDigest::new(method, Some(name), arguments))
}

#[derive(Default)]
struct Record {
    pending: Vec<(String, InputRequest, String)>,
    answers: Map<String, Value>,
    flows: Map<String, Value>,
}

/// One 2026-07-28 round of a tool call or prompt.
pub(crate) struct ModernRound {
    caps: Value,
    responses: Map<String, Value>,
    prior_pending: Map<String, Value>,
    had_state: bool,
    record: Mutex<Record>,
}

impl ModernRound {
    pub(crate) fn new(
        caps: Value,
        responses: Map<String, Value>,
        prior: Option<RoundState>,
    ) -> Self {
        let had_state = prior.is_some();
        let prior = prior.unwrap_or_default();
        Self {
            caps,
            responses,
            prior_pending: prior.pending,
            had_state,
            record: Mutex::new(Record {
                pending: Vec::new(),
                answers: prior.answers,
                flows: prior.flows,
            }),
        }
    }

    pub(crate) fn capabilities(&self) -> &Value {
        &self.caps
    }

    fn with_record<R>(&self, f: impl FnOnce(&mut Record) -> R) -> Result<R, AskError> {
        let mut rec = self
            .record
            .lock()
            .map_err(|_| AskError::Internal("round record poisoned".into()))?;
        Ok(f(&mut rec))
    }

    /// The answer to `request` under `key`, if this round has one.
    /// `Ok(None)`: ask (again). Malformed answers are errors (-32602).
    fn lookup(&self, key: &str, request: &InputRequest) -> Result<Option<Value>, AskError> {
        let digest = question_digest(request);
        if let Some(raw) = self.responses.get(key) {
            let fresh = match self.prior_pending.get(key).and_then(Value::as_str) {
                Some(pinned) => pinned == digest,
                None => !self.had_state,
            };
            if fresh {
                return match check_response(key, request, raw)? {
                    Some(valid) => {
                        self.with_record(|r| {
                            r.answers
                                .insert(key.to_string(), json!({"d": digest, "r": valid.clone()}));
                        })?;
                        Ok(Some(valid))
                    }
                    None => Ok(None),
                };
            }
            tracing::debug!(key, "answer is for another question; asking again");
        }
        self.with_record(|r| {
            r.answers
                .get(key)
                .filter(|c| c.get("d").and_then(Value::as_str) == Some(digest.as_str()))
                .and_then(|c| c.get("r").cloned())
        })
    }

    fn register(&self, key: &str, request: &InputRequest) -> Result<(), AskError> {
        request
            .check_capability(&self.caps)
            .map_err(|required| AskError::MissingCapability { required })?;
        let digest = question_digest(request);
        self.with_record(|r| {
            if !r.pending.iter().any(|(k, _, _)| k == key) {
                r.pending.push((key.to_string(), request.clone(), digest));
            }
        })
    }

    pub(crate) fn ask_form(
        &self,
        key: &str,
        request: &InputRequest,
        _schema: &FormSchema,
    ) -> Result<Answer<Map<String, Value>>, AskError> {
        match self.lookup(key, request)? {
            Some(result) => match parse_elicit_result(&result) {
                Ok(ElicitOutcome::Accept(content)) => Ok(Answer::Accepted(content)),
                Ok(ElicitOutcome::Decline) => Ok(Answer::Declined),
                Ok(ElicitOutcome::Cancel) => Ok(Answer::Cancelled),
                Err(reason) => Err(AskError::InvalidResponse {
                    key: key.to_string(),
                    reason,
                }),
            },
            None => {
                self.register(key, request)?;
                Err(AskError::InputRequired)
            }
        }
    }

    pub(crate) fn ask_all(
        &self,
        questions: &[(String, InputRequest)],
    ) -> Result<Vec<Value>, AskError> {
        let mut found = Vec::with_capacity(questions.len());
        let mut missing = false;
        for (key, request) in questions {
            match self.lookup(key, request)? {
                Some(v) => found.push(v),
                None => {
                    self.register(key, request)?;
                    missing = true;
                }
            }
        }
        if missing {
            Err(AskError::InputRequired)
        } else {
            Ok(found)
        }
    }

    pub(crate) async fn ask_url<F>(
        &self,
        cx: &CallInner,
        key: &str,
        message: &str,
        make_url: F,
    ) -> Result<Answer<()>, AskError>
    where
        F: FnOnce(&FlowTicket) -> String,
    {
        InputRequest::url(String::new(), String::new())
            .check_capability(&self.caps)
            .map_err(|required| AskError::MissingCapability { required })?;
        let known = self.with_record(|r| r.flows.get(key).cloned())?;
        let flows = &cx.server.flows;
        let Some(flow) = known else {
            let ticket = flows
                .create(&cx.principal, cx.server.config.state_ttl, message)
                .await?;
            let url = make_url(&ticket);
            self.with_record(|r| {
                r.flows
                    .insert(key.to_string(), json!({"id": ticket.flow_id, "url": url}));
            })?;
            self.register(key, &InputRequest::url(message.to_string(), url))?;
            return Err(AskError::InputRequired);
        };
        let flow_id = flow
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let url = flow
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let request = InputRequest::url(message.to_string(), url);
        let action = match self.lookup(key, &request)? {
            Some(result) => {
                parse_elicit_result(&result).map_err(|reason| AskError::InvalidResponse {
                    key: key.to_string(),
                    reason,
                })?
            }
            None => {
                self.register(key, &request)?;
                return Err(AskError::InputRequired);
            }
        };
        match action {
            ElicitOutcome::Decline => {
                flows.fail(&flow_id, "declined").await;
                Ok(Answer::Declined)
            }
            ElicitOutcome::Cancel => {
                flows.fail(&flow_id, "cancelled").await;
                Ok(Answer::Cancelled)
            }
            ElicitOutcome::Accept(_) => {
                let mut status = flows.status(&flow_id, &cx.principal).await;
                if status == Progress::Pending {
                    status = flows
                        .wait(&flow_id, &cx.principal, cx.server.config.url_hold)
                        .await;
                }
                match status {
                    Progress::Complete => Ok(Answer::Accepted(())),
                    Progress::Failed => Ok(Answer::Cancelled),
                    Progress::Pending => {
                        // Not finished yet: forget the consent and ask again.
                        self.with_record(|r| {
                            r.answers.remove(key);
                        })?;
                        self.register(key, &request)?;
                        Err(AskError::InputRequired)
                    }
                }
            }
        }
    }

    /// The `input_required` result for what is pending, with the sealed state.
    pub(crate) fn input_required(
        &self,
        server: &ServerInner,
        binding: &Binding,
    ) -> Result<Map<String, Value>, RpcError> {
        let rec = self
            .record
            .lock()
            .map_err(|_| RpcError::internal("Internal error"))?;
        let mut requests = Map::new();
        let mut pending = Map::new();
        for (key, request, digest) in &rec.pending {
            requests.insert(key.clone(), request.to_input_request());
            pending.insert(key.clone(), Value::from(digest.clone()));
        }
        let state = RoundState {
            answers: rec.answers.clone(),
            pending,
            flows: rec.flows.clone(),
        };
        let payload =
            serde_json::to_value(&state).map_err(|_| RpcError::internal("Internal error"))?;
        let token = server
            .sealer
            .seal(binding, &payload, server.config.state_ttl)
            .map_err(|e| {
                tracing::error!(error = %e, "could not seal request state");
                RpcError::internal("Internal error: could not seal request state")
            })?;
        let mut result = Map::new();
        result.insert("resultType".into(), Value::from("input_required"));
        if !requests.is_empty() {
            result.insert("inputRequests".into(), Value::Object(requests));
        }
        result.insert("requestState".into(), Value::from(token));
        Ok(result)
    }

    pub(crate) fn has_pending(&self) -> bool {
        self.record.lock().is_ok_and(|r| !r.pending.is_empty())
    }
}

/// Validate one client result for `request`: `Ok(Some(clean))` to use,
/// `Ok(None)` when accepted content fails the schema (ask again),
/// `Err` when the result is malformed.
fn check_response(
    key: &str,
    request: &InputRequest,
    raw: &Value,
) -> Result<Option<Value>, AskError> {
    let invalid = |reason: String| AskError::InvalidResponse {
        key: key.to_string(),
        reason,
    };
    match &request.kind {
        Kind::Form { schema, .. } => match parse_elicit_result(raw).map_err(invalid)? {
            ElicitOutcome::Accept(content) => match super::form::validate(schema, &content) {
                Ok(clean) => Ok(Some(json!({"action": "accept", "content": clean}))),
                Err(e) => {
                    tracing::warn!(key, error = %e, "accepted content does not fit the form; asking again");
                    Ok(None)
                }
            },
            other => Ok(Some(json!({"action": match other {
                ElicitOutcome::Decline => "decline",
                _ => "cancel",
            }}))),
        },
        Kind::Url { .. } => {
            parse_elicit_result(raw).map_err(invalid)?;
            Ok(Some(
                json!({"action": raw.get("action").cloned().unwrap_or(Value::Null)}),
            ))
        }
        Kind::Sampling(_) => match raw.as_object() {
            Some(o) if o.contains_key("content") => Ok(Some(raw.clone())),
            _ => Err(invalid(
                "a sampling result must be an object with \"content\"".into(),
            )),
        },
        Kind::Roots => match raw.get("roots") {
            Some(Value::Array(_)) => Ok(Some(raw.clone())),
            _ => Err(invalid("a roots result must have a \"roots\" array".into())),
        },
    }
}
