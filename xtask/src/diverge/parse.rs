//! The PTX parsing of the divergence check: a module's text split into its functions
//! and their statements ([`parse_functions`]), a body's declarations into its
//! [`Values`] and its statements into instructions ([`Inst`]) and labels, and the
//! text-splitting helpers (operands, identifiers, words, labels).

use std::collections::HashMap;

use super::inst::{Inst, Operand, Rule};
use super::{Level, Values};

/// Opcodes (first `.`-component) without a destination operand: their registers are
/// all read (stores, reductions to memory, control flow, barriers but `.red`, fences).
const NO_DESTINATION_OPCODES: [&str; 20] = [
    "bra",
    "brx",
    "ret",
    "exit",
    "trap",
    "bar",
    "barrier",
    "membar",
    "fence",
    "nanosleep",
    "griddepcontrol",
    "call",
    "pmevent",
    "setmaxnreg",
    "st",
    "red",
    "cp",
    "prefetch",
    "prefetchu",
    "sust",
];

/// A statement of a function body: an instruction, a label or a directive.
pub(super) struct Statement<'a> {
    /// The 1-based line of the statement in the PTX text.
    line: usize,
    /// The statement, trimmed, without its `;`.
    pub(super) text: &'a str,
    /// The innermost `{ }` scope the statement is in: 0 for the function's own, a
    /// number per nested (inline-asm) scope otherwise.
    scope: usize,
}

/// A `.entry` or `.func` with a body, as parsed from the PTX text.
pub(super) struct Function<'a> {
    /// `true` for an `.entry` (a kernel), `false` for a `.func`.
    pub(super) is_entry: bool,
    /// The function's name.
    pub(super) name: String,
    /// The names of the parameters declared in the function's header.
    params: Vec<String>,
    /// The body's statements.
    pub(super) body: Vec<Statement<'a>>,
}

/// A function's header seen, its body not yet opened.
struct PendingHeader {
    /// `true` for an `.entry`.
    is_entry: bool,
    /// The function's name.
    name: String,
    /// The header text so far (declaration, parameter list, performance directives).
    text: String,
}

/// The state of [`parse_functions`] between two pieces of text.
#[derive(Default)]
struct Parser<'a> {
    /// The functions whose body is closed.
    functions: Vec<Function<'a>>,
    /// The header of the function whose body comes next.
    pending: Option<PendingHeader>,
    /// The function whose body is open.
    current: Option<Function<'a>>,
    /// The open scopes: 0 for the function body, then one number per nested scope.
    scopes: Vec<usize>,
    /// The number of nested scopes opened so far.
    scope_count: usize,
}

impl<'a> Parser<'a> {
    /// Takes one piece of a line (`line` 1-based): a statement, or part of one, between
    /// two `;` (`terminated` when a `;` follows), possibly after `{` or `}`.
    fn piece(&mut self, line: usize, piece: &'a str, terminated: bool) {
        let mut text = piece.trim_ascii();
        // Leading braces open and close scopes: the function body or an inline-asm
        // scope. A `{` after the opcode (a vector operand) is not at the start.
        while let Some(c) = text.chars().next().filter(|c| *c == '{' || *c == '}') {
            text = text[1..].trim_ascii_start();
            if c == '}' {
                self.scopes.pop();
                if self.scopes.is_empty() {
                    self.functions.extend(self.current.take());
                }
            } else if !self.scopes.is_empty() {
                self.scope_count += 1;
                self.scopes.push(self.scope_count);
            } else {
                if let Some(header) = self.pending.take() {
                    self.current = Some(Function {
                        is_entry: header.is_entry,
                        params: header_params(&header.text),
                        name: header.name,
                        body: Vec::new(),
                    });
                }
                self.scopes.push(0);
            }
        }
        if let Some(function) = self.current.as_mut() {
            if !text.is_empty() {
                let scope = self.scopes.last().copied().unwrap_or(0);
                function.body.push(Statement { line, text, scope });
            }
        } else if self.scopes.is_empty() {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            let keyword = [".entry", ".func"].into_iter().find(|k| tokens.contains(k));
            if let Some(keyword) = keyword {
                let name = crate::lint::function_name(text, keyword);
                self.pending = name.map(|name| PendingHeader {
                    is_entry: keyword == ".entry",
                    name,
                    text: String::new(),
                });
            }
            if let Some(header) = self.pending.as_mut() {
                header.text.push_str(text);
                header.text.push(' ');
            }
            // A `;` before the body: a declaration without one.
            if terminated {
                self.pending = None;
            }
        }
    }
}

/// Splits a PTX module into its function bodies. A declaration without a body (a
/// `.extern .func` or a prototype, ended by `;`) is skipped.
pub(super) fn parse_functions(ptx: &str) -> Vec<Function<'_>> {
    let mut parser = Parser::default();
    for (index, raw) in ptx.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("");
        // Outside any function, a `{` ends the header before it (`.entry k() {`).
        let at_module_level = parser.current.is_none() && parser.scopes.is_empty();
        let split = match line.find('{') {
            Some(at) if at_module_level => at,
            _ => line.len(),
        };
        for part in [&line[..split], &line[split..]] {
            let pieces: Vec<&str> = part.split(';').collect();
            for (i, piece) in pieces.iter().enumerate() {
                parser.piece(index + 1, piece, i + 1 < pieces.len());
            }
        }
    }
    parser.functions
}

/// The parameter names declared in a function header: the last word of each `.param`
/// declaration, without an array size (`.param .align 8 .b8 k_param_0[72]` gives
/// `k_param_0`). A `.func`'s return parameters are included.
pub(super) fn header_params(header: &str) -> Vec<String> {
    header
        .split(".param")
        .skip(1)
        .filter_map(|decl| {
            let decl = decl.split([',', ')']).next().unwrap_or("");
            let last = decl.split_whitespace().last()?;
            let name = last.split('[').next().unwrap_or("");
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// The identifiers of an operand text: registers (`%r5`, `p`), special registers
/// (`%tid`, its `.x` component dropped) and symbols; numbers and `_` are skipped.
pub(super) fn identifiers(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' || b.is_ascii_alphabetic() || b == b'_' || b == b'$' {
            let start = i;
            i += 1;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            let name = &text[start..i];
            // The component of a special register: `%tid.x`.
            if b == b'%'
                && i + 1 < bytes.len()
                && bytes[i] == b'.'
                && matches!(bytes[i + 1], b'x' | b'y' | b'z')
                && (i + 2 >= bytes.len() || !word(bytes[i + 2]))
            {
                i += 2;
            }
            if name != "_" {
                names.push(name);
            }
        } else if b.is_ascii_digit() {
            // Immediates: `42`, `0x1F`, `0f3F800000`.
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    names
}

/// Splits an operand list at the commas outside `{}`, `[]` and `()`.
pub(super) fn split_operands(text: &str) -> Vec<&str> {
    let mut operands = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    // Bytes, not chars: every delimiter is ASCII, so the slices stay on char boundaries.
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => depth -= 1,
            b',' if depth == 0 => {
                operands.push(text[start..i].trim_ascii());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim_ascii();
    if !last.is_empty() {
        operands.push(last);
    }
    operands
}

/// Splits `text` at its first space or tab: (first word, the rest trimmed).
fn split_word(text: &str) -> (&str, &str) {
    match text.bytes().position(|b| b == b' ' || b == b'\t') {
        Some(at) => (&text[..at], text[at + 1..].trim_ascii_start()),
        None => (text, ""),
    }
}

/// The label defined at the start of a statement (`$L__BB27_42:` gives `$L__BB27_42`)
/// and the rest of the statement.
pub(super) fn split_label(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let label = &text[..colon];
    let is_label = !label.is_empty()
        && !text[colon + 1..].starts_with(':')
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
    is_label.then(|| (label, text[colon + 1..].trim_ascii()))
}

impl Function<'_> {
    /// Collects the body's declarations: registers (`.reg`, by scope) and the
    /// thread-dependent symbols (a `.func`'s parameters, `.param` of calls, `.local`).
    pub(super) fn declarations(&self) -> Values<'_> {
        let mut values = Values {
            ranges: Vec::new(),
            named: HashMap::new(),
            others: HashMap::new(),
            divergent_symbols: Vec::new(),
            levels: Vec::new(),
        };
        if !self.is_entry {
            values
                .divergent_symbols
                .extend(self.params.iter().map(String::as_str));
        }
        for statement in &self.body {
            let text = statement.text;
            let (directive, _) = split_word(text);
            if !matches!(directive, ".reg" | ".param" | ".local") {
                continue;
            }
            for decl in text[directive.len()..].split(',') {
                let Some(last) = decl.split_whitespace().last() else {
                    continue;
                };
                let (name, count) = match last.split_once('<') {
                    Some((name, count)) => (name, count.trim_end_matches('>').parse().ok()),
                    None => (last.split('[').next().unwrap_or(""), None),
                };
                if name.is_empty() {
                    continue;
                }
                if directive != ".reg" {
                    values.divergent_symbols.push(name);
                } else if let Some(count) = count {
                    let first = values.levels.len();
                    values.levels.resize(first + count, Level::Uniform);
                    values.ranges.push((name, first, count));
                } else {
                    let id = values.new_id(Level::Uniform);
                    values.named.insert((statement.scope, name), id);
                }
            }
        }
        values.ranges.sort_by_key(|r| std::cmp::Reverse(r.0.len()));
        values
    }

    /// Parses the body's instructions and returns them with the labels, as (label,
    /// index of the first instruction after it).
    pub(super) fn instructions<'a>(
        &'a self,
        values: &mut Values<'a>,
    ) -> (Vec<Inst<'a>>, Vec<(&'a str, usize)>) {
        let mut insts = Vec::new();
        let mut labels = Vec::new();
        for statement in &self.body {
            let scope = statement.scope;
            let mut text = statement.text;
            while let Some((label, rest)) = split_label(text) {
                labels.push((label, insts.len()));
                text = rest;
            }
            if text.is_empty() || text.starts_with('.') {
                continue;
            }
            let (guard, rest) = match text.strip_prefix('@') {
                Some(g) => {
                    let (g, rest) = split_word(g);
                    (values.id(g.trim_start_matches('!'), scope), rest)
                }
                None => (None, text),
            };
            let (opcode, operands) = split_word(rest);
            let operands = split_operands(operands);
            let base = opcode.split('.').next().unwrap_or("");
            let is_reduction = opcode.split('.').any(|q| q == "red");
            // The first operand is the destination, unless the opcode has none or it is
            // an address (`st [a], v`).
            let has_destination = (!NO_DESTINATION_OPCODES.contains(&base)
                || (matches!(base, "bar" | "barrier") && is_reduction))
                && operands.first().is_some_and(|o| !o.starts_with('['));
            let operands = operands
                .iter()
                .map(|text| Operand {
                    text,
                    values: identifiers(text)
                        .into_iter()
                        .filter_map(|n| values.id(n, scope))
                        .collect(),
                })
                .collect();
            insts.push(Inst {
                line: statement.line,
                text,
                opcode,
                guard,
                operands,
                has_destination,
                rule: Rule::Reads,
            });
            let inst = insts.last_mut().expect("just pushed");
            inst.rule = inst.rule();
        }
        (insts, labels)
    }
}
