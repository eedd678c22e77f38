//! The pieces of the SVG charts this crate writes (`bench.svg`, `report-<family>.svg`).

use std::fmt::Write as _;

/// `t` with XML's special characters escaped, for SVG text and attributes.
pub(crate) fn xml_escape(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

/// The start of an SVG document of `width` by `height` pixels (monospace, 12 px, white
/// background) with `title` (escaped here) at the top.
pub(crate) fn svg_open(width: usize, height: usize, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"20\" font-size=\"14\">{}</text>\n",
        xml_escape(title)
    )
}

/// One horizontal bar of a chart: a rect of class `bar` from `x` with the given width and
/// height, top at `y`, with a tooltip, and `label` (escaped here) right after it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn svg_bar(
    s: &mut String,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    fill: &str,
    tip: &str,
    label: &str,
) {
    let _ = writeln!(
        s,
        "<rect class=\"bar\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\"><title>{}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        xml_escape(tip),
        x + w + 4.0,
        y + h - 3.0,
        xml_escape(label)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            xml_escape("a<b & 'c' \"d\">"),
            "a&lt;b &amp; &#39;c&#39; &quot;d&quot;&gt;"
        );
        let mut s = svg_open(10, 20, "<t>");
        svg_bar(&mut s, 1.0, 2.0, 3.0, 4.0, "#000", "tip&", "x<y");
        assert!(s.contains(">&lt;t&gt;</text>"), "{s}");
        assert!(
            s.contains("<title>tip&amp;</title>") && s.contains(">x&lt;y</text>"),
            "{s}"
        );
    }
}
