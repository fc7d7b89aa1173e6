//! The lines above every request on the terminal: which server asks, for which
//! call, how many more requests wait, and the server's message.

use crate::screen::Screen;
use crate::widgets::Header;

impl Header {
    /// Print the header: a rule with the title, the waiting count, then the message.
    pub fn show(&self, screen: &mut dyn Screen, what: &str) {
        screen.show("");
        screen.show(&format!("── {} ──", self.title()));
        let mut line = format!("{} {what}", self.server);
        if self.waiting > 0 {
            line.push_str(&format!("   ({} more waiting)", self.waiting));
        }
        screen.show(&line);
        for l in self.message.lines() {
            screen.show(&format!("  │ {l}"));
        }
        screen.show("");
    }
}
