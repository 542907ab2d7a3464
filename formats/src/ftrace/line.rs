//! One line of the `trace` file: what kind of line it is and, for an event,
//! where its parts are. Only the prefix (task, pid, CPU, time) and the shape
//! of the event are checked here; fields are parsed when visited (`payload`).
//!
//! ```text
//!            bash-3979    [000] d..2.   245.590149: sched_switch: prev_comm=...
//!     Web Content-2711    (   2700) [003] d... 26186.336716: sched_waking: comm=...
//!            bash-3979    [000]   395.705690: sys_close(fd: 3)
//!  TASK (may hold spaces, dashes) -PID, optional (TGID), [CPU], optional FLAGS, TIMESTAMP:
//! ```

use memchr::{memchr, memmem};

/// A byte range of the line (lines are far below 4 GiB).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    pub fn of<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        &line[self.start as usize..self.end as usize]
    }
}

/// How the fields of an event are found in its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `key=value key2=value2`, or one `raw` field when the payload has
    /// another shape.
    Fields,
    /// `name: value, name: value` (syscall arguments; values in hex).
    SysArgs,
    /// A syscall exit: one field `ret`.
    SysRet(i64),
    /// Function tracer: `func <-parent` (fields `ip`, `parent_ip`).
    Function,
    /// No fields.
    Empty,
}

/// The event's name: `prefix` followed by the bytes of `ident` in the line
/// (`sys_enter_` + `clock_nanosleep` for `sys_clock_nanosleep(...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameParts {
    pub prefix: &'static str,
    pub ident: Span,
}

/// An event line, located.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventLine {
    pub ts: i64,
    pub cpu: u32,
    pub pid: i64,
    pub tgid: Option<i64>,
    pub comm: Span,
    pub flags: Option<Span>,
    pub name: NameParts,
    pub payload: Span,
    pub kind: Kind,
}

/// What a line is.
#[derive(Debug)]
pub(crate) enum Line {
    /// Blank or `#` comment.
    Ignored,
    /// `# tracer: NAME`
    Tracer(Span),
    /// `# entries-in-buffer/entries-written: A/B   #P:N`
    Entries {
        in_buffer: u64,
        written: u64,
    },
    /// `CPU:N [LOST n EVENTS]` (`events` `None`: `[LOST EVENTS]`, count
    /// unknown).
    Lost {
        cpu: u32,
        events: Option<u64>,
    },
    /// ` => symbol`: a stack-trace line following a `<stack trace>` event.
    StackEntry,
    Event(EventLine),
}

/// Classifies and locates one line (without its line terminator).
pub(crate) fn parse(line: &[u8]) -> Result<Line, String> {
    if line.first() == Some(&b'#') {
        return Ok(parse_comment(line));
    }
    let start = skip_spaces(line, 0);
    if start == line.len() {
        return Ok(Line::Ignored);
    }
    if line.starts_with(b"CPU:") {
        if let Some((cpu, events)) = parse_lost(line) {
            return Ok(Line::Lost { cpu, events });
        }
        // A task named `CPU:...`, or a damaged marker.
        return parse_event(line, start)
            .map(Line::Event)
            .map_err(|_| format!("malformed lost-events line `{}`", show(line)));
    }
    if line[start..].starts_with(b"=> ") {
        return Ok(Line::StackEntry);
    }
    parse_event(line, start).map(Line::Event)
}

fn parse_comment(line: &[u8]) -> Line {
    let text = &line[1..];
    let t = skip_spaces(text, 0);
    if let Some(rest) = text[t..].strip_prefix(b"tracer:") {
        let s = skip_spaces(rest, 0);
        let e = rest.len()
            - rest
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let base = 1 + t + b"tracer:".len();
        return Line::Tracer(Span::new(base + s, base + e.max(s)));
    }
    if let Some(rest) = text[t..].strip_prefix(b"entries-in-buffer/entries-written:") {
        let s = skip_spaces(rest, 0);
        let (a, n) = digits(rest, s);
        if n > s && rest.get(n) == Some(&b'/') {
            let (b, m) = digits(rest, n + 1);
            if m > n + 1 {
                if let (Some(a), Some(b)) = (a, b) {
                    return Line::Entries {
                        in_buffer: a,
                        written: b,
                    };
                }
            }
        }
    }
    Line::Ignored
}

/// `CPU:3 [LOST 120 EVENTS]` or `CPU:3 [LOST EVENTS]`.
fn parse_lost(line: &[u8]) -> Option<(u32, Option<u64>)> {
    let (cpu, p) = digits(line, 4);
    if p == 4 {
        return None;
    }
    let cpu = u32::try_from(cpu?).ok()?;
    let rest = line[p..].trim_ascii();
    let rest = rest.strip_prefix(b"[LOST")?;
    let rest = rest.strip_suffix(b"EVENTS]")?.trim_ascii();
    if rest.is_empty() {
        return Some((cpu, None));
    }
    let (n, e) = digits(rest, 0);
    if e != rest.len() {
        return None;
    }
    Some((cpu, Some(n?)))
}

fn parse_event(line: &[u8], start: usize) -> Result<EventLine, String> {
    // The CPU field: the first `[digits]` preceded by `-PID` (and maybe a
    // `(TGID)`). TASK may itself contain `[`, `-` and spaces.
    let mut search = start;
    let (comm, pid, tgid, cpu, after_cpu) = loop {
        let Some(off) = memchr(b'[', &line[search..]) else {
            return Err(format!(
                "not an event line (no `TASK-PID [CPU]` prefix): `{}`",
                show(line)
            ));
        };
        let b = search + off;
        if let Some(found) = task_and_cpu(line, start, b) {
            break found;
        }
        search = b + 1;
    };

    // Optional FLAGS column, then `TIMESTAMP:`.
    let p = skip_spaces(line, after_cpu);
    let t1 = token_end(line, p);
    let (flags, ts, after_ts) = match timestamp_token(&line[p..t1]) {
        Some(ts) => (None, ts, t1),
        None => {
            let q = skip_spaces(line, t1);
            let t2 = token_end(line, q);
            match timestamp_token(&line[q..t2]) {
                Some(ts) => (Some(Span::new(p, t1)), ts, t2),
                None => {
                    return Err(format!(
                        "expected `SECONDS.MICROS:` after the CPU field, found `{}`",
                        show(&line[p..t2.min(p + 40)])
                    ))
                }
            }
        }
    };
    let ts = ts.map_err(|m| format!("{m} in `{}`", show(&line[p..after_ts])))?;
    let rest = skip_spaces(line, after_ts);
    let (name, payload, kind) = event_part(line, rest)?;
    Ok(EventLine {
        ts,
        cpu,
        pid,
        tgid,
        comm,
        flags,
        name,
        payload,
        kind,
    })
}

type TaskCpu = (Span, i64, Option<i64>, u32, usize);

/// Checks that `line[b]` opens the CPU field of an event prefix starting at
/// `start`: `TASK-PID [(TGID)] [CPU]`.
fn task_and_cpu(line: &[u8], start: usize, b: usize) -> Option<TaskCpu> {
    let (cpu, e) = digits(line, b + 1);
    if e == b + 1 || line.get(e) != Some(&b']') {
        return None;
    }
    let cpu = u32::try_from(cpu?).ok()?;
    let mut end = trim_end(line, start, b);
    let mut tgid = None;
    if end > start && line[end - 1] == b')' {
        let open = start + line[start..end].iter().rposition(|&c| c == b'(')?;
        let inner = line[open + 1..end - 1].trim_ascii();
        if !inner.iter().all(|&c| c == b'-') {
            let (v, n) = digits(inner, 0);
            if n != inner.len() || n == 0 {
                return None;
            }
            tgid = Some(i64::try_from(v?).ok()?);
        }
        end = trim_end(line, start, open);
    }
    let pid_start = end
        - line[start..end]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .count();
    if pid_start == end || pid_start == start || line[pid_start - 1] != b'-' {
        return None;
    }
    let (pid, _) = digits(line, pid_start);
    let pid = i64::try_from(pid?).ok()?;
    Some((Span::new(start, pid_start - 1), pid, tgid, cpu, e + 1))
}

/// `SECONDS.FRACTION:` (1 to 9 decimals) or `INTEGER:` (already in the
/// clock's unit) to nanoseconds. `None` when the token is not a timestamp at
/// all; `Some(Err)` when it is one that does not fit.
fn timestamp_token(tok: &[u8]) -> Option<Result<i64, String>> {
    let tok = tok.strip_suffix(b":")?;
    let (secs, frac) = match memchr(b'.', tok) {
        Some(d) => (&tok[..d], Some(&tok[d + 1..])),
        None => (tok, None),
    };
    if secs.is_empty() || !secs.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if let Some(f) = frac {
        if f.is_empty() || !f.iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    let (s, _) = digits(secs, 0);
    let Some(s) = s.and_then(|s| i64::try_from(s).ok()) else {
        return Some(Err("timestamp out of range".into()));
    };
    let Some(f) = frac else { return Some(Ok(s)) };
    if f.len() > 9 {
        return Some(Err("timestamp with more than 9 decimals".into()));
    }
    let (fv, _) = digits(f, 0);
    let fv = fv.unwrap_or(0) as i64 * 10i64.pow(9 - f.len() as u32);
    Some(
        s.checked_mul(1_000_000_000)
            .and_then(|n| n.checked_add(fv))
            .ok_or_else(|| "timestamp out of range".to_string()),
    )
}

/// The part after `TIMESTAMP: `: the event's name, its payload and shape.
fn event_part(line: &[u8], at: usize) -> Result<(NameParts, Span, Kind), String> {
    let rest = &line[at..];
    let end = line.len();
    let named = |prefix: &'static str| NameParts {
        prefix,
        ident: Span::new(at, at),
    };
    if rest.is_empty() {
        return Err("no event after the timestamp".into());
    }
    if rest.starts_with(b"<stack trace>") {
        return Ok((named("kernel_stack"), Span::new(end, end), Kind::Empty));
    }
    if rest.starts_with(b"<user stack trace>") {
        return Ok((named("user_stack"), Span::new(end, end), Kind::Empty));
    }
    let n = rest.iter().take_while(|&&c| is_ident(c)).count();
    let ident = &rest[..n];
    let after = &rest[n..];
    let whole = Span::new(at, at + n);
    if n > 0 && after.first() == Some(&b':') {
        // `name: payload` (or `name:` with nothing after it).
        let p = skip_spaces(line, at + n + 1);
        let payload = Span::new(p, end);
        let name = NameParts {
            prefix: "",
            ident: whole,
        };
        let kind = if ident.len() > 10 && ident.starts_with(b"sys_enter_") {
            Kind::SysArgs
        } else if ident.len() > 9 && ident.starts_with(b"sys_exit_") {
            let v = payload.of(line).trim_ascii();
            let v = v
                .strip_prefix(b"ret=")
                .or_else(|| v.strip_prefix(b"ret: "))
                .unwrap_or(v);
            parse_ret(v).map_or(Kind::Fields, Kind::SysRet)
        } else {
            Kind::Fields
        };
        return Ok((name, payload, kind));
    }
    if n > 4 && ident.starts_with(b"sys_") {
        let sys = Span::new(at + 4, at + n);
        if after.first() == Some(&b'(') {
            // Kernel syscall tracer: `sys_X(arg: v, ...)`.
            if line.last() != Some(&b')') {
                return Err(format!("unterminated syscall arguments: `{}`", show(rest)));
            }
            let name = NameParts {
                prefix: "sys_enter_",
                ident: sys,
            };
            return Ok((name, Span::new(at + n + 1, end - 1), Kind::SysArgs));
        }
        if let Some(v) = after.strip_prefix(b" -> ") {
            let ret = parse_ret(v.trim_ascii())
                .ok_or_else(|| format!("bad syscall return value in `{}`", show(rest)))?;
            let name = NameParts {
                prefix: "sys_exit_",
                ident: sys,
            };
            return Ok((name, Span::new(at + n + 4, end), Kind::SysRet(ret)));
        }
    }
    // Function tracer: `func <-parent` (names may hold `.`: `foo.isra.0`).
    if let Some(arrow) = memmem::find(rest, b" <-") {
        if arrow > 0 && !rest[..arrow].contains(&b' ') {
            return Ok((named("function"), Span::new(at, end), Kind::Function));
        }
    }
    Err(format!("cannot parse the event `{}`", show(rest)))
}

/// A syscall return value: `0x...` (a register: two's complement, so
/// `0xfffffffffffffff5` is -11) or a decimal, maybe negative.
pub(crate) fn parse_ret(v: &[u8]) -> Option<i64> {
    if let Some(h) = v.strip_prefix(b"0x") {
        return parse_hex(h).map(|u| u as i64);
    }
    parse_dec(v)
}

pub(crate) fn parse_hex(h: &[u8]) -> Option<u64> {
    if h.is_empty() || h.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &c in h {
        let d = (c as char).to_digit(16)?;
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// `-?[0-9]+` to i64.
pub(crate) fn parse_dec(v: &[u8]) -> Option<i64> {
    let (neg, d) = match v.first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let (u, e) = digits(d, 0);
    if e == 0 || e != d.len() {
        return None;
    }
    let u = u?;
    if neg {
        0i64.checked_sub_unsigned(u)
    } else {
        i64::try_from(u).ok()
    }
}

/// Decimal digits from `at`: their value (`None` on overflow) and the end.
pub(crate) fn digits(s: &[u8], at: usize) -> (Option<u64>, usize) {
    let mut v = Some(0u64);
    let mut i = at;
    while i < s.len() && s[i].is_ascii_digit() {
        v = v
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add((s[i] - b'0') as u64));
        i += 1;
    }
    (v, i)
}

pub(crate) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    i
}

fn token_end(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i] != b' ' && s[i] != b'\t' {
        i += 1;
    }
    i
}

fn trim_end(s: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && (s[end - 1] == b' ' || s[end - 1] == b'\t') {
        end -= 1;
    }
    end
}

/// A line (or part) for an error message, shortened.
pub(crate) fn show(s: &[u8]) -> String {
    const MAX: usize = 120;
    let t = String::from_utf8_lossy(&s[..s.len().min(MAX)]);
    if s.len() > MAX {
        format!("{t}...")
    } else {
        t.into_owned()
    }
}
