//! Parsing of option lists: single-select (`enum`, `oneOf`, legacy `enumNames`) and
//! multi-select (`items.enum`, `items.anyOf`) fields.

use serde_json::{Map, Value};

use crate::model::{
    Choice, FieldKind, MultiSelectField, MultiSelectStyle, SelectField, SelectStyle,
};
use crate::parse::{Ctx, DiagnosticCode, check_order, count, unsupported, valid_text};

/// Options from `[{const, title}, ..]` (`oneOf` or `items.anyOf`).
fn titled_options(
    cx: &mut Ctx<'_>,
    key: &str,
    list: Option<&Value>,
    name: &str,
) -> Result<Vec<Choice>, DiagnosticCode> {
    let Some(Value::Array(items)) = list else {
        cx.diag(
            Some(key),
            DiagnosticCode::InvalidOptions,
            format!("\"{name}\" must be an array of {{\"const\", \"title\"}} options"),
        );
        return Err(DiagnosticCode::InvalidOptions);
    };
    let mut out = Vec::with_capacity(items.len().min(cx.limits.max_options));
    let mut missing_title = false;
    for item in items {
        let Value::Object(o) = item else {
            cx.diag(
                Some(key),
                DiagnosticCode::InvalidOptions,
                format!("every entry of \"{name}\" must be an object with \"const\" and \"title\""),
            );
            return Err(DiagnosticCode::InvalidOptions);
        };
        let value = match o.get("const") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                cx.diag(
                    Some(key),
                    DiagnosticCode::NonStringOption,
                    format!("option values in \"{name}\" must be strings"),
                );
                return Err(DiagnosticCode::NonStringOption);
            }
            None => {
                cx.diag(
                    Some(key),
                    DiagnosticCode::InvalidOptions,
                    format!("an entry of \"{name}\" has no \"const\""),
                );
                return Err(DiagnosticCode::InvalidOptions);
            }
        };
        let title = match o.get("title") {
            Some(Value::String(t)) => Some(t.clone()),
            _ => {
                missing_title = true;
                None
            }
        };
        out.push(Choice { value, title });
    }
    if missing_title {
        cx.diag(
            Some(key),
            DiagnosticCode::MissingOptionTitle,
            format!("every entry of \"{name}\" should have a string \"title\""),
        );
    }
    Ok(out)
}

fn string_options(
    cx: &mut Ctx<'_>,
    key: &str,
    list: Option<&Value>,
    name: &str,
) -> Result<Vec<Choice>, DiagnosticCode> {
    let Some(Value::Array(items)) = list else {
        cx.diag(
            Some(key),
            DiagnosticCode::InvalidOptions,
            format!("\"{name}\" must be an array of strings"),
        );
        return Err(DiagnosticCode::InvalidOptions);
    };
    let mut out = Vec::with_capacity(items.len().min(cx.limits.max_options));
    for item in items {
        match item {
            Value::String(s) => out.push(Choice::new(s.clone(), None)),
            _ => {
                cx.diag(
                    Some(key),
                    DiagnosticCode::NonStringOption,
                    format!("\"{name}\" must contain only strings"),
                );
                return Err(DiagnosticCode::NonStringOption);
            }
        }
    }
    Ok(out)
}

/// Size, emptiness and duplicate checks shared by every option list.
fn finish_options(
    cx: &mut Ctx<'_>,
    key: &str,
    opts: Vec<Choice>,
) -> Result<Vec<Choice>, DiagnosticCode> {
    if opts.len() > cx.limits.max_options {
        let msg = format!(
            "{} options; the limit is {}",
            opts.len(),
            cx.limits.max_options
        );
        cx.diag(Some(key), DiagnosticCode::TooManyOptions, msg);
        return Err(DiagnosticCode::TooManyOptions);
    }
    if opts.is_empty() {
        cx.diag(
            Some(key),
            DiagnosticCode::EmptyOptions,
            "the field offers no options",
        );
        return Err(DiagnosticCode::EmptyOptions);
    }
    let mut out: Vec<Choice> = Vec::with_capacity(opts.len());
    for o in opts {
        if out.iter().any(|p| p.value == o.value) {
            let msg = format!("option \"{}\" is listed more than once", o.value);
            cx.diag(Some(key), DiagnosticCode::DuplicateOption, msg);
            continue;
        }
        if cx.strict && o.title.is_some() {
            if out.iter().any(|p| p.label() == o.label()) {
                let msg = format!("two options have the label \"{}\"", o.label());
                cx.diag(Some(key), DiagnosticCode::DuplicateLabel, msg);
            }
            if !valid_text(o.label()) {
                cx.diag(
                    Some(key),
                    DiagnosticCode::InvalidTitle,
                    "an option title must be non-empty and contain no control characters",
                );
            }
        }
        out.push(o);
    }
    Ok(out)
}

pub(crate) fn parse_titled_select(
    cx: &mut Ctx<'_>,
    key: &str,
    obj: &Map<String, Value>,
) -> FieldKind {
    match titled_options(cx, key, obj.get("oneOf"), "oneOf")
        .and_then(|o| finish_options(cx, key, o))
    {
        Ok(options) => FieldKind::Select(SelectField {
            options,
            style: SelectStyle::Titled,
        }),
        Err(code) => unsupported(code),
    }
}

pub(crate) fn parse_enum_select(
    cx: &mut Ctx<'_>,
    key: &str,
    obj: &Map<String, Value>,
) -> FieldKind {
    let mut options = match string_options(cx, key, obj.get("enum"), "enum") {
        Ok(o) => o,
        Err(code) => return unsupported(code),
    };
    let mut style = SelectStyle::Untitled;
    match obj.get("enumNames") {
        None => {}
        Some(Value::Array(names)) => {
            style = SelectStyle::Legacy;
            if names.len() != options.len() {
                cx.diag(
                    Some(key),
                    DiagnosticCode::EnumNamesMismatch,
                    format!(
                        "\"enumNames\" has {} names for {} values",
                        names.len(),
                        options.len()
                    ),
                );
            }
            for (opt, name) in options.iter_mut().zip(names) {
                match name {
                    Value::String(n) => opt.title = Some(n.clone()),
                    _ => cx.diag(
                        Some(key),
                        DiagnosticCode::InvalidKeyword,
                        "\"enumNames\" must contain only strings",
                    ),
                }
            }
        }
        Some(_) => cx.diag(
            Some(key),
            DiagnosticCode::InvalidKeyword,
            "\"enumNames\" must be an array of strings",
        ),
    }
    match finish_options(cx, key, options) {
        Ok(options) => FieldKind::Select(SelectField { options, style }),
        Err(code) => unsupported(code),
    }
}

pub(crate) fn parse_multi(cx: &mut Ctx<'_>, key: &str, obj: &Map<String, Value>) -> FieldKind {
    let Some(Value::Object(items)) = obj.get("items") else {
        cx.diag(
            Some(key),
            DiagnosticCode::UnsupportedArray,
            "an array field must have \"items\" with \"enum\" or \"anyOf\"",
        );
        return unsupported(DiagnosticCode::UnsupportedArray);
    };
    let item_type = items.get("type").and_then(Value::as_str);
    let has_options = items.contains_key("anyOf") || items.contains_key("enum");
    if has_options && item_type.is_some_and(|t| t != "string") {
        cx.diag(
            Some(key),
            DiagnosticCode::NonStringOption,
            "multi-select options must be strings",
        );
        return unsupported(DiagnosticCode::NonStringOption);
    }
    let (options, style) = if items.contains_key("anyOf") {
        (
            titled_options(cx, key, items.get("anyOf"), "items.anyOf"),
            MultiSelectStyle::Titled,
        )
    } else if items.contains_key("enum") {
        (
            string_options(cx, key, items.get("enum"), "items.enum"),
            MultiSelectStyle::Untitled,
        )
    } else if item_type == Some("object") || items.contains_key("properties") {
        cx.diag(
            Some(key),
            DiagnosticCode::ArrayOfObjects,
            "arrays of objects are not supported in a form",
        );
        return unsupported(DiagnosticCode::ArrayOfObjects);
    } else {
        cx.diag(
            Some(key),
            DiagnosticCode::UnsupportedArray,
            "only arrays of options (\"items.enum\" or \"items.anyOf\") are supported",
        );
        return unsupported(DiagnosticCode::UnsupportedArray);
    };
    let options = match options.and_then(|o| finish_options(cx, key, o)) {
        Ok(o) => o,
        Err(code) => return unsupported(code),
    };
    let min_items = count(cx, key, obj, "minItems");
    let max_items = count(cx, key, obj, "maxItems");
    check_order(cx, key, ("minItems", "maxItems"), min_items, max_items);
    if let Some(min) = min_items
        && min > options.len() as u64
    {
        let msg = format!(
            "\"minItems\" ({min}) is more than the {} options offered",
            options.len()
        );
        cx.diag(Some(key), DiagnosticCode::UnsatisfiableMinItems, msg);
    }
    FieldKind::MultiSelect(MultiSelectField {
        options,
        style,
        min_items,
        max_items,
    })
}
