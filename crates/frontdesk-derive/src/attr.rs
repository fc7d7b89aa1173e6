//! Reading `#[form(...)]` attributes and doc comments.

use std::fmt::Display;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, UnOp};

use crate::ctxt::Ctxt;

/// A value written in an attribute, with where it was written.
#[derive(Clone)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// A number literal: whole or fractional.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// A `default = ...` value.
#[derive(Clone, Debug)]
pub(crate) enum DefaultValue {
    Str(String),
    Bool(bool),
    Num(Num),
    List(Vec<String>),
}

/// A case convention for `rename_all`.
#[derive(Clone, Copy)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

const RULES: &str = "\"lowercase\", \"UPPERCASE\", \"PascalCase\", \"camelCase\", \
                     \"snake_case\", \"SCREAMING_SNAKE_CASE\", \"kebab-case\" or \
                     \"SCREAMING-KEBAB-CASE\"";

impl RenameRule {
    fn from_name(s: &str) -> Option<RenameRule> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// Apply the rule to a Rust identifier (a snake_case field or a PascalCase variant).
    pub(crate) fn apply(self, ident: &str) -> String {
        let words = split_words(ident);
        let cap = |w: &str| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        };
        match self {
            RenameRule::Lower => words.concat(),
            RenameRule::Upper => words.concat().to_uppercase(),
            RenameRule::Pascal => words.iter().map(|w| cap(w)).collect(),
            RenameRule::Camel => words
                .iter()
                .enumerate()
                .map(|(i, w)| if i == 0 { w.clone() } else { cap(w) })
                .collect(),
            RenameRule::Snake => words.join("_"),
            RenameRule::ScreamingSnake => words.join("_").to_uppercase(),
            RenameRule::Kebab => words.join("-"),
            RenameRule::ScreamingKebab => words.join("-").to_uppercase(),
        }
    }
}

/// Lower-case words of `FooBar`, `foo_bar`, `fooBar`, `HTTPServer`.
fn split_words(ident: &str) -> Vec<String> {
    let chars: Vec<char> = ident.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Attributes of the struct or enum itself.
#[derive(Default)]
pub(crate) struct ContainerAttrs {
    pub(crate) title: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) krate: Option<syn::Path>,
}

/// Attributes of one struct field.
#[derive(Default)]
pub(crate) struct FieldAttrs {
    pub(crate) title: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) rename: Option<Spanned<String>>,
    pub(crate) default: Option<Spanned<DefaultValue>>,
    pub(crate) min: Option<Spanned<Num>>,
    pub(crate) max: Option<Spanned<Num>>,
    pub(crate) min_length: Option<Spanned<u64>>,
    pub(crate) max_length: Option<Spanned<u64>>,
    pub(crate) pattern: Option<Spanned<String>>,
    pub(crate) format: Option<Spanned<String>>,
    pub(crate) min_items: Option<Spanned<u64>>,
    pub(crate) max_items: Option<Spanned<u64>>,
    pub(crate) required: Option<Span>,
}

/// Attributes of one enum variant.
#[derive(Default)]
pub(crate) struct VariantAttrs {
    pub(crate) title: Option<Spanned<String>>,
    pub(crate) rename: Option<Spanned<String>>,
}

fn set<T>(cx: &mut Ctxt, slot: &mut Option<Spanned<T>>, value: T, span: Span, name: &str) {
    if slot.is_some() {
        cx.error_at(span, format!("`{name}` is given twice"));
    }
    *slot = Some(Spanned { value, span });
}

fn lit_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

fn lit_u64(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<u64> {
    let lit: syn::LitInt = meta.value()?.parse()?;
    lit.base10_parse::<u64>()
}

/// A number literal, possibly negated.
pub(crate) fn expr_num(expr: &Expr) -> Option<Num> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i128>().ok().map(Num::Int),
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f
            .base10_parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Num::Float),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match expr_num(&u.expr)? {
            Num::Int(i) => Some(Num::Int(-i)),
            Num::Float(f) => Some(Num::Float(-f)),
        },
        Expr::Group(g) => expr_num(&g.expr),
        Expr::Paren(p) => expr_num(&p.expr),
        _ => None,
    }
}

fn expr_default(expr: &Expr) -> Option<DefaultValue> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(DefaultValue::Str(s.value())),
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(DefaultValue::Bool(b.value)),
        Expr::Array(a) => a
            .elems
            .iter()
            .map(|e| match e {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(DefaultValue::List),
        other => expr_num(other).map(DefaultValue::Num),
    }
}

fn num(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Num> {
    let expr: Expr = meta.value()?.parse()?;
    expr_num(&expr).ok_or_else(|| syn::Error::new(expr.span(), "expected a number literal"))
}

fn is_form(attr: &Attribute) -> bool {
    attr.path().is_ident("form")
}

/// Run `read` on every item of every `#[form(...)]` attribute; syntax errors are
/// collected in `cx` so every problem is reported at once.
fn each_item(
    cx: &mut Ctxt,
    attrs: &[Attribute],
    mut read: impl FnMut(&mut Ctxt, ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| is_form(a)) {
        if let Err(e) = attr.parse_nested_meta(|meta| read(cx, meta)) {
            cx.syn_error(e);
        }
    }
}

/// Report an unknown item at its name and skip its value, if any, so the rest of the
/// list is still read.
fn unknown(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>, message: impl Display) -> syn::Result<()> {
    cx.error_at(meta.path.span(), message);
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    }
    Ok(())
}

/// Read `#[form(...)]` on the struct or enum.
pub(crate) fn container(cx: &mut Ctxt, attrs: &[Attribute], is_enum: bool) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    each_item(cx, attrs, |cx, meta| {
        if meta.path.is_ident("title") && !is_enum {
            let s = lit_str(&meta)?;
            set(cx, &mut out.title, s.value(), s.span(), "title");
        } else if meta.path.is_ident("description") && !is_enum {
            let s = lit_str(&meta)?;
            set(cx, &mut out.description, s.value(), s.span(), "description");
        } else if meta.path.is_ident("rename_all") {
            let s = lit_str(&meta)?;
            match RenameRule::from_name(&s.value()) {
                Some(r) => out.rename_all = Some(r),
                None => cx.error_spanned_by(&s, format!("unknown rename rule; use one of {RULES}")),
            }
        } else if meta.path.is_ident("crate") {
            let s = lit_str(&meta)?;
            out.krate = Some(s.parse()?);
        } else {
            let known = if is_enum {
                "`rename_all` or `crate`"
            } else {
                "`title`, `description`, `rename_all` or `crate`"
            };
            unknown(
                cx,
                &meta,
                format!("unknown form attribute here; expected {known}"),
            )?;
        }
        Ok(())
    });
    out
}

/// Read `#[form(...)]` on a struct field.
pub(crate) fn field(cx: &mut Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    each_item(cx, attrs, |cx, meta| {
        let span = meta.path.span();
        let Some(name) = meta.path.get_ident().map(ToString::to_string) else {
            cx.error_at(span, "unknown form attribute");
            return Ok(());
        };
        match name.as_str() {
            "title" => {
                let s = lit_str(&meta)?;
                set(cx, &mut out.title, s.value(), span, "title");
            }
            "description" => {
                let s = lit_str(&meta)?;
                set(cx, &mut out.description, s.value(), span, "description");
            }
            "rename" => {
                let s = lit_str(&meta)?;
                set(cx, &mut out.rename, s.value(), s.span(), "rename");
            }
            "pattern" => {
                let s = lit_str(&meta)?;
                set(cx, &mut out.pattern, s.value(), s.span(), "pattern");
            }
            "format" => {
                let s = lit_str(&meta)?;
                set(cx, &mut out.format, s.value(), s.span(), "format");
            }
            "default" => {
                let expr: Expr = meta.value()?.parse()?;
                match expr_default(&expr) {
                    Some(d) => set(cx, &mut out.default, d, expr.span(), "default"),
                    None => cx.error_spanned_by(
                        &expr,
                        "a default must be a literal: a string, a number, true/false, \
                             or a list of strings [\"a\", \"b\"]",
                    ),
                }
            }
            "min" => {
                let n = num(&meta)?;
                set(cx, &mut out.min, n, span, "min");
            }
            "max" => {
                let n = num(&meta)?;
                set(cx, &mut out.max, n, span, "max");
            }
            "min_length" => {
                let n = lit_u64(&meta)?;
                set(cx, &mut out.min_length, n, span, "min_length");
            }
            "max_length" => {
                let n = lit_u64(&meta)?;
                set(cx, &mut out.max_length, n, span, "max_length");
            }
            "min_items" => {
                let n = lit_u64(&meta)?;
                set(cx, &mut out.min_items, n, span, "min_items");
            }
            "max_items" => {
                let n = lit_u64(&meta)?;
                set(cx, &mut out.max_items, n, span, "max_items");
            }
            "required" => {
                if out.required.is_some() {
                    cx.error_at(span, "`required` is given twice");
                }
                out.required = Some(span);
            }
            _ => {
                unknown(
                    cx,
                    &meta,
                    format!(
                        "unknown form attribute `{name}`; expected one of title, \
                             description, rename, default, required, min, max, min_length, \
                             max_length, pattern, format, min_items, max_items"
                    ),
                )?;
            }
        }
        Ok(())
    });
    out
}

/// Read `#[form(...)]` on an enum variant.
pub(crate) fn variant(cx: &mut Ctxt, attrs: &[Attribute]) -> VariantAttrs {
    let mut out = VariantAttrs::default();
    each_item(cx, attrs, |cx, meta| {
        let span = meta.path.span();
        if meta.path.is_ident("title") {
            let s = lit_str(&meta)?;
            set(cx, &mut out.title, s.value(), span, "title");
        } else if meta.path.is_ident("rename") {
            let s = lit_str(&meta)?;
            set(cx, &mut out.rename, s.value(), s.span(), "rename");
        } else {
            unknown(
                cx,
                &meta,
                "unknown form attribute on a variant; expected `title` or `rename`",
            )?;
        }
        Ok(())
    });
    out
}

/// The doc comment as paragraphs: lines of a paragraph joined by spaces, paragraphs by a
/// blank line. `None` when there is no doc comment.
pub(crate) fn docs(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            for line in s.value().lines() {
                lines.push(line.trim().to_owned());
            }
        }
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut cur = String::new();
    for line in lines {
        if line.is_empty() {
            if !cur.is_empty() {
                paragraphs.push(std::mem::take(&mut cur));
            }
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(&line);
        }
    }
    if !cur.is_empty() {
        paragraphs.push(cur);
    }
    if paragraphs.is_empty() {
        None
    } else {
        Some(paragraphs.join("\n\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_rules() {
        assert_eq!(RenameRule::Camel.apply("number_of_boxes"), "numberOfBoxes");
        assert_eq!(RenameRule::Pascal.apply("number_of_boxes"), "NumberOfBoxes");
        assert_eq!(RenameRule::Snake.apply("WrongItem"), "wrong_item");
        assert_eq!(RenameRule::Kebab.apply("WrongItem"), "wrong-item");
        assert_eq!(RenameRule::ScreamingSnake.apply("WrongItem"), "WRONG_ITEM");
        assert_eq!(RenameRule::Lower.apply("WrongItem"), "wrongitem");
        assert_eq!(RenameRule::Snake.apply("HTTPServer"), "http_server");
        assert_eq!(RenameRule::Camel.apply("url2_target"), "url2Target");
    }
}
