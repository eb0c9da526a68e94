//! The saved command lines (`saved_cmdlines`: one `PID COMM` per line) and the trace_printk
//! formats (`printk_formats`: `0xADDR : "format"` per line).

use std::collections::BTreeMap;

/// pid → comm. A comm may contain spaces: everything after the first space is the comm.
pub fn parse_cmdlines(text: &[u8]) -> BTreeMap<i32, String> {
    let text = String::from_utf8_lossy(text);
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let Some((pid, comm)) = line.trim_start().split_once(' ') else {
            continue;
        };
        if let Ok(pid) = pid.parse::<i32>() {
            m.insert(pid, comm.to_string());
        }
    }
    m
}

/// The comm trace-cmd prints for a pid: `<idle>` for 0, the saved one, else `<...>`.
pub fn comm_of(cmdlines: &BTreeMap<i32, String>, pid: i32) -> String {
    if pid == 0 {
        return "<idle>".to_string();
    }
    cmdlines.get(&pid).cloned().unwrap_or_else(|| "<...>".to_string())
}

/// address → format string (unquoted, `\n` and friends unescaped).
pub fn parse_printk_formats(text: &[u8]) -> BTreeMap<u64, String> {
    let text = String::from_utf8_lossy(text);
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let Some((addr, fmt)) = line.split_once(" : ") else {
            continue;
        };
        let addr = addr.trim().trim_start_matches("0x");
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        let fmt = fmt.trim();
        let fmt = fmt.strip_prefix('"').and_then(|f| f.strip_suffix('"')).unwrap_or(fmt);
        let mut out = String::new();
        let mut it = fmt.chars();
        while let Some(c) = it.next() {
            if c == '\\' {
                match it.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        m.insert(addr, out);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmdlines_and_printk() {
        let m = parse_cmdlines(b"10361 bash\n15 rcu_preempt\n22 kworker/0:1 x\nbad line\n");
        assert_eq!(comm_of(&m, 15), "rcu_preempt");
        assert_eq!(comm_of(&m, 22), "kworker/0:1 x");
        assert_eq!(comm_of(&m, 0), "<idle>");
        assert_eq!(comm_of(&m, 7), "<...>");
        let p = parse_printk_formats(b"0xc0c2a27c : \"cpu_load: cpu: %u freq: %u load: %u\\n\"\n");
        assert_eq!(p.get(&0xc0c2a27c).map(String::as_str), Some("cpu_load: cpu: %u freq: %u load: %u\n"));
    }
}
