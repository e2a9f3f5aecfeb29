//! `contend topology` and `contend topology capture DIR`.

use super::{load_topology, print_notes};
use crate::CliError;
use crate::cli::{TopologyAction, TopologyArgs};
use crate::report::topology_text;
use std::path::Path;

pub(super) fn run(root: &Path, args: &TopologyArgs) -> Result<(), CliError> {
    match &args.action {
        Some(TopologyAction::Capture { dir, force }) => capture(root, dir, *force),
        None => {
            let topo = load_topology(root)?;
            if args.json {
                let text = serde_json::to_string_pretty(&topo)
                    .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
                println!("{text}");
            } else {
                print_notes(&topo);
                print!("{}", topology_text::render(&topo));
            }
            Ok(())
        }
    }
}

fn capture(root: &Path, dir: &Path, force: bool) -> Result<(), CliError> {
    let occupied = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if occupied && !force {
        return Err(CliError::usage(format!(
            "capture directory {} is not empty (add --force to write into it)",
            dir.display()
        )));
    }
    let files =
        crate::topology::capture(root, dir).map_err(|e| CliError::failure(e.to_string()))?;
    eprintln!(
        "captured {files} files into {}; reproduce with: contend --sysfs-root {} topology",
        dir.display(),
        dir.display()
    );
    Ok(())
}
