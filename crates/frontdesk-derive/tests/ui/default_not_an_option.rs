use frontdesk_derive::{Form, FormEnum};

#[derive(FormEnum)]
pub enum Size {
    Small,
    Large,
}

#[derive(Form)]
pub struct Shirt {
    #[form(default = "Medium")]
    pub size: Size,
}

fn main() {}
