//! Agents and executors: the code-switching generate → judge → refine pipeline, and the adapters
//! that put a bot under test.
//!
//! - [`pipeline`]: the code-switching data pipeline — generator, four judges and refiner per
//!   scenario as a pure state machine (`ScenarioRun`), its prompts and schemas, the online
//!   executor, the JSONL record and checkpoint, and the cost estimate.
//! - [`settings`]: a run's settings (layered defaults → config → the application's environment
//!   and flags) and the rules that choose the model provider.
//! - [`plan`]: what a config expands to and what it would cost, before anything is spent.
//! - [`report`]: a run's report (formatted figures, charts) rendered as HTML, Markdown and
//!   terminal tables; results files opened and compared.
//! - [`compare`]: run-vs-run comparison; [`bot`] and [`suite`]: bots under test and their suites.
//! - [`taskrun`]: a run split into tasks a scheduler hands out (Slurm arrays, Kubernetes
//!   Indexed Jobs) over a shared run directory: the plan, create-only completion markers, status,
//!   merge, and the sbatch script and Job manifest that launch it.

pub mod bot;
pub mod compare;
pub mod dataset;
pub mod pipeline;
pub mod plan;
pub mod report;
pub mod settings;
pub mod suite;
pub mod taskrun;
