//! `cargo run --release -p mgpu-demo [NAME...]`: prints the backend it runs on (CUDA
//! device 0 when there is one, else the CPU backend), then the seeds' demonstrations (all
//! of them, or the named ones) in the seeds' layout.

use mgpu::Backend;
use std::process::ExitCode;

fn main() -> ExitCode {
    let names: Vec<String> = std::env::args().skip(1).collect();
    let demos = match mgpu_demo::select(&names) {
        Ok(demos) => demos,
        Err(why) => {
            eprintln!("mgpu-demo: {why}");
            return ExitCode::from(2);
        }
    };
    let backend = Backend::detect();
    println!("{}", mgpu_demo::backend_line(&backend));
    for demo in demos {
        match (demo.run)(&backend) {
            Ok(text) => print!("{text}"),
            Err(e) => {
                eprintln!("mgpu-demo: the {} demonstration failed: {e}", demo.name);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
