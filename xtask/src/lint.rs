//! The PTX lint of `cargo xtask ptx --check`: local memory, non-inlined calls, PTX ISA
//! versions above what the architecture needs (DESIGN.md §3) and aligned barriers in
//! divergent control flow ([`crate::diverge`]).

/// The PTX ISA version (major, minor) that rustc's NVPTX backend emits for `arch`
/// without `+ptxNN`, which is also the highest one a committed file may declare, so
/// that older drivers load it; `None` for an architecture the project does not build.
pub fn max_ptx_version(arch: &str) -> Option<(u32, u32)> {
    match arch {
        "sm_70" => Some((7, 0)),
        "sm_90" => Some((7, 8)),
        _ => None,
    }
}

/// The architecture of a committed PTX file named `<family>_<arch>.ptx`
/// (`scan_sm_90.ptx` gives `sm_90`), or `None` when the name has no `_sm_NN` suffix.
pub fn arch_of_file_name(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".ptx")?;
    let at = stem.rfind("_sm_")?;
    let arch = &stem[at + 1..];
    (arch.len() > 3 && arch[3..].bytes().all(|b| b.is_ascii_digit())).then_some(arch)
}

/// The text patterns that show a local-memory stack: a register array that fell
/// to local memory, which is a performance bug.
const LOCAL_MEMORY_PATTERNS: [&str; 3] = ["__local_depot", "ld.local", "st.local"];

/// Lints one PTX module and returns one message per problem (empty when clean).
///
/// Fails on local memory (`__local_depot`, `ld.local`, `st.local`), naming the
/// `.entry` (or `.func`) it belongs to; on any `.extern .func` (a call that was not
/// inlined, which the driver cannot link); on a `.version` above `max_version`; on an
/// aligned CTA barrier (`bar.sync`, ...) reached under a branch that can diverge within
/// the CTA ([`crate::diverge::divergent_barriers`]); and on a module with no `.version`
/// at all. Messages start with `line N:` (1-based, counted in `ptx`; add the header line
/// when `ptx` is the body of a file).
pub fn lint_ptx(ptx: &str, max_version: Option<(u32, u32)>) -> Vec<String> {
    let mut issues = Vec::new();
    let mut version_seen = false;
    // The function whose declaration or body we are in: (".entry"/".func", name).
    let mut current: Option<(&'static str, String)> = None;
    // Local-memory findings per function: (kind, name, first line, patterns, lines).
    let mut local: Vec<(&'static str, String, usize, Vec<&'static str>, usize)> = Vec::new();

    for (index, raw) in ptx.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();

        if tokens.first() == Some(&".version") {
            version_seen = true;
            match tokens.get(1).and_then(|v| parse_version(v)) {
                None => issues.push(format!("line {line_no}: cannot parse `{line}`")),
                Some(v) => {
                    if let Some(max) = max_version {
                        if v > max {
                            issues.push(format!(
                                "line {line_no}: `.version {}.{}` is above {}.{}, the highest \
                                 this architecture needs (older drivers could not load it; \
                                 do not pass +ptxNN)",
                                v.0, v.1, max.0, max.1
                            ));
                        }
                    }
                }
            }
        }

        if tokens.contains(&".extern") && tokens.contains(&".func") {
            let name = function_name(line, ".func").unwrap_or_else(|| "?".to_string());
            issues.push(format!(
                "line {line_no}: `.extern .func {name}`: a call that was not inlined \
                 (the driver cannot link it when it loads the module); make the callee \
                 generic or #[inline]"
            ));
        } else if tokens.contains(&".entry") {
            current = function_name(line, ".entry").map(|n| (".entry", n));
        } else if tokens.contains(&".func") {
            current = function_name(line, ".func").map(|n| (".func", n));
        }

        let hits: Vec<&'static str> = LOCAL_MEMORY_PATTERNS
            .into_iter()
            .filter(|p| line.contains(p))
            .collect();
        if !hits.is_empty() {
            let (kind, name) = current
                .clone()
                .unwrap_or((".entry", "<outside any function>".to_string()));
            match local.iter_mut().find(|f| f.0 == kind && f.1 == name) {
                Some(found) => {
                    found.4 += 1;
                    for h in hits {
                        if !found.3.contains(&h) {
                            found.3.push(h);
                        }
                    }
                }
                None => local.push((kind, name, line_no, hits, 1)),
            }
        }
    }

    for (kind, name, first, patterns, count) in local {
        let what = if kind == ".entry" {
            "kernel"
        } else {
            "device function"
        };
        issues.push(format!(
            "line {first}: {what} `{name}` uses local memory ({}; {count} line{}): a register \
             array fell to local memory (index register arrays only by constants after \
             unrolling)",
            patterns.join(", "),
            if count == 1 { "" } else { "s" }
        ));
    }
    issues.extend(crate::diverge::divergent_barriers(ptx));
    if !version_seen {
        issues.push("no `.version` directive".to_string());
    }
    issues
}

/// Parses a PTX ISA version such as `7.8` into (major, minor).
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The name declared after `keyword` (`.entry` or `.func`) on a PTX line, skipping
/// a `.func`'s return-parameter list: `.visible .func (.param .b32 r) foo(` gives `foo`.
pub(crate) fn function_name(line: &str, keyword: &str) -> Option<String> {
    let at = line.find(keyword)?;
    let mut rest = line[at + keyword.len()..].trim_start();
    if rest.starts_with('(') {
        let close = rest.find(')')?;
        rest = rest[close + 1..].trim_start();
    }
    let name: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '(' && *c != ';')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = "\
//
// Generated by LLVM NVPTX Back-End
//

.version 7.8
.target sm_90
.address_size 64

	// .globl	scan_k
.visible .entry scan_k(
	.param .u64 .ptr .align 1 scan_k_param_0,
	.param .u32 scan_k_param_1
)
{
	.reg .b32 	%r<3>;
	ld.param.b64 	%rd1, [scan_k_param_0];
	st.global.b32 	[%rd2], %r2;
	ret;
}
";

    #[test]
    fn clean_module_passes() {
        assert_eq!(lint_ptx(CLEAN, Some((7, 8))), Vec::<String>::new());
    }

    #[test]
    fn version_above_the_arch_fails() {
        let issues = lint_ptx(CLEAN, max_ptx_version("sm_70"));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].starts_with("line 5:"), "{issues:?}");
        assert!(issues[0].contains("7.8") && issues[0].contains("7.0"));
        let v83 = CLEAN.replace(".version 7.8", ".version 8.3");
        assert_eq!(lint_ptx(&v83, max_ptx_version("sm_90")).len(), 1);
        let v70 = CLEAN.replace(".version 7.8", ".version 7.0");
        assert!(lint_ptx(&v70, max_ptx_version("sm_70")).is_empty());
    }

    #[test]
    fn missing_version_fails() {
        let none = CLEAN.replace(".version 7.8", "");
        assert_eq!(
            lint_ptx(&none, Some((7, 8))),
            vec!["no `.version` directive"]
        );
    }

    #[test]
    fn local_memory_names_the_entry() {
        let ptx = "\
.version 7.8
.visible .entry first(
)
{
	ret;
}
.visible .entry scan_upsweep_u32_plus(
	.param .u64 p
)
{
	.local .align 4 .b8 	__local_depot1[64];
	st.local.u32 	[%rd1], %r1;
	st.local.u32 	[%rd1+4], %r2;
	ld.local.u32 	%r3, [%rd1];
	ret;
}
";
        let issues = lint_ptx(ptx, Some((7, 8)));
        assert_eq!(issues.len(), 1, "{issues:?}");
        let msg = &issues[0];
        assert!(msg.starts_with("line 11:"), "{msg}");
        assert!(msg.contains("kernel `scan_upsweep_u32_plus`"), "{msg}");
        assert!(msg.contains("__local_depot") && msg.contains("st.local"));
        assert!(msg.contains("ld.local") && msg.contains("4 lines"), "{msg}");
        assert!(!msg.contains("`first`"));
    }

    #[test]
    fn local_memory_in_a_device_function_is_named() {
        let ptx = ".version 7.0\n.func  (.param .b32 func_retval0) helper(\n)\n{\n\tld.local.u32 %r1, [%rd1];\n}\n";
        let issues = lint_ptx(ptx, Some((7, 0)));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(
            issues[0].contains("device function `helper`"),
            "{}",
            issues[0]
        );
    }

    #[test]
    fn local_in_comments_or_other_spaces_is_fine() {
        let ptx = ".version 7.8\n.visible .entry k()\n{\n\t// st.local is mentioned here\n\tld.shared.u32 %r1, [%rd1];\n\tld.global.nc.u32 %r2, [%rd2];\n}\n";
        assert!(lint_ptx(ptx, Some((7, 8))).is_empty());
    }

    #[test]
    fn extern_func_fails() {
        let ptx = ".version 7.8\n.extern .func  (.param .b32 func_retval0) _ZN4core9panicking5panic17h0E\n(\n\t.param .b64 p\n)\n;\n.visible .entry k()\n{\n\tret;\n}\n";
        let issues = lint_ptx(ptx, Some((7, 8)));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(issues[0].starts_with("line 2:"));
        assert!(issues[0].contains(".extern .func _ZN4core9panicking5panic17h0E"));
        let no_ret = ".version 7.8\n.extern .func foo;\n";
        assert!(lint_ptx(no_ret, Some((7, 8)))[0].contains(".extern .func foo`"));
    }

    #[test]
    fn non_extern_func_is_fine() {
        let ptx = ".version 7.8\n.visible .func bar(\n)\n{\n\tret;\n}\n";
        assert!(lint_ptx(ptx, Some((7, 8))).is_empty());
    }

    #[test]
    fn divergent_barrier_fails() {
        // `bar.sync 0` in both arms of a branch on the warp index (`%tid.x >> 5`).
        let ptx = ".version 7.8\n.visible .entry k()\n{\n\t.reg .pred %p<2>;\n\
                   \t.reg .b32 %r<3>;\n\tmov.u32 \t%r1, %tid.x;\n\tshr.u32 \t%r2, %r1, 5;\n\
                   \tsetp.ne.b32 \t%p1, %r2, 0;\n\t@%p1 bra \t$L1;\n\tbar.sync 0;\n\tret;\n\
                   $L1:\n\tbar.sync 0;\n\tret;\n}\n";
        let issues = lint_ptx(ptx, Some((7, 8)));
        assert_eq!(issues.len(), 2, "{issues:?}");
        assert!(issues[0].starts_with("line 10: kernel `k`: aligned barrier `bar.sync 0`"));
        assert!(issues[1].starts_with("line 13:"), "{issues:?}");
        assert!(issues[1].contains("(line 9: `@%p1 bra $L1`)"), "{issues:?}");
        let uniform = ptx.replace("%tid.x", "%ctaid.x");
        assert!(lint_ptx(&uniform, Some((7, 8))).is_empty());
    }

    #[test]
    fn arch_from_file_names() {
        assert_eq!(arch_of_file_name("scan_sm_90.ptx"), Some("sm_90"));
        assert_eq!(arch_of_file_name("seg_reduce_sm_70.ptx"), Some("sm_70"));
        assert_eq!(arch_of_file_name("scan.ptx"), None);
        assert_eq!(arch_of_file_name("scan_sm_90.txt"), None);
        assert_eq!(arch_of_file_name("scan_sm_.ptx"), None);
        assert_eq!(max_ptx_version("sm_90"), Some((7, 8)));
        assert_eq!(max_ptx_version("sm_80"), None);
    }
}
