//! The metadata before the trace data, versions 6 and 7.
//!
//! Both start with the initial format: magic `17 08 44`, `"tracing"`, the version as a
//! NUL-terminated string (`"6"`, `"7"`), an endianness byte (0 little, 1 big), the user-space
//! long size (4 or 8), and the page size (u32; from here on every number is in the file's byte
//! order).
//!
//! **Version 6** then lays the parts out one after the other: HEADER INFO (`"header_page\0"`,
//! u64 size, the `header_page` format; `"header_event\0"`, u64 size, `header_event`), FTRACE
//! EVENT FORMATS (u32 count, then u64 size + format file each), EVENT FORMATS (u32 system
//! count; per system a NUL-terminated name, u32 count, then u64 size + format file each),
//! KALLSYMS (u32 size + text), TRACE_PRINTK (u32 size + text), PROCESS INFORMATION (u64 size +
//! `saved_cmdlines` text), the CPU count (u32), then 10-byte tags: `"options  \0"` (options
//! `<u16 id><u32 size><data>` until id 0), and `"flyrecord\0"` followed by one
//! `<u64 offset><u64 size>` per CPU (`"latency  \0"` files hold text and are refused).
//!
//! **Version 7** has after the page size the compression header (`"name\0version\0"`) and the
//! u64 offset of the first OPTIONS section. Every part is a section: `<u16 id><u16 flags (1 =
//! compressed)><u32 description string id><u64 size>` then the data (compressed sections hold a
//! `<u32 csize><u32 usize><data>` block). The options sections (id 0, chained by the DONE
//! option's u64 offset) point at the other sections: HEADER_INFO 16, FTRACE_EVENTS 17,
//! EVENT_FORMATS 18, KALLSYMS 19, PRINTK 20, CMDLINES 21, whose contents are as in version 6.
//! The BUFFER option (id 3) describes one trace instance: u64 offset of its BUFFER FLYRECORD
//! section (whose compressed flag says whether the trace data is compressed), instance name
//! (`""` is the top instance), clock name, page size (u32), CPU count (u32), then per CPU
//! `<u32 cpu><u64 offset><u64 size>`.

use super::bytes::{c_string, Cursor, DatError, Endian};
use super::compress::{Compression, Inflater};
use super::format::{parse_header_page, quick_id, PageLayout};
use crate::import::record::MAX_CPU;

/// One CPU's trace data in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuSpan {
    pub cpu: u32,
    pub offset: u64,
    pub size: u64,
}

/// An event `format` file kept as text until a record needs it (a file carries thousands).
#[derive(Clone, Debug)]
pub struct RawFormat {
    pub system: String,
    pub id: u32,
    pub text: Vec<u8>,
    /// File offset of the text (of its section, when compressed), for errors.
    pub at: u64,
}

/// Everything the decoder needs from the metadata.
#[derive(Clone, Debug)]
pub struct Meta {
    pub version: u32,
    pub endian: Endian,
    pub long_size: u8,
    pub page_size: u32,
    pub compression: Compression,
    /// `"zstd 1.5.4"`, `"none"`.
    pub compression_name: String,
    pub layout: PageLayout,
    /// Format files by id, parsed only when a record uses them.
    pub formats: Vec<RawFormat>,
    /// Format files without an `ID:` line (skipped, as trace-cmd skips what it cannot parse).
    pub format_failures: usize,
    pub printk: Vec<u8>,
    /// The saved `/proc/kallsyms`, kept only when an event's print fmt prints a symbol
    /// (`%ps`, `%pS`, `%pf`, `%pF`: `hrtimer_expire_entry`'s `function`); empty otherwise.
    pub kallsyms: Vec<u8>,
    pub cmdlines: Vec<u8>,
    pub cpus: Vec<CpuSpan>,
    /// Version 7 trace data compressed in chunks.
    pub data_compressed: bool,
    pub clock: String,
    /// The OFFSET option, added to every timestamp (as trace-cmd does).
    pub ts_offset: i64,
    pub cpu_count: u32,
    pub uname: String,
    pub tracer_version: String,
}

const MAGIC: &[u8] = b"\x17\x08\x44tracing";
/// trace-cmd option ids used here.
const OPT_DONE: u16 = 0;
const OPT_BUFFER: u16 = 3;
const OPT_TRACECLOCK: u16 = 4;
const OPT_UNAME: u16 = 5;
const OPT_OFFSET: u16 = 7;
const OPT_CPUCOUNT: u16 = 8;
const OPT_VERSION: u16 = 9;
const SEC_HEADER_INFO: u16 = 16;
const SEC_FTRACE_EVENTS: u16 = 17;
const SEC_EVENT_FORMATS: u16 = 18;
const SEC_KALLSYMS: u16 = 19;
const SEC_PRINTK: u16 = 20;
const SEC_CMDLINES: u16 = 21;

pub fn parse(file: &[u8]) -> Result<Meta, DatError> {
    let mut c = Cursor::new(file, 0, Endian::Little);
    c.expect(MAGIC, "the trace.dat magic 17 08 44 \"tracing\"")?;
    let version = c.cstr("the file version string")?;
    let version = match version {
        b"6" => 6,
        b"7" => 7,
        v => return Err(DatError::new(10, format!("file version 6 or 7, found {:?}", String::from_utf8_lossy(v)))),
    };
    let endian = match c.u8("the endianness byte")? {
        0 => Endian::Little,
        1 => Endian::Big,
        b => return Err(DatError::new(c.pos() as u64 - 1, format!("endianness 0 or 1, found {b}"))),
    };
    let long_size = c.u8("the long size byte")?;
    if long_size != 4 && long_size != 8 {
        return Err(DatError::new(c.pos() as u64 - 1, format!("long size 4 or 8, found {long_size}")));
    }
    let mut c = Cursor::new(file, 0, endian);
    c.bytes(MAGIC.len() as u64 + 2 + 2, "the initial format")?;
    let page_size = c.u32("the page size")?;
    if !(64..=1 << 24).contains(&page_size) {
        return Err(c.err(&format!("a page size between 64 and 16 MiB, found {page_size}")));
    }
    let mut meta = Meta {
        version,
        endian,
        long_size,
        page_size,
        compression: Compression::None,
        compression_name: "none".into(),
        layout: PageLayout {
            ts_offset: 0,
            commit_offset: 8,
            commit_size: long_size as usize,
            data_offset: 8 + long_size as usize,
        },
        formats: Vec::new(),
        format_failures: 0,
        printk: Vec::new(),
        kallsyms: Vec::new(),
        cmdlines: Vec::new(),
        cpus: Vec::new(),
        data_compressed: false,
        clock: "local".into(),
        ts_offset: 0,
        cpu_count: 0,
        uname: String::new(),
        tracer_version: String::new(),
    };
    if version == 6 {
        parse_v6(&mut c, &mut meta)?;
    } else {
        parse_v7(file, &mut c, &mut meta)?;
    }
    Ok(meta)
}

fn read_header_info(c: &mut Cursor<'_>, meta: &mut Meta) -> Result<(), DatError> {
    c.expect(b"header_page\0", "\"header_page\\0\"")?;
    let n = c.u64("the header_page size")?;
    let at = c.err("").offset;
    let text = c.bytes(n, "the header_page format")?;
    meta.layout = parse_header_page(text, meta.long_size as usize, at)?;
    c.expect(b"header_event\0", "\"header_event\\0\"")?;
    let n = c.u64("the header_event size")?;
    c.bytes(n, "the header_event format")?;
    Ok(())
}

fn push_format(meta: &mut Meta, system: &str, text: &[u8], at: u64) {
    match quick_id(text) {
        Some(id) => meta.formats.push(RawFormat { system: system.to_string(), id, text: text.to_vec(), at }),
        None => meta.format_failures += 1,
    }
}

fn read_ftrace_formats(c: &mut Cursor<'_>, meta: &mut Meta) -> Result<(), DatError> {
    let count = c.u32("the ftrace format count")?;
    for _ in 0..count {
        let n = c.u64("an ftrace format size")?;
        let at = c.err("").offset;
        let text = c.bytes(n, "an ftrace format file")?;
        push_format(meta, "ftrace", text, at);
    }
    Ok(())
}

fn read_event_formats(c: &mut Cursor<'_>, meta: &mut Meta) -> Result<(), DatError> {
    let systems = c.u32("the event system count")?;
    for _ in 0..systems {
        let system = c_string(c.cstr("an event system name")?);
        let count = c.u32("the event count of a system")?;
        for _ in 0..count {
            let n = c.u64("an event format size")?;
            let at = c.err("").offset;
            let text = c.bytes(n, "an event format file")?;
            push_format(meta, &system, text, at);
        }
    }
    Ok(())
}

/// Whether an event's print fmt prints a kernel symbol (`%ps`, `%pS`, `%pf`, `%pF`), so the
/// file's kallsyms (a few MiB, otherwise skipped) is worth reading.
fn prints_symbols(formats: &[RawFormat]) -> bool {
    formats.iter().any(|f| f.text.windows(3).any(|w| w[0] == b'%' && w[1] == b'p' && b"sSfF".contains(&w[2])))
}

fn read_u32_blob(c: &mut Cursor<'_>, what: &str) -> Result<Vec<u8>, DatError> {
    let n = c.u32(&format!("the {what} size"))?;
    Ok(c.bytes(u64::from(n), what)?.to_vec())
}

fn read_cmdlines(c: &mut Cursor<'_>, meta: &mut Meta) -> Result<(), DatError> {
    let n = c.u64("the saved cmdlines size")?;
    meta.cmdlines = c.bytes(n, "the saved cmdlines")?.to_vec();
    Ok(())
}

/// Options shared by both versions (the BUFFER option is version 7's and handled there).
fn apply_option(meta: &mut Meta, id: u16, data: &[u8]) {
    let text = || c_string(data);
    match id {
        OPT_TRACECLOCK => {
            let t = text();
            if let Some(sel) = t.split('[').nth(1).and_then(|s| s.split(']').next()) {
                meta.clock = sel.to_string();
            }
        }
        OPT_UNAME => meta.uname = text(),
        OPT_VERSION => meta.tracer_version = text(),
        OPT_OFFSET => meta.ts_offset = text().trim().parse().unwrap_or(0),
        OPT_CPUCOUNT => meta.cpu_count = meta.endian.u32(data, 0).unwrap_or(0),
        _ => {}
    }
}

fn parse_v6(c: &mut Cursor<'_>, meta: &mut Meta) -> Result<(), DatError> {
    read_header_info(c, meta)?;
    read_ftrace_formats(c, meta)?;
    read_event_formats(c, meta)?;
    let kallsyms = read_u32_blob(c, "kallsyms")?;
    if prints_symbols(&meta.formats) {
        meta.kallsyms = kallsyms;
    }
    meta.printk = read_u32_blob(c, "trace_printk formats")?;
    read_cmdlines(c, meta)?;
    let at = c.err("").offset;
    let cpus = c.u32("the CPU count")?;
    if cpus > MAX_CPU + 1 {
        return Err(DatError::new(at, format!("a CPU count of at most {}, found {cpus}", MAX_CPU + 1)));
    }
    meta.cpu_count = cpus;
    loop {
        let tag = c.bytes(10, "a 10-byte tag (\"options  \", \"flyrecord\")")?;
        match tag {
            b"options  \0" => loop {
                let id = c.u16("an option id")?;
                if id == OPT_DONE {
                    break;
                }
                let n = c.u32("an option size")?;
                let data = c.bytes(u64::from(n), "option data")?;
                apply_option(meta, id, data);
            },
            b"flyrecord\0" => {
                for cpu in 0..cpus {
                    let offset = c.u64("a CPU data offset")?;
                    let size = c.u64("a CPU data size")?;
                    meta.cpus.push(CpuSpan { cpu, offset, size });
                }
                return Ok(());
            }
            b"latency  \0" => return Err(c.err("flyrecord data (latency-tracer text files are not supported)")),
            _ => return Err(DatError::new(c.err("").offset - 10, "\"options  \\0\" or \"flyrecord\\0\"")),
        }
    }
}

/// A version 7 section: checks its id and returns its (decompressed) data and flags.
fn section(
    file: &[u8],
    meta: &Meta,
    offset: u64,
    id: u16,
    inflater: &mut Inflater,
) -> Result<(Vec<u8>, u16), DatError> {
    let start = usize::try_from(offset).ok().and_then(|o| file.get(o..)).ok_or_else(|| {
        let len = file.len() as u64;
        DatError::new(len, format!("section {id} at byte {offset} inside the file ({len} bytes; truncated?)"))
    })?;
    let mut c = Cursor::new(start, offset, meta.endian);
    let got = c.u16("a section id")?;
    if got != id {
        return Err(DatError::new(offset, format!("section id {id}, found {got}")));
    }
    let flags = c.u16("section flags")?;
    c.u32("a section description id")?;
    let size = c.u64("a section size")?;
    let data = c.bytes(size, &format!("the {size} bytes of section {id}"))?;
    if flags & 1 != 0 && meta.compression != Compression::None {
        let mut dc = Cursor::new(data, offset + 16, meta.endian);
        Ok((inflater.block(&mut dc, &format!("compressed section {id}"))?, flags))
    } else {
        Ok((data.to_vec(), flags))
    }
}

fn parse_v7(file: &[u8], c: &mut Cursor<'_>, meta: &mut Meta) -> Result<(), DatError> {
    let at = c.err("").offset;
    let name = c_string(c.cstr("the compression name")?);
    let ver = c_string(c.cstr("the compression version")?);
    meta.compression = Compression::from_header(&name, at)?;
    meta.compression_name = if ver.is_empty() { name } else { format!("{name} {ver}") };
    let mut next = c.u64("the offset of the first options section")?;
    let mut inflater = Inflater::default();
    let mut sections: Vec<(u16, u64)> = Vec::new();
    let mut buffer: Option<(bool, u64, Vec<CpuSpan>, String)> = None;
    let mut seen = 0;
    let mut base = 0;
    while next != 0 {
        seen += 1;
        if seen > 64 {
            // At the last section read (inside the file), whose DONE option continues the chain.
            return Err(DatError::new(base, "at most 64 chained options sections (does the chain loop?)"));
        }
        let (data, _) = section(file, meta, next, 0, &mut inflater)?;
        base = next;
        next = 0;
        let mut o = Cursor::decompressed(&data, base, meta.endian);
        while o.remaining() > 0 {
            let id = o.u16("an option id")?;
            let n = o.u32("an option size")?;
            let d = o.bytes(u64::from(n), "option data")?;
            let mut dc = Cursor::decompressed(d, base, meta.endian);
            match id {
                OPT_DONE => {
                    next = dc.u64("the DONE option's next-section offset")?;
                    break;
                }
                SEC_HEADER_INFO..=SEC_CMDLINES => {
                    sections.push((id, dc.u64("a section offset")?));
                }
                OPT_BUFFER => {
                    let off = dc.u64("the BUFFER option's section offset")?;
                    let name = c_string(dc.cstr("the buffer instance name")?);
                    let clock = c_string(dc.cstr("the buffer clock")?);
                    // trace-cmd 3.x writes the page size here; the v7 document does not
                    // list it. Tell by the size that is left: 4 or 8 bytes, then 20 per CPU.
                    let rem = dc.remaining();
                    let count_at = |skip: usize| {
                        meta.endian
                            .u32(d, d.len() - rem + skip)
                            .map(|n| u64::from(n) * 20 + skip as u64 + 4 == rem as u64)
                    };
                    if count_at(4) == Some(true) || count_at(0) != Some(true) {
                        dc.u32("the buffer page size")?;
                    }
                    let count = dc.u32("the buffer CPU count")?;
                    let mut spans = Vec::new();
                    for _ in 0..count {
                        let cpu = dc.u32("a buffer CPU id")?;
                        if cpu > MAX_CPU {
                            return Err(dc.err(&format!("a buffer CPU id of at most {MAX_CPU}, found {cpu}")));
                        }
                        let offset = dc.u64("a buffer CPU data offset")?;
                        let size = dc.u64("a buffer CPU data size")?;
                        spans.push(CpuSpan { cpu, offset, size });
                    }
                    // The top instance (empty name) wins; else the first one.
                    let replace = match &buffer {
                        None => true,
                        Some((top, ..)) => name.is_empty() && !top,
                    };
                    if replace {
                        buffer = Some((name.is_empty(), off, spans, clock));
                    }
                }
                _ => apply_option(meta, id, d),
            }
        }
    }
    let mut kallsyms_at = None;
    for (id, off) in sections {
        if id == SEC_KALLSYMS {
            kallsyms_at = Some(off); // decompressed below only if a format prints a symbol
            continue;
        }
        if !matches!(id, SEC_HEADER_INFO | SEC_FTRACE_EVENTS | SEC_EVENT_FORMATS | SEC_PRINTK | SEC_CMDLINES) {
            continue;
        }
        let (data, _) = section(file, meta, off, id, &mut inflater)?;
        let mut s = Cursor::decompressed(&data, off, meta.endian);
        match id {
            SEC_HEADER_INFO => read_header_info(&mut s, meta)?,
            SEC_FTRACE_EVENTS => read_ftrace_formats(&mut s, meta)?,
            SEC_EVENT_FORMATS => read_event_formats(&mut s, meta)?,
            SEC_PRINTK => meta.printk = read_u32_blob(&mut s, "trace_printk formats")?,
            _ => read_cmdlines(&mut s, meta)?,
        }
    }
    // A damaged symbol table costs only the symbols' names (pointers print in hex).
    if let Some(off) = kallsyms_at.filter(|_| prints_symbols(&meta.formats)) {
        if let Ok((data, _)) = section(file, meta, off, SEC_KALLSYMS, &mut inflater) {
            let mut s = Cursor::decompressed(&data, off, meta.endian);
            meta.kallsyms = read_u32_blob(&mut s, "kallsyms").unwrap_or_default();
        }
    }
    let (_, off, spans, clock) = buffer.ok_or_else(|| DatError::new(0, "a BUFFER option (flyrecord trace data)"))?;
    meta.clock = clock;
    // The BUFFER FLYRECORD section header: only its compressed flag matters.
    let start = usize::try_from(off).ok().and_then(|o| file.get(o..)).ok_or_else(|| {
        let len = file.len() as u64;
        DatError::new(
            len,
            format!("the BUFFER FLYRECORD section at byte {off} inside the file ({len} bytes; truncated?)"),
        )
    })?;
    let mut h = Cursor::new(start, off, meta.endian);
    let id = h.u16("the BUFFER FLYRECORD section id")?;
    if id != OPT_BUFFER {
        return Err(DatError::new(off, format!("section id 3 (buffer flyrecord), found {id}")));
    }
    let flags = h.u16("the BUFFER FLYRECORD section flags")?;
    meta.data_compressed = flags & 1 != 0 && meta.compression != Compression::None;
    meta.cpus = spans;
    if meta.cpu_count == 0 {
        meta.cpu_count = meta.cpus.len() as u32;
    }
    Ok(())
}
