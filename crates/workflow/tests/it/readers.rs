//! Both readers on every workflow file of the data directory (`../shared/data/workflows/`, or
//! `$GRIDSCHED_DATA/workflows/`). The counts asserted are computed here, independently of the
//! readers: a line scan of the DAX text, a `serde_json::Value` walk of the WfCommons JSON.
//! Without the data the tests print a NOTICE and pass, unless `GRIDSCHED_REQUIRE_DATA=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use gridsched_workflow::data::{DAX_FILES, WFCOMMONS_FILES, data_dir, dax_path, wfcommons_path};
use gridsched_workflow::{EdgeSource, ReadOptions, Workflow, read_workflow};
use serde_json::Value;

/// The data folder, or `None` with a notice (a hard failure when the data is required).
fn workflows() -> Option<PathBuf> {
    gridsched_sim::data::data_file_or_skip("workflows")?;
    Some(data_dir(None))
}

/// The value of ` key="..."` on a line (the generator writes one element per line).
fn attr<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!(" {key}=\"");
    let start = line.find(&pat)? + pat.len();
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

/// What a line scan of a generator-written DAX says.
#[derive(Debug, Default)]
struct DaxScan {
    runtime: BTreeMap<String, f64>,
    name: BTreeMap<String, String>,
    /// file → producers; (consumer, file) → size the consumer declares.
    producers: BTreeMap<String, Vec<String>>,
    consumers: BTreeMap<String, Vec<(String, u64)>>,
    declared: BTreeSet<(String, String)>,
    parent_lines: usize,
}

fn scan_dax(text: &str) -> DaxScan {
    let mut s = DaxScan::default();
    let mut job = String::new();
    let mut child = String::new();
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("<job ") {
            job = attr(l, "id").unwrap().to_string();
            s.runtime
                .insert(job.clone(), attr(l, "runtime").unwrap().parse().unwrap());
            s.name
                .insert(job.clone(), attr(l, "name").unwrap().to_string());
        } else if l.starts_with("<uses ") {
            let f = attr(l, "file").unwrap().to_string();
            let size: u64 = attr(l, "size").unwrap().parse().unwrap();
            match attr(l, "link").unwrap() {
                "input" => s.consumers.entry(f).or_default().push((job.clone(), size)),
                "output" => s.producers.entry(f).or_default().push(job.clone()),
                other => panic!("link {other}"),
            }
        } else if l.starts_with("<child ") {
            child = attr(l, "ref").unwrap().to_string();
        } else if l.starts_with("<parent ") {
            s.parent_lines += 1;
            s.declared
                .insert((attr(l, "ref").unwrap().to_string(), child.clone()));
        }
    }
    s
}

impl DaxScan {
    /// (parent, child) → (bytes the child reads from the parent, files).
    fn file_edges(&self) -> BTreeMap<(String, String), (u64, u32)> {
        let mut out: BTreeMap<(String, String), (u64, u32)> = BTreeMap::new();
        for (f, prods) in &self.producers {
            for p in prods {
                for (c, size) in self.consumers.get(f).into_iter().flatten() {
                    if p != c {
                        let e = out.entry((p.clone(), c.clone())).or_default();
                        e.0 += size;
                        e.1 += 1;
                    }
                }
            }
        }
        out
    }
}

/// Structural invariants every read workflow must satisfy.
fn check_invariants(w: &Workflow) {
    let order = w.topological_order();
    assert_eq!(order.len(), w.len());
    for e in w.edges() {
        assert!(w.topo_position(e.parent) < w.topo_position(e.child));
        assert!(w.level(e.child) > w.level(e.parent));
    }
    let in_sum: usize = w.task_ids().map(|t| w.predecessors(t).len()).sum();
    assert_eq!(in_sum, w.edges().len());
}

fn ids(w: &Workflow, ts: impl Iterator<Item = gridsched_workflow::TaskId>) -> BTreeSet<String> {
    ts.map(|t| w.task(t).id.clone()).collect()
}

#[test]
fn dax_files_match_an_independent_scan() {
    let Some(data) = workflows() else { return };
    for name in DAX_FILES {
        let path = dax_path(&data, name);
        let text = std::fs::read_to_string(&path).unwrap();
        let scan = scan_dax(&text);
        let w = read_workflow(&path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        check_invariants(&w);

        // Tasks, runtimes, names.
        assert_eq!(w.len(), scan.runtime.len(), "{name}: tasks");
        assert_eq!(
            w.len(),
            text.matches("<job ").count(),
            "{name}: <job> count"
        );
        let total: f64 = scan.runtime.values().sum();
        assert!(
            (w.total_runtime() - total).abs() < 1e-9 * total,
            "{name}: total runtime {} vs {total}",
            w.total_runtime()
        );
        for t in w.tasks() {
            assert_eq!(t.runtime, scan.runtime[&t.id], "{name}: {}", t.id);
            assert_eq!(t.name, scan.name[&t.id]);
        }

        // Edges: declared ∪ file-implied, each with the consumer's sizes.
        assert_eq!(
            scan.declared.len(),
            scan.parent_lines,
            "{name}: no repeated <parent>"
        );
        let files = scan.file_edges();
        let mut union: BTreeSet<(String, String)> = scan.declared.clone();
        union.extend(files.keys().cloned());
        assert_eq!(w.edges().len(), union.len(), "{name}: edges");
        let explicit = w.edges().iter().filter(|e| e.explicit).count();
        assert_eq!(explicit, scan.declared.len(), "{name}: declared edges");
        let mut bytes = 0u64;
        for e in w.edges() {
            let key = (w.task(e.parent).id.clone(), w.task(e.child).id.clone());
            assert_eq!(e.explicit, scan.declared.contains(&key), "{name}: {key:?}");
            let (b, f) = files.get(&key).copied().unwrap_or((0, 0));
            assert_eq!((e.bytes, e.files), (b, f), "{name}: {key:?}");
            bytes += b;
        }
        assert_eq!(w.total_edge_bytes(), bytes);

        // Each reading of the edges.
        let only = |edges| {
            read_workflow(
                &path,
                &ReadOptions {
                    edges,
                    ..ReadOptions::default()
                },
            )
            .unwrap()
        };
        assert_eq!(
            only(EdgeSource::Explicit).edges().len(),
            scan.declared.len()
        );
        assert_eq!(only(EdgeSource::Files).edges().len(), files.len());
    }
}

#[test]
fn dax_spot_checks() {
    let Some(data) = workflows() else { return };
    let read = |n: &str| read_workflow(&dax_path(&data, n), &ReadOptions::default()).unwrap();

    let w = read("CyberShake_30.xml");
    let t = w.find("ID00002").unwrap();
    assert_eq!(w.task(t).name, "ExtractSGT");
    assert_eq!(w.task(t).runtime, 158.10);
    assert_eq!(w.task(t).inputs.len(), 3);
    assert_eq!(w.task(t).outputs.len(), 2);
    let s = w.find("ID00003").unwrap();
    assert_eq!(w.task(s).runtime, 39.06);
    assert_eq!(
        ids(&w, w.parents(s)),
        BTreeSet::from(["ID00002".to_string()])
    );
    // ExtractSGT writes FFI_0_1_subf{x,y}.sgt; SeismogramSynthesis ID00003 reads both at
    // 310,892,660 bytes each.
    let e = w.edge(t, s).unwrap();
    assert!(e.explicit);
    assert_eq!((e.bytes, e.files), (2 * 310_892_660, 2));
    // ZipPSA (ID00000) lists no input file: its 8+ parents are declared only, 0 bytes.
    let zip = w.find("ID00000").unwrap();
    assert!(w.predecessors(zip).all(|e| e.explicit && e.bytes == 0));
    assert!(w.predecessors(zip).len() >= 8);

    let w = read("Montage_25.xml");
    let t = w.find("ID00005").unwrap();
    assert_eq!(w.task(t).name, "mDiffFit");
    assert_eq!(w.task(t).runtime, 10.59);
    assert_eq!(
        ids(&w, w.parents(t)),
        BTreeSet::from(["ID00000".to_string(), "ID00001".to_string()])
    );

    let w = read("Montage_1000.xml");
    let t = w.find("ID00999").unwrap();
    assert_eq!(
        (w.task(t).name.as_str(), w.task(t).runtime),
        ("mJPEG", 2.52)
    );
    let w = read("CyberShake_1000.xml");
    let t = w.find("ID00999").unwrap();
    assert_eq!(
        (w.task(t).name.as_str(), w.task(t).runtime),
        ("PeakValCalcOkaya", 1.17)
    );
}

fn str_list(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn wfcommons_files_match_an_independent_walk() {
    let Some(data) = workflows() else { return };
    for name in WFCOMMONS_FILES {
        let path = wfcommons_path(&data, name);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let spec = &doc["workflow"]["specification"];
        let tasks = spec["tasks"].as_array().unwrap();
        let sizes: BTreeMap<String, u64> = spec["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["id"].as_str().unwrap().to_string(),
                    f["sizeInBytes"].as_u64().unwrap(),
                )
            })
            .collect();
        let runtime: BTreeMap<String, f64> = doc["workflow"]["execution"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["id"].as_str().unwrap().to_string(),
                    t["runtimeInSeconds"].as_f64().unwrap(),
                )
            })
            .collect();
        let mut declared = BTreeSet::new();
        let mut writes: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for t in tasks {
            let id = t["id"].as_str().unwrap().to_string();
            for p in str_list(t, "parents") {
                declared.insert((p, id.clone()));
            }
            for c in str_list(t, "children") {
                declared.insert((id.clone(), c));
            }
            for f in str_list(t, "outputFiles") {
                writes.entry(f).or_default().push(id.clone());
            }
        }
        let mut implied: BTreeMap<(String, String), u64> = BTreeMap::new();
        for t in tasks {
            let id = t["id"].as_str().unwrap().to_string();
            for f in str_list(t, "inputFiles") {
                for p in writes.get(&f).into_iter().flatten() {
                    if *p != id {
                        *implied.entry((p.clone(), id.clone())).or_default() += sizes[&f];
                    }
                }
            }
        }

        let w = read_workflow(&path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        check_invariants(&w);
        assert_eq!(w.len(), tasks.len(), "{name}: tasks");
        let total: f64 = tasks
            .iter()
            .map(|t| runtime[t["id"].as_str().unwrap()])
            .sum();
        assert!(
            (w.total_runtime() - total).abs() < 1e-9 * total.max(1.0),
            "{name}: runtime"
        );
        let mut union = declared.clone();
        union.extend(implied.keys().cloned());
        assert_eq!(w.edges().len(), union.len(), "{name}: edges");
        for e in w.edges() {
            let key = (w.task(e.parent).id.clone(), w.task(e.child).id.clone());
            assert_eq!(e.explicit, declared.contains(&key));
            assert_eq!(
                e.bytes,
                implied.get(&key).copied().unwrap_or(0),
                "{name}: {key:?}"
            );
        }
        let program: BTreeMap<&str, &str> = doc["workflow"]["execution"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["id"].as_str().unwrap(),
                    t["command"]["program"].as_str().unwrap(),
                )
            })
            .collect();
        for t in tasks {
            let id = t["id"].as_str().unwrap();
            let tid = w.find(id).unwrap();
            assert_eq!(w.task(tid).runtime, runtime[id]);
            assert_eq!(w.task(tid).name, program[id]);
            // The instances name tasks `<program>_ID<n>`.
            assert!(id.starts_with(program[id]), "{id}");
        }
    }
}

#[test]
fn wfcommons_spot_checks() {
    let Some(data) = workflows() else { return };
    let read = |n: &str| read_workflow(&wfcommons_path(&data, n), &ReadOptions::default()).unwrap();
    let w = read("montage-chameleon-2mass-005d-001.json");
    let t = w.find("mProject_ID0000001").unwrap();
    assert_eq!(w.task(t).runtime, 16.712);
    assert_eq!(w.task(t).name, "mProject");
    assert!(w.parents(t).len() == 0);
    assert_eq!(
        ids(&w, w.children(t)),
        [
            "mDiffFit_ID0000005",
            "mDiffFit_ID0000006",
            "mDiffFit_ID0000007",
            "mBackground_ID0000013"
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    );
    let w = read("seismology-chameleon-100p-001.json");
    let t = w.find("wrapper_siftSTFByMisfit_ID0000101").unwrap();
    assert_eq!(w.task(t).runtime, 0.089);
    assert_eq!(w.parents(t).len(), 100);
    assert_eq!(w.exits(), vec![t]);
    assert_eq!(w.depth(), 2);
}
