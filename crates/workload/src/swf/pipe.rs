//! A gzip stream inflated on a second thread while the caller parses what was already
//! inflated (docs/benchmarks.md, "Replay I/O against zcat").
//!
//! Inflating HPC2N's 19 MB takes about as long as parsing them; on two cores the two overlap.
//! The decoder thread owns the compressed input and sends blocks of inflated bytes through a
//! bounded channel; the reader hands each block back when it has consumed it, so a few
//! blocks are allocated once and reused (no allocation per block), and the thread never runs
//! more than [`IN_FLIGHT`] blocks ahead.
//!
//! Every block is the answer to one `read` call of [`BLOCK`] bytes on the decoder — the calls
//! a `BufReader` of that capacity makes — so the reader sees the same bytes split at the same
//! places, and a corrupt or truncated stream fails at the same point (and an SWF error names
//! the same line) as with the decoder read on the caller's thread.

use std::io::{BufRead, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Bytes asked of the decoder per block: the capacity of the `BufReader` that the same-thread
/// path reads the decoder through.
pub const BLOCK: usize = 1 << 16;

/// Blocks the decoder thread may hold filled before the reader takes them.
pub const IN_FLIGHT: usize = 4;

/// A filled block: the buffer (always [`BLOCK`] bytes long) and how many of them are data.
type Filled = std::io::Result<(Vec<u8>, usize)>;

/// A [`BufRead`] over bytes that another thread produces with `read` calls of `BLOCK` (64 KiB) bytes
/// on `source` (a gzip decoder). End of input once `source` returns 0; an error of `source` is
/// returned once, in order, after the bytes read before it, and the input ends there.
#[derive(Debug)]
pub struct ThreadedReader {
    filled: Receiver<Filled>,
    /// Consumed blocks go back to the thread through this channel.
    spare: SyncSender<Vec<u8>>,
    block: Vec<u8>,
    len: usize,
    pos: usize,
    done: bool,
}

impl ThreadedReader {
    /// Starts the thread that reads `source`.
    pub fn spawn<R: Read + Send + 'static>(mut source: R) -> std::io::Result<Self> {
        let (filled_tx, filled) = sync_channel::<Filled>(IN_FLIGHT);
        // The reader holds one block and `IN_FLIGHT` wait in the channel; one more may be
        // in the thread's hands: the spare channel never fills, so giving a block back never
        // blocks.
        let (spare, spare_rx) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        std::thread::Builder::new()
            .name("inflate".into())
            .spawn(move || {
                let mut fresh = IN_FLIGHT + 2;
                loop {
                    let mut block = if fresh > 0 {
                        fresh -= 1;
                        vec![0u8; BLOCK]
                    } else {
                        // The reader was dropped (e.g. a record limit was reached): stop.
                        let Ok(b) = spare_rx.recv() else { return };
                        b
                    };
                    let r = loop {
                        match source.read(&mut block) {
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                            r => break r,
                        }
                    };
                    let last = !matches!(r, Ok(n) if n > 0);
                    if filled_tx.send(r.map(|n| (block, n))).is_err() || last {
                        return;
                    }
                }
            })?;
        Ok(ThreadedReader {
            filled,
            spare,
            block: Vec::new(),
            len: 0,
            pos: 0,
            done: false,
        })
    }
}

impl Read for ThreadedReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ThreadedReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.len && !self.done {
            let used = std::mem::take(&mut self.block);
            if !used.is_empty() {
                // Cannot fail while the thread waits for it; if the thread has ended, the
                // block is not needed.
                let _ = self.spare.try_send(used);
            }
            (self.len, self.pos) = (0, 0);
            match self.filled.recv() {
                Ok(Ok((block, n))) => {
                    self.done = n == 0;
                    self.block = block;
                    self.len = n;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // The thread ended without a last message: it panicked.
                Err(_) => {
                    self.done = true;
                    return Err(std::io::Error::other("the inflating thread stopped"));
                }
            }
        }
        Ok(&self.block[self.pos..self.len])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.len);
    }
}
