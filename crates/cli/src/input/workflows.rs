//! Workflows (`provision --workflow`): a Pegasus DAX or WfCommons file (the `workflow`
//! crate's readers), or one of the generated workflows.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use gridsched_sim::StreamKey;
use gridsched_workflow::{CyberShake, ReadOptions, SyntheticWorkflow, Workflow, read_workflow};

/// What `--workflow` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkflowSource {
    /// A DAX or WfCommons file (optionally gzipped).
    File(PathBuf),
    /// `cybershake`: Singh's Table 2 workflow.
    CyberShake,
    /// `synthetic`: the thesis's generator.
    Synthetic,
}

impl WorkflowSource {
    /// The source `--workflow` names; a file is checked ([`super::file()`]) here, before any
    /// work: the sites are loaded and replayed before the workflow is read.
    pub fn parse(arg: &str) -> Result<WorkflowSource> {
        Ok(match arg {
            "cybershake" => WorkflowSource::CyberShake,
            "synthetic" => WorkflowSource::Synthetic,
            path => {
                let path = PathBuf::from(path);
                super::file(&path)?;
                WorkflowSource::File(path)
            }
        })
    }

    /// The file, unless the workflow is generated.
    pub fn file(&self) -> Option<&Path> {
        match self {
            WorkflowSource::File(p) => Some(p),
            _ => None,
        }
    }

    /// The workflow, and how many of its tasks are its own: the dummy entry and exit added to
    /// a file's workflow come after them (and are left out of a schedule's rows). A synthetic
    /// workflow is `synthetic` drawn from `seed`'s stream. A file without tasks, and a task
    /// wider than `widest` (the widest site), are refused.
    pub fn load(
        &self,
        synthetic: &SyntheticWorkflow,
        seed: u64,
        widest: u32,
    ) -> Result<(Workflow, usize)> {
        let (wf, own) = match self {
            WorkflowSource::File(path) => {
                let wf = read_workflow(path, &ReadOptions::default())?;
                if wf.is_empty() {
                    bail!("{}: no tasks", wf.source());
                }
                let own = wf.len();
                (wf.with_entry_exit(true)?, own)
            }
            WorkflowSource::CyberShake => {
                let wf = CyberShake::default().build()?;
                let own = wf.len();
                (wf, own)
            }
            WorkflowSource::Synthetic => {
                let wf = synthetic
                    .generate(&StreamKey::new(seed, "gridsched-provision").stream("workflow"))?;
                let own = wf.len();
                (wf, own)
            }
        };
        if let Some(t) = wf.tasks().iter().find(|t| t.procs > widest) {
            bail!(
                "{}: task {} needs {} processors; the widest site has {widest}",
                wf.source(),
                t.id,
                t.procs
            );
        }
        Ok((wf, own))
    }
}
