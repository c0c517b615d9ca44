//! The shipped recordings in `fixtures/recordings/` replay offline and contain no credentials.

use crate::common;

use std::path::PathBuf;

use llm_client::{ChatModel, Recording, Replay, replay_key};

fn recordings_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/recordings")
}

#[tokio::test]
async fn shipped_recordings_answer_the_requests_they_were_made_for() {
    let replay = Replay::from_dir(recordings_dir()).expect("recordings load");
    let requests = common::replay_fixture_requests();
    assert_eq!(replay.len(), requests.len());
    for req in requests {
        let structured = req.output_schema.is_some();
        let resp = replay
            .chat(req)
            .await
            .expect("a recording exists for every fixture request");
        assert_eq!(resp.json.is_some(), structured);
        assert!(!resp.content.is_empty());
    }
}

#[test]
fn recordings_are_consistent_and_redacted() {
    let mut saw_retry_and_repair = false;
    for entry in std::fs::read_dir(recordings_dir()).expect("dir").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("read");
        assert!(
            !text.contains("fake-key"),
            "credential in {}",
            entry.path().display()
        );
        let rec: Recording = serde_json::from_str(&text).expect("a recording");
        assert_eq!(
            rec.key,
            replay_key(&rec.request),
            "file key matches the canonical request"
        );
        assert!(rec.exchanges.iter().all(|x| {
            x.headers
                .get("authorization")
                .is_some_and(|v| v == "[redacted]")
        }));
        saw_retry_and_repair |= rec.response.retries == 1 && rec.response.repairs == 1;
    }
    assert!(
        saw_retry_and_repair,
        "one fixture shows a retry and a repair"
    );
}
