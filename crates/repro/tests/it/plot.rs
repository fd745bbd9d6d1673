//! Integration tests of the SVG figure renderer: determinism, content, and edge cases that
//! must produce either a figure or a clean error, never a panic.

use gridsched_repro::plot::{
    Axis, Figure, HEIGHT, PANEL_HEIGHT, PlotError, PlotKind, PlotPoint, PlotSeries, Scale, WIDTH,
    render_panels_svg, render_svg,
};

fn series(name: &str, points: Vec<PlotPoint>) -> PlotSeries {
    PlotSeries {
        name: name.into(),
        points,
    }
}

fn figure(kind: PlotKind, series: Vec<PlotSeries>) -> Figure {
    Figure {
        caption: "Mean response time vs. offered load".into(),
        x_label: "Offered load".into(),
        y_label: "Response time (s)".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        x_range: None,
        y_range: None,
        kind,
        series,
    }
}

/// Eight series with CIs, so every palette colour and marker shape is exercised.
fn sweep() -> Figure {
    let s = (0..8)
        .map(|k| {
            let pts = (1..=9)
                .map(|i| {
                    let x = f64::from(i) / 10.0;
                    let y = (1.0 + f64::from(k) * 0.4) / (1.0 - x);
                    PlotPoint::with_ci(x, y, 0.05 * y)
                })
                .collect();
            series(&format!("policy-{k}"), pts)
        })
        .collect();
    figure(PlotKind::Lines, s)
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn svg_is_well_formed_and_contains_all_text() {
    let fig = sweep();
    let svg = render_svg(&fig).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains(&format!("width=\"{WIDTH}\""))
            && svg.contains(&format!("height=\"{HEIGHT}\""))
    );
    for text in [&fig.caption, &fig.x_label, &fig.y_label] {
        assert!(svg.contains(text.as_str()), "missing {text:?}");
    }
    for s in &fig.series {
        assert!(
            svg.contains(&format!(">\n{}\n</text>", s.name)),
            "missing legend entry {}",
            s.name
        );
    }
    assert_eq!(count(&svg, "<text"), count(&svg, "</text>"));
    assert!(svg.contains("font-family=\"sans-serif\""));
}

#[test]
fn rendering_is_deterministic_across_runs_and_threads() {
    let fig = sweep();
    let first = render_svg(&fig).unwrap();
    assert_eq!(first, render_svg(&fig).unwrap());
    let others: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| render_svg(&fig).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(others.iter().all(|s| *s == first));
}

#[test]
fn steps_kind_draws_no_markers_or_error_bars() {
    let cdf = |name: &str, scale: f64| {
        let n = 20;
        let pts = (1..=n).map(|i| {
            PlotPoint::with_ci(scale * f64::from(i * i), f64::from(i) / f64::from(n), 0.1)
        });
        series(name, pts.collect())
    };
    let mut fig = figure(
        PlotKind::Steps,
        vec![cdf("FCFS", 1.0), cdf("EASY", 2.0), cdf("Conservative", 3.0)],
    );
    fig.y_label = "Fraction of jobs".into();
    let steps = render_svg(&fig).unwrap();
    fig.kind = PlotKind::Lines;
    let lines = render_svg(&fig).unwrap();
    assert!(!steps.contains("<circle"), "Steps must not draw markers");
    assert!(lines.contains("<circle"));
    assert!(steps.contains("FCFS") && steps.contains("Conservative"));
}

#[test]
fn long_captions_wrap_onto_two_lines() {
    let mut fig = sweep();
    fig.caption =
        "Figure 7: Average bounded slowdown of all backfilling variants as a function of \
                   the offered load on the SDSC Blue Horizon trace (95% confidence intervals)"
            .into();
    let svg = render_svg(&fig).unwrap();
    assert!(svg.contains("Figure 7: Average bounded slowdown"));
    assert!(
        !svg.contains(&fig.caption),
        "caption should have been split"
    );
    assert!(svg.contains("(95% confidence intervals)"));
}

#[test]
fn log_axes_render_decade_ticks() {
    let pts = [1.0, 10.0, 100.0, 1000.0, 10000.0].map(|x| PlotPoint::with_ci(x, x * x, x));
    let mut fig = figure(PlotKind::Lines, vec![series("quadratic", pts.to_vec())]);
    fig.x_scale = Scale::Log10;
    fig.y_scale = Scale::Log10;
    let svg = render_svg(&fig).unwrap();
    for label in ["1000", "10⁶", "10⁸"] {
        assert!(
            svg.contains(&format!(">\n{label}\n</text>")),
            "missing tick {label}"
        );
    }
}

#[test]
fn short_log_ranges_still_get_ticks() {
    let pts = [2.0, 3.0, 4.5].map(|x| PlotPoint::new(x, x));
    let mut fig = figure(PlotKind::Lines, vec![series("s", pts.to_vec())]);
    fig.x_scale = Scale::Log10;
    fig.y_scale = Scale::Log10;
    let svg = render_svg(&fig).unwrap();
    assert!(
        svg.contains(">\n3\n</text>") && svg.contains(">\n4\n</text>"),
        "expected 1..9 ticks"
    );
}

#[test]
fn non_positive_values_on_log_axes_are_errors() {
    let mut fig = figure(
        PlotKind::Lines,
        vec![series(
            "zero",
            vec![PlotPoint::new(0.0, 1.0), PlotPoint::new(1.0, 2.0)],
        )],
    );
    fig.x_scale = Scale::Log10;
    let err = render_svg(&fig).unwrap_err();
    assert!(
        matches!(&err, PlotError::NonPositiveOnLogAxis { axis: Axis::X, series, value } if series == "zero" && *value == 0.0),
        "{err}"
    );
    assert!(err.to_string().contains("log10"), "{err}");

    fig.x_scale = Scale::Linear;
    fig.y_scale = Scale::Log10;
    fig.series[0].points[0].y = -3.0;
    assert!(matches!(
        render_svg(&fig),
        Err(PlotError::NonPositiveOnLogAxis { axis: Axis::Y, .. })
    ));

    fig.series[0].points[0].y = 1.0;
    fig.y_range = Some((0.0, 10.0));
    assert!(matches!(
        render_svg(&fig),
        Err(PlotError::InvalidRange { axis: Axis::Y, .. })
    ));
}

#[test]
fn ci_reaching_zero_on_log_axis_is_drawn_to_the_axis() {
    let mut fig = figure(
        PlotKind::Lines,
        vec![series(
            "wide",
            vec![PlotPoint::with_ci(1.0, 1.0, 5.0), PlotPoint::new(2.0, 3.0)],
        )],
    );
    fig.y_scale = Scale::Log10;
    assert!(render_svg(&fig).is_ok());
}

#[test]
fn no_data_is_an_error_not_a_panic() {
    assert!(matches!(
        render_svg(&figure(PlotKind::Lines, vec![])),
        Err(PlotError::NoData)
    ));
    assert!(matches!(
        render_svg(&figure(PlotKind::Lines, vec![series("empty", vec![])])),
        Err(PlotError::NoData)
    ));
    let junk = vec![
        PlotPoint::new(f64::NAN, 1.0),
        PlotPoint::new(1.0, f64::INFINITY),
    ];
    assert!(matches!(
        render_svg(&figure(PlotKind::Steps, vec![series("junk", junk)])),
        Err(PlotError::NoData)
    ));
}

#[test]
fn non_finite_points_and_empty_series_are_skipped() {
    let pts = vec![
        PlotPoint::new(1.0, 2.0),
        PlotPoint::new(f64::NAN, 3.0),
        PlotPoint::new(2.0, f64::NEG_INFINITY),
        PlotPoint {
            x: 3.0,
            y: 4.0,
            y_low: f64::NAN,
            y_high: f64::INFINITY,
        },
    ];
    let fig = figure(
        PlotKind::Lines,
        vec![series("ok", pts), series("nothing", vec![])],
    );
    let svg = render_svg(&fig).unwrap();
    assert!(
        svg.contains("nothing"),
        "empty series keeps its legend entry"
    );
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn degenerate_ranges_are_padded() {
    for kind in [PlotKind::Lines, PlotKind::Steps] {
        for (x, y) in [(5.0, 5.0), (0.0, 0.0), (-2.0, -7.5), (1e300, 1e-300)] {
            let fig = figure(kind, vec![series("one", vec![PlotPoint::new(x, y)])]);
            assert!(render_svg(&fig).is_ok(), "single point ({x}, {y})");
        }
        let flat = (0..5).map(|_| PlotPoint::new(3.0, 3.0)).collect();
        let mut fig = figure(kind, vec![series("flat", flat)]);
        assert!(render_svg(&fig).is_ok());
        fig.x_scale = Scale::Log10;
        fig.y_scale = Scale::Log10;
        assert!(render_svg(&fig).is_ok());
    }
}

#[test]
fn explicit_ranges_are_validated_and_clip_data() {
    let pts = (0..20)
        .map(|i| PlotPoint::with_ci(f64::from(i), f64::from(i * i), 3.0))
        .collect();
    let mut fig = figure(PlotKind::Lines, vec![series("parabola", pts)]);
    fig.x_range = Some((2.0, 10.0));
    fig.y_range = Some((0.0, 50.0));
    assert!(render_svg(&fig).is_ok());
    for bad in [
        (1.0, 1.0),
        (3.0, 2.0),
        (f64::NAN, 1.0),
        (0.0, f64::INFINITY),
    ] {
        fig.x_range = Some(bad);
        assert!(
            matches!(
                render_svg(&fig),
                Err(PlotError::InvalidRange { axis: Axis::X, .. })
            ),
            "{bad:?}"
        );
    }
}

#[test]
fn extreme_magnitudes_do_not_panic() {
    let pts = vec![
        PlotPoint::new(-f64::MAX, f64::MAX),
        PlotPoint::new(f64::MAX, -f64::MAX),
    ];
    let _ = render_svg(&figure(PlotKind::Lines, vec![series("huge", pts)]));
    let tiny = vec![PlotPoint::new(1e-12, 3e-9), PlotPoint::new(2e-12, 4e-9)];
    let svg = render_svg(&figure(PlotKind::Lines, vec![series("tiny", tiny)])).unwrap();
    assert!(
        svg.contains("×10⁻"),
        "tiny values use scientific tick labels"
    );
}

#[test]
fn special_characters_are_escaped() {
    let mut fig = figure(
        PlotKind::Lines,
        vec![series(
            "a<b & \"c\"",
            vec![PlotPoint::new(1.0, 1.0), PlotPoint::new(2.0, 3.0)],
        )],
    );
    fig.caption = "x < y & z".into();
    let svg = render_svg(&fig).unwrap();
    assert!(svg.contains("a&lt;b &amp; &quot;c&quot;") && svg.contains("x &lt; y &amp; z"));
}

#[test]
fn panels_stack_with_their_own_titles_legends_and_a_shared_caption() {
    let mut a = sweep();
    a.caption = "(a) left workload".into();
    a.series.truncate(3);
    let mut b = sweep();
    b.caption = "(b) right workload".into();
    b.series = b.series.split_off(5);
    let svg = render_panels_svg("Fig. 9. Two panels", &[a.clone(), b.clone()]).unwrap();
    assert!(svg.contains(&format!("height=\"{}\"", 60 + 2 * PANEL_HEIGHT)));
    for text in [
        "Fig. 9. Two panels",
        "(a) left workload",
        "(b) right workload",
    ] {
        assert_eq!(count(&svg, text), 1, "{text}");
    }
    // Each panel's legend lists its own series only; both panels draw their axis labels.
    for s in a.series.iter().chain(&b.series) {
        assert_eq!(count(&svg, &s.name), 1, "{}", s.name);
    }
    assert!(!svg.contains("policy-3") && !svg.contains("policy-4"));
    assert_eq!(count(&svg, &a.x_label), 2);
    assert_eq!(
        svg,
        render_panels_svg("Fig. 9. Two panels", &[a, b]).unwrap()
    );
    assert!(matches!(
        render_panels_svg("empty", &[]),
        Err(PlotError::NoData)
    ));
}

/// The text lines of an SVG with the `y` of their element, in document order.
fn texts(svg: &str) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    let mut lines = svg.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("<text") {
            let y = rest
                .split("y=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(f64::NAN);
            out.push((y, lines.next().unwrap_or("").to_string()));
        }
    }
    out
}

#[test]
fn very_long_captions_take_more_lines_and_never_split_an_expression() {
    let mut fig = sweep();
    fig.caption = "easy-replay. Waiting-time CDF: the wait each job had on the real machine \
        (SWF field 3) and under our EASY backfilling replay of the same log (requested times \
        as estimates, jobs killed at them), KTH-SP2 and CTC-SP2, with n = 20 and x̄ = 3.28 \
        and q = 0.1 [gridsched, paper scale: whole logs, one deterministic run]"
        .into();
    let svg = render_svg(&fig).unwrap();
    let caption_lines: Vec<String> = texts(&svg)
        .into_iter()
        .take_while(|(y, _)| *y < 80.0)
        .map(|t| t.1)
        .collect();
    assert!(caption_lines.len() >= 3, "{caption_lines:?}");
    // Every word is drawn, in order, and nothing is lost at the edges.
    assert_eq!(caption_lines.join(" "), fig.caption);
    for line in &caption_lines {
        assert!(
            !line.ends_with(" =") && !line.starts_with("= "),
            "expression split: {line:?}"
        );
    }
}

#[test]
fn subscripts_are_typeset_and_identifiers_are_not() {
    let mut fig = sweep();
    fig.caption = "Average waiting time (W_r) between s_r and s'_r; W_sub".into();
    fig.y_label = "wait_req_h and u_c_hihi".into();
    let svg = render_svg(&fig).unwrap();
    let sub = |s: &str| format!("<tspan baseline-shift=\"sub\" font-size=\"75%\">{s}</tspan>");
    assert!(
        svg.contains(&format!(
            "(W{}) between s{} and s&apos;{}; W{}",
            sub("r"),
            sub("r"),
            sub("r"),
            sub("sub")
        )),
        "{svg}"
    );
    assert!(svg.contains("wait_req_h and u_c_hihi"));
}

#[test]
fn a_legend_that_would_cover_data_in_every_corner_goes_below_the_chart() {
    // Flat lines at the top and the bottom of the range: every corner has data.
    let line = |name: &str, y: f64| {
        series(
            name,
            (0..=10).map(|i| PlotPoint::new(f64::from(i), y)).collect(),
        )
    };
    let names = ["a", "b", "c", "d", "e", "f"];
    let mut s: Vec<PlotSeries> = names
        .iter()
        .enumerate()
        .map(|(k, n)| line(n, if k % 2 == 0 { 0.5 } else { 9.5 }))
        .collect();
    let mut fig = figure(PlotKind::Lines, s.clone());
    fig.y_range = Some((0.0, 10.0));
    let svg = render_svg(&fig).unwrap();
    let x_label_y = texts(&svg).iter().find(|t| t.1 == fig.x_label).unwrap().0;
    for n in names {
        let y = texts(&svg).iter().find(|t| t.1 == n).unwrap().0;
        assert!(
            y > x_label_y,
            "legend entry {n} at y {y}, x label at {x_label_y}"
        );
    }
    // With one corner free the legend stays inside the plot, above the x label.
    s.truncate(1);
    let fig = figure(PlotKind::Lines, s);
    let svg = render_svg(&fig).unwrap();
    let y = texts(&svg).iter().find(|t| t.1 == "a").unwrap().0;
    let x_label_y = texts(&svg).iter().find(|t| t.1 == fig.x_label).unwrap().0;
    assert!(y < x_label_y - 40.0, "{y} {:?}", texts(&svg));
}
