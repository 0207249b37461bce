//! Real clusters' files (tests/data/real/, sources in its SOURCES.md): every one is read as
//! an operator would hand it over, and the counts checked by hand are asserted: switches,
//! CAs, hosts, links by speed, degraded links, what the readers set aside; for counters, the
//! ports flagged. Where the importer's rule for hosts differs from a collector's count,
//! the comment says why.
mod common;
use common::fuzz::mutate;
use rdmasim_core::apps::doctor::request::{run, DoctorRequest};
use rdmasim_core::fabric::io::notes::Notes;
use rdmasim_core::fabric::io::{discovered, ibsim_net, lft_table, linkinfo_fabric, tool_lines, ImportOptions};
use rdmasim_core::apps::fabric_report::FabricReport;
use std::path::{Path, PathBuf};

fn real(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(name)
}

/// What a topology file's import says, in the counts asserted.
#[derive(Debug, PartialEq)]
struct Counts {
    switches: usize,
    cas: usize,
    hosts: usize,
    /// Hosts that are one HCA named by its GUID (a default description).
    hosts_by_guid: usize,
    links: Vec<(&'static str, usize)>,
    degraded: usize,
}

fn import(name: &str) -> FabricReport {
    FabricReport::import(&real(name), None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn counts(r: &mut FabricReport) -> Counts {
    let s = r.summary();
    let mut links: Vec<(&'static str, usize)> = s.links_by_speed.iter().map(|(k, v)| (&*k.clone().leak(), *v)).collect();
    links.sort();
    Counts { switches: s.switches, cas: s.hcas, hosts: s.hosts, hosts_by_guid: s.hosts_by_guid, links, degraded: s.degraded_links.len() }
}

fn c(switches: usize, cas: usize, hosts: usize, hosts_by_guid: usize, links: &[(&'static str, usize)], degraded: usize) -> Counts {
    let mut links = links.to_vec();
    links.sort();
    Counts { switches, cas, hosts, hosts_by_guid, links, degraded }
}

fn noted(r: &FabricReport, what: &str) -> usize {
    r.notes.count(what)
}

#[test]
fn ibnetdiscover_default_format_files_import_with_their_counts() {
    let cases = [
        // The man page's example: four HCAs with their default description, so four hosts
        // (one per HCA, named by GUID); two links whose ends report 4xSDR and 1xSDR.
        ("ibnetdiscover/jabl-ibtopotool-1-manpage-2007-voltaire-sdr.txt", c(2, 4, 4, 4, &[("1X SDR", 2), ("4X SDR", 5)], 2)),
        ("ibnetdiscover/jabl-ibtopotool-2-ibm-2009-sdr.txt", c(1, 2, 2, 0, &[("4X SDR", 2)], 0)),
        // 10 cables, 3 of them loopbacks (left out).
        ("ibnetdiscover/jabl-ibtopotool-3-nvidia-kb-2016-loopbacks-smp-error.txt", c(2, 6, 5, 0, &[("4X EDR", 1), ("4X FDR", 3), ("4X QDR", 2), ("4X SDR", 1)], 0)),
        ("ibnetdiscover/jabl-ibtopotool-4-oracle-sun-dcs36-qdr.txt", c(1, 1, 1, 0, &[("4X QDR", 1)], 0)),
        ("ibnetdiscover/loginoff-infiniband-topology-2014-qdr-fdr10.txt", c(8, 144, 144, 0, &[("4X FDR10", 47), ("4X QDR", 145)], 0)),
        // 400 switches (MCS8500 line cards and spines, MQM8700s), 280 named hosts of up to 8
        // HCAs each and 103 HCAs with "MT4123 ConnectX6   Mellanox Technologies".
        ("ibnetdiscover/mellanox-ufm-sdk-ndt-director-putty-2021-hdr-mcs8500-crlf.txt", c(400, 2328, 383, 103, &[("4X EDR", 4), ("4X HDR", 8719)], 0)),
        ("ibnetdiscover/mellanox-ufm-sdk-selene-storage-2021-hdr-edr.txt", c(160, 1247, 629, 1, &[("4X EDR", 320), ("4X HDR", 2966)], 0)),
        // 16 cables, 2 loopbacks; the Aggregation Node is a host of its own.
        ("ibnetdiscover/mellanox-ufm-sdk-small-topo-file-2021.txt", c(2, 13, 6, 1, &[("4X EDR", 2), ("4X FDR", 11), ("4X HDR", 1)], 0)),
        // 122 hostnames; 69 "MT4129 ConnectX7" HCAs, 40 Aggregation Nodes and 3 "localhost
        // HCA-n" (no evidence they share a machine) are one host each: 121 + 112.
        ("ibnetdiscover/nvidia-topograph-example-2025-ndr.txt", c(40, 582, 233, 112, &[("4X NDR", 1114)], 0)),
        ("ibnetdiscover/nvidia-topograph-example-bad-2025-single-ca.txt", c(0, 1, 1, 0, &[], 0)),
        ("ibdiagnet/gary-minghuili-ibdiagnet2-20250315.ibnetdiscover", c(9, 263, 39, 7, &[("4X NDR", 271)], 0)),
        ("ibdiagnet/gary-minghuili-ibdiagnet2-20250331.ibnetdiscover", c(9, 263, 39, 7, &[("4X NDR", 271)], 0)),
    ];
    for (name, want) in cases {
        assert_eq!(counts(&mut import(name)), want, "{name}");
    }
    let man = import("ibnetdiscover/jabl-ibtopotool-1-manpage-2007-voltaire-sdr.txt");
    assert_eq!((noted(&man, ibsim_net::SECTION_HEADER), noted(&man, discovered::ENDS_DISAGREE)), (1, 2));
    let kb = import("ibnetdiscover/jabl-ibtopotool-3-nvidia-kb-2016-loopbacks-smp-error.txt");
    assert_eq!((noted(&kb, tool_lines::DIAGNOSTIC), noted(&kb, discovered::LOOPBACK)), (1, 3));
    let director = import("ibnetdiscover/mellanox-ufm-sdk-ndt-director-putty-2021-hdr-mcs8500-crlf.txt");
    assert_eq!((noted(&director, tool_lines::TERMINAL_LOG), noted(&director, tool_lines::PROMPT), noted(&director, ibsim_net::UNASSIGNED_LID)), (1, 1, 1262));
}

#[test]
fn the_same_fabric_renamed_is_the_same_fabric() {
    // The two ibdiagnet runs: one fabric, its hosts renamed ("h4-12-gpu HCA-1" became
    // "is-north-7-compute-12 mlx5_0"); nodes are their GUIDs, so the graphs agree.
    let a = import("ibdiagnet/gary-minghuili-ibdiagnet2-20250315.ibnetdiscover");
    let b = import("ibdiagnet/gary-minghuili-ibdiagnet2-20250331.ibnetdiscover");
    let guids = |r: &FabricReport| {
        let mut g = r.fabric.graph.nodes.iter().map(|n| n.guid).collect::<Vec<_>>();
        g.sort();
        g
    };
    assert_eq!(guids(&a), guids(&b));
    let has = |r: &FabricReport, h: &str| r.fabric.graph.hosts.iter().any(|x| x.name == h);
    assert!(has(&a, "h4-12-gpu") && !has(&a, "is-north-7-compute-12"));
    assert!(has(&b, "is-north-7-compute-12") && !has(&b, "h4-12-gpu"));
    // And ibdiagnet's .lst of the same run: the same nodes and links.
    let lst = import("ibdiagnet/gary-minghuili-ibdiagnet2-20250331.lst");
    assert_eq!(guids(&lst), guids(&b));
    assert_eq!(lst.fabric.graph.links.len(), 271);
}

#[test]
fn ibnetdiscover_ports_format_files_import_with_their_counts() {
    let cases = [
        // Captured with -s: 834 progress lines before the port lines.
        ("ibnetdiscover/netloc-avakas-2016-ibnetdiscover-p-s-qlogic12800-qdr.txt", c(25, 281, 281, 0, &[("4X DDR", 1), ("4X QDR", 568)], 0)),
        ("ibnetdiscover/netloc-plafrim-2016-ibnetdiscover-p-s-voltaire-sdr-ddr-qdr.txt", c(9, 125, 125, 0, &[("4X DDR", 32), ("4X QDR", 163), ("4X SDR", 6)], 1)),
        ("ibnetdiscover/netloc-plafrim2-2016-subnet0-ibnetdiscover-p-s-qlogic-topspin-qdr.txt", c(7, 96, 96, 0, &[("4X QDR", 155)], 0)),
        // 21 HCAs keep "MT25408 ConnectX Mellanox Technologies": 21 hosts, not one.
        ("ibnetdiscover/netloc-plafrim2-2016-subnet1-ibnetdiscover-p-s-is5030.txt", c(1, 23, 23, 21, &[("4X QDR", 22), ("4X SDR", 1)], 0)),
        // An excerpt: one switch peer has no line of its own, kept from the line naming it.
        ("ibnetdiscover/treydock-exporter-ports-p-test.txt", c(4, 3, 3, 0, &[("4X EDR", 4)], 0)),
    ];
    for (name, want) in cases {
        assert_eq!(counts(&mut import(name)), want, "{name}");
    }
    assert_eq!(noted(&import("ibnetdiscover/netloc-avakas-2016-ibnetdiscover-p-s-qlogic12800-qdr.txt"), tool_lines::PROGRESS), 834);
    assert_eq!(noted(&import("ibnetdiscover/treydock-exporter-ports-p-test.txt"), discovered::UNLISTED_PEER), 1);
    // This excerpt contradicts itself: one CA port cabled to two switches. A named error.
    let e = FabricReport::import(&real("ibnetdiscover/treydock-exporter-ports-p-test2.txt"), None, &ImportOptions::default()).err().unwrap().to_string();
    assert!(e.contains("treydock-exporter-ports-p-test2.txt:5:") && e.contains("expected both ends to name each other"), "{e}");
}

#[test]
fn subnet_lst_files_import_with_their_counts() {
    // ibutils' 2005 file: no SPD, so every link takes --default-speed (4x SDR); 344 lines,
    // each cable twice.
    let mut r = import("subnet_lst/ibutils-ibdm-clusters-subnet-2005-mt43132.lst");
    assert_eq!(counts(&mut r), c(62, 3, 3, 1, &[("4X SDR", 172)], 0));
    assert_eq!(noted(&r, ibsim_net::NO_SPEED), 344);
    let qdr = FabricReport::import(&real("subnet_lst/ibutils-ibdm-clusters-subnet-2005-mt43132.lst"), None, &ImportOptions::with_default_speed(Some("4xQDR")).unwrap()).unwrap();
    assert!(qdr.fabric.graph.links.iter().all(|l| l.speed.label() == "4X QDR"));
    // ibdiagnet's .lst lists each cable once: noted, not refused.
    let mut lst = import("ibdiagnet/gary-minghuili-ibdiagnet2-20250315.lst");
    assert_eq!(counts(&mut lst), c(9, 263, 39, 7, &[("4X NDR", 271)], 0));
    assert_eq!(noted(&lst, discovered::ONE_SIDED), 271);
}

#[test]
fn iblinkinfo_files_import_as_topologies() {
    let cases = [
        ("iblinkinfo/stmatengss-cc-rdma-test-2018-qdr-teaker.txt", c(1, 8, 8, 0, &[("4X QDR", 9)], 0)),
        // Two -P runs on a 2010 tool ("Switch 0x... IBM HSSM:"); every peer is a CA the output
        // names only by LID, kept from the lines.
        ("iblinkinfo/ompi-users-2010-07-13551-iblinkinfo-P1-P2.txt", c(2, 13, 7, 1, &[("4X DDR", 4), ("4X QDR", 2), ("4X SDR", 7)], 0)),
        // Slices of one fabric's captures: 17 switches' blocks (peers kept from their lines),
        // four "Could be 14.0625 Gbps" hints on both ends of the two FDR10 links.
        ("iblinkinfo/elmir-iblinkinfo-fdr10-switches-PARTIAL.txt", c(28, 346, 343, 1, &[("4X FDR", 467), ("4X FDR10", 2), ("4X QDR", 4)], 2)),
        ("iblinkinfo/elmir-iblinkinfohost-edr-couldbe-PARTIAL.txt", c(51, 995, 992, 1, &[("4X DDR", 1), ("4X EDR", 180), ("4X FDR", 778), ("4X QDR", 328)], 2)),
        ("iblinkinfo/elmir-iblinkinfonew-fdr10-PARTIAL.txt", c(55, 913, 910, 0, &[("4X DDR", 1), ("4X EDR", 360), ("4X FDR", 770), ("4X FDR10", 3), ("4X QDR", 83)], 8)),
    ];
    for (name, want) in cases {
        assert_eq!(counts(&mut import(name)), want, "{name}");
    }
    let old = import("iblinkinfo/ompi-users-2010-07-13551-iblinkinfo-P1-P2.txt");
    assert_eq!((noted(&old, tool_lines::PROMPT), noted(&old, linkinfo_fabric::UNKNOWN_GUID)), (2, 13));
}

#[test]
fn an_ibroute_set_cut_by_iberror_imports_and_its_gaps_are_not_routing_failures() {
    // Avakas: the -p topology and ibroute's dumps of two of its 25 switches, each ending in
    // "ibroute: iberror: failed: dump tables: linear forwarding table get failed".
    let dir = std::env::temp_dir().join(format!("rdmasim-avakas-lfts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["netloc-avakas-qlogic12800-L101-iberror.txt", "netloc-avakas-qlogic12800-S201A-iberror.txt"] {
        std::fs::copy(real(&format!("ibroute/{f}")), dir.join(f)).unwrap();
    }
    let topo = real("ibnetdiscover/netloc-avakas-2016-ibnetdiscover-p-s-qlogic12800-qdr.txt");
    let mut r = FabricReport::import(&topo, Some(&dir), &ImportOptions::default()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(noted(&r, tool_lines::DIAGNOSTIC), 2);
    assert_eq!(noted(&r, lft_table::CUT_SHORT), 2);
    assert_eq!(noted(&r, lft_table::NOT_IN_FILES), 23);
    let u = r.summary().unroutable.clone();
    // Every pair that fails, fails at a switch whose table the files do not hold.
    assert_eq!((u.pairs, u.not_dumped, u.no_route, u.dead_end, u.in_loop), (78408, 78408, 0, 0, 0));
    assert_eq!(r.summary().pairs, 281 * 280);
    assert!(r.summary_text().contains("table not dumped 78408"));
}

#[test]
fn ibroute_files_read_as_printed() {
    let cases = [
        ("netloc-avakas-qlogic12800-L101-iberror.txt", 306, false),
        ("netloc-avakas-qlogic12800-S201A-iberror.txt", 306, false),
        ("netloc-plafrim-infiniscale3-lid2.txt", 134, true),
        ("netloc-plafrim-voltaire4036-lid142.txt", 134, true),
        ("netloc-plafrim2-ibcore01-lid3.txt", 103, true),
        ("netloc-plafrim2-subnet1-is5030-lid109.txt", 24, true),
        // Cut short with no iberror: 82 entry lines, no footer.
        ("netloc-plafrim2-topspin-lid60-truncated.txt", 82, false),
    ];
    for (name, entries, complete) in cases {
        let text = std::fs::read_to_string(real(&format!("ibroute/{name}"))).unwrap();
        let mut notes = Notes::default();
        let t = lft_table::parse_blocks(&text, name, &mut notes).unwrap();
        assert_eq!((t.len(), t[0].entries.len(), t[0].complete), (1, entries, complete), "{name}");
        assert_eq!(notes.count(lft_table::CUT_SHORT), usize::from(!complete), "{name}");
    }
}

/// The doctor's request for `counters` (and a topology), diagnosis alone.
fn request(topology: Option<&str>, counters: &[&str]) -> DoctorRequest {
    DoctorRequest {
        topology: topology.map(real),
        design: None,
        linkinfo: None,
        counters: counters.iter().map(|f| real(f)).collect(),
        interval_s: None,
        trust_could_be: false,
        no_cost: true,
        cost: Default::default(),
    }
}

fn doctor(files: &[&str]) -> serde_json::Value {
    serde_json::to_value(run(&request(None, files)).unwrap_or_else(|e| panic!("{files:?}: {e}"))).unwrap()
}

/// (erroring ports, congested only, node totals, saturated counters over all rows).
fn flagged(v: &serde_json::Value) -> (usize, usize, usize, usize) {
    let p = &v["ports"];
    let n = |k: &str| p[k].as_array().unwrap().len();
    let sat: usize = ["erroring", "congested", "node_totals"].iter().flat_map(|k| p[*k].as_array().unwrap()).map(|r| r["saturated"].as_array().unwrap().len()).sum();
    (n("erroring"), n("congested"), n("node_totals"), sat)
}

#[test]
fn counters_alone_rank_the_ports_of_real_snapshots() {
    let cases = [
        // perfquery -x: LinkDownedCounter 1 (physical); PortXmitDiscards and PortXmitWait.
        ("perfquery/treydock-x-lid2052-port1-errors.out", (1, 0, 0, 0)),
        ("perfquery/treydock-x-lid1719-2ports.out", (0, 2, 0, 0)),
        ("perfquery/treydock-x-lid133-port1-clean.out", (0, 0, 0, 0)),
        ("perfquery/2uanta-ib-perfquery-readme-x-lid996.txt", (0, 0, 0, 0)),
        ("perfquery/infiniband-diags-issue16-rhel75-x-lid10.txt", (0, 0, 0, 0)),
        ("perfquery/netdata-issue2620-e-x-lid21-wrapped-PARTIAL.txt", (0, 0, 0, 0)),
        // 2008's names: SymbolErrors, LinkRecovers (255: saturated), RcvErrors, RcvRemotePhysErrors.
        ("perfquery/ompi-users-2008-05-5580-perfquery-old-names.txt", (1, 0, 0, 1)),
        // The SX6036 switch: eight ports with LinkDownedCounter, port 0 and the CAs'
        // ports waiting only, one port ALL; SymbolErrorCounter 65535 twice, PortXmitWait
        // 4294967295 eight times (once in port ALL; `grep -c` counts 8).
        ("ibqueryerrors/linux-rdma-2021-ceph-sx6036.txt", (8, 6, 1, 10)),
        ("ibqueryerrors/guilbaults-issue48-clean-node-thresholds.txt", (0, 0, 0, 0)),
        ("ibqueryerrors/guilbaults-issue48-bad-node-data-suffixes-PARTIAL.txt", (0, 1, 0, 0)),
        ("ibqueryerrors/guilbaults-issue20-grep-symbolerrors.txt", (2, 0, 0, 0)),
        ("ibqueryerrors/ucx-issue9590-port-all-human-suffixes.txt", (0, 0, 1, 0)),
        // ibqueryerrors.pl's names: RcvErrors on ports 7, 8, 10, 11, 12; XmtDiscards alone on
        // nine others; port 16 has only RcvSwRelayErrors (a routing error, neither kind);
        // RcvSwRelayErrors 65535 on 9 ports.
        ("ibqueryerrors/csdn-exadata-ibqueryerrors-pl-sun-dcs36-PARTIAL.txt", (5, 9, 0, 9)),
    ];
    for (name, want) in cases {
        assert_eq!(flagged(&doctor(&[name])), want, "{name}");
    }
    let sx = doctor(&["ibqueryerrors/linux-rdma-2021-ceph-sx6036.txt"]);
    let top = &sx["ports"]["erroring"][0];
    assert_eq!((top["node"].as_str().unwrap(), top["port"].as_str().unwrap()), ("GUID 0x2c903006e29b0 \"MF0;ys23ib4:SX6036/U1\"", "5"));
    assert!(sx["ports"]["advice"][0].as_str().unwrap().contains("clear them"));
    // What the tools print is no reason to refuse; what is not their output is named.
    let err = |f: &str| run(&request(None, &[f])).err().unwrap().to_string();
    assert!(err("perfquery/treydock-E-rcverrdetails-lid1719-port2.out").contains("only blocks of other attributes"));
    assert!(err("ibqueryerrors/guilbaults-issue32-stderr-ibwarn.txt").contains("no port lines"));
}

#[test]
fn scenarios_name_hosts_of_a_real_fabric_by_hostname_or_guid() {
    use rdmasim_core::api::Simulation;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/real_excerpt_write_bw.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let source = path.display().to_string();
    let run = |text: &str| {
        let mut sim = Simulation::from_toml(text, &source).unwrap_or_else(|e| panic!("{e}"));
        sim.run();
        serde_json::to_value(sim.result()).unwrap()
    };
    let by_name = run(&text);
    // The same hosts by their HCA's node GUID (port GUID 0x7cfe9003003b4bde less port 1), and
    // by index (the importer's order: o0001, o0002, p0001).
    let by_guid = run(&text.replace("client = \"o0001\"", "client = \"0x7cfe9003003b4bdd\""));
    let by_index = run(&text.replace("client = \"o0001\"", "client = 0").replace("server = \"o0002\"", "server = 1"));
    assert_eq!(by_name, by_guid);
    // A commented-out line naming the host first is not the key.
    let commented = run(&text.replace("[workload]\n", "[workload]\n# client = \"o0001\"\n"));
    assert_eq!(by_name, commented);
    assert_eq!(by_name, by_index);
    let e = Simulation::from_toml(&text.replace("\"o0002\"", "\"o0003\""), &source).err().unwrap().to_string();
    assert!(e.contains("workload.server") && e.contains("\"o0003\": no host of that name or HCA GUID"), "{e}");
    assert!(e.contains(":22"), "names the line: {e}");
}

/// Every reader (topology formats, iblinkinfo, LFTs, counters and the counters-only ranking)
/// on `text`: errors are fine, a panic is not.
fn read_all(text: &str, g: &rdmasim_core::fabric::graph::FabricGraph) {
    use rdmasim_core::apps::doctor::{port_errors, snapshot};
    use rdmasim_core::fabric::io;
    let opts = ImportOptions::default();
    if let Ok(g2) = io::read_topology(text, "fuzz", &opts, &mut Notes::default()) {
        let _ = rdmasim_core::fabric::analysis::summarize(&rdmasim_core::fabric::graph::RoutedFabric::new(g2.clone(), rdmasim_core::fabric::graph::Lfts::empty_for(&g2)));
    }
    let _ = io::ibnetdiscover::read(text, "fuzz", &opts, &mut Notes::default());
    let _ = io::ibnetdiscover::read_ports(text, "fuzz", &opts, &mut Notes::default());
    let _ = io::subnet_lst::read(text, "fuzz", &opts, &mut Notes::default());
    if let Ok(ports) = io::iblinkinfo::read(text, "fuzz", &mut Notes::default()) {
        let _ = linkinfo_fabric::fabric(&ports, "fuzz", &opts, &mut Notes::default());
    }
    let _ = io::read_lfts(text, "fuzz", g, &mut Notes::default());
    if let Ok((records, _)) = snapshot::read_records(text, "fuzz", &mut Notes::default()) {
        let _ = port_errors::rank(None, (&records, "fuzz"), None);
    }
}

/// The corpus cut and mutated: no reader panics or hangs on what a real file turns into
/// when it is cut short, mangled by a mail archive, or concatenated wrong.
#[test]
fn fuzz_the_real_corpus_never_panics() {
    use rand::{Rng, SeedableRng};
    let start = std::time::Instant::now();
    let g = import("ibnetdiscover/netloc-avakas-2016-ibnetdiscover-p-s-qlogic12800-qdr.txt").fabric.graph;
    let mut files: Vec<Vec<u8>> = Vec::new();
    for dir in ["ibnetdiscover", "ibdiagnet", "subnet_lst", "iblinkinfo", "ibroute", "perfquery", "ibqueryerrors"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(real(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        for p in names {
            let bytes = std::fs::read(&p).unwrap();
            // Big dumps: their first 40 KB, which holds every kind of line they have.
            files.push(bytes[..bytes.len().min(40_000)].to_vec());
        }
    }
    assert!(files.len() >= 40, "{} files", files.len());
    for f in &files {
        for cut in (0..f.len()).step_by((f.len() / 60).max(1)) {
            read_all(&String::from_utf8_lossy(&f[..cut]), &g);
        }
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5eed);
    let alphabet = b"[]()\"'#=-:.x0123456789abcdefABCDEF {}\n\r\t@SWCAlidLIDPN>$ GbpsALLport";
    for _ in 0..600 {
        let which = rng.gen_range(0..files.len());
        let f = &files[which];
        let window = &f[..f.len().min(4000)];
        let m = mutate(&mut rng, window, alphabet);
        read_all(&String::from_utf8_lossy(&m), &g);
    }
    assert!(start.elapsed().as_secs() < 60, "fuzz took {:?}", start.elapsed());
}

#[test]
fn ibnetdiscover_output_written_reads_back_as_the_same_fabric() {
    use rdmasim_core::fabric::build::GeneratorSpec;
    use rdmasim_core::fabric::generate::generate;
    let spec: GeneratorSpec = serde_json::from_str(r#"{"kind": "fat-tree-k", "k": 4}"#).unwrap();
    let g = generate(&spec).unwrap().graph;
    let text = rdmasim_core::fabric::io::ibnetdiscover::write(&g);
    let back = rdmasim_core::fabric::io::read_topology(&text, "written", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let key = |g: &rdmasim_core::fabric::graph::FabricGraph| {
        let mut v: Vec<(u64, String, u16)> = g.nodes.iter().map(|n| (n.guid, n.name.clone(), n.num_ports)).collect();
        v.sort();
        v
    };
    assert_eq!(key(&back), key(&g));
    assert_eq!((back.links.len(), back.hosts.len()), (g.links.len(), g.hosts.len()));
}

#[test]
fn a_scenario_on_a_real_file_keeps_its_import_warnings() {
    use rdmasim_core::api::Simulation;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/real_excerpt_write_bw.toml");
    let mut sim = Simulation::from_toml(&std::fs::read_to_string(&path).unwrap(), &path.display().to_string()).unwrap();
    sim.run();
    let w = sim.result().rows("import_warnings");
    assert_eq!(w.len(), 1);
    let row = serde_json::to_value(&w[0]).unwrap();
    assert_eq!((row["what"].as_str().unwrap(), row["count"].as_u64().unwrap(), row["first_lines"].as_str().unwrap()), (discovered::UNLISTED_PEER, 1, "6"));
}

#[test]
fn counters_on_a_port_the_topology_shows_uncabled_are_said_not_dropped() {
    // The exporter's perfquery of LID 2052 port 1: its ibnetdiscover -p excerpt lists that
    // switch (ib-i4l1s01) with no cable on port 1.
    let req = request(Some("ibnetdiscover/treydock-exporter-ports-p-test.txt"), &["perfquery/treydock-x-lid2052-port1-errors.out"]);
    let out = run(&req).unwrap();
    assert_eq!(out.diagnosis.unwrap().suspects.len(), 0);
    assert!(out.warnings.iter().any(|w| w.what == rdmasim_core::apps::doctor::request::UNCABLED_COUNTS && w.count == 1), "{:?}", out.warnings);
}
