//! Code generation for `#[derive(Form)]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{FormField, FormInput, Leaf, Shape};
use crate::attr::{DefaultValue, Num};
use crate::spec::FieldSpec;

/// The default as a `serde_json::Value` expression.
fn default_json(krate: &TokenStream, d: &DefaultValue, integer: bool) -> TokenStream {
    let json = quote!(#krate::__private::serde_json::Value);
    match d {
        DefaultValue::Str(s) => quote!(#json::from(#s)),
        DefaultValue::Bool(b) => quote!(#json::from(#b)),
        DefaultValue::Num(Num::Int(i)) => match i64::try_from(*i) {
            Ok(i) => quote!(#json::from(#i)),
            Err(_) => {
                let f = *i as f64;
                quote!(#json::from(#f))
            }
        },
        DefaultValue::Num(Num::Float(f)) => {
            if integer {
                let i = *f as i64;
                quote!(#json::from(#i))
            } else {
                quote!(#json::from(#f))
            }
        }
        DefaultValue::List(l) => quote!(#json::Array(::std::vec![#(#json::from(#l)),*])),
    }
}

/// The expression reading one value `v` of the field.
fn read_expr(krate: &TokenStream, f: &FormField) -> TokenStream {
    let key = &f.key;
    let ty = &f.inner;
    let p = quote!(#krate::__private);
    match &f.shape {
        Shape::Single(Leaf::Text(_)) => quote_spanned!(ty.span()=> #p::text::<#ty>(#key, v)),
        Shape::Single(Leaf::Bool) => quote!(#p::boolean(#key, v)),
        Shape::Single(Leaf::Int { .. }) => quote_spanned!(ty.span()=> #p::integer::<#ty>(#key, v)),
        Shape::Single(Leaf::Float { f32: true }) => quote!(#p::number32(#key, v)),
        Shape::Single(Leaf::Float { f32: false }) => quote!(#p::number(#key, v)),
        Shape::Single(Leaf::Enum) => quote_spanned!(ty.span()=> #p::select::<#ty>(#key, v)),
        Shape::Multi { elem } => {
            quote_spanned!(elem.span()=> #p::multi::<#elem, #ty>(#key, v))
        }
    }
}

/// Constant assertions on a select field's enum: its default is an option, and
/// `min_items` can be met.
fn enum_asserts(krate: &TokenStream, f: &FormField) -> TokenStream {
    let elem = match &f.shape {
        Shape::Single(Leaf::Enum) => &f.inner,
        Shape::Multi { elem } => elem,
        _ => return TokenStream::new(),
    };
    let mut out = TokenStream::new();
    let options = quote_spanned!(elem.span()=> <#elem as #krate::FormEnum>::OPTIONS);
    if let Some(d) = &f.attrs.default {
        let values: Vec<&String> = match &d.value {
            DefaultValue::Str(s) => vec![s],
            DefaultValue::List(l) => l.iter().collect(),
            _ => Vec::new(),
        };
        for v in values {
            out.extend(quote_spanned! {d.span=>
                const _: () = if !#krate::__private::has_option(#options, #v) {
                    ::core::panic!("this default is not one of the enum's option values")
                };
            });
        }
    }
    if let Some(n) = &f.attrs.min_items {
        let n = n.value as usize;
        out.extend(
            quote_spanned! {f.attrs.min_items.as_ref().map_or(f.key_span, |s| s.span)=>
                const _: () = if #options.len() < #n {
                    ::core::panic!("`min_items` is more than the enum's number of options")
                };
            },
        );
    }
    out
}

/// The `impl Form for ...`.
pub(crate) fn form_impl(
    krate: &TokenStream,
    input: &FormInput,
    specs: &[FieldSpec],
) -> TokenStream {
    let ident = &input.ident;
    let title = input.attrs.title.as_ref().map(|t| {
        let t = &t.value;
        quote!(.title(#t))
    });
    let description = input.attrs.description.as_ref().map(|d| {
        let d = &d.value;
        quote!(.description(#d))
    });
    let calls = specs.iter().map(|s| s.emit(krate));
    let names: Vec<&syn::Ident> = input.fields.iter().map(|f| &f.ident).collect();
    let reads = input.fields.iter().map(|f| {
        let name = &f.ident;
        let key = &f.key;
        let read = read_expr(krate, f);
        let integer = matches!(f.shape, Shape::Single(Leaf::Int { .. }));
        let default = match &f.attrs.default {
            Some(d) => {
                let json = default_json(krate, &d.value, integer);
                quote!(::core::option::Option::Some(
                    (|| #json) as fn() -> #krate::__private::serde_json::Value,
                ))
            }
            None => quote!(::core::option::Option::None),
        };
        let value = if f.optional {
            quote! {
                match v {
                    ::core::option::Option::Some(v) => ::core::option::Option::Some(#read?),
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            }
        } else {
            quote! {
                match v {
                    ::core::option::Option::Some(v) => #read?,
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(#krate::__private::missing(#key))
                    }
                }
            }
        };
        quote! {
            let #name = {
                let v = #krate::__private::take(&mut content, #key, #default);
                #value
            };
        }
    });
    let asserts = input.fields.iter().map(|f| enum_asserts(krate, f));
    let form_name = ident.to_string();
    quote! {
        #(#asserts)*

        #[automatically_derived]
        impl #krate::Form for #ident {
            fn schema() -> #krate::FormSchema {
                static SCHEMA: ::std::sync::OnceLock<#krate::FormSchema> =
                    ::std::sync::OnceLock::new();
                SCHEMA
                    .get_or_init(|| {
                        match #krate::FormSchema::builder()
                            #title
                            #description
                            #(#calls)*
                            .build()
                        {
                            ::core::result::Result::Ok(schema) => schema,
                            // Every rule was checked when the derive expanded; only a
                            // hand-written `FormEnum` breaking its contract gets here.
                            ::core::result::Result::Err(e) => ::core::panic!(
                                "the form `{}` is invalid: {}",
                                #form_name,
                                e
                            ),
                        }
                    })
                    .clone()
            }

            fn from_content(
                mut content: #krate::__private::serde_json::Map<
                    ::std::string::String,
                    #krate::__private::serde_json::Value,
                >,
            ) -> ::core::result::Result<Self, #krate::FormError> {
                #(#reads)*
                let _ = &mut content;
                ::core::result::Result::Ok(#ident { #(#names),* })
            }
        }
    }
}
