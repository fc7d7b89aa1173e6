//! One connection of the audit to the server: a frontdesk [`Client`] that
//! speaks one revision and declares chosen elicitation modes. Every question
//! the server asks is recorded and answered by the probe's [`Script`], and
//! every message on the wire is kept as evidence.
//!
//! A careful client: the frontdesk client as it is, refusing questions in
//! modes it did not declare. A hostile one: on 2025-11-25 the script's
//! answers go out through [`ClientConfig::unchecked_answers`] exactly as
//! written; on 2026-07-28 the probes build their retries themselves (see
//! [`crate::call`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use frontdesk::client::{
    Client, ClientConfig, Direction, Elicitation, ElicitationHandler, ElicitationKind,
    ElicitationResponse, HandlerModes, ProtocolChoice, ServerStderr,
};

use frontdesk::BoxFuture;

use frontdesk::wire::Implementation;

use frontdesk::wire::Revision;
use frontdesk_form::FormSchema;
use frontdesk_wire::{ElicitRequestFormParams, ElicitRequestParams, ElicitRequestUrlParams};
use serde_json::{Map, Value, json};

use crate::answers::{self, Variant};
use crate::target::{Endpoint, Reach};

/// Most messages kept per session between two reads (a flood keeps the
/// first ones).
const WIRE_CAP: usize = 20_000;

/// Form and URL.
pub(crate) const BOTH: HandlerModes = HandlerModes {
    form: true,
    url: true,
};
/// Form only.
pub(crate) const FORM_ONLY: HandlerModes = HandlerModes {
    form: true,
    url: false,
};
/// No elicitation capability at all.
pub(crate) const NO_MODES: HandlerModes = HandlerModes {
    form: false,
    url: false,
};

/// One question the server asked.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    /// Its place among the questions of the call (0-based).
    pub n: usize,
    /// Its `inputRequests` key (2026-07-28).
    pub key: Option<String>,
    /// What it asks.
    pub params: ElicitRequestParams,
}

impl Asked {
    /// The form's schema, parsed leniently (`None` for URL questions and
    /// schemas that are no object at all).
    pub(crate) fn form(&self) -> Option<FormSchema> {
        match &self.params {
            ElicitRequestParams::Form(p) => FormSchema::parse_shared(&p.requested_schema)
                .ok()
                .map(|parsed| parsed.schema),
            _ => None,
        }
    }

    /// The form's raw `requestedSchema`.
    pub(crate) fn schema_json(&self) -> Option<&Map<String, Value>> {
        match &self.params {
            ElicitRequestParams::Form(p) => Some(&p.requested_schema),
            _ => None,
        }
    }

    /// The URL of a URL question.
    pub(crate) fn url(&self) -> Option<&ElicitRequestUrlParams> {
        match &self.params {
            ElicitRequestParams::Url(p) => Some(p),
            _ => None,
        }
    }

    /// `form` or `url`.
    pub(crate) fn mode(&self) -> &'static str {
        match &self.params {
            ElicitRequestParams::Url(_) => "url",
            _ => "form",
        }
    }

    /// Whether `other` asks the same thing again: the same `inputRequests`
    /// key, or a form of the same shape (the same fields of the same types
    /// and the same required ones; a server asking again may change the
    /// message, titles and defaults), or the same URL.
    pub(crate) fn same_question(&self, other: &Asked) -> bool {
        if self.key.is_some() && self.key == other.key {
            return true;
        }
        match (&self.params, &other.params) {
            (ElicitRequestParams::Form(a), ElicitRequestParams::Form(b)) => {
                shape(&a.requested_schema) == shape(&b.requested_schema)
            }
            (ElicitRequestParams::Url(a), ElicitRequestParams::Url(b)) => a.url == b.url,
            _ => false,
        }
    }
}

/// A form's shape: its fields with their types and options, and which are
/// required.
fn shape(schema: &Map<String, Value>) -> Value {
    let fields: Map<String, Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let kept = ["type", "enum", "oneOf", "items", "format"]
                .iter()
                .filter_map(|key| v.get(*key).map(|x| ((*key).to_owned(), x.clone())))
                .collect::<Map<String, Value>>();
            (k.clone(), Value::Object(kept))
        })
        .collect();
    json!({"fields": fields, "required": schema.get("required")})
}

/// What the audit answers to one question.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// Accept with a valid answer (URL: consent).
    Valid(Variant),
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
    /// This result, exactly.
    Raw(Map<String, Value>),
}

impl Reply {
    /// The `ElicitResult` to send for `params`: a valid answer when one can
    /// be made, else `cancel` (nothing a person could submit).
    pub(crate) fn result(&self, params: &ElicitRequestParams) -> Map<String, Value> {
        let value = match self {
            Reply::Raw(m) => return m.clone(),
            Reply::Decline => json!({"action": "decline"}),
            Reply::Cancel => json!({"action": "cancel"}),
            Reply::Valid(variant) => match params {
                ElicitRequestParams::Form(p) => {
                    match FormSchema::parse_shared(&p.requested_schema)
                        .ok()
                        .and_then(|parsed| answers::valid(&parsed.schema, *variant))
                    {
                        Some(content) => json!({"action": "accept", "content": content}),
                        None => json!({"action": "cancel"}),
                    }
                }
                _ => json!({"action": "accept"}),
            },
        };
        value.as_object().cloned().unwrap_or_default()
    }
}

/// Decides the reply to each question of a call.
pub(crate) type Script = Box<dyn FnMut(&Asked) -> Reply + Send>;

/// The careful person: valid answers to forms, decline to URLs (the audit
/// never opens a link, and a consent would leave a legacy call waiting for
/// a flow that never finishes).
pub(crate) fn careful(variant: Variant) -> Script {
    Box::new(move |asked| match asked.params {
        ElicitRequestParams::Url(_) => Reply::Decline,
        _ => Reply::Valid(variant),
    })
}

/// What a session records.
#[derive(Default)]
pub(crate) struct Recorder {
    script: Mutex<Option<Script>>,
    asked: Mutex<Vec<Asked>>,
    wire: Mutex<Vec<(Direction, Value)>>,
}

impl Recorder {
    /// Record a question and ask the script for the reply (cancel when no
    /// script is set).
    pub(crate) fn reply(&self, key: Option<String>, params: &ElicitRequestParams) -> Reply {
        let asked = {
            let Ok(mut list) = self.asked.lock() else {
                return Reply::Cancel;
            };
            let asked = Asked {
                n: list.len(),
                key,
                params: params.clone(),
            };
            list.push(asked.clone());
            asked
        };
        match self.script.lock() {
            Ok(mut script) => match script.as_mut() {
                Some(s) => s(&asked),
                None => Reply::Cancel,
            },
            Err(_) => Reply::Cancel,
        }
    }

    fn record_wire(&self, direction: Direction, message: &Value) {
        if let Ok(mut wire) = self.wire.lock()
            && wire.len() < WIRE_CAP
        {
            wire.push((direction, message.clone()));
        }
    }
}

/// How the session's handler behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answering {
    /// Every question is answered by the script.
    Scripted,
    /// Every question is held open, unanswered, until it is withdrawn
    /// (2025-11-25 only; the stress probe of pending questions).
    Hold,
}

/// Session settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionOptions {
    /// The revision.
    pub revision: Revision,
    /// The modes declared.
    pub modes: HandlerModes,
    /// How questions are answered.
    pub answering: Answering,
    /// The time limit of one request.
    pub timeout: Duration,
}

/// The handler of a session: URL flows from a `-32042` (2025-11-25), and
/// every question of a [`Answering::Hold`] session.
struct AuditHandler {
    modes: HandlerModes,
    answering: Answering,
    recorder: Arc<Recorder>,
}

impl ElicitationHandler for AuditHandler {
    fn modes(&self) -> HandlerModes {
        self.modes
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            if self.answering == Answering::Hold {
                request.cancelled.cancelled().await;
                return ElicitationResponse::Cancel;
            }
            let params = match &request.kind {
                ElicitationKind::Form { form, .. } => {
                    ElicitRequestParams::Form(ElicitRequestFormParams::new(
                        request.message.clone(),
                        form.schema.shared_json_object(),
                    ))
                }
                ElicitationKind::Url {
                    review,
                    elicitation_id,
                } => {
                    let url = review.url().unwrap_or(review.input_preview()).to_owned();
                    let mut p = ElicitRequestUrlParams::new(request.message.clone(), url);
                    p.elicitation_id.clone_from(elicitation_id);
                    ElicitRequestParams::Url(p)
                }
                // Never handed to this handler: it declares form and URL only.
                _ => return ElicitationResponse::Cancel,
            };
            match self.recorder.reply(None, &params) {
                Reply::Decline => ElicitationResponse::Decline,
                Reply::Valid(_) if matches!(params, ElicitRequestParams::Url(_)) => {
                    ElicitationResponse::Accept(Map::new())
                }
                Reply::Valid(_) | Reply::Raw(_) | Reply::Cancel => ElicitationResponse::Cancel,
            }
        })
    }
}

/// One connection to the server.
pub(crate) struct Session {
    /// The client.
    pub client: Client,
    /// Its settings.
    pub options: SessionOptions,
    recorder: Arc<Recorder>,
}

impl Session {
    /// Connect to `endpoint`.
    pub(crate) async fn open(endpoint: &Endpoint, options: SessionOptions) -> Result<Self, String> {
        let recorder = Arc::new(Recorder::default());
        let mut config = ClientConfig::default().protocol(ProtocolChoice::Only(options.revision));
        config.client_info = Implementation::new("frontdesk-audit", env!("CARGO_PKG_VERSION"));
        config.request_timeout = options.timeout;
        config.probe_timeout = options.timeout;
        // The audit answers at once; a held question waits until withdrawn.
        config.human_wait = Duration::from_secs(3600);
        config.rate_limit_per_minute = u32::MAX;
        config.max_answer_attempts = 1;
        config.max_rounds = 16;
        config.tasks = false;
        config.server_stderr = ServerStderr::Log;
        let tap = recorder.clone();
        config = config.on_wire(move |direction, message| tap.record_wire(direction, message));
        if options.answering == Answering::Scripted {
            let hook = recorder.clone();
            let modes = options.modes;
            config.unchecked_answers = Some(Arc::new(move |params| {
                let declared = match params {
                    ElicitRequestParams::Form(_) => modes.form,
                    ElicitRequestParams::Url(_) => modes.url,
                    _ => false,
                };
                let reply = hook.reply(None, params);
                // A mode the client did not declare: the careful client's
                // own refusal (-32602), not the script's answer.
                declared.then(|| reply.result(params))
            }));
        }
        if let Some(configure) = &endpoint.configure {
            configure(&mut config)?;
        }
        let handler = Arc::new(AuditHandler {
            modes: options.modes,
            answering: options.answering,
            recorder: recorder.clone(),
        });
        let connecting = async {
            match &endpoint.reach {
                Reach::Command(words) => {
                    let Some((program, args)) = words.split_first() else {
                        return Err("no command given".to_owned());
                    };
                    let mut command = tokio::process::Command::new(program);
                    command.args(args);
                    Client::connect_stdio(command, config, handler)
                        .await
                        .map_err(|e| e.to_string())
                }
                Reach::Url(url) => Client::connect_http(url, config, handler)
                    .await
                    .map_err(|e| e.to_string()),
                Reach::Pipe(open) => {
                    let (reader, writer) = open.open().await.map_err(|e| e.to_string())?;
                    Client::connect_io(reader, writer, config, handler)
                        .await
                        .map_err(|e| e.to_string())
                }
            }
        };
        let limit = options.timeout.saturating_mul(2);
        let client = tokio::time::timeout(limit, connecting)
            .await
            .map_err(|_| format!("no answer within {} s", limit.as_secs_f64()))??;
        Ok(Self {
            client,
            options,
            recorder,
        })
    }

    /// The revision.
    pub(crate) fn revision(&self) -> Revision {
        self.options.revision
    }

    /// Answer the next questions with `script` (and forget what was asked
    /// and seen so far).
    pub(crate) fn script(&self, script: Script) {
        if let Ok(mut s) = self.recorder.script.lock() {
            *s = Some(script);
        }
        self.take_asked();
        self.take_wire();
    }

    /// The questions asked since the last read.
    pub(crate) fn take_asked(&self) -> Vec<Asked> {
        self.recorder
            .asked
            .lock()
            .map(|mut a| std::mem::take(&mut *a))
            .unwrap_or_default()
    }

    /// The messages since the last read.
    pub(crate) fn take_wire(&self) -> Vec<(Direction, Value)> {
        self.recorder
            .wire
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// Record a question asked inside an `input_required` round and get the
    /// script's reply.
    pub(crate) fn reply(&self, key: &str, params: &ElicitRequestParams) -> Reply {
        self.recorder.reply(Some(key.to_owned()), params)
    }

    /// End the connection.
    pub(crate) async fn close(self) {
        self.client.close().await;
    }
}
