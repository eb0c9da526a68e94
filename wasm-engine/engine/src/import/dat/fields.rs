//! Reading one field of a record's payload: integers of each size and sign, fixed `char`
//! arrays, `__data_loc`/`__rel_loc` strings, and the text a field renders to.

use super::bytes::{c_string, Endian};
use super::format::{Field, FieldKind};
use super::printfmt::{render_int, Conv};

/// The field as an unsigned number (zero-extended), `None` if it lies outside the record or is
/// not 1, 2, 4 or 8 bytes.
pub fn read_u64(f: &Field, data: &[u8], endian: Endian) -> Option<u64> {
    endian.uint(data, f.offset, f.size)
}

/// The field as a number, sign-extended when the format says `signed:1`.
pub fn read_i64(f: &Field, data: &[u8], endian: Endian) -> Option<i64> {
    let v = read_u64(f, data, endian)?;
    Some(if f.signed && f.size < 8 {
        let shift = 64 - 8 * f.size as u32;
        ((v << shift) as i64) >> shift
    } else {
        v as i64
    })
}

/// The bytes a dynamic (`__data_loc`, `__rel_loc`) or array field points at.
pub fn payload<'a>(f: &Field, data: &'a [u8], endian: Endian) -> Option<&'a [u8]> {
    match f.kind {
        FieldKind::Int => data.get(f.offset..f.offset.checked_add(f.size)?),
        FieldKind::Array { len: _ } if f.size == 0 => data.get(f.offset..),
        FieldKind::Array { .. } => data.get(f.offset..f.offset.checked_add(f.size)?),
        FieldKind::DataLoc | FieldKind::RelLoc => {
            let loc = endian.u32(data, f.offset)? as usize;
            let (mut off, len) = (loc & 0xffff, loc >> 16);
            if f.kind == FieldKind::RelLoc {
                off = off.checked_add(f.offset.checked_add(f.size)?)?;
            }
            data.get(off..off.checked_add(len)?)
        }
    }
}

/// A string field (NUL-terminated inside its bytes), lossy UTF-8.
pub fn read_str(f: &Field, data: &[u8], endian: Endian) -> Option<String> {
    payload(f, data, endian).map(c_string)
}

/// The field's value as text: strings as themselves, numbers in decimal (or as the print fmt's
/// conversion says), pointers in hex, other arrays as `ARRAY[..]` of hex bytes (as
/// `trace-cmd report -R` prints them).
pub fn render(f: &Field, data: &[u8], endian: Endian, conv: Option<&Conv>) -> String {
    if f.is_string() {
        return read_str(f, data, endian).unwrap_or_default();
    }
    match f.kind {
        FieldKind::Int if matches!(f.size, 1 | 2 | 4 | 8) => {
            let (Some(u), Some(i)) = (read_u64(f, data, endian), read_i64(f, data, endian)) else {
                return String::new();
            };
            match conv {
                Some(c) if c.conv != 's' => render_int(i, u, f.signed, c),
                _ if f.is_pointer() => format!("0x{u:x}"),
                _ if f.signed => i.to_string(),
                _ => u.to_string(),
            }
        }
        _ => {
            let bytes = payload(f, data, endian).unwrap_or_default();
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            format!("ARRAY[{}]", hex.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::dat::format::parse_field_line;

    #[test]
    fn ints_strings_and_data_loc() {
        let mut d = vec![0u8; 40];
        d[0..2].copy_from_slice(&(-3i16).to_le_bytes());
        d[2] = 0xff;
        d[4..12].copy_from_slice(&0x1234u64.to_le_bytes());
        d[12..16].copy_from_slice(b"k_a\0");
        // __data_loc at 20: offset 30, length 5.
        d[20..24].copy_from_slice(&((5u32 << 16) | 30).to_le_bytes());
        d[30..35].copy_from_slice(b"hey\0\0");
        // __rel_loc at 24: offset 2 past the field's end (28) → 30.
        d[24..28].copy_from_slice(&((3u32 << 16) | 2).to_le_bytes());
        let e = Endian::Little;
        let f = |l: &str| parse_field_line(l).unwrap();
        assert_eq!(read_i64(&f("field:short a;\toffset:0;\tsize:2;\tsigned:1;"), &d, e), Some(-3));
        assert_eq!(read_i64(&f("field:u16 a;\toffset:0;\tsize:2;\tsigned:0;"), &d, e), Some(65533));
        assert_eq!(render(&f("field:char c;\toffset:2;\tsize:1;\tsigned:1;"), &d, e, None), "-1");
        assert_eq!(render(&f("field:void * p;\toffset:4;\tsize:8;\tsigned:0;"), &d, e, None), "0x1234");
        assert_eq!(render(&f("field:char comm[8];\toffset:12;\tsize:8;\tsigned:0;"), &d, e, None), "k_a");
        assert_eq!(render(&f("field:__data_loc char[] s;\toffset:20;\tsize:4;\tsigned:0;"), &d, e, None), "hey");
        assert_eq!(render(&f("field:__rel_loc char[] s;\toffset:24;\tsize:4;\tsigned:0;"), &d, e, None), "hey");
        assert_eq!(render(&f("field:u16 b[1];\toffset:12;\tsize:2;\tsigned:0;"), &d, e, None), "ARRAY[6b, 5f]");
        // Out of bounds: no panic, nothing read.
        assert_eq!(read_u64(&f("field:u64 x;\toffset:38;\tsize:8;\tsigned:0;"), &d, e), None);
        d[20..24].copy_from_slice(&((500u32 << 16) | 30).to_le_bytes());
        assert_eq!(read_str(&f("field:__data_loc char[] s;\toffset:20;\tsize:4;\tsigned:0;"), &d, e), None);
    }
}
