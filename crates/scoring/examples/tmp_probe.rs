use scoring::expect::{refuses, refuses_by_rules, warns, warns_by_rules};
fn main() {
    for line in std::io::stdin().lines() {
        let line = line.unwrap();
        let (topic, text) = line.split_once('|').unwrap();
        println!(
            "{text}\n  warn[{topic}] rules {:?}\n  warn both {:?}\n  refuse rules {:?}\n  refuse both {:?}",
            warns_by_rules(text, topic, &[]),
            warns(text, topic, &[]),
            refuses_by_rules(text),
            refuses(text)
        );
    }
}
