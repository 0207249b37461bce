//! ibsim's `net` topology format, read and written, so a real OpenSM (over ibsim) can route
//! the fabrics we generate. ibsim reads ibnetdiscover's default output as a `net` file, so the
//! reader here reads both ([`super::ibnetdiscover::read`] is this reader in its strict mode).
//!
//! ```text
//! switchguid=0x0002c90000000300          # GUID of the next switch (ibsim counts on from it)
//! Switch  8 "leaf1"     # "leaf1" base port 0 lid 3 lmc 0
//! [1]     "node1 HCA-1"[1]   # "node1 HCA-1" lid 5 4xQDR
//!
//! caguid=0x0002c90000001000
//! Ca      2 "node1 HCA-1"    # "node1 HCA-1"
//! [1](2c90000001001)  "leaf1"[1]   # lid 5 lmc 0 "leaf1" lid 3 4xQDR
//! ```
//! As ibsim (sim_net.c) reads it: a node's header gives its port count and id (ibnetdiscover's
//! `"S-<guid>"`, or any unique string), then an optional `# "description"`; GUIDs come from the
//! `switchguid=` / `caguid=` counters (a switch takes one, a CA one plus one per port); a
//! port's trailing `lid N <width>x<speed>` (or `w=`/`s=`/`e=` options, or the file's `width=`,
//! `speed=`, `extspeed=` defaults) are the widths and speeds the port enables, and a link
//! trains to the best both ends enable. A port line commented out as `#down [1] ...` is our
//! extension: a link that is down (ibsim skips it, so its ports are unconnected).
use super::discovered::{Cable, Discovered, Enabled, NodeRec, NodeType, SpeedClaim};
use super::text::{between, compact, lid_in_range, parse_c_number, parse_gen, parse_hex, parse_width, port_in_range, SPEEDS_EXPECTED};
use super::IoError;
use crate::fabric::graph::{FabricGraph, LinkState};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use std::fmt::Write;

/// How strictly port lines are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// ibsim's `net`: speeds are what ports enable; a link takes the best both allow.
    Net,
    /// ibnetdiscover's output: speeds are what links trained to; every port line has one and
    /// both ends must agree.
    Ibnetdiscover,
}

/// ibsim's defaults (sim.h): ports enable 4x SDR; CA GUIDs count from 0x100000, switch GUIDs
/// from 0x200000.
const DEFAULT_ENABLED: Enabled = Enabled { width: 2, speed: 1, ext: 0, fdr10: false };
const FIRST_CA_GUID: u64 = 0x100000;
const FIRST_SWITCH_GUID: u64 = 0x200000;
/// Our mark for a link that is down: its port line, commented out for ibsim (which leaves
/// the ports unconnected, as OpenSM sees a link that is down) and read back by us.
const DOWN: &str = "#down ";
/// ibsim's NODEIDLEN is 65 bytes with the terminating NUL.
const MAX_ID_LEN: usize = 64;

/// Reads an ibsim `net` file (or ibnetdiscover output, which ibsim reads as one).
pub fn read(text: &str, source: &str) -> Result<FabricGraph, IoError> {
    parse(text, source, Mode::Net)?.build()
}

/// The enabled masks ibsim gives a port whose line says `<width>x<speed>` (sim_net.c's
/// parse_port_link_width_and_speed): a speed enables the slower ones too.
fn enabled_from(width: u8, gen: LinkGen, base: Enabled) -> Enabled {
    let width = match width {
        12 => 1 | 2 | 8,
        8 => 4,
        4 => 1 | 2,
        2 => 16,
        _ => 1,
    };
    let (speed, ext, fdr10) = match gen {
        LinkGen::Sdr => (1, base.ext, base.fdr10),
        LinkGen::Ddr => (3, base.ext, base.fdr10),
        LinkGen::Qdr => (7, base.ext, base.fdr10),
        LinkGen::Fdr10 => (7, base.ext, true),
        LinkGen::Fdr => (7, 1, true),
        LinkGen::Edr => (7, 3, true),
        LinkGen::Hdr => (7, 7, true),
    };
    Enabled { width, speed, ext, fdr10 }
}

struct Parser<'a> {
    d: Discovered,
    mode: Mode,
    enabled: Enabled,
    next_switch_guid: u64,
    next_ca_guid: u64,
    source: &'a str,
}

impl Parser<'_> {
    fn err(&self, line: usize, msg: impl Into<String>) -> IoError {
        IoError::at(self.source, line, msg)
    }

    /// `name=value` settings: the value as C's strtoul reads it (digits up to the first other
    /// character, so ibnetdiscover's `switchguid=0x2c9...(2c9...)` is its GUID).
    fn setting(&self, line: &str, lineno: usize) -> Result<(char, u64), IoError> {
        let Some(at) = line.find(['=', '+']) else {
            return Err(self.err(lineno, format!("{line:?}: expected name=value")));
        };
        let value = line[at + 1..].trim_start();
        let hex = value.starts_with("0x") || value.starts_with("0X");
        let body = if hex { &value[2..] } else { value };
        let end = body.find(|c: char| if hex { !c.is_ascii_hexdigit() } else { !c.is_ascii_digit() }).unwrap_or(body.len());
        let digits = &body[..end];
        let v = if hex { parse_hex(digits) } else { digits.parse().ok() };
        let Some(v) = v else {
            return Err(self.err(lineno, format!("{line:?}: expected a number after '{}'", &line[at..=at])));
        };
        Ok((line[at..].chars().next().unwrap_or('='), v))
    }

    fn set_guid_base(&mut self, line: &str, lineno: usize, switch: bool) -> Result<(), IoError> {
        let (op, v) = self.setting(line, lineno)?;
        let base = if switch { &mut self.next_switch_guid } else { &mut self.next_ca_guid };
        // `+n` counts from the first GUID of its kind, as ibsim's relative form.
        let first = if switch { FIRST_SWITCH_GUID } else { FIRST_CA_GUID };
        *base = if op == '+' { first.wrapping_add(v) } else { v };
        Ok(())
    }

    fn set_mask(&mut self, line: &str, lineno: usize, what: &str, max: u64) -> Result<(), IoError> {
        let (_, v) = self.setting(line, lineno)?;
        if v > max || (what != "extspeed" && v == 0) {
            return Err(self.err(lineno, format!("{what}={v}: expected an enabled-{what} mask 1..={max}")));
        }
        match what {
            "width" => self.enabled.width = v as u8,
            "speed" => self.enabled.speed = v as u8,
            _ => self.enabled.ext = v as u8,
        }
        Ok(())
    }

    /// `Switch 8 "id" # "desc" base port 0 lid 3 lmc 0` or `Ca 2 "id" # "desc"`.
    fn header(&mut self, line: &str, lineno: usize, kind: NodeType) -> Result<usize, IoError> {
        let keyword_len = line.find(|c: char| c.is_whitespace() || c.is_ascii_digit()).unwrap_or(line.len());
        let rest = &line[keyword_len..];
        let count = rest.split_whitespace().next().unwrap_or("");
        let Some(num_ports) = parse_c_number(count).and_then(port_in_range) else {
            return Err(self.err(lineno, format!("{count:?} ports: expected a port count 1..=254 after {:?}", &line[..keyword_len])));
        };
        let Some((id, after)) = between(rest, '"', '"') else {
            return Err(self.err(lineno, "expected a quoted node id, as in Switch 8 \"leaf1\""));
        };
        if id.is_empty() || id.len() > MAX_ID_LEN {
            return Err(self.err(lineno, format!("node id {id:?}: expected 1..={MAX_ID_LEN} characters")));
        }
        let comment = after.split_once('#').map(|c| c.1.trim_start()).unwrap_or("");
        let description = match comment.strip_prefix('"') {
            Some(c) => c.split('"').next().unwrap_or(""),
            None => "",
        };
        let name = if description.is_empty() { id } else { description };
        let guid = match kind {
            NodeType::Switch => {
                let g = self.next_switch_guid;
                self.next_switch_guid = g.wrapping_add(1);
                g
            }
            NodeType::Ca => {
                let g = self.next_ca_guid;
                self.next_ca_guid = g.wrapping_add(u64::from(num_ports) + 1);
                g
            }
        };
        let mut rec = NodeRec::new(kind, name.to_string(), guid, num_ports, lineno);
        if kind == NodeType::Switch {
            if let Some(lid) = word_after(comment, "lid") {
                rec.lid = self.lid(lid, lineno)?;
            }
        }
        if self.d.keys.contains_key(id) {
            return Err(self.err(lineno, format!("node id {id:?} is defined twice (expected unique ids)")));
        }
        let index = self.d.nodes.len();
        self.d.keys.insert(id.to_string(), index);
        self.d.nodes.push(rec);
        Ok(index)
    }

    fn lid(&self, s: &str, lineno: usize) -> Result<u16, IoError> {
        parse_c_number(s).and_then(lid_in_range).ok_or_else(|| self.err(lineno, format!("LID {s:?}: expected 0..=0xBFFF")))
    }

    /// `[1](portguid) "peer"[3](peerguid) w=3 # lid 5 lmc 0 "peer desc" lid 3 4xQDR`.
    fn port_line(&mut self, node: usize, line: &str, lineno: usize, up: bool) -> Result<(), IoError> {
        let expected = "expected [port] \"peer\"[peer port], as in [1] \"leaf1\"[3]";
        let Some((num, rest)) = between(line, '[', ']') else {
            return Err(self.err(lineno, expected));
        };
        let Some(port) = parse_c_number(num.trim()).and_then(port_in_range) else {
            return Err(self.err(lineno, format!("port {num:?}: expected 1..=254")));
        };
        let mut rest = rest;
        if let Some(r) = rest.strip_prefix('(') {
            let Some((guid, r)) = r.split_once(')') else {
                return Err(self.err(lineno, "expected (port GUID) to close with ')'"));
            };
            let Some(guid) = parse_hex(guid) else {
                return Err(self.err(lineno, format!("port GUID {guid:?}: expected hex digits")));
            };
            self.d.nodes[node].port_guids.insert(port, guid);
            rest = r;
        }
        let Some((peer, mut rest)) = between(rest, '"', '"') else {
            return Err(self.err(lineno, expected));
        };
        // ibsim's default when the peer port is left out.
        let mut peer_port = 1;
        if let Some(r) = rest.strip_prefix('[') {
            let Some((num, r)) = r.split_once(']') else {
                return Err(self.err(lineno, expected));
            };
            peer_port = parse_c_number(num.trim()).and_then(port_in_range).ok_or_else(|| self.err(lineno, format!("peer port {num:?}: expected 1..=254")))?;
            rest = r;
        }
        let (options, tail) = rest.split_once('#').unwrap_or((rest, ""));
        let kind = self.d.nodes[node].kind;
        let mut enabled = self.enabled;
        for token in options.split_whitespace() {
            let Some((key, value)) = token.split_once('=') else { continue };
            // ibsim takes the letter just before '=' (so "w=3"); others it ignores.
            let Some(v) = parse_c_number(value) else {
                return Err(self.err(lineno, format!("option {token:?}: expected a number")));
            };
            match key.chars().last() {
                Some('w') if (1..=31).contains(&v) => enabled.width = v as u8,
                Some('s') if v <= 7 => enabled.speed = if v == 0 { 4 } else { v as u8 },
                Some('e') if v <= 15 => enabled.ext = v as u8,
                Some(c @ ('w' | 's' | 'e')) => return Err(self.err(lineno, format!("option {c}={v}: out of range (expected w=1..31, s=0..7, e=0..15)"))),
                _ => {}
            }
        }
        let tail = tail.trim();
        if kind == NodeType::Ca {
            // A CA's own LID leads its tail: "# lid 5 lmc 0 ...".
            if let Some(lid) = tail.strip_prefix("lid").and_then(|t| t.split_whitespace().next()) {
                let lid = self.lid(lid, lineno)?;
                self.d.nodes[node].port_lids.insert(port, (lid, lineno));
            }
        }
        let link = tail.rsplit('"').next().unwrap_or("");
        let mut active = None;
        if let Some(at) = link.find("lid") {
            let mut words = link[at..].split_whitespace().skip(2);
            if let Some(w) = words.next().filter(|w| *w != "lmc") {
                let Some((width, gen)) = w.split_once(['x', 'X']).and_then(|(n, g)| Some((parse_width(&format!("{n}x"))?, parse_gen(g)?))) else {
                    return Err(self.err(lineno, format!("link {w:?}: expected <width>x<speed>, width 1, 2, 4, 8 or 12, speed {SPEEDS_EXPECTED}")));
                };
                active = Some(LinkSpeed { gen, width });
                enabled = enabled_from(width, gen, enabled);
            }
        }
        let speed = match (self.mode, active) {
            (Mode::Ibnetdiscover, Some(a)) => SpeedClaim::Active(a),
            (Mode::Ibnetdiscover, None) => return Err(self.err(lineno, "expected the link's width and speed at the end, as in # \"leaf1\" lid 3 4xQDR")),
            (Mode::Net, _) => SpeedClaim::Enabled(enabled),
        };
        self.d.cables.push(Cable { node, port, peer_key: peer.to_string(), peer_port, speed, up, line: lineno });
        Ok(())
    }

}

/// The word after `key` in `s`, if `key` is one of its words.
fn word_after<'s>(s: &'s str, key: &str) -> Option<&'s str> {
    let mut words = s.split_whitespace();
    words.by_ref().find(|w| *w == key)?;
    words.next()
}

/// Reads node blocks into what each port says (shared with ibnetdiscover's default format).
pub(crate) fn parse(text: &str, source: &str, mode: Mode) -> Result<Discovered, IoError> {
    let mut p = Parser {
        d: Discovered::new(source, LinkSpeed { gen: LinkGen::Sdr, width: 4 }),
        mode,
        enabled: DEFAULT_ENABLED,
        next_switch_guid: FIRST_SWITCH_GUID,
        next_ca_guid: FIRST_CA_GUID,
        source,
    };
    let mut block: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = raw.trim_end();
        if let (Some(node), true) = (block, line.starts_with('[')) {
            p.port_line(node, line, lineno, true)?;
            continue;
        }
        if let (Some(node), Some(port_line)) = (block, line.strip_prefix(DOWN)) {
            p.port_line(node, port_line, lineno, false)?;
            continue;
        }
        if line.starts_with('@') {
            return Err(p.err(lineno, "port aliases (@) are not supported: expected [port] \"peer\"[port]"));
        }
        if line.starts_with('#') {
            continue;
        }
        block = None;
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("Switch") {
            block = Some(p.header(t, lineno, NodeType::Switch)?);
        } else if t.starts_with("Hca") || t.starts_with("Ca") {
            block = Some(p.header(t, lineno, NodeType::Ca)?);
        } else if t.starts_with("Rt") {
            return Err(p.err(lineno, "routers are not modelled: expected Switch or Ca"));
        } else if t.starts_with("switchguid") {
            p.set_guid_base(t, lineno, true)?;
        } else if t.starts_with("hcaguids") || t.starts_with("caguid") {
            p.set_guid_base(t, lineno, false)?;
        } else if t.starts_with("rtguid") || t.starts_with("vendid") || t.starts_with("devid") || t.starts_with("sysimgguid") {
            p.setting(t, lineno)?;
        } else if t.starts_with("width") {
            p.set_mask(t, lineno, "width", 31)?;
        } else if t.starts_with("speed") {
            p.set_mask(t, lineno, "speed", 7)?;
        } else if t.starts_with("extspeed") {
            p.set_mask(t, lineno, "extspeed", 15)?;
        } else if let Some(cmd) = t.strip_prefix("do") {
            let cmd = cmd.trim_start();
            // Console commands run while ibsim parses, before links exist (an Unlink there
            // fails); the others (error rates, GUID changes) do not change the topology.
            let _ = cmd;
        } else if t.starts_with("include") || t.starts_with("module") {
            return Err(p.err(lineno, "include and module are not supported: expected one self-contained file"));
        } else if t.starts_with("pdebug") {
        } else {
            return Err(p.err(lineno, format!("{t:?}: expected a node (Switch, Ca, Hca), a port line after one, a setting (switchguid=, caguid=, width=, speed=, ...) or a # comment")));
        }
    }
    Ok(p.d)
}

/// Why a graph cannot be written as a `net` file ibsim reads back the same.
fn writable_name(name: &str) -> Result<(), IoError> {
    if name.is_empty() || name.len() > MAX_ID_LEN || name.contains(['"', '@', '=', '#', '\n', '\r']) {
        return Err(IoError::whole("ibsim net", format!("node name {name:?}: expected 1..={MAX_ID_LEN} characters without \" @ = # or newlines (ibsim's node ids)")));
    }
    Ok(())
}

/// Writes `g` as an ibsim `net` file in ibnetdiscover's layout: GUIDs, LIDs and every link's
/// width and speed are kept (each end enables exactly its link's), down links are
/// commented out (`#down [port] ...`). Node names are the ids.
pub fn write(g: &FabricGraph) -> Result<String, IoError> {
    let mut out = String::new();
    out.push_str("# ibsim net file written by rdmasim (ibsim -s <file>); ibnetdiscover's layout.\n");
    for node in &g.nodes {
        writable_name(&node.name)?;
        let switch = node.is_switch();
        out.push('\n');
        if switch {
            let _ = writeln!(out, "switchguid=0x{:016x}", node.guid);
            let _ = writeln!(out, "Switch\t{} \"{}\"\t\t# \"{}\" base port 0 lid {} lmc 0", node.num_ports, node.name, node.name, node.lid);
        } else {
            let _ = writeln!(out, "caguid=0x{:016x}", node.guid);
            let _ = writeln!(out, "Ca\t{} \"{}\"\t\t# \"{}\"", node.num_ports, node.name, node.name);
        }
        for p in node.ports() {
            let port = &g.ports[p];
            let Some(l) = port.link else { continue };
            let link = &g.links[l];
            let peer = &g.ports[link.other(p)];
            let peer_node = &g.nodes[peer.node];
            let peer_lid = g.lid_of_port(link.other(p));
            if link.state == LinkState::Down {
                out.push_str(DOWN);
            }
            if switch {
                let _ = writeln!(out, "[{}]\t\"{}\"[{}]\t\t# \"{}\" lid {} {}", port.num, peer_node.name, peer.num, peer_node.name, peer_lid, compact(link.speed));
            } else {
                let _ = writeln!(out, "[{}]({:x}) \t\"{}\"[{}]\t\t# lid {} lmc 0 \"{}\" lid {} {}", port.num, port.guid, peer_node.name, peer.num, port.lid, peer_node.name, peer_lid, compact(link.speed));
            }
        }
    }
    Ok(out)
}
