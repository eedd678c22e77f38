//! The divergent-barrier check of the PTX lint ([`crate::lint::lint_ptx`]): an *aligned*
//! CTA barrier (`bar.sync 0`, `barrier.sync.aligned`, ...) reached under a branch that can
//! diverge within the CTA.
//!
//! The PTX ISA requires every thread of the CTA to execute the same aligned barrier
//! instruction; in conditional code it may only be used where all threads of the CTA
//! evaluate the condition identically. rustc's inline `asm!` is not `convergent`, so
//! LLVM may duplicate an `asm!("bar.sync 0;")` into both arms of a branch on the warp
//! index, and the warps then wait at two different barriers (compute-sanitizer's
//! synccheck: "Divergent thread(s) in block").
//!
//! The method, a conservative divergence analysis of the PTX text per `.entry`/`.func`
//! body:
//!
//! 1. The body is split into instructions (an inline-asm scope `{ .reg .pred p; ...; }`
//!    on one line gives several, its registers local to it) and basic blocks (labels,
//!    `bra`, `ret`/`exit`/`trap`, fall-through).
//! 2. Immediate post-dominators, with a virtual exit after every `ret`/`exit`/`trap`
//!    (a block that cannot reach the exit, such as an infinite loop, has none).
//! 3. Each value (register) gets a [`Level`]: *uniform* (the same in every thread of
//!    the CTA), *lane-dependent* (a function of `%laneid` and uniform values, so the same
//!    in lane k of every warp) or *divergent* (anything else, such as `%tid`). A value is
//!    at least as varying as what its defining instructions read, their guard and the
//!    block they lie in; PTX registers are not SSA, so a register assigned in a
//!    divergent region (an arm of a thread-dependent branch, a loop with a
//!    thread-dependent exit) is divergent everywhere. Kernel parameters, immediates,
//!    symbol addresses, the CTA-uniform special registers of
//!    [`UNIFORM_SPECIAL_REGISTERS`] and plain loads from a uniform address are uniform:
//!    a shared-memory value broadcast after a barrier is uniform by construction.
//!    Divergent whatever they read: the other special registers, atomics, `activemask`,
//!    `match`, `redux`, `elect`, `mbarrier`, and `volatile`/`relaxed`/`acquire`/`mmio`/
//!    `local` loads (another thread's store may land between two threads' loads). Warp
//!    collectives of lane-dependent values: a full-warp `shfl.sync.idx` from a constant
//!    lane, and `vote.sync` with a uniform mask, give the same result in every warp
//!    (uniform); the other shuffles stay lane-dependent. The parameters of a `.func` (and
//!    the `.param` space of a call) depend on the caller, so they count as divergent.
//! 4. A conditional branch on a non-uniform predicate makes every block reachable from
//!    its successors without passing through its immediate post-dominator as varying as
//!    the predicate (this covers loops with a thread-dependent exit). Steps 3 and 4
//!    repeat to a fixpoint.
//! 5. Every aligned barrier in a non-uniform block, or guarded by a non-uniform
//!    predicate, is reported. `bar.warp.sync`, `barrier.sync` without `.aligned` and the
//!    cluster barriers (aligned per warp, not per CTA) are not CTA-aligned barriers.
//!
//! The analysis assumes CTAs of whole warps (every launch of the project uses a
//! multiple of 32 threads), as the lane-dependent level does: a warp broadcast reads a
//! lane that exists in every warp.

use std::collections::{HashMap, VecDeque};

/// Special registers that hold the same value for every thread of a CTA (without the
/// `%`, and without the `.x`/`.y`/`.z` component). The lane registers of
/// [`LANE_SPECIAL_REGISTERS`] are lane-dependent; every other special register
/// (`%tid`, `%warpid`, `%clock*`, `%smid`, `%globaltimer`, ... and any this list does
/// not know) counts as divergent.
pub const UNIFORM_SPECIAL_REGISTERS: [&str; 17] = [
    "ctaid",
    "nctaid",
    "ntid",
    "nwarpid",
    "nsmid",
    "gridid",
    "clusterid",
    "nclusterid",
    "cluster_ctaid",
    "cluster_nctaid",
    "cluster_ctarank",
    "cluster_nctarank",
    "is_explicit_cluster",
    "total_smem_size",
    "aggr_smem_size",
    "dynamic_smem_size",
    "current_graph_exec",
];

/// Special registers that are a function of the lane index alone (without the `%`).
pub const LANE_SPECIAL_REGISTERS: [&str; 6] = [
    "laneid",
    "lanemask_eq",
    "lanemask_le",
    "lanemask_lt",
    "lanemask_ge",
    "lanemask_gt",
];

/// Opcodes (first `.`-component) whose result may differ between the threads of a CTA
/// whatever their operands: atomics, `activemask` (reflects the scheduler's grouping),
/// match, redux, elect, the `mbarrier` waits and multimem reductions.
const DIVERGENT_OPCODES: [&str; 7] = [
    "atom",
    "activemask",
    "match",
    "redux",
    "elect",
    "mbarrier",
    "multimem",
];

/// Load qualifiers that make a load's result divergent even from a uniform address:
/// memory-model loads that may observe another thread's concurrent store, and
/// per-thread local memory.
const DIVERGENT_LOAD_QUALIFIERS: [&str; 5] = ["volatile", "relaxed", "acquire", "mmio", "local"];

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

/// How much a value, or which threads execute a block, may vary within a CTA (ordered
/// from least to most varying).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The same in every thread of the CTA; a block every thread executes alike.
    Uniform,
    /// A function of the lane index and uniform values, so the same in lane k of every
    /// warp (`%laneid`, a load at `base + lane`, an arm of `if lane < 2`).
    Lane,
    /// May differ between threads in any way (`%tid`, the warp index, atomics).
    Divergent,
}

/// Returns one message per aligned barrier of `ptx` that can be reached by only part of
/// a CTA's threads (empty when there is none). Messages start with `line N:` (1-based,
/// counted in `ptx`) and name the kernel (or device function) and the branch.
pub fn divergent_barriers(ptx: &str) -> Vec<String> {
    parse_functions(ptx)
        .iter()
        .flat_map(Function::divergent_barriers)
        .collect()
}

/// A statement of a function body: an instruction, a label or a directive.
struct Statement<'a> {
    /// The 1-based line of the statement in the PTX text.
    line: usize,
    /// The statement, trimmed, without its `;`.
    text: &'a str,
    /// The innermost `{ }` scope the statement is in: 0 for the function's own, a
    /// number per nested (inline-asm) scope otherwise.
    scope: usize,
}

/// A `.entry` or `.func` with a body, as parsed from the PTX text.
struct Function<'a> {
    /// `true` for an `.entry` (a kernel), `false` for a `.func`.
    is_entry: bool,
    /// The function's name.
    name: String,
    /// The names of the parameters declared in the function's header.
    params: Vec<String>,
    /// The body's statements.
    body: Vec<Statement<'a>>,
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
fn parse_functions(ptx: &str) -> Vec<Function<'_>> {
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
fn header_params(header: &str) -> Vec<String> {
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

/// One operand of an instruction.
struct Operand<'a> {
    /// The operand's text (`%r5`, `[%rd1+4]`, `31`).
    text: &'a str,
    /// The values (registers, special registers, divergent symbols) it names.
    values: Vec<usize>,
}

/// How the level of an instruction's result follows from what it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// As varying as the most varying value it reads (its guard included).
    Reads,
    /// Divergent whatever it reads (see [`DIVERGENT_OPCODES`] and
    /// [`DIVERGENT_LOAD_QUALIFIERS`]).
    Divergent,
    /// Uniform whatever it reads: the reduction of `bar.red` is the same in every thread.
    Uniform,
    /// `shfl.sync.mode.b32 d[|p], a, b, c, membermask`; `broadcast` when it reads one
    /// fixed lane of the whole warp ([`Inst::is_warp_broadcast`]).
    Shuffle {
        /// Whether every lane reads the same, fixed lane.
        broadcast: bool,
    },
    /// `vote.sync.mode.type d, {!}a, membermask`: over the whole warp.
    Vote,
}

/// One instruction of a function body.
struct Inst<'a> {
    /// The 1-based line of the instruction in the PTX text.
    line: usize,
    /// The instruction text (guard, opcode, operands).
    text: &'a str,
    /// The opcode with its qualifiers (`ld.shared.b32`).
    opcode: &'a str,
    /// The guard predicate (`@%p1` or `@!%p1`), when there is one.
    guard: Option<usize>,
    /// The operands, in order.
    operands: Vec<Operand<'a>>,
    /// Whether the first operand is a destination.
    has_destination: bool,
    /// How the level of its result follows from what it reads.
    rule: Rule,
}

impl Inst<'_> {
    /// The opcode without its qualifiers (`ld` for `ld.shared.b32`).
    fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or("")
    }

    /// Whether the opcode has the qualifier `q` (`shared` for `ld.shared.b32`).
    fn has_qualifier(&self, q: &str) -> bool {
        self.opcode.split('.').skip(1).any(|x| x == q)
    }

    /// The values the instruction writes.
    fn dests(&self) -> &[usize] {
        match self.operands.first() {
            Some(op) if self.has_destination => &op.values,
            _ => &[],
        }
    }

    /// The instruction text with its whitespace normalized, for messages.
    fn display(&self) -> String {
        self.text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Whether the instruction ends a basic block.
    fn is_terminator(&self) -> bool {
        matches!(self.base(), "bra" | "brx" | "ret" | "exit" | "trap")
    }

    /// Whether the instruction is an aligned CTA barrier: `bar.sync`, `bar.arrive`,
    /// `bar.red`, `bar.cta.*` and `barrier{.cta}.*.aligned`; not `bar.warp.sync`, not
    /// `barrier.sync` without `.aligned`, not the cluster barriers (aligned per warp).
    fn is_aligned_barrier(&self) -> bool {
        match self.base() {
            "bar" => !self.has_qualifier("warp"),
            "barrier" => self.has_qualifier("aligned") && !self.has_qualifier("cluster"),
            _ => false,
        }
    }

    /// The rule of an instruction, from its opcode (a shuffle not a broadcast yet: that
    /// needs the constants of the whole body).
    fn rule(&self) -> Rule {
        match self.base() {
            "bar" | "barrier" => Rule::Uniform,
            "shfl" => Rule::Shuffle { broadcast: false },
            "vote" => Rule::Vote,
            "ld" if DIVERGENT_LOAD_QUALIFIERS
                .iter()
                .any(|q| self.has_qualifier(q)) =>
            {
                Rule::Divergent
            }
            base if DIVERGENT_OPCODES.contains(&base) => Rule::Divergent,
            _ => Rule::Reads,
        }
    }

    /// The level of what the instruction writes, given the levels of the values; the
    /// block's own level is not included.
    fn result_level(&self, level: &[Level]) -> Level {
        let of = |op: &Operand| op.values.iter().map(|&v| level[v]).max();
        let of_operands = |skip: usize| {
            let levels = self.operands.iter().skip(skip).filter_map(of).max();
            levels.unwrap_or(Level::Uniform)
        };
        let guard = self.guard.map_or(Level::Uniform, |g| level[g]);
        let own = match self.rule {
            Rule::Reads => of_operands(usize::from(self.has_destination)),
            Rule::Divergent => Level::Divergent,
            Rule::Uniform => Level::Uniform,
            Rule::Shuffle { broadcast } => {
                let value = self.operands.get(1).and_then(of).unwrap_or(Level::Uniform);
                let control = of_operands(2);
                if value == Level::Divergent || control == Level::Divergent {
                    Level::Divergent
                } else if broadcast && control == Level::Uniform {
                    Level::Uniform
                } else {
                    Level::Lane
                }
            }
            // The same in every warp when the predicate is lane-dependent and the mask
            // uniform.
            Rule::Vote => match of_operands(1) {
                Level::Divergent => Level::Divergent,
                _ if self.operands.get(2).and_then(of) <= Some(Level::Uniform) => Level::Uniform,
                _ => Level::Lane,
            },
        };
        own.max(guard)
    }

    /// Whether a `shfl` reads one fixed lane of the whole warp: `.idx` with a constant
    /// lane `b` and a constant `c` whose segment mask (`c[12:8]`) is 0 and whose clamp
    /// (`c[4:0]`) is at least `b` (`shfl.sync.idx.b32 d, a, 0, 31, -1`).
    fn is_warp_broadcast(&self, constants: &[Option<i64>]) -> bool {
        let constant = |k: usize| {
            let op = self.operands.get(k)?;
            parse_integer(op.text).or_else(|| match op.values[..] {
                [v] => constants[v],
                _ => None,
            })
        };
        match (self.has_qualifier("idx"), constant(2), constant(3)) {
            (true, Some(b), Some(c)) => (c >> 8) & 0x1f == 0 && b & 0x1f <= c & 0x1f,
            _ => false,
        }
    }
}

/// An integer immediate (`31`, `-1`, `0x1f`), or `None`.
fn parse_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let digits = digits.strip_suffix('U').unwrap_or(digits);
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if negative { -value } else { value })
}

/// A basic block: a range of instructions and the blocks control may go to next.
struct Block {
    /// The block's instructions, indices into the function's instruction list.
    insts: std::ops::Range<usize>,
    /// Successor blocks; the virtual exit is the number of blocks.
    succs: Vec<usize>,
}

/// The values of a function body: registers, special registers and the `.param`
/// symbols that depend on the caller, numbered by ids.
struct Values<'a> {
    /// Register ranges (`.reg .b32 %r<276>;`): prefix, id of register 0, count; longest
    /// prefix first, so that `%rd` is tried before `%r`.
    ranges: Vec<(&'a str, usize, usize)>,
    /// Registers declared one by one (`.reg .pred p;`), by (scope, name): those of an
    /// inline-asm scope are local to it (a statement sees its innermost scope's and the
    /// function's).
    named: HashMap<(usize, &'a str), usize>,
    /// Special registers, divergent symbols and out-of-range registers met so far.
    others: HashMap<&'a str, usize>,
    /// Symbols whose value depends on the thread: a `.func`'s parameters, the `.param`
    /// space of a call and `.local` variables.
    divergent_symbols: Vec<&'a str>,
    /// The initial level of each value: uniform for registers, that of each special
    /// register, divergent for the divergent symbols.
    levels: Vec<Level>,
}

impl<'a> Values<'a> {
    /// The id of `name` as written in `scope` (a register, special register or
    /// divergent symbol), or `None` for a uniform symbol (a kernel parameter, a global,
    /// a label).
    fn id(&mut self, name: &'a str, scope: usize) -> Option<usize> {
        for &(prefix, first, count) in &self.ranges {
            if let Some(digits) = name.strip_prefix(prefix) {
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    match digits.parse::<usize>() {
                        Ok(n) if n < count => return Some(first + n),
                        _ => break,
                    }
                }
            }
        }
        if !self.named.is_empty() {
            let local = self.named.get(&(scope, name));
            if let Some(&id) = local.or_else(|| self.named.get(&(0, name))) {
                return Some(id);
            }
        }
        if let Some(&id) = self.others.get(name) {
            return Some(id);
        }
        let level = if let Some(special) = name.strip_prefix('%') {
            // A register past its declared range counts as a register all the same.
            let is_register = self.ranges.iter().any(|r| {
                let digits = name.strip_prefix(r.0).unwrap_or("");
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            });
            if is_register || UNIFORM_SPECIAL_REGISTERS.contains(&special) {
                Level::Uniform
            } else if LANE_SPECIAL_REGISTERS.contains(&special) {
                Level::Lane
            } else {
                Level::Divergent
            }
        } else if self.divergent_symbols.contains(&name) {
            Level::Divergent
        } else {
            return None;
        };
        let id = self.new_id(level);
        self.others.insert(name, id);
        Some(id)
    }

    /// A new value id with the initial level `level`.
    fn new_id(&mut self, level: Level) -> usize {
        self.levels.push(level);
        self.levels.len() - 1
    }
}

/// The identifiers of an operand text: registers (`%r5`, `p`), special registers
/// (`%tid`, its `.x` component dropped) and symbols; numbers and `_` are skipped.
fn identifiers(text: &str) -> Vec<&str> {
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
fn split_operands(text: &str) -> Vec<&str> {
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
fn split_label(text: &str) -> Option<(&str, &str)> {
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
    /// Runs the analysis of the module docs over the body and returns one message per
    /// aligned barrier in non-uniform control flow.
    fn divergent_barriers(&self) -> Vec<String> {
        // Nothing to report without a barrier (a cheap test before the analysis).
        if !self.body.iter().any(|s| s.text.contains("bar")) {
            return Vec::new();
        }
        let mut values = self.declarations();
        let (insts, labels) = self.instructions(&mut values);
        let blocks = basic_blocks(&insts, &labels);
        let exit = blocks.len();
        let ipdom = post_dominators(&blocks);
        let constants = constants(&insts, values.levels.len());
        let mut insts = insts;
        for inst in &mut insts {
            if let Rule::Shuffle { .. } = inst.rule {
                let broadcast = inst.is_warp_broadcast(&constants);
                inst.rule = Rule::Shuffle { broadcast };
            }
        }
        let mut block_of = vec![0; insts.len()];
        for (b, block) in blocks.iter().enumerate() {
            for i in block.insts.clone() {
                block_of[i] = b;
            }
        }

        // The values deciding each block's conditional terminator: its guard, and the
        // index operand of a `brx.idx`.
        let conditions: Vec<Vec<usize>> = blocks
            .iter()
            .map(
                |block| match block.insts.clone().last().map(|i| &insts[i]) {
                    Some(t) if t.is_terminator() && block.succs.len() > 1 => {
                        let mut c: Vec<usize> = t.guard.into_iter().collect();
                        if t.base() == "brx" {
                            c.extend(t.operands.iter().take(1).flat_map(|o| &o.values));
                        }
                        c
                    }
                    _ => Vec::new(),
                },
            )
            .collect();

        let mut level = values.levels;
        let mut block_level = vec![Level::Uniform; blocks.len()];
        // Per block, the branch (instruction index) that gave it its level.
        let mut cause: Vec<Option<usize>> = vec![None; blocks.len()];
        // Per block, the level of its branch whose region is marked already.
        let mut branch_done = vec![Level::Uniform; blocks.len()];
        loop {
            // Step 3: values, to a fixpoint given the block levels.
            loop {
                let mut changed = false;
                for (i, inst) in insts.iter().enumerate() {
                    let result = inst.result_level(&level).max(block_level[block_of[i]]);
                    for &d in inst.dests() {
                        if level[d] < result {
                            level[d] = result;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            // Step 4: the regions of the branches on non-uniform conditions.
            let mut changed = false;
            for b in 0..blocks.len() {
                let branch_level = conditions[b].iter().map(|&v| level[v]).max();
                let branch_level = branch_level.unwrap_or(Level::Uniform);
                if branch_level <= branch_done[b] {
                    continue;
                }
                branch_done[b] = branch_level;
                let branch = blocks[b].insts.end - 1;
                let stop = ipdom[b].filter(|&p| p != exit);
                let mut seen = vec![false; blocks.len()];
                let mut queue: VecDeque<usize> = blocks[b].succs.iter().copied().collect();
                while let Some(x) = queue.pop_front() {
                    if x == exit || Some(x) == stop || seen[x] {
                        continue;
                    }
                    seen[x] = true;
                    if block_level[x] < branch_level {
                        block_level[x] = branch_level;
                        cause[x] = Some(branch);
                        changed = true;
                    }
                    queue.extend(&blocks[x].succs);
                }
            }
            if !changed {
                break;
            }
        }

        // Step 5: the aligned barriers in non-uniform control flow.
        let what = if self.is_entry {
            "kernel"
        } else {
            "device function"
        };
        let mut issues = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            if !inst.is_aligned_barrier() {
                continue;
            }
            let why = if inst.guard.is_some_and(|g| level[g] > Level::Uniform) {
                "guarded by a thread-dependent predicate".to_string()
            } else if let Some(branch) = cause[block_of[i]] {
                let branch = &insts[branch];
                format!(
                    "under a branch on a thread-dependent value (line {}: `{}`)",
                    branch.line,
                    branch.display()
                )
            } else {
                continue;
            };
            issues.push(format!(
                "line {}: {what} `{}`: aligned barrier `{}` {why}: every thread of the CTA \
                 must reach the same barrier instruction, so aligned barriers must sit in \
                 CTA-uniform control flow; `asm!` barriers are not convergent (LLVM may \
                 duplicate them into the arms of a branch): use `Cta::sync`",
                inst.line,
                self.name,
                inst.display()
            ));
        }
        issues
    }

    /// Collects the body's declarations: registers (`.reg`, by scope) and the
    /// thread-dependent symbols (a `.func`'s parameters, `.param` of calls, `.local`).
    fn declarations(&self) -> Values<'_> {
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
    fn instructions<'a>(
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

/// The constant value of each value id, where every definition of it is an unguarded
/// `mov` of the same integer immediate (`mov.b32 %r68, 31;`); `None` otherwise.
fn constants(insts: &[Inst], count: usize) -> Vec<Option<i64>> {
    // None: no definition seen; Some(None): not a constant; Some(Some(c)): constant c.
    let mut state: Vec<Option<Option<i64>>> = vec![None; count];
    for inst in insts {
        let immediate = match (inst.base(), inst.guard, &inst.operands[..]) {
            ("mov", None, [_, source]) => parse_integer(source.text),
            _ => None,
        };
        for &d in inst.dests() {
            state[d] = match (state[d], immediate) {
                (None, Some(c)) => Some(Some(c)),
                (Some(Some(old)), Some(c)) if old == c => Some(Some(c)),
                _ => Some(None),
            };
        }
    }
    state.into_iter().map(Option::flatten).collect()
}

/// Splits instructions into basic blocks: a block starts at the first instruction, at
/// each label and after each terminator. A `bra` to an unknown label goes to the exit.
fn basic_blocks(insts: &[Inst], labels: &[(&str, usize)]) -> Vec<Block> {
    let mut starts: Vec<usize> = vec![0];
    starts.extend(labels.iter().map(|l| l.1));
    starts.extend(
        insts
            .iter()
            .enumerate()
            .filter(|(_, inst)| inst.is_terminator())
            .map(|(i, _)| i + 1),
    );
    starts.sort_unstable();
    starts.dedup();
    // An empty block at the end only when a label sits there (a branch target).
    if starts.last() == Some(&insts.len()) && !labels.iter().any(|l| l.1 == insts.len()) {
        starts.pop();
    }
    let count = starts.len();
    let exit = count;
    let block_at: HashMap<usize, usize> = starts.iter().enumerate().map(|(b, &s)| (s, b)).collect();
    let label_block: HashMap<&str, usize> = labels
        .iter()
        .map(|&(name, at)| (name, block_at[&at]))
        .collect();

    (0..count)
        .map(|b| {
            let range = starts[b]..starts.get(b + 1).copied().unwrap_or(insts.len());
            let next = if b + 1 < count { b + 1 } else { exit };
            let succs = match range.clone().last().map(|i| &insts[i]) {
                Some(t) if t.is_terminator() => {
                    let mut succs = match t.base() {
                        "bra" => {
                            let target = t.operands.last().map_or("", |o| o.text);
                            vec![label_block.get(target).copied().unwrap_or(exit)]
                        }
                        // An indirect branch: any labelled block.
                        "brx" => {
                            let mut all: Vec<usize> = label_block.values().copied().collect();
                            all.sort_unstable();
                            all.dedup();
                            all
                        }
                        _ => vec![exit],
                    };
                    if t.guard.is_some() && !succs.contains(&next) {
                        succs.push(next);
                    }
                    succs
                }
                _ => vec![next],
            };
            Block {
                insts: range,
                succs,
            }
        })
        .collect()
}

/// The immediate post-dominator of each block (the virtual exit is `blocks.len()`), or
/// `None` for a block that cannot reach the exit (an infinite loop). The algorithm of
/// Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm", on the reverse CFG.
fn post_dominators(blocks: &[Block]) -> Vec<Option<usize>> {
    let exit = blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); exit + 1];
    for (b, block) in blocks.iter().enumerate() {
        for &s in &block.succs {
            preds[s].push(b);
        }
    }
    // Postorder of the reverse CFG from the exit (iterative depth-first search).
    let mut order = vec![usize::MAX; exit + 1];
    let mut postorder = Vec::new();
    let mut visited = vec![false; exit + 1];
    let mut stack = vec![(exit, 0usize)];
    visited[exit] = true;
    while let Some((node, next)) = stack.pop() {
        if let Some(&p) = preds[node].get(next) {
            stack.push((node, next + 1));
            if !visited[p] {
                visited[p] = true;
                stack.push((p, 0));
            }
        } else {
            order[node] = postorder.len();
            postorder.push(node);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; exit + 1];
    idom[exit] = Some(exit);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a].unwrap_or(exit);
            }
            while order[b] < order[a] {
                b = idom[b].unwrap_or(exit);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &node in postorder.iter().rev().skip(1) {
            let mut new = None;
            for &s in &blocks[node].succs {
                if idom[s].is_some() {
                    new = Some(match new {
                        None => s,
                        Some(n) => intersect(&idom, n, s),
                    });
                }
            }
            if new.is_some() && new != idom[node] {
                idom[node] = new;
                changed = true;
            }
        }
    }
    idom.truncate(exit);
    idom
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel with the given body (a `.param .u32 k_param_0` and registers declared).
    fn kernel(body: &str) -> String {
        format!(
            ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n\t\
             .param .u32 k_param_0\n)\n.maxntid 256, 1, 1\n{{\n\t.reg .pred \t%p<9>;\n\t\
             .reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<9>;\n\n{body}}}\n"
        )
    }

    /// The 1-based line of the first line of `text` containing `needle`.
    fn line_of(text: &str, needle: &str) -> usize {
        text.lines().position(|l| l.contains(needle)).unwrap() + 1
    }

    #[test]
    fn divergent_if_else_barriers_are_flagged() {
        let ptx = kernel(
            "\tmov.u32 \t%r1, %tid.x;\n\
             \tsetp.eq.u32 \t%p1, %r1, 0;\n\
             \t@%p1 bra \t$L1;\n\
             \tbar.sync 0;\n\
             \tbra.uni \t$L2;\n\
             $L1:\n\
             \tbar.sync \t0; // the other one\n\
             $L2:\n\
             \tret;\n",
        );
        let issues = divergent_barriers(&ptx);
        assert_eq!(issues.len(), 2, "{issues:?}");
        let branch = line_of(&ptx, "@%p1 bra");
        assert!(
            issues[0].starts_with(&format!("line {}:", branch + 1)),
            "{issues:?}"
        );
        assert!(
            issues[1].starts_with(&format!("line {}:", branch + 4)),
            "{issues:?}"
        );
        for msg in &issues {
            assert!(msg.contains("kernel `k`"), "{msg}");
            assert!(
                msg.contains(&format!("(line {branch}: `@%p1 bra $L1`)")),
                "{msg}"
            );
            assert!(
                msg.contains("`bar.sync 0`") && msg.contains("Cta::sync"),
                "{msg}"
            );
        }
    }

    #[test]
    fn barrier_after_the_join_is_not_flagged() {
        let ptx = kernel(
            "\tmov.u32 \t%r1, %tid.x;\n\
             \tsetp.eq.u32 \t%p1, %r1, 0;\n\
             \t@%p1 bra \t$L1;\n\
             \tmov.b32 \t%r2, 1;\n\
             \tbra.uni \t$L2;\n\
             $L1:\n\
             \tmov.b32 \t%r2, 2;\n\
             $L2:\n\
             \tbar.sync \t0;\n\
             \tsetp.ne.u32 \t%p2, %r1, 5;\n\
             \t@%p2 bra \t$L3;\n\
             \tst.shared.b32 \t[%rd1], %r2;\n\
             $L3:\n\
             \tbar.sync \t0;\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx), Vec::<String>::new());
    }

    #[test]
    fn barrier_in_a_loop_with_a_uniform_trip_count_is_not_flagged() {
        let ptx = kernel(
            "\tld.param.u32 \t%r1, [k_param_0];\n\
             \tmov.b32 \t%r2, 0;\n\
             \tmov.u32 \t%r5, %tid.x;\n\
             $L__BB0_1:\n\
             \tadd.s32 \t%r3, %r2, %r5;\n\
             \tst.shared.b32 \t[%rd1], %r3;\n\
             \tbar.sync \t0;\n\
             \tadd.s32 \t%r2, %r2, 1;\n\
             \tsetp.lt.u32 \t%p1, %r2, %r1;\n\
             \t@%p1 bra \t$L__BB0_1;\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx), Vec::<String>::new());
    }

    #[test]
    fn barrier_in_a_loop_with_a_thread_dependent_exit_is_flagged() {
        let ptx = kernel(
            "\tld.param.u32 \t%r1, [k_param_0];\n\
             \tmov.u32 \t%r2, %tid.x;\n\
             $L__BB0_1:\n\
             \tbar.sync \t0;\n\
             \tadd.s32 \t%r2, %r2, 256;\n\
             \tsetp.lt.u32 \t%p1, %r2, %r1;\n\
             \t@%p1 bra \t$L__BB0_1;\n\
             \tbar.sync \t0;\n\
             \tret;\n",
        );
        let issues = divergent_barriers(&ptx);
        assert_eq!(issues.len(), 1, "{issues:?}");
        let barrier = line_of(&ptx, "bar.sync");
        assert!(
            issues[0].starts_with(&format!("line {barrier}:")),
            "{issues:?}"
        );
        assert!(issues[0].contains("`@%p1 bra $L__BB0_1`"), "{issues:?}");
    }

    #[test]
    fn loop_exit_on_an_acquire_load_is_thread_dependent() {
        // Each thread may see the flag at a different time, even at a uniform address.
        let ptx = kernel(
            "\tld.param.u64 \t%rd1, [k_param_0];\n\
             $L__BB0_1:\n\
             \tld.acquire.gpu.b32 \t%r1, [%rd1];\n\
             \tbar.sync \t0;\n\
             \tsetp.eq.u32 \t%p1, %r1, 0;\n\
             \t@%p1 bra \t$L__BB0_1;\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx).len(), 1);
        let plain = ptx.replace("ld.acquire.gpu.b32", "ld.global.b32");
        assert_eq!(divergent_barriers(&plain), Vec::<String>::new());
    }

    #[test]
    fn shared_broadcast_after_a_barrier_is_uniform() {
        // Warp 0 stores a flag to shared memory; after the barrier every thread loads it
        // from the same address and branches on it around another barrier.
        let ptx = kernel(
            "\tmov.u32 \t%r1, %tid.x;\n\
             \tshr.u32 \t%r2, %r1, 5;\n\
             \tmov.b64 \t%rd1, shared_mem;\n\
             \tsetp.ne.b32 \t%p1, %r2, 0;\n\
             \t@%p1 bra \t$L1;\n\
             \t// begin inline asm\n\
             \t{ .reg .pred p; setp.ne.u32 p, %r1, 0; vote.sync.ballot.b32 %r3, p, %r4; }\n\
             \t// end inline asm\n\
             \tst.shared.b32 \t[%rd1+64], %r3;\n\
             $L1:\n\
             \tbar.sync \t0;\n\
             \tld.shared.b32 \t%r5, [%rd1+64];\n\
             \tsetp.eq.b32 \t%p2, %r5, 0;\n\
             \t@%p2 bra \t$L2;\n\
             \tbar.sync \t0;\n\
             $L2:\n\
             \tld.shared.b32 \t%r6, [shared_mem+68];\n\
             \tsetp.eq.b32 \t%p3, %r6, 0;\n\
             \t@%p3 bra \t$L3;\n\
             \tbar.sync \t0;\n\
             $L3:\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx), Vec::<String>::new());
        // The same load at a thread-dependent address is thread-dependent.
        let per_thread = ptx.replace(
            "\tld.shared.b32 \t%r5, [%rd1+64];",
            "\tmul.wide.u32 \t%rd2, %r1, 4;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\
             \tld.shared.b32 \t%r5, [%rd3];",
        );
        let issues = divergent_barriers(&per_thread);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].contains("`@%p2 bra $L2`"), "{issues:?}");
    }

    #[test]
    fn ballots_in_inline_asm_scopes() {
        // A ballot of a %tid-dependent predicate differs between warps; a ballot of a
        // lane-dependent one is the same in every warp. Each scope has its own `p`.
        let ptx = kernel(
            "\tmov.u32 \t%r1, %tid.x;\n\
             \tmov.u32 \t%r2, %laneid;\n\
             \tmov.b32 \t%r4, -1;\n\
             \t// begin inline asm\n\
             \t{ .reg .pred p; setp.ne.u32 p, %r1, 0; vote.sync.ballot.b32 %r3, p, %r4; }\n\
             \t// end inline asm\n\
             \t{ .reg .pred p; setp.lt.u32 p, %r2, 4; vote.sync.ballot.b32 %r5, p, %r4; }\n\
             \tsetp.eq.b32 \t%p1, %r5, 15;\n\
             \t@%p1 bra \t$L1;\n\
             \tbar.sync \t0;\n\
             $L1:\n\
             \tsetp.eq.b32 \t%p2, %r3, 0;\n\
             \t@%p2 bra \t$L2;\n\
             \tbar.sync \t0;\n\
             $L2:\n\
             \tret;\n",
        );
        let issues = divergent_barriers(&ptx);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].contains("`@%p2 bra $L2`"), "{issues:?}");
    }

    #[test]
    fn full_warp_broadcast_of_a_lane_value_is_uniform() {
        // As in bulk_remove: lanes 0 and 1 load the tile's two partitions, every warp
        // alike, and `shfl.sync.idx` from lane 0 of the whole warp (c = 31) hands lane
        // 0's value to every lane: the same in every thread of the CTA.
        let ptx = kernel(
            "\tld.param.u64 \t%rd1, [k_param_0];\n\
             \tmov.u32 \t%r1, %laneid;\n\
             \tsetp.lt.u32 \t%p1, %r1, 2;\n\
             \tmov.b32 \t%r2, 0;\n\
             \t@%p1 bra \t$L1;\n\
             \tbra.uni \t$L2;\n\
             $L1:\n\
             \tmul.wide.u32 \t%rd2, %r1, 4;\n\
             \tadd.s64 \t%rd3, %rd1, %rd2;\n\
             \tld.global.b32 \t%r2, [%rd3];\n\
             $L2:\n\
             \tmov.b32 \t%r3, 0;\n\
             \tmov.b32 \t%r4, 31;\n\
             \tmov.b32 \t%r5, -1;\n\
             \tshfl.sync.idx.b32 %r6, %r2, %r3, %r4, %r5;\n\
             \tsetp.eq.b32 \t%p2, %r6, 0;\n\
             \t@%p2 bra \t$L3;\n\
             \tbar.sync \t0;\n\
             $L3:\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx), Vec::<String>::new());
        let inline = ptx.replace("%r2, %r3, %r4, %r5;", "%r2, 1, 31, -1;");
        assert_eq!(divergent_barriers(&inline), Vec::<String>::new());
        // Not a broadcast: a shift up the warp, a segmented (width 16) or unknown `c`,
        // or a value that differs between warps.
        for not_uniform in [
            ptx.replace("shfl.sync.idx", "shfl.sync.up"),
            ptx.replace("%r4, 31;", "%r4, 4127;"),
            ptx.replace("\tmov.b32 \t%r4, 31;", "\tld.param.u32 \t%r4, [k_param_0];"),
            ptx.replace("%laneid", "%tid.x"),
        ] {
            let issues = divergent_barriers(&not_uniform);
            assert_eq!(issues.len(), 1, "{not_uniform}\n{issues:?}");
            assert!(issues[0].contains("`@%p2 bra $L3`"), "{issues:?}");
        }
    }

    #[test]
    fn barrier_under_a_lane_branch_is_flagged() {
        let ptx = kernel(
            "\tmov.u32 \t%r1, %laneid;\n\
             \tsetp.lt.u32 \t%p1, %r1, 2;\n\
             \t@%p1 bra \t$L1;\n\
             \tbar.sync \t0;\n\
             $L1:\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx).len(), 1);
    }

    #[test]
    fn value_assigned_in_a_divergent_arm_is_divergent_after_the_join() {
        // %r2 is 1 or 2 depending on the thread, although every definition is constant.
        let ptx = kernel(
            "\tmov.u32 \t%r1, %laneid;\n\
             \tsetp.eq.u32 \t%p1, %r1, 0;\n\
             \tmov.b32 \t%r2, 1;\n\
             \t@%p1 bra \t$L1;\n\
             \tmov.b32 \t%r2, 2;\n\
             $L1:\n\
             \tsetp.eq.u32 \t%p2, %r2, 1;\n\
             \t@%p2 bra \t$L2;\n\
             \tbar.sync \t0;\n\
             $L2:\n\
             \tret;\n",
        );
        let issues = divergent_barriers(&ptx);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].contains("`@%p2 bra $L2`"), "{issues:?}");
    }

    #[test]
    fn uniform_branches_and_other_barriers_are_fine() {
        let ptx = kernel(
            "\tmov.u32 \t%r1, %ctaid.x;\n\
             \tmov.u32 \t%r2, %tid.x;\n\
             \tld.param.u32 \t%r3, [k_param_0];\n\
             \tsetp.lt.u32 \t%p1, %r1, %r3;\n\
             \t@%p1 bra \t$L1;\n\
             \tbar.sync \t0;\n\
             \tbar.red.popc.u32 \t%r4, 0, %p1;\n\
             $L1:\n\
             \tsetp.eq.u32 \t%p2, %r4, 0;\n\
             \t@%p2 bra \t$L2;\n\
             \tbarrier.sync.aligned \t0;\n\
             $L2:\n\
             \tsetp.eq.u32 \t%p3, %r2, 0;\n\
             \t@%p3 bra \t$L3;\n\
             \tbar.warp.sync \t-1;\n\
             \tbarrier.sync \t1, 64;\n\
             \tbarrier.cluster.arrive.aligned;\n\
             $L3:\n\
             \tret;\n",
        );
        assert_eq!(divergent_barriers(&ptx), Vec::<String>::new());
    }

    #[test]
    fn guarded_barriers_and_early_exits_are_flagged() {
        let guarded = kernel(
            "\tmov.u32 \t%r1, %tid.x;\n\
             \tsetp.eq.u32 \t%p1, %r1, 0;\n\
             \t@%p1 bar.arrive \t1, 64;\n\
             \t@%p1 ret;\n\
             \tbarrier.cta.sync.aligned \t0;\n\
             \tret;\n",
        );
        let issues = divergent_barriers(&guarded);
        assert_eq!(issues.len(), 2, "{issues:?}");
        assert!(issues[0].contains("`@%p1 bar.arrive 1, 64` guarded by a thread-dependent"));
        assert!(issues[1].contains("`barrier.cta.sync.aligned 0` under a branch"));
        assert!(issues[1].contains("`@%p1 ret`"), "{issues:?}");
    }

    #[test]
    fn device_function_parameters_are_thread_dependent() {
        let ptx = ".version 7.8\n.func helper(\n\t.param .b32 helper_param_0\n)\n{\n\
                   \t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\
                   \tld.param.b32 \t%r1, [helper_param_0];\n\
                   \tsetp.eq.u32 \t%p1, %r1, 0;\n\t@%p1 bra \t$L1;\n\tbar.sync \t0;\n\
                   $L1:\n\tret;\n}\n";
        let issues = divergent_barriers(ptx);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].contains("device function `helper`"), "{issues:?}");
        let entry = ptx.replace(".func", ".visible .entry");
        assert_eq!(divergent_barriers(&entry), Vec::<String>::new());
    }

    #[test]
    fn infinite_loops_and_prototypes_are_handled() {
        let ptx = ".version 7.8\n.extern .func foo\n(\n\t.param .b64 p\n)\n;\n\
                   .func bar\n(\n)\n;\n.visible .entry k()\n{\n\t.reg .pred %p<2>;\n\
                   \t.reg .b32 %r<3>;\n\tmov.u32 \t%r1, %tid.x;\n\
                   \tsetp.eq.u32 \t%p1, %r1, 0;\n\t@%p1 bra \t$L1;\n\tret;\n$L1:\n\
                   \tbar.sync \t0;\n\tbra.uni \t$L1;\n}\n";
        let issues = divergent_barriers(ptx);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].starts_with("line 20:"), "{issues:?}");
    }

    #[test]
    fn compact_layouts_are_parsed() {
        // The body opened on the header's line, several statements and the closing
        // brace on one line.
        let ptx = ".version 7.8\n.visible .entry k(.param .u32 k_p) {\n\
                   .reg .pred %p<2>; .reg .b32 %r<3>;\n\
                   mov.u32 %r1, %tid.x; setp.eq.u32 %p1, %r1, 0; @%p1 bra $L2;\n\
                   $L1: bar.sync 0; $L2: ret; }\n\
                   .visible .entry u() { bar.sync 0; ret; }\n";
        let issues = divergent_barriers(ptx);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].starts_with("line 5: kernel `k`"), "{issues:?}");
    }

    #[test]
    fn old_lookback_scan_is_flagged() {
        // An excerpt of `scan_lookback_u32_plus` from scan_sm_90.ptx before the barrier
        // went through `llvm.nvvm.barrier0`: the `bar.sync 0` after `if warp == 0 {..}`
        // was duplicated into both arms.
        let ptx = include_str!("../tests/fixtures/lookback_divergent_barrier.ptx");
        let issues = divergent_barriers(ptx);
        assert_eq!(issues.len(), 2, "{issues:?}");
        let branch = line_of(ptx, "\t@%p27 bra");
        for msg in &issues {
            assert!(msg.contains("kernel `scan_lookback_u32_plus`"), "{msg}");
            assert!(
                msg.contains(&format!("(line {branch}: `@%p27 bra $L__BB27_42`)")),
                "{msg}"
            );
        }
        let fixed = include_str!("../tests/fixtures/lookback_uniform_barrier.ptx");
        assert_eq!(divergent_barriers(fixed), Vec::<String>::new());
    }

    #[test]
    fn helpers() {
        assert_eq!(
            identifiers("{%r1, _}, [%rd2+-8], %tid.x, 0f3F800000, p, $L__BB0_1"),
            vec!["%r1", "%rd2", "%tid", "p", "$L__BB0_1"]
        );
        assert_eq!(
            split_operands(" {%r1, %r2}, [%rd1+4], %r3"),
            vec!["{%r1, %r2}", "[%rd1+4]", "%r3"]
        );
        assert_eq!(split_label("$L__BB27_42:"), Some(("$L__BB27_42", "")));
        assert_eq!(split_label("cp.async.bulk.shared::cluster"), None);
        assert_eq!(
            header_params(".entry k( .param .align 8 .b8 k_param_0[72], .param .u32 k_param_1 )"),
            vec!["k_param_0", "k_param_1"]
        );
    }
}
