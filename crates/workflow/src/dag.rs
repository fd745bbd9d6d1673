//! The workflow DAG: tasks in an arena (`Vec` + `u32` ids), edges in CSR form, the topological
//! order and levels computed once at construction. Immutable once built: every reader,
//! generator and transformation goes through [`WorkflowBuilder`], which validates.

use std::collections::HashMap;

use crate::error::{ErrorKind, Location, Role, WorkflowError};
use gridsched_sim::MAX_SECONDS;

/// A task's index in its [`Workflow`] (`0..len`). Ids are dense and follow insertion order (file
/// order for the readers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u32);

impl TaskId {
    /// The index as `usize`.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A file's index in its [`Workflow`]'s file table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A file of the workflow (a logical file name; its size is per use, see [`FileUse`]).
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    /// The logical file name (`FFI_0_1_subfx.sgt`).
    pub name: String,
    /// The size declared at the file's first use, in bytes.
    pub size: u64,
}

/// One use of a file by a task, with the size declared *there*. Pegasus-generated DAX files
/// declare different sizes for the same file in different jobs; the size a consumer declares
/// is the amount it reads, which is what an edge's data volume counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileUse {
    /// The file.
    pub file: FileId,
    /// Bytes, as declared by this use.
    pub size: u64,
}

/// A task: one node of the DAG.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The id in the source (`ID00003`, `mProject_ID0000001`), unique in the workflow.
    pub id: String,
    /// The transformation / module name (`SeismogramSynthesis`, `synthSGT`, `dummy`).
    pub name: String,
    /// Run time in seconds on the reference machine (finite, `>= 0`).
    pub runtime: f64,
    /// Processors the task needs (the spec's `v_ip`; 1 for the readers' sequential tasks, 0 for
    /// the dummy entry and exit tasks of spec §4.3).
    pub procs: u32,
    /// Files read.
    pub inputs: Vec<FileUse>,
    /// Files written.
    pub outputs: Vec<FileUse>,
}

/// A dependency `parent → child`. An edge may be declared (`explicit`), implied by files the
/// parent writes and the child reads (`files > 0`), or both; the readers keep both facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The task that must finish first.
    pub parent: TaskId,
    /// The task that waits.
    pub child: TaskId,
    /// Data volume in bytes: the sizes the child declares for the files it reads from the parent,
    /// or the volume given by the builder when no file links them.
    pub bytes: u64,
    /// How many files the parent writes and the child reads.
    pub files: u32,
    /// Declared as a dependency in the source (`<child><parent/>`, `parents[]`/`children[]`, or
    /// an edge added in code).
    pub explicit: bool,
}

/// Which dependencies a reader turns into edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EdgeSource {
    /// The declared dependencies only; data volumes still come from the files they share.
    Explicit,
    /// Only dependencies implied by files (a file written by one task and read by another);
    /// declared dependencies are checked for unknown ids and otherwise ignored.
    Files,
    /// Both (the default): an edge exists if declared or implied by a file.
    #[default]
    Union,
}

/// A validated, immutable workflow DAG.
#[derive(Debug, Clone)]
pub struct Workflow {
    source: String,
    tasks: Vec<Task>,
    files: Vec<File>,
    /// Sorted by (parent, child), so a task's out-edges are one contiguous range.
    edges: Vec<Edge>,
    /// `succ_start[t]..succ_start[t + 1]` indexes `edges`.
    succ_start: Vec<u32>,
    /// `pred_start[t]..pred_start[t + 1]` indexes `pred_edges`.
    pred_start: Vec<u32>,
    /// Edge indices sorted by (child, parent).
    pred_edges: Vec<u32>,
    topo: Vec<TaskId>,
    topo_pos: Vec<u32>,
    level: Vec<u32>,
    index: HashMap<String, TaskId>,
}

impl Workflow {
    /// The file (or generator) the workflow came from, as used in error messages.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether there are no tasks.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// All tasks, indexed by [`TaskId`].
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// One task.
    #[inline]
    pub fn task(&self, t: TaskId) -> &Task {
        &self.tasks[t.index()]
    }

    /// The ids `0..len`.
    pub fn task_ids(&self) -> impl ExactSizeIterator<Item = TaskId> + '_ {
        (0..self.tasks.len() as u32).map(TaskId)
    }

    /// The task with source id `id`.
    pub fn find(&self, id: &str) -> Option<TaskId> {
        self.index.get(id).copied()
    }

    /// The file table.
    pub fn files(&self) -> &[File] {
        &self.files
    }

    /// One file.
    pub fn file(&self, f: FileId) -> &File {
        &self.files[f.0 as usize]
    }

    /// All edges, sorted by (parent, child).
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The out-edges of `t`, sorted by child.
    #[inline]
    pub fn successors(&self, t: TaskId) -> &[Edge] {
        let (a, b) = (
            self.succ_start[t.index()] as usize,
            self.succ_start[t.index() + 1] as usize,
        );
        &self.edges[a..b]
    }

    /// The in-edges of `t`, sorted by parent.
    pub fn predecessors(&self, t: TaskId) -> impl ExactSizeIterator<Item = &Edge> + '_ {
        let (a, b) = (
            self.pred_start[t.index()] as usize,
            self.pred_start[t.index() + 1] as usize,
        );
        self.pred_edges[a..b]
            .iter()
            .map(move |&e| &self.edges[e as usize])
    }

    /// The children of `t`, ascending.
    pub fn children(&self, t: TaskId) -> impl ExactSizeIterator<Item = TaskId> + '_ {
        self.successors(t).iter().map(|e| e.child)
    }

    /// The parents of `t`, ascending.
    pub fn parents(&self, t: TaskId) -> impl ExactSizeIterator<Item = TaskId> + '_ {
        self.predecessors(t).map(|e| e.parent)
    }

    /// The edge `parent → child`, if any.
    pub fn edge(&self, parent: TaskId, child: TaskId) -> Option<&Edge> {
        let out = self.successors(parent);
        out.binary_search_by_key(&child, |e| e.child)
            .ok()
            .map(|i| &out[i])
    }

    /// A topological order, computed once: Kahn's algorithm taking the lowest ready [`TaskId`]
    /// first, so it is deterministic and equals file order whenever file order is topological.
    pub fn topological_order(&self) -> &[TaskId] {
        &self.topo
    }

    /// The position of `t` in [`topological_order`](Self::topological_order).
    #[inline]
    pub fn topo_position(&self, t: TaskId) -> u32 {
        self.topo_pos[t.index()]
    }

    /// The level of `t`: 0 for a task without parents, else 1 + the largest level of its parents
    /// (the number of edges on the longest path from an entry).
    pub fn level(&self, t: TaskId) -> u32 {
        self.level[t.index()]
    }

    /// The number of levels (the depth; 0 for an empty workflow).
    pub fn depth(&self) -> u32 {
        self.level.iter().max().map_or(0, |&l| l + 1)
    }

    /// Tasks per level, index = level.
    pub fn level_widths(&self) -> Vec<u32> {
        let mut w = vec![0u32; self.depth() as usize];
        for &l in &self.level {
            w[l as usize] += 1;
        }
        w
    }

    /// Tasks without parents, ascending.
    pub fn entries(&self) -> Vec<TaskId> {
        self.task_ids()
            .filter(|&t| self.pred_start[t.index()] == self.pred_start[t.index() + 1])
            .collect()
    }

    /// Tasks without children, ascending.
    pub fn exits(&self) -> Vec<TaskId> {
        self.task_ids()
            .filter(|&t| self.successors(t).is_empty())
            .collect()
    }

    /// `Σ runtime` (seconds).
    pub fn total_runtime(&self) -> f64 {
        self.tasks.iter().map(|t| t.runtime).sum()
    }

    /// `Σ procs × runtime` (processor-seconds): the best-effort allocation cost of spec eq. 16.
    pub fn total_area(&self) -> f64 {
        self.tasks
            .iter()
            .map(|t| t.runtime * f64::from(t.procs))
            .sum()
    }

    /// `Σ bytes` over all edges.
    pub fn total_edge_bytes(&self) -> u64 {
        self.edges
            .iter()
            .fold(0u64, |s, e| s.saturating_add(e.bytes))
    }

    /// A builder holding this workflow's tasks, file uses and edges (each edge re-added with its
    /// volume and `explicit` flag), to extend or transform it. Building it with
    /// [`EdgeSource::Explicit`] gives back the same workflow (copied edges are kept as they
    /// were; no new edge is derived from the files).
    pub fn to_builder(&self, source: impl Into<String>) -> WorkflowBuilder {
        let mut b = WorkflowBuilder::new(source);
        self.copy_into(&mut b, "")
            .expect("a valid workflow re-adds without error");
        b
    }

    /// Adds this workflow's tasks, file uses and edges to `b`, with `prefix` in front of every
    /// task id and file name. Returns the new id of each task.
    pub(crate) fn copy_into(
        &self,
        b: &mut WorkflowBuilder,
        prefix: &str,
    ) -> Result<Vec<TaskId>, WorkflowError> {
        let mut ids = Vec::with_capacity(self.len());
        for t in &self.tasks {
            let id = b.add_task(
                format!("{prefix}{}", t.id),
                t.name.clone(),
                t.runtime,
                t.procs,
                Location::None,
            )?;
            for u in &t.inputs {
                b.add_input(id, &format!("{prefix}{}", self.file(u.file).name), u.size);
            }
            for u in &t.outputs {
                b.add_output(id, &format!("{prefix}{}", self.file(u.file).name), u.size);
            }
            ids.push(id);
        }
        for e in &self.edges {
            b.push_edge(
                ids[e.parent.index()],
                ids[e.child.index()],
                e.bytes,
                e.explicit,
            );
        }
        Ok(ids)
    }

    /// This workflow with a dummy entry task (id `entry`) before every task without parents and
    /// a dummy exit task (id `exit`) after every task without children (0 runtime, 0
    /// processors, 0-byte edges), as spec §2.5 assumes ("one entry and one exit task (add
    /// dummies)"). With `only_if_needed`, a dummy is added only where there are several
    /// entries (exits). A task already named `entry` (`exit`) where a dummy is needed is a
    /// duplicate-id error.
    pub fn with_entry_exit(&self, only_if_needed: bool) -> Result<Workflow, WorkflowError> {
        let mut b = self.to_builder(self.source.clone());
        let entries = self.entries();
        let exits = self.exits();
        if !(only_if_needed && entries.len() <= 1) {
            let e = b.add_task("entry", "dummy", 0.0, 0, Location::None)?;
            for t in &entries {
                b.add_edge(e, *t, 0);
            }
        }
        if !(only_if_needed && exits.len() <= 1) {
            let x = b.add_task("exit", "dummy", 0.0, 0, Location::None)?;
            for t in &exits {
                b.add_edge(*t, x, 0);
            }
        }
        b.build(EdgeSource::Explicit)
    }
}

/// An endpoint of a dependency not yet resolved: an id already known or a source id string.
#[derive(Debug, Clone)]
enum TaskRef {
    Id(TaskId),
    Name(String),
}

#[derive(Debug, Clone)]
struct PendingEdge {
    parent: TaskRef,
    child: TaskRef,
    bytes: u64,
    explicit: bool,
    /// Where the declaration is, and which task declared it (for unknown-id errors).
    at: Location,
    declared_by: Option<Role>,
}

/// Collects tasks, file uses and dependencies, then validates them all at once in
/// [`build`](Self::build): duplicate ids and bad runtimes are refused when added; unknown ids
/// and cycles when built. Errors carry the [`Location`] given with each element.
#[derive(Debug, Clone)]
pub struct WorkflowBuilder {
    source: String,
    tasks: Vec<Task>,
    locations: Vec<Location>,
    index: HashMap<String, TaskId>,
    files: Vec<File>,
    file_index: HashMap<String, FileId>,
    pending: Vec<PendingEdge>,
    /// Σ runtime of the tasks added (at most [`MAX_SECONDS`]).
    total_runtime: f64,
}

impl WorkflowBuilder {
    /// An empty builder; `source` names the file (or generator) in error messages.
    pub fn new(source: impl Into<String>) -> Self {
        WorkflowBuilder {
            source: source.into(),
            tasks: Vec::new(),
            locations: Vec::new(),
            index: HashMap::new(),
            files: Vec::new(),
            file_index: HashMap::new(),
            pending: Vec::new(),
            total_runtime: 0.0,
        }
    }

    /// The source name.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Tasks added so far.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether no task was added.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The task added with source id `id`.
    pub fn find(&self, id: &str) -> Option<TaskId> {
        self.index.get(id).copied()
    }

    fn error(&self, at: Location, kind: ErrorKind) -> WorkflowError {
        WorkflowError::new(self.source.clone(), at, kind)
    }

    /// Adds a task. Refuses a duplicate id, a runtime that is negative, NaN or infinite, and
    /// one that takes the tasks' total run time beyond [`MAX_SECONDS`] (10^12 s).
    pub fn add_task(
        &mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        runtime: f64,
        procs: u32,
        at: Location,
    ) -> Result<TaskId, WorkflowError> {
        let id = id.into();
        if let Some(&first) = self.index.get(&id) {
            let first = self.locations[first.index()].clone();
            return Err(self.error(at, ErrorKind::DuplicateTask { task: id, first }));
        }
        if !(runtime.is_finite() && runtime >= 0.0) {
            return Err(self.error(
                at,
                ErrorKind::BadRuntime {
                    task: id,
                    value: runtime.to_string(),
                },
            ));
        }
        let total = self.total_runtime + runtime;
        if total > MAX_SECONDS as f64 {
            return Err(self.error(
                at,
                ErrorKind::RuntimeTooLarge {
                    task: id,
                    value: runtime,
                    total,
                },
            ));
        }
        if self.tasks.len() >= u32::MAX as usize {
            return Err(self.error(at, ErrorKind::Schema("more than 2^32 - 1 tasks".into())));
        }
        self.total_runtime = total;
        let t = TaskId(self.tasks.len() as u32);
        self.index.insert(id.clone(), t);
        self.tasks.push(Task {
            id,
            name: name.into(),
            runtime,
            procs,
            inputs: Vec::new(),
            outputs: Vec::new(),
        });
        self.locations.push(at);
        Ok(t)
    }

    fn file_id(&mut self, name: &str, size: u64) -> FileId {
        if let Some(&f) = self.file_index.get(name) {
            return f;
        }
        let f = FileId(self.files.len() as u32);
        self.files.push(File {
            name: name.to_string(),
            size,
        });
        self.file_index.insert(name.to_string(), f);
        f
    }

    /// Records that `task` reads `file` (`size` bytes as declared by this use).
    pub fn add_input(&mut self, task: TaskId, file: &str, size: u64) {
        let file = self.file_id(file, size);
        self.tasks[task.index()].inputs.push(FileUse { file, size });
    }

    /// Records that `task` writes `file`.
    pub fn add_output(&mut self, task: TaskId, file: &str, size: u64) {
        let file = self.file_id(file, size);
        self.tasks[task.index()]
            .outputs
            .push(FileUse { file, size });
    }

    /// A declared dependency between source ids, resolved at [`build`](Self::build).
    /// `declared_by` says which end owns the declaration (the child for `<child><parent/>` and
    /// `parents[]`, the parent for `children[]`), so an unknown id is reported as "unknown parent
    /// of task X" / "unknown child of task Y"; `at` is the declaring element.
    pub fn depend(&mut self, parent: &str, child: &str, declared_by: Option<Role>, at: Location) {
        self.pending.push(PendingEdge {
            parent: TaskRef::Name(parent.to_string()),
            child: TaskRef::Name(child.to_string()),
            bytes: 0,
            explicit: true,
            at,
            declared_by,
        });
    }

    /// A declared dependency between known tasks carrying `bytes` of data (used when no file
    /// links them; a shared file's declared size takes precedence).
    pub fn add_edge(&mut self, parent: TaskId, child: TaskId, bytes: u64) {
        self.push_edge(parent, child, bytes, true);
    }

    fn push_edge(&mut self, parent: TaskId, child: TaskId, bytes: u64, explicit: bool) {
        self.pending.push(PendingEdge {
            parent: TaskRef::Id(parent),
            child: TaskRef::Id(child),
            bytes,
            explicit,
            at: Location::None,
            declared_by: None,
        });
    }

    fn resolve(&self, r: &TaskRef) -> Option<TaskId> {
        match r {
            TaskRef::Id(t) => Some(*t),
            TaskRef::Name(n) => self.index.get(n).copied(),
        }
    }

    /// Validates and freezes the workflow: resolves every declared dependency (unknown id →
    /// error at the declaring element), derives file edges as `edges` asks, merges duplicates,
    /// builds the adjacency and the topological order (cycle → error naming a task on it, at that
    /// task's element).
    pub fn build(self, edges: EdgeSource) -> Result<Workflow, WorkflowError> {
        let n = self.tasks.len();
        // Explicit edges, resolved in declaration order (so the first bad one is reported).
        let mut explicit: Vec<(u32, u32, u64)> = Vec::with_capacity(self.pending.len());
        let mut derived_flags: Vec<(u32, u32, u64)> = Vec::new();
        for p in &self.pending {
            let name_of = |r: &TaskRef| match r {
                TaskRef::Id(t) => self.tasks[t.index()].id.clone(),
                TaskRef::Name(s) => s.clone(),
            };
            let parent = self.resolve(&p.parent);
            let child = self.resolve(&p.child);
            let (parent, child) = match (parent, child) {
                (Some(a), Some(b)) => (a, b),
                (pa, _) => {
                    let (id, role, of) = if pa.is_none() {
                        let of = (p.declared_by != Some(Role::Parent)).then(|| name_of(&p.child));
                        (name_of(&p.parent), Role::Parent, of)
                    } else {
                        let of = (p.declared_by != Some(Role::Child)).then(|| name_of(&p.parent));
                        (name_of(&p.child), Role::Child, of)
                    };
                    // A declaration owned by the unknown task itself (`<child ref="X">` with X
                    // unknown) has no other task to name.
                    let of = of.filter(|o| self.index.contains_key(o));
                    return Err(self.error(p.at.clone(), ErrorKind::UnknownTask { id, role, of }));
                }
            };
            if parent == child {
                let id = self.tasks[parent.index()].id.clone();
                let at = match p.at {
                    Location::None => self.locations[parent.index()].clone(),
                    ref at => at.clone(),
                };
                return Err(self.error(
                    at,
                    ErrorKind::Cycle {
                        task: id.clone(),
                        cycle: vec![id.clone(), id],
                    },
                ));
            }
            if p.explicit {
                explicit.push((parent.0, child.0, p.bytes));
            } else {
                derived_flags.push((parent.0, child.0, p.bytes));
            }
        }

        // File-implied edges: producer → consumer, volume = the consumer's declared sizes.
        let mut producers: Vec<Vec<u32>> = vec![Vec::new(); self.files.len()];
        for (t, task) in self.tasks.iter().enumerate() {
            for u in &task.outputs {
                let list = &mut producers[u.file.0 as usize];
                if list.last() != Some(&(t as u32)) {
                    list.push(t as u32);
                }
            }
        }
        let mut implied: HashMap<(u32, u32), (u64, u32)> = HashMap::new();
        for (c, task) in self.tasks.iter().enumerate() {
            for u in &task.inputs {
                for &p in &producers[u.file.0 as usize] {
                    // A task reading a file it writes itself implies no dependency.
                    if p != c as u32 {
                        let v = implied.entry((p, c as u32)).or_insert((0, 0));
                        v.0 = v.0.saturating_add(u.size);
                        v.1 = v.1.saturating_add(1);
                    }
                }
            }
        }

        // Merge: (parent, child) → edge.
        let mut all: Vec<Edge> = Vec::with_capacity(explicit.len() + implied.len());
        let volume = |p: u32, c: u32, given: u64| match implied.get(&(p, c)) {
            Some(&(bytes, files)) => (bytes, files),
            None => (given, 0),
        };
        if edges != EdgeSource::Files {
            for &(p, c, given) in &explicit {
                let (bytes, files) = volume(p, c, given);
                all.push(Edge {
                    parent: TaskId(p),
                    child: TaskId(c),
                    bytes,
                    files,
                    explicit: true,
                });
            }
        }
        if edges != EdgeSource::Explicit {
            // Sorted so the edge list never depends on HashMap order (it is sorted below too).
            let mut keys: Vec<_> = implied.iter().map(|(&k, &v)| (k, v)).collect();
            keys.sort_unstable();
            for ((p, c), (bytes, files)) in keys {
                all.push(Edge {
                    parent: TaskId(p),
                    child: TaskId(c),
                    bytes,
                    files,
                    explicit: false,
                });
            }
        }
        // Edges copied from a built workflow (`to_builder`) that were implied there: kept
        // whatever `edges` says, so a copy built with `Explicit` has exactly the original edges.
        for &(p, c, given) in &derived_flags {
            let (bytes, files) = volume(p, c, given);
            all.push(Edge {
                parent: TaskId(p),
                child: TaskId(c),
                bytes,
                files,
                explicit: false,
            });
        }
        all.sort_by_key(|e| (e.parent, e.child, !e.explicit));
        // Duplicates are adjacent: keep the first (explicit if any declared it).
        all.dedup_by(|later, first| {
            later.parent == first.parent && later.child == first.child && {
                first.explicit |= later.explicit;
                true
            }
        });
        let edges_v = all;

        // CSR.
        let mut succ_start = vec![0u32; n + 1];
        let mut indeg = vec![0u32; n];
        for e in &edges_v {
            succ_start[e.parent.index() + 1] += 1;
            indeg[e.child.index()] += 1;
        }
        for i in 0..n {
            succ_start[i + 1] += succ_start[i];
        }
        let mut pred_start = vec![0u32; n + 1];
        for i in 0..n {
            pred_start[i + 1] = pred_start[i] + indeg[i];
        }
        let mut fill = pred_start.clone();
        let mut pred_edges = vec![0u32; edges_v.len()];
        // Edges are sorted by parent, so each child's list comes out sorted by parent.
        for (i, e) in edges_v.iter().enumerate() {
            let slot = &mut fill[e.child.index()];
            pred_edges[*slot as usize] = i as u32;
            *slot += 1;
        }

        // Kahn, lowest ready id first.
        let mut remaining = indeg;
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> = (0..n as u32)
            .filter(|&t| remaining[t as usize] == 0)
            .map(std::cmp::Reverse)
            .collect();
        let mut topo = Vec::with_capacity(n);
        let mut level = vec![0u32; n];
        while let Some(std::cmp::Reverse(t)) = ready.pop() {
            topo.push(TaskId(t));
            let (a, b) = (
                succ_start[t as usize] as usize,
                succ_start[t as usize + 1] as usize,
            );
            for e in &edges_v[a..b] {
                let c = e.child.index();
                level[c] = level[c].max(level[t as usize] + 1);
                remaining[c] -= 1;
                if remaining[c] == 0 {
                    ready.push(std::cmp::Reverse(c as u32));
                }
            }
        }
        if topo.len() < n {
            return Err(self.cycle_error(&remaining, &edges_v, &pred_start, &pred_edges));
        }
        let mut topo_pos = vec![0u32; n];
        for (i, t) in topo.iter().enumerate() {
            topo_pos[t.index()] = i as u32;
        }
        Ok(Workflow {
            source: self.source,
            tasks: self.tasks,
            files: self.files,
            edges: edges_v,
            succ_start,
            pred_start,
            pred_edges,
            topo,
            topo_pos,
            level,
            index: self.index,
        })
    }

    /// Kahn left `remaining[t] > 0` exactly for the tasks on or after a cycle. Every such task
    /// has a parent that is also left, so walking to the lowest-id such parent from any of them
    /// must revisit a task: that closes a cycle.
    fn cycle_error(
        &self,
        remaining: &[u32],
        edges: &[Edge],
        pred_start: &[u32],
        pred_edges: &[u32],
    ) -> WorkflowError {
        let start = remaining
            .iter()
            .position(|&r| r > 0)
            .expect("a cycle leaves a task");
        let mut seen = vec![usize::MAX; remaining.len()];
        let mut walk: Vec<usize> = Vec::new();
        let mut t = start;
        while seen[t] == usize::MAX {
            seen[t] = walk.len();
            walk.push(t);
            let (a, b) = (pred_start[t] as usize, pred_start[t + 1] as usize);
            t = pred_edges[a..b]
                .iter()
                .map(|&e| edges[e as usize].parent.index())
                .find(|&p| remaining[p] > 0)
                .expect("a task left by Kahn has a parent left");
        }
        // walk[seen[t]..] goes backwards along edges; reverse it into dependency order.
        let mut cycle: Vec<usize> = walk[seen[t]..].to_vec();
        cycle.reverse();
        // Start at the lowest id on the cycle, so the message does not depend on the walk.
        let lowest = (0..cycle.len())
            .min_by_key(|&i| cycle[i])
            .expect("non-empty");
        cycle.rotate_left(lowest);
        let first = cycle[0];
        let mut names: Vec<String> = cycle.iter().map(|&i| self.tasks[i].id.clone()).collect();
        names.push(self.tasks[first].id.clone());
        self.error(
            self.locations[first].clone(),
            ErrorKind::Cycle {
                task: self.tasks[first].id.clone(),
                cycle: names,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diamond() -> Workflow {
        let mut b = WorkflowBuilder::new("t");
        let a = b.add_task("a", "A", 1.0, 1, Location::None).unwrap();
        let x = b.add_task("x", "X", 2.0, 2, Location::None).unwrap();
        let y = b.add_task("y", "Y", 3.0, 1, Location::None).unwrap();
        let z = b.add_task("z", "Z", 4.0, 1, Location::None).unwrap();
        b.add_output(a, "f1", 10);
        b.add_input(x, "f1", 11);
        b.add_input(y, "f1", 12);
        b.add_output(x, "g", 5);
        b.add_input(z, "g", 5);
        b.depend("y", "z", Some(Role::Child), Location::None);
        b.depend("a", "x", Some(Role::Child), Location::None);
        b.build(EdgeSource::Union).unwrap()
    }

    #[test]
    fn edges_merge_declared_and_file_dependencies() {
        let w = diamond();
        assert_eq!(w.edges().len(), 4);
        let a = w.find("a").unwrap();
        let x = w.find("x").unwrap();
        let e = w.edge(a, x).unwrap();
        assert!(e.explicit);
        assert_eq!((e.bytes, e.files), (11, 1)); // the consumer's declared size
        let y = w.find("y").unwrap();
        let e = w.edge(a, y).unwrap();
        assert!(!e.explicit);
        assert_eq!(e.bytes, 12);
        let z = w.find("z").unwrap();
        assert_eq!(w.edge(y, z).unwrap().bytes, 0);
        assert_eq!(w.parents(z).collect::<Vec<_>>(), vec![x, y]);
        assert_eq!(w.level(z), 2);
        assert_eq!(w.depth(), 3);
        assert_eq!(w.level_widths(), vec![1, 2, 1]);
        assert_eq!(w.total_area(), 1.0 + 4.0 + 3.0 + 4.0);
        assert_eq!(w.entries(), vec![a]);
        assert_eq!(w.exits(), vec![z]);
    }

    #[test]
    fn edge_sources_select_edges() {
        let mut b = WorkflowBuilder::new("t");
        let a = b.add_task("a", "A", 1.0, 1, Location::None).unwrap();
        let c = b.add_task("c", "C", 1.0, 1, Location::None).unwrap();
        let d = b.add_task("d", "D", 1.0, 1, Location::None).unwrap();
        b.add_output(a, "f", 7);
        b.add_input(c, "f", 7);
        b.depend("a", "d", None, Location::None);
        let only_declared = b.clone().build(EdgeSource::Explicit).unwrap();
        assert_eq!(only_declared.edges().len(), 1);
        assert!(only_declared.edge(a, d).is_some());
        let only_files = b.clone().build(EdgeSource::Files).unwrap();
        assert_eq!(only_files.edges().len(), 1);
        assert_eq!(only_files.edge(a, c).unwrap().bytes, 7);
        assert_eq!(b.build(EdgeSource::Union).unwrap().edges().len(), 2);
    }

    #[test]
    fn to_builder_round_trips() {
        let w = diamond();
        let again = w.to_builder("t").build(EdgeSource::Explicit).unwrap();
        assert_eq!(again.edges(), w.edges());
        assert_eq!(again.tasks(), w.tasks());
    }

    #[test]
    fn entry_exit_dummies() {
        let mut b = WorkflowBuilder::new("t");
        for id in ["p", "q", "r"] {
            b.add_task(id, "T", 1.0, 1, Location::None).unwrap();
        }
        b.depend("p", "r", None, Location::None);
        let w = b.build(EdgeSource::Union).unwrap();
        let d = w.with_entry_exit(true).unwrap();
        assert_eq!(d.len(), 5);
        assert_eq!(d.entries().len(), 1);
        assert_eq!(d.exits().len(), 1);
        assert_eq!(d.task(d.find("entry").unwrap()).procs, 0);
        let single = d.with_entry_exit(true).unwrap();
        assert_eq!(single.len(), 5);
    }

    #[test]
    fn cycle_names_a_task_on_it() {
        let mut b = WorkflowBuilder::new("t");
        for id in ["s", "a", "b", "c", "after"] {
            b.add_task(id, "T", 1.0, 1, Location::None).unwrap();
        }
        b.depend("s", "a", None, Location::None);
        b.depend("a", "b", None, Location::None);
        b.depend("b", "c", None, Location::None);
        b.depend("c", "a", None, Location::None);
        b.depend("c", "after", None, Location::None);
        let e = b.build(EdgeSource::Union).unwrap_err();
        match e.kind {
            ErrorKind::Cycle { task, cycle } => {
                assert_eq!(task, "a");
                assert_eq!(cycle, vec!["a", "b", "c", "a"]);
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn unknown_and_duplicate_and_bad_runtime() {
        let mut b = WorkflowBuilder::new("t");
        b.add_task("a", "A", 1.0, 1, Location::json("tasks[0]"))
            .unwrap();
        let e = b
            .add_task("a", "A", 1.0, 1, Location::json("tasks[1]"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: tasks[1]: duplicate task id \"a\" (first defined at: tasks[0])"
        );
        let e = b.add_task("n", "A", -1.0, 1, Location::None).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadRuntime { .. }));
        // 1e300 s made provision print negative end times and costs.
        let e = b
            .add_task("big", "A", 1e300, 1, Location::None)
            .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::RuntimeTooLarge { .. }));
        assert!(
            e.to_string()
                .contains("task \"big\": runtime 1e300 s is beyond 10^12 s (about 31,700 years)"),
            "{e}"
        );
        b.add_task("half", "A", 6e11, 1, Location::None).unwrap();
        let e = b
            .add_task("more", "A", 6e11, 1, Location::None)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("makes the workflow's total run time 1200000000001 s, beyond"),
            "{e}"
        );
        b.depend(
            "zz",
            "a",
            Some(Role::Child),
            Location::json("tasks[0].parents[0]"),
        );
        let e = b.build(EdgeSource::Union).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: tasks[0].parents[0]: unknown parent \"zz\" of task \"a\""
        );
    }
}
