//! Durations in scenario files: integer nanoseconds or text with a unit.
//!
//! `DurationSpec` deserializes from either form and reports a precise error (the TOML and
//! JSON parsers attach the line and column), so a typo like `"3oous"` is caught where it is.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// A duration in nanoseconds; `u64::MAX` stands for "forever".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DurationSpec(pub u64);

impl DurationSpec {
    /// The "forever" value.
    pub const FOREVER: DurationSpec = DurationSpec(u64::MAX);

    /// Nanoseconds (`u64::MAX` for forever).
    pub fn ns(self) -> u64 {
        self.0
    }

    /// Whether this is "forever".
    pub fn is_forever(self) -> bool {
        self.0 == u64::MAX
    }
}

/// Parses `"1.5s"`, `"4ms"`, `"300us"`, `"300µs"`, `"700000ns"`, `"forever"`.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t == "forever" {
        return Ok(u64::MAX);
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "" => return Err(format!("duration {text:?} has no unit (expected ns, us, ms or s)")),
        u => return Err(format!("unknown duration unit {u:?} in {text:?} (expected ns, us, ms or s)")),
    };
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return Err(format!("duration {text:?} has no number"));
    }
    let int_v: u64 =
        if int.is_empty() { 0 } else { int.parse().map_err(|_| format!("bad number in duration {text:?}"))? };
    let mut total = int_v.checked_mul(scale).ok_or_else(|| format!("duration {text:?} is too large"))?;
    // Fractional part: exact decimal arithmetic, truncated to whole nanoseconds.
    let mut place = scale;
    for ch in frac.chars() {
        let d = ch.to_digit(10).ok_or_else(|| format!("bad number in duration {text:?}"))? as u64;
        if place < 10 {
            if d != 0 {
                return Err(format!("duration {text:?} is finer than 1 ns"));
            }
            continue;
        }
        place /= 10;
        total = total.checked_add(d * place).ok_or_else(|| format!("duration {text:?} is too large"))?;
    }
    if total == u64::MAX {
        return Err(format!("duration {text:?} is too large"));
    }
    Ok(total)
}

/// Formats nanoseconds in the shortest exact unit form (`"1.5s"`, `"300us"`).
pub fn format_duration(ns: u64) -> String {
    if ns == u64::MAX {
        return "forever".to_string();
    }
    for (unit, scale) in [("s", 1_000_000_000u64), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= scale {
            let int = ns / scale;
            let frac = ns % scale;
            if frac == 0 {
                return format!("{int}{unit}");
            }
            let digits = format!("{frac:0width$}", width = scale.ilog10() as usize);
            return format!("{int}.{}{unit}", digits.trim_end_matches('0'));
        }
    }
    format!("{ns}ns")
}

impl Serialize for DurationSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_duration(self.0))
    }
}

impl<'de> Deserialize<'de> for DurationSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = DurationSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a duration: integer nanoseconds or a string like \"1.5s\", \"4ms\", \"300us\", \"forever\"",
                )
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DurationSpec, E> {
                if v == u64::MAX {
                    return Err(E::custom("duration is too large"));
                }
                Ok(DurationSpec(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DurationSpec, E> {
                if v < 0 {
                    return Err(E::custom(format!("a duration cannot be negative ({v})")));
                }
                Ok(DurationSpec(v as u64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DurationSpec, E> {
                parse_duration(v).map(DurationSpec).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for DurationSpec {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A duration: integer nanoseconds, or a string with a unit (ns, us, µs, ms, s) such as \"1.5s\" or \"300us\", or \"forever\".",
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^\\s*(forever|[0-9]*\\.?[0-9]+\\s*(ns|us|µs|ms|s))\\s*$" }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_exactly() {
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("300us"), Ok(300_000));
        assert_eq!(parse_duration("300µs"), Ok(300_000));
        assert_eq!(parse_duration("0.7ms"), Ok(700_000));
        assert_eq!(parse_duration("11.87us"), Ok(11_870));
        assert_eq!(parse_duration("42ns"), Ok(42));
        assert_eq!(parse_duration("forever"), Ok(u64::MAX));
        assert!(parse_duration("3oous").is_err());
        assert!(parse_duration("12").is_err());
        assert!(parse_duration("1.5ns").is_err());
    }

    #[test]
    fn formats_round_trip() {
        for ns in [0u64, 1, 999, 1_000, 1_500, 300_000, 11_870, 1_400_000, 1_500_000_000, u64::MAX] {
            assert_eq!(parse_duration(&format_duration(ns)).unwrap(), ns, "{}", format_duration(ns));
        }
    }
}
