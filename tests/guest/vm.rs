//! The guest harness: boot one QEMU guest with `scripts/numa-vm.sh`, run a batch of
//! `contend` commands in it, and split each command's stdout, stderr and exit status
//! apart from the serial console's merged stream.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
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

/// Printed before command `i` starts, with the guest's uptime in seconds after it.
fn start_mark(i: usize) -> String {
    format!("@@CONTEND-GUEST-START {i}@@ ")
}
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

/// A guest's batch, booted at most once and shared by the tests that use it.
pub(crate) type Batch = OnceLock<Result<Vec<Run>, String>>;

/// The runs of `batch`, booting it with `boot` on first use. A boot that failed fails
/// every test that asks, with its message, and is not booted again: a boot per test
/// would multiply a timed-out boot's time past CI's limit.
pub(crate) fn booted(
    batch: &'static Batch,
    boot: impl FnOnce() -> Result<Vec<Run>, String>,
) -> &'static [Run] {
    match batch.get_or_init(boot) {
        Ok(runs) => runs,
        Err(e) => panic!("{e}"),
    }
}

/// Boot one guest with `vm_args` (numa-vm.sh layout options) and run every command in
/// `commands` (arguments to `contend`) in it, in order; an error unless the guest ran all.
pub(crate) fn boot(vm_args: &[&str], commands: &[&[&str]]) -> Result<Vec<Run>, String> {
    // A boot's batch, the 16-CPU guest's whole study included: TCG's speed
    // varies by 2x from run to run on this VM, and more between hosts (the
    // 16-CPU batch took 159 s in one run and over 600 s in another, both on
    // an AMD EPYC host).
    boot_within(vm_args, commands, 900)
}

/// [`boot`] with the whole boot bounded by `timeout_s` seconds. A boot that does not
/// reach init in 180 s is retried once by the script (a boot hung silently for 900 s
/// in CI). A command still running after two thirds of `timeout_s` by the guest's clock
/// has its threads' states printed and is killed, so that a hang names itself and the
/// batch goes on.
pub(crate) fn boot_within(
    vm_args: &[&str],
    commands: &[&[&str]],
    timeout_s: u32,
) -> Result<Vec<Run>, String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let script = Path::new(root).join("scripts/numa-vm.sh");
    assert!(
        script.is_file(),
        "{} is missing: the guest tests cannot run",
        script.display()
    );

    let hang_s = timeout_s * 2 / 3;
    // The watchdog is reaped (`wait $dog`) before the frame is printed: left to
    // end while the shell prints, it lost marker lines (busybox sh; the child's
    // signal interrupting the write, by all signs).
    let mut sh = String::from(WATCHDOG);
    for (i, args) in commands.iter().enumerate() {
        // `["sh", "-c", SCRIPT]` runs SCRIPT (globs and all); anything
        // else is contend's arguments.
        let (program, args) = match args {
            ["sh", rest @ ..] => ("sh", rest),
            _ => ("contend", *args),
        };
        let quoted: Vec<String> = args.iter().map(|a| sq(a)).collect();
        sh.push_str(&format!(
            "printf '{}%s\\n' \"$(up)\"\n\
             {program} {} >/tmp/out 2>/tmp/err & pid=$!\n\
             watchdog $pid {hang_s} & dog=$!\n\
             wait $pid; rc=$?; kill $dog 2>/dev/null; wait $dog\n\
             printf '{}'; cat /tmp/out; printf '{}'; cat /tmp/err; printf '{}%d@@ %s\\n' \"$rc\" \"$(up)\"\n",
            start_mark(i),
            quoted.join(" "),
            cmd_mark(i).replace('\n', "\\n"),
            err_mark(i).replace('\n', "\\n"),
            rc_mark(i).replace('\n', "\\n"),
        ));
    }
    // The batch ends by naming the guest's clocksource: see the check below.
    sh.push_str(&format!(
        "echo \"{DONE} $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)\"\n"
    ));

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

    let Some(done) = stdout.find(DONE).filter(|_| out.status.success()) else {
        return Err(failure(vm_args, commands, out.status, &stdout, &stderr));
    };
    // Budgets and the watchdog count the guest's clock: it must still be the host's
    // TSC (numa-vm.sh boots with tsc=reliable) once the batch's load has passed. The
    // HPET that the guest otherwise falls back to under load is no clock to bound a
    // boot with (docs/guest.md).
    let clock = stdout[done + DONE.len()..]
        .split_whitespace()
        .next()
        .unwrap_or("(none)");
    if clock != "tsc" {
        return Err(format!(
            "numa-vm.sh {vm_args:?}: the guest's clock ended as {clock:?}, not the TSC"
        ));
    }

    Ok(commands
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
        .collect())
}

/// Why a boot failed, and where its batch stood: each command's progress first, then
/// the script's stderr and the console's end, the whole console kept in a file.
fn failure(
    vm_args: &[&str],
    commands: &[&[&str]],
    status: std::process::ExitStatus,
    stdout: &str,
    stderr: &str,
) -> String {
    let why = match status.code() {
        Some(2) => {
            " (usage or host setup error: qemu, busybox-static, cpio or the kernel missing?)"
        }
        Some(124) => " (timed out)",
        Some(125) => " (the guest never reported an exit status)",
        _ => "",
    };
    // The whole console goes to a file: a result file printed whole would push
    // where the batch stood out of a CI log's excerpt.
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "guest-{}.log",
        vm_args
            .join("_")
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    ));
    let kept = std::fs::write(&log, stdout.as_bytes()).map_or_else(
        |e| format!("not kept: {e}"),
        |()| format!("whole: {}", log.display()),
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let tail = &lines[lines.len().saturating_sub(40)..];
    format!(
        "numa-vm.sh {vm_args:?} failed: {}{why}\n\
         --- where the batch stood (guest uptime, s)\n{}\
         --- numa-vm.sh's stderr\n{stderr}\n\
         --- the console's last 40 lines ({kept})\n{}",
        status,
        progress(commands, stdout),
        tail.join("\n"),
    )
}

/// The guest's shell functions: `up` prints its uptime in seconds; `watchdog PID S`
/// prints the states of PID's threads (name, state, user and system ticks, last CPU,
/// wait channel) and the end of its stderr, then kills it, once PID has run S seconds.
const WATCHDOG: &str = r#"up() { cut -d' ' -f1 /proc/uptime; }
watchdog() {
  n=0
  while [ $n -lt $2 ]; do sleep 5; n=$((n + 5)); kill -0 $1 2>/dev/null || return; done
  echo "guest watchdog: pid $1 still running after ${n} s; its threads:"
  for t in /proc/$1/task/*; do
    echo "  $(awk '{print $2, "state=" $3, "utime=" $14, "stime=" $15, "cpu=" $39}' $t/stat) wchan=$(cat $t/wchan)"
  done
  echo "guest watchdog: the end of its stderr:"; tail -n 5 /tmp/err
  kill -9 $1
}
"#;

/// Each command's exit status and guest uptimes at its start and end, as far as the
/// console got: the one that was running when a boot failed is the one to look at.
fn progress(commands: &[&[&str]], stdout: &str) -> String {
    let after = |mark: &str| {
        stdout.find(mark).map(|p| {
            let rest = &stdout[p + mark.len()..];
            rest[..rest.find('\n').unwrap_or(rest.len())].to_string()
        })
    };
    let mut lines = String::new();
    for (i, args) in commands.iter().enumerate() {
        let state = match (after(&start_mark(i)), after(rc_mark(i).trim_start())) {
            (t0, Some(end)) => {
                let (rc, t1) = end.split_once("@@ ").unwrap_or((&end, "?"));
                format!("exit {rc}, from {} to {t1}", t0.as_deref().unwrap_or("?"))
            }
            (Some(t0), None) => format!("started at {t0}, never finished"),
            (None, None) => "not started".into(),
        };
        lines.push_str(&format!("{i} {}: {state}\n", args.join(" ")));
    }
    lines
}
