//! `import --timings`: where the time went, after the summary line.

use std::time::Duration;

use pgnindex::timings::{Report, Span, Stage};

/// Prints `report` of an import that took `wall` on `workers` workers: one
/// line per stage that ran (its threads, CPU seconds and share of all
/// threads' CPU seconds, and its waits), then the stage that bounded it,
/// and the most the same work could gain on more cores
/// ([`Report::speed_up`]).
pub(super) fn print(report: &Report, wall: Duration, workers: usize) {
    let seconds = |d: Duration| d.as_secs_f64();
    let total: f64 = Stage::ALL.iter().map(|&s| seconds(report.cpu(s))).sum();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let used = total / seconds(wall).max(1e-9);
    say!(
        "where the time went: wall {:.2} s, CPU {total:.2} s ({used:.2} of {cores} cores)",
        seconds(wall)
    );
    say!("  {:<13}{:<26}{:>8}{:>8}", "stage", "threads", "CPU s", "share");
    for stage in Stage::ALL {
        let threads = report.threads(stage);
        if threads == 0 {
            continue;
        }
        let cpu = seconds(report.cpu(stage));
        let who = match threads {
            1 => stage.thread().to_owned(),
            n => format!("{} ×{n}", stage.thread()),
        };
        let share = 100.0 * cpu / total.max(1e-9);
        let notes = notes(report, stage, wall);
        let line = format!("  {:<13}{who:<26}{cpu:>8.2}{share:>7.1} %", stage.name());
        say!("{}", if notes.is_empty() { line } else { format!("{line}  {notes}") });
    }
    let behind = seconds(report.span(Span::WriterBehind));
    if behind >= 0.005 {
        say!("  the main thread waited {behind:.2} s for the writer to take games");
    }
    let bound = report.bound(wall, workers);
    let busy = 100.0 * bound.busy;
    let what = match bound.stage {
        None => format!("the disk ({busy:.0} % of the wall waiting for syncs and checkpoints)"),
        Some(Stage::Replay) => format!("replay on the workers ({busy:.0} % busy)"),
        Some(stage) => format!("the {} stage ({busy:.0} % of the wall busy)", stage.name()),
    };
    say!("  bound by: {what}");
    if let Some((stage, cpu)) = report.serial() {
        let gains: Vec<String> =
            [4, 8, 16, 32].iter().map(|&n| format!("{n}: {:.1}×", report.speed_up(n))).collect();
        say!(
            "  at most, on more cores (one core's speed times): {}; serial: the {} stage, {:.2} s",
            gains.join(", "),
            stage.name(),
            cpu.as_secs_f64()
        );
    }
}

/// What else is known of `stage`: its wall time at work and its waits.
fn notes(report: &Report, stage: Stage, wall: Duration) -> String {
    let s = |span| report.span(span).as_secs_f64();
    match stage {
        Stage::Replay => format!("of which encoding rows {:.2} s", s(Span::Encode)),
        Stage::Write => format!(
            "busy {:.2} s; waited {:.2} s for games, {:.2} s for the sort, {:.2} s checkpointing, \
             {:.2} s at the end",
            report.writer_busy(wall).as_secs_f64(),
            s(Span::WriterIdle),
            s(Span::SortWait),
            s(Span::WriterCheckpoint),
            s(Span::Finish),
        ),
        Stage::Checkpoint => format!("at work {:.2} s", s(Span::Checkpointing)),
        Stage::Sync => format!("at work {:.2} s", s(Span::Syncing)),
        _ => String::new(),
    }
}
