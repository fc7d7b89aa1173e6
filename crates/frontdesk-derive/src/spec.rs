//! A field as a list of strict-builder calls. The same list is run against the real
//! builder while the macro expands (to turn every `BuildError` into a compile error) and
//! emitted as code for `Form::schema()`, so both produce the same schema.

use frontdesk_form::{
    FormBuilder, MultiSelectBuilder, NumberBuilder, SelectBuilder, StringFormat, TextBuilder,
};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Type;

/// Which builder method adds the field.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    String,
    Integer,
    Number,
    Boolean,
    Select,
    MultiSelect,
}

/// A JSON number as written in the schema.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JsonNum {
    Int(i64),
    Float(f64),
}

/// One builder call.
#[derive(Clone)]
pub(crate) enum Call {
    Title(String),
    Description(String),
    Format(StringFormat),
    MinLength(u64),
    MaxLength(u64),
    Pattern(String),
    Minimum(JsonNum),
    Maximum(JsonNum),
    MinItems(u64),
    MaxItems(u64),
    DefaultStr(String),
    DefaultBool(bool),
    DefaultNum(JsonNum),
    DefaultList(Vec<String>),
    Required,
}

/// A field ready to build or emit.
pub(crate) struct FieldSpec {
    pub(crate) key: String,
    pub(crate) method: Method,
    /// The `FormEnum` type whose options a select field offers.
    pub(crate) options: Option<Type>,
    pub(crate) calls: Vec<Call>,
    pub(crate) span: Span,
}

macro_rules! apply_common {
    ($b:expr, $call:expr) => {
        match $call {
            Call::Title(t) => $b.title(t.as_str()),
            Call::Description(d) => $b.description(d.as_str()),
            Call::Required => $b.required(),
            _ => $b,
        }
    };
}

fn num_call(b: NumberBuilder, call: &Call) -> NumberBuilder {
    match call {
        Call::Minimum(JsonNum::Int(n)) => b.minimum(*n),
        Call::Minimum(JsonNum::Float(n)) => b.minimum(*n),
        Call::Maximum(JsonNum::Int(n)) => b.maximum(*n),
        Call::Maximum(JsonNum::Float(n)) => b.maximum(*n),
        Call::DefaultNum(JsonNum::Int(n)) => b.default(*n),
        Call::DefaultNum(JsonNum::Float(n)) => b.default(*n),
        other => apply_common!(b, other),
    }
}

fn text_call(b: TextBuilder, call: &Call) -> TextBuilder {
    match call {
        Call::Format(f) => b.format(*f),
        Call::MinLength(n) => b.min_length(*n),
        Call::MaxLength(n) => b.max_length(*n),
        Call::Pattern(p) => b.pattern(p.as_str()),
        Call::DefaultStr(d) => b.default(d.as_str()),
        other => apply_common!(b, other),
    }
}

fn select_call(b: SelectBuilder, call: &Call) -> SelectBuilder {
    match call {
        Call::DefaultStr(d) => b.default(d.as_str()),
        other => apply_common!(b, other),
    }
}

fn multi_call(b: MultiSelectBuilder, call: &Call) -> MultiSelectBuilder {
    match call {
        Call::MinItems(n) => b.min_items(*n),
        Call::MaxItems(n) => b.max_items(*n),
        Call::DefaultList(d) => b.default(d.iter().map(String::as_str)),
        other => apply_common!(b, other),
    }
}

impl FieldSpec {
    /// Add this field to a real builder. A select field's options are not known while the
    /// macro expands; `placeholders` stand in for them (the options themselves are checked
    /// by `#[derive(FormEnum)]` and by constant assertions).
    pub(crate) fn apply(&self, b: FormBuilder, placeholders: &[String]) -> FormBuilder {
        let calls = &self.calls;
        match self.method {
            Method::String => b.string(&self.key, |f| calls.iter().fold(f, text_call)),
            Method::Integer => b.integer(&self.key, |f| calls.iter().fold(f, num_call)),
            Method::Number => b.number(&self.key, |f| calls.iter().fold(f, num_call)),
            Method::Boolean => b.boolean(&self.key, |f| {
                calls.iter().fold(f, |b, c| match c {
                    Call::DefaultBool(v) => b.default(*v),
                    other => apply_common!(b, other),
                })
            }),
            Method::Select => b.select(&self.key, |f| {
                calls.iter().fold(
                    f.options(placeholders.iter().map(String::as_str)),
                    select_call,
                )
            }),
            Method::MultiSelect => b.multi_select(&self.key, |f| {
                calls.iter().fold(
                    f.options(placeholders.iter().map(String::as_str)),
                    multi_call,
                )
            }),
        }
    }

    /// The builder call as code, e.g. `.integer("boxes", |f| f.minimum(1i64))`.
    pub(crate) fn emit(&self, krate: &TokenStream) -> TokenStream {
        let key = &self.key;
        let calls = self.calls.iter().map(emit_call);
        let start = match (&self.method, &self.options) {
            (Method::Select, Some(ty)) => quote_spanned! {ty_span(ty)=>
                #krate::__private::select_options::<#ty>(f)
            },
            (Method::MultiSelect, Some(ty)) => quote_spanned! {ty_span(ty)=>
                #krate::__private::multi_options::<#ty>(f)
            },
            _ => quote!(f),
        };
        let method = match self.method {
            Method::String => quote!(string),
            Method::Integer => quote!(integer),
            Method::Number => quote!(number),
            Method::Boolean => quote!(boolean),
            Method::Select => quote!(select),
            Method::MultiSelect => quote!(multi_select),
        };
        quote! { .#method(#key, |f| #start #(#calls)*) }
    }
}

fn ty_span(ty: &Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

fn num_tokens(n: JsonNum) -> TokenStream {
    match n {
        JsonNum::Int(i) => quote!(#i),
        JsonNum::Float(f) => quote!(#f),
    }
}

fn emit_call(call: &Call) -> TokenStream {
    match call {
        Call::Title(t) => quote!(.title(#t)),
        Call::Description(d) => quote!(.description(#d)),
        Call::Format(f) => {
            let m = match f {
                StringFormat::Email => quote!(email),
                StringFormat::Uri => quote!(uri),
                StringFormat::Date => quote!(date),
                _ => quote!(date_time),
            };
            quote!(.#m())
        }
        Call::MinLength(n) => quote!(.min_length(#n)),
        Call::MaxLength(n) => quote!(.max_length(#n)),
        Call::Pattern(p) => quote!(.pattern(#p)),
        Call::Minimum(n) => {
            let n = num_tokens(*n);
            quote!(.minimum(#n))
        }
        Call::Maximum(n) => {
            let n = num_tokens(*n);
            quote!(.maximum(#n))
        }
        Call::MinItems(n) => quote!(.min_items(#n)),
        Call::MaxItems(n) => quote!(.max_items(#n)),
        Call::DefaultStr(s) => quote!(.default(#s)),
        Call::DefaultBool(b) => quote!(.default(#b)),
        Call::DefaultNum(n) => {
            let n = num_tokens(*n);
            quote!(.default(#n))
        }
        Call::DefaultList(l) => quote!(.default([#(#l),*])),
        Call::Required => quote!(.required()),
    }
}
