//! The ETC (expected time to compute) matrix: `etc[i][j]` is the time task `i` takes on machine
//! `j` when the machine has no other load (Kumar 2010 §4; Braun et al. 2001 §2).

use std::fmt;

/// Why a matrix was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EtcError {
    #[error("an ETC matrix needs at least one task and one machine (got {tasks} × {machines})")]
    Empty { tasks: usize, machines: usize },
    #[error("{tasks} tasks × {machines} machines is too large")]
    TooLarge { tasks: usize, machines: usize },
    #[error("expected {expected} values ({tasks} tasks × {machines} machines), got {got}")]
    WrongLength {
        tasks: usize,
        machines: usize,
        expected: usize,
        got: usize,
    },
    #[error(
        "ETC[{task}][{machine}] = {value}: an expected time to compute must be finite and non-negative"
    )]
    Invalid {
        task: usize,
        machine: usize,
        value: f64,
    },
    #[error(
        "the ETC values sum to more than the largest finite number; ready times would overflow"
    )]
    Overflow,
}

/// Largest number of entries accepted (2^32 − 1: task and machine ids are stored as `u32`).
pub const MAX_ENTRIES: usize = u32::MAX as usize;

/// A validated `tasks × machines` matrix of finite, non-negative expected times, stored
/// task-major (`values[i * machines + j]`).
///
/// Validation also guarantees that the sum of all entries is finite, so no ready time or
/// completion time computed from it can overflow to infinity.
#[derive(Clone, PartialEq)]
pub struct EtcMatrix {
    tasks: usize,
    machines: usize,
    values: Vec<f64>,
}

impl fmt::Debug for EtcMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EtcMatrix({} × {}) [", self.tasks, self.machines)?;
        for i in 0..self.tasks.min(8) {
            write!(f, "{:?}", self.row(i))?;
            if i + 1 < self.tasks {
                write!(f, ", ")?;
            }
        }
        if self.tasks > 8 {
            write!(f, "...")?;
        }
        write!(f, "]")
    }
}

impl EtcMatrix {
    /// A matrix from task-major values. `-0.0` is stored as `+0.0`.
    pub fn new(tasks: usize, machines: usize, mut values: Vec<f64>) -> Result<Self, EtcError> {
        if tasks == 0 || machines == 0 {
            return Err(EtcError::Empty { tasks, machines });
        }
        let expected = tasks
            .checked_mul(machines)
            .filter(|&n| n <= MAX_ENTRIES)
            .ok_or(EtcError::TooLarge { tasks, machines })?;
        if values.len() != expected {
            return Err(EtcError::WrongLength {
                tasks,
                machines,
                expected,
                got: values.len(),
            });
        }
        let mut total = 0.0_f64;
        for (k, v) in values.iter_mut().enumerate() {
            if !(v.is_finite() && *v >= 0.0) {
                return Err(EtcError::Invalid {
                    task: k / machines,
                    machine: k % machines,
                    value: *v,
                });
            }
            *v += 0.0; // -0.0 → +0.0, so bit patterns order like the numbers
            total += *v;
        }
        if !total.is_finite() {
            return Err(EtcError::Overflow);
        }
        Ok(EtcMatrix {
            tasks,
            machines,
            values,
        })
    }

    /// A matrix from rows (every row must have the same length).
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self, EtcError> {
        let machines = rows.first().map_or(0, |r| r.as_ref().len());
        let mut values = Vec::with_capacity(rows.len() * machines);
        for r in rows {
            let r = r.as_ref();
            if r.len() != machines {
                return Err(EtcError::WrongLength {
                    tasks: rows.len(),
                    machines,
                    expected: rows.len() * machines,
                    got: values.len() + r.len(),
                });
            }
            values.extend_from_slice(r);
        }
        EtcMatrix::new(rows.len(), machines, values)
    }

    /// Number of tasks (rows).
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// Number of machines (columns).
    pub fn machines(&self) -> usize {
        self.machines
    }

    /// `ETC[task][machine]`.
    #[inline]
    pub fn get(&self, task: usize, machine: usize) -> f64 {
        self.values[task * self.machines + machine]
    }

    /// The expected times of one task on every machine.
    #[inline]
    pub fn row(&self, task: usize) -> &[f64] {
        &self.values[task * self.machines..(task + 1) * self.machines]
    }

    /// All values, task-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The rows `tasks` (in that order) as a new matrix.
    pub fn select_tasks(&self, tasks: &[usize]) -> Result<EtcMatrix, EtcError> {
        let mut values = Vec::with_capacity(tasks.len() * self.machines);
        for &t in tasks {
            values.extend_from_slice(self.row(t));
        }
        EtcMatrix::new(tasks.len(), self.machines, values)
    }

    /// Which of Braun et al.'s consistency classes the matrix belongs to: consistent if one
    /// machine order sorts every row (the columns are tried in lexicographic order of their
    /// values, which is such an order when one exists), semi-consistent if the even-indexed
    /// columns are sorted in index order (as in the benchmark files), inconsistent otherwise.
    pub fn consistency(&self) -> Consistency {
        let sorted = |cols: &[usize]| {
            (0..self.tasks).all(|i| {
                let row = self.row(i);
                cols.windows(2).all(|w| row[w[0]] <= row[w[1]])
            })
        };
        let mut order: Vec<usize> = (0..self.machines).collect();
        order.sort_by(|&a, &b| {
            (0..self.tasks)
                .map(|i| self.get(i, a).total_cmp(&self.get(i, b)))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        let even: Vec<usize> = (0..self.machines).step_by(2).collect();
        if sorted(&order) {
            Consistency::Consistent
        } else if self.machines > 2 && sorted(&even) {
            Consistency::SemiConsistent
        } else {
            Consistency::Inconsistent
        }
    }
}

/// Braun et al. (2001)'s consistency classes of an ETC matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Consistency {
    /// If machine `a` is faster than `b` for one task, it is for every task: each row is
    /// non-decreasing across the machines in one fixed machine order (index order in the
    /// benchmark files).
    Consistent,
    /// No structure imposed.
    Inconsistent,
    /// An inconsistent matrix with a consistent sub-matrix: the even-indexed columns
    /// (0, 2, 4, ...) of every row are non-decreasing.
    SemiConsistent,
}

impl Consistency {
    /// `c`, `i` or `s` (the letter in the Braun file names `u_c_hihi.0`, ...).
    pub fn letter(self) -> char {
        match self {
            Consistency::Consistent => 'c',
            Consistency::Inconsistent => 'i',
            Consistency::SemiConsistent => 's',
        }
    }

    /// The class of a letter.
    pub fn from_letter(c: char) -> Option<Consistency> {
        match c {
            'c' => Some(Consistency::Consistent),
            'i' => Some(Consistency::Inconsistent),
            's' => Some(Consistency::SemiConsistent),
            _ => None,
        }
    }

    /// `consistent`, `inconsistent`, `semi-consistent`.
    pub fn name(self) -> &'static str {
        match self {
            Consistency::Consistent => "consistent",
            Consistency::Inconsistent => "inconsistent",
            Consistency::SemiConsistent => "semi-consistent",
        }
    }
}

impl std::str::FromStr for Consistency {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "consistent" | "c" => Ok(Consistency::Consistent),
            "inconsistent" | "i" => Ok(Consistency::Inconsistent),
            "semi-consistent" | "semiconsistent" | "s" => Ok(Consistency::SemiConsistent),
            _ => Err(format!(
                "unknown consistency `{s}`; expected consistent, inconsistent or semi-consistent"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert!(matches!(
            EtcMatrix::new(0, 3, vec![]),
            Err(EtcError::Empty { .. })
        ));
        assert!(matches!(
            EtcMatrix::new(2, 2, vec![1.0; 3]),
            Err(EtcError::WrongLength { got: 3, .. })
        ));
        assert_eq!(
            EtcMatrix::new(2, 2, vec![1.0, 2.0, -1.0, 0.0]).unwrap_err(),
            EtcError::Invalid {
                task: 1,
                machine: 0,
                value: -1.0
            }
        );
        assert!(matches!(
            EtcMatrix::new(1, 2, vec![f64::NAN, 0.0]),
            Err(EtcError::Invalid { .. })
        ));
        assert!(matches!(
            EtcMatrix::new(1, 2, vec![f64::INFINITY, 0.0]),
            Err(EtcError::Invalid { .. })
        ));
        assert_eq!(
            EtcMatrix::new(1, 2, vec![f64::MAX, f64::MAX]).unwrap_err(),
            EtcError::Overflow
        );
        assert!(matches!(
            EtcMatrix::new(usize::MAX, 2, vec![]),
            Err(EtcError::TooLarge { .. })
        ));
        let m = EtcMatrix::new(1, 2, vec![-0.0, 1.0]).unwrap();
        assert_eq!(m.get(0, 0).to_bits(), 0.0_f64.to_bits());
        assert!(EtcMatrix::from_rows(&[vec![1.0, 2.0], vec![3.0]]).is_err());
    }

    #[test]
    fn consistency_classes() {
        let c = EtcMatrix::from_rows(&[[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 5.0, 9.0]]).unwrap();
        assert_eq!(c.consistency(), Consistency::Consistent);
        let s = EtcMatrix::from_rows(&[[1.0, 0.5, 3.0, 0.1], [2.0, 9.0, 5.0, 1.0]]).unwrap();
        assert_eq!(s.consistency(), Consistency::SemiConsistent);
        let i = EtcMatrix::from_rows(&[[3.0, 0.5, 1.0, 0.1], [1.0, 2.0, 3.0, 4.0]]).unwrap();
        assert_eq!(i.consistency(), Consistency::Inconsistent);
        // Consistent under a machine permutation (rank 1: length / speed).
        let p = EtcMatrix::from_rows(&[[4.0, 1.0, 2.0], [8.0, 2.0, 4.0], [4.0, 1.0, 1.0]]).unwrap();
        assert_eq!(p.consistency(), Consistency::Consistent);
        for k in [
            Consistency::Consistent,
            Consistency::Inconsistent,
            Consistency::SemiConsistent,
        ] {
            assert_eq!(Consistency::from_letter(k.letter()), Some(k));
            assert_eq!(k.name().parse::<Consistency>(), Ok(k));
        }
    }
}
