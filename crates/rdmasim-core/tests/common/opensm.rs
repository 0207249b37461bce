//! The real OpenSM over ibsim, for the cross-checks: ibsim simulates a net file, OpenSM
//! reaches it through ibsim's umad2sim preload library, routes it once (`-o`) with the engine
//! asked and dumps its tables. Each run gets its own directory and ibsim socket name, so runs
//! may go in parallel. Needs Debian's opensm, ibsim-utils and infiniband-diags (CI installs
//! them); [`available`] says whether they are here.
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const UMAD2SIM: &str = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

/// Whether ibsim, opensm and umad2sim are installed. In CI (`CI` set) they must be: a missing
/// tool fails the test instead of skipping it.
pub fn available() -> bool {
    let here = Path::new(UMAD2SIM).exists() && which("ibsim") && which("opensm");
    if !here && std::env::var_os("CI").is_some() {
        panic!("CI: opensm, ibsim-utils (ibsim, umad2sim) must be installed for the OpenSM cross-check");
    }
    if !here {
        eprintln!("skipped: opensm, ibsim or umad2sim not installed");
    }
    here
}

fn which(tool: &str) -> bool {
    ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"].iter().any(|d| Path::new(d).join(tool).exists())
}

/// What one OpenSM run left: its directory, its `opensm-lfts.dump` and its log.
pub struct OpensmRun {
    pub dir: PathBuf,
    pub lfts_dump: String,
    pub log: String,
}

struct KillOnDrop(Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs ibsim on `net` and OpenSM with `-R engine` plus `extra` arguments, in a fresh
/// directory named after `name`. OpenSM runs on the CA named `sm_node` (umad2sim's
/// `SIM_HOST`; default: ibsim's first CA), which picks the subnet it manages.
pub fn route(net: &str, engine: &str, extra: &[&str], name: &str, sm_node: Option<&str>) -> Result<OpensmRun, String> {
    // A number per run, so two runs of one case and engine (in parallel tests) never share a
    // directory or an ibsim socket.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = &format!("{name}-{run}");
    let dir = std::env::temp_dir().join(format!("rdmasim-opensm-{}-{name}-{engine}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let net_path = dir.join("fabric.net");
    std::fs::write(&net_path, net).map_err(|e| e.to_string())?;
    let sock = format!("rdmasim{}{name}{engine}", std::process::id());
    let sim_out = dir.join("ibsim.log");
    // Both run in the run's directory: umad2sim leaves a sys-<pid> tree where it runs.
    let sim = Command::new("ibsim")
        .current_dir(&dir)
        .arg("-s")
        .arg(&net_path)
        .env("IBSIM_SOCKNAME", &sock)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&sim_out).map_err(|e| e.to_string())?)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start ibsim: {e}"))?;
    let _sim = KillOnDrop(sim);
    // ibsim prints its prompt once the net is up.
    let start = Instant::now();
    while !std::fs::read_to_string(&sim_out).unwrap_or_default().contains("sim>") {
        if start.elapsed() > Duration::from_secs(20) {
            return Err(format!("ibsim did not start on {}: {}", net_path.display(), std::fs::read_to_string(&sim_out).unwrap_or_default()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = dir.join("osm.log");
    let mut osm = Command::new("opensm")
        .current_dir(&dir)
        .args(["-o", "-R", engine, "-D", "0x43", "-f"])
        .arg(&log)
        .arg("--dump_files_dir")
        .arg(&dir)
        .args(extra)
        .env("LD_PRELOAD", UMAD2SIM)
        .env("IBSIM_SOCKNAME", &sock)
        .env("OSM_CACHE_DIR", &dir)
        .env("OSM_TMP_DIR", &dir)
        .envs(sm_node.map(|n| ("SIM_HOST", n)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start opensm: {e}"))?;
    let start = Instant::now();
    loop {
        if let Some(status) = osm.try_wait().map_err(|e| e.to_string())? {
            if !status.success() {
                let mut err = String::new();
                let _ = osm.stderr.take().map(|mut s| s.read_to_string(&mut err));
                return Err(format!("opensm -R {engine} exited with {status}: {err}"));
            }
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = osm.kill();
            return Err(format!("opensm -R {engine} on {name} took over 120 s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    let lfts_dump = std::fs::read_to_string(dir.join("opensm-lfts.dump")).map_err(|e| format!("{name} {engine}: no opensm-lfts.dump ({e}); log:\n{log}"))?;
    Ok(OpensmRun { dir, lfts_dump, log })
}
