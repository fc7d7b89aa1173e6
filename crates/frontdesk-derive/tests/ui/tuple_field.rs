use frontdesk_derive::Form;

#[derive(Form)]
pub struct Point {
    pub at: (i32, i32),
}

fn main() {}
