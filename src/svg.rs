//! Placeholder until the shared SVG builder lands.
pub fn bar_chart(title: &str, bars: &[(String, f64)], reference_line: Option<(String, f64)>, unit: &str) -> String {
    let _ = (title, bars, reference_line, unit);
    String::new()
}
