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

mod cfg;
mod inst;
mod parse;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};

use cfg::{basic_blocks, constants, post_dominators};
use inst::Rule;
use parse::{parse_functions, Function};

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
}
