//! How a command (or the recorder) ended, before it becomes a process exit code: shared
//! by `commands` and `recorder`, so neither imports the other.

/// How a command ended, before it becomes a process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Exit 0.
    Success,
    /// Exit 1 without an error message: `diff` found drift.
    Differences,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Differences => 1,
        }
    }
}

static ONE_SHOT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says that the process exits when its command returns (the binary; not the tests,
/// which run many commands in one process).
pub fn exit_after_the_command() {
    ONE_SHOT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// What a command read, once it is done with it: dropped, or, when the process exits
/// right after, left to the operating system. A fleet read holds millions of small
/// allocations, which the OS takes back at once at exit rather than one by one.
pub fn leave<T>(read: T) {
    match ONE_SHOT.load(std::sync::atomic::Ordering::Relaxed) {
        true => std::mem::forget(read),
        false => drop(read),
    }
}

/// `leave` for what a command read while it still has output to write: freed on another
/// thread meanwhile (a fleet read's millions of small allocations take milliseconds to
/// free), so the output does not wait for it. Dropped here when the process goes on, or
/// when no thread can be started (the failed spawn drops it).
pub fn let_go<T: Send + 'static>(read: T) {
    match ONE_SHOT.load(std::sync::atomic::Ordering::Relaxed) {
        true => {
            let _ = std::thread::Builder::new().name("let-go".into()).spawn(move || drop(read));
        }
        false => drop(read),
    }
}
