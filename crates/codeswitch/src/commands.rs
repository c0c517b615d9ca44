//! Shell commands written into a sentence without backticks ("Ejecuta npm install y luego
//! git push", "先运行 pip install requests"): a program's name and its subcommands, flags and
//! arguments are code, which mentions English words rather than switching to English. The
//! tagger reads them as it reads a link, as no word of either language ([`spans`]).

/// Programs whose name opens a command when a subcommand, a flag or a code-like argument
/// follows it; alone, the name is the writer's word ("make" and "node" are English words too).
const PROGRAMS: &[&str] = &[
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "pip",
    "pip3",
    "git",
    "docker",
    "kubectl",
    "cargo",
    "brew",
    "apt",
    "apt-get",
    "curl",
    "wget",
    "python",
    "python3",
    "node",
    "make",
    "sudo",
    "conda",
    "terraform",
    "helm",
    "mvn",
    "gradle",
    "composer",
    "dotnet",
    "rustup",
    "systemctl",
    "ssh",
    "chmod",
    "mkdir",
];

/// Subcommands that follow a program's name ("npm install", "git push", "docker compose up").
const SUBCOMMANDS: &[&str] = &[
    "install",
    "i",
    "uninstall",
    "run",
    "build",
    "test",
    "start",
    "dev",
    "lint",
    "init",
    "add",
    "remove",
    "rm",
    "update",
    "upgrade",
    "push",
    "pull",
    "commit",
    "clone",
    "checkout",
    "merge",
    "rebase",
    "fetch",
    "status",
    "log",
    "diff",
    "stash",
    "reset",
    "deploy",
    "apply",
    "plan",
    "exec",
    "logs",
    "ps",
    "up",
    "down",
    "compose",
    "restart",
    "stop",
    "get",
    "describe",
    "publish",
    "login",
    "list",
    "ls",
    "serve",
    "watch",
    "fmt",
    "check",
    "clean",
    "branch",
    "tag",
    "show",
    "prune",
    "pod",
    "pods",
    "images",
    "image",
    "container",
];

/// Byte spans of `text` that are shell commands: a program of [`PROGRAMS`] followed by a
/// subcommand of [`SUBCOMMANDS`], a flag (`-x`, `--name`) or a path or package spec (holding
/// `/`, `.`, `=`, `@` or `_`), and then every such token after them. A program's name alone ("git
/// es un programa") is not a command.
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    let tokens: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|t| (t.as_ptr() as usize - text.as_ptr() as usize, t))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (start, word) = tokens[i];
        let name = word.to_lowercase();
        if !PROGRAMS.contains(&name.as_str()) {
            i += 1;
            continue;
        }
        let mut end = start + word.len();
        let mut j = i + 1;
        while let Some(&(at, token)) = tokens.get(j) {
            let bare =
                token.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '」', '，', '。']);
            if bare.is_empty() || !is_command_token(bare) {
                break;
            }
            end = at + bare.len();
            j += 1;
            if bare.len() != token.len() {
                break;
            }
        }
        if j > i + 1 {
            out.push((start, end));
        }
        i = j.max(i + 1);
    }
    out
}

/// A token that continues a command: a subcommand, a flag, an argument written as code (ASCII,
/// holding a `/`, `.`, `=`, `@` or `_`: a path, a package spec, a version), or another program
/// ("sudo apt-get").
fn is_command_token(token: &str) -> bool {
    let lower = token.to_lowercase();
    SUBCOMMANDS.contains(&lower.as_str())
        || (token.starts_with('-') && token.len() > 1 && token.is_ascii())
        || (token.is_ascii()
            && token
                .chars()
                .any(|c| matches!(c, '/' | '.' | '=' | '@' | '_'))
            && token.chars().any(|c| c.is_ascii_alphanumeric()))
        || PROGRAMS.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::spans;

    fn covered(text: &str) -> Vec<&str> {
        spans(text).into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn commands_are_code_and_the_writers_words_are_not() {
        assert_eq!(
            covered("Ejecuta npm install y luego git push origin main, porfa."),
            ["npm install", "git push"]
        );
        assert_eq!(
            covered("先运行 pip install requests==2.31 再说"),
            ["pip install requests==2.31"]
        );
        assert_eq!(
            covered("Lance docker compose up -d puis sudo apt-get update."),
            ["docker compose up -d", "sudo apt-get update"]
        );
        // A program's name alone, or an English word that names one, is the writer's word.
        assert!(covered("Git es un programa que uso mucho.").is_empty());
        assert!(covered("I need to make dinner and then go.").is_empty());
        assert!(covered("We should make a plan, then run.").is_empty());
    }
}
