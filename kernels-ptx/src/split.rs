//! Splitting a family's PTX into one self-contained module per kernel entry, so the
//! runtime JIT-compiles only the entries a program launches (issue 16, item 6: a family
//! module such as `scan_sm_90.ptx`, 1.8 MB and 108 entries, took 6.4 s to JIT on an H100
//! with an empty cache; one entry of it takes a few tens of milliseconds).
//!
//! A PTX file is a sequence of module-scope items: the header (leading comments,
//! `.version`, `.target`, `.address_size`), declarations (`.extern`, `.global`, `.const`,
//! `.shared`, `.file`, `.func` prototypes and bodies, ...) and kernel entries
//! (`.visible .entry NAME(...) ... { ... }`). [`PtxIndex`] reads the items once, recording
//! each entry's byte range; an entry's module is then the header, every module-scope
//! declaration, in file order, and that entry's text. Comments between items (the
//! `// .globl NAME` lines) are dropped, except the one for the entry itself.
//!
//! The reader follows PTX's lexical structure rather than the exact layout rustc emits:
//! braces and parentheses are counted outside `//` and `/* */` comments and string
//! literals, an item ends at a `;` or at the `}` that closes its body, and the single-line
//! directives without a semicolon (`.version`, `.target`, `.address_size`, `.file`) end
//! at the end of their line. A declaration that referred to an *entry* (an initializer
//! holding a kernel's address) would not compile alone; the committed PTX has none.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// The header's directives.
const HEADER_DIRECTIVES: [&str; 3] = [".version", ".target", ".address_size"];

/// Directives that end at the end of their line (they take no semicolon).
const LINE_DIRECTIVES: [&str; 4] = [".version", ".target", ".address_size", ".file"];

/// One family's PTX text, indexed once: the module-scope prelude (header and
/// declarations) and each kernel entry's byte range, so [`PtxIndex::entry_module`] costs
/// one copy of the prelude and the entry.
///
/// The text may be borrowed (the committed PTX, `&'static str`) or owned (a file read at
/// run time).
///
/// # Examples
///
/// ```
/// use mgpu_kernels_ptx::PtxIndex;
/// let ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\n\
///            .visible .entry a(\n)\n{\n\tret;\n}\n\
///            .visible .entry b(\n)\n{\n\tret;\n}\n";
/// let index = PtxIndex::new(ptx);
/// assert_eq!(index.entries().collect::<Vec<_>>(), ["a", "b"]);
/// let b = index.entry_module("b").unwrap();
/// assert!(b.starts_with(".version 7.8\n.target sm_90\n.address_size 64\n"));
/// assert!(b.contains(".visible .entry b(") && !b.contains(".entry a("));
/// assert!(index.entry_module("c").is_none());
/// ```
#[derive(Debug, Clone)]
pub struct PtxIndex<'a> {
    text: Cow<'a, str>,
    /// The header and every module-scope declaration, ready to be followed by an entry.
    prelude: String,
    /// Each entry's name and text (from its first line through its closing brace's line),
    /// in file order.
    entries: Vec<(Range<usize>, Range<usize>)>,
    /// Entry name to its position in `entries`.
    by_name: HashMap<String, usize>,
}

impl<'a> PtxIndex<'a> {
    /// Reads `text` once: its header, its module-scope declarations and the byte range
    /// of each `.entry`. Never fails: text that is not PTX gives an index without entries
    /// (and the driver's JIT reports what is wrong with a malformed entry).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_kernels_ptx::PtxIndex;
    /// // Borrowed: the committed PTX of a family.
    /// let scan = PtxIndex::new(mgpu_kernels_ptx::ptx("scan", "sm_90").unwrap());
    /// assert!(scan.len() > 1);
    /// // Owned: a file read at run time.
    /// let owned = PtxIndex::new(String::from("not PTX at all"));
    /// assert!(owned.is_empty());
    /// ```
    pub fn new(text: impl Into<Cow<'a, str>>) -> PtxIndex<'a> {
        let text = text.into();
        let (prelude, entries) = scan_items(&text);
        let mut by_name = HashMap::with_capacity(entries.len());
        for (i, (name, _)) in entries.iter().enumerate() {
            // A repeated name (not valid PTX) keeps its first entry.
            by_name.entry(text[name.clone()].to_string()).or_insert(i);
        }
        PtxIndex {
            text,
            prelude,
            entries,
            by_name,
        }
    }

    /// The whole text the index was made from.
    ///
    /// # Examples
    ///
    /// ```
    /// let index = mgpu_kernels_ptx::PtxIndex::new(".version 7.0\n");
    /// assert_eq!(index.text(), ".version 7.0\n");
    /// ```
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names of the entries, in file order.
    ///
    /// # Examples
    ///
    /// ```
    /// let index = mgpu_kernels_ptx::ptx_index("partition", "sm_70").unwrap();
    /// assert!(index.entries().all(|e| e.starts_with("partition_")));
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries
            .iter()
            .map(|(name, _)| &self.text[name.clone()])
    }

    /// The number of entries.
    ///
    /// # Examples
    ///
    /// ```
    /// let index = mgpu_kernels_ptx::PtxIndex::new(".entry k()\n{\n\tret;\n}\n");
    /// assert_eq!(index.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the text has no entry.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(mgpu_kernels_ptx::PtxIndex::new("").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the text has an entry called `entry`.
    ///
    /// # Examples
    ///
    /// ```
    /// let index = mgpu_kernels_ptx::PtxIndex::new(".entry k()\n{\n\tret;\n}\n");
    /// assert!(index.contains("k") && !index.contains("j"));
    /// ```
    pub fn contains(&self, entry: &str) -> bool {
        self.by_name.contains_key(entry)
    }

    /// The text of the entry `entry` alone, from its `.entry` line through its closing
    /// brace (no header), or `None` when the text has no such entry.
    ///
    /// # Examples
    ///
    /// ```
    /// let index = mgpu_kernels_ptx::PtxIndex::new(".version 7.0\n.entry k()\n{\n\tret;\n}\n");
    /// assert_eq!(index.entry_text("k"), Some(".entry k()\n{\n\tret;\n}\n"));
    /// assert_eq!(index.entry_text("j"), None);
    /// ```
    pub fn entry_text(&self, entry: &str) -> Option<&str> {
        let &i = self.by_name.get(entry)?;
        Some(&self.text[self.entries[i].1.clone()])
    }

    /// A self-contained PTX module holding the header, every module-scope declaration and
    /// the entry `entry`, or `None` when the text has no such entry.
    ///
    /// # Examples
    ///
    /// ```
    /// let index = mgpu_kernels_ptx::ptx_index("scan", "sm_70").unwrap();
    /// let first = index.entries().next().unwrap();
    /// let module = index.entry_module(first).unwrap();
    /// assert_eq!(module.matches(".entry ").count(), 1);
    /// assert!(module.contains(".target sm_70"));
    /// ```
    pub fn entry_module(&self, entry: &str) -> Option<String> {
        let body = self.entry_text(entry)?;
        let globl = format!("\t// .globl\t{entry}\n");
        let mut module = String::with_capacity(self.prelude.len() + globl.len() + body.len() + 1);
        module.push_str(&self.prelude);
        module.push_str(&globl);
        module.push_str(body);
        if !module.ends_with('\n') {
            module.push('\n');
        }
        Some(module)
    }
}

/// A self-contained PTX module with the header of `ptx`, every module-scope declaration
/// of it and its entry `entry`; `None` when `ptx` has no entry of that name.
///
/// This indexes `ptx` on every call; to take several entries out of one text, make a
/// [`PtxIndex`] once, and for the committed PTX use [`ptx_entry`](crate::ptx_entry),
/// whose index is kept.
///
/// # Examples
///
/// ```
/// let ptx = "// a comment\n.version 7.8\n.target sm_90\n.address_size 64\n\n\
///            .extern .shared .align 16 .b8 smem[];\n\n\
///            \t// .globl\tone\n.visible .entry one(\n)\n{\n\tret;\n}\n\
///            \t// .globl\ttwo\n.visible .entry two(\n)\n{\n\tret;\n}\n";
/// let two = mgpu_kernels_ptx::entry_module(ptx, "two").unwrap();
/// assert!(two.contains(".extern .shared .align 16 .b8 smem[];"));
/// assert!(two.contains(".visible .entry two(") && !two.contains("entry one"));
/// assert_eq!(mgpu_kernels_ptx::entry_module(ptx, "three"), None);
/// ```
pub fn entry_module(ptx: &str, entry: &str) -> Option<String> {
    PtxIndex::new(ptx).entry_module(entry)
}

/// Lexical state carried from one line to the next.
#[derive(Default)]
struct Lexer {
    in_block_comment: bool,
}

/// What one line holds outside comments and strings.
struct LineCode {
    /// Change of `{`/`}` depth and of `(`/`)` depth.
    braces: i64,
    parens: i64,
    /// Whether the line opens a brace.
    opens_brace: bool,
    /// The last character of code (outside comments), if any.
    last: Option<char>,
    /// Whether the line holds any code at all.
    has_code: bool,
}

impl Lexer {
    fn line(&mut self, line: &str) -> LineCode {
        let mut code = LineCode {
            braces: 0,
            parens: 0,
            opens_brace: false,
            last: None,
            has_code: false,
        };
        let mut chars = line.chars().peekable();
        let mut in_string = false;
        while let Some(c) = chars.next() {
            if self.in_block_comment {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    self.in_block_comment = false;
                }
                continue;
            }
            if in_string {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '/' if chars.peek() == Some(&'/') => break,
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    self.in_block_comment = true;
                    continue;
                }
                '"' => in_string = true,
                '{' => {
                    code.braces += 1;
                    code.opens_brace = true;
                }
                '}' => code.braces -= 1,
                '(' => code.parens += 1,
                ')' => code.parens -= 1,
                _ => {}
            }
            if !c.is_whitespace() {
                code.last = Some(c);
                code.has_code = true;
            }
        }
        code
    }
}

/// The kind of a module-scope item.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `.version`, `.target`, `.address_size` and the comments before them.
    Header,
    /// Anything else at module scope that is not an entry.
    Declaration,
    /// A kernel entry with its body.
    Entry,
}

/// The name of the entry an item's first line declares, if it declares one: the token
/// after `.entry`, when only linkage directives come before it.
fn entry_name(first_line: &str) -> Option<Range<usize>> {
    let mut offset = 0;
    let mut rest = first_line;
    loop {
        let trimmed = rest.trim_start();
        offset += rest.len() - trimmed.len();
        let end = trimmed
            .find(|c: char| c.is_whitespace() || c == '(')
            .unwrap_or(trimmed.len());
        let token = &trimmed[..end];
        match token {
            ".entry" => {
                let after = &trimmed[end..];
                let name_start = offset + end + (after.len() - after.trim_start().len());
                let name = &first_line[name_start..];
                let len = name
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '%'))
                    .unwrap_or(name.len());
                return (len > 0).then(|| name_start..name_start + len);
            }
            ".visible" | ".weak" | ".extern" | ".common" => {
                offset += end;
                rest = &trimmed[end..];
            }
            _ => return None,
        }
    }
}

/// Each entry's (name, text) byte ranges, in file order.
type Entries = Vec<(Range<usize>, Range<usize>)>;

/// A module-scope item being read.
struct Open {
    kind: Kind,
    /// Byte offset of its first line, and that line's range.
    start: usize,
    first: Range<usize>,
    /// `{`/`}` and `(`/`)` depth so far, and whether a brace has opened.
    braces: i64,
    parens: i64,
    opened: bool,
}

/// What [`scan_items`] collects.
#[derive(Default)]
struct Items {
    header: String,
    declarations: String,
    entries: Entries,
}

impl Items {
    /// Files a finished item: header lines and declarations are appended to theirs (each
    /// ending with a newline), an entry recorded with its name.
    fn finish(&mut self, text: &str, open: &Open, end: usize) {
        let item = &text[open.start..end];
        let to = match open.kind {
            Kind::Entry => {
                let name = entry_name(&text[open.first.clone()]).expect("an entry line");
                let at = open.first.start;
                self.entries
                    .push((at + name.start..at + name.end, open.start..end));
                return;
            }
            Kind::Header => &mut self.header,
            Kind::Declaration => &mut self.declarations,
        };
        to.push_str(item);
        if !item.ends_with('\n') {
            to.push('\n');
        }
    }
}

/// Reads `text`'s module-scope items: returns the prelude (the header, then the
/// declarations, each group followed by a blank line) and each entry's ranges.
fn scan_items(text: &str) -> (String, Entries) {
    let mut lexer = Lexer::default();
    let mut items = Items::default();
    let mut seen_directive = false;
    let mut open: Option<Open> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let code = lexer.line(line);
        let item = match open.take() {
            Some(mut o) => {
                o.braces += code.braces;
                o.parens += code.parens;
                o.opened |= code.opens_brace;
                o
            }
            None => {
                if !code.has_code {
                    // A blank line or a comment at module scope: the comments before the
                    // first directive are the header's, the rest are dropped.
                    if !seen_directive && !line.trim().is_empty() {
                        items.header.push_str(line);
                    }
                    continue;
                }
                seen_directive = true;
                let trimmed = line.trim_start();
                let kind = if entry_name(line).is_some() {
                    Kind::Entry
                } else if HEADER_DIRECTIVES.iter().any(|d| trimmed.starts_with(d)) {
                    Kind::Header
                } else {
                    Kind::Declaration
                };
                Open {
                    kind,
                    start,
                    first: start..at,
                    braces: code.braces,
                    parens: code.parens,
                    opened: code.opens_brace,
                }
            }
        };
        let first_line = text[item.first.clone()].trim_start();
        let done = if LINE_DIRECTIVES.iter().any(|d| first_line.starts_with(d)) {
            true
        } else if item.braces > 0 || item.parens > 0 || !code.has_code {
            false
        } else if item.kind == Kind::Entry || first_line.contains(".func") {
            // A body ends at the brace that closes it; a prototype at its semicolon.
            if item.opened {
                code.last == Some('}')
            } else {
                code.last == Some(';')
            }
        } else {
            matches!(code.last, Some(';' | '}'))
        };
        if done {
            items.finish(text, &item, at);
        } else {
            open = Some(item);
        }
    }
    // An item the text ends inside of runs to the end.
    if let Some(item) = open {
        items.finish(text, &item, text.len());
    }
    let mut prelude = items.header;
    if !prelude.is_empty() {
        prelude.push('\n');
    }
    if !items.declarations.is_empty() {
        prelude.push_str(&items.declarations);
        prelude.push('\n');
    }
    (prelude, items.entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{families, ptx, ptx_entry, ptx_index, ARCHS};

    /// The module-scope lines of the committed PTX's header.
    fn header_lines(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| {
                l.starts_with(".version")
                    || l.starts_with(".target")
                    || l.starts_with(".address_size")
            })
            .collect()
    }

    fn braces_balance(text: &str) -> bool {
        let mut depth = 0i64;
        for c in text.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
        }
        depth == 0
    }

    #[test]
    fn every_committed_entry_splits_into_a_module_of_its_own() {
        for family in families() {
            for arch in ARCHS {
                let text = ptx(family, arch).unwrap();
                let index = ptx_index(family, arch).unwrap();
                let header = header_lines(text);
                assert_eq!(header.len(), 3, "{family} {arch}");
                // Every `.entry` of the file is indexed, once, in order.
                let in_file: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix(".visible .entry "))
                    .map(|l| l.trim_end_matches('('))
                    .collect();
                assert!(!in_file.is_empty(), "{family} {arch}");
                assert_eq!(
                    index.entries().collect::<Vec<_>>(),
                    in_file,
                    "{family} {arch}"
                );
                for entry in index.entries() {
                    let module = ptx_entry(family, arch, entry).unwrap();
                    let what = format!("{family} {arch} {entry}");
                    assert_eq!(module.matches(".entry").count(), 1, "{what}");
                    assert!(
                        module.contains(&format!(".visible .entry {entry}(")),
                        "{what}"
                    );
                    assert_eq!(header_lines(&module), header, "{what}");
                    assert!(module.starts_with("// mgpu: generated"), "{what}");
                    if module.contains("gpu_launch_sized_workgroup_mem") {
                        assert!(
                            module.contains(
                                "\n.extern .shared .align 16 .b8 gpu_launch_sized_workgroup_mem[];\n"
                            ),
                            "{what}"
                        );
                    }
                    assert!(braces_balance(&module), "{what}");
                    let body = index.entry_text(entry).unwrap();
                    assert!(body.trim_end().ends_with("\n}"), "{what}");
                    assert!(module.ends_with(body), "{what}");
                }
                // Outside the entries, every line is in the prelude, blank or a comment:
                // the entries and the prelude account for the whole file.
                let mut outside = String::new();
                let mut from = 0;
                for (_, body) in &index.entries {
                    outside.push_str(&text[from..body.start]);
                    from = body.end;
                }
                outside.push_str(&text[from..]);
                let prelude: Vec<&str> = index.prelude.lines().collect();
                for line in outside.lines() {
                    let t = line.trim();
                    assert!(
                        t.is_empty() || t.starts_with("//") || prelude.contains(&line),
                        "{family} {arch}: {line:?} is in no module"
                    );
                }
                assert_eq!(ptx_entry(family, arch, "no_such_entry"), None);
            }
        }
    }

    #[test]
    fn the_shared_declaration_is_kept_where_the_file_has_one() {
        for family in families() {
            for arch in ARCHS {
                let text = ptx(family, arch).unwrap();
                let declared = text.contains(".extern .shared");
                let index = ptx_index(family, arch).unwrap();
                assert_eq!(
                    index.prelude.contains(".extern .shared"),
                    declared,
                    "{family} {arch}"
                );
                assert!(!index.prelude.contains(".entry"), "{family} {arch}");
            }
        }
    }

    #[test]
    fn unknown_lookups_are_none() {
        assert_eq!(ptx_entry("no_such_family", "sm_90", "scan_x"), None);
        assert_eq!(ptx_entry("scan", "sm_80", "scan_x"), None);
        assert_eq!(ptx_entry("scan", "sm_90", ""), None);
        assert!(ptx_index("no_such_family", "sm_70").is_none());
        let index = PtxIndex::new("");
        assert!(index.is_empty());
        assert_eq!(index.entry_module("k"), None);
    }

    /// PTX written to exercise what rustc does not emit today: declarations with
    /// initializers across lines, braces in comments and strings, a `.func`, `.file`.
    const GENERAL: &str = r#"//
// Generated by hand
//

.version 8.0
.target sm_90
.address_size 64

.file 1 "src/{odd}.rs"
.global .align 4 .b8 table[8] = {1, 2, 3, 4,
    5, 6, 7, 8};
.const .align 8 .u64 limit = 100; // a { comment
/* a block comment with } braces
   over lines */
.shared .align 4 .b8 scratch[64];
.func (.param .b32 r) twice(
	.param .b32 x
)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [x];
	add.s32 %r1, %r1, %r1;
	st.param.b32 [r], %r1;
	ret;
}

	// .globl	first
.visible .entry first(
	.param .u64 first_param_0
)
.maxntid 128, 1, 1
{
	// begin inline asm
	{ .reg .pred p; }
	// end inline asm
	// a comment with a } brace
	ret;
}
	// .globl	second
.entry second()
{
	ret;

}
.weak .entry third() { ret; }
"#;

    #[test]
    fn general_ptx_keeps_declarations_and_splits_entries() {
        let index = PtxIndex::new(GENERAL);
        assert_eq!(
            index.entries().collect::<Vec<_>>(),
            ["first", "second", "third"]
        );
        for entry in ["first", "second", "third"] {
            let module = index.entry_module(entry).unwrap();
            assert_eq!(module.matches(".entry").count(), 1, "{entry}");
            assert!(
                module.starts_with("//\n// Generated by hand\n//\n"),
                "{entry}"
            );
            for line in [
                ".version 8.0",
                ".target sm_90",
                ".address_size 64",
                ".file 1 \"src/{odd}.rs\"",
                ".global .align 4 .b8 table[8] = {1, 2, 3, 4,\n    5, 6, 7, 8};",
                ".const .align 8 .u64 limit = 100; // a { comment",
                ".shared .align 4 .b8 scratch[64];",
                ".func (.param .b32 r) twice(",
                "\tst.param.b32 [r], %r1;\n\tret;\n}\n",
            ] {
                assert!(
                    module.contains(line),
                    "{entry}: {line:?} missing from\n{module}"
                );
            }
            assert!(!module.contains("block comment"), "{entry}");
        }
        let first = index.entry_text("first").unwrap();
        assert!(first.starts_with(".visible .entry first(\n"));
        assert!(first.ends_with("\tret;\n}\n"));
        assert!(first.contains("{ .reg .pred p; }"));
        assert_eq!(
            index.entry_text("second"),
            Some(".entry second()\n{\n\tret;\n\n}\n")
        );
        assert_eq!(
            index.entry_text("third"),
            Some(".weak .entry third() { ret; }\n")
        );
        assert_eq!(entry_module(GENERAL, "fourth"), None);
    }

    #[test]
    fn an_unterminated_entry_runs_to_the_end() {
        let index = PtxIndex::new(".version 7.0\n.entry k()\n{\n\tret;\n");
        assert_eq!(index.entry_text("k"), Some(".entry k()\n{\n\tret;\n"));
        assert!(index.entry_module("k").unwrap().ends_with("\tret;\n"));
    }

    #[test]
    fn entry_names_need_only_linkage_before_them() {
        assert_eq!(entry_name(".visible .entry k(").map(|r| r.len()), Some(1));
        assert_eq!(entry_name("  .entry   abc_1 ()").map(|r| r.len()), Some(5));
        assert_eq!(entry_name(".extern .func f();"), None);
        assert_eq!(entry_name("\tmov.u32 %r1, 0; // .entry x"), None);
        assert_eq!(entry_name(".entry"), None);
    }
}
