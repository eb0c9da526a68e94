//! Reading a trace file fed in chunks into any `TraceSink`: text through the streaming
//! `TextImporter` and a Perfetto protobuf trace through the streaming `PerfettoImporter` as the
//! chunks come; a trace-cmd `.dat` (recognised by its magic) gathered whole, then decoded in
//! steps by the `.dat` decoder (the format needs random access to each CPU's pages). A file in
//! no supported format (binary that is none of these, or text none of whose lines is an event)
//! is refused at `finish` with what it looks like, as `schedlab import` refuses it. Shared by
//! the import handle and the replay handle.

use schedlab_engine::import::dat::{DatDecoder, DatInfo};
use schedlab_engine::import::detect::{describe_unknown, is_text, MAGIC_LEN};
use schedlab_engine::import::perfetto::PerfettoImporter;
use schedlab_engine::import::{binary_kind, Binary, ImportStats, TextImporter, TraceSink};

enum Input {
    /// The first bytes, until there are enough to tell a `.dat` from text.
    Head(Vec<u8>),
    Text(Box<TextImporter>),
    Perfetto(Box<PerfettoImporter>),
    /// Binary of no supported format: nothing is read.
    Refused,
    /// A `.dat` being gathered.
    DatBytes(Vec<u8>),
    /// A `.dat` being decoded.
    Dat(Box<DatDecoder<Vec<u8>>>),
    /// Finished (`Dat` keeps what it said about itself in `dat_info`).
    Done,
}

pub struct Reader {
    input: Input,
    /// The file's size as announced (for the `.dat` buffer), 0 if unknown.
    total: usize,
    fed: u64,
    stats: ImportStats,
    dat_info: Option<DatInfo>,
    dat: bool,
    /// The file's first bytes (up to [`HEAD`]), to describe a refused file.
    head: Vec<u8>,
}

/// Bytes of a file's start kept to describe it.
const HEAD: usize = 4096;

impl Reader {
    pub fn new(total: usize) -> Reader {
        Reader {
            input: Input::Head(Vec::new()),
            total,
            fed: 0,
            stats: ImportStats::default(),
            dat_info: None,
            dat: false,
            head: Vec::new(),
        }
    }

    /// Feeds the next chunk of the file.
    pub fn feed<S: TraceSink>(&mut self, mut chunk: &[u8], sink: &mut S) {
        self.fed += chunk.len() as u64;
        if self.head.len() < HEAD {
            let take = (HEAD - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
        }
        if let Input::Head(head) = &mut self.input {
            let take = (MAGIC_LEN - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if head.len() < MAGIC_LEN {
                return;
            }
            self.decide(sink);
        }
        match &mut self.input {
            Input::Text(imp) => imp.feed(chunk, sink),
            Input::Perfetto(imp) => imp.feed(chunk, sink),
            Input::DatBytes(b) => b.extend_from_slice(chunk),
            _ => {}
        }
    }

    /// Text or `.dat`, from the head.
    fn decide<S: TraceSink>(&mut self, sink: &mut S) {
        let Input::Head(head) = std::mem::replace(&mut self.input, Input::Done) else { return };
        let kind = binary_kind(&head);
        self.dat = matches!(kind, Some(Binary::TraceDat));
        self.input = if kind == Some(Binary::Perfetto) {
            let mut imp = Box::new(PerfettoImporter::new());
            imp.feed(&head, sink);
            Input::Perfetto(imp)
        } else if kind.is_none() && !is_text(&head) {
            Input::Refused
        } else if self.dat {
            let mut b = Vec::with_capacity(self.total.max(head.len()));
            b.extend_from_slice(&head);
            Input::DatBytes(b)
        } else {
            let mut imp = Box::new(TextImporter::new());
            imp.feed(&head, sink);
            Input::Text(imp)
        };
    }

    /// Ends the input. A text trace is then complete; a `.dat` is ready to [`Reader::step`].
    pub fn finish<S: TraceSink>(&mut self, sink: &mut S) -> Result<(), String> {
        if matches!(self.input, Input::Head(_)) {
            self.decide(sink);
        }
        match std::mem::replace(&mut self.input, Input::Done) {
            Input::Text(mut imp) => {
                imp.finish(sink);
                self.stats = imp.stats().clone();
                let st = &self.stats;
                if st.binary.is_none()
                    && (st.format.is_none() || (st.records == 0 && st.eevdf_samples == 0 && st.skipped_lines > 0))
                {
                    return Err(self.refusal());
                }
            }
            Input::Perfetto(mut imp) => {
                imp.finish(sink);
                self.stats = imp.import_stats();
            }
            Input::Refused => {
                self.stats = ImportStats { bytes: self.fed, ..Default::default() };
                return Err(self.refusal());
            }
            Input::DatBytes(bytes) => {
                let len = bytes.len() as u64;
                let d = DatDecoder::new(bytes).map_err(|e| format!("trace-cmd .dat: {e}"))?;
                self.stats = ImportStats { bytes: len, binary: Some("trace-cmd .dat"), ..Default::default() };
                self.input = Input::Dat(Box::new(d));
            }
            other => self.input = other,
        }
        Ok(())
    }

    fn refusal(&self) -> String {
        format!("not a trace schedlab reads: it looks like {}", describe_unknown(&self.head))
    }

    /// Decodes up to `max_records` more `.dat` records; `Ok(false)` once everything is read
    /// (at once for text).
    pub fn step<S: TraceSink>(&mut self, sink: &mut S, max_records: usize) -> Result<bool, String> {
        let Input::Dat(d) = &mut self.input else { return Ok(false) };
        let more = d.step(sink, max_records).map_err(|e| format!("trace-cmd .dat: {e}"));
        let info = d.info();
        self.stats.records = info.records;
        if !matches!(more, Ok(true)) {
            self.dat_info = Some(info);
            self.input = Input::Done;
        }
        more
    }

    /// Bytes taken in so far: fed (text, `.dat` being gathered) or decoded (`.dat`).
    pub fn bytes_done(&self) -> u64 {
        match &self.input {
            Input::Text(imp) => imp.bytes_read(),
            Input::Perfetto(imp) => imp.bytes_read(),
            Input::Dat(d) => d.bytes_consumed(),
            Input::Done => self.stats.bytes,
            _ => self.fed,
        }
    }

    /// Lines read so far (text).
    pub fn lines(&self) -> u64 {
        match &self.input {
            Input::Text(imp) => imp.stats().lines,
            _ => self.stats.lines,
        }
    }

    /// Whether the file is a `.dat` (known once its first bytes are in).
    pub fn is_dat(&self) -> bool {
        self.dat
    }

    /// The importer's counters (for `ImportSummary`), complete after the last step.
    pub fn stats(&self) -> &ImportStats {
        &self.stats
    }

    /// What a `.dat` said about itself (after its last step).
    pub fn dat_info(&self) -> Option<&DatInfo> {
        self.dat_info.as_ref()
    }
}
