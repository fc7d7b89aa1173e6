use frontdesk_derive::Form;

#[derive(Form)]
pub struct Boxes {
    #[form(min = 5, max = 1)]
    pub boxes: u8,
}

fn main() {}
