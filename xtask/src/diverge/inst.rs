//! The instructions of a function body ([`Inst`]) and their operands ([`Operand`]):
//! what an opcode writes, whether it ends a basic block or is an aligned CTA barrier,
//! and how the level of its result follows from what it reads ([`Rule`]).

use super::Level;

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

/// One operand of an instruction.
pub(super) struct Operand<'a> {
    /// The operand's text (`%r5`, `[%rd1+4]`, `31`).
    pub(super) text: &'a str,
    /// The values (registers, special registers, divergent symbols) it names.
    pub(super) values: Vec<usize>,
}

/// How the level of an instruction's result follows from what it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
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
pub(super) struct Inst<'a> {
    /// The 1-based line of the instruction in the PTX text.
    pub(super) line: usize,
    /// The instruction text (guard, opcode, operands).
    pub(super) text: &'a str,
    /// The opcode with its qualifiers (`ld.shared.b32`).
    pub(super) opcode: &'a str,
    /// The guard predicate (`@%p1` or `@!%p1`), when there is one.
    pub(super) guard: Option<usize>,
    /// The operands, in order.
    pub(super) operands: Vec<Operand<'a>>,
    /// Whether the first operand is a destination.
    pub(super) has_destination: bool,
    /// How the level of its result follows from what it reads.
    pub(super) rule: Rule,
}

impl Inst<'_> {
    /// The opcode without its qualifiers (`ld` for `ld.shared.b32`).
    pub(super) fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or("")
    }

    /// Whether the opcode has the qualifier `q` (`shared` for `ld.shared.b32`).
    fn has_qualifier(&self, q: &str) -> bool {
        self.opcode.split('.').skip(1).any(|x| x == q)
    }

    /// The values the instruction writes.
    pub(super) fn dests(&self) -> &[usize] {
        match self.operands.first() {
            Some(op) if self.has_destination => &op.values,
            _ => &[],
        }
    }

    /// The instruction text with its whitespace normalized, for messages.
    pub(super) fn display(&self) -> String {
        self.text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Whether the instruction ends a basic block.
    pub(super) fn is_terminator(&self) -> bool {
        matches!(self.base(), "bra" | "brx" | "ret" | "exit" | "trap")
    }

    /// Whether the instruction is an aligned CTA barrier: `bar.sync`, `bar.arrive`,
    /// `bar.red`, `bar.cta.*` and `barrier{.cta}.*.aligned`; not `bar.warp.sync`, not
    /// `barrier.sync` without `.aligned`, not the cluster barriers (aligned per warp).
    pub(super) fn is_aligned_barrier(&self) -> bool {
        match self.base() {
            "bar" => !self.has_qualifier("warp"),
            "barrier" => self.has_qualifier("aligned") && !self.has_qualifier("cluster"),
            _ => false,
        }
    }

    /// The rule of an instruction, from its opcode (a shuffle not a broadcast yet: that
    /// needs the constants of the whole body).
    pub(super) fn rule(&self) -> Rule {
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
    pub(super) fn result_level(&self, level: &[Level]) -> Level {
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
    pub(super) fn is_warp_broadcast(&self, constants: &[Option<i64>]) -> bool {
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
pub(super) fn parse_integer(text: &str) -> Option<i64> {
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
