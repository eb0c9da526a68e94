//! What the decoder reads from an event's `print fmt:` line: the `prev_state` table of
//! `sched_switch` (its `__print_flags` pairs and the `TASK_REPORT_MAX` "+" bit, both kernel
//! version dependent), and the printf conversion each plain `REC->field` argument gets, so
//! numbers are rendered as `TP_printk` renders them (`target_cpu=%03d` → `001`, `%x` → hex).

use super::super::record::PrevState;

/// Splits `"fmt", arg, arg` into the unquoted format and the top-level arguments.
pub fn split_print_fmt(s: &str) -> Option<(String, Vec<String>)> {
    let s = s.trim();
    let rest = s.strip_prefix('"')?;
    let mut fmt = String::new();
    let mut chars = rest.char_indices();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => fmt.push('\n'),
                Some((_, 't')) => fmt.push('\t'),
                Some((_, o)) => fmt.push(o),
                None => return None,
            },
            '"' => {
                end = Some(i + 1);
                break;
            }
            _ => fmt.push(c),
        }
    }
    let args_text = rest.get(end?..)?.trim_start();
    let args_text = args_text.strip_prefix(',').unwrap_or(args_text);
    Some((fmt, split_top_level(args_text)))
}

/// Splits at commas outside parentheses, braces and string literals.
pub fn split_top_level(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut esc = false;
    let mut cur = String::new();
    for c in s.chars() {
        if in_str {
            cur.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Evaluates an integer constant expression of the print fmt (`((0x01 | 0x02) + 1) << 1`):
/// literals (decimal, hex, with `U`/`L` suffixes), `|`, `^`, `&`, `<<`, `>>`, `+`, `-`, `*`,
/// `~`, parentheses. `None` for anything else (field references, casts, calls).
pub fn eval_const(expr: &str) -> Option<u64> {
    let toks = tokenize(expr)?;
    let mut p = Parser { toks: &toks, i: 0 };
    let v = p.expr(0)?;
    (p.i == toks.len()).then_some(v)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(u64),
    Op(&'static str),
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let lit = s[start..i].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).ok()?
            } else {
                lit.parse::<u64>().ok()?
            };
            out.push(Tok::Num(v));
        } else {
            let two = s.get(i..i + 2);
            let op: &'static str = match (two, c) {
                (Some("<<"), _) => "<<",
                (Some(">>"), _) => ">>",
                (_, b'|') => "|",
                (_, b'^') => "^",
                (_, b'&') => "&",
                (_, b'+') => "+",
                (_, b'-') => "-",
                (_, b'*') => "*",
                (_, b'~') => "~",
                (_, b'(') => "(",
                (_, b')') => ")",
                _ => return None,
            };
            i += op.len();
            out.push(Tok::Op(op));
        }
    }
    Some(out)
}

struct Parser<'a> {
    toks: &'a [Tok],
    i: usize,
}

fn prec(op: &str) -> Option<u8> {
    Some(match op {
        "|" => 1,
        "^" => 2,
        "&" => 3,
        "<<" | ">>" => 4,
        "+" | "-" => 5,
        "*" => 6,
        _ => return None,
    })
}

impl Parser<'_> {
    fn expr(&mut self, min: u8) -> Option<u64> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Op(op)) = self.toks.get(self.i) {
            let p = match prec(op) {
                Some(p) if p > min => p,
                _ => break,
            };
            self.i += 1;
            let rhs = self.expr(p)?;
            lhs = match *op {
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "<<" => lhs.checked_shl(u32::try_from(rhs).ok()?)?,
                ">>" => lhs.checked_shr(u32::try_from(rhs).ok()?)?,
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                _ => lhs.wrapping_mul(rhs),
            };
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<u64> {
        let t = self.toks.get(self.i)?.clone();
        self.i += 1;
        match t {
            Tok::Num(v) => Some(v),
            Tok::Op("~") => Some(!self.unary()?),
            Tok::Op("-") => Some(self.unary()?.wrapping_neg()),
            Tok::Op("(") => {
                let v = self.expr(0)?;
                match self.toks.get(self.i) {
                    Some(Tok::Op(")")) => {
                        self.i += 1;
                        Some(v)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// `prev_state` decoding read from `sched_switch`'s print fmt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateTable {
    /// `__print_flags` pairs (value, letter) in table order.
    pub flags: Vec<(u64, String)>,
    /// The bits `__print_flags` looks at (`TASK_REPORT_MAX - 1` on 6.x).
    pub mask: u64,
    /// The bit printed as `+` (`TASK_REPORT_MAX`: preempted), if the kernel has one.
    pub preempt: Option<u64>,
}

/// The report letters' bits in [`PrevState::Blocked`] (kernel 6.x values).
fn canonical_bit(letter: &str) -> Option<u16> {
    Some(match letter {
        "S" => 0x01,
        "D" => 0x02,
        "T" => 0x04,
        "t" => 0x08,
        "X" => 0x10,
        "Z" => 0x20,
        "P" => 0x40,
        "I" => 0x80,
        _ => return None,
    })
}

impl StateTable {
    /// Finds `__print_flags(REC->prev_state & MASK, "|", {v, "L"}, ...)` and the
    /// `REC->prev_state & BIT ? "+" : ""` argument.
    pub fn from_print_fmt(print_fmt: &str) -> Option<StateTable> {
        let (_, args) = split_print_fmt(print_fmt)?;
        let mut table = None;
        let mut preempt = None;
        for arg in &args {
            if let Some(i) = arg.find("__print_flags(") {
                let inner = &arg[i + "__print_flags(".len()..];
                let inner = balanced_prefix(inner)?;
                let parts = split_top_level(inner);
                let first = parts.first()?;
                if !first.contains("prev_state") {
                    continue;
                }
                let mask = match first.split_once('&') {
                    Some((_, m)) => eval_const(m)?,
                    None => u64::MAX,
                };
                let mut flags = Vec::new();
                for p in parts.iter().skip(2) {
                    let p = p.trim().strip_prefix('{')?.strip_suffix('}')?;
                    let (v, l) = p.split_once(',')?;
                    let l = l.trim().strip_prefix('"')?.strip_suffix('"')?;
                    flags.push((eval_const(v)?, l.to_string()));
                }
                table = Some((flags, mask));
            } else if let Some(cond) = arg.strip_suffix(": \"\"") {
                let cond = cond.trim_end().strip_suffix("\"+\"")?.trim_end();
                let cond = cond.strip_suffix('?')?.trim();
                if let Some((lhs, bit)) = cond.split_once('&') {
                    if lhs.contains("prev_state") {
                        preempt = eval_const(bit);
                    }
                }
            }
        }
        let (flags, mask) = table?;
        Some(StateTable { flags, mask, preempt })
    }

    /// The raw field value as the kernel's `TP_printk` would print it, as a [`PrevState`].
    pub fn decode(&self, raw: i64) -> PrevState {
        let v = raw as u64;
        let masked = v & self.mask;
        if masked == 0 {
            return match self.preempt {
                Some(bit) if v & bit != 0 => PrevState::Preempted,
                _ => PrevState::Runnable,
            };
        }
        let mut bits = 0u16;
        let mut covered = 0u64;
        for (val, letter) in &self.flags {
            if *val != 0 && masked & val == *val {
                match canonical_bit(letter) {
                    Some(b) => bits |= b,
                    None => return PrevState::Raw(raw),
                }
                covered |= val;
            }
        }
        if covered != masked {
            return PrevState::Raw(raw);
        }
        PrevState::Blocked(bits)
    }
}

/// The text inside a parenthesis opened just before `s` (up to its matching `)`).
fn balanced_prefix(s: &str) -> Option<&str> {
    let mut depth = 1i32;
    let mut in_str = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '(' if !in_str => depth += 1,
            ')' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// A printf conversion applied to one field (`%03d`, `%lx`, `%s`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conv {
    pub zero: bool,
    pub alt: bool,
    pub width: usize,
    /// d, i, u, x, X, o, c, s, p.
    pub conv: char,
    /// The first letter after `%p` (`s` of `%ps`, `S` of `%pS`), if any.
    pub ext: Option<char>,
}

/// The conversions of the format string, in order (`%%` skipped).
pub fn conversions(fmt: &str) -> Vec<Conv> {
    let mut out = Vec::new();
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            continue;
        }
        if it.peek() == Some(&'%') {
            it.next();
            continue;
        }
        let (mut zero, mut alt, mut width) = (false, false, 0usize);
        while let Some(&f) = it.peek() {
            match f {
                '0' => zero = true,
                '#' => alt = true,
                '-' | '+' | ' ' => {}
                _ => break,
            }
            it.next();
        }
        while let Some(d) = it.peek().and_then(|c| c.to_digit(10)) {
            width = width.saturating_mul(10).saturating_add(d as usize);
            it.next();
        }
        if it.peek() == Some(&'.') {
            it.next();
            while it.peek().is_some_and(|c| c.is_ascii_digit()) {
                it.next();
            }
        }
        while it.peek().is_some_and(|c| matches!(c, 'h' | 'l' | 'L' | 'z' | 'j' | 't' | 'q')) {
            it.next();
        }
        let Some(conv) = it.next() else { break };
        let mut ext = None;
        if conv == 'p' {
            // %pS, %pf, ... : extensions, letters follow.
            while let Some(c) = it.peek().copied().filter(|c| c.is_ascii_alphabetic()) {
                ext.get_or_insert(c);
                it.next();
            }
        }
        out.push(Conv { zero, alt, width: width.min(64), conv, ext });
    }
    out
}

/// For each argument that is exactly `REC->name`, the field name and its conversion.
pub fn field_conversions(print_fmt: &str) -> Vec<(String, Conv)> {
    let Some((fmt, args)) = split_print_fmt(print_fmt) else {
        return Vec::new();
    };
    let convs = conversions(&fmt);
    if convs.len() != args.len() {
        return Vec::new();
    }
    args.iter()
        .zip(convs)
        .filter_map(|(a, c)| {
            let n = a.trim().strip_prefix("REC->")?;
            n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then(|| (n.to_string(), c))
        })
        .collect()
}

/// Renders an integer under a conversion.
pub fn render_int(v: i64, unsigned: u64, signed: bool, c: &Conv) -> String {
    let body = match c.conv {
        'x' | 'p' => format!("{unsigned:x}"),
        'X' => format!("{unsigned:X}"),
        'o' => format!("{unsigned:o}"),
        'u' => unsigned.to_string(),
        'c' => char::from(unsigned as u8).to_string(),
        _ if signed => v.to_string(),
        _ => unsigned.to_string(),
    };
    let prefix = if (c.alt && matches!(c.conv, 'x' | 'X')) || c.conv == 'p' { "0x" } else { "" };
    let len = body.len() + prefix.len();
    if c.width > len {
        let pad = c.width - len;
        if c.zero {
            let (sign, digits) = match body.strip_prefix('-') {
                Some(d) => ("-", d),
                None => ("", body.as_str()),
            };
            return format!("{sign}{prefix}{}{digits}", "0".repeat(pad));
        }
        return format!("{}{prefix}{body}", " ".repeat(pad));
    }
    format!("{prefix}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWITCH_618: &str = r#""prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio"#;

    #[test]
    fn linux_6_18_prev_state() {
        let t = StateTable::from_print_fmt(SWITCH_618).unwrap();
        assert_eq!(t.mask, 0xff);
        assert_eq!(t.preempt, Some(0x100));
        assert_eq!(t.flags.len(), 8);
        assert_eq!(t.decode(0), PrevState::Runnable);
        assert_eq!(t.decode(0x100), PrevState::Preempted);
        assert_eq!(t.decode(1), PrevState::Blocked(0x01));
        assert_eq!(t.decode(0x80), PrevState::Blocked(0x80));
        assert_eq!(t.decode(0x03), PrevState::Blocked(0x03));
    }

    #[test]
    fn old_kernel_tables_keep_unknown_letters_raw() {
        // Linux 4.x: TASK_REPORT_MAX = 4096, letters beyond I.
        let f = r#""prev_state=%s%s", REC->prev_state & (4096-1) ? __print_flags(REC->prev_state & (4096-1), "|", { 1, "S"} , { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "X" }, { 32, "Z" }, { 64, "x" }, { 128, "K" }, { 256, "W" }, { 512, "P" }, { 1024, "N" }) : "R", REC->prev_state & 4096 ? "+" : """#;
        let t = StateTable::from_print_fmt(f).unwrap();
        assert_eq!((t.mask, t.preempt), (4095, Some(4096)));
        assert_eq!(t.decode(4096), PrevState::Preempted);
        assert_eq!(t.decode(2), PrevState::Blocked(0x02));
        assert_eq!(t.decode(64), PrevState::Raw(64));
        assert_eq!(t.decode(0x2000), PrevState::Runnable);
        // 3.x: no "+" at all.
        let f = r#""%s", REC->prev_state ? __print_flags(REC->prev_state, "|", { 1, "S"} , { 2, "D" }) : "R""#;
        let t = StateTable::from_print_fmt(f).unwrap();
        assert_eq!(t.preempt, None);
        assert_eq!(t.decode(1), PrevState::Blocked(1));
    }

    #[test]
    fn expressions_and_conversions() {
        assert_eq!(eval_const("((0x7f + 1) << 1) - 1"), Some(0xff));
        assert_eq!(eval_const("1UL << 3 | 1"), Some(9));
        assert_eq!(eval_const("REC->x"), None);
        assert_eq!(eval_const("1 << 99"), None);
        let c = field_conversions(
            r#""comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu"#,
        );
        assert_eq!(c.len(), 4);
        assert_eq!(render_int(1, 1, true, &c[3].1), "001");
        let x = &conversions("%#lx %p")[..];
        assert_eq!(render_int(255, 255, false, &x[0]), "0xff");
        assert_eq!(render_int(-5, 0, true, &c[1].1), "-5");
        // hrtimer_expire_entry: %p is a bare pointer, %ps a symbol.
        let c = field_conversions(
            r#""hrtimer=%p function=%ps now=%llu", REC->hrtimer, REC->function, (unsigned long long) REC->now"#,
        );
        assert_eq!(
            c.iter().map(|(n, c)| (n.as_str(), c.conv, c.ext)).collect::<Vec<_>>(),
            [("hrtimer", 'p', None), ("function", 'p', Some('s'))]
        );
    }
}
