//! Version 7 compression: the algorithm named in the file header ("name\0version\0"), applied to
//! flagged sections (a `<u32 compressed size><u32 uncompressed size><data>` block) and to the
//! trace data (a `<u32 chunk count>` followed by chunks of the same shape, each holding a whole
//! number of ring-buffer pages).
//!
//! Only zstd is supported (pure Rust, `ruzstd`); "none" means uncompressed. trace-cmd can also
//! write zlib: such files are refused with a clear error.

use super::bytes::{Cursor, DatError};
use ruzstd::decoding::FrameDecoder;

/// Largest uncompressed block we accept (a section or a trace-data chunk). trace-cmd's chunks
/// are a few pages; its largest section (kallsyms) is a few MiB.
pub const MAX_BLOCK: u32 = 256 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Zstd,
}

impl Compression {
    pub fn from_header(name: &str, offset: u64) -> Result<Self, DatError> {
        match name {
            "none" | "" => Ok(Compression::None),
            "zstd" => Ok(Compression::Zstd),
            other => {
                Err(DatError::new(offset, format!("a supported compression algorithm (none or zstd), found {other:?}")))
            }
        }
    }
}

/// Reusable decompressor (keeps ruzstd's buffers between chunks).
pub struct Inflater {
    zstd: FrameDecoder,
}

impl Default for Inflater {
    fn default() -> Self {
        Inflater { zstd: FrameDecoder::new() }
    }
}

impl Inflater {
    /// Reads one `<u32 csize><u32 usize><data>` block at the cursor and returns the uncompressed
    /// bytes, which must be exactly `usize` long.
    pub fn block(&mut self, c: &mut Cursor<'_>, what: &str) -> Result<Vec<u8>, DatError> {
        let at = c.err(what).offset;
        let csize = c.u32(&format!("{what}: compressed size"))?;
        let usize_ = c.u32(&format!("{what}: uncompressed size"))?;
        let data = c.bytes(u64::from(csize), &format!("{what}: {csize} compressed bytes"))?;
        self.inflate(data, usize_, at, what)
    }

    pub fn inflate(&mut self, data: &[u8], expect_len: u32, at: u64, what: &str) -> Result<Vec<u8>, DatError> {
        if expect_len > MAX_BLOCK {
            return Err(DatError::new(
                at,
                format!("{what}: an uncompressed size of at most {MAX_BLOCK}, found {expect_len}"),
            ));
        }
        let mut out = vec![0u8; expect_len as usize];
        let n = self
            .zstd
            .decode_all(data, &mut out)
            .map_err(|e| DatError::new(at, format!("{what}: valid zstd data ({e})")))?;
        if n != out.len() {
            return Err(DatError::new(at, format!("{what}: {expect_len} uncompressed bytes, zstd gave {n}")));
        }
        Ok(out)
    }
}
