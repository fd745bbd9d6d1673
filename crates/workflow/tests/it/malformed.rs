//! Malformed inputs: each gives the right typed error, naming the file and the element (XML
//! line/column/byte, JSON path); random and mutated inputs never panic.

use gridsched_workflow::{
    ErrorKind, Location, ReadOptions, Role, WorkflowError, parse_dax_bytes, parse_dax_str,
    parse_wfcommons_bytes, parse_wfcommons_str,
};
use proptest::prelude::*;

const DAX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1" name="t">
  <job id="A" namespace="t" name="split" version="1.0" runtime="10.5">
    <uses file="in.dat" link="input" size="100"/>
    <uses file="a.out" link="output" size="50"/>
  </job>
  <job id="B" namespace="t" name="work" version="1.0" runtime="20">
    <uses file="a.out" link="input" size="50"/>
    <uses file="b.out" link="output" size="7"/>
  </job>
  <job id="C" namespace="t" name="join" version="1.0" runtime="5">
    <uses file="b.out" link="input" size="7"/>
  </job>
  <child ref="B">
    <parent ref="A"/>
  </child>
  <child ref="C">
    <parent ref="B"/>
  </child>
</adag>
"#;

const JSON: &str = r#"{
  "name": "t",
  "schemaVersion": "1.5",
  "workflow": {
    "specification": {
      "tasks": [
        {"name": "split", "id": "A", "parents": [], "children": ["B"], "inputFiles": [], "outputFiles": ["a.out"]},
        {"name": "work", "id": "B", "parents": ["A"], "children": ["C"], "inputFiles": ["a.out"], "outputFiles": ["b.out"]},
        {"name": "join", "id": "C", "parents": ["B"], "children": [], "inputFiles": ["b.out"], "outputFiles": []}
      ],
      "files": [{"id": "a.out", "sizeInBytes": 50}, {"id": "b.out", "sizeInBytes": 7}]
    },
    "execution": {
      "makespanInSeconds": 1,
      "tasks": [
        {"id": "A", "runtimeInSeconds": 10.5},
        {"id": "B", "runtimeInSeconds": 20},
        {"id": "C", "runtimeInSeconds": 5}
      ]
    }
  }
}"#;

fn dax_err(text: &str) -> WorkflowError {
    parse_dax_str("bad.xml", text, &ReadOptions::default()).expect_err("must fail")
}

fn json_err(text: &str) -> WorkflowError {
    parse_wfcommons_str("bad.json", text, &ReadOptions::default()).expect_err("must fail")
}

/// The 1-based line of the first occurrence of `needle`, and the byte offset of its `<`.
fn line_of(text: &str, needle: &str) -> (u32, u64) {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    (text[..at].matches('\n').count() as u32 + 1, at as u64)
}

fn assert_xml_at(e: &WorkflowError, text: &str, needle: &str) {
    let (line, byte) = line_of(text, needle);
    match e.at {
        Location::Xml {
            line: l, byte: b, ..
        } => assert_eq!((l, b), (line, byte), "{e}"),
        ref other => panic!("expected an XML location, got {other:?} ({e})"),
    }
    assert!(
        e.to_string().starts_with(&format!("bad.xml:{line}:")),
        "{e}"
    );
}

fn assert_json_at(e: &WorkflowError, path: &str) {
    assert_eq!(e.at, Location::json(path), "{e}");
    assert!(
        e.to_string().starts_with(&format!("bad.json: {path}: ")),
        "{e}"
    );
}

#[test]
fn valid_documents_parse() {
    let d = parse_dax_str("ok.xml", DAX, &ReadOptions::default()).unwrap();
    let j = parse_wfcommons_str("ok.json", JSON, &ReadOptions::default()).unwrap();
    for w in [&d, &j] {
        assert_eq!(w.len(), 3);
        assert_eq!(w.edges().len(), 2);
        assert_eq!(w.total_runtime(), 35.5);
    }
}

// ---- DAX ----

#[test]
fn dax_cycle_names_a_task_on_it_at_its_job_element() {
    let text = DAX.replace(
        "  <child ref=\"B\">\n    <parent ref=\"A\"/>",
        "  <child ref=\"A\">\n    <parent ref=\"C\"/>\n  </child>\n  <child ref=\"B\">\n    <parent ref=\"A\"/>",
    );
    let e = dax_err(&text);
    match &e.kind {
        ErrorKind::Cycle { task, cycle } => {
            assert_eq!(task, "A");
            assert_eq!(cycle, &["A", "B", "C", "A"]);
        }
        k => panic!("{k:?}"),
    }
    assert_xml_at(&e, &text, "<job id=\"A\"");
    assert!(
        e.to_string()
            .contains("dependency cycle through task \"A\": A -> B -> C -> A"),
        "{e}"
    );
}

#[test]
fn dax_self_dependency_is_a_cycle() {
    let text = DAX.replace("<parent ref=\"A\"/>", "<parent ref=\"B\"/>");
    let e = dax_err(&text);
    assert!(
        matches!(&e.kind, ErrorKind::Cycle { task, .. } if task == "B"),
        "{e}"
    );
}

#[test]
fn dax_unknown_parent_and_child() {
    let text = DAX.replace("<parent ref=\"A\"/>", "<parent ref=\"Q\"/>");
    let e = dax_err(&text);
    assert_eq!(
        e.kind,
        ErrorKind::UnknownTask {
            id: "Q".into(),
            role: Role::Parent,
            of: Some("B".into())
        }
    );
    assert_xml_at(&e, &text, "<parent ref=\"Q\"");
    assert!(
        e.to_string()
            .ends_with("unknown parent \"Q\" of task \"B\""),
        "{e}"
    );

    let text = DAX.replace("<child ref=\"C\">", "<child ref=\"Z\">");
    let e = dax_err(&text);
    assert_eq!(
        e.kind,
        ErrorKind::UnknownTask {
            id: "Z".into(),
            role: Role::Child,
            of: None
        }
    );
    assert_xml_at(&e, &text, "<child ref=\"Z\"");
    assert!(e.to_string().ends_with(": unknown child \"Z\""), "{e}");
    // Also without any <parent> inside.
    let text = DAX.replace("</adag>", "<child ref=\"W\"/>\n</adag>");
    let e = dax_err(&text);
    assert!(
        matches!(&e.kind, ErrorKind::UnknownTask { id, .. } if id == "W"),
        "{e}"
    );
    assert_xml_at(&e, &text, "<child ref=\"W\"");
}

#[test]
fn dax_missing_negative_and_bad_runtime() {
    let text = DAX.replace(" runtime=\"20\"", "");
    let e = dax_err(&text);
    assert_eq!(e.kind, ErrorKind::MissingRuntime { task: "B".into() });
    assert_xml_at(&e, &text, "<job id=\"B\"");

    let text = DAX.replace("runtime=\"20\"", "runtime=\"-3\"");
    let e = dax_err(&text);
    assert!(
        matches!(&e.kind, ErrorKind::BadRuntime { task, value } if task == "B" && value == "\"-3\""),
        "{e}"
    );
    assert_xml_at(&e, &text, "<job id=\"B\"");

    let text = DAX.replace("runtime=\"20\"", "runtime=\"fast\"");
    assert!(matches!(dax_err(&text).kind, ErrorKind::BadRuntime { .. }));
    let text = DAX.replace("runtime=\"20\"", "runtime=\"NaN\"");
    assert!(matches!(dax_err(&text).kind, ErrorKind::BadRuntime { .. }));
    let text = DAX.replace("runtime=\"20\"", "runtime=\"inf\"");
    assert!(matches!(dax_err(&text).kind, ErrorKind::BadRuntime { .. }));
}

#[test]
fn dax_duplicate_id_points_at_both() {
    let text = DAX.replace("<job id=\"C\"", "<job id=\"A\"");
    let e = dax_err(&text);
    let (first_line, _) = line_of(&text, "<job id=\"A\"");
    match &e.kind {
        ErrorKind::DuplicateTask {
            task,
            first: Location::Xml { line, .. },
        } => {
            assert_eq!((task.as_str(), *line), ("A", first_line));
        }
        k => panic!("{k:?}"),
    }
    assert_xml_at(&e, &text, "<job id=\"A\" namespace=\"t\" name=\"join\"");
}

#[test]
fn dax_truncated_and_malformed_xml() {
    // Cut inside the third job: the document ends with elements open.
    let cut = DAX.find("<job id=\"C\"").unwrap() + 30;
    let e = dax_err(&DAX[..cut]);
    assert!(matches!(e.kind, ErrorKind::Xml(_)), "{e}");
    assert!(e.to_string().starts_with("bad.xml:"), "{e}");
    // Cut between elements.
    let cut = DAX.find("  <child ref=\"C\">").unwrap();
    let e = dax_err(&DAX[..cut]);
    assert_eq!(
        e.kind,
        ErrorKind::Xml("unexpected end of file inside <adag>".into())
    );
    // Cut inside a child: the message names it.
    let cut = DAX.find("<parent ref=\"B\"").unwrap();
    let e = dax_err(&DAX[..cut]);
    assert!(e.to_string().contains("inside <child ref=\"C\">"), "{e}");
    // Mismatched end tag, located at the offending tag.
    let text = DAX.replacen("</job>", "</jbo>", 1);
    let e = dax_err(&text);
    assert!(matches!(e.kind, ErrorKind::Xml(_)), "{e}");
    assert_xml_at(&e, &text, "</jbo>");
    // Broken attribute syntax.
    let e = dax_err(&DAX.replace("runtime=\"20\"", "runtime=20"));
    assert!(matches!(e.kind, ErrorKind::Xml(_)), "{e}");
    // Not XML, empty, wrong root.
    assert!(matches!(dax_err("").kind, ErrorKind::Schema(_)));
    assert!(matches!(dax_err("hello").kind, ErrorKind::Schema(_)));
    let e = dax_err("<workflow/>");
    assert_eq!(
        e.kind,
        ErrorKind::Schema("root element is <workflow>, expected <adag>".into())
    );
    // Non-UTF-8 inside an attribute.
    let mut bytes = DAX.as_bytes().to_vec();
    let at = DAX.find("split").unwrap();
    bytes[at] = 0xFF;
    let e = parse_dax_bytes("bad.xml", &bytes, &ReadOptions::default()).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Xml(_)), "{e}");
}

#[test]
fn dax_wrong_attribute_values() {
    let text = DAX.replace(
        "link=\"input\" size=\"100\"",
        "link=\"sideways\" size=\"100\"",
    );
    let e = dax_err(&text);
    assert!(
        matches!(e.kind, ErrorKind::Schema(ref m) if m.contains("unknown link \"sideways\"")),
        "{e}"
    );
    assert_xml_at(&e, &text, "<uses file=\"in.dat\"");
    let text = DAX.replace(
        "size=\"7\"/>\n  </job>\n  <job id=\"C\"",
        "size=\"-7\"/>\n  </job>\n  <job id=\"C\"",
    );
    let e = dax_err(&text);
    assert!(
        matches!(e.kind, ErrorKind::Schema(ref m) if m.contains("size \"-7\"")),
        "{e}"
    );
    let e = dax_err(&DAX.replace("<job id=\"B\" ", "<job "));
    assert_eq!(
        e.kind,
        ErrorKind::Schema("<job> without the id attribute".into())
    );
    let e = dax_err(&DAX.replace("<parent ref=\"A\"/>", "<parent/>"));
    assert_eq!(
        e.kind,
        ErrorKind::Schema("<parent> without the ref attribute".into())
    );
}

#[test]
fn dax_3_spellings_are_accepted() {
    let text = DAX.replace("<uses file=", "<uses name=").replace(
        " runtime=\"5\">",
        ">\n    <profile namespace=\"pegasus\" key=\"runtime\"> 5 </profile>",
    );
    let w = parse_dax_str("v3.xml", &text, &ReadOptions::default()).unwrap();
    assert_eq!(w.edges().len(), 2);
    assert_eq!(w.task(w.find("C").unwrap()).runtime, 5.0);
}

// ---- WfCommons JSON ----

#[test]
fn json_cycle() {
    let text = JSON.replace(
        r#""id": "A", "parents": []"#,
        r#""id": "A", "parents": ["C"]"#,
    );
    let e = json_err(&text);
    assert!(
        matches!(&e.kind, ErrorKind::Cycle { task, cycle } if task == "A" && cycle.len() == 4),
        "{e}"
    );
    assert_json_at(&e, "workflow.specification.tasks[0]");
}

#[test]
fn json_unknown_parent_and_child() {
    let e = json_err(&JSON.replace(r#""parents": ["B"]"#, r#""parents": ["X"]"#));
    assert_eq!(
        e.kind,
        ErrorKind::UnknownTask {
            id: "X".into(),
            role: Role::Parent,
            of: Some("C".into())
        }
    );
    assert_json_at(&e, "workflow.specification.tasks[2].parents[0]");
    let e = json_err(&JSON.replace(r#""children": ["C"]"#, r#""children": ["C", "Y"]"#));
    assert_eq!(
        e.kind,
        ErrorKind::UnknownTask {
            id: "Y".into(),
            role: Role::Child,
            of: Some("B".into())
        }
    );
    assert_json_at(&e, "workflow.specification.tasks[1].children[1]");
}

#[test]
fn json_missing_and_bad_runtime() {
    // No execution record for B.
    let e = json_err(&JSON.replace(r#"{"id": "B", "runtimeInSeconds": 20},"#, ""));
    assert_eq!(e.kind, ErrorKind::MissingRuntime { task: "B".into() });
    assert_json_at(&e, "workflow.specification.tasks[1]");
    // An execution record without runtime.
    let e = json_err(&JSON.replace(r#"{"id": "B", "runtimeInSeconds": 20}"#, r#"{"id": "B"}"#));
    assert_eq!(e.kind, ErrorKind::MissingRuntime { task: "B".into() });
    assert_json_at(&e, "workflow.execution.tasks[1]");
    // Negative, wrong type.
    let e = json_err(&JSON.replace(r#""runtimeInSeconds": 20"#, r#""runtimeInSeconds": -1"#));
    assert!(
        matches!(&e.kind, ErrorKind::BadRuntime { task, value } if task == "B" && value == "-1"),
        "{e}"
    );
    assert_json_at(&e, "workflow.execution.tasks[1].runtimeInSeconds");
    let e = json_err(&JSON.replace(r#""runtimeInSeconds": 20"#, r#""runtimeInSeconds": [20]"#));
    assert!(matches!(e.kind, ErrorKind::BadRuntime { .. }), "{e}");
    // A default runtime fills the gap when asked.
    let opts = ReadOptions {
        default_runtime: Some(1.0),
        ..ReadOptions::default()
    };
    let w = parse_wfcommons_str(
        "x.json",
        &JSON.replace(r#"{"id": "B"#, r#"{"id": "B0"#),
        &opts,
    )
    .unwrap();
    assert_eq!(w.total_runtime(), 16.5);
}

#[test]
fn json_invalid_syntax_gives_line_and_column() {
    let cut = &JSON[..JSON.find("\"execution\"").unwrap()];
    let e = json_err(cut);
    assert!(matches!(e.kind, ErrorKind::Json(_)), "{e}");
    let lines = cut.lines().count() as u32;
    assert!(
        matches!(e.at, Location::Text { line, .. } if line >= lines),
        "{e}"
    );
    let e = json_err(&JSON.replacen("\"tasks\": [", "\"tasks\": [,", 1));
    assert!(matches!(e.at, Location::Text { line: 6, .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "bad.json:6:17: malformed JSON: expected value"
    );
    assert!(matches!(json_err("").kind, ErrorKind::Json(_)));
}

#[test]
fn json_wrong_types_and_structure_give_paths() {
    let cases: [(&str, &str, &str); 7] = [
        (
            r#""tasks": ["#,
            r#""tasks": 3, "x": ["#,
            "workflow.specification.tasks",
        ),
        (
            r#""id": "B", "parents""#,
            r#""id": 2, "parents""#,
            "workflow.specification.tasks[1].id",
        ),
        (
            r#""parents": ["B"]"#,
            r#""parents": [null]"#,
            "workflow.specification.tasks[2].parents[0]",
        ),
        (
            r#""inputFiles": ["b.out"]"#,
            r#""inputFiles": "b.out""#,
            "workflow.specification.tasks[2].inputFiles",
        ),
        (
            r#""sizeInBytes": 7"#,
            r#""sizeInBytes": "7""#,
            "workflow.specification.files[1].sizeInBytes",
        ),
        (
            r#""execution": {"#,
            r#""execution": 1, "e": {"#,
            "workflow.execution",
        ),
        (
            r#"{"id": "C", "runtimeInSeconds": 5}"#,
            r#"{"runtimeInSeconds": 5}"#,
            "workflow.execution.tasks[2].id",
        ),
    ];
    for (from, to, path) in cases {
        let text = JSON.replacen(from, to, 1);
        assert_ne!(text, JSON, "{from}");
        let e = json_err(&text);
        assert!(matches!(e.kind, ErrorKind::Schema(_)), "{from}: {e}");
        assert_json_at(&e, path);
    }
    let e = json_err("[1, 2]");
    assert_eq!(
        e.to_string(),
        "bad.json: (root): expected an object, found an array"
    );
    let e = json_err("{}");
    assert_eq!(e.to_string(), "bad.json: workflow: missing");
    let e = json_err(r#"{"workflow": {}}"#);
    assert!(matches!(e.kind, ErrorKind::Schema(_)), "{e}");
}

#[test]
fn json_duplicate_id() {
    let e = json_err(&JSON.replace(
        r#""name": "join", "id": "C""#,
        r#""name": "join", "id": "A""#,
    ));
    assert!(
        matches!(&e.kind, ErrorKind::DuplicateTask { task, first } if task == "A" && *first == Location::json("workflow.specification.tasks[0]")),
        "{e}"
    );
    assert_json_at(&e, "workflow.specification.tasks[2]");
}

// ---- never a panic ----

fn mutated(text: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let n = text.len();
    proptest::collection::vec((0..n, 0u8..4, any::<u8>(), 0usize..40), 1..5).prop_map(
        move |edits| {
            let mut b = text.as_bytes().to_vec();
            for (at, kind, byte, len) in edits {
                let at = at.min(b.len());
                match kind {
                    0 if at < b.len() => b[at] = byte,
                    1 => b.insert(at, byte),
                    2 => {
                        let end = (at + len).min(b.len());
                        b.drain(at..end);
                    }
                    _ => b.truncate(at),
                }
            }
            b
        },
    )
}

fn check(r: Result<gridsched_workflow::Workflow, WorkflowError>) -> Result<(), TestCaseError> {
    match r {
        Ok(w) => {
            prop_assert_eq!(w.topological_order().len(), w.len());
            for e in w.edges() {
                prop_assert!(w.topo_position(e.parent) < w.topo_position(e.child));
            }
        }
        Err(e) => {
            prop_assert!(e.to_string().starts_with("fuzz"), "{}", e);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(parse_dax_bytes("fuzz", &bytes, &ReadOptions::default()))?;
        check(parse_wfcommons_bytes("fuzz", &bytes, &ReadOptions::default()))?;
    }

    #[test]
    fn mutated_dax_never_panics(bytes in mutated(DAX)) {
        check(parse_dax_bytes("fuzz", &bytes, &ReadOptions::default()))?;
    }

    #[test]
    fn mutated_json_never_panics(bytes in mutated(JSON)) {
        check(parse_wfcommons_bytes("fuzz", &bytes, &ReadOptions::default()))?;
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "[".repeat(100_000);
    assert!(matches!(json_err(&deep).kind, ErrorKind::Json(_)));
    let deep_xml = format!("<adag>{}", "<x>".repeat(100_000));
    assert!(matches!(dax_err(&deep_xml).kind, ErrorKind::Xml(_)));
}

#[test]
fn fuzz_corpus_seeds_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/workflow");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let w = gridsched_workflow::read_workflow(&path, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(w.len() >= 2 && !w.edges().is_empty(), "{}", path.display());
        n += 1;
    }
    assert!(n >= 4);
}
