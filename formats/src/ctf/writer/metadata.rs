//! The TSDL text of a trace written by `CtfWriter`.

use std::fmt::Write;

use super::{EnvValue, FieldType, TraceSpec};
use crate::ctf::metadata::ast::uuid_text;

pub(super) fn tsdl(spec: &TraceSpec, uuid: &[u8; 16]) -> String {
    let mut t = String::from("/* CTF 1.8 */\n\n");
    let uuid = uuid_text(uuid);
    let u = |bits: u32| int_decl(bits, false, false);
    let _ = write!(
        t,
        "trace {{\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"{uuid}\";\n\tbyte_order = le;\n\
         \tpacket.header := struct {{\n\t\t{} magic;\n\t\t{} uuid[16];\n\t\t{} stream_id;\n\t}};\n}};\n\n",
        u(32),
        u(8),
        u(32)
    );
    t.push_str("env {\n");
    for (k, v) in &spec.env {
        let _ = match v {
            EnvValue::Text(s) => writeln!(t, "\t{k} = \"{}\";", escape(s)),
            EnvValue::Int(i) => writeln!(t, "\t{k} = {i};"),
        };
    }
    t.push_str("};\n\n");
    let c = &spec.clock;
    let _ = write!(
        t,
        "clock {{\n\tname = {};\n\tuuid = \"{uuid}\";\n\tdescription = \"{}\";\n\tfreq = {};\n\
         \tprecision = 1;\n\toffset_s = {};\n\toffset = 0;\n\tabsolute = FALSE;\n}};\n\n",
        c.name,
        escape(&c.description),
        c.freq.max(1),
        c.offset_s
    );
    let ts = format!(
        "integer {{ size = 64; align = 8; signed = false; encoding = none; base = decimal; byte_order = le; map = clock.{}.value; }}",
        c.name
    );
    let _ = write!(
        t,
        "stream {{\n\tid = 0;\n\tevent.header := struct {{\n\t\t{} id;\n\t\t{ts} timestamp;\n\t}};\n\
         \tpacket.context := struct {{\n\t\t{ts} timestamp_begin;\n\t\t{ts} timestamp_end;\n\
         \t\t{} content_size;\n\t\t{} packet_size;\n\t\t{} events_discarded;\n",
        u(32),
        u(64),
        u(64),
        u(64)
    );
    for f in &spec.source_fields {
        let _ = writeln!(t, "\t\t{} {f};", u(32));
    }
    t.push_str("\t};\n");
    if !spec.event_context.is_empty() {
        t.push_str("\tevent.context := struct {\n");
        fields(&mut t, &spec.event_context);
        t.push_str("\t};\n");
    }
    t.push_str("};\n\n");
    for (id, class) in spec.classes.iter().enumerate() {
        let _ = write!(
            t,
            "event {{\n\tid = {id};\n\tname = \"{}\";\n\tstream_id = 0;\n\tfields := struct {{\n",
            escape(&class.name)
        );
        fields(&mut t, &class.fields);
        t.push_str("\t};\n};\n\n");
    }
    t
}

/// Field declarations, each name with LTTng's leading underscore.
fn fields(t: &mut String, decl: &[(String, FieldType)]) {
    for (name, ty) in decl {
        let _ = match ty {
            FieldType::Int { bits, signed, hex } => {
                writeln!(
                    t,
                    "\t\t{} _{name};",
                    int_decl(u32::from(*bits), *signed, *hex)
                )
            }
            FieldType::String => writeln!(t, "\t\tstring {{ encoding = UTF8; }} _{name};"),
            FieldType::Bytes => writeln!(
                t,
                "\t\t{} _{name}_length;\n\t\t{} _{name}[_{name}_length];",
                int_decl(32, false, false),
                int_decl(8, false, true)
            ),
        };
    }
}

fn int_decl(bits: u32, signed: bool, hex: bool) -> String {
    format!(
        "integer {{ size = {bits}; align = 8; signed = {signed}; encoding = none; base = {}; byte_order = le; }}",
        if hex { "hexadecimal" } else { "decimal" }
    )
}

fn escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            '\n' => vec!['\\', 'n'],
            c if c.is_control() => vec![' '],
            c => vec![c],
        })
        .collect()
}
