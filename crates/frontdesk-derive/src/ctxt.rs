//! Error collection: every problem found in one derive, each with its span, reported
//! together (as serde_derive's `Ctxt` does).

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects spanned errors while a derive input is read and checked.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Record an error pointing at `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, msg: M) {
        self.errors.push(syn::Error::new_spanned(tokens, msg));
    }

    /// Record an error at a span.
    pub(crate) fn error_at<M: Display>(&mut self, span: proc_macro2::Span, msg: M) {
        self.errors.push(syn::Error::new(span, msg));
    }

    /// Record a `syn` error as it is.
    pub(crate) fn syn_error(&mut self, err: syn::Error) {
        self.errors.push(err);
    }

    /// How many errors have been recorded so far.
    pub(crate) fn count(&self) -> usize {
        self.errors.len()
    }

    /// Has anything been recorded?
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All recorded errors as one `compile_error!` token stream, or `Ok` when there are none.
    pub(crate) fn check(self) -> Result<(), TokenStream> {
        let mut iter = self.errors.into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            first.combine(e);
        }
        Err(first.into_compile_error())
    }
}
