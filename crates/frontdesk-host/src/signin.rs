//! The sign-in screen: a server wants a token, so the person is asked to
//! approve at its authorization server. The page they will be sent to is
//! shown as a URL-mode URL is (the same review: full URL, registrable domain
//! marked, every finding), with who asks and for which scopes
//! ([`ask_sign_in`]). Only once they pressed `o` does the client register
//! itself (when it must) and build the authorization request, which
//! [`open_sign_in`] hands to the browser, never when the review refused it.

use frontdesk_url::{UrlReview, Verdict};

use crate::consent::{Opener, show_review};
use crate::sanitize::display_line;
use crate::screen::{Interrupted, Screen};
use crate::widgets::Header;

/// Who asks the person to sign in, and for what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInRequest {
    /// The MCP server (its endpoint URL).
    pub server: String,
    /// The authorization server (its issuer).
    pub issuer: String,
    /// The scopes asked for.
    pub scopes: Vec<String>,
}

/// How the sign-in screen ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInOutcome {
    /// The person agreed and the browser was started.
    Opened,
    /// The person agreed, no browser could be started, and the URL was
    /// printed to be copied into one.
    Printed,
    /// The person said no (or left the screen).
    Declined,
    /// The review refused the URL; nothing was opened.
    Refused,
}

impl SignInOutcome {
    /// Whether the person agreed (the redirect is worth waiting for).
    pub fn consented(self) -> bool {
        matches!(self, SignInOutcome::Opened | SignInOutcome::Printed)
    }
}

/// What the person chose on the sign-in screen ([`ask_sign_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInChoice {
    /// The person agreed to sign in: the client may now register itself
    /// (when it must) and open the authorization request ([`open_sign_in`]).
    Agreed,
    /// The person said no (or left the screen).
    Declined,
    /// The review refused the authorization server's page; nothing may be
    /// opened.
    Refused,
}

/// Ask the person whether to sign in: who asks, the authorization server,
/// the scopes, and `review` (of the page they will be sent to), shown whole.
/// Nothing is opened and, until this returns [`SignInChoice::Agreed`], the
/// client has sent the authorization server nothing but reads of its
/// metadata.
pub fn ask_sign_in(
    screen: &mut dyn Screen,
    request: &SignInRequest,
    review: &UrlReview,
) -> SignInChoice {
    let scopes = if request.scopes.is_empty() {
        "no particular scope".to_owned()
    } else {
        request.scopes.join(" ")
    };
    let header = Header {
        server: display_line(&request.server, 200),
        request: None,
        message: format!(
            "Sign in at {} so this client may use the server (asked for: {}).\n\
             frontdesk keeps the token for this server only, readable by you alone.",
            display_line(&request.issuer, 200),
            display_line(&scopes, 300)
        ),
        waiting: 0,
    };
    show_review(screen, &header, "asks you to sign in", review);
    if review.verdict() == Verdict::Refused || review.consented().is_none() {
        screen.show("This sign-in link is refused and will not be opened.");
        let _ = screen.key("", &[('c', "close")]);
        return SignInChoice::Refused;
    }
    screen.show("Nothing has been opened. Sign in only if you expected this server to ask.");
    match screen.key(
        "Your choice:",
        &[('o', "open the sign-in page"), ('c', "cancel")],
    ) {
        Ok('o') => SignInChoice::Agreed,
        Ok(_) | Err(Interrupted::Cancel | Interrupted::Escape) => {
            screen.show("Not signed in; nothing was opened.");
            SignInChoice::Declined
        }
    }
}

/// The person agreed ([`ask_sign_in`]): open the authorization request
/// `review` (its whole URL) in the browser, or print it to be copied into
/// one when no browser starts. A URL the review refuses is not opened.
pub fn open_sign_in(
    screen: &mut dyn Screen,
    review: &UrlReview,
    opener: &dyn Opener,
) -> SignInOutcome {
    let Some(consented) = review.consented() else {
        screen.show("This sign-in link is refused and will not be opened.");
        return SignInOutcome::Refused;
    };
    match opener.open(&consented) {
        Ok(()) => {
            screen.show("Opened in your browser. Approve there; this continues by itself.");
            SignInOutcome::Opened
        }
        Err(reason) => {
            screen.show(&format!("Could not open a browser ({reason})."));
            screen.show("Copy this URL into a browser on this machine and approve there:");
            screen.show("");
            screen.show(&format!("    {}", consented.as_str()));
            screen.show("");
            SignInOutcome::Printed
        }
    }
}

/// Show the sign-in screen for `review` and, once the person agreed, open
/// that same URL: [`ask_sign_in`] then [`open_sign_in`], for a client whose
/// authorization URL is known before consent.
pub fn run_sign_in(
    screen: &mut dyn Screen,
    request: &SignInRequest,
    review: &UrlReview,
    opener: &dyn Opener,
) -> SignInOutcome {
    match ask_sign_in(screen, request, review) {
        SignInChoice::Agreed => open_sign_in(screen, review, opener),
        SignInChoice::Declined => SignInOutcome::Declined,
        SignInChoice::Refused => SignInOutcome::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consent::NoBrowser;
    use crate::screen::{FakeInput, FakeScreen};
    use frontdesk_url::UrlPolicy;

    fn request() -> SignInRequest {
        SignInRequest {
            server: "https://mcp.example.com/mcp".into(),
            issuer: "https://auth.example.com".into(),
            scopes: vec!["mcp".into(), "offline_access".into()],
        }
    }

    #[test]
    fn shows_the_whole_url_and_opens_only_after_consent() {
        let url = "https://auth.example.com/authorize?client_id=c&state=s";
        let review = frontdesk_url::review(url, &UrlPolicy::default());
        let mut screen = FakeScreen::new([FakeInput::Key('c')]);
        let outcome = run_sign_in(&mut screen, &request(), &review, &NoBrowser);
        assert_eq!(outcome, SignInOutcome::Declined);
        let shown = screen.transcript();
        assert!(shown.contains(url), "{shown}");
        assert!(shown.contains("asks you to sign in"), "{shown}");
        assert!(shown.contains("mcp offline_access"), "{shown}");
        assert!(shown.contains("nothing was opened"), "{shown}");

        let mut screen = FakeScreen::new([FakeInput::Key('o')]);
        let outcome = run_sign_in(&mut screen, &request(), &review, &NoBrowser);
        assert_eq!(outcome, SignInOutcome::Printed);
        assert!(screen.transcript().contains(&format!("    {url}")));
    }

    #[test]
    fn a_refused_url_is_never_offered() {
        let review =
            frontdesk_url::review("http://auth.example.com/authorize", &UrlPolicy::default());
        let mut screen = FakeScreen::new([FakeInput::Key('c')]);
        let outcome = run_sign_in(&mut screen, &request(), &review, &NoBrowser);
        assert_eq!(outcome, SignInOutcome::Refused);
        assert!(!screen.transcript().contains("open the sign-in page"));
    }
}
