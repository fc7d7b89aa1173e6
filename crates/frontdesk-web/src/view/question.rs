//! The question on screen: who asks and what they say, then the form (every field
//! as a labelled control whose accessible name is the field's title) or the review
//! of a checked answer. Review, Accept, Decline and Cancel are real submit buttons
//! of a real form, so the page works with the keyboard alone.

use std::fmt::Write as _;

use frontdesk_form::{Field, ParsedForm};
use frontdesk_host::sanitize::display_line;
use frontdesk_host::widgets::{input_hint, shown_value};
use serde_json::{Map, Value};

use crate::draft::{Control, Draft, Raw, control};
use crate::html::esc;
use crate::state::Question;

/// The lines above every question: a heading that names the server, the call it
/// belongs to, how many wait behind it, and the message.
pub(crate) fn header(out: &mut String, q: &Question, what: &str, waiting: usize) {
    let h = &q.header;
    let _ = write!(
        out,
        "<h2 id=\"q-title\" tabindex=\"-1\"><span class=\"server\">{}</span> {}</h2>",
        esc(&h.server),
        esc(what)
    );
    if let Some(request) = &h.request {
        let _ = write!(
            out,
            "<p class=\"origin\">For the call <code>{}</code></p>",
            esc(request)
        );
    }
    let _ = write!(
        out,
        "<p class=\"waiting\" id=\"waiting-note\">{}</p>",
        esc(&waiting_note(waiting))
    );
    let _ = write!(
        out,
        "<p class=\"message\" id=\"q-message\">{}</p>",
        esc(&h.message)
    );
}

/// `1 more question waiting`, or nothing.
pub(crate) fn waiting_note(waiting: usize) -> String {
    match waiting {
        0 => String::new(),
        1 => "1 more question waiting".to_owned(),
        n => format!("{n} more questions waiting"),
    }
}

fn buttons(out: &mut String, list: &[(&str, &str, bool, bool)]) {
    out.push_str("<div class=\"actions\">");
    for (value, label, primary, disabled) in list {
        let _ = write!(
            out,
            "<button type=\"submit\" name=\"action\" value=\"{value}\"{}{}>{label}</button>",
            if *primary { " class=\"primary\"" } else { "" },
            if *disabled { " disabled" } else { "" },
        );
    }
    out.push_str("</div>");
}

/// The form step.
pub(crate) fn form(
    out: &mut String,
    q: &Question,
    parsed: &ParsedForm,
    draft: &Draft,
    waiting: usize,
) {
    let schema = &parsed.schema;
    header(out, q, "asks you to fill in a form", waiting);
    let lint = schema.lint();
    let mut notes: Vec<String> = Vec::new();
    if !lint.is_empty() {
        notes.push(
            "Servers must not ask for secrets in a form. Decline unless you trust this server."
                .to_owned(),
        );
    }
    if let Some(errors) = &q.previous_errors {
        notes.push("Your previous answer was not accepted:".to_owned());
        notes.extend(
            errors
                .errors()
                .iter()
                .map(|e| display_line(&e.message, 300)),
        );
    }
    if q.remembered {
        notes.push(
            "Filled in from your last answer to this form: check it before you send it.".to_owned(),
        );
    }
    let fields = schema.fields();
    if let [only] = fields
        && lint.is_empty()
        && q.previous_errors.is_none()
        && one_step(out, q, only, draft, &notes)
    {
        return;
    }
    let blocked = fields
        .iter()
        .any(|f| control(f) == Control::Unsupported && f.is_required());
    if blocked {
        notes.push(
            "This form cannot be filled in here: a required field is not supported. Decline or cancel."
                .to_owned(),
        );
    }
    if !notes.is_empty() {
        out.push_str("<div class=\"warnings\" role=\"note\">");
        for n in &notes {
            let _ = write!(out, "<p>{}</p>", esc(n));
        }
        out.push_str("</div>");
    }
    let checked = draft.check(schema);
    let _ = write!(
        out,
        "<form class=\"answer\" method=\"post\" action=\"q/{id}\" data-check=\"q/{id}/check\" \
         data-show-all=\"{}\" novalidate>",
        draft.show_all,
        id = q.id
    );
    if fields.iter().any(Field::is_required) {
        out.push_str("<p class=\"legend\"><span class=\"req\">*</span> required</p>");
    }
    let empty = Raw::default();
    for (i, field) in fields.iter().enumerate() {
        let message = checked
            .messages
            .get(i)
            .and_then(Option::as_deref)
            .filter(|_| draft.show_all);
        let warning = lint
            .iter()
            .find(|w| w.field == field.key())
            .map(|w| display_line(&w.message, 300));
        field_html(
            out,
            "",
            i,
            field,
            draft.raw.get(i).unwrap_or(&empty),
            message,
            warning.as_deref(),
        );
    }
    let _ = write!(
        out,
        "<div class=\"general\" id=\"general-msg\" aria-live=\"polite\">"
    );
    if draft.show_all {
        for g in &checked.general {
            let _ = write!(out, "<p>{}</p>", esc(g));
        }
    }
    out.push_str("</div>");
    if blocked {
        buttons(
            out,
            &[
                ("decline", "Decline", false, false),
                ("cancel", "Cancel", false, false),
            ],
        );
    } else {
        // Review is never disabled: with problems it shows them and moves the
        // focus to the first one (the page's script, or the server without it).
        buttons(
            out,
            &[
                ("review", "Review", true, false),
                ("decline", "Decline", false, false),
                ("cancel", "Cancel", false, false),
            ],
        );
    }
    out.push_str("</form>");
    leave_dialog(out, q);
}

/// The choices for a form of one yes/no or one choice among a few: one button
/// per answer, sent at once (the answer is its label: nothing to review). The
/// value it starts with (its default, or the last answer) is the primary button.
/// `false` when the field is not such a question.
fn one_step(
    out: &mut String,
    q: &Question,
    field: &Field,
    draft: &Draft,
    notes: &[String],
) -> bool {
    let raw = draft.raw.first().cloned().unwrap_or_default();
    let choices: Vec<(String, String, bool)> = match control(field) {
        Control::Checkbox | Control::YesNo => vec![
            ("yes".to_owned(), "Yes".to_owned(), raw.text == "yes"),
            ("no".to_owned(), "No".to_owned(), raw.text == "no"),
        ],
        Control::Select if field.options().len() <= MAX_ONE_STEP_OPTIONS => field
            .options()
            .iter()
            .enumerate()
            .map(|(k, o)| {
                (
                    k.to_string(),
                    display_line(o.label(), 120),
                    raw.chosen.first() == Some(&k),
                )
            })
            .collect(),
        _ => return false,
    };
    if !notes.is_empty() {
        out.push_str("<div class=\"warnings\" role=\"note\">");
        for n in notes {
            let _ = write!(out, "<p>{}</p>", esc(n));
        }
        out.push_str("</div>");
    }
    let label = display_line(field.label(), 120);
    let _ = write!(
        out,
        "<form class=\"answer one-step\" method=\"post\" action=\"q/{id}\">\
         <fieldset><legend id=\"one-step-label\">{label}</legend>",
        id = q.id,
        label = esc(&label),
    );
    if let Some(d) = field.description().filter(|d| !d.trim().is_empty()) {
        let _ = write!(out, "<p class=\"desc\">{}</p>", esc(&display_line(d, 400)));
    }
    out.push_str("<div class=\"actions\">");
    for (value, text, current) in &choices {
        let _ = write!(
            out,
            "<button type=\"submit\" name=\"answer\" value=\"{value}\"{}>{}</button>",
            if *current { " class=\"primary\"" } else { "" },
            esc(text),
        );
    }
    out.push_str(
        "<button type=\"submit\" name=\"action\" value=\"decline\">Decline</button>\
         <button type=\"submit\" name=\"action\" value=\"cancel\">Cancel</button></div>\
         <p class=\"hint\">Choosing an answer sends it at once.</p></fieldset></form>",
    );
    leave_dialog(out, q);
    true
}

/// The most options a single choice may have to be answered with one button each.
const MAX_ONE_STEP_OPTIONS: usize = 6;

/// What Esc opens (the terminal's Esc menu): decline, cancel, stop asking, or
/// back. A real form, so it works from the keyboard and without the script too
/// (the script opens it as a modal dialog on Esc).
pub(crate) fn leave_dialog(out: &mut String, q: &Question) {
    let _ = write!(
        out,
        "<dialog id=\"leave\" aria-labelledby=\"leave-title\">\
         <form method=\"post\" action=\"q/{id}\">\
         <h2 id=\"leave-title\">Leave this request from {server}?</h2>\
         <div class=\"actions\">\
         <button type=\"submit\" name=\"action\" value=\"decline\">Decline: tell the server no</button>\
         <button type=\"submit\" name=\"action\" value=\"cancel\">Cancel: dismiss it</button>\
         <button type=\"submit\" name=\"action\" value=\"stop\">Stop asking: cancel all its questions until you disconnect</button>\
         <button type=\"button\" value=\"back\" data-close=\"leave\">Back</button>\
         </div></form></dialog>",
        id = q.id,
        server = esc(&q.header.server),
    );
}

/// The help line of a field: what it expects, its limits, its default, whether it
/// is optional.
fn hint(field: &Field, control: Control) -> String {
    let mut parts: Vec<String> = Vec::new();
    match control {
        Control::Checkbox | Control::YesNo | Control::Select | Control::Unsupported => {}
        Control::Date => parts.push("a date".to_owned()),
        Control::Secret => parts.push(format!("{}; hidden while you type", input_hint(field))),
        _ => parts.push(input_hint(field)),
    }
    if control != Control::Checkbox
        && let Some(default) = field.default_value()
    {
        parts.push(format!("default: {}", field.display_value(default)));
    }
    if !field.is_required() && control != Control::Checkbox {
        parts.push("optional".to_owned());
    }
    display_line(&parts.join("; "), 300)
}

/// One field with its label, hints and message. Controls are named `f{i}`; their
/// ids start with `prefix` (a tool's argument form has its own, so several forms
/// share the page).
pub(crate) fn field_html(
    out: &mut String,
    prefix: &str,
    i: usize,
    field: &Field,
    raw: &Raw,
    message: Option<&str>,
    warning: Option<&str>,
) {
    let name = format!("f{i}");
    let id = format!("{prefix}f{i}");
    let control = control(field);
    let label = display_line(field.label(), 120);
    let required = field.is_required();
    // The marker stays outside the label, so the label's text (and the control's
    // accessible name) is exactly the title; `aria-required` tells assistive tech.
    let star = if required {
        " <span class=\"req\" aria-hidden=\"true\">*</span>"
    } else {
        ""
    };
    if control == Control::Unsupported {
        let _ = write!(
            out,
            "<div class=\"field unsupported\"><p><strong>{}</strong>{star} cannot be shown here \
             (its definition is not supported).</p></div>",
            esc(&label)
        );
        return;
    }
    let description = field
        .description()
        .filter(|d| !d.trim().is_empty())
        .map(|d| display_line(d, 400));
    let hint = hint(field, control);
    let mut described = Vec::new();
    if description.is_some() {
        described.push(format!("{id}-desc"));
    }
    if !hint.is_empty() {
        described.push(format!("{id}-hint"));
    }
    if warning.is_some() {
        described.push(format!("{id}-warn"));
    }
    described.push(format!("{id}-msg"));
    let attrs = format!(
        "id=\"{id}\" name=\"{name}\" aria-describedby=\"{}\"{}{}",
        described.join(" "),
        if required && control != Control::MultiSelect {
            " aria-required=\"true\""
        } else {
            ""
        },
        if message.is_some() {
            " aria-invalid=\"true\""
        } else {
            ""
        },
    );
    let _ = write!(out, "<div class=\"field\" data-field=\"{i}\">");
    match control {
        Control::Checkbox => {
            let _ = write!(
                out,
                "<div class=\"check\"><input type=\"checkbox\" value=\"yes\" {attrs}{}>\
                 <label for=\"{id}\">{}</label>{star}</div>",
                if raw.text == "yes" { " checked" } else { "" },
                esc(&label)
            );
        }
        Control::MultiSelect => {
            let _ = write!(
                out,
                "<fieldset id=\"{id}\" aria-describedby=\"{}\"><legend>{}{star}</legend>",
                described.join(" "),
                esc(&label)
            );
            for (k, option) in field.options().iter().enumerate() {
                let _ = write!(
                    out,
                    "<div class=\"check\"><input type=\"checkbox\" id=\"{id}-{k}\" name=\"{name}\" \
                     value=\"{k}\"{}><label for=\"{id}-{k}\">{}</label></div>",
                    if raw.chosen.contains(&k) {
                        " checked"
                    } else {
                        ""
                    },
                    esc(&display_line(option.label(), 200))
                );
            }
            out.push_str("</fieldset>");
        }
        _ => {
            let _ = write!(
                out,
                "<div class=\"label\"><label for=\"{id}\">{}</label>{star}</div>",
                esc(&label)
            );
            control_html(out, &name, &id, &attrs, field, control, raw);
        }
    }
    if let Some(d) = &description {
        let _ = write!(out, "<p class=\"desc\" id=\"{id}-desc\">{}</p>", esc(d));
    }
    if !hint.is_empty() {
        let _ = write!(out, "<p class=\"hint\" id=\"{id}-hint\">{}</p>", esc(&hint));
    }
    if let Some(w) = warning {
        let _ = write!(out, "<p class=\"warn\" id=\"{id}-warn\">{}</p>", esc(w));
    }
    let _ = write!(
        out,
        "<p class=\"msg\" id=\"{id}-msg\" aria-live=\"polite\">{}</p></div>",
        esc(message.unwrap_or(""))
    );
}

/// The input, text area or select of one field (after its label).
fn control_html(
    out: &mut String,
    name: &str,
    id: &str,
    attrs: &str,
    field: &Field,
    control: Control,
    raw: &Raw,
) {
    let c = field.constraints();
    let input = |out: &mut String, kind: &str, extra: &str| {
        let _ = write!(
            out,
            "<input type=\"{kind}\" {attrs}{extra} value=\"{}\" autocomplete=\"off\" spellcheck=\"false\">",
            esc(&raw.text)
        );
    };
    match control {
        Control::Text | Control::DateTime => input(out, "text", ""),
        Control::Email => input(out, "email", ""),
        Control::Url => input(out, "url", ""),
        Control::Date => input(out, "date", ""),
        Control::Secret => input(out, "password", ""),
        Control::Integer | Control::Number => {
            let mut extra = String::new();
            if let Some(lo) = c.minimum {
                let _ = write!(extra, " min=\"{lo}\"");
            }
            if let Some(hi) = c.maximum {
                let _ = write!(extra, " max=\"{hi}\"");
            }
            extra.push_str(if control == Control::Integer {
                " step=\"1\" inputmode=\"numeric\""
            } else {
                " step=\"any\" inputmode=\"decimal\""
            });
            input(out, "number", &extra);
            let _ = write!(
                out,
                "<input type=\"hidden\" name=\"{name}.bad\" value=\"{}\" data-bad-for=\"{id}\">",
                if raw.bad { "1" } else { "" }
            );
        }
        Control::TextArea => {
            let _ = write!(
                out,
                "<textarea {attrs} rows=\"3\" spellcheck=\"true\">{}</textarea>",
                esc(&raw.text)
            );
        }
        Control::YesNo => {
            let none = if field.is_required() {
                "Choose…"
            } else {
                "(no answer)"
            };
            let _ = write!(out, "<select {attrs}>");
            for (value, text) in [("", none), ("yes", "Yes"), ("no", "No")] {
                let _ = write!(
                    out,
                    "<option value=\"{value}\"{}>{text}</option>",
                    if raw.text == value { " selected" } else { "" }
                );
            }
            out.push_str("</select>");
        }
        Control::Select => {
            let _ = write!(out, "<select {attrs}>");
            if !field.is_required() || raw.chosen.is_empty() {
                let none = if field.is_required() {
                    "Choose…"
                } else {
                    "(no answer)"
                };
                let _ = write!(out, "<option value=\"\">{none}</option>");
            }
            for (k, option) in field.options().iter().enumerate() {
                let _ = write!(
                    out,
                    "<option value=\"{k}\"{}>{}</option>",
                    if raw.chosen.first() == Some(&k) {
                        " selected"
                    } else {
                        ""
                    },
                    esc(&display_line(option.label(), 200))
                );
            }
            out.push_str("</select>");
        }
        Control::Checkbox | Control::MultiSelect | Control::Unsupported => {}
    }
}

/// The review step: the checked answer as the person will send it.
pub(crate) fn review(
    out: &mut String,
    q: &Question,
    parsed: &ParsedForm,
    values: &Map<String, Value>,
    waiting: usize,
) {
    header(out, q, "asks you to fill in a form", waiting);
    let _ = write!(
        out,
        "<h3 id=\"review-title\">Review your answer before it is sent</h3>\
         <p>Nothing has been sent yet. Accept sends exactly this to {}:</p>",
        esc(&q.header.server)
    );
    let schema = &parsed.schema;
    let lint = schema.lint();
    if !lint.is_empty() {
        // The last chance before a secret leaves: say it again.
        out.push_str(
            "<div class=\"warnings\" role=\"note\"><p>Servers must not ask for secrets in a \
             form. Decline unless you trust this server.</p>",
        );
        for w in &lint {
            let _ = write!(out, "<p>{}</p>", esc(&display_line(&w.message, 300)));
        }
        out.push_str("</div>");
    }
    let sensitive: Vec<&str> = schema.sensitive_fields().map(|f| f.key()).collect();
    out.push_str("<dl class=\"review\" aria-labelledby=\"review-title\">");
    let shown: Vec<&Field> = schema
        .fields()
        .iter()
        .filter(|f| f.is_supported())
        .collect();
    if shown.is_empty() {
        out.push_str("<div><dt>(no fields)</dt><dd>Accepting only confirms.</dd></div>");
    }
    for field in shown {
        let masked = sensitive.contains(&field.key());
        let _ = write!(
            out,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            esc(&display_line(field.label(), 120)),
            esc(&shown_value(field, values.get(field.key()), masked))
        );
    }
    out.push_str("</dl>");
    let _ = write!(
        out,
        "<form class=\"answer\" method=\"post\" action=\"q/{}\">",
        q.id
    );
    buttons(
        out,
        &[
            ("accept", "Accept", true, false),
            ("edit", "Edit", false, false),
            ("decline", "Decline", false, false),
            ("cancel", "Cancel", false, false),
        ],
    );
    out.push_str("</form>");
    leave_dialog(out, q);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{FormStage, QuestionKind};
    use frontdesk::client::ElicitationOrigin;
    use frontdesk_form::FormSchema;
    use frontdesk_host::widgets::Header;
    use frontdesk_wire::Implementation;
    use serde_json::json;

    fn render(schema: Value) -> String {
        let parsed = FormSchema::parse(&schema).expect("an object");
        let draft = Draft::from_values(&parsed.schema, &parsed.schema.prefill());
        let origin = ElicitationOrigin {
            server: Implementation::new("shop", "1.0"),
            request: None,
            key: "k".into(),
        };
        let (tx, _rx) = tokio::sync::oneshot::channel();
        let kind = QuestionKind::Form {
            form: parsed.clone(),
            draft: draft.clone(),
            stage: FormStage::Editing,
        };
        let q = Question::new(Header::new(&origin, "Hello", 2), kind, None, tx);
        let mut out = String::new();
        form(&mut out, &q, &parsed, &draft, 2);
        out
    }

    #[test]
    fn labels_are_exactly_the_titles_and_required_is_told_apart() {
        let html = render(
            json!({"type": "object", "required": ["email"], "properties": {
            "email": {"type": "string", "format": "email", "title": "Contact email"},
            "n": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1}}}),
        );
        assert!(html.contains(
            "<label for=\"f0\">Contact email</label> <span class=\"req\" aria-hidden=\"true\">*</span>"
        ));
        assert!(html.contains("type=\"email\" id=\"f0\""), "{html}");
        assert!(html.contains("aria-required=\"true\""));
        assert!(
            html.contains("<label for=\"f1\">N</label></div>"),
            "a key made readable: {html}"
        );
        assert!(html.contains("min=\"1\" max=\"3\" step=\"1\""));
        assert!(
            html.contains("value=\"review\" class=\"primary\">Review</button>"),
            "Review is always reachable: {html}"
        );
        assert!(html.contains("2 more questions waiting"));
    }

    #[test]
    fn a_required_field_that_cannot_be_shown_leaves_only_decline_and_cancel() {
        let html = render(
            json!({"type": "object", "required": ["where"], "properties": {
            "where": {"type": "object", "properties": {}}}}),
        );
        assert!(html.contains("cannot be shown here"), "{html}");
        assert!(html.contains("a required field is not supported"));
        assert!(!html.contains("value=\"review\""));
        assert!(html.contains("value=\"decline\"") && html.contains("value=\"cancel\""));
    }
}
