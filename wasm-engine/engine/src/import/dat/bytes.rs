//! Checked little/big-endian reads and the decoder's error type.
//!
//! Every read goes through `get(..)`: a short or corrupt file gives a [`DatError`] naming the
//! byte offset and what was expected there, never a panic.

use std::fmt;

/// A `.dat` file that could not be decoded: where, and what the decoder expected to find there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatError {
    /// Byte offset in the file (for compressed data: the offset of the compressed chunk or
    /// section, with the position inside the uncompressed bytes named in `expected`).
    pub offset: u64,
    pub expected: String,
}

impl DatError {
    pub fn new(offset: u64, expected: impl Into<String>) -> Self {
        DatError { offset, expected: expected.into() }
    }
}

impl fmt::Display for DatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace.dat byte {}: expected {}", self.offset, self.expected)
    }
}

impl std::error::Error for DatError {}

/// Byte order of every number in the file after the initial magic (the file's endianness byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// An unsigned integer of `size` bytes (1, 2, 4 or 8) at `at`, or `None` if out of bounds
    /// or of another size.
    pub fn uint(self, b: &[u8], at: usize, size: usize) -> Option<u64> {
        let end = at.checked_add(size)?;
        let s = b.get(at..end)?;
        match size {
            1 => Some(u64::from(s[0])),
            2 => {
                let a = [s[0], s[1]];
                Some(u64::from(match self {
                    Endian::Little => u16::from_le_bytes(a),
                    Endian::Big => u16::from_be_bytes(a),
                }))
            }
            4 => {
                let a = [s[0], s[1], s[2], s[3]];
                Some(u64::from(match self {
                    Endian::Little => u32::from_le_bytes(a),
                    Endian::Big => u32::from_be_bytes(a),
                }))
            }
            8 => {
                let mut a = [0u8; 8];
                a.copy_from_slice(s);
                Some(match self {
                    Endian::Little => u64::from_le_bytes(a),
                    Endian::Big => u64::from_be_bytes(a),
                })
            }
            _ => None,
        }
    }

    pub fn u32(self, b: &[u8], at: usize) -> Option<u32> {
        self.uint(b, at, 4).map(|v| v as u32)
    }
}

/// A read position in a byte slice whose first byte sits at `base` in the file (or, for
/// decompressed data, at the compressed block's offset; `what` then says where we are).
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    endian: Endian,
    /// Prefix for error messages, e.g. "in the zstd section at 2063, ".
    context: &'static str,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], base: u64, endian: Endian) -> Self {
        Cursor { data, pos: 0, base, endian, context: "" }
    }

    /// A cursor over decompressed bytes: errors point at the compressed block's offset and say
    /// which uncompressed byte failed.
    pub fn decompressed(data: &'a [u8], block_offset: u64, endian: Endian) -> Self {
        Cursor { data, pos: 0, base: block_offset, endian, context: "uncompressed" }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn err(&self, expected: &str) -> DatError {
        if self.context.is_empty() {
            DatError::new(self.base.saturating_add(self.pos as u64), expected)
        } else {
            DatError::new(self.base, format!("{expected} ({} byte {})", self.context, self.pos))
        }
    }

    pub fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8], DatError> {
        let n = usize::try_from(n).map_err(|_| self.err(what))?;
        let end = self.pos.checked_add(n).ok_or_else(|| self.err(what))?;
        let s = self.data.get(self.pos..end).ok_or_else(|| self.err(what))?;
        self.pos = end;
        Ok(s)
    }

    fn uint(&mut self, size: usize, what: &str) -> Result<u64, DatError> {
        let v = self.endian.uint(self.data, self.pos, size).ok_or_else(|| self.err(what))?;
        self.pos += size;
        Ok(v)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, DatError> {
        self.uint(1, what).map(|v| v as u8)
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, DatError> {
        self.uint(2, what).map(|v| v as u16)
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, DatError> {
        self.uint(4, what).map(|v| v as u32)
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, DatError> {
        self.uint(8, what)
    }

    /// A NUL-terminated string (the NUL is consumed, not returned).
    pub fn cstr(&mut self, what: &str) -> Result<&'a [u8], DatError> {
        let rest = self.data.get(self.pos..).ok_or_else(|| self.err(what))?;
        let n = rest.iter().position(|&b| b == 0).ok_or_else(|| self.err(what))?;
        let s = &rest[..n];
        self.pos += n + 1;
        Ok(s)
    }

    /// Exactly these bytes (a magic string).
    pub fn expect(&mut self, magic: &[u8], what: &str) -> Result<(), DatError> {
        let at = self.pos;
        let got = self.bytes(magic.len() as u64, what)?;
        if got != magic {
            self.pos = at;
            return Err(self.err(what));
        }
        Ok(())
    }
}

/// Lossy UTF-8 of bytes up to the first NUL.
pub fn c_string(b: &[u8]) -> String {
    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..n]).into_owned()
}
