use frontdesk_derive::Form;

#[derive(Form)]
pub struct Name {
    #[form(min_length = 10, max_length = 2)]
    pub name: String,
}

fn main() {}
