//! The guest harness: boot one QEMU guest with `scripts/numa-vm.sh`, run a batch of
//! `contend` commands in it, and split each command's stdout, stderr and exit status
//! apart from the serial console's merged stream.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

/// What one `contend` invocation did inside the guest.
#[derive(Debug)]
pub(crate) struct Run {
    args: Vec<String>,
    /// What the command printed on stdout.
    pub(crate) stdout: String,
    /// What it printed on stderr.
    pub(crate) stderr: String,
    /// Its exit status.
    pub(crate) code: i32,
}

impl Run {
    /// Exit 0 and stdout parsed as JSON.
    pub(crate) fn json(&self) -> Value {
        assert_eq!(
            self.code, 0,
            "contend {:?} exited {} in the guest; stderr: {}",
            self.args, self.code, self.stderr
        );
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "contend {:?}: stdout is not JSON ({e}):\n{}",
                self.args, self.stdout
            )
        })
    }

    /// Exit 2, nothing on stdout, and exactly one `contend: error:` line on stderr
    /// containing every needle.
    pub(crate) fn assert_usage_error(&self, needles: &[&str]) {
        assert_eq!(
            self.code, 2,
            "contend {:?}: want exit 2; stdout: {} stderr: {}",
            self.args, self.stdout, self.stderr
        );
        assert_eq!(self.stdout, "", "contend {:?}: stdout not empty", self.args);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "contend {:?}: want one stderr line, got {:?}",
            self.args,
            self.stderr
        );
        assert!(
            lines[0].starts_with("contend: error: "),
            "contend {:?}: {:?}",
            self.args,
            lines[0]
        );
        for needle in needles {
            assert!(
                lines[0].contains(needle),
                "contend {:?}: {:?} does not mention {needle:?}",
                self.args,
                lines[0]
            );
        }
    }
}

/// Quote for the guest's `/bin/sh`.
fn sq(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

const DONE: &str = "@@CONTEND-GUEST-DONE@@";

fn cmd_mark(i: usize) -> String {
    format!("@@CONTEND-GUEST-CMD {i}@@\n")
}
// The two markers after each output start with a newline so that output without a final
// newline is still split exactly: the text between markers is the output plus one "\n".
fn err_mark(i: usize) -> String {
    format!("\n@@CONTEND-GUEST-STDERR {i}@@\n")
}
fn rc_mark(i: usize) -> String {
    format!("\n@@CONTEND-GUEST-RC {i}=")
}

/// Boot one guest with `vm_args` (numa-vm.sh layout options) and run every command in
/// `commands` (arguments to `contend`) in it, in order. Panics unless the guest ran all.
pub(crate) fn boot(vm_args: &[&str], commands: &[&[&str]]) -> Vec<Run> {
    // A boot's batch, the 16-CPU guest's whole study included: TCG's speed
    // varies by 2x from run to run on this VM, and more between hosts (the
    // 16-CPU batch took 159 s in one run and over 600 s in another, both on
    // an AMD EPYC host).
    boot_within(vm_args, commands, 900)
}

/// [`boot`] with the whole boot bounded by `timeout_s` seconds. A boot that does not
/// reach init in 180 s is retried once by the script (a boot hung silently for 900 s
/// in CI, 2026-12-02).
pub(crate) fn boot_within(vm_args: &[&str], commands: &[&[&str]], timeout_s: u32) -> Vec<Run> {
    let root = env!("CARGO_MANIFEST_DIR");
    let script = Path::new(root).join("scripts/numa-vm.sh");
    assert!(
        script.is_file(),
        "{} is missing: the guest tests cannot run",
        script.display()
    );

    let mut sh = String::new();
    for (i, args) in commands.iter().enumerate() {
        // `["sh", "-c", SCRIPT]` runs SCRIPT (globs and all); anything
        // else is contend's arguments.
        let (program, args) = match args {
            ["sh", rest @ ..] => ("sh", rest),
            _ => ("contend", *args),
        };
        let quoted: Vec<String> = args.iter().map(|a| sq(a)).collect();
        sh.push_str(&format!(
            "{program} {} >/tmp/out 2>/tmp/err; rc=$?\n\
             printf '{}'; cat /tmp/out; printf '{}'; cat /tmp/err; printf '{}%d@@\\n' \"$rc\"\n",
            quoted.join(" "),
            cmd_mark(i).replace('\n', "\\n"),
            err_mark(i).replace('\n', "\\n"),
            rc_mark(i).replace('\n', "\\n"),
        ));
    }
    sh.push_str(&format!("echo {DONE}\n"));

    let start = Instant::now();
    let out = Command::new(&script)
        .args(vm_args)
        .args(["--timeout", &timeout_s.to_string()])
        .args(["--binary", env!("CARGO_BIN_EXE_contend")])
        .args(["--", "sh", "-c", &sh])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // numa-vm.sh boots again, once, a guest that did not reach its init: say so.
    let again = if stderr.contains("booting it once more") {
        " (booted twice: the first boot did not reach init)"
    } else {
        ""
    };
    eprintln!(
        "numa-vm.sh {}: {:.1} s{again}",
        vm_args.join(" "),
        start.elapsed().as_secs_f64()
    );

    let why = match out.status.code() {
        Some(0) => "",
        Some(2) => {
            " (usage or host setup error: qemu, busybox-static, cpio or the kernel missing?)"
        }
        Some(124) => " (timed out)",
        Some(125) => " (the guest never reported an exit status)",
        _ => "",
    };
    assert!(
        out.status.success() && stdout.contains(DONE),
        "numa-vm.sh {vm_args:?} failed: {}{why}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );

    commands
        .iter()
        .enumerate()
        .map(|(i, args)| {
            let section = |from: &str, to: &str, after: usize| -> (String, usize) {
                let s = stdout[after..]
                    .find(from)
                    .map(|p| after + p + from.len())
                    .unwrap_or_else(|| panic!("marker {from:?} missing in\n{stdout}"));
                let e = stdout[s..]
                    .find(to)
                    .map(|p| s + p)
                    .unwrap_or_else(|| panic!("marker {to:?} missing in\n{stdout}"));
                (stdout[s..e].to_string(), e)
            };
            let (out_text, e) = section(&cmd_mark(i), &err_mark(i), 0);
            let (err_text, e) = section(&err_mark(i), &rc_mark(i), e);
            let (rc_text, _) = section(&rc_mark(i), "@@", e);
            // Each section ends with the newline its closing marker put there.
            let strip = |s: String| s.strip_suffix('\n').map(str::to_string).unwrap_or(s);
            Run {
                args: args.iter().map(|a| a.to_string()).collect(),
                stdout: strip(out_text),
                stderr: strip(err_text),
                code: rc_text
                    .parse()
                    .unwrap_or_else(|_| panic!("bad exit status {rc_text:?} for {args:?}")),
            }
        })
        .collect()
}
