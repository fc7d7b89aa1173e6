//! ECMA-262 `pattern` support with a hard bound on matching work.
//!
//! JSON Schema says `pattern` is an ECMA-262 regular expression. We do not run an ECMAScript
//! engine (the pure-Rust one has no backtracking limit); instead [`translate`] rewrites the
//! ECMA syntax into the dialect of `fancy-regex`, spelling out every construct whose meaning
//! differs (`\d`, `\w`, `\s`, `\b`, `.`, `^`, `$`, `[^]`, Annex B literal braces, identity
//! escapes, `\uXXXX` surrogate pairs, …), and [`Pattern`] compiles the result with a
//! backtracking limit and a compiled-size limit.

use std::fmt;
use std::sync::Arc;

use fancy_regex::RegexBuilder;

use crate::limits::Limits;

/// Why a pattern could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The pattern is longer than [`Limits::max_pattern_len`].
    #[error("pattern is {len} characters long; the limit is {max}")]
    TooLong {
        /// Length of the pattern, in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The pattern is not valid ECMA-262 syntax, or uses a construct we do not translate.
    #[error("pattern cannot be used: {0}")]
    Syntax(PatternProblem),
    /// The translated pattern did not compile (for example it exceeds the size limit).
    #[error("pattern cannot be compiled: {0}")]
    Compile(PatternProblem),
}

/// What is wrong with a pattern, in words (for the schema's author or a
/// log); its text is not part of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternProblem {
    message: String,
}

impl PatternProblem {
    fn new(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
        }
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for PatternProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Matching gave up because the pattern needed more work than [`Limits::backtrack_limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("pattern matching exceeded its work limit")]
pub struct PatternWorkExceeded;

/// A compiled `pattern`: the ECMA source as sent, and a bounded matcher.
#[derive(Clone)]
pub struct Pattern {
    source: String,
    regex: Arc<fancy_regex::Regex>,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Pattern {
    /// Translate and compile an ECMA-262 pattern under `limits`.
    pub fn new(source: &str, limits: &Limits) -> Result<Pattern, PatternError> {
        let len = source.chars().count();
        if len > limits.max_pattern_len {
            return Err(PatternError::TooLong {
                len,
                max: limits.max_pattern_len,
            });
        }
        let translated = translate(source)?;
        let regex = RegexBuilder::new(&translated)
            .backtrack_limit(limits.backtrack_limit)
            .delegate_size_limit(limits.regex_size_limit)
            .delegate_dfa_size_limit(limits.regex_size_limit)
            .max_prog_size(limits.regex_size_limit / 16)
            .build()
            .map_err(|e| PatternError::Compile(PatternProblem::new(e)))?;
        Ok(Pattern {
            source: source.to_owned(),
            regex: Arc::new(regex),
        })
    }

    /// The pattern exactly as written in the schema (ECMA-262 syntax).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Does the pattern match somewhere in `text` (JSON Schema patterns are not anchored)?
    pub fn is_match(&self, text: &str) -> Result<bool, PatternWorkExceeded> {
        self.regex.is_match(text).map_err(|_| PatternWorkExceeded)
    }
}

const WORD: &str = r"A-Za-z0-9_";
const SPACE: &str = r"\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// Rewrite an ECMA-262 pattern (with the `u` flag's code-point semantics) into an
/// equivalent `fancy-regex` pattern.
pub fn translate(src: &str) -> Result<String, PatternError> {
    let chars: Vec<char> = src.chars().collect();
    let mut t = Translator {
        c: &chars,
        i: 0,
        out: String::with_capacity(src.len() * 2),
        depth: 0,
    };
    t.run()?;
    Ok(t.out)
}

struct Translator<'a> {
    c: &'a [char],
    i: usize,
    out: String,
    depth: usize,
}

fn err<T>(msg: impl fmt::Display) -> Result<T, PatternError> {
    Err(PatternError::Syntax(PatternProblem::new(msg)))
}

fn push_literal(out: &mut String, ch: char) {
    if ch.is_alphanumeric() && !ch.is_ascii() || ch.is_ascii_alphanumeric() {
        out.push(ch);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", ch as u32));
    }
}

impl Translator<'_> {
    fn peek(&self, off: usize) -> Option<char> {
        self.c.get(self.i + off).copied()
    }

    fn run(&mut self) -> Result<(), PatternError> {
        while let Some(ch) = self.peek(0) {
            match ch {
                '\\' => self.escape_outside()?,
                '[' => self.class()?,
                '(' => self.group_open()?,
                ')' => {
                    if self.depth == 0 {
                        return err("unmatched ')'");
                    }
                    self.depth -= 1;
                    self.out.push(')');
                    self.i += 1;
                }
                '.' => {
                    self.out.push_str(r"[^\x{A}\x{D}\x{2028}\x{2029}]");
                    self.i += 1;
                }
                '^' => {
                    self.out.push_str(r"\A");
                    self.i += 1;
                }
                '$' => {
                    self.out.push_str(r"\z");
                    self.i += 1;
                }
                '|' | '*' | '+' | '?' => {
                    self.out.push(ch);
                    self.i += 1;
                }
                '{' => self.brace()?,
                _ => {
                    // Annex B: a lone ']' or '}' is a literal.
                    push_literal(&mut self.out, ch);
                    self.i += 1;
                }
            }
        }
        if self.depth != 0 {
            return err("unclosed group");
        }
        Ok(())
    }

    /// `{n}`, `{n,}`, `{n,m}` are quantifiers; anything else is a literal brace (Annex B).
    fn brace(&mut self) -> Result<(), PatternError> {
        let start = self.i;
        let mut j = self.i + 1;
        let mut lo = String::new();
        while let Some(d) = self.c.get(j).filter(|d| d.is_ascii_digit()) {
            lo.push(*d);
            j += 1;
        }
        let mut hi: Option<String> = None;
        if !lo.is_empty() && self.c.get(j) == Some(&',') {
            j += 1;
            let mut h = String::new();
            while let Some(d) = self.c.get(j).filter(|d| d.is_ascii_digit()) {
                h.push(*d);
                j += 1;
            }
            hi = Some(h);
        }
        if lo.is_empty() || self.c.get(j) != Some(&'}') {
            push_literal(&mut self.out, '{');
            self.i = start + 1;
            return Ok(());
        }
        let parse = |s: &str| s.parse::<u32>().ok().filter(|n| *n <= 10_000);
        let Some(lo_n) = parse(&lo) else {
            return err("repetition count too large");
        };
        match &hi {
            Some(h) if !h.is_empty() => match parse(h) {
                Some(hi_n) if hi_n >= lo_n => {}
                Some(_) => return err("numbers out of order in {} quantifier"),
                None => return err("repetition count too large"),
            },
            _ => {}
        }
        self.out.push('{');
        self.out.push_str(&lo);
        if let Some(h) = hi {
            self.out.push(',');
            self.out.push_str(&h);
        }
        self.out.push('}');
        self.i = j + 1;
        Ok(())
    }

    fn group_open(&mut self) -> Result<(), PatternError> {
        self.depth += 1;
        if self.peek(1) != Some('?') {
            self.out.push('(');
            self.i += 1;
            return Ok(());
        }
        let two: String = self.c[self.i..].iter().take(4).collect();
        for prefix in ["(?:", "(?=", "(?!", "(?<=", "(?<!"] {
            if two.starts_with(prefix) {
                self.out.push_str(prefix);
                self.i += prefix.chars().count();
                return Ok(());
            }
        }
        if two.starts_with("(?<") {
            // Named group: (?<name>
            self.i += 3;
            let name = self.group_name()?;
            self.out.push_str("(?<");
            self.out.push_str(&name);
            self.out.push('>');
            return Ok(());
        }
        err("unsupported group syntax")
    }

    fn group_name(&mut self) -> Result<String, PatternError> {
        let mut name = String::new();
        loop {
            match self.peek(0) {
                Some('>') => {
                    self.i += 1;
                    break;
                }
                Some(ch) if ch.is_ascii_alphanumeric() || ch == '_' => {
                    name.push(ch);
                    self.i += 1;
                }
                _ => return err("invalid group name"),
            }
        }
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return err("invalid group name");
        }
        Ok(name)
    }

    fn hex(&mut self, n: usize) -> Option<u32> {
        let s: String = self.c.get(self.i..self.i + n)?.iter().collect();
        if s.len() != n || !s.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let v = u32::from_str_radix(&s, 16).ok()?;
        self.i += n;
        Some(v)
    }

    /// A character escape common to both contexts, with `self.i` after the backslash.
    /// Returns the code point, or `None` when the escape is not a character escape.
    fn char_escape(&mut self) -> Result<Option<char>, PatternError> {
        let Some(e) = self.peek(0) else {
            return err("pattern ends with a backslash");
        };
        let simple = match e {
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{B}'),
            'f' => Some('\u{C}'),
            '0' if !self.peek(1).is_some_and(|d| d.is_ascii_digit()) => Some('\0'),
            _ => None,
        };
        if let Some(ch) = simple {
            self.i += 1;
            return Ok(Some(ch));
        }
        match e {
            'c' => match self.peek(1) {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.i += 2;
                    Ok(char::from_u32(l as u32 % 32))
                }
                _ => err(r"invalid \c escape"),
            },
            'x' => {
                self.i += 1;
                match self.hex(2).and_then(char::from_u32) {
                    Some(ch) => Ok(Some(ch)),
                    None => err(r"invalid \x escape"),
                }
            }
            'u' => {
                self.i += 1;
                if self.peek(0) == Some('{') {
                    self.i += 1;
                    let mut v: u32 = 0;
                    let mut n = 0;
                    while let Some(d) = self.peek(0).and_then(|d| d.to_digit(16)) {
                        v = v.saturating_mul(16).saturating_add(d);
                        n += 1;
                        self.i += 1;
                    }
                    if n == 0 || self.peek(0) != Some('}') {
                        return err(r"invalid \u{...} escape");
                    }
                    self.i += 1;
                    return match char::from_u32(v) {
                        Some(ch) => Ok(Some(ch)),
                        None => err(r"\u{...} is not a Unicode scalar value"),
                    };
                }
                let Some(hi) = self.hex(4) else {
                    return err(r"invalid \u escape");
                };
                if (0xD800..0xDC00).contains(&hi) {
                    // A surrogate pair written as two escapes.
                    if self.peek(0) == Some('\\') && self.peek(1) == Some('u') {
                        let save = self.i;
                        self.i += 2;
                        if let Some(lo) = self.hex(4).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                            let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            return Ok(char::from_u32(cp));
                        }
                        self.i = save;
                    }
                    return err("lone surrogate escape");
                }
                match char::from_u32(hi) {
                    Some(ch) => Ok(Some(ch)),
                    None => err("lone surrogate escape"),
                }
            }
            _ if !e.is_ascii_alphanumeric() => {
                // Identity escape of a syntax character, '/', or other punctuation.
                self.i += 1;
                Ok(Some(e))
            }
            _ => Ok(None),
        }
    }

    fn escape_outside(&mut self) -> Result<(), PatternError> {
        self.i += 1;
        let Some(e) = self.peek(0) else {
            return err("pattern ends with a backslash");
        };
        let class = match e {
            'd' => Some("[0-9]".to_owned()),
            'D' => Some("[^0-9]".to_owned()),
            'w' => Some(format!("[{WORD}]")),
            'W' => Some(format!("[^{WORD}]")),
            's' => Some(format!("[{SPACE}]")),
            'S' => Some(format!("[^{SPACE}]")),
            'b' => Some(format!(
                "(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))"
            )),
            'B' => Some(format!(
                "(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))"
            )),
            _ => None,
        };
        if let Some(c) = class {
            self.out.push_str(&c);
            self.i += 1;
            return Ok(());
        }
        if e.is_ascii_digit() && e != '0' {
            let mut n = String::new();
            while let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                n.push(d);
                self.i += 1;
            }
            // Wrap so a following digit is not read as part of the reference.
            self.out.push_str(&format!("(?:\\{n})"));
            return Ok(());
        }
        if e == 'k' && self.peek(1) == Some('<') {
            self.i += 2;
            let name = self.group_name()?;
            self.out.push_str(&format!("(?:\\k<{name}>)"));
            return Ok(());
        }
        if (e == 'p' || e == 'P') && self.peek(1) == Some('{') {
            let prop = self.property()?;
            self.out.push_str(&prop);
            return Ok(());
        }
        match self.char_escape()? {
            Some(ch) => {
                push_literal(&mut self.out, ch);
                Ok(())
            }
            None => err(format!("unsupported escape \\{e}")),
        }
    }

    /// `\p{...}` / `\P{...}`, with `self.i` on the `p`. Property names are passed through
    /// after checking they contain only name characters.
    fn property(&mut self) -> Result<String, PatternError> {
        let p = self.peek(0).unwrap_or('p');
        self.i += 2;
        let mut name = String::new();
        loop {
            match self.peek(0) {
                Some('}') => {
                    self.i += 1;
                    break;
                }
                Some(ch) if ch.is_ascii_alphanumeric() || ch == '_' || ch == '=' => {
                    name.push(ch);
                    self.i += 1;
                }
                _ => return err("invalid property escape"),
            }
        }
        if name.is_empty() {
            return err("invalid property escape");
        }
        Ok(format!("\\{p}{{{name}}}"))
    }

    fn class(&mut self) -> Result<(), PatternError> {
        self.i += 1;
        let negated = self.peek(0) == Some('^');
        if negated {
            self.i += 1;
        }
        if self.peek(0) == Some(']') {
            // ECMA: `[]` matches nothing, `[^]` matches any character.
            self.i += 1;
            self.out.push_str(if negated {
                "[\\x{0}-\\x{10FFFF}]"
            } else {
                "(?!)"
            });
            return Ok(());
        }
        // Items: single code points (for ranges) or pre-rendered sets.
        let mut body = String::new();
        let mut nested: Vec<String> = Vec::new();
        loop {
            let Some(ch) = self.peek(0) else {
                return err("unclosed character class");
            };
            if ch == ']' {
                self.i += 1;
                break;
            }
            let atom = self.class_atom()?;
            // Range `a-b`?
            if let ClassAtom::Char(lo) = atom
                && self.peek(0) == Some('-')
                && self.peek(1).is_some_and(|c| c != ']')
            {
                self.i += 1;
                match self.class_atom()? {
                    ClassAtom::Char(hi) => {
                        if hi < lo {
                            return err("range out of order in character class");
                        }
                        push_literal(&mut body, lo);
                        body.push('-');
                        push_literal(&mut body, hi);
                        continue;
                    }
                    ClassAtom::Set(_) | ClassAtom::Negated(_) => {
                        return err("character class escape used as a range bound");
                    }
                }
            }
            match atom {
                ClassAtom::Char(c) => push_literal(&mut body, c),
                ClassAtom::Set(s) => body.push_str(&s),
                ClassAtom::Negated(s) => nested.push(format!("[^{s}]")),
            }
        }
        self.out.push('[');
        if negated {
            self.out.push('^');
        }
        if body.is_empty() && nested.is_empty() {
            // Cannot happen (handled above) but keep the class well-formed.
            self.out.push_str(r"\x{0}");
        }
        self.out.push_str(&body);
        for n in nested {
            self.out.push_str(&n);
        }
        self.out.push(']');
        Ok(())
    }

    fn class_atom(&mut self) -> Result<ClassAtom, PatternError> {
        let Some(ch) = self.peek(0) else {
            return err("unclosed character class");
        };
        if ch != '\\' {
            self.i += 1;
            return Ok(ClassAtom::Char(ch));
        }
        self.i += 1;
        let Some(e) = self.peek(0) else {
            return err("pattern ends with a backslash");
        };
        let set = match e {
            'd' => Some(ClassAtom::Set("0-9".to_owned())),
            'D' => Some(ClassAtom::Negated("0-9".to_owned())),
            'w' => Some(ClassAtom::Set(WORD.to_owned())),
            'W' => Some(ClassAtom::Negated(WORD.to_owned())),
            's' => Some(ClassAtom::Set(SPACE.to_owned())),
            'S' => Some(ClassAtom::Negated(SPACE.to_owned())),
            'b' => Some(ClassAtom::Char('\u{8}')),
            '-' => Some(ClassAtom::Char('-')),
            _ => None,
        };
        if let Some(s) = set {
            self.i += 1;
            return Ok(s);
        }
        if (e == 'p' || e == 'P') && self.peek(1) == Some('{') {
            let prop = self.property()?;
            return Ok(ClassAtom::Set(prop));
        }
        match self.char_escape()? {
            Some(c) => Ok(ClassAtom::Char(c)),
            None => err(format!("unsupported escape \\{e} in character class")),
        }
    }
}

enum ClassAtom {
    Char(char),
    Set(String),
    Negated(String),
}

#[cfg(test)]
#[path = "pattern_tests.rs"]
mod tests;
