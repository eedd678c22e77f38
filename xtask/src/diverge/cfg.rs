//! The control-flow graph of a function body: its basic blocks ([`Block`],
//! [`basic_blocks`]) and their immediate post-dominators ([`post_dominators`]), and the
//! value ids that hold a constant ([`constants`]).

use std::collections::HashMap;

use super::inst::{parse_integer, Inst};

/// A basic block: a range of instructions and the blocks control may go to next.
pub(super) struct Block {
    /// The block's instructions, indices into the function's instruction list.
    pub(super) insts: std::ops::Range<usize>,
    /// Successor blocks; the virtual exit is the number of blocks.
    pub(super) succs: Vec<usize>,
}

/// The constant value of each value id, where every definition of it is an unguarded
/// `mov` of the same integer immediate (`mov.b32 %r68, 31;`); `None` otherwise.
pub(super) fn constants(insts: &[Inst], count: usize) -> Vec<Option<i64>> {
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
pub(super) fn basic_blocks(insts: &[Inst], labels: &[(&str, usize)]) -> Vec<Block> {
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
pub(super) fn post_dominators(blocks: &[Block]) -> Vec<Option<usize>> {
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
