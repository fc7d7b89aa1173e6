use frontdesk_derive::Form;

#[derive(Form)]
pub struct Boxes {
    #[form(min = 1, max = 3, default = 7)]
    pub boxes: u8,
    #[form(min_length = 3, default = "ab")]
    pub name: String,
}

fn main() {}
