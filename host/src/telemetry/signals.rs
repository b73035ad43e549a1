//! Termination while exporting. A host serving sockets runs until it is stopped, and the spans
//! of its last moments (up to one batch delay) would die with it. With export on, SIGTERM,
//! SIGINT and SIGHUP are held from start-up in every thread and taken by one thread of their
//! own, which sends what is waiting and then exits with the code the signal would have given
//! (128 + its number). Without export nothing here runs and signals act as usual.

use std::io;

const SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

fn signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initializes the set it is given; sigaddset adds valid signals to it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in SIGNALS {
            libc::sigaddset(&mut set, signal);
        }
        set
    }
}

/// Holds the termination signals in the calling thread and in every thread it starts from
/// now on. Call it before the host starts any thread.
pub fn hold() -> io::Result<()> {
    let set = signal_set();
    // SAFETY: changes this thread's mask to block a valid, initialized set.
    let status = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status));
    }
    Ok(())
}

/// Waits on a thread of its own for a held termination signal; then runs `flush` and exits
/// with 128 + the signal's number.
pub fn exit_after(flush: impl FnOnce() + Send + 'static) -> io::Result<()> {
    take_signals(move |next| {
        let signal = next();
        crate::log::info("stopping: sending the last OpenTelemetry spans first");
        flush();
        std::process::exit(128 + signal);
    })
}

/// Waits on a thread of its own for held termination signals and calls `stop` with each of
/// the first two (the host drains, then stops cleanly; the second cuts the drain short); a
/// third exits at once with 128 + its number.
pub fn stop_on(stop: impl Fn(libc::c_int) + Send + 'static) -> io::Result<()> {
    take_signals(move |next| {
        stop(next());
        stop(next());
        let signal = next();
        crate::log::warn("a third termination signal: exiting at once, without a checkpoint");
        std::process::exit(128 + signal);
    })
}

/// Starts the thread that takes the held termination signals and runs `take` there, given
/// what waits for the next one and returns its number.
fn take_signals(take: impl FnOnce(&dyn Fn() -> libc::c_int) + Send + 'static) -> io::Result<()> {
    std::thread::Builder::new()
        .name("termination".into())
        .spawn(move || {
            let set = signal_set();
            let next = || {
                let mut signal: libc::c_int = 0;
                // SAFETY: waits for one of the signals in an initialized set, held in this
                // thread.
                while unsafe { libc::sigwait(&set, &mut signal) } != 0 {}
                signal
            };
            take(&next);
        })
        .map(drop)
}
