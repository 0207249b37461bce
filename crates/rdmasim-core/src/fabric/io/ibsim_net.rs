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
use super::discovered::{Cable, Discovered, Enabled, NodeRec, NodeType, PeerHint, SpeedClaim};
use super::notes::Notes;
use super::text::{between, compact, lid_in_range, parse_c_number, parse_gen, parse_hex, parse_width, port_in_range, SPEEDS_EXPECTED};
use super::tool_lines::ToolLines;
use super::{ImportOptions, IoError};
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
pub fn read(text: &str, source: &str, notes: &mut Notes) -> Result<FabricGraph, IoError> {
    parse(text, source, Mode::Net, &ImportOptions::default(), notes)?.build(notes)
}

/// Notes the node-block reader may add.
pub const NO_SPEED: &str = "links with no width and speed on their line (the --default-speed taken)";
pub const UNKNOWN_SPEED: &str = "links whose width or speed the tool printed as unknown (??, ???; the --default-speed taken)";
pub const SECTION_HEADER: &str = "section headers (Chassis N, Non-Chassis Nodes) skipped";
pub const UNASSIGNED_LID: &str = "ports with LID 65535 (not yet assigned by the SM; given one after the file's own)";
pub const ROUTER: &str = "router nodes and their links, not modelled, skipped";

/// The GUID in ibnetdiscover's node ids: "S-0002c90200402bd8", "H-…", "R-…".
fn guid_of_id(id: &str) -> Option<(NodeType, u64)> {
    let (kind, hex) = match id.split_at_checked(2)? {
        ("S-", h) => (NodeType::Switch, h),
        ("H-", h) => (NodeType::Ca, h),
        _ => return None,
    };
    parse_hex(hex).map(|g| (kind, g))
}

/// Whether node-block text is a real tool's (ibnetdiscover's, or ibdiagnet's copy of its
/// format) rather than a hand-written ibsim net: its header, or GUID-named node ids.
pub(crate) fn looks_discovered(text: &str) -> bool {
    text.contains("# Topology file:") || text.lines().map(str::trim_start).filter(|l| l.starts_with("Switch") || l.starts_with("Ca") || l.starts_with("Rt")).take(3).any(|l| {
        between(l, '"', '"').is_some_and(|(id, _)| guid_of_id(id).is_some() || id.starts_with("R-"))
    })
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
        // ibsim's masks stop at HDR (sim.h); NDR and XDR set the next bits of the extended
        // mask as PortInfo defines them (8 and 32).
        LinkGen::Ndr => (7, 15, true),
        LinkGen::Xdr => (7, 47, true),
    };
    Enabled { width, speed, ext, fdr10 }
}

struct Parser<'a> {
    d: Discovered,
    mode: Mode,
    enabled: Enabled,
    next_switch_guid: u64,
    next_ca_guid: u64,
    /// What a link with no width and speed on its line is taken to be (ibnetdiscover before
    /// 1.4 printed none; "??"/"???" when it could not read them).
    default_speed: LinkSpeed,
    /// Lines with LID 65535 (unassigned), noted once the file is read.
    unassigned_lids: Vec<usize>,
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
        let guid = match (guid_of_id(id), kind) {
            // ibnetdiscover's id is the node GUID; `switchguid=` may be the chassis' (line
            // cards of a director share it), so the id decides.
            (Some((_, g)), NodeType::Switch) => {
                self.next_switch_guid = g.wrapping_add(1);
                g
            }
            (Some((_, g)), NodeType::Ca) => {
                self.next_ca_guid = g.wrapping_add(u64::from(num_ports) + 1);
                g
            }
            (None, _) => self.counted_guid(kind, num_ports),
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

    /// ibsim's GUID for a node whose id is not one: the next of its kind's counter.
    fn counted_guid(&mut self, kind: NodeType, num_ports: u16) -> u64 {
        match kind {
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
        }
    }

    /// A LID; ibnetdiscover's 65535 (0xFFFF, a port the SM has not given a LID yet) is none,
    /// and noted.
    fn lid(&mut self, s: &str, lineno: usize) -> Result<u16, IoError> {
        let n = parse_c_number(s);
        if n == Some(0xFFFF) && self.mode == Mode::Ibnetdiscover {
            self.unassigned_lids.push(lineno);
            return Ok(0);
        }
        n.and_then(lid_in_range).ok_or_else(|| self.err(lineno, format!("LID {s:?}: expected 0..=0xBFFF")))
    }

    /// What may follow a port number: ibnetdiscover's `[ext 3]` (external port, with -g),
    /// `(port GUID)`, and ibdiagnet's labels (`(1/1/1)`, `(B184D0F0/0/0/1)`). Returns the
    /// GUID, if one of the groups is hex, and the rest.
    fn port_suffixes<'l>(&self, mut rest: &'l str, lineno: usize) -> Result<(Option<u64>, &'l str), IoError> {
        let mut guid = None;
        loop {
            let r = rest.trim_start_matches(' ');
            if let Some(inner) = r.strip_prefix("[ext") {
                let Some((_, r)) = inner.split_once(']') else {
                    return Err(self.err(lineno, "expected [ext N] to close with ']'"));
                };
                rest = r;
            } else if let Some(inner) = r.strip_prefix('(') {
                let Some((group, r)) = inner.split_once(')') else {
                    return Err(self.err(lineno, "expected (port GUID) to close with ')'"));
                };
                match parse_hex(group.trim()) {
                    // A bare number is ibdiagnet's port label ("(65)"); a GUID has more digits.
                    Some(g) if group.trim().len() > 4 => guid = Some(g),
                    Some(_) => {}
                    None if group.contains('/') || group.chars().all(|c| c.is_ascii_alphanumeric()) => {}
                    None => return Err(self.err(lineno, format!("port GUID {group:?}: expected hex digits"))),
                }
                rest = r;
            } else {
                return Ok((guid, rest));
            }
        }
    }

    /// `[1](portguid) "peer"[3](peerguid) w=3 # lid 5 lmc 0 "peer desc" lid 3 4xQDR`.
    fn port_line(&mut self, node: usize, line: &str, lineno: usize, up: bool, notes: &mut Notes) -> Result<(), IoError> {
        let expected = "expected [port] \"peer\"[peer port], as in [1] \"leaf1\"[3]";
        let Some((num, rest)) = between(line, '[', ']') else {
            return Err(self.err(lineno, expected));
        };
        let Some(port) = parse_c_number(num.trim()).and_then(port_in_range) else {
            return Err(self.err(lineno, format!("port {num:?}: expected 1..=254")));
        };
        let (guid, rest) = self.port_suffixes(rest, lineno)?;
        if let Some(guid) = guid {
            self.d.nodes[node].port_guids.insert(port, guid);
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
        let (peer_guid, rest) = self.port_suffixes(rest, lineno)?;
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
        let mut peer_lid = 0;
        let mut unknown = false;
        if let Some(at) = link.find("lid") {
            let mut words = link[at..].split_whitespace().skip(1);
            if let Some(l) = words.next() {
                peer_lid = self.lid(l, lineno)?;
            }
            if let Some(w) = words.next().filter(|w| *w != "lmc" && !w.contains('=')) {
                match w.split_once(['x', 'X']).and_then(|(n, g)| Some((parse_width(&format!("{n}x"))?, parse_gen(g)?))) {
                    Some((width, gen)) => {
                        active = Some(LinkSpeed { gen, width });
                        enabled = enabled_from(width, gen, enabled);
                    }
                    // ibnetdiscover prints "??" for a width and "???" for a speed it cannot name.
                    None if self.mode == Mode::Ibnetdiscover && w.contains("??") => unknown = true,
                    None => return Err(self.err(lineno, format!("link {w:?}: expected <width>x<speed>, width 1, 2, 4, 8 or 12, speed {SPEEDS_EXPECTED}"))),
                }
            }
        }
        let speed = match (self.mode, active) {
            (Mode::Ibnetdiscover, Some(a)) => SpeedClaim::Active(a),
            (Mode::Ibnetdiscover, None) => {
                notes.add(self.source, if unknown { UNKNOWN_SPEED } else { NO_SPEED }, Some(lineno));
                SpeedClaim::Active(self.default_speed)
            }
            (Mode::Net, _) => SpeedClaim::Enabled(enabled),
        };
        let peer_hint = match (self.mode, guid_of_id(peer)) {
            (Mode::Ibnetdiscover, Some((kind, guid))) => {
                let name = tail.rsplit('"').nth(1).unwrap_or(peer).to_string();
                Some(PeerHint { kind, guid, name, lid: peer_lid, port_guid: peer_guid })
            }
            (Mode::Ibnetdiscover, None) if peer.starts_with("R-") => {
                notes.add(self.source, ROUTER, Some(lineno));
                return Ok(());
            }
            _ => None,
        };
        self.d.cables.push(Cable { node, port, peer_key: peer.to_string(), peer_port, speed, up, line: lineno, peer_hint });
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
pub(crate) fn parse(text: &str, source: &str, mode: Mode, opts: &ImportOptions, notes: &mut Notes) -> Result<Discovered, IoError> {
    let mut p = Parser {
        d: Discovered::new(source, LinkSpeed { gen: LinkGen::Sdr, width: 4 }),
        mode,
        enabled: DEFAULT_ENABLED,
        next_switch_guid: FIRST_SWITCH_GUID,
        next_ca_guid: FIRST_CA_GUID,
        default_speed: opts.default_speed,
        unassigned_lids: Vec::new(),
        source,
    };
    // The node whose port lines follow; a router's (skipped) is Some(None).
    let mut block: Option<Option<usize>> = None;
    let mut lines = ToolLines::new(text, source, notes);
    while let Some((lineno, line)) = lines.next() {
        let t = line.trim_start();
        let port_line = t.starts_with('[').then_some((t, true)).or_else(|| line.strip_prefix(DOWN).map(|l| (l, false)));
        if let (Some(node), Some((l, up))) = (block, port_line) {
            match node {
                Some(node) => p.port_line(node, l, lineno, up, lines.notes())?,
                None => lines.note(ROUTER, lineno),
            }
            continue;
        }
        if line.starts_with('@') {
            return Err(p.err(lineno, "port aliases (@) are not supported: expected [port] \"peer\"[port]"));
        }
        if t.starts_with('#') {
            continue;
        }
        block = None;
        if t.is_empty() {
            continue;
        }
        if t.starts_with("Switch") {
            block = Some(Some(p.header(t, lineno, NodeType::Switch)?));
        } else if t.starts_with("Hca") || t.starts_with("Ca") {
            block = Some(Some(p.header(t, lineno, NodeType::Ca)?));
        } else if t.starts_with("Rt") && mode == Mode::Ibnetdiscover {
            lines.note(ROUTER, lineno);
            block = Some(None);
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
        } else if t.starts_with("do") {
            // Console commands run while ibsim parses, before links exist (an Unlink there
            // fails); the others (error rates, GUID changes) do not change the topology.
        } else if t.starts_with("include") || t.starts_with("module") {
            return Err(p.err(lineno, "include and module are not supported: expected one self-contained file"));
        } else if t.starts_with("pdebug") {
        } else if mode == Mode::Ibnetdiscover && (t == "Non-Chassis Nodes" || t.strip_prefix("Chassis ").is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))) {
            // ibnetdiscover -g groups nodes under these lines (out_chassis, "Non-Chassis Nodes").
            lines.note(SECTION_HEADER, lineno);
        } else {
            return Err(p.err(lineno, format!("{t:?}: expected a node (Switch, Ca, Hca), a port line after one, a setting (switchguid=, caguid=, width=, speed=, ...) or a # comment")));
        }
    }
    for &l in &p.unassigned_lids {
        notes.add(source, UNASSIGNED_LID, Some(l));
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
    write_blocks(g, false, &mut out)?;
    Ok(out)
}

/// The node blocks of `g`, its nodes named by their names (an ibsim net) or, as ibnetdiscover
/// names them, by their GUIDs (`S-…`, `H-…`; [`super::ibnetdiscover::write`]).
pub(crate) fn write_blocks(g: &FabricGraph, guid_ids: bool, out: &mut String) -> Result<(), IoError> {
    let id = |n: &crate::fabric::graph::Node| if guid_ids { format!("{}-{:016x}", if n.is_switch() { "S" } else { "H" }, n.guid) } else { n.name.clone() };
    for node in &g.nodes {
        if !guid_ids {
            writable_name(&node.name)?;
        }
        let switch = node.is_switch();
        out.push('\n');
        if switch {
            let _ = writeln!(out, "switchguid=0x{:016x}", node.guid);
            let _ = writeln!(out, "Switch\t{} \"{}\"\t\t# \"{}\" base port 0 lid {} lmc 0", node.num_ports, id(node), node.name, node.lid);
        } else {
            let _ = writeln!(out, "caguid=0x{:016x}", node.guid);
            let _ = writeln!(out, "Ca\t{} \"{}\"\t\t# \"{}\"", node.num_ports, id(node), node.name);
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
                let _ = writeln!(out, "[{}]\t\"{}\"[{}]\t\t# \"{}\" lid {} {}", port.num, id(peer_node), peer.num, peer_node.name, peer_lid, compact(link.speed));
            } else {
                let _ = writeln!(out, "[{}]({:x}) \t\"{}\"[{}]\t\t# lid {} lmc 0 \"{}\" lid {} {}", port.num, port.guid, id(peer_node), peer.num, port.lid, peer_node.name, peer_lid, compact(link.speed));
            }
        }
    }
    Ok(())
}
