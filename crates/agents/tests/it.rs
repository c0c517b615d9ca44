//! The crate's integration tests, one module per file, built as one test binary (one link
//! instead of one per file: CI's disk and link time). Run one file's tests with
//! `cargo test -p PACKAGE --test it FILE::`.

#[path = "../../codeswitch/tests/common/mod.rs"]
mod common;
mod gate_batches;
mod gate_english;
mod support;

mod batch_waves;
mod driver_modes;
mod failure_causes;
mod heldout_controls_gate;
mod insertions_only_gate;
mod look_alike_gate;
mod pipeline_estimate;
mod pipeline_executor;
mod pipeline_machine;
mod pipeline_prompts;
mod review26_gate;
mod review26e_batches;
mod review26f_batches;
mod review26h_batches;
mod review26i_batches;
mod review26j_batches;
mod review26k_batches;
mod review26l_batches;
mod review26m_batches;
mod review26n_batches;
mod review26o_batches;
mod review26p_batches;
mod review26q_batches;
mod review26r_batches;
mod review26s_batches;
mod review26t_batches;
mod review26u_batches;
mod review26v_batches;
mod review26w_batches;
mod review26x_batches;
mod review26y_batches;
mod round_d_gate;
mod round_e_gate;
mod round_f_gate;
mod round_g_gate;
mod round_h_gate;
mod round_i_gate;
mod round_j_gate;
mod schemas_portable;
mod undecided_auto;
