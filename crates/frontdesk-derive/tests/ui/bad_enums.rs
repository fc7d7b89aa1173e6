use frontdesk_derive::FormEnum;

#[derive(FormEnum)]
pub enum Nothing {}

#[derive(FormEnum)]
pub enum Shape {
    Circle(f64),
    Square { side: f64 },
}

#[derive(FormEnum)]
pub enum Twice {
    #[form(rename = "a")]
    First,
    #[form(rename = "a")]
    Second,
}

#[derive(FormEnum)]
pub enum HalfTitled {
    #[form(title = "The first one")]
    First,
    /// A doc comment is not a title.
    Second,
}

fn main() {}
