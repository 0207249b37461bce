//! Small parsing helpers the formats share: numbers with range checks, and link widths and
//! speeds as the tools spell them ("4x", "QDR", "4xQDR").
use crate::fabric::graph::{MAX_PORTS, MAX_UNICAST_LID};
use crate::fabric::rate::{LinkGen, LinkSpeed};

/// The widths InfiniBand defines (lanes per link).
pub const WIDTHS: [u8; 5] = [1, 2, 4, 8, 12];

/// The speed name ibnetdiscover prints for a generation.
pub fn gen_name(gen: LinkGen) -> &'static str {
    match gen {
        LinkGen::Sdr => "SDR",
        LinkGen::Ddr => "DDR",
        LinkGen::Qdr => "QDR",
        LinkGen::Fdr10 => "FDR10",
        LinkGen::Fdr => "FDR",
        LinkGen::Edr => "EDR",
        LinkGen::Hdr => "HDR",
        LinkGen::Ndr => "NDR",
        LinkGen::Xdr => "XDR",
    }
}

pub const SPEEDS_EXPECTED: &str = "SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR";

pub fn parse_gen(s: &str) -> Option<LinkGen> {
    Some(match s {
        "SDR" => LinkGen::Sdr,
        "DDR" => LinkGen::Ddr,
        "QDR" => LinkGen::Qdr,
        "FDR10" => LinkGen::Fdr10,
        "FDR" => LinkGen::Fdr,
        "EDR" => LinkGen::Edr,
        "HDR" => LinkGen::Hdr,
        "NDR" => LinkGen::Ndr,
        "XDR" => LinkGen::Xdr,
        _ => return None,
    })
}

/// "4x" (or "4X") to 4.
pub fn parse_width(s: &str) -> Option<u8> {
    let digits = s.strip_suffix('x').or_else(|| s.strip_suffix('X'))?;
    let w: u8 = digits.parse().ok()?;
    WIDTHS.contains(&w).then_some(w)
}

/// "4xQDR", as ibnetdiscover and ibsim write a link.
pub fn parse_compact(s: &str) -> Option<LinkSpeed> {
    let x = s.find(['x', 'X'])?;
    let width = parse_width(s.get(..=x)?)?;
    let gen = parse_gen(s.get(x + 1..)?)?;
    Some(LinkSpeed { gen, width })
}

pub fn compact(speed: LinkSpeed) -> String {
    format!("{}x{}", speed.width, gen_name(speed.gen))
}

/// An unsigned number as C's `strtoul(s, _, 0)` reads a whole token: `0x` hex or decimal.
pub fn parse_c_number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

pub fn parse_hex(s: &str) -> Option<u64> {
    let s = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// A port number 1..=254 (0 is a switch's management port, 255 means "no route").
pub fn port_in_range(n: u64) -> Option<u16> {
    (1..=u64::from(MAX_PORTS)).contains(&n).then_some(n as u16)
}

/// A unicast LID 0..=0xBFFF (0 meaning "none yet").
pub fn lid_in_range(n: u64) -> Option<u16> {
    (n <= u64::from(MAX_UNICAST_LID)).then_some(n as u16)
}

/// The text between the first `open` and the next `close` after it, and what follows.
pub fn between(s: &str, open: char, close: char) -> Option<(&str, &str)> {
    let start = s.find(open)? + open.len_utf8();
    let len = s.get(start..)?.find(close)?;
    Some((&s[start..start + len], &s[start + len + close.len_utf8()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_read_as_the_tools_write_them() {
        assert_eq!(parse_compact("4xQDR"), Some(LinkSpeed { gen: LinkGen::Qdr, width: 4 }));
        assert_eq!(parse_compact("12xFDR10"), Some(LinkSpeed { gen: LinkGen::Fdr10, width: 12 }));
        assert_eq!(parse_compact("3xQDR"), None);
        assert_eq!(parse_compact("4xNDR"), Some(LinkSpeed { gen: LinkGen::Ndr, width: 4 }));
        assert_eq!(parse_compact("4xXYZ"), None);
        assert_eq!(parse_compact("x"), None);
        assert_eq!(compact(LinkSpeed { gen: LinkGen::Edr, width: 1 }), "1xEDR");
        assert_eq!(parse_c_number("0x10"), Some(16));
        assert_eq!(between("a\"b\"c", '"', '"'), Some(("b", "c")));
        assert_eq!(port_in_range(255), None);
        assert_eq!(lid_in_range(0xC000), None);
    }
}
