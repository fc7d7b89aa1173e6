//! What a handler asks and what it gets back: [`Question`] (a form from a
//! type, a form from a runtime schema, a URL), [`Answer`] (three normal
//! outcomes), and [`InputRequest`] (any question, for
//! [`ToolContext::ask_all`](crate::server::api::context::ToolContext::ask_all)).

use std::any::TypeId;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

use frontdesk_form::Defaults;
use frontdesk_wire::{
    CreateMessageMethod, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestUrlParams,
    InputRequest as WireInputRequest, ListRootsMethod, ListRootsRequest, ListRootsResult, Meta,
    method,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::BoxFuture;
use crate::server::api::context::{Page, ToolContext};
use crate::server::api::error::AskError;
use crate::server::api::flow_ticket::FlowTicket;
use crate::server::contract::caps::{Declared, Elicitation};
use frontdesk_form::canonical::canonical_json;
use frontdesk_form::canonical::write_string;
use frontdesk_form::{Form, FormError, FormSchema};

/// The person's answer to one question.
///
/// Decline and cancel are normal outcomes, not errors: handle them like any
/// other branch.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub enum Answer<T> {
    /// The person submitted (form: the content, re-validated on the server;
    /// URL: the out-of-band flow completed).
    Accepted(T),
    /// The person explicitly said no.
    Declined,
    /// The person dismissed the question without choosing.
    Cancelled,
}

impl<T> Answer<T> {
    /// Transform the accepted value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Self::Accepted(v) => Answer::Accepted(f(v)),
            Self::Declined => Answer::Declined,
            Self::Cancelled => Answer::Cancelled,
        }
    }

    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(v) => Some(v),
            _ => None,
        }
    }

    /// The wire `action` of this outcome.
    pub fn action(&self) -> &'static str {
        match self {
            Self::Accepted(_) => "accept",
            Self::Declined => "decline",
            Self::Cancelled => "cancel",
        }
    }
}

/// The builders of what [`ToolContext::ask`] asks.
///
/// ```
/// # use frontdesk::form::FormSchema;
/// # use frontdesk::server::Question;
/// # use frontdesk::Form;
/// #[derive(Form)]
/// struct Pickup {
///     #[form(title = "Number of boxes", min = 1, max = 3)]
///     boxes: i64,
/// }
///
/// // A form from a type: the answer arrives as a `Pickup`.
/// let typed = Question::form::<Pickup>("How many boxes?").key("pickup");
/// // A form built at run time: the answer is the validated content.
/// let schema = FormSchema::builder().boolean("ok", |f| f.title("Go ahead").required()).build()?;
/// let dynamic = Question::schema("Book it?", schema);
/// // A page to open (sign-in, payment): accepted once the flow completes.
/// let url = Question::url("Sign in to connect your account.", |ticket| {
///     format!("https://shop.example/connect?token={}", ticket.connect_token)
/// });
/// # let _ = (typed, dynamic, url);
/// # Ok::<(), frontdesk::form::BuildError>(())
/// ```
///
/// Keys: on 2026-07-28 each question travels under a key of
/// `inputRequests`. Give a stable one with `.key(…)` when the question's
/// message or form may change between releases; otherwise the key is
/// derived from the question itself (its message and form), so adding an
/// `if` or another question elsewhere in the handler never shifts it. Two
/// identical questions in one call get the same derived key plus a counter.
#[derive(Debug, Clone, Copy)]
pub struct Question;

impl Question {
    /// A form described by `T` (usually `#[derive(Form)]`); the accepted
    /// content is re-validated, then read into `T`.
    pub fn form<T: Form>(message: impl Into<String>) -> FormQuestion<T> {
        FormQuestion {
            message: message.into(),
            key: None,
            form: PhantomData,
        }
    }

    /// A form built at run time; the answer is the validated content.
    ///
    /// Pass an `Arc<FormSchema>` built once (for example in a `LazyLock`)
    /// to share one schema between every call of a tool instead of building
    /// it per call; a plain [`FormSchema`] works too.
    pub fn schema(
        message: impl Into<String>,
        schema: impl Into<Arc<FormSchema>>,
    ) -> SchemaQuestion {
        SchemaQuestion {
            message: message.into(),
            schema: schema.into(),
            key: None,
        }
    }

    /// Send the person to a page (URL mode). `make_url` builds the page's
    /// address from the flow's ticket (put the connect token in it, never a
    /// secret). `Accepted(())` means the flow completed (the server's own
    /// page called `Server::complete_flow`), not merely that the person
    /// agreed to open it.
    pub fn url<F>(message: impl Into<String>, make_url: F) -> UrlQuestion<F>
    where
        F: FnOnce(&FlowTicket) -> String + Send,
    {
        UrlQuestion {
            message: message.into(),
            make_url,
            key: None,
        }
    }
}

/// A form from a type; see [`Question::form`].
#[derive(Debug)]
pub struct FormQuestion<T> {
    message: String,
    key: Option<String>,
    form: PhantomData<fn() -> T>,
}

/// A form from a runtime schema; see [`Question::schema`].
#[derive(Debug, Clone)]
pub struct SchemaQuestion {
    message: String,
    schema: Arc<FormSchema>,
    key: Option<String>,
}

/// A URL question; see [`Question::url`].
pub struct UrlQuestion<F> {
    message: String,
    make_url: F,
    key: Option<String>,
}

impl<F> std::fmt::Debug for UrlQuestion<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlQuestion")
            .field("message", &self.message)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl SchemaQuestion {
    /// Ask under this stable key (the `inputRequests` key on 2026-07-28).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl<T> FormQuestion<T> {
    /// Ask under this stable key (the `inputRequests` key on 2026-07-28).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl<F> UrlQuestion<F> {
    /// Ask under this stable key (the `inputRequests` key on 2026-07-28).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for crate::server::api::question::FormQuestion<T> {}
    impl Sealed for crate::server::api::question::SchemaQuestion {}
    impl<F> Sealed for crate::server::api::question::UrlQuestion<F> {}
    impl Sealed for crate::server::api::relayed_url::RelayedUrlQuestion {}
}

/// What [`ToolContext::ask`] accepts: the questions [`Question`] builds.
pub trait Ask: sealed::Sealed + Send {
    /// What an accepted answer carries.
    type Output: Send;

    /// Ask it (the runtime's half; call [`ToolContext::ask`] instead).
    #[doc(hidden)]
    fn ask_in<'a>(
        self,
        cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Answer<Self::Output>, AskError>>
    where
        Self: 'a;
}

/// The schema of form type `T`, built on first use and then shared by every
/// question of that type ([`Form::schema`] is the same value every call):
/// a pending question holds a reference, not its own copy.
fn schema_of<T: Form + 'static>() -> Arc<FormSchema> {
    type Schemas = RwLock<HashMap<TypeId, Arc<FormSchema>>>;
    static SCHEMAS: LazyLock<Schemas> = LazyLock::new(Schemas::default);
    let id = TypeId::of::<T>();
    let known = SCHEMAS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
        .cloned();
    if let Some(schema) = known {
        return schema;
    }
    let built = Arc::new(T::schema());
    let mut schemas = SCHEMAS.write().unwrap_or_else(PoisonError::into_inner);
    Arc::clone(schemas.entry(id).or_insert(built))
}

impl<T: Form + Send + 'static> Ask for FormQuestion<T> {
    type Output = T;

    fn ask_in<'a>(self, cx: &'a ToolContext) -> BoxFuture<'a, Result<Answer<T>, AskError>>
    where
        Self: 'a,
    {
        Box::pin(async move {
            let schema = schema_of::<T>();
            let question = SchemaQuestion {
                message: self.message,
                schema,
                key: self.key,
            };
            match question.ask_in(cx).await? {
                Answer::Accepted(content) => T::from_content(content)
                    .map(Answer::Accepted)
                    .map_err(AskError::InvalidAnswer),
                Answer::Declined => Ok(Answer::Declined),
                Answer::Cancelled => Ok(Answer::Cancelled),
            }
        })
    }
}

impl Ask for SchemaQuestion {
    type Output = Map<String, Value>;

    fn ask_in<'a>(
        self,
        cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Answer<Self::Output>, AskError>>
    where
        Self: 'a,
    {
        let request = InputRequest::form_shared(self.message, self.schema);
        let key = match self.key {
            Some(k) => k,
            None => cx.call().derived_key(&request),
        };
        cx.call().ask_form(key, request)
    }
}

impl<F> Ask for UrlQuestion<F>
where
    F: FnOnce(&FlowTicket) -> String + Send,
{
    type Output = ();

    fn ask_in<'a>(self, cx: &'a ToolContext) -> BoxFuture<'a, Result<Answer<()>, AskError>>
    where
        Self: 'a,
    {
        let key = match self.key {
            Some(k) => k,
            // The URL carries a fresh connect token: derive from the message.
            None => cx
                .call()
                .derived_key(&InputRequest::url(self.message.clone(), String::new())),
        };
        cx.call()
            .ask_url(key, self.message, Box::new(self.make_url), Page::Own)
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Form {
        message: String,
        schema: Arc<FormSchema>,
    },
    Url {
        message: String,
        url: String,
        /// The question's `_meta` (a relayed question's URL review).
        meta: Option<Box<Meta>>,
    },
    Sampling(Box<CreateMessageRequestParams>),
    Roots,
}

/// One question of any kind for [`ToolContext::ask_all`]: an elicitation
/// form, a sampling request or a roots request. URL questions are asked
/// through [`Question::url`], which manages their flow.
#[derive(Debug, Clone)]
pub struct InputRequest {
    pub(crate) kind: Kind,
}

impl InputRequest {
    /// A form elicitation.
    pub fn form(message: impl Into<String>, schema: FormSchema) -> Self {
        Self::form_shared(message.into(), Arc::new(schema))
    }

    pub(crate) fn form_shared(message: String, schema: Arc<FormSchema>) -> Self {
        Self {
            kind: Kind::Form { message, schema },
        }
    }

    /// A `sampling/createMessage` request (the client's model writes a
    /// message; see [`ToolContext::sample`](crate::server::api::context::ToolContext::sample)).
    pub fn sampling(params: CreateMessageRequestParams) -> Self {
        Self {
            kind: Kind::Sampling(Box::new(params)),
        }
    }

    /// A `roots/list` request.
    pub fn roots() -> Self {
        Self { kind: Kind::Roots }
    }

    pub(crate) fn url(message: String, url: String) -> Self {
        Self {
            kind: Kind::Url {
                message,
                url,
                meta: None,
            },
        }
    }

    /// The same question with `meta` as its `_meta` (URL questions only;
    /// other kinds are returned as they are).
    pub(crate) fn with_meta(mut self, meta: Option<Meta>) -> Self {
        if let Kind::Url { meta: slot, .. } = &mut self.kind {
            *slot = meta.map(Box::new);
        }
        self
    }

    /// The JSON-RPC method this question uses.
    pub fn method(&self) -> &'static str {
        match self.kind {
            Kind::Form { .. } | Kind::Url { .. } => method::ELICITATION_CREATE,
            Kind::Sampling(_) => method::SAMPLING_CREATE_MESSAGE,
            Kind::Roots => method::ROOTS_LIST,
        }
    }

    /// The question as a wire `inputRequests` entry (`{method, params}`);
    /// `elicitation_id` is added to URL requests (2025-11-25 only), and with
    /// it the question's `_meta`, which only that revision's shape has.
    pub(crate) fn to_wire(&self, elicitation_id: Option<&str>) -> WireInputRequest {
        match &self.kind {
            Kind::Form { message, schema } => ElicitRequestParams::Form(
                ElicitRequestFormParams::new(message.clone(), schema.shared_json_object()),
            )
            .into(),
            Kind::Url { message, url, meta } => {
                let mut params = ElicitRequestUrlParams::new(message.clone(), url.clone());
                // The 2025-11-25 shape (the one with an id) has `_meta`;
                // 2026-07-28's `ElicitRequestURLParams` lists none.
                if let Some(id) = elicitation_id {
                    params = params.with_elicitation_id(id);
                    params.meta = meta.as_deref().cloned();
                }
                ElicitRequestParams::Url(params).into()
            }
            Kind::Sampling(params) => WireInputRequest::CreateMessage(CreateMessageRequest {
                method: CreateMessageMethod,
                params: (**params).clone(),
                extra: Map::new(),
            }),
            Kind::Roots => WireInputRequest::ListRoots(ListRootsRequest {
                method: ListRootsMethod,
                params: Some(Map::new()),
                extra: Map::new(),
            }),
        }
    }

    /// The params of the request as they travel (the `params` of
    /// [`to_wire`](Self::to_wire)).
    pub(crate) fn params(&self, elicitation_id: Option<&str>) -> Map<String, Value> {
        match serde_json::to_value(self.to_wire(elicitation_id)) {
            Ok(Value::Object(mut request)) => match request.remove("params") {
                Some(Value::Object(params)) => params,
                _ => Map::new(),
            },
            _ => Map::new(),
        }
    }

    /// A digest pinning an answer to this exact question (method + params):
    /// the first 12 bytes of the SHA-256 of the canonical JSON of
    /// [`to_wire`](Self::to_wire), in hex.
    ///
    /// A form's canonical JSON is written directly (no `Value` tree built,
    /// no copy of the schema, the schema's part written once per schema:
    /// [`FormSchema::canonical_json`]); it is the same bytes, so states sealed
    /// before this shortcut still match (see the test
    /// `form_digest_is_unchanged`).
    pub(crate) fn digest(&self) -> String {
        let hash = match &self.kind {
            Kind::Form { message, schema } => {
                let schema = schema.canonical_json();
                let mut canonical = Vec::with_capacity(96 + message.len() + schema.len());
                canonical
                    .extend_from_slice(br#"{"method":"elicitation/create","params":{"message":"#);
                write_string(message, &mut canonical);
                canonical.extend_from_slice(br#","mode":"form","requestedSchema":"#);
                canonical.extend_from_slice(schema);
                canonical.extend_from_slice(b"}}");
                Sha256::digest(&canonical)
            }
            _ => Sha256::digest(canonical_json(
                &serde_json::to_value(self.to_wire(None)).unwrap_or(Value::Null),
            )),
        };
        hex(&hash[..12])
    }

    /// [`check_capability`](Self::check_capability) as the ask's error:
    /// [`AskError::MissingCapability`] naming what is missing.
    pub(crate) fn require_capability(&self, caps: Declared) -> Result<(), AskError> {
        self.check_capability(caps)
            .map_err(|required| AskError::MissingCapability { required })
    }

    /// Whether `caps` (client capabilities) allow this question; if not, the
    /// capability that is missing.
    pub(crate) fn check_capability(&self, caps: Declared) -> Result<(), Value> {
        match &self.kind {
            Kind::Form { .. } => match caps.elicitation {
                // `elicitation: {}` (no mode named) means form, for
                // backward compatibility.
                Some(Elicitation::Object { form, url }) if form || !url => Ok(()),
                Some(_) => Err(json!({"elicitation": {"form": {}}})),
                None => Err(json!({"elicitation": {}})),
            },
            Kind::Url { .. } => match caps.elicitation {
                Some(Elicitation::Object { url: true, .. }) => Ok(()),
                _ => Err(json!({"elicitation": {"url": {}}})),
            },
            Kind::Sampling(_) => caps
                .sampling
                .then_some(())
                .ok_or_else(|| json!({"sampling": {}})),
            Kind::Roots => caps.roots.then_some(()).ok_or_else(|| json!({"roots": {}})),
        }
    }
}

/// One client result, checked against its question.
pub(crate) enum Checked {
    /// Use it (form content validated, defaults applied).
    Valid(Value),
    /// Accepted content failed the form: ask this instead.
    AskAgain(InputRequest),
}

impl InputRequest {
    /// Check the client's raw result for this question under `key`: a form's
    /// accepted content is validated (a failing answer gives the re-ask, with
    /// the problems in its message and the values the person got right as
    /// defaults); sampling and roots results must have their shape. `Err`
    /// when the result is malformed.
    pub(crate) fn check_answer(&self, key: &str, raw: &Value) -> Result<Checked, AskError> {
        let invalid = |reason: String| AskError::InvalidResponse {
            key: key.to_string(),
            reason,
        };
        match &self.kind {
            Kind::Form { message, schema } => match parse_elicit_result(raw).map_err(invalid)? {
                ElicitOutcome::Accept(content) => {
                    match schema.accept(content, Defaults::Apply) {
                        Ok(accepted) => Ok(Checked::Valid(
                            json!({"action": "accept", "content": accepted.into_content()}),
                        )),
                        Err(e) => {
                            // The content again, for the defaults of the
                            // re-ask (only a failing answer pays this copy).
                            let content = match parse_elicit_result(raw) {
                                Ok(ElicitOutcome::Accept(content)) => content,
                                _ => Map::new(),
                            };
                            tracing::warn!(key, error = %e, "accepted content does not fit the form; asking again");
                            Ok(Checked::AskAgain(InputRequest::form(
                                format!(
                                    "{message}\n\nPlease check your answer: {}.",
                                    FormError::from(e)
                                ),
                                schema.with_defaults_from(&content),
                            )))
                        }
                    }
                }
                ElicitOutcome::Decline => Ok(Checked::Valid(json!({"action": "decline"}))),
                ElicitOutcome::Cancel => Ok(Checked::Valid(json!({"action": "cancel"}))),
            },
            Kind::Url { .. } => {
                parse_elicit_result(raw).map_err(invalid)?;
                Ok(Checked::Valid(
                    json!({"action": raw.get("action").cloned().unwrap_or(Value::Null)}),
                ))
            }
            Kind::Sampling(_) => serde_json::from_value::<CreateMessageResult>(raw.clone())
                .map(|_| Checked::Valid(raw.clone()))
                .map_err(|e| invalid(format!("not a sampling result: {e}"))),
            Kind::Roots => serde_json::from_value::<ListRootsResult>(raw.clone())
                .map(|_| Checked::Valid(raw.clone()))
                .map_err(|e| invalid(format!("not a roots result: {e}"))),
        }
    }
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// A parsed `ElicitResult`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ElicitOutcome {
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

impl ElicitOutcome {
    /// The action, as the wire and the metrics name it.
    pub(crate) fn action(&self) -> &'static str {
        match self {
            Self::Accept(_) => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// Parse an `ElicitResult` (`{action, content?}`).
pub(crate) fn parse_elicit_result(v: &Value) -> Result<ElicitOutcome, String> {
    let obj = v
        .as_object()
        .ok_or("an elicitation result must be an object")?;
    match obj.get("action").and_then(Value::as_str) {
        Some("accept") => match obj.get("content") {
            None | Some(Value::Null) => Ok(ElicitOutcome::Accept(Map::new())),
            Some(Value::Object(c)) => Ok(ElicitOutcome::Accept(c.clone())),
            Some(_) => Err("\"content\" must be an object".into()),
        },
        Some("decline") => Ok(ElicitOutcome::Decline),
        Some("cancel") => Ok(ElicitOutcome::Cancel),
        _ => Err("\"action\" must be \"accept\", \"decline\" or \"cancel\"".into()),
    }
}

#[cfg(test)]
#[path = "question_tests.rs"]
mod digest_tests;
