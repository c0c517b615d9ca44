//! Chart geometry for the HTML report: turns counts into the coordinates of inline SVG shapes
//! (bars, points, axis labels, a marker line). The SVG markup itself lives in the HTML template;
//! this module only does the arithmetic, so charts are plain data that snapshot tests can read.

use serde::Serialize;

/// Drawing area of every chart, in SVG user units (the SVG scales to its container).
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
/// Room for the y-axis labels on the left and the x-axis labels at the bottom.
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 36.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 12.0;

/// A text label placed on a chart.
#[derive(Debug, Clone, Serialize)]
pub struct Label {
    /// Anchor x.
    pub x: f64,
    /// Anchor y (baseline).
    pub y: f64,
    /// The text.
    pub text: String,
}

/// A straight line with a label (the accept threshold, the y = x diagonal).
#[derive(Debug, Clone, Serialize)]
pub struct Marker {
    /// Start x.
    pub x1: f64,
    /// Start y.
    pub y1: f64,
    /// End x.
    pub x2: f64,
    /// End y.
    pub y2: f64,
    /// Caption drawn next to the line.
    pub label: Label,
}

/// One bar.
#[derive(Debug, Clone, Serialize)]
pub struct Bar {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// CSS class (colour).
    pub class: &'static str,
    /// Hover text (`<title>`), also what a screen reader reads.
    pub tip: String,
    /// The value printed above the bar (empty for zero bars).
    pub value: String,
}

/// One scatter point.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// Centre x.
    pub cx: f64,
    /// Centre y.
    pub cy: f64,
    /// CSS class (colour).
    pub class: &'static str,
    /// Hover text.
    pub tip: String,
}

/// A chart: its frame, labels and shapes. Bar charts leave `points` empty, scatters `bars`.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    /// Stable element id of the `<svg>`.
    pub id: String,
    /// Accessible title.
    pub title: String,
    /// viewBox width.
    pub width: f64,
    /// viewBox height.
    pub height: f64,
    /// Plot area: left, top, right, bottom.
    pub plot: [f64; 4],
    /// Bars.
    pub bars: Vec<Bar>,
    /// Points.
    pub points: Vec<Point>,
    /// Labels under the x axis.
    pub x_labels: Vec<Label>,
    /// Labels left of the y axis (with their grid lines).
    pub y_labels: Vec<Label>,
    /// Threshold or diagonal line.
    pub marker: Option<Marker>,
    /// Axis captions: x below, y rotated on the left.
    pub x_caption: String,
    /// Caption of the y axis.
    pub y_caption: String,
}

/// One bar's data.
#[derive(Debug, Clone)]
pub struct BarSpec {
    /// Label under the bar (empty to skip).
    pub label: String,
    /// Height value.
    pub value: f64,
    /// CSS class.
    pub class: &'static str,
    /// Hover text.
    pub tip: String,
}

fn frame(id: &str, title: &str, x_caption: &str, y_caption: &str) -> Chart {
    Chart {
        id: id.to_owned(),
        title: title.to_owned(),
        width: WIDTH,
        height: HEIGHT,
        plot: [LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM],
        bars: Vec::new(),
        points: Vec::new(),
        x_labels: Vec::new(),
        y_labels: Vec::new(),
        marker: None,
        x_caption: x_caption.to_owned(),
        y_caption: y_caption.to_owned(),
    }
}

/// Rounds a coordinate to 0.1 unit so the markup (and its snapshots) stays short and stable.
fn r(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// A bar chart of `bars`, left to right. `marker_at` draws a vertical line at a position given in
/// bar units (0 = left edge of the first bar, `bars.len()` = right edge of the last).
#[must_use]
pub fn bar_chart(
    id: &str,
    title: &str,
    (x_caption, y_caption): (&str, &str),
    bars: &[BarSpec],
    marker_at: Option<(f64, String)>,
) -> Chart {
    let mut chart = frame(id, title, x_caption, y_caption);
    let [left, top, right, bottom] = chart.plot;
    let max = bars.iter().map(|b| b.value).fold(0.0_f64, f64::max);
    // A round-ish top so the gridlines land on whole numbers for counts.
    let top_value = if max <= 0.0 { 1.0 } else { max.ceil() };
    let n = bars.len().max(1);
    #[allow(clippy::cast_precision_loss)] // a handful of bars
    let slot = (right - left) / n as f64;
    let gap = (slot * 0.15).min(6.0);
    let scale = (bottom - top) / top_value;
    for (i, b) in bars.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let x = left + slot * i as f64;
        let h = (b.value.max(0.0) * scale).max(0.0);
        chart.bars.push(Bar {
            x: r(x + gap / 2.0),
            y: r(bottom - h),
            w: r(slot - gap),
            h: r(h),
            class: b.class,
            tip: b.tip.clone(),
            value: if b.value > 0.0 {
                trim_number(b.value)
            } else {
                String::new()
            },
        });
        if !b.label.is_empty() {
            chart.x_labels.push(Label {
                x: r(x + slot / 2.0),
                y: r(bottom + 14.0),
                text: b.label.clone(),
            });
        }
    }
    for step in 0..=2 {
        let value = top_value * f64::from(step) / 2.0;
        chart.y_labels.push(Label {
            x: r(left - 6.0),
            y: r(bottom - value * scale),
            text: trim_number(value),
        });
    }
    if let Some((at, label)) = marker_at {
        let x = r(left + slot * at);
        chart.marker = Some(Marker {
            x1: x,
            y1: top,
            x2: x,
            y2: bottom,
            label: Label {
                x: r(x + 4.0),
                y: top + 10.0,
                text: label,
            },
        });
    }
    chart
}

/// A scatter of `(x, y)` in [0, 1]², with the y = x diagonal. Points that share a target are
/// spread sideways a little (by their order) so they do not hide each other.
#[must_use]
pub fn unit_scatter(
    id: &str,
    title: &str,
    (x_caption, y_caption): (&str, &str),
    points: &[(f64, f64, &'static str, String)],
) -> Chart {
    let mut chart = frame(id, title, x_caption, y_caption);
    let [left, top, right, bottom] = chart.plot;
    let sx = |v: f64| left + v.clamp(0.0, 1.0) * (right - left);
    let sy = |v: f64| bottom - v.clamp(0.0, 1.0) * (bottom - top);
    for (i, (x, y, class, tip)) in points.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)] // i % 7 is tiny
        let jitter = ((i % 7) as f64 - 3.0) * 2.5;
        chart.points.push(Point {
            cx: r(sx(*x) + jitter),
            cy: r(sy(*y)),
            class,
            tip: tip.clone(),
        });
    }
    for step in 0..=4 {
        let v = f64::from(step) / 4.0;
        chart.x_labels.push(Label {
            x: r(sx(v)),
            y: r(bottom + 14.0),
            text: format!("{:.0}%", v * 100.0),
        });
        chart.y_labels.push(Label {
            x: r(left - 6.0),
            y: r(sy(v)),
            text: format!("{:.0}%", v * 100.0),
        });
    }
    chart.marker = Some(Marker {
        x1: r(sx(0.0)),
        y1: r(sy(0.0)),
        x2: r(sx(1.0)),
        y2: r(sy(1.0)),
        label: Label {
            x: r(sx(0.78)),
            y: r(sy(0.86)),
            text: "measured = target".to_owned(),
        },
    });
    chart
}

/// A number without a trailing `.0`, at most two decimals.
#[must_use]
pub fn trim_number(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_tallest_and_marker_sits_between_bars() {
        let bars: Vec<BarSpec> = [2.0, 4.0, 0.0]
            .iter()
            .map(|&v| BarSpec {
                label: String::new(),
                value: v,
                class: "bar",
                tip: String::new(),
            })
            .collect();
        let chart = bar_chart("c", "t", ("x", "y"), &bars, Some((2.0, "thr".into())));
        let [_, top, _, bottom] = chart.plot;
        assert_eq!(chart.bars[1].h, r(bottom - top));
        assert_eq!(chart.bars[0].h, r((bottom - top) / 2.0));
        assert_eq!(chart.bars[2].h, 0.0);
        assert_eq!(chart.bars[2].value, "");
        let m = chart.marker.expect("marker");
        assert!(m.x1 > chart.bars[1].x && m.x1 < chart.bars[2].x + chart.bars[2].w);
        assert_eq!(chart.y_labels.last().map(|l| l.text.as_str()), Some("4"));
    }

    #[test]
    fn numbers_are_trimmed() {
        assert_eq!(trim_number(2.0), "2");
        assert_eq!(trim_number(2.5), "2.5");
        assert_eq!(trim_number(0.126), "0.13");
    }
}
