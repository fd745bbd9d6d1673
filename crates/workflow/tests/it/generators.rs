//! The generators: determinism from the stream key, the distributional shape spec §4.3 states
//! for the synthetic workflow, CyberShake's counts against Table 2, merging.

use std::collections::BTreeMap;

use gridsched_sim::StreamKey;
use gridsched_workflow::{
    CYBERSHAKE_TABLE_2, CyberShake, Depth, GBIT, LevelWidths, RankOptions, ReferenceRuntime,
    SyntheticWorkflow, TaskId, Workflow, critical_path, merge, total_work, upward_ranks,
};

fn key(rep: u32) -> StreamKey {
    StreamKey::new(2008, "workflow-tests")
        .point("n=100")
        .replication(rep)
}

fn same(a: &Workflow, b: &Workflow) -> bool {
    a.tasks() == b.tasks() && a.edges() == b.edges()
}

#[test]
fn same_key_same_dag_other_key_other_dag() {
    let p = SyntheticWorkflow::default();
    let a = p.generate(&key(0)).unwrap();
    let b = p.generate(&key(0)).unwrap();
    assert!(same(&a, &b));
    assert!(!same(&a, &p.generate(&key(1)).unwrap()));
    // The stream name set on the caller's key is replaced by the generator's own names.
    assert!(same(&a, &p.generate(&key(0).stream("whatever")).unwrap()));
    // Laws use separate streams: changing the processors leaves runtimes and edges alone.
    let q = SyntheticWorkflow {
        procs_mean: 6,
        ..p.clone()
    };
    let c = q.generate(&key(0)).unwrap();
    assert_eq!(a.edges(), c.edges());
    let rt = |w: &Workflow| w.tasks().iter().map(|t| t.runtime).collect::<Vec<_>>();
    assert_eq!(rt(&a), rt(&c));
    assert_ne!(
        a.tasks().iter().map(|t| t.procs).collect::<Vec<_>>(),
        c.tasks().iter().map(|t| t.procs).collect::<Vec<_>>()
    );
}

/// Real (non-dummy) tasks grouped by level, levels renumbered from 0 without the entry.
fn real_levels(w: &Workflow) -> BTreeMap<u32, Vec<TaskId>> {
    let mut out: BTreeMap<u32, Vec<TaskId>> = BTreeMap::new();
    for t in w.task_ids() {
        if w.task(t).name != "dummy" {
            out.entry(w.level(t) - 1).or_default().push(t);
        }
    }
    out
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn variance(v: &[f64]) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
}

#[test]
fn synthetic_shape_matches_spec_4_3() {
    let p = SyntheticWorkflow::default();
    let (mut runtimes, mut procs, mut widths, mut bytes) = (vec![], vec![], vec![], vec![]);
    let reps = 300;
    for rep in 0..reps {
        let w = p.generate(&key(rep)).unwrap();
        // 100 tasks + entry + exit; 10 levels between the dummies.
        assert_eq!(w.len(), 102);
        assert_eq!(w.depth(), 12);
        let entry = w.find("entry").unwrap();
        let exit = w.find("exit").unwrap();
        assert_eq!(w.entries(), vec![entry]);
        assert_eq!(w.exits(), vec![exit]);
        for d in [entry, exit] {
            assert_eq!((w.task(d).runtime, w.task(d).procs), (0.0, 0));
        }
        let levels = real_levels(&w);
        assert_eq!(levels.len(), 10);
        for (&l, tasks) in &levels {
            assert!(!tasks.is_empty());
            widths.push(tasks.len() as f64);
            for &t in tasks {
                runtimes.push(w.task(t).runtime);
                procs.push(f64::from(w.task(t).procs));
                let parents: Vec<TaskId> = w.parents(t).collect();
                if l == 0 {
                    assert_eq!(parents, vec![entry]);
                    continue;
                }
                // Two distinct parents from the previous level (one if it has one task).
                let prev = &levels[&(l - 1)];
                assert_eq!(parents.len(), prev.len().min(2));
                assert!(parents.iter().all(|p| prev.contains(p)));
                for e in w.predecessors(t) {
                    bytes.push(e.bytes as f64);
                }
            }
        }
        // Edges into exit and out of entry carry nothing.
        assert!(w.successors(entry).iter().all(|e| e.bytes == 0));
    }
    // Runtimes ~ U(500, 1500): bounds, mean 1000 (σ = 1000/√12), variance.
    assert!(runtimes.iter().all(|&r| (500.0..=1500.0).contains(&r)));
    let se = 1000.0 / 12f64.sqrt() / (runtimes.len() as f64).sqrt();
    assert!(
        (mean(&runtimes) - 1000.0).abs() < 4.0 * se,
        "{}",
        mean(&runtimes)
    );
    assert!((variance(&runtimes) / (1e6 / 12.0) - 1.0).abs() < 0.05);
    // Processors ~ integer U(1, 43): mean 22, all values reached.
    assert!(procs.iter().all(|&c| (1.0..=43.0).contains(&c)));
    let se = ((43.0f64 * 43.0 - 1.0) / 12.0).sqrt() / (procs.len() as f64).sqrt();
    assert!((mean(&procs) - 22.0).abs() < 4.0 * se, "{}", mean(&procs));
    assert!(procs.contains(&1.0) && procs.contains(&43.0));
    // Level widths: multinomial, 1 + Binomial(90, 1/10): mean 10, variance 8.1.
    assert!((mean(&widths) - 10.0).abs() < 1e-12);
    let v = variance(&widths);
    assert!((7.0..9.3).contains(&v), "width variance {v}");
    // Edge data ~ U(0, 2000 Gb): mean 1000 Gb.
    assert!(bytes.iter().all(|&b| (0.0..=2000.0 * GBIT).contains(&b)));
    let m = mean(&bytes) / GBIT;
    let se = 2000.0 / 12f64.sqrt() / (bytes.len() as f64).sqrt();
    assert!((m - 1000.0).abs() < 4.0 * se, "{m} Gb");
}

#[test]
fn parents_are_uniform_over_the_previous_level() {
    // Even widths of 10: each of the 10 previous-level tasks is a parent with probability 2/10.
    let p = SyntheticWorkflow {
        level_widths: LevelWidths::Even,
        dummy_entry_exit: false,
        ..SyntheticWorkflow::default()
    };
    let mut hits = [0u32; 10];
    let mut draws = 0;
    for rep in 0..200 {
        let w = p.generate(&key(rep)).unwrap();
        assert_eq!(w.level_widths(), vec![10; 10]);
        for t in w.task_ids() {
            for q in w.parents(t) {
                // Tasks are numbered in level order: position in the parent's level.
                hits[q.index() % 10] += 1;
                draws += 1;
            }
        }
    }
    let expected = f64::from(draws) / 10.0;
    for h in hits {
        // Binomial sd ≈ √(draws · 0.1 · 0.9) ≈ 54; 4 sd.
        assert!(
            (f64::from(h) - expected).abs() < 4.0 * (expected * 0.9).sqrt(),
            "{hits:?}"
        );
    }
}

#[test]
fn switches_and_presets() {
    for (n, depth) in [(100, 10), (200, 14), (300, 17), (400, 20)] {
        let w = SyntheticWorkflow::default()
            .with_size(n)
            .generate(&key(0))
            .unwrap();
        assert_eq!(w.len(), n as usize + 2);
        assert_eq!(w.depth(), depth + 2, "n = {n}");
    }
    let w = SyntheticWorkflow {
        level_widths: LevelWidths::Even,
        tasks: 23,
        depth: Depth::Fixed(5),
        dummy_entry_exit: false,
        ..SyntheticWorkflow::default()
    }
    .generate(&key(0))
    .unwrap();
    assert_eq!(w.level_widths(), vec![5, 5, 5, 4, 4]);
    let sdsc = SyntheticWorkflow::singh_sdsc().generate(&key(0)).unwrap();
    assert!(sdsc.tasks().iter().all(|t| t.procs <= 11));
    let clamped = SyntheticWorkflow {
        max_procs: Some(8),
        ..SyntheticWorkflow::default()
    }
    .generate(&key(0))
    .unwrap();
    assert!(clamped.tasks().iter().all(|t| t.procs <= 8));
    assert!(clamped.tasks().iter().any(|t| t.procs == 8));
    let fixed = SyntheticWorkflow {
        runtime_spread: 0.0,
        edge_data_mean: 0.0,
        parents: 1,
        ..SyntheticWorkflow::singh_multisite()
    }
    .generate(&key(0))
    .unwrap();
    assert!(
        fixed
            .tasks()
            .iter()
            .all(|t| t.name == "dummy" || t.runtime == 1000.0)
    );
    assert_eq!(fixed.total_edge_bytes(), 0);
    assert!(
        fixed
            .task_ids()
            .filter(|&t| fixed.level(t) >= 2 && fixed.task(t).name != "dummy")
            .all(|t| fixed.parents(t).len() == 1)
    );
    assert!(SyntheticWorkflow::singh_multisite().procs_mean == 14);
}

#[test]
fn cybershake_matches_table_2() {
    let w = CyberShake {
        dummy_entry_exit: false,
        ..CyberShake::default()
    }
    .build()
    .unwrap();
    assert_eq!(w.len(), 8039);
    assert_eq!(w.depth(), 5);
    let mut count: BTreeMap<&str, u32> = BTreeMap::new();
    for t in w.task_ids() {
        let task = w.task(t);
        let row = CYBERSHAKE_TABLE_2
            .iter()
            .find(|m| m.name == task.name)
            .unwrap();
        *count.entry(row.name).or_default() += 1;
        assert_eq!((task.runtime, task.procs), (row.runtime, row.procs));
        assert_eq!(w.level(t) + 1, row.level, "{}", task.id);
    }
    for m in CYBERSHAKE_TABLE_2 {
        assert_eq!(count[m.name], m.count, "{}", m.name);
    }
    assert_eq!(
        CYBERSHAKE_TABLE_2.iter().map(|m| m.count).sum::<u32>(),
        8039
    );
    assert_eq!(w.level_widths(), vec![2, 1, 2, 4017, 4017]);
    assert_eq!(w.edges().len(), 1 + 2 + 2 + 3 * 4017);
    // Spec §3 sanity values: AC_BE = 52,460,341 processor-seconds; critical path 89,021 s.
    assert_eq!(w.total_area(), 52_460_341.0);
    let cp = critical_path(&w, &ReferenceRuntime, &RankOptions::default());
    assert_eq!(cp.length, 89_021.0);
    let names: Vec<&str> = cp.tasks.iter().map(|&t| w.task(t).name.as_str()).collect();
    assert_eq!(
        names,
        [
            "fd_grid_xyz",
            "fd_grid_cvm",
            "pmvl_chk1",
            "synthSGT",
            "peakValCal"
        ]
    );

    // With the dummies (the default): one entry, one exit, same critical path.
    let d = CyberShake::default().build().unwrap();
    assert_eq!(d.len(), 8041);
    assert_eq!(d.entries(), vec![d.find("entry").unwrap()]);
    assert_eq!(d.exits(), vec![d.find("exit").unwrap()]);
    assert_eq!(d.edges().len(), w.edges().len() + 2 + 4017);
    let ranks = upward_ranks(&d, &ReferenceRuntime, &RankOptions::default());
    assert_eq!(ranks.rank(d.find("entry").unwrap()), 89_021.0);
    assert_eq!(total_work(&d, &ReferenceRuntime), w.total_runtime());
    // The priority list is topological.
    let pos: Vec<usize> = {
        let mut p = vec![0; d.len()];
        for (i, t) in ranks.priority_list().iter().enumerate() {
            p[t.index()] = i;
        }
        p
    };
    assert!(
        d.edges()
            .iter()
            .all(|e| pos[e.parent.index()] < pos[e.child.index()])
    );
    // A smaller instance.
    let small = CyberShake {
        synth_tasks: 3,
        dummy_entry_exit: true,
    }
    .build()
    .unwrap();
    assert_eq!(small.len(), 11 + 2);
}

#[test]
fn merged_workflows_keep_every_part() {
    let a = SyntheticWorkflow::default().generate(&key(0)).unwrap();
    let b = CyberShake {
        synth_tasks: 10,
        dummy_entry_exit: false,
    }
    .build()
    .unwrap();
    let m = merge(&[("wf0", &a), ("wf1", &b)], true).unwrap();
    assert_eq!(m.len(), a.len() + b.len() + 2);
    assert_eq!(
        m.edges().len(),
        a.edges().len() + b.edges().len() + 1 + 2 + 1 + 10
    );
    assert_eq!(m.total_area(), a.total_area() + b.total_area());
    let t = m.find("wf1/pmvl_chk2").unwrap();
    assert_eq!(m.task(t).procs, 288);
    let r = RankOptions::default();
    let cp = critical_path(&m, &ReferenceRuntime, &r).length;
    let parts = [&a, &b].map(|w| critical_path(w, &ReferenceRuntime, &r).length);
    assert_eq!(cp, parts[0].max(parts[1]));
}
