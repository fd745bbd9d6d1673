//! Parallel Workloads Archive logs in the Standard Workload Format (SWF).
//!
//! The format (<http://www.cs.huji.ac.il/labs/parallel/workload/swf.html>): header comments
//! `; Key: value`, then one line per job with 18 whitespace-separated fields, `-1` for unknown.
//!
//! - [`SwfReader`] streams records from a plain or gzip file (detected by the magic bytes, not
//!   the name); the header is parsed into [`SwfHeader`] (MaxProcs, MaxJobs, MaxRecords,
//!   UnixStartTime, TimeZoneString, queues, partitions, notes and the cleaning filters). Every
//!   unknown field is an `Option`. Errors name the file and line; no input makes it panic.
//! - [`load_swf`] keeps the records a scheduling model can use and counts every other one in
//!   [`SwfLoadReport`]. The rules:
//!   - submit time unknown: skipped;
//!   - run time unknown (`-1`) or `0`: skipped (nothing to schedule);
//!   - processors = allocated (field 5), or requested (field 8) when allocated is unknown
//!     (counted); both unknown, or the count used is `0`: skipped;
//!   - jobs out of submit-time order are counted, and the jobs are then stably sorted by
//!     submit time (a warning, not an error);
//!   - repeated job numbers and jobs above the header's MaxProcs are counted as warnings and
//!     kept (the model decides what to do with a job larger than its machine);
//!   - a kept job whose submit, wait, run or requested time is beyond
//!     [`MAX_SECONDS`](gridsched_sim::MAX_SECONDS) (10^12 s, about 31,700 years) is an error
//!     at its line: the simulations add these times up.
//! - [`TraceSummary`]: distributions of run time, requested time, size, inter-arrival time and
//!   the log's own wait, and the offered load.
//! - [`write_jobs_csv`], [`write_requests_csv`]: CSV conversions.
//! - [`data_dir`], [`trace_path`]: where the archive's logs are found (`../shared/data/traces`
//!   next to the checkout, or `$GRIDSCHED_DATA`, or an explicit directory), and
//!   [`file_sha256`] to record which bytes a result came from ([`load_swf_with_sha256`]
//!   reads a log and hashes it in one pass, for an input that can be read only once).

mod convert;
mod header;
mod log;
mod pipe;
mod reader;
mod summary;

pub use convert::{
    ConversionReport, JOB_CSV_HEADER, REQUEST_CSV_HEADER, RequestConversion, write_job_row,
    write_jobs_csv, write_request_row, write_requests_csv,
};
pub use header::{CleaningFilter, NamedId, SwfHeader};
pub use log::{
    Skip, SwfJob, SwfLoadOptions, SwfLoadReport, SwfLog, keep, load_each, load_from, load_swf,
    stream_each,
};
pub use pipe::ThreadedReader;
pub use reader::{FIELD_NAMES, SwfReader, SwfRecord, detect_gzip, open_input, parse_record};
pub use summary::{Distribution, TraceSummary, ecdf};

use std::path::{Path, PathBuf};

use crate::requests::InputError;

pub use gridsched_sim::data::{DATA_ENV, data_dir};

/// The archive logs the experiments use, by short name (file under `<data>/traces/`).
pub const TRACES: [(&str, &str); 7] = [
    ("CTC", "CTC-SP2-1996-3.1-cln.swf.gz"),
    ("KTH", "KTH-SP2-1996-2.1-cln.swf.gz"),
    ("HPC2N", "HPC2N-2002-2.2-cln.swf.gz"),
    ("SDSC", "SDSC-SP2-1998-4.2-cln.swf.gz"),
    ("LCG", "LCG-2005-1.swf.gz"),
    ("LPC", "LPC-EGEE-2004-1.2-cln.swf.gz"),
    ("Curie", "CEA-Curie-2011-2.1-cln.swf.gz"),
];

/// The file of a trace given by short name (`KTH`, case-insensitive) under `<data>/traces/`,
/// or, when `name` is not a known short name, `name` itself as a path (relative names are
/// resolved against `<data>/traces/` first).
pub fn trace_path(data: &Path, name: &str) -> PathBuf {
    if let Some((_, file)) = TRACES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return data.join("traces").join(file);
    }
    let p = Path::new(name);
    if p.is_relative() {
        let in_data = data.join("traces").join(p);
        if in_data.is_file() {
            return in_data;
        }
    }
    p.to_path_buf()
}

/// SHA-256 of a file's bytes as lowercase hex (what `sha256sum` prints), for provenance.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(h))
}

fn hex(h: sha2::Sha256) -> String {
    use sha2::Digest;
    h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
}

/// [`load_swf`] and [`file_sha256`] in one read of the file: the log, and the SHA-256 of
/// every byte of the file as stored (compressed, for a gzip log; past a `limit` too, read to
/// the end). A FIFO or standard input (`/dev/stdin`) can be read only once.
pub fn load_swf_with_sha256(
    path: &Path,
    options: SwfLoadOptions,
) -> Result<(SwfLog, String), InputError> {
    use sha2::Digest;
    use std::cell::RefCell;
    use std::io::{BufReader, Read};
    use std::rc::Rc;

    /// The file, hashed as it is read.
    struct Hashing {
        file: std::fs::File,
        hash: sha2::Sha256,
    }
    impl Read for Hashing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.file.read(buf)?;
            self.hash.update(&buf[..n]);
            Ok(n)
        }
    }
    /// The reader the parser owns; the hash stays reachable here once it is done.
    struct Shared(Rc<RefCell<Hashing>>);
    impl Read for Shared {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().read(buf)
        }
    }

    let io = |error| InputError::Io {
        path: path.display().to_string(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let hashing = Rc::new(RefCell::new(Hashing {
        file,
        hash: sha2::Sha256::new(),
    }));
    let input = detect_gzip(BufReader::with_capacity(
        1 << 16,
        Shared(Rc::clone(&hashing)),
    ))
    .map_err(io)?;
    let log = load_from(SwfReader::new(input, path.display().to_string())?, options)?;
    // What the parser left unread: past the limit, or after the gzip stream.
    let mut rest = hashing.borrow_mut();
    let mut buf = vec![0u8; 1 << 16];
    while rest.read(&mut buf).map_err(io)? > 0 {}
    Ok((log, hex(std::mem::take(&mut rest.hash))))
}
