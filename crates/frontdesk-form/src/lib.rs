//! frontdesk form layer: the restricted `requestedSchema` of MCP elicitation, as a typed
//! model. Pure: no async, no I/O.
//!
//! - **Lenient parse** for hosts ([`FormSchema::parse`]): any schema a real server sends,
//!   with problems reported as [`Diagnostic`]s and unsupported fields kept as
//!   [`FieldKind::Unsupported`]; re-serializes exactly as sent.
//! - **Strict build** for servers ([`FormSchema::builder`], or [`FormSchema::parse_strict`]
//!   for a schema written as JSON): anything outside the subset is a [`BuildError`].
//! - **Validation** of an answer ([`FormSchema::validate`]): every problem, per field, with
//!   a stable [`ErrorCode`] and a readable message.
//! - **One answer pipeline** ([`FormSchema::accept`]): drop undeclared keys, normalize,
//!   apply defaults, validate. Client and server both call it, so they judge an answer
//!   identically.
//! - **Defaults** ([`FormSchema::apply_defaults`], [`FormSchema::prefill`]), a
//!   render-neutral **field description** ([`Field::widget`], [`Field::parse_input`], …), a
//!   **sensitive-field lint** ([`FormSchema::lint`]) and **bounds** on every input
//!   ([`Limits`]).
//! - **Canonical JSON** ([`canonical`], [`FormSchema::canonical_json`]): the sorted,
//!   compact form a digest of a question (or of any JSON) is taken over; a schema writes
//!   its own once and keeps it.
//! - **Typed forms** ([`Form`], [`FormEnum`], [`Email`], [`Url`], [`Date`], [`DateTime`]):
//!   a Rust type that knows its schema and reads its answers; derived by `frontdesk-derive`.
//!
//! ```
//! use frontdesk_form::{ErrorCode, FormSchema, Widget};
//! use serde_json::json;
//!
//! let form = FormSchema::builder()
//!     .string("email", |f| f.title("Email").email().required())
//!     .integer("numberOfBoxes", |f| f.range(1, 3).default(1))
//!     .build()
//!     .expect("a valid form");
//!
//! let boxes = form.field("numberOfBoxes").expect("declared above");
//! assert_eq!(boxes.label(), "Number of boxes");
//! assert_eq!(boxes.widget(), Widget::Integer);
//!
//! let answer = json!({ "email": "not an email", "numberOfBoxes": 7 });
//! let errors = form.validate_value(&answer).unwrap_err();
//! let messages: Vec<&str> = errors.errors().iter().map(|e| e.message.as_str()).collect();
//! assert_eq!(messages, [
//!     "Email must be an email address like name@example.com",
//!     "Number of boxes must be between 1 and 3",
//! ]);
//! assert_eq!(errors.errors()[1].code, ErrorCode::AboveMaximum);
//!
//! // A host parses what a server sent, leniently.
//! let parsed = FormSchema::parse(&form.to_json()).expect("an object");
//! assert!(parsed.is_clean());
//! assert_eq!(parsed.schema.to_json(), form.to_json());
//! ```

mod accept;
mod build;
mod builders;
pub mod canonical;
mod defaults;
mod describe;
pub mod formats;
mod limits;
mod lint;
mod model;
mod options;
mod parse;
pub mod pattern;
mod typed;
mod validate;

pub use accept::{Accepted, Defaults};
pub use build::{BuildError, FormBuilder, JsonNumber};
pub use builders::{BooleanBuilder, MultiSelectBuilder, NumberBuilder, SelectBuilder, TextBuilder};
pub use describe::{Constraints, Widget};
pub use limits::Limits;
pub use lint::{LintWarning, SensitiveKind};
pub use model::{
    Choice, Field, FieldKind, FormSchema, MultiSelectField, MultiSelectStyle, NumberField,
    SelectField, SelectStyle, StringFormat, TextField, UnsupportedField, humanize_key,
};
pub use parse::{Diagnostic, DiagnosticCode, ParseError, ParsedForm};
pub use pattern::{Pattern, PatternError, PatternProblem, PatternWorkExceeded};
pub use typed::{
    __private, Date, DateTime, Email, Form, FormEnum, FormError, FormOption, FormatError,
    TextValue, Url,
};
pub use validate::{ErrorCode, MAX_SAFE_INTEGER, ValidationError, ValidationErrors};
