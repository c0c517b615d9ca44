//! Calls a model with this crate alone: one chat request to any OpenAI-compatible endpoint, with
//! the client's retries, rate limits and structured output.
//!
//! `cargo run -p llm-client --example chat -- BASE_URL MODEL [QUESTION]`, e.g. against
//! `cargo xtask fake-server --port 8080`: `-- http://127.0.0.1:8080/v1 any "Hello?"`. The API key,
//! when the endpoint needs one, is read from `OPENAI_API_KEY` (never printed). An example may
//! print.

use llm_client::{ChatModel, ChatRequest, Client, ClientConfig, Message};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base_url, model, rest @ ..] = args.as_slice() else {
        eprintln!("usage: chat BASE_URL MODEL [QUESTION]");
        std::process::exit(2);
    };
    let question = if rest.is_empty() {
        "Say hello in Arabic and English.".to_owned()
    } else {
        rest.join(" ")
    };
    // No `cache_dir`: every call goes to the endpoint.
    let config = ClientConfig::openai_compatible(base_url.as_str());
    let client = match Client::new(config) {
        Ok(client) => client,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let request = ChatRequest::new(model.as_str(), vec![Message::user(question)]);
    match client.chat(request).await {
        Ok(reply) => {
            println!("{}", reply.content);
            eprintln!(
                "model {}, {} prompt + {} completion tokens, {} retries",
                reply.model,
                reply.usage.prompt_tokens,
                reply.usage.completion_tokens,
                reply.retries
            );
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(3);
        }
    }
}
