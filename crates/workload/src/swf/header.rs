//! The header comments of an SWF log, parsed into typed metadata.

/// A numbered name from the header (`; Queue: 1 DSI`, `; Partition: 2 ALL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedId {
    pub id: i64,
    pub name: String,
}

/// One cleaning filter the archive applied, from the header's notes (`job<=14 (14 jobs
/// removed)`, or LPC's `9932 jobs were removed: job <= 9932`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleaningFilter {
    pub filter: String,
    pub removed: u64,
}

/// The header of a Standard Workload Format log: every `; Key: value` comment in file order
/// (continuation lines joined to their key with `\n`), plus typed views of the fields the
/// SWF definition names. A field that is absent or does not parse is `None` (and a parse
/// problem is listed in [`warnings`](Self::warnings)); the header never makes a log unreadable.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SwfHeader {
    /// Every `Key: value` pair in file order.
    pub fields: Vec<(String, String)>,
    /// Comment lines that are not part of any `Key: value` entry (e.g. column banners).
    pub free_text: Vec<String>,
    pub version: Option<String>,
    pub computer: Option<String>,
    pub installation: Option<String>,
    /// The log's donor (`Acknowledge:`); credit them when using the log.
    pub acknowledge: Option<String>,
    pub information: Vec<String>,
    pub conversion: Option<String>,
    pub max_jobs: Option<u64>,
    pub max_records: Option<u64>,
    pub preemption: Option<String>,
    pub unix_start_time: Option<i64>,
    pub time_zone: Option<i64>,
    pub time_zone_string: Option<String>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub max_nodes: Option<u64>,
    pub max_procs: Option<u64>,
    /// The line [`max_procs`](Self::max_procs) was read from, for messages that refuse it.
    pub max_procs_line: Option<u64>,
    pub max_runtime: Option<i64>,
    pub max_memory: Option<i64>,
    pub allow_overuse: Option<String>,
    pub max_queues: Option<u64>,
    pub queues: Vec<NamedId>,
    pub max_partitions: Option<u64>,
    pub partitions: Vec<NamedId>,
    /// Every `Note:` entry (with its continuation lines).
    pub notes: Vec<String>,
    /// The cleaning filters found in the notes.
    pub cleaning_filters: Vec<CleaningFilter>,
    /// Header values that did not parse, as `line N: ...`.
    pub warnings: Vec<String>,
}

impl SwfHeader {
    /// The first value of `key` (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the notes say this is a cleaned log.
    pub fn is_cleaned(&self) -> bool {
        self.notes
            .iter()
            .any(|n| n.to_ascii_uppercase().contains("CLEANED"))
            || !self.cleaning_filters.is_empty()
    }

    /// Jobs the cleaning filters removed, summed.
    pub fn removed_by_filters(&self) -> u64 {
        self.cleaning_filters.iter().map(|f| f.removed).sum()
    }
}

/// Accumulates header comment lines; `finish` builds the typed header.
#[derive(Debug, Default)]
pub(crate) struct HeaderBuilder {
    entries: Vec<(String, String, u64)>,
    free_text: Vec<String>,
    open: bool,
}

impl HeaderBuilder {
    /// One comment line, without its leading `;`.
    pub(crate) fn push(&mut self, text: &str, line: u64) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            self.open = false;
            return;
        }
        if let Some((key, value)) = split_key(trimmed) {
            self.entries
                .push((key.to_string(), value.trim().to_string(), line));
            self.open = true;
        } else if self.open {
            if let Some(last) = self.entries.last_mut() {
                if !last.1.is_empty() {
                    last.1.push('\n');
                }
                last.1.push_str(trimmed);
            }
        } else {
            self.free_text.push(trimmed.to_string());
        }
    }

    pub(crate) fn finish(self) -> SwfHeader {
        let mut h = SwfHeader {
            free_text: self.free_text,
            ..SwfHeader::default()
        };
        for (key, value, line) in &self.entries {
            let k = key.to_ascii_lowercase();
            let first_line = value.lines().next().unwrap_or("").trim().to_string();
            let mut int = |field: &mut Option<i64>| {
                if field.is_none() {
                    match leading_int(&first_line) {
                        Some(v) => *field = Some(v),
                        None => h
                            .warnings
                            .push(format!("line {line}: `{key}: {value}` is not a number")),
                    }
                }
            };
            let mut tmp: Option<i64> = None;
            match k.as_str() {
                "unixstarttime" => int(&mut h.unix_start_time),
                "timezone" => int(&mut h.time_zone),
                "maxruntime" => int(&mut h.max_runtime),
                "maxmemory" => int(&mut h.max_memory),
                "maxjobs" | "maxrecords" | "maxnodes" | "maxprocs" | "maxqueues"
                | "maxpartitions" => {
                    int(&mut tmp);
                    let v = tmp.and_then(|v| u64::try_from(v).ok());
                    let slot = match k.as_str() {
                        "maxjobs" => &mut h.max_jobs,
                        "maxrecords" => &mut h.max_records,
                        "maxnodes" => &mut h.max_nodes,
                        "maxprocs" => &mut h.max_procs,
                        "maxqueues" => &mut h.max_queues,
                        _ => &mut h.max_partitions,
                    };
                    if slot.is_none() {
                        *slot = v;
                        if k == "maxprocs" && v.is_some() {
                            h.max_procs_line = Some(*line);
                        }
                    }
                }
                "queue" | "partition" => match named_id(&first_line) {
                    Some(n) if k == "queue" => h.queues.push(n),
                    Some(n) => h.partitions.push(n),
                    None => h
                        .warnings
                        .push(format!("line {line}: `{key}: {value}` has no number")),
                },
                "note" => h.notes.push(value.clone()),
                "information" => h.information.push(value.clone()),
                _ => {
                    let slot = match k.as_str() {
                        "version" => &mut h.version,
                        "computer" => &mut h.computer,
                        "installation" => &mut h.installation,
                        "acknowledge" => &mut h.acknowledge,
                        "conversion" => &mut h.conversion,
                        "preemption" => &mut h.preemption,
                        "timezonestring" => &mut h.time_zone_string,
                        "starttime" => &mut h.start_time,
                        "endtime" => &mut h.end_time,
                        "allowoveruse" => &mut h.allow_overuse,
                        _ => continue,
                    };
                    if slot.is_none() {
                        *slot = Some(value.clone());
                    }
                }
            }
        }
        for note in &h.notes {
            for l in note.lines() {
                if let Some(f) = parse_filter(l.trim()) {
                    h.cleaning_filters.push(f);
                }
            }
        }
        h.fields = self.entries.into_iter().map(|(k, v, _)| (k, v)).collect();
        h
    }
}

/// `Key: value` where the key is one word of letters and digits starting with a letter and the
/// colon ends the text or is followed by a blank (so `http://...` is not a key).
fn split_key(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let key = &text[..colon];
    let after = &text[colon + 1..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let mut chars = key.chars();
    let first = chars.next()?;
    if first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Some((key, &text[colon + 1..]))
    } else {
        None
    }
}

/// The integer a value starts with (`338 (batch partition; 512 total)` → 338).
fn leading_int(text: &str) -> Option<i64> {
    let t = text.trim_start();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().ok()
}

fn named_id(text: &str) -> Option<NamedId> {
    let t = text.trim();
    let id = leading_int(t)?;
    let rest = t
        .trim_start_matches(['-', '+'])
        .trim_start_matches(|c: char| c.is_ascii_digit());
    Some(NamedId {
        id,
        name: rest.trim().to_string(),
    })
}

/// `FILTER (N jobs removed)` or `N jobs were removed: FILTER`.
fn parse_filter(line: &str) -> Option<CleaningFilter> {
    if let Some(open) = line.rfind('(')
        && let Some(inner) = line[open + 1..].strip_suffix(')')
    {
        let inner = inner.trim();
        let n = inner
            .strip_suffix("jobs removed")
            .or_else(|| inner.strip_suffix("job removed"))?;
        let removed: u64 = n.trim().parse().ok()?;
        return Some(CleaningFilter {
            filter: line[..open].trim().to_string(),
            removed,
        });
    }
    let (count, rest) = line.split_once(" jobs were removed:")?;
    Some(CleaningFilter {
        filter: rest.trim().to_string(),
        removed: count.trim().parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(lines: &[&str]) -> SwfHeader {
        let mut b = HeaderBuilder::default();
        for (i, l) in lines.iter().enumerate() {
            b.push(l, i as u64 + 1);
        }
        b.finish()
    }

    #[test]
    fn typed_fields_and_continuations() {
        let h = header(&[
            " Version: 2.2",
            " MaxNodes: 338 (batch partition; 512 total)",
            " MaxProcs: 338",
            " Information: http://a/",
            "              http://b/",
            " Queue:  1 DSI      ",
            " Queue:  2 astro",
            "",
            " Note: THIS IS A CLEANED VERSION OF THE LOG!",
            "       The filters used to produce it were",
            "         user=2 (305178 jobs removed)",
            "         job<=10 (5 jobs removed)",
            "",
            "    j|       s|",
            "   TimeZone: 3600\t # DEPRECATED",
            " MaxJobs: lots",
        ]);
        assert_eq!(h.version.as_deref(), Some("2.2"));
        assert_eq!(h.max_nodes, Some(338));
        assert_eq!(h.max_procs, Some(338));
        assert_eq!(h.max_procs_line, Some(3));
        assert_eq!(h.information, vec!["http://a/\nhttp://b/".to_string()]);
        assert_eq!(
            h.queues,
            vec![
                NamedId {
                    id: 1,
                    name: "DSI".into()
                },
                NamedId {
                    id: 2,
                    name: "astro".into()
                }
            ]
        );
        assert!(h.is_cleaned());
        assert_eq!(h.cleaning_filters.len(), 2);
        assert_eq!(h.cleaning_filters[0].filter, "user=2");
        assert_eq!(h.removed_by_filters(), 305_183);
        assert_eq!(h.free_text, vec!["j|       s|".to_string()]);
        assert_eq!(h.time_zone, Some(3600));
        assert_eq!(h.max_jobs, None);
        assert_eq!(h.warnings.len(), 1, "{:?}", h.warnings);
    }

    #[test]
    fn lpc_style_filter_note() {
        let h = header(&["            Note: 9932 jobs were removed: job <= 9932"]);
        assert_eq!(
            h.cleaning_filters,
            vec![CleaningFilter {
                filter: "job <= 9932".into(),
                removed: 9932
            }]
        );
    }
}
