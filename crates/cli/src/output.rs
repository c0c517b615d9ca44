//! Standard output that a closed pipe cannot crash: every command prints through `out!` and
//! `outln!` (in scope in every module: `main.rs` declares this one `#[macro_use]`, first) or
//! writes to [`Stdout`], never through `print!`/`println!`, which panic (exit 101) when the
//! reader has gone away (`scenario-engine test … | head -1`). A closed stdout is how
//! pipelines end, not a failure: the rest of the output is dropped and the command finishes
//! with its own exit code. Any other write error is remembered and turns a successful exit into
//! a run failure (see [`failure`]). Diagnostics go to stderr through `errln!`, which ignores a
//! closed stderr for the same reason.

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout reported a broken pipe: later output is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);
/// The first write error other than a broken pipe.
static FAILURE: Mutex<Option<String>> = Mutex::new(None);

/// Standard output, locked per write; a broken pipe makes every later write a no-op.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !CLOSED.load(Ordering::Relaxed) {
            let mut stdout = io::stdout().lock();
            absorb(stdout.write_all(buf).and_then(|()| stdout.flush()));
        }
        Ok(buf.len())
    }

    /// Every write is flushed already.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Records the outcome of a write: a broken pipe closes the output quietly, another error is
/// kept for [`failure`].
fn absorb(written: io::Result<()>) {
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => CLOSED.store(true, Ordering::Relaxed),
        Err(e) => {
            CLOSED.store(true, Ordering::Relaxed);
            if let Ok(mut first) = FAILURE.lock() {
                first.get_or_insert_with(|| e.to_string());
            }
        }
    }
}

/// Prints `text` on stdout (see the module docs for what a closed stdout does).
pub(crate) fn print(text: &str) {
    let _ = Stdout.write_all(text.as_bytes());
}

/// Prints `text` on stderr, ignoring a closed or failing stderr: diagnostics must never crash
/// the command (`errln!` panics, exit 101, when stderr is a pipe whose reader has gone:
/// `scenario-engine run … 2>&1 | head -1`).
pub(crate) fn eprint(text: &str) {
    let mut stderr = io::stderr().lock();
    let _ = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush());
}

/// Why stdout could not be written, when it failed for another reason than a closed pipe.
#[must_use]
pub(crate) fn failure() -> Option<String> {
    FAILURE.lock().ok().and_then(|f| f.clone())
}

/// `print!` through [`print`]: never panics on a closed stdout.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print(&format!($($arg)*))
    };
}

/// `println!` through [`print`]: never panics on a closed stdout.
macro_rules! outln {
    () => {
        $crate::output::print("\n")
    };
    ($($arg:tt)*) => {
        $crate::output::print(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `errln!` through [`eprint`]: never panics on a closed stderr.
macro_rules! errln {
    () => {
        $crate::output::eprint("\n")
    };
    ($($arg:tt)*) => {
        $crate::output::eprint(&format!("{}\n", format_args!($($arg)*)))
    };
}
