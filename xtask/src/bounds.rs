//! Turns the `// mgpu-launch-bounds NT CTAS` marker that `mgpu_core::kernel_entry!` puts at
//! the top of every entry's body into the entry's `.maxntid NT, 1, 1` and
//! `.minnctapersm CTAS` performance directives (rustc has no attribute that emits them).
//! They let ptxas bound the registers so that CTAS CTAs of NT threads fit on one SM.

use crate::util::Result;

const MARKER: &str = "// mgpu-launch-bounds ";

/// Inserts each entry's directives between its parameter list and its body.
pub fn apply_launch_bounds(ptx: &str) -> Result<String> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 64);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !line.contains(".entry ") {
            out.push(line.to_string());
            i += 1;
            continue;
        }
        // The entry header runs to the line that is `{`.
        let open = (i..lines.len())
            .find(|&j| lines[j].trim() == "{")
            .ok_or_else(|| format!("PTX entry without a body: {line}"))?;
        let close = (open..lines.len())
            .find(|&j| lines[j].starts_with('}'))
            .ok_or_else(|| format!("PTX entry without an end: {line}"))?;
        let marker = lines[open..close]
            .iter()
            .find_map(|l| l.trim().strip_prefix(MARKER))
            .ok_or_else(|| {
                format!(
                    "entry has no `{MARKER}NT CTAS` marker (made without kernel_entry!?): {line}"
                )
            })?;
        let mut it = marker.split_whitespace();
        let (nt, ctas) = match (
            it.next().map(str::parse::<u32>),
            it.next().map(str::parse::<u32>),
        ) {
            (Some(Ok(nt)), Some(Ok(ctas))) if nt > 0 && ctas > 0 => (nt, ctas),
            _ => {
                return Err(format!(
                    "malformed launch-bounds marker `{marker}` in {line}"
                ))
            }
        };
        out.extend(lines[i..open].iter().map(|l| l.to_string()));
        out.push(format!(".maxntid {nt}, 1, 1"));
        out.push(format!(".minnctapersm {ctas}"));
        i = open;
    }
    let mut text = out.join("\n");
    if ptx.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = ".visible .entry k(\n\t.param .align 8 .b8 k_param_0[8]\n)\n{\n\t// begin inline asm\n\t// mgpu-launch-bounds 256 6\n\t// end inline asm\n\tret;\n\n}\n";

    #[test]
    fn inserts_directives_before_the_body() {
        let out = apply_launch_bounds(ENTRY).unwrap();
        assert!(
            out.contains(")\n.maxntid 256, 1, 1\n.minnctapersm 6\n{\n"),
            "{out}"
        );
        assert!(out.ends_with("}\n"));
    }

    #[test]
    fn every_entry_gets_its_own() {
        let two = format!(
            "{ENTRY}\n{}",
            ENTRY.replace(" k(", " j(").replace("256 6", "128 12")
        );
        let out = apply_launch_bounds(&two).unwrap();
        assert!(out.contains(".maxntid 256, 1, 1\n.minnctapersm 6"));
        assert!(out.contains(".maxntid 128, 1, 1\n.minnctapersm 12"));
    }

    #[test]
    fn missing_or_malformed_marker_is_an_error() {
        assert!(
            apply_launch_bounds(&ENTRY.replace("mgpu-launch-bounds 256 6", "nothing")).is_err()
        );
        assert!(apply_launch_bounds(&ENTRY.replace("256 6", "x 6")).is_err());
    }

    #[test]
    fn text_without_entries_is_unchanged() {
        let t = ".version 7.8\n.target sm_90\n";
        assert_eq!(apply_launch_bounds(t).unwrap(), t);
    }
}
