//! The sensitive-field lint: form mode must not ask for secrets.
//!
//! A field whose key or title looks like a password, token, API key, card number or
//! similar gets a [`LintWarning`]. Keys are split into words (camelCase, snake_case,
//! kebab-case, spaces) so `apiKey`, `api_key` and "API key" are all caught, while words
//! that merely contain a short keyword (`spinach`, `tokenizer`, `secretary`) are not.

use serde::Serialize;

use crate::model::{Field, FormSchema};

/// What kind of secret a field seems to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SensitiveKind {
    /// A password or passphrase.
    Password,
    /// A secret (client secret, secret key, seed phrase …).
    Secret,
    /// An access, auth or refresh token.
    Token,
    /// An API key or access key.
    ApiKey,
    /// A private key.
    PrivateKey,
    /// Credentials in general.
    Credential,
    /// A payment card number.
    CardNumber,
    /// A card security code (CVV/CVC).
    CardSecurityCode,
    /// A social security number.
    Ssn,
    /// A PIN.
    Pin,
    /// A one-time or MFA code.
    OneTimeCode,
}

impl SensitiveKind {
    fn describe(self) -> &'static str {
        match self {
            SensitiveKind::Password => "a password",
            SensitiveKind::Secret => "a secret",
            SensitiveKind::Token => "a token",
            SensitiveKind::ApiKey => "an API key",
            SensitiveKind::PrivateKey => "a private key",
            SensitiveKind::Credential => "credentials",
            SensitiveKind::CardNumber => "a card number",
            SensitiveKind::CardSecurityCode => "a card security code",
            SensitiveKind::Ssn => "a social security number",
            SensitiveKind::Pin => "a PIN",
            SensitiveKind::OneTimeCode => "a one-time code",
        }
    }
}

/// A warning that a field seems to ask for sensitive data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintWarning {
    /// The field's key.
    pub field: String,
    /// What it seems to ask for.
    pub kind: SensitiveKind,
    /// A sentence explaining the warning and what to do instead.
    pub message: String,
}

impl FormSchema {
    /// Warnings for every field whose key or title looks like a secret.
    pub fn lint(&self) -> Vec<LintWarning> {
        self.fields
            .iter()
            .filter_map(|f| {
                f.sensitive_kind().map(|kind| LintWarning {
                    field: f.key.clone(),
                    kind,
                    message: format!(
                        "{} looks like it asks for {}; form mode must not be used for secrets, use URL mode instead",
                        f.label,
                        kind.describe()
                    ),
                })
            })
            .collect()
    }

    /// The fields that look sensitive (hosts mask their values in logs).
    pub fn sensitive_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.sensitive_kind().is_some())
    }
}

impl Field {
    /// What kind of secret this field seems to ask for, judged by its key and title.
    pub fn sensitive_kind(&self) -> Option<SensitiveKind> {
        classify(&self.key).or_else(|| self.title.as_deref().and_then(classify))
    }
}

/// Split into lowercase words at separators and camelCase boundaries.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev
            && c.is_uppercase()
            && p.is_lowercase()
        {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Classify a key or a title.
pub(crate) fn classify(text: &str) -> Option<SensitiveKind> {
    use SensitiveKind as K;
    let w = words(text);
    let pair = |a: &str, b: &str| w.windows(2).any(|p| p[0] == a && p[1] == b);
    let any = |f: &dyn Fn(&str) -> bool| w.iter().any(|x| f(x));
    if any(&|x| {
        x.contains("password")
            || x.contains("passwd")
            || x.contains("passphrase")
            || x.contains("passcode")
            || x == "pwd"
    }) || pair("pass", "word")
    {
        return Some(K::Password);
    }
    if any(&|x| x.contains("privatekey")) || pair("private", "key") {
        return Some(K::PrivateKey);
    }
    if any(&|x| x.contains("apikey") || x.contains("accesskey"))
        || pair("api", "key")
        || pair("api", "keys")
        || pair("access", "key")
    {
        return Some(K::ApiKey);
    }
    if any(&|x| {
        x == "secret"
            || x == "secrets"
            || x.ends_with("secret")
            || (x.starts_with("secret") && !x.starts_with("secretar"))
    }) || pair("seed", "phrase")
        || any(&|x| x == "mnemonic")
    {
        return Some(K::Secret);
    }
    if any(&|x| x == "token" || x == "tokens" || x.ends_with("token") || x == "bearer") {
        return Some(K::Token);
    }
    if any(&|x| x.starts_with("credential")) {
        return Some(K::Credential);
    }
    if any(&|x| {
        x.contains("cardnumber")
            || x.contains("creditcard")
            || x.contains("debitcard")
            || x == "ccnumber"
            || x == "ccnum"
            || x == "pan"
    }) || pair("card", "number")
        || pair("cc", "number")
        || pair("card", "no")
        || pair("credit", "card")
        || pair("debit", "card")
    {
        return Some(K::CardNumber);
    }
    if any(&|x| matches!(x, "cvv" | "cvv2" | "cvc" | "cvc2" | "csc")) || pair("security", "code") {
        return Some(K::CardSecurityCode);
    }
    if any(&|x| x == "ssn") || pair("social", "security") {
        return Some(K::Ssn);
    }
    if any(&|x| x == "pin" || x == "pincode") || pair("pin", "code") {
        return Some(K::Pin);
    }
    if any(&|x| matches!(x, "otp" | "totp" | "hotp" | "mfa" | "2fa"))
        || pair("one", "time")
        || pair("verification", "code")
        || pair("auth", "code")
    {
        return Some(K::OneTimeCode);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use SensitiveKind as K;

    #[test]
    fn catches_secrets_in_any_spelling() {
        let cases: &[(&str, K)] = &[
            ("password", K::Password),
            ("newPassword", K::Password),
            ("confirm_passwd", K::Password),
            ("Passphrase", K::Password),
            ("pass-word", K::Password),
            ("client_secret", K::Secret),
            ("clientSecret", K::Secret),
            ("secretKey", K::Secret),
            ("seed phrase", K::Secret),
            ("accessToken", K::Token),
            ("refresh_token", K::Token),
            ("authtoken", K::Token),
            ("GitHub token", K::Token),
            ("apiKey", K::ApiKey),
            ("api_key", K::ApiKey),
            ("API key", K::ApiKey),
            ("apikey", K::ApiKey),
            ("AWS access key", K::ApiKey),
            ("private_key", K::PrivateKey),
            ("sshPrivateKey", K::PrivateKey),
            ("credentials", K::Credential),
            ("cardNumber", K::CardNumber),
            ("credit card", K::CardNumber),
            ("cc_number", K::CardNumber),
            ("cvv", K::CardSecurityCode),
            ("CVC", K::CardSecurityCode),
            ("security code", K::CardSecurityCode),
            ("ssn", K::Ssn),
            ("Social security number", K::Ssn),
            ("pin", K::Pin),
            ("pinCode", K::Pin),
            ("otp", K::OneTimeCode),
            ("2FA code", K::OneTimeCode),
            ("one-time code", K::OneTimeCode),
        ];
        for (text, kind) in cases {
            assert_eq!(classify(text), Some(*kind), "{text}");
        }
    }

    #[test]
    fn leaves_ordinary_fields_alone() {
        for text in [
            "name",
            "email",
            "username",
            "spinach",
            "tokenizer",
            "secretary",
            "spin",
            "pinned",
            "keyboard",
            "passenger",
            "opinion",
            "cardinality",
            "panel",
            "company",
            "Number of boxes",
            "security level",
            "primary key column",
        ] {
            assert_eq!(classify(text), None, "{text}");
        }
    }
}
