//! What the TSDL parser produces: declarations as written, with field references
//! (sequence lengths, variant tags) still as paths. `ctf::layout` resolves them.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

/// How the bytes of an integer or string are meant to be read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    None,
    Utf8,
    Ascii,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IntDecl {
    pub size: u32,
    pub align: u32,
    pub signed: bool,
    /// `None` is `native`: the trace's byte order, known only once `trace` is read.
    pub byte_order: Option<ByteOrder>,
    pub base: u32,
    pub encoding: Encoding,
    /// Name of the clock this integer samples (`map = clock.NAME.value`).
    pub clock: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnumMapping {
    pub label: String,
    pub lo: i128,
    pub hi: i128,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeDecl {
    Int(IntDecl),
    Float {
        exp_dig: u32,
        mant_dig: u32,
        align: u32,
        byte_order: Option<ByteOrder>,
    },
    Str(Encoding),
    Enum {
        container: IntDecl,
        mappings: Vec<EnumMapping>,
    },
    Struct {
        fields: Vec<(String, TypeDecl)>,
        min_align: u32,
    },
    /// LEB128 integer (CTF 2's variable-length integers): 7 bits a byte,
    /// least significant group first, the high bit saying another follows.
    VarInt {
        signed: bool,
    },
    Variant {
        tag: Option<Vec<String>>,
        options: Vec<(String, TypeDecl)>,
        /// CTF 2: the selector values (inclusive ranges) choosing each option,
        /// in option order; the selector is then any integer. CTF 1.8
        /// (`None`): the tag is an enum whose labels name the options.
        ranges: Option<Vec<Vec<(i128, i128)>>>,
    },
    Array {
        elem: Box<TypeDecl>,
        len: u64,
    },
    Sequence {
        elem: Box<TypeDecl>,
        len: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum EnvValue {
    Int(i128),
    Str(String),
}

/// The value as text, as users read an `env` entry.
impl std::fmt::Display for EnvValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnvValue::Int(i) => write!(f, "{i}"),
            EnvValue::Str(s) => f.write_str(s),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClockDecl {
    pub name: String,
    pub freq: u64,
    pub offset_s: i128,
    pub offset: i128,
    pub uuid: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamDecl {
    pub id: Option<u64>,
    pub packet_context: Option<TypeDecl>,
    pub event_header: Option<TypeDecl>,
    pub event_context: Option<TypeDecl>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventDecl {
    pub name: String,
    pub id: Option<u64>,
    pub stream_id: Option<u64>,
    pub context: Option<TypeDecl>,
    pub fields: Option<TypeDecl>,
    /// First metadata line of the block (CTF 1.8) or the fragment's number
    /// (CTF 2), for errors about the event.
    pub line: u32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceDecl {
    pub major: Option<u64>,
    pub minor: Option<u64>,
    pub uuid: Option<[u8; 16]>,
    pub byte_order: Option<ByteOrder>,
    pub packet_header: Option<TypeDecl>,
}

/// The whole metadata of one trace, as declared.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetadataDecl {
    pub trace: TraceDecl,
    pub env: Vec<(String, EnvValue)>,
    pub clocks: Vec<ClockDecl>,
    pub streams: Vec<StreamDecl>,
    pub events: Vec<EventDecl>,
    /// Declarations the reader skipped (unknown type scopes), by line.
    pub warnings: Vec<String>,
}

/// 16 bytes as a UUID's text (`8-4-4-4-12` hexadecimal digits).
pub fn uuid_text(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}
