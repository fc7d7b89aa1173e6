use frontdesk_derive::Form;

#[derive(Form)]
#[form(rename_all = "camelCase")]
pub struct Contact {
    pub phone_number: String,
    #[form(rename = "phoneNumber")]
    pub other_phone: String,
}

fn main() {}
