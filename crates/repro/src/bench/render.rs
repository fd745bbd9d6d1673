//! A report part's Markdown blocks and log-log figures, from its rows and records.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::data::{Records, Row, Val, distinct, log_log_slope, log_slope, ratio, record_value, us};
use super::spec::{
    BlockSpec, ColumnSpec, FigureSpec, GrowthSpec, NearestSpec, PivotSpec, RecordRef, ReportSpec,
    TableSpec, TargetsSpec,
};
use crate::plot::{Figure, PlotKind, PlotPoint, PlotSeries, Scale};

const DASH: &str = "—";

/// Everything a part's blocks and figures read.
pub struct Part<'a> {
    pub spec: &'a ReportSpec,
    pub rows: Vec<Row>,
    pub records: Records,
}

impl Part<'_> {
    /// Fills `{field}` and `{field:label}` in `template` from `fields` (and `extra` pairs).
    fn fill(&self, template: &str, fields: &[(String, Val)], extra: &[(&str, String)]) -> String {
        let mut out = template.to_string();
        for (k, v) in extra {
            out = out.replace(&format!("{{{k}}}"), v);
        }
        for (k, v) in fields {
            let label = format!("{{{k}:label}}");
            if out.contains(&label) {
                out = out.replace(&label, &self.value_label(k, v));
            }
            out = out.replace(&format!("{{{k}}}"), &v.to_string());
        }
        out
    }

    /// `value_labels[field][value]`, else its `default` template, else the value.
    fn value_label(&self, field: &str, v: &Val) -> String {
        let value = v.to_string();
        match self.spec.value_labels.get(field) {
            Some(labels) => match labels.get(&value) {
                Some(l) => l.clone(),
                None => labels.get("default").map_or(value.clone(), |d| {
                    d.replace(&format!("{{{field}}}"), &value)
                }),
            },
            None => value,
        }
    }

    fn header(&self, field: &str) -> String {
        self.spec
            .headers
            .get(field)
            .cloned()
            .unwrap_or_else(|| field.to_string())
    }

    fn record(&self, r: &RecordRef, row: &Row) -> Option<&Val> {
        record_value(&self.records, r, row)
    }

    fn cell(&self, c: &ColumnSpec, row: &Row) -> String {
        if let Some(f) = &c.field {
            let v = row.get(f).map_or(DASH.to_string(), Val::to_string);
            return match &c.strip_prefix {
                Some(p) => v.strip_prefix(p.as_str()).unwrap_or(&v).to_string(),
                None => v,
            };
        }
        if let Some(t) = &c.time {
            return row.time(t).map_or(DASH.to_string(), |b| us(b.mean_ns));
        }
        if let Some(r) = &c.ratio {
            return row.ratio(r).map_or(DASH.to_string(), ratio);
        }
        if let (Some(record), Some(column)) = (&c.record, &c.column) {
            let r = RecordRef {
                record: record.clone(),
                column: column.clone(),
                filter: c.filter.clone(),
            };
            return match (self.record(&r, row), c.decimals) {
                (Some(v), Some(d)) => v
                    .num()
                    .map_or_else(|| v.to_string(), |x| format!("{x:.d$}")),
                (Some(v), None) => v.to_string(),
                (None, _) => DASH.to_string(),
            };
        }
        DASH.to_string()
    }

    /// The Markdown of every block, with `links[figure name]` = (caption, link) pairs.
    pub fn markdown(&self, links: &BTreeMap<String, Vec<(String, String)>>) -> String {
        if self.rows.is_empty() {
            return self
                .spec
                .empty
                .as_ref()
                .map_or(String::new(), |e| format!("{e}\n\n"));
        }
        let mut md = String::new();
        for b in &self.spec.blocks {
            md.push_str(&self.block(b, links));
        }
        md
    }

    fn block(&self, b: &BlockSpec, links: &BTreeMap<String, Vec<(String, String)>>) -> String {
        let body = if let Some(t) = &b.table {
            self.table(t)
        } else if let Some(p) = &b.pivot {
            self.pivot(p)
        } else if let Some(t) = &b.targets {
            Some(self.targets(t))
        } else if let Some(g) = &b.growth {
            Some(self.growth(g))
        } else if let Some(n) = &b.nearest {
            Some(self.nearest(n))
        } else {
            Some(String::new())
        };
        // A table or pivot without rows drops its whole block (heading and text too).
        let Some(body) = body else {
            return String::new();
        };
        let mut md = String::new();
        if let Some(h) = &b.heading {
            writeln!(md, "{h}\n").ok();
        }
        if let Some(t) = &b.text {
            let t = match &b.growth {
                Some(g) => growth_text(t, g),
                None => t.clone(),
            };
            writeln!(md, "{t}\n").ok();
        }
        for name in &b.figures {
            for (caption, link) in links.get(name).into_iter().flatten() {
                writeln!(md, "![{caption}]({link})\n").ok();
            }
        }
        md.push_str(&body);
        md
    }

    fn header_line(headers: &[String]) -> String {
        format!(
            "| {} |\n|{}\n",
            headers.join(" | "),
            "---|".repeat(headers.len())
        )
    }

    fn table(&self, t: &TableSpec) -> Option<String> {
        let rows: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.matches(&t.filter))
            .filter(|r| {
                t.filter_prefix.iter().all(|(k, p)| {
                    r.get(k)
                        .is_some_and(|v| v.to_string().starts_with(p.as_str()))
                })
            })
            .collect();
        if rows.is_empty() {
            return None;
        }
        let headers: Vec<String> = t.columns.iter().map(|c| c.header.clone()).collect();
        let groups: Vec<Vec<(String, Val)>> = match &t.split {
            Some(s) => distinct(&rows, std::slice::from_ref(s), &[]),
            None => vec![Vec::new()],
        };
        let mut md = String::new();
        for g in groups {
            if let Some(h) = &t.split_heading {
                writeln!(md, "{}\n", self.fill(h, &g, &[])).ok();
            }
            md.push_str(&Self::header_line(&headers));
            for r in rows.iter().filter(|r| r.has(&g)) {
                let cells: Vec<String> = t.columns.iter().map(|c| self.cell(c, r)).collect();
                writeln!(md, "| {} |", cells.join(" | ")).ok();
            }
            md.push('\n');
        }
        Some(md)
    }

    fn pivot(&self, p: &PivotSpec) -> Option<String> {
        let rows: Vec<&Row> = self.rows.iter().filter(|r| r.matches(&p.filter)).collect();
        if rows.is_empty() {
            return None;
        }
        let mut functions: Vec<&String> = Vec::new();
        for r in &rows {
            for f in r.results.keys() {
                if !functions.contains(&f) {
                    functions.push(f);
                }
            }
        }
        functions.sort_by_key(|f| {
            (
                !p.first.contains(f),
                p.first.iter().position(|x| x == *f),
                *f,
            )
        });
        let keys = distinct(
            &rows,
            std::slice::from_ref(&p.rows),
            std::slice::from_ref(&p.rows),
        );
        let mut md = format!("| {} |", self.header(&p.rows));
        for f in &functions {
            write!(md, " {f} |").ok();
        }
        md.push_str("\n|---|");
        md.push_str(&"---|".repeat(functions.len()));
        md.push('\n');
        for k in keys {
            write!(md, "| {} |", k[0].1).ok();
            for f in &functions {
                let v = rows
                    .iter()
                    .find(|r| r.has(&k) && r.results.contains_key(*f))
                    .map(|r| us(r.results[*f].mean_ns));
                write!(md, " {} |", v.as_deref().unwrap_or(DASH)).ok();
            }
            md.push('\n');
        }
        md.push('\n');
        Some(md)
    }

    fn all_rows(&self) -> Vec<&Row> {
        self.rows.iter().collect()
    }

    fn targets(&self, t: &TargetsSpec) -> String {
        let rows = self.all_rows();
        let combos = distinct(&rows, &t.by, &t.by_sort);
        let mut headers: Vec<String> = t.rows.keys().cloned().collect();
        headers.extend(t.by.iter().map(|b| self.header(b)));
        for th in &t.thresholds {
            headers.push(th.header.clone());
            headers.push(format!("≥ {}×", th.min));
        }
        let mut md = Self::header_line(&headers);
        for (field, values) in &t.rows {
            for value in values {
                for c in &combos {
                    let mut cells = vec![value.clone()];
                    cells.extend(c.iter().map(|(_, v)| v.to_string()));
                    for th in &t.thresholds {
                        let x = rows
                            .iter()
                            .find(|r| {
                                r.get(field).is_some_and(|v| v.same(&Val::parse(value)))
                                    && r.has(c)
                                    && r.get(&t.at).is_some_and(|v| v.same(&Val::Num(th.at)))
                            })
                            .and_then(|r| r.ratio(&t.ratio));
                        cells.push(x.map_or(DASH.to_string(), ratio));
                        cells.push(
                            match x {
                                Some(x) if x >= th.min => "met",
                                Some(_) => "**missed**",
                                None => "not run",
                            }
                            .to_string(),
                        );
                    }
                    writeln!(md, "| {} |", cells.join(" | ")).ok();
                }
            }
        }
        md.push('\n');
        md
    }

    fn growth(&self, g: &GrowthSpec) -> String {
        let rows = self.all_rows();
        let combos = distinct(&rows, &g.by, &g.by_sort);
        let splits = distinct(&rows, std::slice::from_ref(&g.split), &[]);
        let mut headers = vec![self.header(&g.split)];
        headers.extend(g.by.iter().map(|b| self.header(b)));
        headers.extend(g.step_headers.iter().cloned());
        if let Some(r) = &g.record {
            headers.push(r.header.clone());
        }
        headers.push(g.slope_header.clone());
        headers.push(g.verdict_header.clone());
        let mut md = Self::header_line(&headers);
        for s in &splits {
            for c in &combos {
                let pick = |x: f64| {
                    rows.iter().find(|r| {
                        r.has(s) && r.has(c) && r.get(&g.at).is_some_and(|v| v.same(&Val::Num(x)))
                    })
                };
                let t = |x: f64| pick(x).and_then(|r| r.time(&g.time)).map(|b| b.mean_ns);
                let pts: Vec<(f64, f64)> = g
                    .points
                    .iter()
                    .filter_map(|&x| t(x).map(|y| (x, y)))
                    .collect();
                if pts.len() < 2 {
                    continue;
                }
                let ratio_cell = |a: Option<f64>, b: Option<f64>| match (a, b) {
                    (Some(a), Some(b)) if a > 0.0 && b > 0.0 => format!("{:.2}", a / b),
                    _ => DASH.to_string(),
                };
                let mut cells = vec![s[0].1.to_string()];
                cells.extend(c.iter().map(|(_, v)| v.to_string()));
                let mut steps = Vec::new();
                for w in g.points.windows(2) {
                    cells.push(ratio_cell(t(w[1]), t(w[0])));
                    if let (Some(b), Some(a)) = (t(w[1]), t(w[0])) {
                        steps.push((b / a, w[1].ln() / w[0].ln()));
                    }
                }
                if let Some(rec) = &g.record {
                    let r = RecordRef {
                        record: rec.record.clone(),
                        column: rec.column.clone(),
                        filter: BTreeMap::new(),
                    };
                    let v = |x: f64| pick(x).and_then(|row| self.record(&r, row)?.num());
                    let n = g.points.len();
                    let (last, before) = if n >= 2 {
                        (v(g.points[n - 1]), v(g.points[n - 2]))
                    } else {
                        (None, None)
                    };
                    cells.push(ratio_cell(last, before));
                }
                cells.push(log_log_slope(&pts).map_or(DASH.to_string(), |x| format!("{x:.2}")));
                let verdict = if steps.is_empty() {
                    DASH
                } else if steps.iter().all(|(r, l)| *r <= g.tolerance * l) {
                    &g.verdicts[0]
                } else {
                    &g.verdicts[1]
                };
                cells.push(verdict.to_string());
                writeln!(md, "| {} |", cells.join(" | ")).ok();
            }
        }
        md.push('\n');
        md
    }

    fn nearest(&self, n: &NearestSpec) -> String {
        let rows = self.all_rows();
        let mut headers = vec![self.header(&n.per)];
        headers.extend(n.columns.iter().map(|c| c.header.clone()));
        headers.push(n.ratio_header.clone());
        headers.push(format!("≥ {}×", n.min));
        let mut md = Self::header_line(&headers);
        for p in distinct(&rows, std::slice::from_ref(&n.per), &[]) {
            let best = rows
                .iter()
                .filter(|r| r.has(&p))
                .filter_map(|r| {
                    let v = self.record(&n.near, r)?.num()?;
                    Some((*r, (v / n.value).ln().abs()))
                })
                .filter(|(_, d)| *d <= n.factor.ln())
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(r, _)| r);
            let mut cells = vec![p[0].1.to_string()];
            match best {
                Some(r) => {
                    cells.extend(n.columns.iter().map(|c| self.cell(c, r)));
                    let x = r.ratio(&n.ratio);
                    cells.push(x.map_or(DASH.to_string(), ratio));
                    cells.push(
                        match x {
                            Some(x) if x >= n.min => "met",
                            Some(_) => "**missed**",
                            None => "not run",
                        }
                        .to_string(),
                    );
                }
                None => {
                    cells.extend(std::iter::repeat_n(DASH.to_string(), n.columns.len() + 1));
                    cells.push("not run".to_string());
                }
            }
            writeln!(md, "| {} |", cells.join(" | ")).ok();
        }
        md.push('\n');
        md
    }

    /// Every figure of the part as (spec name, file stem, figure), in spec order.
    pub fn figures(&self) -> Vec<(String, String, Figure)> {
        let mut out = Vec::new();
        for f in &self.spec.figures {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.matches(&f.filter)).collect();
            let instances = if f.each.is_empty() {
                vec![Vec::new()]
            } else {
                distinct(&rows, &f.each, &f.each_sort)
            };
            for inst in instances {
                let mine: Vec<&Row> = rows.iter().copied().filter(|r| r.has(&inst)).collect();
                let series = self.series(f, &mine);
                if series.len() < f.min_series.unwrap_or(1) {
                    continue;
                }
                let caption_template = match (f.each.as_slice(), inst.first()) {
                    ([_], Some((_, v))) => f.caption_for.get(&v.to_string()).unwrap_or(&f.caption),
                    _ => &f.caption,
                };
                out.push((
                    f.name.clone(),
                    self.fill(&f.stem, &inst, &[]),
                    Figure {
                        caption: self.fill(caption_template, &inst, &[]),
                        x_label: f.x_label.clone(),
                        y_label: f.y_label.clone(),
                        x_scale: Scale::Log10,
                        y_scale: Scale::Log10,
                        x_range: None,
                        y_range: None,
                        kind: PlotKind::Lines,
                        series,
                    },
                ));
            }
        }
        out
    }

    fn point(&self, f: &FigureSpec, row: &Row, functions: &[String]) -> Option<PlotPoint> {
        let b = row.time(functions)?;
        let x = match (&f.x.field, &f.x.record, &f.x.column) {
            (Some(field), _, _) => row.get(field)?.num()?,
            (None, Some(record), Some(column)) => {
                let r = RecordRef {
                    record: record.clone(),
                    column: column.clone(),
                    filter: f.x.filter.clone(),
                };
                self.record(&r, row)?.num()?
            }
            _ => return None,
        };
        Some(PlotPoint {
            x,
            y: b.mean_ns / 1000.0,
            y_low: b.low_ns / 1000.0,
            y_high: b.high_ns / 1000.0,
        })
    }

    fn series(&self, f: &FigureSpec, rows: &[&Row]) -> Vec<PlotSeries> {
        let mut out = Vec::new();
        if let Some(fs) = &f.series_from_function {
            let mut functions: Vec<&String> = Vec::new();
            for r in rows {
                for k in r.results.keys() {
                    if !functions.contains(&k) {
                        functions.push(k);
                    }
                }
            }
            functions.sort_by_key(|k| {
                (
                    !fs.first.contains(k),
                    fs.first.iter().position(|x| x == *k),
                    *k,
                )
            });
            for k in functions {
                let one = std::slice::from_ref(k);
                let points: Vec<PlotPoint> =
                    rows.iter().filter_map(|r| self.point(f, r, one)).collect();
                if !points.is_empty() {
                    out.push(PlotSeries {
                        name: k.clone(),
                        points,
                    });
                }
            }
            return out;
        }
        let combos = if f.series_by.is_empty() {
            vec![Vec::new()]
        } else {
            distinct(rows, &f.series_by, &f.series_by_sort)
        };
        for s in &f.series {
            for c in &combos {
                let points: Vec<PlotPoint> = rows
                    .iter()
                    .filter(|r| r.has(c))
                    .filter_map(|r| self.point(f, r, &s.time))
                    .collect();
                if points.is_empty() {
                    continue;
                }
                let series = self.fill(&s.name, c, &[]);
                let name = match &f.series_name {
                    Some(t) => self.fill(t, c, &[("series", series)]),
                    None => series,
                };
                out.push(PlotSeries { name, points });
            }
        }
        out
    }
}

/// A growth block's paragraph: `{log_ratio[i]}` = ln(points[i+1]) / ln(points[i]),
/// `{log_slope}` = the log-log slope of a log curve over the points, `{tolerance}`.
fn growth_text(text: &str, g: &GrowthSpec) -> String {
    let mut out = text.replace("{tolerance}", &g.tolerance.to_string());
    out = out.replace(
        "{log_slope}",
        &format!("{:.2}", log_slope(&g.points).unwrap_or(f64::NAN)),
    );
    for (i, w) in g.points.windows(2).enumerate() {
        out = out.replace(
            &format!("{{log_ratio[{i}]}}"),
            &format!("{:.2}", w[1].ln() / w[0].ln()),
        );
    }
    out
}
