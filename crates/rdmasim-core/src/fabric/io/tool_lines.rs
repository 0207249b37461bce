//! The lines of a real tool's output as operators save it: a UTF-8 byte-order mark, CRLF line
//! ends (a file that went through Windows), the shell prompt and command they typed, and the
//! tools' own diagnostics mixed in from stderr:
//! ```text
//! [root@mgmt ~]# ibnetdiscover
//! ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)
//! src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,3 Attr 0x11:0) bad status 110; Connection timed out
//! ibroute: iberror: failed: dump tables: linear forwarding table get failed
//! -W- Failed to get node info for direct route 0,1,3
//! ```
//! [`ToolLines`] hands a reader the rest, numbered as in the file, and counts what it set aside
//! in the import's [`Notes`]. Every reader starts from it, so they all accept the same.
use super::notes::Notes;

pub const DIAGNOSTIC: &str = "diagnostic lines (ibwarn:, iberror:, src/…: umad …) skipped";
pub const PROMPT: &str = "shell prompt lines skipped";
pub const IBDIAG_MESSAGE: &str = "ibdiagnet messages (-I-/-W-/-E-) skipped";
pub const PROGRESS: &str = "ibnetdiscover -s progress lines (DR path ... -> new ...) skipped";
pub const TERMINAL_LOG: &str = "terminal log headers (PuTTY's =~=~=) skipped";

/// The infiniband-diags and OFED commands whose output we read, and what runs them: a prompt
/// line names one of these after its prompt character.
const COMMANDS: [&str; 20] = [
    "ibnetdiscover", "iblinkinfo", "ibroute", "ibqueryerrors", "perfquery", "ibdiagnet", "dump_lfts", "dump_fts",
    "dump_lfts.sh", "ibswitches", "ibhosts", "ibstat", "ibstatus", "sudo", "cat", "smpquery", "saquery", "opensm",
    "ibqueryerrors.pl", "iblinkinfo.pl",
];

/// Why `line` (trimmed) is not data, if it is one of the lines every tool may carry.
pub fn noise(line: &str) -> Option<&'static str> {
    if is_diagnostic(line) {
        return Some(DIAGNOSTIC);
    }
    if ["-I- ", "-W- ", "-E- ", "-V- ", "-D- ", "-F- "].iter().any(|p| line.starts_with(p)) || matches!(line, "-I-" | "-W-" | "-E-") {
        return Some(IBDIAG_MESSAGE);
    }
    if line.starts_with("DR path slid") && line.contains(" -> ") {
        return Some(PROGRESS);
    }
    if line.starts_with("=~=~=") {
        return Some(TERMINAL_LOG);
    }
    if is_prompt(line) {
        return Some(PROMPT);
    }
    None
}

/// `ibwarn: ...`, `iberror: ...`, `ibroute: iberror: ...`, `src/query_smp.c:228; umad ...`.
fn is_diagnostic(line: &str) -> bool {
    if line.starts_with("ibwarn:") || line.starts_with("iberror:") || line.starts_with("ibpanic:") {
        return true;
    }
    // "<program>: iberror: ..." / "<program>: ibwarn: ...": the program name has no blank.
    if let Some((prog, rest)) = line.split_once(": ") {
        if !prog.contains(char::is_whitespace) && (rest.starts_with("iberror:") || rest.starts_with("ibwarn:") || rest.starts_with("ibpanic:")) {
            return true;
        }
    }
    // libibmad / libibnetdisc's file:line prefix: "src/query_smp.c:228; umad ...".
    let first = line.split_whitespace().next().unwrap_or("");
    if let Some((file, after)) = first.split_once(".c:") {
        return !file.is_empty() && after.trim_end_matches(';').chars().all(|c| c.is_ascii_digit()) && !after.is_empty();
    }
    false
}

/// A shell prompt and the command typed after it: `[root@mgmt ~]# ibnetdiscover -p`,
/// `user@host:~$ iblinkinfo`, `$ ibroute 12`, `sh-4.2# perfquery -x`, or a bare prompt
/// (`ufm [ mgmt-ha-active ] (config) # ` at the end of a capture: no tool's line ends so).
fn is_prompt(line: &str) -> bool {
    if line.ends_with(['#', '$']) && !line.starts_with('#') && line.contains(' ') {
        return true;
    }
    // "host ~ # iblinkinfo -P 1": a prompt with blanks in it, then one of the tools.
    for mark in [" # ", " $ ", " > ", " % "] {
        if let Some((before, after)) = line.split_once(mark) {
            let cmd = after.split_whitespace().next().unwrap_or("");
            if !before.contains('"') && COMMANDS.contains(&cmd.rsplit('/').next().unwrap_or(cmd)) {
                return true;
            }
        }
    }
    let (prompt, command) = if line.starts_with('[') {
        // "[user@host dir]#" may hold blanks inside its brackets.
        match line.find(']') {
            Some(close) => {
                let after = &line[close + 1..];
                // "[user@host dir]": a port line's "[21]" is digits, a prompt's has '@' or a blank.
                let inside = &line[1..close];
                if !inside.contains(['@', ' ']) {
                    return false;
                }
                match after.char_indices().find(|(_, c)| matches!(c, '$' | '#' | '%' | '>')) {
                    Some((i, _)) if !after[..i].contains(|c: char| c.is_whitespace() || c == '"') => (&line[..=close + i + 1], after[i + 1..].trim()),
                    _ => return false,
                }
            }
            None => return false,
        }
    } else {
        let first = line.split_whitespace().next().unwrap_or("");
        let Some(last) = first.chars().last() else { return false };
        if !matches!(last, '$' | '#' | '%' | '>') {
            return false;
        }
        (first, line[first.len()..].trim())
    };
    let body = &prompt[..prompt.len() - 1];
    let cmd = command.split_whitespace().next().unwrap_or("");
    let names_a_tool = COMMANDS.contains(&cmd.rsplit('/').next().unwrap_or(cmd));
    if prompt.starts_with('#') {
        // "#" opens a comment in some formats ("## Summary", "# Topology file"): a prompt
        // there only when a tool's name follows.
        return body.is_empty() && names_a_tool;
    }
    body.is_empty() || names_a_tool || body.contains(['@', ':', '~', ']']) || body.starts_with("sh-") || body.starts_with("bash")
}

/// The data lines of `text`, see the module comment.
pub struct ToolLines<'a, 'n> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    source: &'a str,
    notes: &'n mut Notes,
}

impl<'a, 'n> ToolLines<'a, 'n> {
    pub fn new(text: &'a str, source: &'a str, notes: &'n mut Notes) -> ToolLines<'a, 'n> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        ToolLines { lines: text.lines().enumerate(), source, notes }
    }

    /// The import's notes, for what a reader itself sets aside or assumes.
    pub fn notes(&mut self) -> &mut Notes {
        self.notes
    }

    /// Notes something a reader set aside at `line`.
    pub fn note(&mut self, what: &str, line: usize) {
        self.notes.add(self.source, what, Some(line));
    }
}

impl<'a> Iterator for ToolLines<'a, '_> {
    /// (1-based line number, the line without its CR and trailing blanks).
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        for (i, raw) in self.lines.by_ref() {
            let line = raw.trim_end();
            if let Some(what) = noise(line.trim_start()) {
                self.notes.add(self.source, what, Some(i + 1));
                continue;
            }
            return Some((i + 1, line));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_tools_print_around_their_data_is_set_aside() {
        for l in [
            "ibwarn: [31337] mad_rpc: _do_madrpc failed; dport (Lid 5)",
            "ibroute: iberror: failed: dump tables: linear forwarding table get failed",
            "src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,3 Attr 0x11:0) bad status 110; Connection timed out",
            "ibnetdisc/src/ibnetdisc.c:412; error",
        ] {
            assert_eq!(noise(l), Some(DIAGNOSTIC), "{l}");
        }
        assert_eq!(noise("DR path slid 0; dlid 0; 0,1 -> new Switch {000b8cffff004939} portnum 0 lid 0-0 \"\""), Some(PROGRESS));
        assert_eq!(noise("=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2021.06.15 12:06:05 =~=~=~=~=~=~=~=~=~=~=~="), Some(TERMINAL_LOG));
        for l in ["sat11-0101-0902-02ufm [ mgmt-ha-active ] (config) #", "[root@mgmt01 ~]# ibnetdiscover", "user@host:~$ iblinkinfo -l", "$ ibroute 12", "sh-4.2# perfquery -x", "[admin@ufm ~]$", "# ibqueryerrors", "> ibswitches", "faui36a ~ # iblinkinfo -P 1"] {
            assert_eq!(noise(l), Some(PROMPT), "{l}");
        }
        assert_eq!(noise("-W- Failed to get node info"), Some(IBDIAG_MESSAGE));
        for data in [
            "# Topology file: generated on Tue Jan  1 00:00:00 2019",
            "#",
            "## Summary: 24 nodes checked, 6 bad nodes found",
            "[1]\t\"H-0002c903000a0b0c\"[1](2c903000a0b0d) \t\t# \"node01 HCA-1\" lid 3 4xQDR",
            "Switch\t36 \"S-0002c902004876c8\"\t\t# \"ISR9024D\" base port 0 lid 1 lmc 0",
            "# Port counters: Lid 1 port 1 (CapMask: 0x1400)",
            "0x0005 001 : (Channel Adapter portguid 0x0002c90000001001: 'node1 HCA-1')",
            "          20    3[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )",
            "#down [1] \"x\"[2]",
            "[21]\"S-0c42a103008b5558\"[20]# \"MF0;sat11-0101-0903-01ib1-A:MCS8500/L16/U2\" lid 175 4xHDR",
        ] {
            assert_eq!(noise(data), None, "{data}");
        }
    }

    #[test]
    fn bom_and_crlf_leave_the_lines_numbered_as_in_the_file() {
        let mut notes = Notes::default();
        let text = "\u{feff}$ ibroute 3\r\nUnicast lids\r\n\r\nibwarn: x\r\n0x0001 001\r\n";
        let got: Vec<_> = ToolLines::new(text, "f", &mut notes).collect();
        assert_eq!(got, vec![(2, "Unicast lids"), (3, ""), (5, "0x0001 001")]);
        assert_eq!((notes.count(PROMPT), notes.count(DIAGNOSTIC)), (1, 1));
    }
}
