//! The fuzz harness (`make fuzz`, tools/fuzz): runs the scenario file or directory named by
//! `FUZZ_PATH` in this debug build, where overflow checks and debug assertions are on, and
//! prints one line per file: `RESULT <file>: <stop reason> t=<µs> ev=<events>`, `SCENARIO_ERROR
//! <message>` or `PANIC <message> @ <location>`. Ignored in the normal test run.
mod common;
use common::results;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

#[test]
#[ignore = "fuzz harness: run by tools/fuzz/run.sh with FUZZ_PATH set"]
fn fuzz_scenarios() {
    let path = PathBuf::from(std::env::var("FUZZ_PATH").expect("FUZZ_PATH names a scenario file or directory"));
    let mut files: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect()
    } else {
        vec![path]
    };
    files.sort();
    // The hook keeps the panic's message and location for the RESULT line (and stays quiet).
    let last_panic: Arc<Mutex<String>> = Arc::default();
    let seen = Arc::clone(&last_panic);
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.payload().downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| info.payload().downcast_ref::<String>().cloned()).unwrap_or_default();
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        *seen.lock().unwrap() = format!("{} @ {at}", msg.replace('\n', " | "));
    }));
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let outcome = std::panic::catch_unwind(|| {
            let mut sim = match rdmasim_core::api::Simulation::from_toml(&text, &file.display().to_string()) {
                Ok(sim) => sim,
                Err(e) => return format!("SCENARIO_ERROR {}", e.to_string().replace('\n', " ")),
            };
            sim.run();
            let r = results(&sim);
            format!("{} t={} ev={}", r["stop_reason"], r["sim_time_us"], r["events"])
        });
        let line = outcome.unwrap_or_else(|_| format!("PANIC {}", last_panic.lock().unwrap()));
        println!("RESULT {}: {line}", file.display());
    }
}
