//! Watching the process that started a stdio session (LSP's
//! `initialize.processId`): an editor killed without closing its pipes
//! must not leave the sidecar running.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

/// How often the parent is looked at: its death ends the session within
/// this, well inside a second.
const POLL: Duration = Duration::from_millis(200);

/// Whether process `pid` exists (a zombie still does, until reaped).
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // Signal 0 checks existence and permission only. SAFETY: no signal is
    // sent, no memory is touched.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn alive(_pid: u32) -> bool {
    true
}

/// Notifies `gone` once process `pid` no longer exists.
pub async fn watch(pid: u32, gone: Arc<Notify>) {
    let mut tick = tokio::time::interval(POLL);
    loop {
        tick.tick().await;
        if !alive(pid) {
            eprintln!("sextant: the client's process {pid} is gone: ending the session");
            gone.notify_one();
            return;
        }
    }
}
