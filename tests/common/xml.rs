//! A minimal XML reader for checking the SVGs contend writes: well-formed
//! (one root, nested and closed tags, quoted attributes, known entities)
//! and readable back as elements.

use std::collections::BTreeMap;

/// One element: its name, attributes and the text directly inside it.
#[derive(Debug, Default)]
pub struct Element {
    /// Tag name.
    pub name: String,
    /// Attributes, decoded.
    pub attrs: BTreeMap<String, String>,
    /// Text directly inside, decoded.
    pub text: String,
}

impl Element {
    /// The attribute's value, or "" when absent.
    pub fn attr(&self, name: &str) -> &str {
        self.attrs.get(name).map_or("", String::as_str)
    }
}

/// `t` with the five predefined entities and character references decoded;
/// anything else after `&` is an error.
fn unescape(t: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut parts = t.split('&');
    out.push_str(parts.next().unwrap_or(""));
    for p in parts {
        let end = p.find(';').ok_or(format!("bare & in {t:?}"))?;
        let decoded = match &p[..end] {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            e if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("bad reference &{e};"))?,
            e if e.starts_with('#') => e[1..]
                .parse()
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("bad reference &{e};"))?,
            e => return Err(format!("unknown entity &{e};")),
        };
        out.push(decoded);
        out.push_str(&p[end + 1..]);
    }
    Ok(out)
}

/// Parses `text` as an XML document with one root element, checking that
/// tags nest and close, attributes are quoted and entities are known;
/// returns every element in document order.
pub fn parse_xml(text: &str) -> Result<Vec<Element>, String> {
    let mut stack: Vec<usize> = Vec::new();
    let mut elements: Vec<Element> = Vec::new();
    let mut roots = 0;
    let mut rest = text.trim_start();
    if let Some(r) = rest.strip_prefix("<?xml") {
        rest = &r[r.find("?>").ok_or("unterminated XML declaration")? + 2..];
    }
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        let chunk = unescape(&rest[..lt])?;
        match stack.last() {
            Some(&open) => elements[open].text.push_str(&chunk),
            None if !chunk.trim().is_empty() => {
                return Err(format!("text outside the root: {chunk:?}"));
            }
            None => {}
        }
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        if let Some(r) = rest.strip_prefix("<!--") {
            rest = &r[r.find("-->").ok_or("unterminated comment")? + 3..];
            continue;
        }
        let gt = rest.find('>').ok_or("unterminated tag")?;
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if elements[open].name != name.trim() {
                return Err(format!("<{}> closed by </{name}>", elements[open].name));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
        let name = &tag[..name_end];
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "-_:.".contains(c))
        {
            return Err(format!("bad element name {name:?}"));
        }
        let mut element = Element {
            name: name.to_string(),
            ..Element::default()
        };
        let mut attrs = tag[name_end..].trim();
        while !attrs.is_empty() {
            let eq = attrs
                .find('=')
                .ok_or(format!("attribute without value in <{name}>"))?;
            let key = attrs[..eq].trim().to_string();
            let quote = attrs[eq + 1..].chars().next().ok_or("missing quote")?;
            if quote != '"' && quote != '\'' {
                return Err(format!("unquoted attribute in <{name}>"));
            }
            let start = eq + 2;
            let close = attrs[start..]
                .find(quote)
                .ok_or(format!("unterminated attribute in <{name}>"))?;
            let value = unescape(&attrs[start..start + close])?;
            if element.attrs.insert(key.clone(), value).is_some() {
                return Err(format!("attribute {key} twice in <{name}>"));
            }
            attrs = attrs[start + close + 1..].trim_start();
        }
        if stack.is_empty() {
            roots += 1;
        }
        elements.push(element);
        if !self_closing {
            stack.push(elements.len() - 1);
        }
    }
    match (stack.last(), roots) {
        (Some(&open), _) => Err(format!("<{}> never closed", elements[open].name)),
        (None, 1) => Ok(elements),
        (None, n) => Err(format!("{n} root elements")),
    }
}
