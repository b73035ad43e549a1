//! Running child processes: quietly, with a timeout, or for their output.

use std::process::{Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Runs a command to completion with stdout sent to our stderr, failing unless it succeeds.
pub fn run_quietly(command: &mut Command) -> Result<()> {
    let status = spawn_status(command.stdout(Stdio::from(std::io::stderr())))?;
    if !status.success() {
        bail!("`{}` failed ({status})", describe(command));
    }
    Ok(())
}

/// Runs a command with inherited stdio and returns its exit code (1 when a signal ended it).
pub fn status_code(command: &mut Command) -> Result<i32> {
    let status = spawn_status(command)?;
    Ok(status.code().unwrap_or(1))
}

/// Runs a command with stdout sent to our stderr, killing it after `limit`. Returns `None`
/// when it timed out, else whether it succeeded.
pub fn run_with_timeout(command: &mut Command, limit: Duration) -> Result<Option<bool>> {
    let mut child = command
        .stdout(Stdio::from(std::io::stderr()))
        .stdin(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start `{}`", describe(command)))?;
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status.success()));
        }
        if Instant::now() >= deadline {
            // Ends only the child we started, by its handle.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        sleep(Duration::from_millis(100));
    }
}

/// Runs a command and returns its stdout as text, failing unless it succeeds.
pub fn output_text(command: &mut Command) -> Result<String> {
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start `{}`", describe(command)))?;
    if !output.status.success() {
        bail!("`{}` failed ({})", describe(command), output.status);
    }
    String::from_utf8(output.stdout).context("command printed non-UTF-8 output")
}

/// Spawns a command and waits for it.
fn spawn_status(command: &mut Command) -> Result<ExitStatus> {
    command
        .status()
        .with_context(|| format!("cannot start `{}`", describe(command)))
}

/// The command line, for messages.
pub fn describe(command: &Command) -> String {
    let mut text = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::run_with_timeout;
    use std::process::Command;
    use std::time::{Duration, Instant};

    #[test]
    fn kills_a_child_that_overruns_its_limit() {
        let started = Instant::now();
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let outcome = run_with_timeout(&mut sleep, Duration::from_millis(200)).unwrap();
        assert_eq!(outcome, None);
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            run_with_timeout(&mut Command::new("true"), Duration::from_secs(10)).unwrap(),
            Some(true)
        );
    }
}
