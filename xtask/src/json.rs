//! A minimal JSON reader, enough for cargo's `--message-format=json` lines and
//! `cargo metadata` output, so the xtask needs no dependency.

use std::fmt;

/// A parsed JSON value. Numbers keep their source text (the xtask never does
/// arithmetic on them).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as written in the source.
    Number(String),
    /// A string, unescaped.
    Str(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, its members in source order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object; `None` for a missing key or a non-object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string inside a `Str`, else `None`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean inside a `Bool`, else `None`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements of an `Array`; an empty slice for anything else.
    pub fn as_array(&self) -> &[Value] {
        match self {
            Value::Array(items) => items,
            _ => &[],
        }
    }
}

/// A JSON syntax error: what was expected and the byte offset where it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// Byte offset into the input.
    pub offset: usize,
    /// What went wrong.
    pub message: &'static str,
}

impl fmt::Display for ParseError {
    /// Formats as `invalid JSON at byte N: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.message)
    }
}

/// Parses one complete JSON document (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos != p.bytes.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(value)
}

/// Nesting deeper than this is refused, so a hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 256;

/// Recursive-descent parser state over the input bytes.
struct Parser<'a> {
    /// The whole input.
    bytes: &'a [u8],
    /// The next byte to read.
    pos: usize,
}

impl Parser<'_> {
    /// An error at the current position.
    fn error(&self, message: &'static str) -> ParseError {
        ParseError {
            offset: self.pos,
            message,
        }
    }

    /// Skips JSON whitespace.
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// Consumes `lit` if the input continues with it.
    fn eat(&mut self, lit: &str) -> bool {
        if self.bytes[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Parses any value at nesting depth `depth`.
    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.skip_ws();
        match self.bytes.get(self.pos) {
            None => Err(self.error("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::Str),
            Some(b't') if self.eat("true") => Ok(Value::Bool(true)),
            Some(b'f') if self.eat("false") => Ok(Value::Bool(false)),
            Some(b'n') if self.eat("null") => Ok(Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    /// Parses an object; the current byte is `{`.
    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        let mut members = Vec::new();
        self.items("}", "expected ',' or '}'", |p| {
            p.skip_ws();
            if p.bytes.get(p.pos) != Some(&b'"') {
                return Err(p.error("expected a string key"));
            }
            let key = p.string()?;
            p.skip_ws();
            if !p.eat(":") {
                return Err(p.error("expected ':'"));
            }
            members.push((key, p.value(depth + 1)?));
            Ok(())
        })?;
        Ok(Value::Object(members))
    }

    /// Parses an array; the current byte is `[`.
    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        let mut items = Vec::new();
        self.items("]", "expected ',' or ']'", |p| {
            items.push(p.value(depth + 1)?);
            Ok(())
        })?;
        Ok(Value::Array(items))
    }

    /// Parses the comma-separated items of an object or array, each by `item`, up to and
    /// including `close`; the current byte is the opening one. `expected` is the error
    /// after an item followed by neither a comma nor `close`.
    fn items(
        &mut self,
        close: &str,
        expected: &'static str,
        mut item: impl FnMut(&mut Self) -> Result<(), ParseError>,
    ) -> Result<(), ParseError> {
        self.pos += 1;
        self.skip_ws();
        if self.eat(close) {
            return Ok(());
        }
        loop {
            item(self)?;
            self.skip_ws();
            if self.eat(",") {
                continue;
            }
            if self.eat(close) {
                return Ok(());
            }
            return Err(self.error(expected));
        }
    }

    /// Parses a number and keeps its text.
    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos])
            .map_err(|_| self.error("invalid number"))?;
        if text.parse::<f64>().is_err() {
            return Err(ParseError {
                offset: start,
                message: "invalid number",
            });
        }
        Ok(Value::Number(text.to_string()))
    }

    /// Reads the 4 hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("short \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("bad \\u escape"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.error("bad \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }

    /// Parses a string; the current byte is `"`.
    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error("unterminated string"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.bytes.get(self.pos) else {
                        return Err(self.error("unterminated escape"));
                    };
                    self.pos += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) && self.eat("\\u") {
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.error("bad surrogate pair"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.error("unknown escape")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("invalid UTF-8 in string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_cargo_artifact_line() {
        let line = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/a#0.1.0","target":{"kind":["lib"],"name":"mgpu_core","test":true},"profile":{"opt_level":"3","test":true},"filenames":["/w/target/release/deps/mgpu_core-1"],"executable":"/w/target/release/deps/mgpu_core-1","fresh":false}"#;
        let v = parse(line).unwrap();
        assert_eq!(
            v.get("reason").and_then(Value::as_str),
            Some("compiler-artifact")
        );
        let profile = v.get("profile").unwrap();
        assert_eq!(profile.get("test").and_then(Value::as_bool), Some(true));
        assert_eq!(
            v.get("target")
                .and_then(|t| t.get("name"))
                .and_then(Value::as_str),
            Some("mgpu_core")
        );
        assert_eq!(v.get("filenames").unwrap().as_array().len(), 1);
        assert_eq!(v.get("missing"), None);
    }

    #[test]
    fn parses_null_numbers_and_escapes() {
        let v = parse(r#" {"a": null, "b": -1.5e3, "c": "x\"\\\n\u00e9\ud83d\ude00", "d": []} "#)
            .unwrap();
        assert_eq!(v.get("a"), Some(&Value::Null));
        assert_eq!(v.get("b"), Some(&Value::Number("-1.5e3".into())));
        assert_eq!(
            v.get("c").and_then(Value::as_str),
            Some("x\"\\\n\u{e9}\u{1F600}")
        );
        assert!(v.get("d").unwrap().as_array().is_empty());
    }

    #[test]
    fn rejects_malformed_input() {
        for bad in [
            "",
            "{",
            "{\"a\" 1}",
            "[1,]",
            "\"abc",
            "tru",
            "{} x",
            "[1 2]",
        ] {
            assert!(parse(bad).is_err(), "accepted {bad:?}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(parse(&deep).is_err());
    }
}
