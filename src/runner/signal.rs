//! The one place a stop request is caught: Ctrl-C (SIGINT), SIGTERM (what `timeout` and CI time
//! limits send) and SIGHUP (a closed terminal) set a flag that every running repeat watches, so
//! threads stop, finished repeats are kept and written, marked partial, and the command exits 1.

use std::sync::Once;
use std::sync::atomic::AtomicBool;

/// Set once a stop was requested; never cleared.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler (once per process) and returns the flag it sets.
pub fn stop_flag() -> &'static AtomicBool {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Fails only when another handler is already installed (an embedding program's).
        let _ =
            ctrlc::set_handler(|| INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed));
    });
    &INTERRUPTED
}
