use frontdesk_derive::Form;

#[derive(Form)]
pub struct Levels {
    #[form(max = 300)]
    pub level: u8,
    #[form(min = -1)]
    pub count: u32,
}

fn main() {}
