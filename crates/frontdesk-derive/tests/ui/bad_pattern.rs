use frontdesk_derive::Form;

#[derive(Form)]
pub struct Code {
    #[form(pattern = "[z-a]")]
    pub code: String,
}

fn main() {}
