//! A very small SVG writer, plus the two chart shapes the labs need.
//!
//! Pictures are built as plain strings so they can be written straight into
//! an HTML page or a `.svg` file with no dependencies. Every piece of text is
//! escaped on the way in, so a label such as `a < b & c` cannot break the
//! document.

use std::fmt::Write as _;

/// Colours used for categories (warps, chart series). Chosen to stay
/// distinguishable next to each other and to carry dark text legibly.
pub const PALETTE: [&str; 10] =
    ["#8ecae6", "#ffb703", "#90be6d", "#f4a3a8", "#cdb4db", "#f9c74f", "#84a59d", "#f28482", "#a3c4f3", "#e9c46a"];

/// Colour number `i`, cycling through [`PALETTE`].
pub fn palette(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Darker series colours for lines, which need more contrast than fills.
const LINE_COLOURS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

/// Fill colour of the bars in [`bar_chart`].
const BAR_FILL: &str = "#4c78a8";

/// Replace the five characters that have meaning in XML with entities.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// Format a coordinate compactly: at most two decimals, no trailing zeros.
/// Non-finite numbers become 0 so a bad value can never produce invalid SVG.
fn num(v: f64) -> String {
    if !v.is_finite() {
        return "0".to_string();
    }
    let s = format!("{:.2}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" || s.is_empty() { "0".to_string() } else { s.to_string() }
}

/// Horizontal alignment of a text label relative to its anchor point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// How a piece of text is drawn. Start from [`TextStyle::new`] and adjust.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStyle {
    pub size: f64,
    pub anchor: Anchor,
    pub fill: &'static str,
    pub bold: bool,
}

impl TextStyle {
    /// Dark, left-anchored, regular text of the given size in pixels.
    pub fn new(size: f64) -> Self {
        TextStyle { size, anchor: Anchor::Start, fill: "#222", bold: false }
    }

    pub fn anchor(self, anchor: Anchor) -> Self {
        TextStyle { anchor, ..self }
    }

    pub fn fill(self, fill: &'static str) -> Self {
        TextStyle { fill, ..self }
    }

    pub fn bold(self) -> Self {
        TextStyle { bold: true, ..self }
    }
}

/// An SVG document under construction. Shapes are appended in drawing
/// order, so later shapes paint over earlier ones.
#[derive(Debug, Clone)]
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// An empty picture of the given size in pixels, on a white background.
    pub fn new(width: f64, height: f64) -> Self {
        Svg { width, height, body: String::new() }
    }

    pub fn width(&self) -> f64 {
        self.width
    }

    pub fn height(&self) -> f64 {
        self.height
    }

    /// A rectangle; pass `"none"` as `stroke` for no outline.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="{}"/>"#,
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0)),
            escape(fill),
            escape(stroke)
        );
    }

    /// A straight line segment.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        self.segment((x1, y1), (x2, y2), stroke, width, "");
    }

    /// A dashed line segment, used for reference marks that are not data.
    pub fn dashed_line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        self.segment((x1, y1), (x2, y2), stroke, width, r#" stroke-dasharray="6 4""#);
    }

    fn segment(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64, extra: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{}/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            escape(stroke),
            num(width),
            extra
        );
    }

    /// A connected line through `points`; fewer than two points draw nothing.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64) {
        if points.len() < 2 {
            return;
        }
        let coords: Vec<String> = points.iter().map(|&(x, y)| format!("{},{}", num(x), num(y))).collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>"#,
            coords.join(" "),
            escape(stroke),
            num(width)
        );
    }

    /// A filled circle.
    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: &str) {
        let _ = writeln!(self.body, r#"<circle cx="{}" cy="{}" r="{}" fill="{}"/>"#, num(cx), num(cy), num(r.max(0.0)), escape(fill));
    }

    /// An unfilled circle, to mark a point on a line.
    pub fn ring(&mut self, cx: f64, cy: f64, r: f64, stroke: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
            num(cx),
            num(cy),
            num(r.max(0.0)),
            escape(stroke)
        );
    }

    /// A text label with its baseline at `y`. The content is escaped.
    pub fn text(&mut self, x: f64, y: f64, content: &str, style: TextStyle) {
        let weight = if style.bold { r#" font-weight="bold""# } else { "" };
        let _ = writeln!(
            self.body,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}"{}>{}</text>"#,
            num(x),
            num(y),
            num(style.size),
            style.anchor.as_str(),
            escape(style.fill),
            weight,
            escape(content)
        );
    }

    /// The finished document.
    pub fn finish(self) -> String {
        let w = num(self.width);
        let h = num(self.height);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n\
             <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n{}</svg>\n",
            self.body
        )
    }
}

/// A tick spacing of 1, 2 or 5 times a power of ten that splits `span`
/// into roughly `target` intervals. Round numbers make axes readable.
fn nice_step(span: f64, target: f64) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let raw = span / target.max(1.0);
    let magnitude = 10f64.powf(raw.log10().floor());
    let fraction = raw / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// Tick values from `lo` to at least `hi`, spaced by a nice step.
fn ticks(lo: f64, hi: f64, target: f64) -> Vec<f64> {
    let step = nice_step(hi - lo, target);
    let first = (lo / step).floor() * step;
    let mut out = Vec::new();
    let mut i = 0.0;
    loop {
        let v = first + i * step;
        out.push(v);
        if v >= hi - step * 1e-9 || out.len() > 50 {
            break;
        }
        i += 1.0;
    }
    out
}

/// Format a tick or value label: whole numbers without decimals, others
/// with one decimal (two below 1), so 1986.5 stays 1986.5.
fn label_number(v: f64) -> String {
    if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        num((v * 10.0).round() / 10.0)
    } else {
        num(v)
    }
}

/// Geometry of a bar chart's value axis: where zero is and how many pixels
/// one unit takes. Kept separate so tests can check proportionality.
struct BarScale {
    x0: f64,
    px_per_unit: f64,
    ticks: Vec<f64>,
}

impl BarScale {
    fn new(x0: f64, plot_width: f64, max_value: f64) -> Self {
        let top = if max_value.is_finite() && max_value > 0.0 { max_value } else { 1.0 };
        let ticks = ticks(0.0, top, 5.0);
        let axis_max = ticks.last().copied().unwrap_or(top).max(top);
        BarScale { x0, px_per_unit: plot_width / axis_max, ticks }
    }

    /// Bar length for `v`; negative and non-finite values draw as empty.
    fn length(&self, v: f64) -> f64 {
        if v.is_finite() && v > 0.0 { v * self.px_per_unit } else { 0.0 }
    }
}

/// Several finished pictures one above the other in one document (each
/// nested as its own `<svg>`), so a lab can write all its pictures to one
/// file.
pub fn stack(pictures: &[String]) -> String {
    let size = |doc: &str, attribute: &str| -> f64 {
        let key = format!("{attribute}=\"");
        doc.find(&key).and_then(|i| doc[i + key.len()..].split('"').next()).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    };
    let width = pictures.iter().map(|p| size(p, "width")).fold(0.0, f64::max);
    let height: f64 = pictures.iter().map(|p| size(p, "height")).sum();
    let mut body = String::new();
    let mut y = 0.0;
    for picture in pictures {
        let inner = picture.trim_end().replacen("<svg ", &format!("<svg x=\"0\" y=\"{}\" ", num(y)), 1);
        body.push_str(&inner);
        body.push('\n');
        y += size(picture, "height");
    }
    let (w, h) = (num(width), num(height));
    format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n{body}</svg>\n")
}

/// One bar of [`bar_chart_annotated`]: a label, a value and an optional
/// note printed after the value (for example "72.9% of cuBLAS").
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub note: Option<String>,
}

/// A dashed vertical line across a bar chart at `value`, labelled above
/// the plot (for example "cuBLAS" or "FP32 peak").
pub struct Reference {
    pub label: String,
    pub value: f64,
    pub colour: &'static str,
}

/// Decimals that show `max` (the largest value of a chart) with about
/// three significant digits; every value of the chart uses the same.
fn chart_decimals(max: f64) -> usize {
    match max.abs() {
        m if m >= 100.0 => 0,
        m if m >= 10.0 => 1,
        _ => 2,
    }
}

/// Horizontal bar chart: one labelled bar per entry, an optional vertical
/// reference line (for example "cuBLAS" or "peak bandwidth") and a value
/// axis with ticks. Values are drawn from zero; negative values draw as
/// empty bars but still show their number.
pub fn bar_chart(title: &str, bars: &[(String, f64)], reference_line: Option<(String, f64)>, unit: &str) -> String {
    let bars: Vec<Bar> = bars.iter().map(|(label, value)| Bar { label: label.clone(), value: *value, note: None }).collect();
    let references: Vec<Reference> =
        reference_line.into_iter().map(|(label, value)| Reference { label, value, colour: "#d62728" }).collect();
    bar_chart_annotated(title, &bars, &references, unit)
}

/// [`bar_chart`] with a note after each value and any number of reference
/// lines. Every number is rounded alike, and a value label that would
/// cross a reference line moves inside its bar (or past the line).
pub fn bar_chart_annotated(title: &str, bars: &[Bar], references: &[Reference], unit: &str) -> String {
    // The narrowest chart; it widens for long labels and titles.
    const MIN_WIDTH: f64 = 760.0;
    const BAR_H: f64 = 24.0;
    const GAP: f64 = 10.0;
    const FONT: f64 = 12.0;

    let top = 56.0 + 14.0 * references.len().saturating_sub(1) as f64;
    let label_w = (bars.iter().map(|b| text_width(&b.label, FONT)).fold(0.0, f64::max) + 16.0).max(80.0);
    let x0 = label_w + 8.0;

    let finite_max = |values: &mut dyn Iterator<Item = f64>| values.filter(|v| v.is_finite()).fold(0.0, f64::max);
    let max_bar = finite_max(&mut bars.iter().map(|b| b.value));
    let max_ref = finite_max(&mut references.iter().map(|r| r.value));
    let decimals = chart_decimals(max_bar.max(max_ref));
    let value_text = |b: &Bar| {
        let number = format!("{:.decimals$} {unit}", b.value);
        match &b.note {
            Some(note) => format!("{} · {note}", number.trim_end()),
            None => number.trim_end().to_string(),
        }
    };
    // Room on the right for the longest value label past the longest bar.
    let widest_text = bars.iter().map(|b| text_width(&value_text(b), FONT)).fold(0.0, f64::max);
    let right = (widest_text + 16.0).max(130.0);
    // Bold text runs about a tenth wider than the estimate.
    let title_w = text_width(title, 16.0) * 1.1 + 40.0;
    let width = (x0 + 360.0 + right).max(MIN_WIDTH).max(title_w);
    let plot_w = width - x0 - right;
    let scale = BarScale::new(x0, plot_w, max_bar.max(max_ref));
    let reference_xs: Vec<f64> = references.iter().map(|r| x0 + scale.length(r.value)).collect();
    let crosses = |start: f64, w: f64| reference_xs.iter().any(|&x| x > start - 3.0 && x < start + w + 3.0);

    let plot_bottom = top + bars.len() as f64 * (BAR_H + GAP);
    let height = plot_bottom + 56.0;
    let mut svg = Svg::new(width, height);
    svg.text(width / 2.0, 24.0, title, TextStyle::new(16.0).anchor(Anchor::Middle).bold());

    // Values sit just past their bars, unless one of them would cross a
    // reference line: then all of them form a column right of the plot.
    let beside = |bar: &Bar| x0 + scale.length(bar.value) + 6.0;
    let column = bars.iter().any(|b| crosses(beside(b), text_width(&value_text(b), FONT)));
    for (i, bar) in bars.iter().enumerate() {
        let y = top + i as f64 * (BAR_H + GAP);
        let baseline = y + BAR_H * 0.68;
        svg.text(label_w, baseline, &bar.label, TextStyle::new(FONT).anchor(Anchor::End));
        svg.rect(x0, y, scale.length(bar.value), BAR_H, BAR_FILL, "none");
        let x = if column { x0 + plot_w + 10.0 } else { beside(bar) };
        svg.text(x, baseline, &value_text(bar), TextStyle::new(FONT));
    }

    // Value axis with ticks along the bottom.
    svg.line(x0, plot_bottom, x0 + plot_w, plot_bottom, "#444", 1.0);
    svg.line(x0, top - 6.0, x0, plot_bottom, "#444", 1.0);
    for &t in &scale.ticks {
        let x = scale.x0 + scale.length(t);
        svg.line(x, plot_bottom, x, plot_bottom + 5.0, "#444", 1.0);
        svg.text(x, plot_bottom + 18.0, &label_number(t), TextStyle::new(11.0).anchor(Anchor::Middle));
    }
    svg.text(x0 + plot_w / 2.0, plot_bottom + 40.0, unit, TextStyle::new(FONT).anchor(Anchor::Middle));

    // Reference labels one row each, the leftmost line's on top, each to
    // the right of its line: no line then crosses another's label.
    let mut order: Vec<usize> = (0..references.len()).collect();
    order.sort_by(|&a, &b| reference_xs[a].total_cmp(&reference_xs[b]));
    for (row, &i) in order.iter().enumerate() {
        let (reference, x) = (&references[i], reference_xs[i]);
        let label_y = top - 14.0 - 14.0 * (references.len() - 1 - row) as f64;
        svg.dashed_line(x, label_y - 10.0, x, plot_bottom, reference.colour, 1.5);
        let text = format!("{} ({:.decimals$} {unit}", reference.label, reference.value);
        let text = format!("{})", text.trim_end());
        let (anchor, dx) = if x + 4.0 + text_width(&text, 11.0) > width - 4.0 { (Anchor::End, -4.0) } else { (Anchor::Start, 4.0) };
        svg.text(x + dx, label_y, &text, TextStyle::new(11.0).anchor(anchor).fill(reference.colour));
    }
    svg.finish()
}

/// Line chart of one or more series of (x, y) points, with ticked axes and
/// a legend. The y axis always includes zero so that differences are not
/// exaggerated by a truncated axis. Non-finite points are skipped.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    line_chart_marked(title, x_label, y_label, series, None)
}

/// [`line_chart`] with one x value marked: a dashed vertical line labelled
/// `label`, and a ring on every series' point at that x (for example "this
/// kernel" on an occupancy curve).
pub fn line_chart_marked(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    mark: Option<(f64, String)>,
) -> String {
    line_chart_within(title, x_label, y_label, series, mark, None)
}

/// One line of a chart: the index of its first series (for the colour),
/// its legend text, and its points.
type Line<'a> = (usize, String, &'a [(f64, f64)]);

/// Series with exactly the same points, drawn as one line in the first
/// one's colour under one legend entry ("L4 = RTX A6000"): a line drawn
/// over its twin would hide it. Each entry keeps the index of its first
/// series, which picks the colour.
fn merge_identical(series: &[(String, Vec<(f64, f64)>)]) -> Vec<Line<'_>> {
    let mut merged: Vec<Line> = Vec::new();
    for (i, (name, points)) in series.iter().enumerate() {
        match merged.iter_mut().find(|(_, _, p)| *p == points.as_slice()) {
            Some((_, names, _)) => *names = format!("{names} = {name}"),
            None => merged.push((i, name.clone(), points)),
        }
    }
    merged
}

/// [`line_chart_marked`] whose y axis spans at least `y_range` (such as 0
/// to 100 for a percentage), whatever the data's own range.
pub fn line_chart_within(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    mark: Option<(f64, String)>,
    y_range: Option<(f64, f64)>,
) -> String {
    const PLOT_W: f64 = 510.0;
    const HEIGHT: f64 = 450.0;
    const LEFT: f64 = 70.0;
    // Room above the plot for the y label and the mark's label, so no line
    // runs through them.
    const TOP: f64 = 66.0;
    const BOTTOM: f64 = 64.0;
    // The lowest y value sits this far above the x axis, so a line at the
    // bottom of the range (occupancy 0) is not hidden by the axis.
    const INSET: f64 = 8.0;
    let series = merge_identical(series);
    // The legend gets as much room as its longest name needs.
    let longest = series.iter().map(|(_, name, _)| text_width(name, 12.0)).fold(0.0, f64::max);
    let right = (16.0 + 26.0 + longest + 12.0).max(120.0);
    let width = LEFT + PLOT_W + right;

    let points = || series.iter().flat_map(|(_, _, pts)| pts.iter().copied()).filter(|(x, y)| x.is_finite() && y.is_finite());
    let (mut x_lo, mut x_hi) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (x, _)| (lo.min(x), hi.max(x)));
    if !x_lo.is_finite() {
        (x_lo, x_hi) = (0.0, 1.0);
    } else if x_hi <= x_lo {
        (x_lo, x_hi) = (x_lo - 1.0, x_hi + 1.0);
    }
    let (floor, ceiling) = y_range.unwrap_or((0.0, 0.0));
    let (y_min, y_max) = points().fold((floor.min(0.0), ceiling), |(lo, hi), (_, y)| (lo.min(y), hi.max(y)));
    let y_max = if y_max <= y_min { y_min + 1.0 } else { y_max };

    let x_ticks = ticks(x_lo, x_hi, 8.0);
    let y_ticks = ticks(y_min, y_max, 5.0);
    let (x_lo, x_hi) = (x_ticks[0].min(x_lo), x_ticks.last().copied().unwrap_or(x_hi).max(x_hi));
    let (y_lo, y_hi) = (y_ticks[0].min(y_min), y_ticks.last().copied().unwrap_or(y_max).max(y_max));

    let plot_h = HEIGHT - TOP - BOTTOM;
    let axis_y = TOP + plot_h;
    let px = |x: f64| LEFT + (x - x_lo) / (x_hi - x_lo) * PLOT_W;
    let py = |y: f64| TOP + (plot_h - INSET) * (1.0 - (y - y_lo) / (y_hi - y_lo));

    let mut svg = Svg::new(width, HEIGHT);
    svg.text(width / 2.0, 24.0, title, TextStyle::new(16.0).anchor(Anchor::Middle).bold());
    let label_y = TOP - 14.0;
    svg.text(LEFT, label_y, y_label, TextStyle::new(12.0).anchor(Anchor::Middle));

    for &t in &y_ticks {
        let y = py(t);
        svg.line(LEFT, y, LEFT + PLOT_W, y, "#e4e4e4", 1.0);
        svg.text(LEFT - 8.0, y + 4.0, &label_number(t), TextStyle::new(11.0).anchor(Anchor::End));
    }
    for &t in &x_ticks {
        let x = px(t);
        svg.line(x, axis_y, x, axis_y + 5.0, "#444", 1.0);
        svg.text(x, axis_y + 18.0, &label_number(t), TextStyle::new(11.0).anchor(Anchor::Middle));
    }
    svg.line(LEFT, axis_y, LEFT + PLOT_W, axis_y, "#444", 1.0);
    svg.line(LEFT, TOP, LEFT, axis_y, "#444", 1.0);
    svg.text(LEFT + PLOT_W / 2.0, HEIGHT - 18.0, x_label, TextStyle::new(12.0).anchor(Anchor::Middle));

    if let Some((x, label)) = &mark {
        let at = px(*x);
        svg.dashed_line(at, TOP - 8.0, at, axis_y, "#555", 1.0);
        // Above the plot, on the y label's row: right of the line unless
        // that runs out of the plot, and never over the y label.
        let label_w = text_width(label, 11.0);
        let y_label_end = LEFT + text_width(y_label, 12.0) / 2.0 + 8.0;
        let (anchor, x) =
            if at + 4.0 + label_w > LEFT + PLOT_W { (Anchor::End, at - 4.0) } else { (Anchor::Start, (at + 4.0).max(y_label_end)) };
        svg.text(x, label_y, label, TextStyle::new(11.0).anchor(anchor).fill("#555"));
    }
    for (entry, (i, name, pts)) in series.iter().enumerate() {
        let colour = LINE_COLOURS[i % LINE_COLOURS.len()];
        let mapped: Vec<(f64, f64)> = pts.iter().filter(|(x, y)| x.is_finite() && y.is_finite()).map(|&(x, y)| (px(x), py(y))).collect();
        // Earlier series are drawn wider, so a line that coincides with a
        // later one in places still shows as a band around it there.
        let line_width = 2.0 + 1.5 * (series.len() - 1 - entry) as f64;
        svg.polyline(&mapped, colour, line_width);
        if mapped.len() <= 40 {
            for &(x, y) in &mapped {
                svg.circle(x, y, 2.5, colour);
            }
        }
        if let Some((mx, _)) = &mark
            && let Some(&(x, y)) = pts.iter().find(|(x, y)| x == mx && y.is_finite())
        {
            svg.ring(px(x), py(y), 5.0, colour);
        }
        let ly = TOP + 10.0 + entry as f64 * 20.0;
        let lx = LEFT + PLOT_W + 16.0;
        svg.line(lx, ly, lx + 20.0, ly, colour, line_width.max(3.0));
        svg.text(lx + 26.0, ly + 4.0, name, TextStyle::new(12.0));
    }
    svg.finish()
}

/// Rough width in pixels of `text` in the sans-serif font at `size`:
/// enough to keep labels apart and inside the picture.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Check that `doc` is one balanced `<svg>` element, that every tag is
    /// closed in order, and that no raw `<` or bare `&` appears in text.
    /// Shared with the other modules' tests.
    #[test]
    fn stacking_puts_pictures_one_below_the_other() {
        let a = Svg::new(100.0, 40.0).finish();
        let b = Svg::new(60.0, 25.0).finish();
        let both = stack(&[a, b]);
        assert_well_formed(&both);
        assert!(both.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"65\""), "{both}");
        assert!(both.contains("<svg x=\"0\" y=\"40\" xmlns="), "{both}");
    }

    pub(crate) fn assert_well_formed(doc: &str) {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = doc;
        let mut roots = 0;
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open]);
            let after = &rest[open + 1..];
            let close = after.find('>').expect("unterminated tag");
            let tag = &after[..close];
            assert!(!tag.contains('<'), "'<' inside tag {tag:?}");
            if let Some(name) = tag.strip_prefix('/') {
                let top = stack.pop().expect("closing tag with nothing open");
                assert_eq!(top, name.trim(), "mismatched closing tag");
            } else {
                let name: String = tag.chars().take_while(|c| !c.is_whitespace() && *c != '/').collect();
                assert!(!name.is_empty(), "empty tag name");
                assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes in {tag:?}");
                if stack.is_empty() {
                    roots += 1;
                    assert_eq!(name, "svg", "root element must be svg");
                }
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            rest = &after[close + 1..];
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed tags: {stack:?}");
        assert_eq!(roots, 1, "expected exactly one root element");
    }

    fn check_text(text: &str) {
        assert!(!text.contains('>'), "raw '>' in text {text:?}");
        let mut rest = text;
        while let Some(amp) = rest.find('&') {
            let after = &rest[amp + 1..];
            let ok = ["amp;", "lt;", "gt;", "quot;", "apos;"].iter().any(|e| after.starts_with(e));
            assert!(ok, "bare '&' in text {text:?}");
            rest = after;
        }
    }

    /// Widths of all rectangles drawn with the given fill, in order.
    fn rect_widths(doc: &str, fill: &str) -> Vec<f64> {
        doc.lines()
            .filter(|l| l.starts_with("<rect") && l.contains(&format!("fill=\"{fill}\"")))
            .map(|l| {
                let start = l.find("width=\"").expect("width") + 7;
                let end = start + l[start..].find('"').expect("quote");
                l[start..end].parse::<f64>().expect("number")
            })
            .collect()
    }

    #[test]
    fn escapes_text_and_attributes() {
        let mut svg = Svg::new(100.0, 50.0);
        svg.text(1.0, 2.0, "a < b & \"c\" > 'd'", TextStyle::new(10.0));
        svg.rect(0.0, 0.0, 5.0, 5.0, "red\"", "none");
        let doc = svg.finish();
        assert!(doc.contains("a &lt; b &amp; &quot;c&quot; &gt; &apos;d&apos;"));
        assert!(doc.contains("fill=\"red&quot;\""));
        assert_well_formed(&doc);
    }

    #[test]
    fn every_shape_is_well_formed() {
        let mut svg = Svg::new(200.0, 100.0);
        svg.rect(1.0, 1.0, 10.0, 10.0, palette(3), "#000");
        svg.line(0.0, 0.0, 10.0, 10.0, "#000", 1.0);
        svg.dashed_line(0.0, 0.0, 10.0, 10.0, "#000", 1.0);
        svg.polyline(&[(0.0, 0.0), (5.0, 5.0), (9.0, 1.0)], "#000", 1.0);
        svg.circle(5.0, 5.0, 2.0, "#f00");
        svg.text(3.0, 3.0, "hi", TextStyle::new(9.0).anchor(Anchor::End).fill("#fff").bold());
        assert_eq!((svg.width(), svg.height()), (200.0, 100.0));
        let doc = svg.finish();
        assert_well_formed(&doc);
        for tag in ["<rect", "<line", "stroke-dasharray", "<polyline", "<circle", "font-weight"] {
            assert!(doc.contains(tag), "missing {tag}");
        }
    }

    #[test]
    fn numbers_are_compact_and_never_invalid() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.239), "1.24");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(f64::INFINITY), "0");
    }

    #[test]
    fn nice_ticks_are_round() {
        assert_eq!(ticks(0.0, 100.0, 5.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(ticks(0.0, 1986.5, 5.0).last().copied(), Some(2000.0));
        assert_eq!(nice_step(0.0, 5.0), 1.0);
        assert_eq!(label_number(1986.5), "1986.5");
        assert_eq!(label_number(2000.0), "2000");
        assert_eq!(label_number(1.0 / 3.0), "0.33");
    }

    #[test]
    fn bar_lengths_are_proportional_to_values() {
        let bars = vec![("naive".to_string(), 309.0), ("coalesced".to_string(), 1986.5), ("half".to_string(), 154.5)];
        let doc = bar_chart("GFLOP/s", &bars, None, "GFLOP/s");
        assert_well_formed(&doc);
        let w = rect_widths(&doc, BAR_FILL);
        assert_eq!(w.len(), 3);
        // Widths are written with two decimals, so ratios hold to about 1e-4.
        approx::assert_relative_eq!(w[1] / w[0], 1986.5 / 309.0, max_relative = 1e-3);
        approx::assert_relative_eq!(w[0] / w[2], 2.0, max_relative = 1e-3);
        assert!(!doc.contains("stroke-dasharray"));
    }

    #[test]
    fn bar_chart_draws_the_reference_line() {
        let bars = vec![("kernel 1".to_string(), 50.0), ("kernel <2>".to_string(), 80.0)];
        let doc = bar_chart("vs library", &bars, Some(("cuBLAS".to_string(), 100.0)), "%");
        assert_well_formed(&doc);
        assert!(doc.contains("cuBLAS (100 %)"), "{doc}");
        assert!(doc.contains("kernel &lt;2&gt;"));
        // The dashed line sits where a bar of value 100 would end.
        let scale_end = rect_widths(&doc, BAR_FILL)[1] / 80.0 * 100.0;
        let line = doc.lines().find(|l| l.contains("stroke-dasharray")).expect("reference line");
        let start = line.find("x1=\"").expect("x1") + 4;
        let end = start + line[start..].find('"').expect("quote");
        let x: f64 = line[start..end].parse().expect("number");
        let bar_x: f64 = {
            let l = doc.lines().find(|l| l.contains(&format!("fill=\"{BAR_FILL}\""))).expect("bar");
            let s = l.find("x=\"").expect("x") + 3;
            l[s..s + l[s..].find('"').expect("quote")].parse().expect("number")
        };
        approx::assert_abs_diff_eq!(x, bar_x + scale_end, epsilon = 0.05);
    }

    #[test]
    fn bar_chart_survives_odd_values() {
        let bars = vec![("neg".to_string(), -3.0), ("nan".to_string(), f64::NAN)];
        let doc = bar_chart("odd", &bars, None, "");
        assert_well_formed(&doc);
        assert!(rect_widths(&doc, BAR_FILL).iter().all(|&w| w == 0.0));
        assert_well_formed(&bar_chart("empty", &[], None, "x"));
    }

    #[test]
    fn line_chart_is_well_formed_with_legend() {
        let series = vec![
            ("A100".to_string(), vec![(32.0, 1.0), (64.0, 0.5), (128.0, 0.25)]),
            ("T4 & co".to_string(), vec![(32.0, 1.0), (64.0, 1.0)]),
        ];
        let doc = line_chart("occupancy", "registers", "fraction", &series);
        assert_well_formed(&doc);
        assert_eq!(doc.matches("<polyline").count(), 2);
        assert!(doc.contains("T4 &amp; co"));
    }

    #[test]
    fn identical_series_share_one_line_and_one_legend_entry() {
        let same = vec![(1.0, 50.0), (2.0, 25.0)];
        let series =
            vec![("T4".to_string(), vec![(1.0, 100.0), (2.0, 50.0)]), ("RTX A6000".to_string(), same.clone()), ("L4".to_string(), same)];
        let doc = line_chart("occupancy", "registers", "%", &series);
        assert_well_formed(&doc);
        assert_eq!(doc.matches("<polyline").count(), 2);
        assert!(doc.contains(">RTX A6000 = L4<"), "{doc}");
        // The merged line keeps the first GPU's colour.
        assert!(doc.contains(&format!("stroke=\"{}\"", LINE_COLOURS[1])) && !doc.contains(LINE_COLOURS[2]), "{doc}");
    }

    /// Every y tick label of a chart, in drawing order.
    fn y_tick_labels(doc: &str) -> Vec<String> {
        doc.split("text-anchor=\"end\"")
            .skip(1)
            .filter_map(|rest| rest.split_once('>').and_then(|(_, t)| t.split_once('<')).map(|(t, _)| t.to_string()))
            .collect()
    }

    #[test]
    fn a_range_holds_the_axis_even_when_every_value_is_zero() {
        let zeros = vec![("T4".to_string(), vec![(1.0, 0.0), (2.0, 0.0)])];
        let doc = line_chart_within("occupancy", "registers", "%", &zeros, Some((1.5, "this kernel: 1.5".into())), Some((0.0, 100.0)));
        assert_well_formed(&doc);
        let labels = y_tick_labels(&doc);
        assert_eq!(labels.first().map(String::as_str), Some("0"), "{labels:?}");
        assert_eq!(labels.last().map(String::as_str), Some("100"), "{labels:?}");
    }

    #[test]
    fn line_chart_handles_degenerate_input() {
        assert_well_formed(&line_chart("none", "x", "y", &[]));
        let one = vec![("p".to_string(), vec![(5.0, 5.0)])];
        let doc = line_chart("one", "x", "y", &one);
        assert_well_formed(&doc);
        assert!(doc.contains("<circle"));
    }
}
