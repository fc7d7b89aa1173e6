//! The forms the tests derive.

use std::collections::{BTreeSet, HashSet};

use frontdesk_derive::{Form, FormEnum};
use frontdesk_form::{Date, DateTime, Email, Url};

/// Why a return is made (titled by attributes; a variant's doc comment is not a title).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, FormEnum)]
#[form(rename_all = "snake_case")]
pub enum Reason {
    /// Damaged in transit.
    #[form(title = "It arrived damaged")]
    Damaged,
    #[form(title = "Wrong item")]
    WrongItem,
    #[form(title = "No longer needed", rename = "unwanted")]
    NotNeeded,
}

/// Untitled options: the wire values are the variant names as renamed. The variants'
/// doc comments document the code only and leave the options untitled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, FormEnum)]
#[form(rename_all = "lowercase")]
pub enum Region {
    /// Europe.
    Eu,
    /// The United States.
    Us,
    /// Asia-Pacific.
    Apac,
}

/// Titled options for a multi-select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, FormEnum)]
pub enum Color {
    #[form(title = "Red", rename = "#FF0000")]
    Red,
    #[form(title = "Green", rename = "#00FF00")]
    Green,
    #[form(title = "Blue", rename = "#0000FF")]
    Blue,
}

/// A return form with every supported field type.
#[derive(Debug, Clone, PartialEq, Form)]
#[form(
    title = "Return a package",
    description = "Tell us about the return",
    rename_all = "camelCase"
)]
pub struct EveryKind {
    /// Why you send it back.
    #[form(title = "Reason")]
    pub reason: Reason,
    #[form(title = "Region", default = "eu")]
    pub region: Region,
    #[form(title = "Number of boxes", min = 1, max = 3, default = 1)]
    pub number_of_boxes: u8,
    pub weight_kg: f64,
    #[form(min = -10.5, max = 40)]
    pub temperature: Option<f32>,
    pub ratio: f32,
    pub parcel_count: Option<u32>,
    pub order_number: i64,
    pub tracking_id: Option<u64>,
    pub offset: i16,
    pub insured: bool,
    #[form(title = "Keep me posted", default = true, required)]
    pub notify: bool,
    #[form(
        title = "Display name",
        min_length = 3,
        max_length = 50,
        default = "octocat"
    )]
    pub display_name: String,
    #[form(pattern = "^[A-Z]{2}[0-9]+$", rename = "order_ref")]
    pub order_reference: Option<String>,
    #[form(format = "email")]
    pub backup_email: Option<String>,
    pub email: Email,
    pub homepage: Option<Url>,
    #[form(title = "Pickup date")]
    pub pickup_date: Date,
    pub pickup_window: Option<DateTime>,
    #[form(title = "Colors", min_items = 1, max_items = 2, default = ["#0000FF"])]
    pub colors: Vec<Color>,
    pub regions: Option<BTreeSet<Region>>,
    #[form(max_items = 2)]
    pub reasons: HashSet<Reason>,
}

/// A small form with raw identifiers and no attributes at all.
#[derive(Debug, Clone, PartialEq, Form)]
pub struct Plain {
    pub r#type: String,
    pub count: usize,
    pub flag: Option<bool>,
}

/// A form with no fields.
#[derive(Debug, Clone, PartialEq, Form)]
pub struct Empty {}
