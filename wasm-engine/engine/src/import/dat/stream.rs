//! The streaming decoder: one cursor per CPU walking its pages (decompressing one chunk at a
//! time in version 7), merged into one stream in timestamp order as `trace-cmd report` does
//! (the earliest next record wins; on equal times the lower CPU goes first).

use std::collections::BTreeMap;

use super::bytes::{Cursor, DatError};
use super::cmdlines::{parse_cmdlines, parse_printk_formats};
use super::compress::Inflater;
use super::events::EventTable;
use super::header::{parse, Meta};
use super::kallsyms::Symbols;
use super::page::{next_event, open_page, Lost, PageCursor, PageError};
use super::DatInfo;
use crate::import::record::{Skipped, TraceSink};

/// Where one CPU's pages come from.
enum Source {
    /// Pages lie in the file: `[next, end)`.
    Raw { next: u64, end: u64 },
    /// Version 7 compressed chunks: `left` chunks from file offset `next`; the current chunk's
    /// pages are in `chunk` and `chunk_page` is the next page to hand out.
    Chunks { next: u64, left: u32, chunk: Vec<u8>, chunk_at: u64, chunk_page: usize, inflater: Box<Inflater> },
}

struct CpuStream {
    cpu: u32,
    source: Source,
    /// The current page: its start (file offset for raw pages, index into `chunk` otherwise),
    /// length, file offset (of the page, or of its compressed chunk) and the cursor inside it.
    page: Option<(usize, usize, u64, PageCursor)>,
    /// The next record, already located: (time, payload start, payload length).
    peeked: Option<(u64, usize, usize)>,
    /// Lost events flagged on the current page, reported before its first record.
    lost: Option<u64>,
    /// Bytes of this CPU's data consumed (compressed bytes for chunks), at most `size`.
    consumed: u64,
    /// The size of this CPU's section: chunks that a damaged count lets run past it read
    /// other sections' bytes, which are not counted twice in the progress.
    size: u64,
    done: bool,
}

/// Decodes a whole `.dat` held in memory, record by record, in timestamp order. `B` is the
/// file's bytes, borrowed (`&[u8]`) or owned (`Vec<u8>`, for a decoder that outlives the call
/// that made it, as the wasm import handle's does).
pub struct DatDecoder<B> {
    file: B,
    meta: Meta,
    events: EventTable,
    cmdlines: BTreeMap<i32, String>,
    cpus: Vec<CpuStream>,
    records: u64,
    lost_events: u64,
    skipped: u64,
    meta_bytes: u64,
    /// The file-level facts (trace clock) went to the sink.
    announced: bool,
}

fn page_error(cpu: u32, at_file: u64, page_start: usize, e: PageError, compressed: bool) -> DatError {
    if compressed {
        DatError::new(
            at_file,
            format!("{} (CPU {cpu}, compressed chunk, uncompressed byte {})", e.expected, page_start + e.at),
        )
    } else {
        DatError::new(at_file + e.at as u64, format!("{} (CPU {cpu} ring-buffer page)", e.expected))
    }
}

impl<B: AsRef<[u8]>> DatDecoder<B> {
    /// Reads the metadata (header, formats, cmdlines, options) and positions every CPU at its
    /// first page. Trace data is read only as [`DatDecoder::step`] asks for records.
    pub fn new(bytes: B) -> Result<Self, DatError> {
        let file = bytes.as_ref();
        let mut meta = parse(file)?;
        let cmdlines = parse_cmdlines(&meta.cmdlines);
        let printk = parse_printk_formats(&meta.printk);
        let symbols = Symbols::parse(&std::mem::take(&mut meta.kallsyms));
        let events = EventTable::new(std::mem::take(&mut meta.formats), printk, meta.long_size as usize, symbols);
        let mut cpus = Vec::new();
        let mut data_bytes = 0u64;
        for span in &meta.cpus {
            let end = span.offset.checked_add(span.size);
            if end.is_none_or(|e| e > file.len() as u64) {
                return Err(DatError::new(
                    span.offset.min(file.len() as u64),
                    format!(
                        "CPU {} data ({} bytes at byte {}) inside the file ({} bytes; truncated?)",
                        span.cpu,
                        span.size,
                        span.offset,
                        file.len()
                    ),
                ));
            }
            data_bytes += span.size;
            let source = if meta.data_compressed {
                let mut c = Cursor::new(file.get(span.offset as usize..).unwrap_or_default(), span.offset, meta.endian);
                let left = if span.size == 0 { 0 } else { c.u32("a chunk count")? };
                Source::Chunks {
                    next: span.offset + 4,
                    left,
                    chunk: Vec::new(),
                    chunk_at: span.offset,
                    chunk_page: 0,
                    inflater: Box::default(),
                }
            } else {
                Source::Raw { next: span.offset, end: span.offset + span.size }
            };
            cpus.push(CpuStream {
                cpu: span.cpu,
                source,
                page: None,
                peeked: None,
                lost: None,
                consumed: 0,
                size: span.size,
                done: false,
            });
        }
        cpus.sort_by_key(|c| c.cpu);
        let meta_bytes = (file.len() as u64).saturating_sub(data_bytes);
        Ok(DatDecoder {
            file: bytes,
            meta,
            events,
            cmdlines,
            cpus,
            records: 0,
            lost_events: 0,
            skipped: 0,
            meta_bytes,
            announced: false,
        })
    }

    /// What the file says about itself, and counts so far.
    pub fn info(&self) -> DatInfo {
        DatInfo {
            version: self.meta.version,
            big_endian: self.meta.endian == super::bytes::Endian::Big,
            long_size: self.meta.long_size,
            page_size: self.meta.page_size,
            compression: self.meta.compression_name.clone(),
            cpus: self.meta.cpu_count,
            clock: self.meta.clock.clone(),
            ts_offset: self.meta.ts_offset,
            uname: self.meta.uname.clone(),
            tracer_version: self.meta.tracer_version.clone(),
            event_formats: self.events.len(),
            format_failures: self.meta.format_failures,
            cmdlines: self.cmdlines.len(),
            records: self.records,
            lost_events: self.lost_events,
            skipped: self.skipped,
        }
    }

    /// Bytes of the file accounted for so far (metadata, then trace data as it is consumed).
    pub fn bytes_consumed(&self) -> u64 {
        // Sections that overlap (a damaged file) would count their bytes twice.
        (self.meta_bytes + self.cpus.iter().map(|c| c.consumed).sum::<u64>()).min(self.bytes_total())
    }

    pub fn bytes_total(&self) -> u64 {
        self.file.as_ref().len() as u64
    }

    /// Emits up to `max_records` records (and the lost-event notices and skipped records met on
    /// the way). Returns `Ok(false)` once the trace is exhausted.
    pub fn step(&mut self, sink: &mut impl TraceSink, max_records: usize) -> Result<bool, DatError> {
        if !self.announced {
            self.announced = true;
            if !self.meta.clock.is_empty() {
                sink.meta("trace_clock", &self.meta.clock, 0);
            }
        }
        for _ in 0..max_records {
            if !self.next(sink)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One record (or one skipped record). `Ok(false)` at the end.
    fn next(&mut self, sink: &mut impl TraceSink) -> Result<bool, DatError> {
        let mut best: Option<(u64, usize)> = None;
        for i in 0..self.cpus.len() {
            self.fill(i)?;
            if let Some((ts, ..)) = self.cpus[i].peeked {
                if best.is_none_or(|(b, _)| ts < b) {
                    best = Some((ts, i));
                }
            }
        }
        let Some((ts, i)) = best else {
            // Lost notices of trailing empty pages.
            for c in &mut self.cpus {
                if let Some(n) = c.lost.take() {
                    self.lost_events = self.lost_events.saturating_add(n);
                    sink.lost(c.cpu, n, self.records + self.skipped + 1);
                }
            }
            return Ok(false);
        };
        let line = self.records + self.skipped + 1;
        let c = &mut self.cpus[i];
        let (_, start, len) = c.peeked.take().unwrap_or_default();
        if let Some(n) = c.lost.take() {
            self.lost_events = self.lost_events.saturating_add(n);
            sink.lost(c.cpu, n, line);
        }
        let page_start = c.page.map(|p| p.0).unwrap_or(0);
        let data = match &c.source {
            Source::Raw { .. } => self.file.as_ref().get(page_start + start..page_start + start + len),
            Source::Chunks { chunk, .. } => chunk.get(page_start + start..page_start + start + len),
        }
        .unwrap_or_default();
        let ts_ns = ts.wrapping_add_signed(self.meta.ts_offset);
        match self.events.decode(data, self.meta.endian, ts_ns, c.cpu, line, &self.cmdlines) {
            Ok(rec) => {
                self.records += 1;
                sink.record(rec);
            }
            Err(reason) => {
                self.skipped += 1;
                sink.skipped(Skipped {
                    line,
                    column: 0,
                    reason: format!("CPU {} record at {ts} ns: expected {reason}", c.cpu),
                });
            }
        }
        Ok(true)
    }

    /// Makes sure CPU `i` has its next record located (or is done).
    fn fill(&mut self, i: usize) -> Result<(), DatError> {
        let file = self.file.as_ref();
        let layout = self.meta.layout;
        let endian = self.meta.endian;
        let page_size = self.meta.page_size as usize;
        let c = &mut self.cpus[i];
        while c.peeked.is_none() && !c.done {
            if let Some((start, len, at_file, mut cur)) = c.page {
                let (page, compressed) = match &c.source {
                    Source::Raw { .. } => (file.get(start..start + len).unwrap_or_default(), false),
                    Source::Chunks { chunk, .. } => (chunk.get(start..start + len).unwrap_or_default(), true),
                };
                match next_event(page, endian, &mut cur) {
                    Ok(Some(ev)) => {
                        c.peeked = Some((ev.ts, ev.start, ev.len));
                        c.page = Some((start, len, at_file, cur));
                    }
                    Ok(None) => c.page = None,
                    Err(e) => return Err(page_error(c.cpu, at_file, start, e, compressed)),
                }
                continue;
            }
            // Next page.
            let next = match &mut c.source {
                Source::Raw { next, end } => {
                    if *next >= *end {
                        None
                    } else {
                        let at = *next;
                        let avail = (*end - at).min(page_size as u64);
                        *next = at + avail;
                        c.consumed += avail;
                        if avail < page_size as u64 {
                            // A short last page: read what is there (the header bounds it).
                            let start = at as usize;
                            let page = file.get(start..start + avail as usize).unwrap_or_default();
                            Some((start, at, page.len(), false))
                        } else {
                            Some((at as usize, at, page_size, false))
                        }
                    }
                }
                Source::Chunks { next, left, chunk, chunk_at, chunk_page, inflater } => {
                    if *chunk_page + page_size > chunk.len() {
                        if *left == 0 {
                            None
                        } else {
                            *left -= 1;
                            let at = *next;
                            let mut cur = Cursor::new(file.get(at as usize..).unwrap_or_default(), at, endian);
                            *chunk = inflater.block(&mut cur, &format!("CPU {} trace data chunk", c.cpu))?;
                            let used = cur.pos() as u64;
                            *next = at + used;
                            c.consumed = (c.consumed + used).min(c.size);
                            *chunk_at = at;
                            *chunk_page = 0;
                            if chunk.len() < page_size {
                                return Err(DatError::new(
                                    at,
                                    format!(
                                        "a chunk of at least one {page_size}-byte page, found {} bytes",
                                        chunk.len()
                                    ),
                                ));
                            }
                            continue;
                        }
                    } else {
                        let start = *chunk_page;
                        *chunk_page += page_size;
                        Some((start, *chunk_at, page_size, true))
                    }
                }
            };
            let Some((start, at_file, len, compressed)) = next else {
                c.done = true;
                break;
            };
            let page = match &c.source {
                Source::Raw { .. } => file.get(start..start + len),
                Source::Chunks { chunk, .. } => chunk.get(start..start + len),
            }
            .unwrap_or_default();
            let (cur, lost) =
                open_page(page, &layout, endian).map_err(|e| page_error(c.cpu, at_file, start, e, compressed))?;
            c.lost = match lost {
                Lost::None => c.lost,
                Lost::Unknown => Some(c.lost.unwrap_or(0)),
                Lost::Count(n) => Some(c.lost.unwrap_or(0) + n),
            };
            c.page = Some((start, len, at_file, cur));
        }
        Ok(())
    }
}
