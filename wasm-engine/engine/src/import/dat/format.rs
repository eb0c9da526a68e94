//! The tracefs `format` files the `.dat` carries (one per event, and `header_page`):
//!
//! ```text
//! name: sched_wakeup
//! ID: 374
//! format:
//!     field:unsigned short common_type;    offset:0;    size:2;    signed:0;
//!     ...
//!     field:char comm[16];    offset:8;    size:16;    signed:0;
//!     field:__data_loc char[] name;    offset:12;    size:4;    signed:0;
//!
//! print fmt: "comm=%s pid=%d ...", REC->comm, REC->pid, ...
//! ```
//!
//! A field's declaration gives its name (the last identifier before any `[`), whether it is a
//! fixed array (`char comm[16]`), a dynamic one (`__data_loc`: a u32 with the payload offset in
//! the low 16 bits and length in the high 16; `__rel_loc`: the same, offset counted from the end
//! of the field), and whether it is a pointer.

use super::bytes::DatError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A number of `size` bytes (1, 2, 4 or 8).
    Int,
    /// `char name[N]` and other fixed arrays; `char` arrays are strings.
    Array { len: usize },
    /// `__data_loc TYPE[] name`.
    DataLoc,
    /// `__rel_loc TYPE[] name`.
    RelLoc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// The declared type without the name (`unsigned long`, `char`, `const char *`).
    pub type_name: String,
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
    pub kind: FieldKind,
}

impl Field {
    /// Strings: arrays of `char`, `u8` or `s8`, fixed or dynamic (libtraceevent's rule).
    pub fn is_string(&self) -> bool {
        let t = &self.type_name;
        matches!(self.kind, FieldKind::Array { .. } | FieldKind::DataLoc | FieldKind::RelLoc)
            && (t.contains("char") || t.contains("u8") || t.contains("s8"))
    }

    pub fn is_pointer(&self) -> bool {
        self.type_name.contains('*')
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventFormat {
    pub system: String,
    pub name: String,
    pub id: u32,
    /// Common fields (`common_*`) first, then the event's own, in file order.
    pub fields: Vec<Field>,
    /// The text after `print fmt: ` (quoted format then arguments), empty if absent.
    pub print_fmt: String,
}

impl EventFormat {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Parses one `field:...;\toffset:N;\tsize:N;\tsigned:N;` line (without the leading tab).
pub fn parse_field_line(line: &str) -> Option<Field> {
    let rest = line.trim().strip_prefix("field:")?;
    let mut decl = "";
    let mut offset = None;
    let mut size = None;
    let mut signed = false;
    for (i, part) in rest.split(';').enumerate() {
        let part = part.trim();
        if i == 0 {
            decl = part;
        } else if let Some(v) = part.strip_prefix("offset:") {
            offset = v.trim().parse::<usize>().ok();
        } else if let Some(v) = part.strip_prefix("size:") {
            size = v.trim().parse::<usize>().ok();
        } else if let Some(v) = part.strip_prefix("signed:") {
            signed = v.trim() == "1";
        }
    }
    let (offset, size) = (offset?, size?);
    let (kind_prefix, decl) = if let Some(d) = decl.strip_prefix("__data_loc ") {
        (Some(FieldKind::DataLoc), d.trim())
    } else if let Some(d) = decl.strip_prefix("__rel_loc ") {
        (Some(FieldKind::RelLoc), d.trim())
    } else {
        (None, decl)
    };
    let ident_start = |s: &str| {
        s.char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map(|(i, c)| i + c.len_utf8())
            .unwrap_or(0)
    };
    let (name, type_name, kind) = match kind_prefix {
        // `__data_loc char[] name`: the brackets come before the name.
        Some(kind) => {
            let n = ident_start(decl);
            let ty = decl[..n].trim().trim_end_matches("[]").trim_end();
            (decl[n..].to_string(), ty.to_string(), kind)
        }
        None => {
            let b = decl.find('[').unwrap_or(decl.len());
            let head = decl[..b].trim_end();
            let n = ident_start(head);
            let kind = match decl.get(b..) {
                Some(br) if br.starts_with('[') => {
                    let inner = br[1..].split(']').next().unwrap_or("");
                    // `u32 buf[]` (flexible array, size 0): as long as the record is.
                    FieldKind::Array { len: inner.trim().parse::<usize>().unwrap_or(0) }
                }
                _ => FieldKind::Int,
            };
            (head[n..].to_string(), head[..n].trim().to_string(), kind)
        }
    };
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some(Field { name, type_name, offset, size, signed, kind })
}

/// Parses an event `format` file. `at` is the file offset used in errors.
pub fn parse_format(system: &str, text: &[u8], at: u64) -> Result<EventFormat, DatError> {
    let text = String::from_utf8_lossy(text);
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    let mut print_fmt = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = t.strip_prefix("ID:") {
            id = v.trim().parse::<u32>().ok();
        } else if t.starts_with("field:") {
            if let Some(f) = parse_field_line(t) {
                fields.push(f);
            }
        } else if let Some(v) = t.strip_prefix("print fmt:") {
            print_fmt = v.trim().to_string();
        }
    }
    let name = name.ok_or_else(|| DatError::new(at, "an event format with a `name:` line"))?;
    let id = id.ok_or_else(|| DatError::new(at, format!("an `ID:` line in the format of event {name}")))?;
    Ok(EventFormat { system: system.to_string(), name, id, fields, print_fmt })
}

/// The `ID:` of a format file without parsing the rest.
pub fn quick_id(text: &[u8]) -> Option<u32> {
    text.split(|&b| b == b'\n').find_map(|line| {
        let v = line.strip_prefix(b"ID:")?;
        std::str::from_utf8(v).ok()?.trim().parse().ok()
    })
}

/// Where the ring-buffer page header puts its parts (from `header_page`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLayout {
    /// `u64 timestamp` offset (always 0 in practice) and the `commit` word (the kernel's long).
    pub ts_offset: usize,
    pub commit_offset: usize,
    pub commit_size: usize,
    /// Offset of `char data`: where events start.
    pub data_offset: usize,
}

/// Reads `header_page`; falls back to the kernel's long size when a field is missing.
pub fn parse_header_page(text: &[u8], long_size: usize, at: u64) -> Result<PageLayout, DatError> {
    let text = String::from_utf8_lossy(text);
    let mut layout = PageLayout { ts_offset: 0, commit_offset: 8, commit_size: long_size, data_offset: 8 + long_size };
    let mut seen_commit = false;
    for line in text.lines() {
        if let Some(f) = parse_field_line(line) {
            match f.name.as_str() {
                "timestamp" => layout.ts_offset = f.offset,
                "commit" if !seen_commit => {
                    seen_commit = true;
                    layout.commit_offset = f.offset;
                    layout.commit_size = f.size;
                }
                "data" => layout.data_offset = f.offset,
                _ => {}
            }
        }
    }
    if !matches!(layout.commit_size, 4 | 8) || layout.data_offset < layout.commit_offset.saturating_add(4) {
        return Err(DatError::new(
            at,
            format!(
                "a header_page with a 4- or 8-byte commit word before the data, found commit size {} at {}, data at {}",
                layout.commit_size, layout.commit_offset, layout.data_offset
            ),
        ));
    }
    Ok(layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lines() {
        let f = parse_field_line("field:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;").unwrap();
        assert_eq!((f.name.as_str(), f.type_name.as_str()), ("prev_comm", "char"));
        assert_eq!(f.kind, FieldKind::Array { len: 16 });
        assert!(f.is_string());
        let f = parse_field_line("field:long prev_state;\toffset:32;\tsize:8;\tsigned:1;").unwrap();
        assert_eq!((f.name.as_str(), f.offset, f.size, f.signed), ("prev_state", 32, 8, true));
        assert_eq!(f.kind, FieldKind::Int);
        let f = parse_field_line("field:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;").unwrap();
        assert_eq!((f.name.as_str(), &f.kind), ("name", &FieldKind::DataLoc));
        assert!(f.is_string());
        let f = parse_field_line("field:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;").unwrap();
        assert_eq!(f.name, "fmt");
        assert!(f.is_pointer());
        let f = parse_field_line("field:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;").unwrap();
        assert_eq!((f.name.as_str(), &f.kind), ("buf", &FieldKind::Array { len: 0 }));
        assert!(!f.is_string());
        assert!(parse_field_line("field:;\toffset:0;\tsize:2;").is_none());
        assert!(parse_field_line("field:int x;\toffset:0;").is_none());
    }

    #[test]
    fn header_page_layouts() {
        let t = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
        let l = parse_header_page(t, 8, 0).unwrap();
        assert_eq!((l.commit_offset, l.commit_size, l.data_offset), (8, 4, 12));
        assert!(parse_header_page(b"field: local_t commit;\toffset:8;\tsize:3;\n", 8, 0).is_err());
    }
}
