//! A person's shell: the command definition dressed for people (the
//! presets' descriptions, an example per command), its completion scripts
//! and its man page, all generated from that one definition.

use std::io::Write;

use clap::{CommandFactory, FromArgMatches};
use clap_complete::Shell;
use sextant_engine::analysis::model::Preset;

use super::Cli;

/// The subcommands that take `--preset`: their help lists the presets.
const TAKE_PRESET: &[&str] = &["analyze", "explain", "export"];

/// One example per command, shown after its help (and in the man page).
const EXAMPLES: &[(&str, &str)] = &[
    ("dump", "sextant dump fixtures/scenario-a/ctf --format jsonl | head"),
    (
        "analyze",
        "sextant analyze fixtures/scenario-a/ctf --model schemas/examples/periodic-rt_high.json --top 5",
    ),
    (
        "explain",
        "sextant explain fixtures/scenario-a/ctf --model schemas/examples/periodic-rt_high.json --longest",
    ),
    ("discover", "sextant discover fixtures/scenario-a/ctf --process rt_high --emit-model"),
    ("export", "sextant export fixtures/scenario-a/ctf --preset running --out running.parquet"),
    ("serve", "sextant serve --port 8080"),
    ("store", "sextant store ls fixtures/scenario-a/ctf"),
    ("tasks", "sextant tasks fixtures/taskset/ctf --format table"),
    ("capture", "sudo sextant capture tracefs --out /tmp/t --duration 5"),
    ("convert", "sextant convert fixtures/scenario-a/ctf scenario-a-ctf2"),
    ("sync", "sextant sync host-a/ctf host-b/ctf"),
    (
        "sql",
        "sextant sql \"SELECT trace, count(*) AS jobs, max(duration) AS worst FROM executions('preset:running') GROUP BY trace\" fixtures",
    ),
    ("worker", "sextant worker --listen 127.0.0.1:5001"),
    (
        "completions",
        "sextant completions bash > ~/.local/share/bash-completion/completions/sextant",
    ),
    ("man", "sextant man > /usr/local/share/man/man1/sextant.1"),
];

const EXIT_STATUS: &str =
    "0 on success, 2 on a usage error (as clap reports it), 1 on any other error.";

/// The shells `sextant completions` writes a script for.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// The command line parsed with the definition people see; a usage error
/// prints clap's message and exits 2, `--help` and `--version` exit 0.
pub fn parse() -> Cli {
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The `sextant` command as clap defines it, with the presets' descriptions
/// (the engine's own text) and an example after each command's help.
pub fn command() -> clap::Command {
    let presets = presets_help();
    let mut cmd = Cli::command().after_help(format!(
        "Presets (--preset NAME on analyze, explain and export):\n{presets}\n\nExit status: {EXIT_STATUS}"
    ));
    // `mut_subcommand` moves the command it changes to the end: every one
    // is changed once, in their order, so that the order stays as defined.
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let example = EXAMPLES.iter().find(|(n, _)| *n == name);
        let takes_preset = TAKE_PRESET.contains(&name.as_str());
        cmd = cmd.mut_subcommand(&name, |mut sub| {
            if let Some((_, example)) = example {
                sub = sub.after_help(format!("Example:\n  {example}"));
            }
            if takes_preset {
                let help = format!("Ready-made model:\n{presets}");
                sub = sub.mut_arg("preset", |arg| arg.help(help).value_name("NAME"));
            }
            sub
        });
    }
    cmd
}

/// Each preset's name and what it measures, as the engine describes it.
fn presets_help() -> String {
    Preset::all()
        .iter()
        .map(|(name, what)| format!("  {name:<15}{what}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `sextant completions SHELL`: the completion script on stdout.
pub fn completions(shell: CompletionShell, out: &mut dyn Write) {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    clap_complete::generate(shell, &mut command(), "sextant", out);
}

/// `sextant man`: the man page (roff) of the command and its subcommands,
/// each subcommand a section of the one page.
pub fn man(out: &mut dyn Write) -> std::io::Result<()> {
    let cmd = command();
    let page = clap_mangen::Man::new(cmd.clone());
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    page.render_options_section(out)?;
    writeln!(out, ".SH PRESETS")?;
    for (name, what) in Preset::all() {
        writeln!(out, ".TP\n\\fB{name}\\fR\n{}", roff_text(what))?;
    }
    writeln!(out, ".SH \"EXIT STATUS\"\n{EXIT_STATUS}")?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        subcommand_section(out, sub, &format!("sextant {}", sub.get_name()))?;
    }
    page.render_version_section(out)?;
    Ok(())
}

/// One subcommand's section: what it does, then its synopsis, options and
/// example as subsections, then its own subcommands (`store ls`, `capture
/// tracefs`) as sections of their own.
fn subcommand_section(out: &mut dyn Write, sub: &clap::Command, path: &str) -> std::io::Result<()> {
    let example = EXAMPLES.iter().find(|(name, _)| *name == sub.get_name());
    // Named by its whole path in its synopsis.
    let sub = sub.clone().bin_name(path);
    let page = clap_mangen::Man::new(sub.clone());
    writeln!(out, ".SH \"{}\"", path.to_uppercase())?;
    if let Some(about) = sub.get_long_about().or(sub.get_about()) {
        writeln!(out, "{}", roff_text(&about.to_string()))?;
    }
    // clap_mangen writes each part as a section (.SH); inside a
    // subcommand's section they are subsections.
    let mut parts = Vec::new();
    page.render_synopsis_section(&mut parts)?;
    page.render_options_section(&mut parts)?;
    for line in String::from_utf8_lossy(&parts).lines() {
        match line.strip_prefix(".SH ") {
            Some(heading) => writeln!(out, ".SS {heading}")?,
            None => writeln!(out, "{line}")?,
        }
    }
    if let Some((_, example)) = example {
        writeln!(out, ".SS EXAMPLE\n.nf\n{}\n.fi", roff_text(example))?;
    }
    for nested in sub.get_subcommands().filter(|s| s.get_name() != "help") {
        subcommand_section(out, nested, &format!("{path} {}", nested.get_name()))?;
    }
    Ok(())
}

/// Plain text as a roff paragraph: a line starting with `.` or `'` would be
/// a request, and a backslash an escape.
fn roff_text(text: &str) -> String {
    let text = text.replace('\\', "\\e");
    text.lines()
        .map(|l| match l.chars().next() {
            Some('.') | Some('\'') => format!("\\&{l}"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
