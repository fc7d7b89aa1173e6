//! `#[derive(Form)]` and `#[derive(FormEnum)]`: describe an MCP elicitation form as a plain
//! Rust struct, get its `requestedSchema` and a typed answer back, with titles, bounds,
//! formats, patterns and defaults checked at compile time.
//!
//! ```
//! use frontdesk_derive::{Form, FormEnum};
//! use frontdesk_form::{Date, Email, Form as _};
//! use serde_json::json;
//!
//! /// Why a return is made.
//! #[derive(Debug, Clone, Copy, PartialEq, Eq, FormEnum)]
//! #[form(rename_all = "snake_case")]
//! enum Reason {
//!     /// Damaged in transit (a doc comment documents the code; it is not a title).
//!     #[form(title = "It arrived damaged")]
//!     Damaged,
//!     #[form(title = "Wrong item")]
//!     WrongItem,
//!     #[form(title = "No longer needed", rename = "unwanted")]
//!     NotNeeded,
//! }
//!
//! #[derive(Debug, Form)]
//! #[form(title = "Return a package", rename_all = "camelCase")]
//! struct ReturnForm {
//!     #[form(title = "Reason")]
//!     reason: Reason,
//!     /// We bring this many boxes.
//!     #[form(title = "Number of boxes", min = 1, max = 3, default = 1)]
//!     number_of_boxes: u8,
//!     #[form(title = "Pickup date")]
//!     pickup_date: Date,
//!     /// Where we send the label, if not to your account address.
//!     contact: Option<Email>,
//! }
//!
//! let schema = ReturnForm::schema();
//! assert_eq!(
//!     schema.to_json()["properties"]["numberOfBoxes"],
//!     json!({
//!         "type": "integer",
//!         "title": "Number of boxes",
//!         "description": "We bring this many boxes.",
//!         "minimum": 1,
//!         "maximum": 3,
//!         "default": 1
//!     })
//! );
//! assert_eq!(schema.required(), ["reason", "pickupDate"]);
//!
//! let answer = json!({ "reason": "unwanted", "pickupDate": "2026-03-01" });
//! let form = ReturnForm::from_answer(answer.as_object().cloned().unwrap_or_default())?;
//! assert_eq!(form.reason, Reason::NotNeeded);
//! assert_eq!(form.number_of_boxes, 1); // the default
//! assert_eq!(form.pickup_date.month(), 3);
//! assert_eq!(form.contact, None);
//! # Ok::<(), frontdesk_form::FormError>(())
//! ```
//!
//! # Field types
//!
//! | Rust type | Field |
//! | --- | --- |
//! | `String` | text (`format` from `#[form(format = "...")]`) |
//! | `Email`, `Url`, `Date`, `DateTime` (from `frontdesk-form`) | text with `format` `email`, `uri`, `date`, `date-time` |
//! | `bool` | boolean |
//! | `i8` … `i64`, `u8` … `u64`, `isize`, `usize` | integer, bounded by the type (64-bit types by ±(2^53 − 1)) unless narrowed |
//! | `f32`, `f64` | number (`f32` bounded by its range) |
//! | a field-less enum deriving `FormEnum` | single-select |
//! | `Vec<E>`, `BTreeSet<E>`, `HashSet<E>` of such an enum | multi-select |
//! | `Option<T>` of any of these | the same field, not required |
//!
//! A field is required unless it is an `Option` or has a `default` (then a missing answer
//! takes the default); `#[form(required)]` makes a field with a default required anyway
//! (the default only pre-fills it). Anything else (a nested struct, a tuple, a map, a list
//! of anything but a form enum) is a compile error at the field.
//!
//! Types are recognised by name (`Date`, `Email`, …); a type alias is not looked through.
//!
//! # Attributes
//!
//! On the struct: `title`, `description`, `rename_all` (`"camelCase"`, `"snake_case"`,
//! `"kebab-case"`, `"PascalCase"`, `"lowercase"`, `"UPPERCASE"`, `"SCREAMING_SNAKE_CASE"`,
//! `"SCREAMING-KEBAB-CASE"`) and `crate` (the path of `frontdesk-form`, found
//! automatically as `frontdesk_form` or `frontdesk::form`).
//!
//! On a field: `title`, `description` (else the doc comment), `rename`, `default`,
//! `required`, `min` / `max` (numbers), `min_length` / `max_length` / `pattern` /
//! `format` (text), `min_items` / `max_items` (multi-select). A default of a select field
//! is the option's wire value (`default = "damaged"`, or `default = ["a", "b"]` for a
//! multi-select).
//!
//! On an enum deriving `FormEnum`: `rename_all`, `crate`; on its variants `rename` (the wire
//! value; else the variant name) and `title`. Every variant has a title, or none has: with
//! titles the field is written as a titled `oneOf` (`items.anyOf` for a multi-select),
//! without them as a plain `enum`.
//!
//! # Doc comments and titles
//!
//! One rule: **a title comes only from `#[form(title = "...")]`**, never from a doc comment.
//! A doc comment becomes a *description* where the schema subset has one, and otherwise
//! documents the Rust code only:
//!
//! - on a field, it is the field's `description` (unless `#[form(description = "...")]`
//!   gives one);
//! - on a `FormEnum` variant, it documents the code only: options have no description in
//!   the subset, so a variant's doc comment never changes the wire (adding one cannot turn
//!   an `enum` into a `oneOf`);
//! - on the struct, it is not used (it usually speaks to programmers); give the form a
//!   description with `#[form(description = "...")]`.
//!
//! # What is checked at compile time
//!
//! Each field is built with `frontdesk-form`'s strict builder while the macro expands, so
//! min > max, a default outside its bounds or failing its pattern or format, a pattern that
//! cannot be translated, an invalid title, and duplicate keys are compile errors at the
//! attribute or field concerned, all reported at once. A select field's default must be
//! one of the enum's options and `min_items` must not exceed them (checked by constant
//! assertions). The generated `schema()` calls the same builder, so it is the schema the
//! builder would produce by hand, in field order.

mod ast;
mod attr;
mod check;
mod ctxt;
mod emit;
mod enums;
mod spec;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

/// Derive `frontdesk_form::Form` for a struct with named fields. See the crate docs.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_form(&input).unwrap_or_else(|e| e).into()
}

/// Derive `frontdesk_form::FormEnum` for a field-less enum. See the crate docs.
#[proc_macro_derive(FormEnum, attributes(form))]
pub fn derive_form_enum(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let mut cx = ctxt::Ctxt::default();
    let out = enums::derive(&mut cx, &input, None);
    match (cx.check(), out) {
        (Err(e), _) => e.into(),
        (Ok(()), Some(out)) => out.into(),
        (Ok(()), None) => TokenStream::new(),
    }
}

fn expand_form(input: &syn::DeriveInput) -> Result<TokenStream2, TokenStream2> {
    let mut cx = ctxt::Ctxt::default();
    let Some(model) = ast::form_input(&mut cx, input) else {
        cx.check()?;
        return Ok(TokenStream2::new());
    };
    let specs = check::check_form(&mut cx, &model);
    cx.check()?;
    let krate = match &model.attrs.krate {
        Some(p) => quote!(#p),
        None => form_crate(),
    };
    Ok(emit::form_impl(&krate, &model, &specs))
}

/// The path of `frontdesk-form` as the deriving crate sees it.
fn form_crate() -> TokenStream2 {
    use proc_macro_crate::{FoundCrate, crate_name};
    match crate_name("frontdesk-form") {
        Ok(FoundCrate::Itself) => return quote!(crate),
        Ok(FoundCrate::Name(n)) => {
            let id = syn::Ident::new(&n, proc_macro2::Span::call_site());
            return quote!(::#id);
        }
        Err(_) => {}
    }
    match crate_name("frontdesk") {
        Ok(FoundCrate::Itself) => quote!(crate::form),
        Ok(FoundCrate::Name(n)) => {
            let id = syn::Ident::new(&n, proc_macro2::Span::call_site());
            quote!(::#id::form)
        }
        Err(_) => quote!(::frontdesk_form),
    }
}
