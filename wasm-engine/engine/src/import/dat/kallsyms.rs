//! The kernel's symbol table saved in a `.dat` (`/proc/kallsyms` at record time), for the
//! fields whose print fmt prints a symbol: `%ps`/`%pf` render the name, `%pS`/`%pF` the name
//! with the offset and the symbol's size (`sched_cfs_period_timer+0x0/0x1e0`), as the kernel's
//! `vsprintf` does.

/// Text symbols (`t`, `T`, `w`, `W`) by address.
#[derive(Debug, Default)]
pub struct Symbols(Vec<(u64, String)>);

impl Symbols {
    /// Reads `ADDR TYPE NAME [MODULE]` lines; anything else is skipped, and so are data
    /// symbols and the zero addresses of an unprivileged read.
    pub fn parse(text: &[u8]) -> Symbols {
        let mut v: Vec<(u64, String)> = String::from_utf8_lossy(text)
            .lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let addr = u64::from_str_radix(it.next()?, 16).ok().filter(|&a| a != 0)?;
                let kind = it.next()?;
                matches!(kind, "t" | "T" | "w" | "W").then_some(())?;
                Some((addr, it.next()?.to_string()))
            })
            .collect();
        v.sort();
        v.dedup_by_key(|(a, _)| *a);
        Symbols(v)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The symbol `addr` falls in: its name, offset and size (to the next symbol; 0 for the
    /// last one).
    fn lookup(&self, addr: u64) -> Option<(&str, u64, u64)> {
        let i = self.0.partition_point(|(a, _)| *a <= addr).checked_sub(1)?;
        let (start, name) = &self.0[i];
        let size = self.0.get(i + 1).map_or(0, |(next, _)| next - start);
        Some((name, addr - start, size))
    }

    /// `addr` under the pointer extension `ext` (`s`, `f`: the name; `S`, `F`: with
    /// `+0xOFF/0xSIZE`); None when no symbol covers it.
    pub fn render(&self, addr: u64, ext: char) -> Option<String> {
        let (name, off, size) = self.lookup(addr)?;
        Some(match ext {
            'S' | 'F' => format!("{name}+0x{off:x}/0x{size:x}"),
            _ if off == 0 => name.to_string(),
            _ => format!("{name}+0x{off:x}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_offsets_and_sizes_as_vsprintf_prints_them() {
        let s = Symbols::parse(
            b"ffffffff813c4ef0 t sched_cfs_period_timer\nffffffff813c50d0 t __cfsb_csd_unthrottle\n\
              ffffffff83260860 d sysctl_sched_features\n0000000000000000 T hidden\nnot a line\n",
        );
        assert_eq!(s.render(0xffffffff813c4ef0, 's').as_deref(), Some("sched_cfs_period_timer"));
        assert_eq!(s.render(0xffffffff813c4ef8, 's').as_deref(), Some("sched_cfs_period_timer+0x8"));
        assert_eq!(s.render(0xffffffff813c4ef0, 'S').as_deref(), Some("sched_cfs_period_timer+0x0/0x1e0"));
        // Data symbols are not functions; below the first text symbol nothing matches.
        assert_eq!(s.render(0xffffffff813c50d0, 'S').as_deref(), Some("__cfsb_csd_unthrottle+0x0/0x0"));
        assert_eq!(s.render(0x1000, 's'), None);
    }
}
