//! `#[derive(FormEnum)]`: a field-less enum as the options of a select field.

use frontdesk_form::Limits;
use proc_macro2::TokenStream;
use quote::quote;

use crate::attr;
use crate::ctxt::Ctxt;

struct Variant {
    ident: syn::Ident,
    value: String,
    title: Option<String>,
    span: proc_macro2::Span,
}

/// Expand `#[derive(FormEnum)]`.
pub(crate) fn derive(
    cx: &mut Ctxt,
    input: &syn::DeriveInput,
    krate: Option<TokenStream>,
) -> Option<TokenStream> {
    let syn::Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            &input.ident,
            "`FormEnum` is derived for a field-less enum; for a struct, derive `Form`",
        );
        return None;
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "a form enum cannot have generic parameters",
        );
    }
    let attrs = attr::container(cx, &input.attrs, true);
    let krate = match (&attrs.krate, krate) {
        (Some(p), _) => quote!(#p),
        (None, Some(k)) => k,
        (None, None) => crate::form_crate(),
    };
    // Rule: an enum with no variant offers nothing to choose.
    if data.variants.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            "an enum without variants offers no options; add at least one variant",
        );
    }
    let mut variants: Vec<Variant> = Vec::new();
    for v in &data.variants {
        // Rule: options carry no data.
        if !matches!(v.fields, syn::Fields::Unit) {
            cx.error_spanned_by(
                &v.fields,
                "a form option cannot carry data; use a field-less variant",
            );
            continue;
        }
        let vattrs = attr::variant(cx, &v.attrs);
        let raw = syn::ext::IdentExt::unraw(&v.ident).to_string();
        let (value, span) = match (&vattrs.rename, attrs.rename_all) {
            (Some(r), _) => (r.value.clone(), r.span),
            (None, Some(rule)) => (rule.apply(&raw), v.ident.span()),
            (None, None) => (raw, v.ident.span()),
        };
        // Rule: a title comes only from `#[form(title = "...")]`. A variant's doc comment
        // documents the Rust code: options have no description in the schema subset, and
        // turning it into a title would silently change the wire from `enum` to `oneOf`.
        let title = vattrs.title.as_ref().map(|t| t.value.clone());
        // Rule: wire values are unique.
        if variants.iter().any(|o| o.value == value) {
            cx.error_at(
                span,
                format!("two variants have the value \"{value}\"; rename one of them"),
            );
        }
        // Rule: titles are unique (a person could not tell the options apart).
        if let Some(t) = &title
            && variants.iter().any(|o| o.title.as_ref() == Some(t))
        {
            cx.error_at(
                v.ident.span(),
                format!("two variants have the title \"{t}\""),
            );
        }
        // Rule: a title is non-empty text without control characters.
        if let Some(t) = &title
            && (t.trim().is_empty() || t.chars().any(char::is_control))
        {
            cx.error_at(
                v.ident.span(),
                "an option title must be non-empty and contain no control characters",
            );
        }
        if value.is_empty() {
            cx.error_at(span, "an option value cannot be empty");
        }
        variants.push(Variant {
            ident: v.ident.clone(),
            value,
            title,
            span: v.ident.span(),
        });
    }
    // Rule: either every option has a title or none has (the wire has no mixed form).
    let titled = variants.iter().filter(|v| v.title.is_some()).count();
    if titled > 0 && titled < variants.len() {
        for v in variants.iter().filter(|v| v.title.is_none()) {
            cx.error_at(
                v.span,
                "this variant has no title, but others do: give every variant a \
                 #[form(title = \"...\")] or none (a doc comment is not a title)",
            );
        }
    }
    let max = Limits::default().max_options;
    if variants.len() > max {
        cx.error_spanned_by(
            &input.ident,
            format!("a form enum has at most {max} options"),
        );
    }
    if cx.has_errors() {
        return None;
    }
    let ident = &input.ident;
    let options = variants.iter().map(|v| {
        let value = &v.value;
        match &v.title {
            Some(t) => quote!((#value, ::core::option::Option::Some(#t))),
            None => quote!((#value, ::core::option::Option::None)),
        }
    });
    let from_arms = variants.iter().map(|v| {
        let (value, id) = (&v.value, &v.ident);
        quote!(#value => ::core::option::Option::Some(#ident::#id),)
    });
    let value_arms = variants.iter().map(|v| {
        let (value, id) = (&v.value, &v.ident);
        quote!(#ident::#id => #value,)
    });
    Some(quote! {
        #[automatically_derived]
        impl #krate::FormEnum for #ident {
            const OPTIONS: &'static [#krate::FormOption] = &[#(#options),*];

            fn from_value(value: &str) -> ::core::option::Option<Self> {
                match value {
                    #(#from_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            fn value(&self) -> &'static str {
                match self {
                    #(#value_arms)*
                }
            }
        }
    })
}
