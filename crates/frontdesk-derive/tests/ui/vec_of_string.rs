use frontdesk_derive::Form;

#[derive(Form)]
pub struct Tags {
    pub tags: Vec<String>,
}

fn main() {}
