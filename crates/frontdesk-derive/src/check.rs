//! The rules a form must follow, checked while the macro expands. Each rule is one
//! function; every broken rule becomes a compile error at the attribute or field concerned.
//! Finally the whole form is built with the real strict builder, and any `BuildError` is
//! reported at the field it names.

use frontdesk_form::{DiagnosticCode, FormSchema, Limits, StringFormat};
use proc_macro2::Span;

use crate::ast::{FormField, FormInput, Leaf, Shape, TextType};
use crate::attr::{DefaultValue, Num, Spanned};
use crate::ctxt::Ctxt;
use crate::spec::{Call, FieldSpec, JsonNum, Method};

/// Which attribute a call comes from (to point errors at it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Origin {
    Title,
    MinLength,
    Pattern,
    Min,
    MinItems,
    Default,
    Other,
}

/// Rule: an attribute applies only to the kinds of field it constrains.
fn check_applicable(cx: &mut Ctxt, f: &FormField) {
    let a = &f.attrs;
    let text = matches!(f.shape, Shape::Single(Leaf::Text(_)));
    let number = matches!(
        f.shape,
        Shape::Single(Leaf::Int { .. } | Leaf::Float { .. })
    );
    let multi = matches!(f.shape, Shape::Multi { .. });
    let mut only = |span: Option<Span>, ok: bool, name: &str, kind: &str| {
        if let Some(span) = span
            && !ok
        {
            cx.error_at(span, format!("`{name}` applies only to {kind} fields"));
        }
    };
    only(a.min.as_ref().map(|s| s.span), number, "min", "number");
    only(a.max.as_ref().map(|s| s.span), number, "max", "number");
    only(
        a.min_length.as_ref().map(|s| s.span),
        text,
        "min_length",
        "text",
    );
    only(
        a.max_length.as_ref().map(|s| s.span),
        text,
        "max_length",
        "text",
    );
    only(a.pattern.as_ref().map(|s| s.span), text, "pattern", "text");
    only(
        a.min_items.as_ref().map(|s| s.span),
        multi,
        "min_items",
        "multi-select",
    );
    only(
        a.max_items.as_ref().map(|s| s.span),
        multi,
        "max_items",
        "multi-select",
    );
    if let Some(fmt) = &a.format {
        if !matches!(f.shape, Shape::Single(Leaf::Text(TextType::String))) {
            cx.error_at(
                fmt.span,
                "`format` applies only to `String` fields (Email, Url, Date and DateTime \
                 already have theirs)",
            );
        } else if StringFormat::from_name(&fmt.value).is_none() {
            cx.error_at(
                fmt.span,
                "unknown format; use \"email\", \"uri\", \"date\" or \"date-time\"",
            );
        }
    }
    // Rule: an `Option` field is optional by its type; `required` would contradict it.
    if let Some(span) = a.required
        && f.optional
    {
        cx.error_at(
            span,
            "an `Option` field cannot be required; drop the `Option` to require it",
        );
    }
}

/// Rule: a bound narrows the type's own range, never widens it.
fn check_bound(cx: &mut Ctxt, f: &FormField, bound: &Spanned<Num>, name: &str) -> Option<JsonNum> {
    match &f.shape {
        Shape::Single(Leaf::Int { name: ty, min, max }) => match bound.value {
            Num::Int(n) if n < *min || n > *max => {
                cx.error_at(
                    bound.span,
                    format!("`{name}` = {n} is outside the range of `{ty}` ({min} to {max})"),
                );
                None
            }
            Num::Int(n) => i64::try_from(n).ok().map(JsonNum::Int),
            Num::Float(_) => {
                cx.error_at(
                    bound.span,
                    format!("`{name}` of an integer field must be a whole number"),
                );
                None
            }
        },
        Shape::Single(Leaf::Float { f32 }) => {
            let v = bound.value.as_f64();
            if *f32 && v.abs() > f64::from(f32::MAX) {
                cx.error_at(
                    bound.span,
                    format!("`{name}` is outside the range of `f32`"),
                );
                return None;
            }
            Some(match bound.value {
                Num::Int(n) => match i64::try_from(n) {
                    Ok(n) => JsonNum::Int(n),
                    Err(_) => JsonNum::Float(v),
                },
                Num::Float(x) => JsonNum::Float(x),
            })
        }
        _ => None,
    }
}

fn default_mismatch(cx: &mut Ctxt, d: &Spanned<DefaultValue>, want: &str) {
    cx.error_at(d.span, format!("the default of this field must be {want}"));
}

/// Rule: a default has the field's type (the builder then checks it fits the constraints).
fn default_call(cx: &mut Ctxt, f: &FormField) -> Option<Call> {
    let d = f.attrs.default.as_ref()?;
    match (&f.shape, &d.value) {
        (Shape::Single(Leaf::Text(_) | Leaf::Enum), DefaultValue::Str(s)) => {
            Some(Call::DefaultStr(s.clone()))
        }
        (Shape::Single(Leaf::Text(_)), _) => {
            default_mismatch(cx, d, "a string literal");
            None
        }
        (Shape::Single(Leaf::Enum), _) => {
            default_mismatch(cx, d, "the wire value of an option, as a string literal");
            None
        }
        (Shape::Single(Leaf::Bool), DefaultValue::Bool(b)) => Some(Call::DefaultBool(*b)),
        (Shape::Single(Leaf::Bool), _) => {
            default_mismatch(cx, d, "`true` or `false`");
            None
        }
        (Shape::Single(Leaf::Int { .. } | Leaf::Float { .. }), DefaultValue::Num(n)) => {
            let as_bound = Spanned {
                value: *n,
                span: d.span,
            };
            check_bound(cx, f, &as_bound, "default").map(Call::DefaultNum)
        }
        (Shape::Single(Leaf::Int { .. }), _) => {
            default_mismatch(cx, d, "a whole number");
            None
        }
        (Shape::Single(Leaf::Float { .. }), _) => {
            default_mismatch(cx, d, "a number");
            None
        }
        (Shape::Multi { .. }, DefaultValue::List(l)) => Some(Call::DefaultList(l.clone())),
        (Shape::Multi { .. }, _) => {
            default_mismatch(cx, d, "a list of option values, like [\"a\", \"b\"]");
            None
        }
    }
}

/// The builder calls of a field, in a fixed order.
fn field_spec(cx: &mut Ctxt, f: &FormField) -> FieldSpec {
    check_applicable(cx, f);
    let a = &f.attrs;
    let mut calls = Vec::new();
    if let Some(t) = &a.title {
        calls.push(Call::Title(t.value.clone()));
    }
    if let Some(d) = &f.description {
        calls.push(Call::Description(d.clone()));
    }
    let method = match &f.shape {
        Shape::Single(Leaf::Text(t)) => {
            let format = t
                .format()
                .or(a.format.as_ref().map(|s| s.value.as_str()))
                .and_then(StringFormat::from_name);
            if let Some(fm) = format {
                calls.push(Call::Format(fm));
            }
            if let Some(n) = &a.min_length {
                calls.push(Call::MinLength(n.value));
            }
            if let Some(n) = &a.max_length {
                calls.push(Call::MaxLength(n.value));
            }
            if let Some(p) = &a.pattern {
                calls.push(Call::Pattern(p.value.clone()));
            }
            Method::String
        }
        Shape::Single(Leaf::Bool) => Method::Boolean,
        Shape::Single(Leaf::Int { min, max, .. }) => {
            let lo = match &a.min {
                Some(b) => check_bound(cx, f, b, "min"),
                None => i64::try_from(*min).ok().map(JsonNum::Int),
            };
            let hi = match &a.max {
                Some(b) => check_bound(cx, f, b, "max"),
                None => i64::try_from(*max).ok().map(JsonNum::Int),
            };
            calls.extend(lo.map(Call::Minimum));
            calls.extend(hi.map(Call::Maximum));
            Method::Integer
        }
        Shape::Single(Leaf::Float { f32 }) => {
            let limit = f64::from(f32::MAX);
            let lo = match &a.min {
                Some(b) => check_bound(cx, f, b, "min"),
                None => f32.then_some(JsonNum::Float(-limit)),
            };
            let hi = match &a.max {
                Some(b) => check_bound(cx, f, b, "max"),
                None => f32.then_some(JsonNum::Float(limit)),
            };
            calls.extend(lo.map(Call::Minimum));
            calls.extend(hi.map(Call::Maximum));
            Method::Number
        }
        Shape::Single(Leaf::Enum) => Method::Select,
        Shape::Multi { .. } => {
            if let Some(n) = &a.min_items {
                calls.push(Call::MinItems(n.value));
            }
            if let Some(n) = &a.max_items {
                calls.push(Call::MaxItems(n.value));
            }
            Method::MultiSelect
        }
    };
    calls.extend(default_call(cx, f));
    if f.required() {
        calls.push(Call::Required);
    }
    let options = match &f.shape {
        Shape::Single(Leaf::Enum) => Some(f.inner.clone()),
        Shape::Multi { elem } => Some(elem.clone()),
        _ => None,
    };
    FieldSpec {
        key: f.key.clone(),
        method,
        options,
        calls,
        span: f.key_span,
    }
}

/// Stand-in options for a select field while the macro expands: the default values, then
/// made-up values until `min_items` could be met. Made-up values contain a character no
/// derived option can have, so they never hide a real mistake.
fn placeholders(spec: &FieldSpec) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut need = 1;
    for c in &spec.calls {
        match c {
            Call::DefaultStr(s) => out.push(s.clone()),
            Call::DefaultList(l) => {
                for s in l {
                    if !out.contains(s) {
                        out.push(s.clone());
                    }
                }
            }
            Call::MinItems(n) => need = usize::try_from(*n).unwrap_or(usize::MAX).min(1000),
            _ => {}
        }
    }
    let mut i = 0;
    while out.len() < need.max(1) {
        out.push(format!("\u{1}option{i}"));
        i += 1;
    }
    out
}

/// The span an error from the builder should point at.
fn error_span(f: &FormField, spec: &FieldSpec, code: DiagnosticCode) -> Span {
    let a = &f.attrs;
    let origin = match code {
        DiagnosticCode::InvalidDefault => Origin::Default,
        DiagnosticCode::InvalidPattern => Origin::Pattern,
        DiagnosticCode::MinGreaterThanMax => {
            if a.min.is_some() || a.max.is_some() {
                Origin::Min
            } else if a.min_length.is_some() {
                Origin::MinLength
            } else {
                Origin::MinItems
            }
        }
        DiagnosticCode::UnsatisfiableMinItems => Origin::MinItems,
        DiagnosticCode::InvalidTitle => Origin::Title,
        _ => Origin::Other,
    };
    let span = match origin {
        Origin::Default => a.default.as_ref().map(|s| s.span),
        Origin::Pattern => a.pattern.as_ref().map(|s| s.span),
        Origin::Min => a.min.as_ref().or(a.max.as_ref()).map(|s| s.span),
        Origin::MinLength => a.min_length.as_ref().map(|s| s.span),
        Origin::MinItems => a.min_items.as_ref().map(|s| s.span),
        Origin::Title => a.title.as_ref().map(|s| s.span),
        _ => None,
    };
    span.unwrap_or(spec.span)
}

/// Check every rule; return the specs of all fields (only meaningful without errors).
pub(crate) fn check_form(cx: &mut Ctxt, input: &FormInput) -> Vec<FieldSpec> {
    let mut clean = Vec::with_capacity(input.fields.len());
    let mut specs = Vec::with_capacity(input.fields.len());
    for f in &input.fields {
        let before = cx.count();
        specs.push(field_spec(cx, f));
        clean.push(cx.count() == before);
    }

    // Rule: two fields never share a key (after renaming).
    for (i, f) in input.fields.iter().enumerate() {
        if input.fields[..i].iter().any(|g| g.key == f.key) {
            cx.error_at(
                f.key_span,
                format!("two fields have the key \"{}\"; rename one of them", f.key),
            );
        }
    }
    // Rule: the form stays within the limits every client is entitled to.
    let max = Limits::default().max_fields;
    if input.fields.len() > max {
        cx.error_spanned_by(
            &input.ident,
            format!(
                "a form has at most {max} fields; this one has {}",
                input.fields.len()
            ),
        );
    }
    // Rule: each field, built alone by the strict builder, is inside the subset (checked
    // for every field whose attributes could be read, so all errors show at once).
    let mut field_errors = cx.has_errors();
    for ((f, spec), _) in input
        .fields
        .iter()
        .zip(&specs)
        .zip(&clean)
        .filter(|(_, c)| **c)
    {
        let b = spec.apply(FormSchema::builder(), &placeholders(spec));
        if let Err(e) = b.build() {
            field_errors = true;
            let msg = format!("{}: {}", quoted_key(&f.key), e.message);
            cx.error_at(error_span(f, spec, e.code), msg);
        }
    }
    if field_errors {
        return specs;
    }
    // Rule: the form as a whole (title, description, keys) builds.
    let mut b = FormSchema::builder();
    if let Some(t) = &input.attrs.title {
        b = b.title(t.value.as_str());
    }
    if let Some(d) = &input.attrs.description {
        b = b.description(d.value.as_str());
    }
    for spec in &specs {
        b = spec.apply(b, &placeholders(spec));
    }
    if let Err(e) = b.build() {
        let span = match (&e.field, &input.attrs.title) {
            (Some(k), _) => input
                .fields
                .iter()
                .find(|f| &f.key == k)
                .map(|f| f.key_span),
            (None, Some(t)) if e.code == DiagnosticCode::InvalidTitle => Some(t.span),
            _ => None,
        };
        match span {
            Some(s) => cx.error_at(s, e.message),
            None => cx.error_spanned_by(&input.ident, e.message),
        }
    }
    specs
}

fn quoted_key(k: &str) -> String {
    format!("field \"{k}\"")
}
