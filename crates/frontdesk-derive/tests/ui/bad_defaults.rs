use frontdesk_derive::Form;
use frontdesk_form::Date;

#[derive(Form)]
pub struct Pickup {
    #[form(default = "tomorrow")]
    pub day: Date,
    #[form(default = "yes")]
    pub confirm: bool,
    #[form(default = 1.5)]
    pub boxes: u8,
}

fn main() {}
