//! `ptx-ladder shapes`: the lesson on shapes (rooflines, waves, split K,
//! deep K) drawn from a sweep's JSON; no GPU needed.

use crate::Failure;
use crate::cli::ShapesArgs;
use crate::output::{Files, check_writable, outln};
use ptx_ladder::sweep::lesson::{Lesson, Sweep, accuracy, roofline, waves};

pub fn run(args: ShapesArgs) -> Result<(), Failure> {
    let from = args.from.display();
    let text = std::fs::read_to_string(&args.from).map_err(|e| Failure::Usage(format!("--from {from}: {e}")))?;
    let sweep = Sweep::from_json(&text).map_err(|e| Failure::Usage(format!("--from {from}: {e}")))?;
    let outputs = [("--roofline", &args.roofline), ("--waves", &args.waves), ("--accuracy", &args.accuracy), ("--json", &args.json)];
    for (flag, path) in outputs {
        if let Some(path) = path {
            check_writable(flag, path)?;
        }
    }
    let lesson = Lesson::new(&sweep).map_err(|e| Failure::Usage(format!("--from {from}: {e}")))?;
    outln!("{}", lesson.text().trim_end())?;
    let machine = sweep.machine()?;
    let device = &sweep.device;
    let ladder = sweep.dtype.ladder();
    let mut files = Files::default();
    if let Some(path) = &args.roofline {
        files.write(path, &roofline::svg(&format!("Roofline of the {ladder} sweep, {device}"), &lesson.roofline, &machine))?;
    }
    if let Some(path) = &args.waves {
        let title = format!("Waves of tiles on {}'s {} SMs, and split K", device, machine.multiprocessors);
        files.write(path, &waves::svg(&title, &lesson.waves, &machine))?;
    }
    if let Some(path) = &args.accuracy {
        files.write(path, &accuracy::svg("Relative error against K: truncating groups of 16, and the cures", &lesson.accuracy))?;
    }
    if let Some(path) = &args.json {
        files.write(path, &format!("{}\n", lesson.json()))?;
    }
    files.finish()
}
