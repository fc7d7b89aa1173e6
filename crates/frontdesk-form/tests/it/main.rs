//! Integration tests of frontdesk-form, in one binary. The official schema.json and the
//! ELICITATION.md §3.4 example come from `frontdesk-testkit`.

mod accept;
mod build;
mod describe;
mod fuzz_props;
mod golden;
mod parse;
mod props;
mod validation_table;
