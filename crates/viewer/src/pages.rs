//! The viewer's HTML: minijinja templates (in `templates/`, embedded at compile time) with
//! autoescaping on for every template, so each string from a record, a suite or a file name is
//! escaped wherever it lands. Record strings go in element text only, never in `href`, `src`,
//! `style` or a script; links are built from numbers and fixed words. The stylesheet and the
//! one small script are served from the viewer's own `/static/` route (the CSP allows nothing
//! else).

use std::sync::LazyLock;

use minijinja::{AutoEscape, Environment, Value};

/// The stylesheet.
pub const CSS: &str = include_str!("../templates/viewer.css");
/// The live-update script (polls the record count and reloads when it changes).
pub const JS: &str = include_str!("../templates/viewer.js");

const TEMPLATES: [(&str, &str); 10] = [
    ("base.html", include_str!("../templates/base.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("run.html", include_str!("../templates/run.html")),
    ("records.html", include_str!("../templates/records.html")),
    ("counts.html", include_str!("../templates/counts.html")),
    ("row.html", include_str!("../templates/row.html")),
    ("record.html", include_str!("../templates/record.html")),
    ("suite.html", include_str!("../templates/suite.html")),
    ("scenario.html", include_str!("../templates/scenario.html")),
    ("compare.html", include_str!("../templates/compare.html")),
];

static ENV: LazyLock<Result<Environment<'static>, String>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // Every template is HTML: escape every value, whatever the template's name.
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    // Suite results leave out empty fields (`skip_serializing_if`): a missing one reads as empty.
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Chainable);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .map_err(|e| format!("{name}: {e:#}"))?;
    }
    Ok(env)
});

/// A template failed to render: a bug in a template, never in the input.
#[derive(Debug, thiserror::Error)]
#[error("viewer template `{template}` failed: {message}")]
pub struct PageError {
    /// The template.
    pub template: &'static str,
    /// What minijinja said.
    pub message: String,
}

/// Renders `template` with `ctx`.
///
/// # Errors
/// [`PageError`] on a template bug.
pub fn render(template: &'static str, ctx: Value) -> Result<String, PageError> {
    let env = ENV.as_ref().map_err(|message| PageError {
        template,
        message: message.clone(),
    })?;
    env.get_template(template)
        .and_then(|t| t.render(ctx))
        .map_err(|e| PageError {
            template,
            message: format!("{e:#}"),
        })
}
