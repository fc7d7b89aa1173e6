use frontdesk_derive::Form;

pub struct Address {
    pub street: String,
}

#[derive(Form)]
pub struct Order {
    pub name: String,
    pub address: Address,
}

fn main() {}
