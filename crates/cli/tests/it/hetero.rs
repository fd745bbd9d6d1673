//! End-to-end tests of `gridsched schedule hetero`.

use std::path::Path;

use gridsched_geom::Window;
use gridsched_reservation::hetero::{
    HeteroAlgorithm, HeteroAudit, HeteroConfig, HeteroScheduler, RateProposal, rates,
};
use gridsched_sim::StreamKey;
use gridsched_workload::hetero::HeteroWorkload;
use gridsched_workload::{Request, write_requests};

use crate::common::{gridsched, text};

/// The chapter-4 workload on a 12-server level-4 system, as a request CSV.
fn write_stream(path: &Path, n: usize) -> Vec<Request> {
    let total: f64 = rates::level_rates(RateProposal::A, 4, 12)
        .unwrap()
        .iter()
        .sum();
    let reqs: Vec<Request> = HeteroWorkload::new(total, 0.8)
        .stream(&StreamKey::new(3, "cli-hetero"))
        .unwrap()
        .take(n)
        .map(|r| Request {
            arrival: r.arrival,
            window: Window::new(r.ready, r.work, r.deadline).unwrap(),
        })
        .collect();
    write_requests(std::fs::File::create(path).unwrap(), &reqs).unwrap();
    reqs
}

/// `schedule hetero --algorithm NAME` on `input` with the servers given by `servers` (e.g.
/// `["--rates", "0.5,1"]`) and any `extra` options, writing `out`.
fn schedule_hetero(
    name: &str,
    servers: [&str; 2],
    extra: &[&str],
    input: &Path,
    out: &Path,
) -> std::process::Output {
    let mut args = vec!["schedule", "hetero", "--algorithm", name];
    args.extend(servers);
    args.extend(extra);
    args.extend([
        "--requests",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    gridsched(&args)
}

#[test]
fn every_algorithm_matches_the_library_and_passes_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let reqs = write_stream(&input, 3000);
    let server_rates = rates::level_rates(RateProposal::A, 4, 12).unwrap();
    let rate_list: Vec<String> = server_rates.iter().map(|r| r.to_string()).collect();
    let rates_arg = rate_list.join(",");
    // The same rates as a file, with comments and blank lines.
    let rates_file = dir.path().join("rates.txt");
    let mut file_text = String::from("# 12 servers, level 4\n\n");
    for r in &rate_list {
        file_text.push_str(&format!("{r}   # one server\n"));
    }
    std::fs::write(&rates_file, file_text).unwrap();

    for (algorithm, name) in [
        (HeteroAlgorithm::FfHu, "ff-hu"),
        (HeteroAlgorithm::FfHa, "ff-ha"),
        (HeteroAlgorithm::FfHaPlus, "ff-ha-plus"),
    ] {
        let out = dir.path().join(format!("{name}.csv"));
        let run = schedule_hetero(name, ["--rates", &rates_arg], &[], &input, &out);
        assert!(run.status.success(), "{}", text(&run.stderr));
        assert!(
            text(&run.stderr).contains("3000 requests"),
            "{}",
            text(&run.stderr)
        );
        let csv = std::fs::read_to_string(&out).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("id,accepted,server,start,end"));

        let mut lib =
            HeteroScheduler::new(HeteroConfig::new(server_rates.clone(), algorithm)).unwrap();
        let mut audit = HeteroAudit::new();
        let mut accepted = 0;
        for (i, (line, r)) in lines.zip(&reqs).enumerate() {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f[0], i.to_string());
            let b = lib.submit(r.arrival, &r.window).unwrap();
            match b {
                Some(b) => {
                    accepted += 1;
                    assert_eq!(f[1], "true");
                    assert_eq!(f[2].parse::<u32>().unwrap(), b.server);
                    assert_eq!(f[3].parse::<f64>().unwrap(), b.start);
                    assert_eq!(f[4].parse::<f64>().unwrap(), b.end);
                    let rate = server_rates[b.server as usize];
                    let w = &r.window;
                    audit.record(i, r.arrival, w.ready, w.length, w.deadline, Some(&b), rate);
                }
                None => assert_eq!(f[1..], ["false", "", "", ""]),
            }
        }
        assert!(accepted > 1000, "{name}: {accepted}");
        assert!(audit.violations().is_empty(), "{name}");

        // The rates file gives the same output.
        let out2 = dir.path().join(format!("{name}-file.csv"));
        let servers = ["--rates-file", rates_file.to_str().unwrap()];
        let run = schedule_hetero(name, servers, &[], &input, &out2);
        assert!(run.status.success(), "{}", text(&run.stderr));
        assert_eq!(std::fs::read(&out2).unwrap(), csv.as_bytes());

        // The thesis's list scan (spec A26b) makes the same decisions; FF-HA+ has no list.
        let out3 = dir.path().join(format!("{name}-scan.csv"));
        let scan = ["--list-index", "scan"];
        let run = schedule_hetero(name, ["--rates", &rates_arg], &scan, &input, &out3);
        if algorithm == HeteroAlgorithm::FfHaPlus {
            assert!(!run.status.success());
            assert!(text(&run.stderr).contains("list_index = scan applies to ff-hu and ff-ha"));
            assert!(!out3.exists());
        } else {
            assert!(run.status.success(), "{}", text(&run.stderr));
            assert_eq!(std::fs::read(&out3).unwrap(), csv.as_bytes());
        }
    }
}

#[test]
fn bad_inputs_fail_with_file_and_line_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.csv");
    std::fs::write(&good, "id,arrival,ready,length,deadline\na,0,1,2,10\n").unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "id,arrival,ready,length,deadline\na,0,1,2,10\nb,0,1,x,10\n",
    )
    .unwrap();
    let late = dir.path().join("late.csv");
    std::fs::write(
        &late,
        "id,arrival,ready,length,deadline\na,5,6,2,10\nb,1,6,2,10\n",
    )
    .unwrap();
    let rates_bad = dir.path().join("rates.txt");
    std::fs::write(&rates_bad, "0.5\n# comment\n1.5\n").unwrap();
    let rates_nan = dir.path().join("rates2.txt");
    std::fs::write(&rates_nan, "0.5\nfast\n").unwrap();
    let rates_empty = dir.path().join("rates3.txt");
    std::fs::write(&rates_empty, "# nothing\n\n").unwrap();
    let out = dir.path().join("out.csv");
    let o = out.to_str().unwrap();
    let run = |extra: &[&str], input: &Path| {
        let mut args = vec![
            "schedule",
            "hetero",
            "--algorithm",
            "ff-ha-plus",
            "--requests",
            input.to_str().unwrap(),
            "--out",
            o,
        ];
        args.extend_from_slice(extra);
        gridsched(&args)
    };
    let rb = rates_bad.to_str().unwrap().to_string();
    let rn = rates_nan.to_str().unwrap().to_string();
    let re = rates_empty.to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &Path, String)> = vec![
        (
            vec!["--rates", "0.5,2"],
            &good,
            "--rates: server 1: rate 2 is not in (0, 1]".into(),
        ),
        (
            vec!["--rates", "0.5,abc"],
            &good,
            "--rates: server 1: `abc` is not a number".into(),
        ),
        (
            vec!["--rates", "-0.5"],
            &good,
            "--rates: server 0: rate -0.5 is not in (0, 1]".into(),
        ),
        (
            vec!["--rates-file", &rb],
            &good,
            format!("{rb}:3: rate 1.5 is not in (0, 1]"),
        ),
        (
            vec!["--rates-file", &rn],
            &good,
            format!("{rn}:2: `fast` is not a number"),
        ),
        (
            vec!["--rates-file", &re],
            &good,
            format!("{re}: no server rates"),
        ),
        (
            vec!["--rates", "0.5"],
            &bad,
            format!("{}:3: length: `x` is not a number", bad.display()),
        ),
        (
            vec!["--rates", "0.5"],
            &late,
            format!("{}:3: request `b`: arrival 1 is earlier", late.display()),
        ),
        (
            vec!["--rates", "0.5", "--min-fragment", "-1"],
            &good,
            "min_fragment".into(),
        ),
    ];
    for (extra, input, want) in cases {
        let r = run(&extra, input);
        assert!(!r.status.success(), "{extra:?} succeeded");
        let err = text(&r.stderr);
        assert!(err.contains(&want), "{extra:?}: got `{err}`, want `{want}`");
        assert!(!out.exists(), "{extra:?} left an output file");
    }
    // Neither or both rate options: a usage error.
    for extra in [vec![], vec!["--rates", "0.5", "--rates-file", &rb]] {
        let r = run(&extra, &good);
        assert!(!r.status.success());
        assert!(!out.exists());
    }
    // And a valid run writes the file.
    let r = run(&["--rates", "0.5,1"], &good);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let csv = std::fs::read_to_string(&out).unwrap();
    // Work 2 ready at 1, due 10: the rate-0.5 server (class searched first) runs it 4 h.
    assert_eq!(csv, "id,accepted,server,start,end\na,true,0,1,5\n");
}
