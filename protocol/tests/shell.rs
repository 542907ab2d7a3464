//! A person's shell: the completion scripts run by the real shells, the man
//! page rendered by man/groff, `--help`'s presets and examples (each
//! example run), and the exit status of usage and other errors.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{command, repo_root, TempDir};
use sextant_engine::analysis::model::Preset;

fn run(args: &[&str]) -> Output {
    command().args(args).output().expect("running sextant")
}

fn stdout_of(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "sextant {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The subcommands as clap's own help lists them (`sextant help`), less `help`.
fn subcommands() -> Vec<String> {
    let help = stdout_of(&["help"]);
    let listed = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: list")
        .split("\n\n")
        .next()
        .unwrap();
    let names: Vec<String> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    assert!(names.len() >= 10, "too few subcommands in {help}");
    names
}

fn tool(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Asks bash's completion function of the sourced script what it offers
/// for `line` (the word being completed is the last, possibly empty).
fn bash_complete(script: &Path, line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let program = format!(
        r#"source "$1"
complete -p sextant >/dev/null || exit 3
fn=$(complete -p sextant | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE="$2"
COMP_POINT=${{#COMP_LINE}}
"$fn" sextant "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        words = words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        cword = words.len() - 1,
    );
    let out = Command::new("bash")
        .args(["--norc", "-c", &program, "bash"])
        .arg(script)
        .arg(line)
        .output()
        .expect("running bash");
    assert!(
        out.status.success(),
        "bash on {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn bash_completes_commands_options_and_values() {
    let dir = TempDir::new("bash-completion");
    let script = dir.write("sextant.bash", stdout_of(&["completions", "bash"]));
    // `complete -p` says the function is registered for the command.
    let registered = Command::new("bash")
        .args([
            "--norc",
            "-c",
            "source \"$1\" && complete -p sextant",
            "bash",
        ])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&registered.stdout).contains("-F "),
        "{}",
        String::from_utf8_lossy(&registered.stderr)
    );

    let all = bash_complete(&script, "sextant ");
    for name in subcommands() {
        assert!(
            all.contains(&name),
            "{name} not offered after `sextant `: {all:?}"
        );
    }
    assert_eq!(bash_complete(&script, "sextant an"), ["analyze"]);
    let options = bash_complete(&script, "sextant analyze --p");
    for o in ["--preset", "--process"] {
        assert!(options.iter().any(|c| c == o), "{o} not in {options:?}");
    }
    let mut shells = bash_complete(&script, "sextant completions ");
    shells.retain(|c| !c.starts_with('-'));
    shells.sort();
    assert_eq!(shells, ["bash", "fish", "zsh"]);
    let formats = bash_complete(&script, "sextant analyze --format ");
    for f in ["table", "json", "csv"] {
        assert!(formats.iter().any(|c| c == f), "{f} not in {formats:?}");
    }
}

#[test]
fn fish_completes_commands() {
    if !tool("fish") {
        eprintln!("skipped: fish is not installed (tests/run-all.sh installs it)");
        return;
    }
    let dir = TempDir::new("fish-completion");
    let script = dir.write("sextant.fish", stdout_of(&["completions", "fish"]));
    let out = Command::new("fish")
        .args([
            "--no-config",
            "-c",
            "source $argv[1]; complete -C 'sextant an'; complete -C 'sextant export --f'",
        ])
        .arg(&script)
        .output()
        .expect("running fish");
    let offered = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first: Vec<&str> = offered
        .lines()
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert!(first.contains(&"analyze"), "{offered}");
    assert!(first.contains(&"--format"), "{offered}");
}

#[test]
fn zsh_loads_the_completion_function() {
    if !tool("zsh") {
        eprintln!("skipped: zsh is not installed (tests/run-all.sh installs it)");
        return;
    }
    let dir = TempDir::new("zsh-completion");
    std::fs::create_dir_all(dir.path().join("fpath")).unwrap();
    std::fs::write(
        dir.path().join("fpath/_sextant"),
        stdout_of(&["completions", "zsh"]),
    )
    .unwrap();
    // compinit finds the function in $fpath by its #compdef line and binds
    // it to the command, as a user's ~/.zshrc does.
    let program = r#"fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- "${_comps[sextant]}"; autoload -Uz +X _sextant && print loaded"#;
    let out = Command::new("zsh")
        .args(["-f", "-c", program, "zsh"])
        .arg(dir.path().join("fpath"))
        .output()
        .expect("running zsh");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        said.lines().collect::<Vec<_>>(),
        ["_sextant", "loaded"],
        "{said}"
    );
}

#[test]
fn man_page_renders_with_every_command_and_preset() {
    let dir = TempDir::new("man");
    let page = dir.write("sextant.1", stdout_of(&["man"]));
    let rendered = if tool("man") {
        Command::new("man")
            .arg("-l")
            .arg(&page)
            .env("MANWIDTH", "200")
            .output()
    } else {
        Command::new("groff")
            .args(["-man", "-Tutf8"])
            .arg(&page)
            .output()
    }
    .expect("man or groff to render the page");
    assert!(rendered.status.success());
    // groff's warnings (an unknown request, a bad escape) come on stderr.
    let warnings = String::from_utf8_lossy(&rendered.stderr);
    assert!(warnings.trim().is_empty(), "rendering warned: {warnings}");
    // man-db formats plain text when its output is not a terminal.
    let text = String::from_utf8_lossy(&rendered.stdout);
    for name in subcommands() {
        let heading = format!("SEXTANT {}", name.to_uppercase());
        assert!(
            text.lines().any(|l| l.trim() == heading),
            "no section {heading}"
        );
    }
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (name, what) in Preset::all() {
        let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(name) && flat.contains(&what),
            "preset {name} missing"
        );
    }
    assert!(flat.contains("--preset") && flat.contains("EXIT STATUS"));
}

#[test]
fn help_lists_presets_and_an_example_per_command() {
    let top = stdout_of(&["--help"]);
    for (name, what) in Preset::all() {
        assert!(
            top.lines()
                .any(|l| l.trim_start().starts_with(name) && l.contains(what)),
            "preset {name} with its description not in --help:\n{top}"
        );
    }
    for sub in ["analyze", "explain", "export"] {
        let help = stdout_of(&[sub, "--help"]);
        for (name, what) in Preset::all() {
            assert!(
                help.contains(name) && help.contains(what),
                "{sub} --help lacks preset {name}"
            );
        }
    }
    for name in subcommands() {
        let help = stdout_of(&[&name, "--help"]);
        let example = help
            .split("Example:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("no example in `sextant {name} --help`"));
        let example = example.lines().next().unwrap().trim();
        assert!(
            example.contains(&format!("sextant {name}")),
            "{name}'s example: {example}"
        );
    }
}

/// The examples that read the repository's fixtures are run as written
/// (from a directory where `fixtures` and `schemas` lead to the
/// repository's, so that what they write lands there, not in the tree).
#[test]
fn examples_run() {
    let dir = TempDir::new("examples");
    for d in ["fixtures", "schemas"] {
        std::os::unix::fs::symlink(repo_root().join(d), dir.path().join(d)).unwrap();
    }
    let mut ran = 0;
    for name in subcommands() {
        let help = stdout_of(&[&name, "--help"]);
        let example = help
            .split("Example:\n")
            .nth(1)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .trim();
        // The command before any pipe; those that need root, a server's
        // lifetime or files nobody has here are read, not run.
        let example = example.split(" | ").next().unwrap();
        let words: Vec<&str> = example.split_whitespace().collect();
        if words[0] != "sextant" || !words.iter().any(|w| w.starts_with("fixtures/")) {
            continue;
        }
        let out = command()
            .args(&words[1..])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{example}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty() || words.contains(&"--out"),
            "{example} printed nothing"
        );
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} examples ran");
    assert!(dir.path().join("running.parquet").exists());
}

#[test]
fn usage_errors_exit_2_and_other_errors_1() {
    let trace = repo_root().join("fixtures/scenario-a/ctf");
    let trace = trace.to_str().unwrap();
    let usage: &[&[&str]] = &[
        &["no-such-command"],
        &["analyze"],
        &["analyze", trace],
        &["analyze", trace, "--preset", "running", "--format", "yaml"],
        &["completions", "tcsh"],
        &["explain", trace, "--preset", "running"],
    ];
    for args in usage {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // clap's own message, not one of sextant's errors.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error:") && stderr.contains("--help"),
            "{args:?}: {stderr}"
        );
    }
    let dir = TempDir::new("exit-codes");
    let bad_model = dir.write("bad.json", "{\"name\": 1}");
    let bad_model = bad_model.to_str().unwrap();
    let missing = dir.path().join("missing");
    let other: &[&[&str]] = &[
        &["analyze", missing.to_str().unwrap(), "--preset", "running"],
        &["analyze", trace, "--model", bad_model],
        &["analyze", trace, "--preset", "no-such-preset"],
        &[
            "explain",
            trace,
            "--preset",
            "running",
            "--execution",
            "99999999",
        ],
    ];
    for args in other {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.starts_with("sextant: error:"), "{args:?}: {stderr}");
    }
    for args in [&["--help"][..], &["--version"], &["analyze", "--help"]] {
        assert_eq!(run(args).status.code(), Some(0), "{args:?}");
    }
}
