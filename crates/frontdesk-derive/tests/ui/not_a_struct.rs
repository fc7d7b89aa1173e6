use frontdesk_derive::Form;

#[derive(Form)]
pub struct Pair(String, u8);

#[derive(Form)]
pub enum Choice {
    A,
    B,
}

#[derive(Form)]
pub struct Generic<T> {
    pub value: T,
}

fn main() {}
