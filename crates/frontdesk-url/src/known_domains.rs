//! A modest list of well-known sign-in and payment domains, the usual targets of
//! lookalike links. Each is a registrable domain (eTLD+1); its first label is the
//! "brand". The list is ours, chosen for distinctive names: generic words
//! (`live`, `office`, `wise`) would match too many honest hosts.

use std::sync::OnceLock;

use unicode_security::skeleton;

/// The well-known domains that lookalike checks compare against.
pub const KNOWN_DOMAINS: &[&str] = &[
    // search, mail, identity
    "google.com",
    "gmail.com",
    "youtube.com",
    "microsoft.com",
    "microsoftonline.com",
    "outlook.com",
    "azure.com",
    "apple.com",
    "icloud.com",
    "yahoo.com",
    "okta.com",
    "auth0.com",
    // developer platforms
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "atlassian.com",
    "npmjs.com",
    "cloudflare.com",
    "heroku.com",
    "vercel.com",
    "openai.com",
    "anthropic.com",
    // shops, social, work
    "amazon.com",
    "amazonaws.com",
    "ebay.com",
    "alibaba.com",
    "shopify.com",
    "facebook.com",
    "instagram.com",
    "whatsapp.com",
    "linkedin.com",
    "twitter.com",
    "discord.com",
    "slack.com",
    "dropbox.com",
    "salesforce.com",
    "adobe.com",
    "netflix.com",
    "spotify.com",
    "steampowered.com",
    "figma.com",
    "notion.so",
    "zoom.us",
    // payments and banks
    "paypal.com",
    "stripe.com",
    "venmo.com",
    "coinbase.com",
    "binance.com",
    "revolut.com",
    "mastercard.com",
    "americanexpress.com",
    "bankofamerica.com",
    "wellsfargo.com",
    "citibank.com",
    "chase.com",
];

/// A known domain with its precomputed skeletons.
pub(crate) struct Known {
    /// The domain, e.g. `paypal.com`.
    pub domain: &'static str,
    /// Its first label, e.g. `paypal`.
    pub brand: &'static str,
    /// `skeleton(domain)`.
    pub domain_skeleton: String,
    /// `skeleton(brand)`.
    pub brand_skeleton: String,
    /// How many labels `domain` has.
    pub label_count: usize,
}

/// The UTS #39 skeleton of a string, as a `String`.
pub(crate) fn skeleton_of(s: &str) -> String {
    skeleton(s).collect()
}

/// The known domains with their skeletons, computed once.
pub(crate) fn known() -> &'static [Known] {
    static KNOWN: OnceLock<Vec<Known>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        KNOWN_DOMAINS
            .iter()
            .map(|&domain| {
                let brand = domain.split('.').next().unwrap_or(domain);
                Known {
                    domain,
                    brand,
                    domain_skeleton: skeleton_of(domain),
                    brand_skeleton: skeleton_of(brand),
                    label_count: domain.split('.').count(),
                }
            })
            .collect()
    })
}

/// Whether `registrable` (ASCII, lower-case) is one of the known domains.
pub(crate) fn is_known(registrable: &str) -> bool {
    KNOWN_DOMAINS.contains(&registrable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_lowercase_ascii_registrable_domains() {
        for d in KNOWN_DOMAINS {
            assert!(d.is_ascii() && d.to_ascii_lowercase() == *d, "{d}");
            assert_eq!(psl::domain_str(d), Some(*d), "{d} is not eTLD+1");
        }
    }

    #[test]
    fn skeletons_catch_the_classics() {
        let apple = known().iter().find(|k| k.domain == "apple.com");
        assert_eq!(
            apple.map(|k| k.brand_skeleton.as_str()),
            Some(skeleton_of("\u{0430}\u{0440}\u{0440}\u{04CF}\u{0435}").as_str())
        );
        assert_eq!(skeleton_of("paypa1"), skeleton_of("paypal"));
    }
}
