//! The `contend` command; everything lives in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    match contend::commands::run(std::env::args_os()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("contend: error: {e}");
            ExitCode::from(e.exit_code)
        }
    }
}
