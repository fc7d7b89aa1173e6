//! Shared builders: the demo-like return form, a server identity, and requests as the
//! client runtime hands them to a handler.

use frontdesk::client::{Elicitation, ElicitationKind, ElicitationOrigin};
use frontdesk_form::FormSchema;
use frontdesk_url::{UrlPolicy, review};
use frontdesk_wire::Implementation;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

pub fn return_form() -> FormSchema {
    FormSchema::builder()
        .select("reason", |f| {
            f.title("Reason")
                .option("damaged", "It arrived damaged")
                .option("wrong_item", "Wrong item")
                .option("not_needed", "No longer needed")
                .required()
        })
        .integer("boxes", |f| {
            f.title("Number of boxes").range(1, 3).default(1)
        })
        .string("pickup_date", |f| f.title("Pickup date").date().required())
        .string("contact_email", |f| {
            f.title("Contact email").email().required()
        })
        .string("notes", |f| {
            f.title("Notes")
                .description("Anything the driver should know")
        })
        .build()
        .expect("a valid form")
}

pub fn server() -> Implementation {
    serde_json::from_value(json!({"name": "brightgrid", "version": "0.1.0"})).expect("valid")
}

pub fn origin(tool: &str, key: &str) -> ElicitationOrigin {
    ElicitationOrigin {
        server: server(),
        request: Some(format!("tools/call {tool}")),
        key: key.to_owned(),
    }
}

pub fn form_request(schema: &FormSchema, tool: &str, key: &str, message: &str) -> Elicitation {
    let parsed = FormSchema::parse(&schema.to_json()).expect("an object");
    Elicitation {
        origin: origin(tool, key),
        message: message.to_owned(),
        kind: ElicitationKind::Form {
            prefill: parsed.schema.prefill(),
            form: parsed,
        },
        previous_errors: None,
        cancelled: CancellationToken::new(),
    }
}

pub fn url_request(url: &str) -> Elicitation {
    Elicitation {
        origin: origin("connect_store_account", "signin"),
        message: "Sign in to your Brightgrid store account to connect it.".to_owned(),
        kind: ElicitationKind::Url {
            review: review(url, &UrlPolicy::default()),
            elicitation_id: None,
        },
        previous_errors: None,
        cancelled: CancellationToken::new(),
    }
}

pub fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}
