use frontdesk_derive::Form;

#[derive(Form)]
pub struct Mixed {
    #[form(min = 1)]
    pub name: String,
    #[form(pattern = "^a$", min_items = 1)]
    pub count: u8,
    #[form(format = "phone")]
    pub phone: String,
    #[form(colour = "red")]
    pub flag: bool,
    #[form(required)]
    pub note: Option<String>,
}

fn main() {}
