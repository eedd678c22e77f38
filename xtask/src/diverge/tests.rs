//! Tests of the divergent-barrier check: small kernels with barriers under uniform,
//! lane-dependent and thread-dependent branches, the lookback-scan fixtures, and the
//! parsing helpers.

use super::parse::{header_params, identifiers, split_label, split_operands};
use super::*;

/// A kernel with the given body and a closing `ret` (a `.param .u32 k_param_0` and
/// registers declared).
fn kernel(body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n\t\
         .param .u32 k_param_0\n)\n.maxntid 256, 1, 1\n{{\n\t.reg .pred \t%p<9>;\n\t\
         .reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<9>;\n\n{body}\tret;\n}}\n"
    )
}

/// A `bar.sync 0` that the threads where `pred` holds branch around, to `label`.
fn barrier_unless(pred: &str, label: &str) -> String {
    format!("\t@{pred} bra \t{label};\n\tbar.sync \t0;\n{label}:\n")
}

/// Checks that `ptx` gets one divergent-barrier report per entry of `expected`, in
/// order, each containing that text; returns the reports.
fn check(case: &str, ptx: &str, expected: &[&str]) -> Vec<String> {
    let issues = divergent_barriers(ptx);
    assert_eq!(issues.len(), expected.len(), "{case}: {issues:?}");
    for (msg, want) in issues.iter().zip(expected) {
        assert!(msg.contains(want), "{case}: {msg} lacks {want}");
    }
    issues
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
         $L2:\n",
    );
    let branch = line_of(&ptx, "@%p1 bra");
    let under = format!("(line {branch}: `@%p1 bra $L1`)");
    let issues = check("if-else", &ptx, &[&under, &under]);
    for (msg, line) in issues.iter().zip([branch + 1, branch + 4]) {
        assert!(msg.starts_with(&format!("line {line}:")), "{issues:?}");
        assert!(msg.contains("kernel `k`"), "{msg}");
        assert!(
            msg.contains("`bar.sync 0`") && msg.contains("Cta::sync"),
            "{msg}"
        );
    }
}

/// Kernels checked only for the branches their reports name (none: not flagged).
#[test]
fn uniform_and_divergent_branches_around_barriers() {
    let cases: [(&str, String, &[&str]); 6] = [
        (
            "barrier after the join is not flagged",
            kernel(
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
                 \tbar.sync \t0;\n",
            ),
            &[],
        ),
        (
            "barrier in a loop with a uniform trip count is not flagged",
            kernel(
                "\tld.param.u32 \t%r1, [k_param_0];\n\
                 \tmov.b32 \t%r2, 0;\n\
                 \tmov.u32 \t%r5, %tid.x;\n\
                 $L__BB0_1:\n\
                 \tadd.s32 \t%r3, %r2, %r5;\n\
                 \tst.shared.b32 \t[%rd1], %r3;\n\
                 \tbar.sync \t0;\n\
                 \tadd.s32 \t%r2, %r2, 1;\n\
                 \tsetp.lt.u32 \t%p1, %r2, %r1;\n\
                 \t@%p1 bra \t$L__BB0_1;\n",
            ),
            &[],
        ),
        (
            "barrier under a lane branch is flagged",
            kernel(&format!(
                "\tmov.u32 \t%r1, %laneid;\n\
                 \tsetp.lt.u32 \t%p1, %r1, 2;\n{}",
                barrier_unless("%p1", "$L1")
            )),
            &["`@%p1 bra $L1`"],
        ),
        (
            // %r2 is 1 or 2 depending on the thread, although every definition is
            // constant.
            "value assigned in a divergent arm is divergent after the join",
            kernel(&format!(
                "\tmov.u32 \t%r1, %laneid;\n\
                 \tsetp.eq.u32 \t%p1, %r1, 0;\n\
                 \tmov.b32 \t%r2, 1;\n\
                 \t@%p1 bra \t$L1;\n\
                 \tmov.b32 \t%r2, 2;\n\
                 $L1:\n\
                 \tsetp.eq.u32 \t%p2, %r2, 1;\n{}",
                barrier_unless("%p2", "$L2")
            )),
            &["`@%p2 bra $L2`"],
        ),
        (
            "uniform branches and other barriers are fine",
            kernel(
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
                 $L3:\n",
            ),
            &[],
        ),
        (
            // A ballot of a %tid-dependent predicate differs between warps; a ballot
            // of a lane-dependent one is the same in every warp. Each scope has its
            // own `p`.
            "ballots in inline asm scopes",
            kernel(&format!(
                "\tmov.u32 \t%r1, %tid.x;\n\
                 \tmov.u32 \t%r2, %laneid;\n\
                 \tmov.b32 \t%r4, -1;\n\
                 \t// begin inline asm\n\
                 \t{{ .reg .pred p; setp.ne.u32 p, %r1, 0; vote.sync.ballot.b32 %r3, p, %r4; }}\n\
                 \t// end inline asm\n\
                 \t{{ .reg .pred p; setp.lt.u32 p, %r2, 4; vote.sync.ballot.b32 %r5, p, %r4; }}\n\
                 \tsetp.eq.b32 \t%p1, %r5, 15;\n{}\
                 \tsetp.eq.b32 \t%p2, %r3, 0;\n{}",
                barrier_unless("%p1", "$L1"),
                barrier_unless("%p2", "$L2")
            )),
            &["`@%p2 bra $L2`"],
        ),
    ];
    for (case, ptx, expected) in &cases {
        check(case, ptx, expected);
    }
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
         \tbar.sync \t0;\n",
    );
    let issues = check("loop", &ptx, &["`@%p1 bra $L__BB0_1`"]);
    let barrier = line_of(&ptx, "bar.sync");
    assert!(
        issues[0].starts_with(&format!("line {barrier}:")),
        "{issues:?}"
    );
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
         \t@%p1 bra \t$L__BB0_1;\n",
    );
    check("acquire", &ptx, &["`@%p1 bra $L__BB0_1`"]);
    let plain = ptx.replace("ld.acquire.gpu.b32", "ld.global.b32");
    check("plain load", &plain, &[]);
}

#[test]
fn shared_broadcast_after_a_barrier_is_uniform() {
    // Warp 0 stores a flag to shared memory; after the barrier every thread loads it
    // from the same address and branches on it around another barrier.
    let ptx = kernel(&format!(
        "\tmov.u32 \t%r1, %tid.x;\n\
         \tshr.u32 \t%r2, %r1, 5;\n\
         \tmov.b64 \t%rd1, shared_mem;\n\
         \tsetp.ne.b32 \t%p1, %r2, 0;\n\
         \t@%p1 bra \t$L1;\n\
         \t// begin inline asm\n\
         \t{{ .reg .pred p; setp.ne.u32 p, %r1, 0; vote.sync.ballot.b32 %r3, p, %r4; }}\n\
         \t// end inline asm\n\
         \tst.shared.b32 \t[%rd1+64], %r3;\n\
         $L1:\n\
         \tbar.sync \t0;\n\
         \tld.shared.b32 \t%r5, [%rd1+64];\n\
         \tsetp.eq.b32 \t%p2, %r5, 0;\n{}\
         \tld.shared.b32 \t%r6, [shared_mem+68];\n\
         \tsetp.eq.b32 \t%p3, %r6, 0;\n{}",
        barrier_unless("%p2", "$L2"),
        barrier_unless("%p3", "$L3")
    ));
    check("uniform address", &ptx, &[]);
    // The same load at a thread-dependent address is thread-dependent.
    let per_thread = ptx.replace(
        "\tld.shared.b32 \t%r5, [%rd1+64];",
        "\tmul.wide.u32 \t%rd2, %r1, 4;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\
         \tld.shared.b32 \t%r5, [%rd3];",
    );
    check("per-thread address", &per_thread, &["`@%p2 bra $L2`"]);
}

#[test]
fn full_warp_broadcast_of_a_lane_value_is_uniform() {
    // As in bulk_remove: lanes 0 and 1 load the tile's two partitions, every warp
    // alike, and `shfl.sync.idx` from lane 0 of the whole warp (c = 31) hands lane
    // 0's value to every lane: the same in every thread of the CTA.
    let ptx = kernel(&format!(
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
         \tsetp.eq.b32 \t%p2, %r6, 0;\n{}",
        barrier_unless("%p2", "$L3")
    ));
    check("registers", &ptx, &[]);
    let inline = ptx.replace("%r2, %r3, %r4, %r5;", "%r2, 1, 31, -1;");
    check("immediates", &inline, &[]);
    // Not a broadcast: a shift up the warp, a segmented (width 16) or unknown `c`,
    // or a value that differs between warps.
    for (case, not_uniform) in [
        ("shift up", ptx.replace("shfl.sync.idx", "shfl.sync.up")),
        ("width 16", ptx.replace("%r4, 31;", "%r4, 4127;")),
        (
            "unknown c",
            ptx.replace("\tmov.b32 \t%r4, 31;", "\tld.param.u32 \t%r4, [k_param_0];"),
        ),
        ("per-thread value", ptx.replace("%laneid", "%tid.x")),
    ] {
        check(case, &not_uniform, &["`@%p2 bra $L3`"]);
    }
}

#[test]
fn guarded_barriers_and_early_exits_are_flagged() {
    let guarded = kernel(
        "\tmov.u32 \t%r1, %tid.x;\n\
         \tsetp.eq.u32 \t%p1, %r1, 0;\n\
         \t@%p1 bar.arrive \t1, 64;\n\
         \t@%p1 ret;\n\
         \tbarrier.cta.sync.aligned \t0;\n",
    );
    let issues = check(
        "guarded",
        &guarded,
        &[
            "`@%p1 bar.arrive 1, 64` guarded by a thread-dependent",
            "`barrier.cta.sync.aligned 0` under a branch",
        ],
    );
    assert!(issues[1].contains("`@%p1 ret`"), "{issues:?}");
}

#[test]
fn device_function_parameters_are_thread_dependent() {
    let ptx = ".version 7.8\n.func helper(\n\t.param .b32 helper_param_0\n)\n{\n\
               \t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\
               \tld.param.b32 \t%r1, [helper_param_0];\n\
               \tsetp.eq.u32 \t%p1, %r1, 0;\n\t@%p1 bra \t$L1;\n\tbar.sync \t0;\n\
               $L1:\n\tret;\n}\n";
    check("function", ptx, &["device function `helper`"]);
    let entry = ptx.replace(".func", ".visible .entry");
    check("entry", &entry, &[]);
}

#[test]
fn infinite_loops_and_prototypes_are_handled() {
    let ptx = ".version 7.8\n.extern .func foo\n(\n\t.param .b64 p\n)\n;\n\
               .func bar\n(\n)\n;\n.visible .entry k()\n{\n\t.reg .pred %p<2>;\n\
               \t.reg .b32 %r<3>;\n\tmov.u32 \t%r1, %tid.x;\n\
               \tsetp.eq.u32 \t%p1, %r1, 0;\n\t@%p1 bra \t$L1;\n\tret;\n$L1:\n\
               \tbar.sync \t0;\n\tbra.uni \t$L1;\n}\n";
    let issues = check("infinite loop", ptx, &["line 20:"]);
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
    let issues = check("compact", ptx, &["line 5: kernel `k`"]);
    assert!(issues[0].starts_with("line 5: kernel `k`"), "{issues:?}");
}

#[test]
fn old_lookback_scan_is_flagged() {
    // An excerpt of `scan_lookback_u32_plus` from scan_sm_90.ptx before the barrier
    // went through `llvm.nvvm.barrier0`: the `bar.sync 0` after `if warp == 0 {..}`
    // was duplicated into both arms.
    let ptx = include_str!("../../tests/fixtures/lookback_divergent_barrier.ptx");
    let branch = line_of(ptx, "\t@%p27 bra");
    let under = format!("(line {branch}: `@%p27 bra $L__BB27_42`)");
    for msg in check("old lookback", ptx, &[&under, &under]) {
        assert!(msg.contains("kernel `scan_lookback_u32_plus`"), "{msg}");
    }
    let fixed = include_str!("../../tests/fixtures/lookback_uniform_barrier.ptx");
    check("fixed lookback", fixed, &[]);
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
