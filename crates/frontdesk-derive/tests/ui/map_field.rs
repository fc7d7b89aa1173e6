use std::collections::HashMap;

use frontdesk_derive::Form;

#[derive(Form)]
pub struct Settings {
    pub values: HashMap<String, String>,
}

fn main() {}
