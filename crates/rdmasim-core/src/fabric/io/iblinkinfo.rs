//! iblinkinfo's output (infiniband-diags/iblinkinfo.c), default and `--line` (`-l`): every port
//! of every node with its link's active width, speed and state and what it is cabled to.
//! ```text
//! CA: h15 mlx4_0:
//!       0x0002c90300000f01     16    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>      20    4[  ] "r0-L1-s3" (Could be 12X )
//! Switch: 0x0008f10400001300 r0-L1-s3:
//!           20    3[  ] ==(                Down/ Polling)==>             [  ] "" ( )
//! ```
//! `-l` puts each port's GUID and node description at the head of its line, and the peer's
//! GUID before its LID. A CA line gives the port's GUID, a switch line the switch's LID (the
//! header gives its GUID). "Could be" is what both ends' PortInfo say they support; ibsim
//! reports 1x..12x and SDR..QDR for every port, so over ibsim it is no guide to a design.
use super::notes::Notes;
use super::text::{lid_in_range, parse_hex, parse_width, port_in_range};
use super::tool_lines::ToolLines;
use super::IoError;
use crate::fabric::rate::{LinkGen, LinkSpeed};

/// The other end of a port's link, as iblinkinfo names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkInfoPeer {
    /// The peer port's GUID (`-l` only).
    pub guid: Option<u64>,
    pub lid: u16,
    pub port: u16,
    pub name: String,
}

/// One port line.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkInfoPort {
    /// The port's GUID (a CA's, or any line in `-l`), else the switch header's node GUID.
    pub guid: Option<u64>,
    pub node_name: String,
    /// A switch's LID (port 0) or the CA port's.
    pub lid: u16,
    pub port: u16,
    /// PortState: Active, Init, Armed or Down.
    pub state: String,
    /// PortPhysicalState: LinkUp, Polling, Disabled, ...
    pub phys_state: String,
    /// Active width and speed; None when the port is down (they mean nothing then, C14-24.2.1).
    pub active: Option<LinkSpeed>,
    pub peer: Option<LinkInfoPeer>,
    pub could_be: CouldBe,
    pub line: usize,
    /// Read under a `Switch:` header (the default layout says the kind only there).
    pub switch_header: bool,
    /// An `-l` line (its node's GUID and description at its head, no header).
    pub line_layout: bool,
}

/// iblinkinfo's "Could be" width and speed: the best both ends support, where better than
/// the active one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CouldBe {
    pub width: Option<u8>,
    pub gen: Option<LinkGen>,
}

/// Speeds as libibmad prints them (mad_dump_linkspeed, mad_dump_linkspeedext; FDR10 as
/// iblinkinfo marks it).
fn parse_speed(s: &str) -> Option<LinkGen> {
    Some(match s {
        "2.5 Gbps" => LinkGen::Sdr,
        "5.0 Gbps" => LinkGen::Ddr,
        "10.0 Gbps" => LinkGen::Qdr,
        "10.0 Gbps (FDR10)" => LinkGen::Fdr10,
        "14.0625 Gbps" => LinkGen::Fdr,
        "25.78125 Gbps" => LinkGen::Edr,
        "53.125 Gbps" => LinkGen::Hdr,
        "106.25 Gbps" => LinkGen::Ndr,
        "212.5 Gbps" => LinkGen::Xdr,
        _ => return None,
    })
}

const SPEEDS: &str = "2.5, 5.0, 10.0, 10.0 (FDR10), 14.0625, 25.78125, 53.125, 106.25 or 212.5 Gbps";

/// Notes the reader may add.
pub const ROUTER_LINES: &str = "router nodes' lines (routers are not modelled) skipped";

struct Line<'a> {
    source: &'a str,
    lineno: usize,
}

impl Line<'_> {
    fn err(&self, m: impl Into<String>) -> IoError {
        IoError::at(self.source, self.lineno, m)
    }

    fn guid(&self, w: &str) -> Result<u64, IoError> {
        w.strip_prefix("0x").and_then(parse_hex).ok_or_else(|| self.err(format!("GUID {w:?}: expected 0x and 16 hex digits")))
    }

    /// `LID PORT[ext]`.
    fn lid_port<'w>(&self, words: &mut impl Iterator<Item = &'w str>) -> Result<(u16, u16), IoError> {
        let lid = words.next().unwrap_or("");
        let lid = lid.parse().ok().and_then(lid_in_range).ok_or_else(|| self.err(format!("LID {lid:?}: expected 0..=0xBFFF")))?;
        let port = words.next().unwrap_or("");
        let num = port.split('[').next().unwrap_or("");
        let num = num.parse().ok().and_then(port_in_range).ok_or_else(|| self.err(format!("port {port:?}: expected 1..=254 and [ext port]")))?;
        // The external port number, empty on most ports: "[  ]" may be split by the blanks.
        if !port.contains('[') {
            return Err(self.err(format!("port {port:?}: expected <port>[<ext port>]")));
        }
        if !port.contains(']') {
            words.find(|w| w.contains(']'));
        }
        Ok((lid, num))
    }

    /// `( 4X          10.0 Gbps Active/  LinkUp)` without its outer parentheses.
    fn link(&self, s: &str) -> Result<(Option<LinkSpeed>, String, String), IoError> {
        // `-p` appends " (HOQ:n VL_Stall:n)" inside the arrow.
        let s = s.split(") (HOQ:").next().unwrap_or(s);
        let Some((left, phys)) = s.rsplit_once('/') else {
            return Err(self.err(format!("({s}): expected (<width> <speed> <state>/<physical state>)")));
        };
        let left = left.trim();
        let (rest, state) = left.rsplit_once(' ').unwrap_or(("", left));
        let (state, phys) = (state.to_string(), phys.trim().to_string());
        if state == "Down" {
            return Ok((None, state, phys));
        }
        let rest = rest.trim();
        let (width, speed) = rest.split_once(' ').unwrap_or((rest, ""));
        let width = parse_width(width).ok_or_else(|| self.err(format!("width {width:?}: expected 1X, 2X, 4X, 8X or 12X")))?;
        let gen = parse_speed(speed.trim()).ok_or_else(|| self.err(format!("speed {:?}: expected {SPEEDS}", speed.trim())))?;
        Ok((Some(LinkSpeed { gen, width }), state, phys))
    }

    /// What follows `==>`: the peer, `[  ] "" ( )` for a down port, or "Port not available".
    fn peer(&self, s: &str) -> Result<(Option<LinkInfoPeer>, CouldBe), IoError> {
        let s = s.trim();
        if s.starts_with('[') || s.starts_with("\"Port not available\"") {
            return Ok((None, CouldBe::default()));
        }
        let expected = "expected [0x<guid>] <lid> <port>[<ext>] \"<peer>\" (<could be>)";
        let (Some(q0), Some(q1)) = (s.find('"'), s.rfind("\" (")) else {
            return Err(self.err(format!("{s:?}: {expected}")));
        };
        if q1 <= q0 {
            return Err(self.err(format!("{s:?}: {expected}")));
        }
        let mut words = s[..q0].split_whitespace().peekable();
        let guid = match words.peek() {
            Some(w) if w.starts_with("0x") => Some(self.guid(words.next().unwrap_or(""))?),
            _ => None,
        };
        let (lid, port) = self.lid_port(&mut words)?;
        let name = s[q0 + 1..q1].to_string();
        let hints = s[q1 + 2..].trim().trim_start_matches('(').trim_end_matches(')');
        let mut could_be = CouldBe::default();
        for hint in hints.split("Could be ").map(str::trim).filter(|h| !h.is_empty()) {
            match (parse_width(hint), parse_speed(hint)) {
                (Some(w), _) => could_be.width = Some(w),
                (_, Some(g)) => could_be.gen = Some(g),
                _ => return Err(self.err(format!("\"Could be {hint}\": expected a width or a speed ({SPEEDS})"))),
            }
        }
        Ok((Some(LinkInfoPeer { guid, lid, port, name }), could_be))
    }
}

/// A default-format header: `Switch: 0x<guid> <name>:` (`Switch 0x<guid> <name>:` before
/// infiniband-diags 1.5), `CA: <name>:`, `Router: ...`. The node's name and, for a switch,
/// its GUID; Err(()) for a router.
enum Header {
    Node(String, Option<u64>),
    Router,
}

fn header(line: &str, l: &Line) -> Result<Option<Header>, IoError> {
    let Some(body) = line.strip_suffix(':') else { return Ok(None) };
    let (kind, rest) = match body.split_once(": ") {
        Some((k, r)) if matches!(k, "CA" | "Switch" | "Router") => (k, r),
        _ => match body.split_once(' ') {
            Some((k, r)) if k == "Switch" && r.starts_with("0x") => (k, r),
            _ => return Ok(None),
        },
    };
    match kind {
        "CA" => Ok(Some(Header::Node(rest.to_string(), None))),
        "Switch" => {
            let (guid, name) = rest.split_once(' ').unwrap_or((rest, ""));
            Ok(Some(Header::Node(name.to_string(), Some(l.guid(guid)?))))
        }
        _ => Ok(Some(Header::Router)),
    }
}

/// Reads iblinkinfo's output, either layout: one record per port line, in file order.
pub fn read(text: &str, source: &str, notes: &mut Notes) -> Result<Vec<LinkInfoPort>, IoError> {
    let mut out = Vec::new();
    // The node whose port lines follow; None inside a router's block.
    let mut node: Option<Option<(String, Option<u64>)>> = None;
    let mut lines = ToolLines::new(text, source, notes);
    while let Some((lineno, raw)) = lines.next() {
        let l = Line { source, lineno };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let Some((left, rest)) = line.split_once("==(") else {
            match header(line, &l)? {
                Some(Header::Node(name, guid)) => node = Some(Some((name, guid))),
                Some(Header::Router) => {
                    lines.note(ROUTER_LINES, lineno);
                    node = Some(None);
                }
                None => return Err(l.err(format!("{line:?}: expected a node header (CA: or Switch:) or a port line with ==( ... )==>"))),
            }
            continue;
        };
        if matches!(node, Some(None)) && !left.contains('"') {
            lines.note(ROUTER_LINES, lineno);
            continue;
        }
        let Some((link, after)) = rest.split_once(")==>") else {
            return Err(l.err("expected )==> after the link (a cut line?)"));
        };
        let (active, state, phys_state) = l.link(link)?;
        let (peer, could_be) = l.peer(after)?;
        let mut words = left.split_whitespace().peekable();
        let mut guid = match words.peek() {
            Some(w) if w.starts_with("0x") => Some(l.guid(words.next().unwrap_or(""))?),
            _ => None,
        };
        let node_name = if left.contains('"') {
            // `-l`: the description, right-aligned in 30 columns, in quotes.
            let Some((name, after)) = super::text::between(left, '"', '"') else {
                return Err(l.err("expected the node description in quotes"));
            };
            words = after.split_whitespace().peekable();
            name.trim().to_string()
        } else {
            let Some(Some((name, header_guid))) = &node else {
                return Err(l.err("a port line before any node header: expected CA: or Switch: first (or -l lines)"));
            };
            guid = guid.or(*header_guid);
            name.clone()
        };
        let (lid, port) = l.lid_port(&mut words)?;
        let is_switch = matches!(&node, Some(Some((_, Some(_))))) && !left.contains('"');
        out.push(LinkInfoPort { guid, node_name, lid, port, state, phys_state, active, peer, could_be, line: l.lineno, switch_header: is_switch, line_layout: left.contains('"') });
    }
    if out.is_empty() {
        return Err(IoError::whole(source, "no port lines: expected iblinkinfo output"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as iblinkinfo.c's format strings print what ibsim cannot: FDR10 and extended
    /// speeds, `-p` switch settings, external port numbers, a port with no peer that is up.
    #[test]
    fn speeds_settings_and_odd_ports_read_as_printed() {
        let text = "Switch: 0x0002c90000000300 leaf1:\n\
           3    1[ 1] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp) (HOQ:14 VL_Stall:7)==>       5    1[  ] \"node1 HCA-1\" ( )\n\
           3    2[  ] ==( 4X      25.78125 Gbps   Init/  LinkUp)==>       6    1[  ] \"node2 HCA-1\" (Could be 53.125 Gbps)\n\
           3    3[  ] ==( 4X      14.0625 Gbps Active/  LinkUp)==>      \"Port not available\"\n\
           3    4[  ] ==(                Down/ Disabled)==>             [  ] \"\" ( )\n";
        let p = read(text, "t", &mut Notes::default()).unwrap();
        assert_eq!(p[0].active, Some(LinkSpeed { gen: LinkGen::Fdr10, width: 4 }));
        assert_eq!((p[0].guid, p[0].node_name.as_str(), p[0].lid, p[0].port), (Some(0x0002c90000000300), "leaf1", 3, 1));
        assert_eq!((p[1].active.map(|s| s.gen), p[1].state.as_str(), p[1].could_be.gen), (Some(LinkGen::Edr), "Init", Some(LinkGen::Hdr)));
        assert_eq!((p[2].active.map(|s| s.gen), p[2].peer.is_none()), (Some(LinkGen::Fdr), true));
        assert_eq!((p[3].active, p[3].phys_state.as_str()), (None, "Disabled"));
        let mut n = Notes::default();
        assert!(read("CA: x:\n      0x01 1 1[  ] ==( 4X 10.0 Gbps Active/ LinkUp)==> 2 1[  ] \"y\" (Could be 99X)\n", "t", &mut n).unwrap_err().message.contains("Could be 99X"));
        assert!(read("", "t", &mut n).unwrap_err().message.contains("no port lines"));
    }
}
