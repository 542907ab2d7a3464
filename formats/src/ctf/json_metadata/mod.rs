//! CTF 2 metadata (CTF2-SPEC-2.0): a JSON text sequence (RFC 7464, every
//! fragment after a record separator, 0x1E) of preamble, trace-class,
//! clock-class, data-stream-class, event-record-class and field-class-alias
//! fragments.
//!
//! It is turned into the declarations the TSDL parser produces
//! (`metadata::ast`), so that one `layout` resolves both versions and the
//! same decode plans, fast paths and cross-checks read both. Roles become
//! the reserved names CTF 1.8 gives the same fields; field locations become
//! the paths of TSDL scopes.

mod field_class;
mod fragments;
mod location;
pub mod write;

use std::fmt;

use serde_json::Value;

use super::metadata::ast::{uuid_text, ClockDecl, EnvValue, EventDecl, MetadataDecl, StreamDecl};
use field_class::{Aliases, Scope};
use fragments::Ptr;

/// The record separator that starts every fragment.
pub const RS: u8 = 0x1E;

/// A problem in CTF 2 metadata: which fragment (counting from 1), where in
/// it (a JSON pointer, RFC 6901; empty for the whole fragment) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonMetadataError {
    pub fragment: usize,
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for JsonMetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fragment {}, at `{}`: {}",
            self.fragment, self.pointer, self.message
        )
    }
}

/// Whether metadata text is a JSON text sequence (CTF 2) rather than TSDL.
pub fn is_json_sequence(text: &[u8]) -> bool {
    text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&RS)
}

/// Parses CTF 2 metadata into declarations.
pub fn parse(text: &str) -> Result<MetadataDecl, JsonMetadataError> {
    let mut meta = MetadataDecl::default();
    let mut aliases = Aliases::default();
    // Data stream classes by id, with their default clock's name.
    let mut stream_clocks: Vec<(u64, Option<String>)> = Vec::new();
    let mut seen_preamble = false;
    for (n, fragment) in fragments::split(text)? {
        let root = Ptr::root(n);
        let kind = root.str_field(&fragment, "type")?;
        if !seen_preamble && kind != "preamble" {
            return Err(root.error("the first fragment must be the preamble (CTF2-SPEC-2.0 §6.1)"));
        }
        match kind {
            "preamble" => {
                if seen_preamble {
                    return Err(root.error("a second preamble fragment"));
                }
                seen_preamble = true;
                let version = root.key("version").uint(root.get(&fragment, "version"))?;
                if version != 2 {
                    return Err(root.key("version").error(format!(
                        "CTF version {version}: this reader reads CTF 2 metadata, whose preamble says `\"version\": 2`"
                    )));
                }
            }
            "field-class-alias" => {
                let name = root.str_field(&fragment, "name")?.to_string();
                let at = root.key("field-class");
                let fc = at.required(&fragment, "field-class")?;
                aliases.insert(name, fc.clone());
            }
            "trace-class" => trace_class(&fragment, &root, &aliases, &mut meta)?,
            "clock-class" => meta.clocks.push(clock_class(&fragment, &root)?),
            "data-stream-class" => {
                let id = root.opt_uint(&fragment, "id")?.unwrap_or(0);
                if stream_clocks.iter().any(|(s, _)| *s == id) {
                    return Err(root.key("id").error(format!(
                        "data stream class {id} is declared twice"
                    )));
                }
                // The final spec names the clock by `id`, the drafts Trace
                // Compass's samples follow by `name`.
                let clock = match root.opt_str(&fragment, "default-clock-class-id")? {
                    Some(c) => Some(c),
                    None => root.opt_str(&fragment, "default-clock-class-name")?,
                };
                if let Some(c) = &clock {
                    if !meta.clocks.iter().any(|k| &k.name == c) {
                        return Err(root.error(format!(
                            "default clock class `{c}` is not declared in an earlier fragment"
                        )));
                    }
                }
                let scope = |s: Scope, key: &str| {
                    field_class::optional_root(&fragment, &root, key, s, &aliases, clock.as_deref())
                };
                meta.streams.push(StreamDecl {
                    id: Some(id),
                    packet_context: scope(Scope::PacketContext, "packet-context-field-class")?,
                    event_header: scope(Scope::EventHeader, "event-record-header-field-class")?,
                    event_context: scope(
                        Scope::Other,
                        "event-record-common-context-field-class",
                    )?,
                });
                stream_clocks.push((id, clock));
            }
            "event-record-class" => {
                let stream_id = root.opt_uint(&fragment, "data-stream-class-id")?.unwrap_or(0);
                let Some((_, clock)) = stream_clocks.iter().find(|(s, _)| *s == stream_id) else {
                    return Err(root.error(format!(
                        "event record class of data stream class {stream_id}, which no earlier fragment declares"
                    )));
                };
                let scope = |key: &str| {
                    field_class::optional_root(&fragment, &root, key, Scope::Other, &aliases, clock.as_deref())
                };
                let name = root.opt_str(&fragment, "name")?.unwrap_or_default();
                meta.events.push(EventDecl {
                    name,
                    // The spec's default id is 0.
                    id: Some(root.opt_uint(&fragment, "id")?.unwrap_or(0)),
                    stream_id: Some(stream_id),
                    context: scope("specific-context-field-class")?,
                    fields: scope("payload-field-class")?,
                    line: n as u32,
                });
            }
            other => {
                return Err(root.key("type").error(format!(
                    "unknown fragment type `{other}`: the spec expects preamble, trace-class, clock-class, data-stream-class, event-record-class or field-class-alias"
                )))
            }
        }
    }
    if !seen_preamble {
        return Err(Ptr::root(1).error("metadata without fragments"));
    }
    Ok(meta)
}

fn trace_class(
    fragment: &Value,
    root: &Ptr,
    aliases: &Aliases,
    meta: &mut MetadataDecl,
) -> Result<(), JsonMetadataError> {
    meta.trace.major = Some(2);
    meta.trace.minor = Some(0);
    if let Some(uuid) = fragment.get("uuid") {
        meta.trace.uuid = Some(root.key("uuid").uuid(uuid)?);
    }
    meta.trace.packet_header = field_class::optional_root(
        fragment,
        root,
        "packet-header-field-class",
        Scope::PacketHeader,
        aliases,
        None,
    )?;
    if let Some(env) = fragment.get("environment") {
        let at = root.key("environment");
        let Some(env) = env.as_object() else {
            return Err(at.error("expected an object"));
        };
        for (k, v) in env {
            let v = match v {
                Value::String(s) => EnvValue::Str(s.clone()),
                Value::Number(_) => EnvValue::Int(at.key(k).int(v)?),
                _ => return Err(at.key(k).error("expected a string or an integer")),
            };
            meta.env.push((k.clone(), v));
        }
    }
    Ok(())
}

fn clock_class(fragment: &Value, root: &Ptr) -> Result<ClockDecl, JsonMetadataError> {
    // `id` in the final spec, `name` in the drafts.
    let name = match root.opt_str(fragment, "id")? {
        Some(id) => id,
        None => root
            .opt_str(fragment, "name")?
            .ok_or_else(|| root.error("clock class without `id` (or the drafts' `name`)"))?,
    };
    let freq = root
        .key("frequency")
        .uint(root.get(fragment, "frequency"))?;
    if freq == 0 {
        return Err(root.key("frequency").error("frequency must not be 0"));
    }
    let (mut offset_s, mut offset) = (0, 0);
    if let Some(o) = fragment.get("offset-from-origin") {
        let at = root.key("offset-from-origin");
        if let Some(s) = o.get("seconds") {
            offset_s = at.key("seconds").int(s)?;
        }
        if let Some(c) = o.get("cycles") {
            offset = at.key("cycles").uint(c)? as i128;
        }
    }
    let uuid = match fragment.get("uuid") {
        Some(u) => Some(uuid_text(&root.key("uuid").uuid(u)?)),
        None => None,
    };
    Ok(ClockDecl {
        name,
        freq,
        offset_s,
        offset,
        uuid,
        description: root.opt_str(fragment, "description")?,
    })
}

#[cfg(test)]
mod tests;
