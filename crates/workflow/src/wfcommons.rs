//! WfCommons JSON reader.
//!
//! Accepted layouts:
//!
//! - **Schema 1.5** (the instances in the data directory):
//!   `workflow.specification.tasks[]` with `id` (required), `name`, `category`, `parents[]`,
//!   `children[]`, `inputFiles[]`, `outputFiles[]` (file ids); `workflow.specification.files[]`
//!   with `id` and `sizeInBytes`; `workflow.execution.tasks[]` with `id` and `runtimeInSeconds`
//!   (and `coreCount`, read as the task's processors when present, and `command.program`).
//!   A task's transformation name is its `category`, else the executed `command.program`
//!   (`mProject`), else its `name`, else its id. A task with no execution entry
//!   may carry `runtimeInSeconds` itself. Execution entries naming no task are ignored; a file id
//!   missing from `files[]` counts 0 bytes.
//! - **Schemas 1.3/1.4** (WorkflowHub): `workflow.tasks[]` (or `workflow.jobs[]`) with `name`,
//!   optional `id` (else the name is the id), `runtimeInSeconds` or `runtime` (seconds),
//!   `parents[]` / `children[]` naming tasks by id or by name, `cores` or `coreCount`, and
//!   `files[]` of `{link: "input" | "output", name | id, sizeInBytes | size}`. A plain `size` is
//!   read as **bytes**; instances that stored kilobytes must be scaled by the caller.
//!
//! Both parents and children lists declare dependencies (their union is taken). Errors carry
//! the JSON path of the offending value (`workflow.specification.tasks[12].parents[0]`), or the
//! line and column of a syntax error.

use std::collections::HashMap;

use serde_json::Value;

use crate::dag::{Workflow, WorkflowBuilder};
use crate::error::{ErrorKind, Location, Role, WorkflowError};
use crate::io::ReadOptions;

/// Parses a WfCommons document held in a string. `file` names it in errors.
pub fn parse_wfcommons_str(
    file: &str,
    text: &str,
    opts: &ReadOptions,
) -> Result<Workflow, WorkflowError> {
    parse_wfcommons_bytes(file, text.as_bytes(), opts)
}

/// Parses WfCommons bytes (UTF-8 JSON). Never panics (serde_json bounds nesting depth).
pub fn parse_wfcommons_bytes(
    file: &str,
    bytes: &[u8],
    opts: &ReadOptions,
) -> Result<Workflow, WorkflowError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| {
        // serde_json appends " at line L column C"; the location already says it.
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        WorkflowError::new(
            file,
            Location::Text {
                line: u32::try_from(e.line()).unwrap_or(u32::MAX),
                column: u32::try_from(e.column()).unwrap_or(u32::MAX),
            },
            ErrorKind::Json(message),
        )
    })?;
    let r = Reader { file };
    let workflow = r.field(&root, "", "workflow")?;
    r.object(workflow, "workflow")?;
    if let Some(spec) = workflow.get("specification") {
        r.schema_15(workflow, spec, opts)
    } else if let Some((key, tasks)) = ["tasks", "jobs"]
        .iter()
        .find_map(|k| workflow.get(*k).map(|v| (*k, v)))
    {
        r.legacy(tasks, &format!("workflow.{key}"), opts)
    } else {
        Err(r.schema(
            "workflow",
            "neither workflow.specification (schema 1.5) nor workflow.tasks (schema 1.3/1.4)"
                .into(),
        ))
    }
}

struct Reader<'f> {
    file: &'f str,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl Reader<'_> {
    fn schema(&self, path: &str, message: String) -> WorkflowError {
        WorkflowError::new(self.file, Location::json(path), ErrorKind::Schema(message))
    }

    fn expected(&self, path: &str, what: &str, v: &Value) -> WorkflowError {
        self.schema(path, format!("expected {what}, found {}", type_name(v)))
    }

    fn object<'v>(
        &self,
        v: &'v Value,
        path: &str,
    ) -> Result<&'v serde_json::Map<String, Value>, WorkflowError> {
        v.as_object()
            .ok_or_else(|| self.expected(path, "an object", v))
    }

    fn field<'v>(&self, v: &'v Value, path: &str, key: &str) -> Result<&'v Value, WorkflowError> {
        let obj = if path.is_empty() {
            v.as_object()
                .ok_or_else(|| self.expected("(root)", "an object", v))?
        } else {
            self.object(v, path)?
        };
        obj.get(key)
            .ok_or_else(|| self.schema(&join(path, key), "missing".into()))
    }

    fn array<'v>(&self, v: &'v Value, path: &str) -> Result<&'v [Value], WorkflowError> {
        v.as_array()
            .map(|a| a.as_slice())
            .ok_or_else(|| self.expected(path, "an array", v))
    }

    fn string<'v>(&self, v: &'v Value, path: &str) -> Result<&'v str, WorkflowError> {
        v.as_str().ok_or_else(|| self.expected(path, "a string", v))
    }

    /// An optional array of strings at `obj.key`.
    fn strings<'v>(
        &self,
        obj: &'v Value,
        path: &str,
        key: &str,
    ) -> Result<Vec<(&'v str, String)>, WorkflowError> {
        let Some(v) = obj.get(key) else {
            return Ok(Vec::new());
        };
        let p = join(path, key);
        self.array(v, &p)?
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let xp = format!("{p}[{i}]");
                self.string(x, &xp).map(|s| (s, xp))
            })
            .collect()
    }

    fn runtime(&self, v: &Value, path: &str, task: &str) -> Result<f64, WorkflowError> {
        match v.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(WorkflowError::new(
                self.file,
                Location::json(path),
                ErrorKind::BadRuntime {
                    task: task.to_string(),
                    value: v.to_string(),
                },
            )),
        }
    }

    fn procs(&self, v: &Value, path: &str) -> Result<u32, WorkflowError> {
        v.as_u64()
            .filter(|&c| c >= 1)
            .and_then(|c| u32::try_from(c).ok())
            .ok_or_else(|| {
                self.schema(
                    path,
                    format!("expected a positive integer core count, found {v}"),
                )
            })
    }

    fn size(&self, v: &Value, path: &str) -> Result<u64, WorkflowError> {
        if let Some(s) = v.as_u64() {
            return Ok(s);
        }
        match v.as_f64() {
            Some(x) if x.is_finite() && (0.0..1.8e19).contains(&x) => Ok(x.round() as u64),
            _ => Err(self.schema(
                path,
                format!("expected a non-negative size in bytes, found {v}"),
            )),
        }
    }

    fn schema_15(
        &self,
        workflow: &Value,
        spec: &Value,
        opts: &ReadOptions,
    ) -> Result<Workflow, WorkflowError> {
        let sp = "workflow.specification";
        self.object(spec, sp)?;
        let tasks = self.array(self.field(spec, sp, "tasks")?, &join(sp, "tasks"))?;

        let mut sizes: HashMap<&str, u64> = HashMap::new();
        if let Some(files) = spec.get("files") {
            let fp = join(sp, "files");
            for (i, f) in self.array(files, &fp)?.iter().enumerate() {
                let p = format!("{fp}[{i}]");
                let id = self.string(self.field(f, &p, "id")?, &join(&p, "id"))?;
                let size = match f.get("sizeInBytes") {
                    Some(s) => self.size(s, &join(&p, "sizeInBytes"))?,
                    None => 0,
                };
                sizes.entry(id).or_insert(size);
            }
        }

        // Execution records by task id: (runtime value, its path, core count, program).
        #[allow(clippy::type_complexity)]
        let mut exec: HashMap<
            &str,
            (Option<&Value>, String, Option<&Value>, Option<&str>),
        > = HashMap::new();
        if let Some(execution) = workflow.get("execution") {
            let ep = "workflow.execution";
            self.object(execution, ep)?;
            if let Some(et) = execution.get("tasks") {
                let etp = join(ep, "tasks");
                for (i, t) in self.array(et, &etp)?.iter().enumerate() {
                    let p = format!("{etp}[{i}]");
                    let id = self.string(self.field(t, &p, "id")?, &join(&p, "id"))?;
                    let program = t
                        .get("command")
                        .and_then(|c| c.get("program"))
                        .and_then(Value::as_str);
                    exec.entry(id).or_insert((
                        t.get("runtimeInSeconds"),
                        p,
                        t.get("coreCount"),
                        program,
                    ));
                }
            }
        }

        let mut b = WorkflowBuilder::new(self.file);
        let tp = join(sp, "tasks");
        for (i, t) in tasks.iter().enumerate() {
            let p = format!("{tp}[{i}]");
            self.object(t, &p)?;
            let id = self.string(self.field(t, &p, "id")?, &join(&p, "id"))?;
            // The transformation: the spec's `category`, else the executed program, else the
            // task's own name (in 1.5 instances a unique `program_IDnnn`), else the id.
            let program = exec.get(id).and_then(|(_, _, _, prog)| *prog);
            let name = match (t.get("category"), program, t.get("name")) {
                (Some(c), _, _) => self.string(c, &join(&p, "category"))?,
                (None, Some(prog), _) => prog,
                (None, None, Some(n)) => self.string(n, &join(&p, "name"))?,
                (None, None, None) => id,
            };
            let (runtime, procs) = match exec.get(id) {
                Some((Some(rt), ep, cores, _)) => (
                    self.runtime(rt, &join(ep, "runtimeInSeconds"), id)?,
                    cores
                        .map(|c| self.procs(c, &join(ep, "coreCount")))
                        .transpose()?,
                ),
                Some((None, ep, _, _)) => match opts.default_runtime {
                    Some(v) => (v, None),
                    None => {
                        return Err(WorkflowError::new(
                            self.file,
                            Location::json(ep.clone()),
                            ErrorKind::MissingRuntime {
                                task: id.to_string(),
                            },
                        ));
                    }
                },
                None => match (t.get("runtimeInSeconds"), opts.default_runtime) {
                    (Some(rt), _) => (self.runtime(rt, &join(&p, "runtimeInSeconds"), id)?, None),
                    (None, Some(v)) => (v, None),
                    (None, None) => {
                        return Err(WorkflowError::new(
                            self.file,
                            Location::json(p),
                            ErrorKind::MissingRuntime {
                                task: id.to_string(),
                            },
                        ));
                    }
                },
            };
            let task = b.add_task(
                id,
                name,
                runtime,
                procs.unwrap_or(1),
                Location::json(p.clone()),
            )?;
            for (f, _) in self.strings(t, &p, "inputFiles")? {
                b.add_input(task, f, sizes.get(f).copied().unwrap_or(0));
            }
            for (f, _) in self.strings(t, &p, "outputFiles")? {
                b.add_output(task, f, sizes.get(f).copied().unwrap_or(0));
            }
            for (parent, at) in self.strings(t, &p, "parents")? {
                b.depend(parent, id, Some(Role::Child), Location::json(at));
            }
            for (child, at) in self.strings(t, &p, "children")? {
                b.depend(id, child, Some(Role::Parent), Location::json(at));
            }
        }
        b.build(opts.edges)
    }

    fn legacy(
        &self,
        tasks: &Value,
        tp: &str,
        opts: &ReadOptions,
    ) -> Result<Workflow, WorkflowError> {
        let tasks = self.array(tasks, tp)?;
        // Ids first, so dependencies may name a task by id or by name.
        let mut ids: Vec<&str> = Vec::with_capacity(tasks.len());
        for (i, t) in tasks.iter().enumerate() {
            let p = format!("{tp}[{i}]");
            self.object(t, &p)?;
            let id = match (t.get("id"), t.get("name")) {
                (Some(v), _) => self.string(v, &join(&p, "id"))?,
                (None, Some(v)) => self.string(v, &join(&p, "name"))?,
                (None, None) => return Err(self.schema(&p, "task without id or name".into())),
            };
            ids.push(id);
        }
        let mut by_name: HashMap<&str, &str> = HashMap::new();
        for (t, id) in tasks.iter().zip(&ids) {
            if let Some(n) = t.get("name").and_then(Value::as_str) {
                by_name.entry(n).or_insert(id);
            }
        }
        let known: std::collections::HashSet<&str> = ids.iter().copied().collect();
        let resolve = |r: &'_ str| -> String {
            if known.contains(r) {
                r.to_string()
            } else {
                by_name.get(r).map_or(r, |v| v).to_string()
            }
        };

        let mut b = WorkflowBuilder::new(self.file);
        for (i, (t, &id)) in tasks.iter().zip(&ids).enumerate() {
            let p = format!("{tp}[{i}]");
            let name = match t.get("name") {
                Some(n) => self.string(n, &join(&p, "name"))?,
                None => id,
            };
            let runtime = match (
                t.get("runtimeInSeconds"),
                t.get("runtime"),
                opts.default_runtime,
            ) {
                (Some(v), _, _) => self.runtime(v, &join(&p, "runtimeInSeconds"), id)?,
                (None, Some(v), _) => self.runtime(v, &join(&p, "runtime"), id)?,
                (None, None, Some(v)) => v,
                (None, None, None) => {
                    return Err(WorkflowError::new(
                        self.file,
                        Location::json(p),
                        ErrorKind::MissingRuntime {
                            task: id.to_string(),
                        },
                    ));
                }
            };
            let procs = match t
                .get("coreCount")
                .map(|v| (v, "coreCount"))
                .or(t.get("cores").map(|v| (v, "cores")))
            {
                Some((v, k)) => self.procs(v, &join(&p, k))?,
                None => 1,
            };
            let task = b.add_task(id, name, runtime, procs, Location::json(p.clone()))?;
            if let Some(files) = t.get("files") {
                let fp = join(&p, "files");
                for (j, f) in self.array(files, &fp)?.iter().enumerate() {
                    let q = format!("{fp}[{j}]");
                    self.object(f, &q)?;
                    let fname = match (f.get("name"), f.get("id")) {
                        (Some(v), _) => self.string(v, &join(&q, "name"))?,
                        (None, Some(v)) => self.string(v, &join(&q, "id"))?,
                        (None, None) => {
                            return Err(self.schema(&q, "file without name or id".into()));
                        }
                    };
                    let size = match (f.get("sizeInBytes"), f.get("size")) {
                        (Some(v), _) => self.size(v, &join(&q, "sizeInBytes"))?,
                        (None, Some(v)) => self.size(v, &join(&q, "size"))?,
                        (None, None) => 0,
                    };
                    let link = self.string(self.field(f, &q, "link")?, &join(&q, "link"))?;
                    match link {
                        "input" => b.add_input(task, fname, size),
                        "output" => b.add_output(task, fname, size),
                        other => {
                            return Err(self.schema(
                                &join(&q, "link"),
                                format!("unknown link \"{other}\" (expected input or output)"),
                            ));
                        }
                    }
                }
            }
            for (parent, at) in self.strings(t, &p, "parents")? {
                b.depend(&resolve(parent), id, Some(Role::Child), Location::json(at));
            }
            for (child, at) in self.strings(t, &p, "children")? {
                b.depend(id, &resolve(child), Some(Role::Parent), Location::json(at));
            }
        }
        b.build(opts.edges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V15: &str = r#"{
      "name": "t", "schemaVersion": "1.5",
      "workflow": {
        "specification": {
          "tasks": [
            {"name": "a", "id": "a_1", "parents": [], "children": ["b_2"], "inputFiles": [], "outputFiles": ["f"]},
            {"name": "b", "id": "b_2", "parents": ["a_1"], "children": [], "inputFiles": ["f"], "outputFiles": []}
          ],
          "files": [{"id": "f", "sizeInBytes": 42}]
        },
        "execution": {
          "tasks": [
            {"id": "b_2", "runtimeInSeconds": 2.5, "coreCount": 4},
            {"id": "a_1", "runtimeInSeconds": 1}
          ]
        }
      }
    }"#;

    #[test]
    fn reads_schema_15() {
        let w = parse_wfcommons_str("t.json", V15, &ReadOptions::default()).unwrap();
        assert_eq!(w.len(), 2);
        let b = w.find("b_2").unwrap();
        assert_eq!(w.task(b).runtime, 2.5);
        assert_eq!(w.task(b).procs, 4);
        assert_eq!(w.task(b).name, "b");
        let e = w.edges()[0];
        assert!(e.explicit);
        assert_eq!((e.bytes, e.files), (42, 1));
    }

    #[test]
    fn reads_legacy_layout() {
        let text = r#"{"workflow": {"tasks": [
            {"name": "t1", "runtime": 3, "parents": [], "files": [{"link": "output", "name": "x", "size": 10}]},
            {"name": "t2", "id": "ID2", "runtimeInSeconds": 4, "parents": ["t1"], "cores": 2,
             "files": [{"link": "input", "name": "x", "sizeInBytes": 9}]}
        ]}}"#;
        let w = parse_wfcommons_str("old.json", text, &ReadOptions::default()).unwrap();
        assert_eq!(w.len(), 2);
        let (t1, t2) = (w.find("t1").unwrap(), w.find("ID2").unwrap());
        assert_eq!(w.task(t2).procs, 2);
        let e = w.edge(t1, t2).unwrap();
        assert!(e.explicit);
        assert_eq!(e.bytes, 9);
    }

    #[test]
    fn errors_carry_json_paths() {
        let bad = V15.replace(r#""parents": ["a_1"]"#, r#""parents": ["zz"]"#);
        let e = parse_wfcommons_str("t.json", &bad, &ReadOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.json: workflow.specification.tasks[1].parents[0]: unknown parent \"zz\" of task \"b_2\""
        );
        let bad = V15.replace(
            r#""runtimeInSeconds": 2.5"#,
            r#""runtimeInSeconds": "slow""#,
        );
        let e = parse_wfcommons_str("t.json", &bad, &ReadOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.json: workflow.execution.tasks[0].runtimeInSeconds: task \"b_2\": runtime \"slow\" is not a finite non-negative number of seconds"
        );
        let bad = V15.replace(r#""children": ["b_2"]"#, r#""children": "b_2""#);
        let e = parse_wfcommons_str("t.json", &bad, &ReadOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.json: workflow.specification.tasks[0].children: expected an array, found a string"
        );
        let e = parse_wfcommons_str("t.json", &V15[..100], &ReadOptions::default()).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Json(_)));
        assert!(matches!(e.at, Location::Text { .. }));
    }
}
