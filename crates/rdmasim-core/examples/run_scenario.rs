//! Runs a scenario file and prints the result JSON (a developer aid: `cargo run --example run_scenario -- file.toml`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_scenario <scenario.toml>");
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    match rdmasim_core::api::Simulation::from_toml(&text, &path) {
        Ok(mut sim) => {
            sim.run();
            println!("{}", sim.result_json());
        }
        Err(e) => eprintln!("{e}"),
    }
}
