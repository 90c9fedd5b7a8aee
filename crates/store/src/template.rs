//! Built-in files compiled into the binary — the workspace layout `init` lays out
//! (`memory-template/`) and fragments rendered at run time (`templates/`) — and a strict
//! `{{name}}` renderer: a placeholder without a value, or a value without a placeholder, is an
//! error, so a template and its caller can never silently drift apart.

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

pub use embedded::{MEMORY_TEMPLATE, TEMPLATES};

/// A broken template: a bug in cogmem, never the user's fault.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// No template has this name.
    #[error("built-in template {name:?} does not exist")]
    Missing {
        /// The template name.
        name: String,
    },
    /// A placeholder has no value.
    #[error("template {template:?} uses {{{{{var}}}}}, which has no value")]
    Unbound {
        /// The template name.
        template: String,
        /// The placeholder.
        var: String,
    },
    /// A value has no placeholder.
    #[error("template {template:?} has no {{{{{var}}}}} placeholder")]
    Unused {
        /// The template name.
        template: String,
        /// The value's name.
        var: String,
    },
}

/// Returns the text of a `templates/` file.
pub fn source(name: &str) -> Result<&'static str, TemplateError> {
    TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, bytes)| std::str::from_utf8(bytes).ok())
        .ok_or_else(|| TemplateError::Missing { name: name.to_owned() })
}

/// Returns the text of a file of the workspace template (`memory-template/`, as `init` lays it
/// out), by its workspace-relative path: `memory/graph/relations.md`.
pub fn memory_template(rel: &str) -> Option<&'static str> {
    MEMORY_TEMPLATE.iter().find(|(n, _)| *n == rel).and_then(|(_, b)| std::str::from_utf8(b).ok())
}

/// Renders a `templates/` file with `{{name}}` placeholders replaced by values.
pub(crate) fn render(name: &str, vars: &[(&str, &str)]) -> Result<String, TemplateError> {
    render_str(name, source(name)?, vars)
}

/// Renders template text; `name` is only used in errors.
pub(crate) fn render_str(
    name: &str,
    text: &str,
    vars: &[(&str, &str)],
) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut used = vec![false; vars.len()];
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let var = after[..close].trim();
        let Some(i) = vars.iter().position(|(k, _)| *k == var) else {
            return Err(TemplateError::Unbound { template: name.to_owned(), var: var.to_owned() });
        };
        used[i] = true;
        out.push_str(vars[i].1);
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(TemplateError::Unused { template: name.to_owned(), var: vars[i].0.to_owned() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_strict() {
        assert_eq!(
            render_str("t", "a {{x}} b {{ y }}", &[("x", "1"), ("y", "2")]).unwrap(),
            "a 1 b 2"
        );
        assert!(matches!(render_str("t", "{{x}}", &[]), Err(TemplateError::Unbound { .. })));
        assert!(matches!(render_str("t", "x", &[("x", "1")]), Err(TemplateError::Unused { .. })));
    }

    #[test]
    fn every_template_is_utf8_and_listed() {
        assert!(!TEMPLATES.is_empty());
        for (name, _) in TEMPLATES {
            source(name).unwrap();
        }
        assert!(MEMORY_TEMPLATE.iter().any(|(n, _)| *n == "MEMORY.md"));
    }
}
