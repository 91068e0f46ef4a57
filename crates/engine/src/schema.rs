//! The scenario schema: every key of a scenario section declared once, beside its field.
//!
//! A section of the engine's input (`host`, `switch`, `switch.pfc`, `metrics`, …) is written with
//! [`section!`]: each field carries its scenario key, its type (which fixes the unit), its range,
//! its description and the source of its default, and the section's cross-field rules sit under
//! its fields. From that one declaration come the Rust struct, its `Default` and serde reading,
//! the engine's checks (`check`, errors named by the dotted scenario key) and the description
//! `scenario_schema()` gives the Python front, which builds its parser, its TOML writer,
//! `dccsim show` and the generated tables of docs/scenario.md from it. Nothing here runs during
//! a simulation.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::ConfigError;

/// What a key holds, and so its unit in a scenario file (`"25Gbps"`, `"1us"`, `"4MiB"`) and in the
/// engine's JSON (bits/s, picoseconds, bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Type {
    /// Bytes; a size with units in TOML.
    Size,
    /// Picoseconds; a time with units in TOML.
    Time,
    /// Bits per second; a rate with units in TOML.
    Rate,
    /// A whole number.
    Count,
    /// A finite number.
    Number,
    Bool,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// A list of names (ports such as `"tor0->h16"`, switches).
    Names,
    /// A list of finite numbers, each within the key's range (e.g. Homa's priority cutoffs).
    Numbers,
    /// A table with a schema of its own (the named section), or, where the section says so,
    /// another form the front reads with its own rule (e.g. `pfc = true`).
    Table(&'static str),
}

impl Type {
    fn name(self) -> &'static str {
        match self {
            Type::Size => "size",
            Type::Time => "time",
            Type::Rate => "rate",
            Type::Count => "count",
            Type::Number => "number",
            Type::Bool => "bool",
            Type::Choice(_) => "choice",
            Type::Names => "names",
            Type::Numbers => "numbers",
            Type::Table(_) => "table",
        }
    }
    fn unit(self) -> &'static str {
        match self {
            Type::Size => "B",
            Type::Time => "ps",
            Type::Rate => "bit/s",
            _ => "",
        }
    }
}

/// The values a numeric key may take: `[min, max]`, either end open or unbounded (±∞).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub min: f64,
    pub max: f64,
    pub min_open: bool,
    pub max_open: bool,
}

impl Range {
    /// Any value of the type.
    pub const ANY: Range = Range { min: f64::NEG_INFINITY, max: f64::INFINITY, min_open: false, max_open: false };
    /// `[min, max]`.
    pub const fn closed(min: f64, max: f64) -> Range {
        Range { min, max, min_open: false, max_open: false }
    }
    /// `(min, max]`.
    pub const fn above(min: f64, max: f64) -> Range {
        Range { min, max, min_open: true, max_open: false }
    }
    /// `[min, ∞)`.
    pub const fn at_least(min: f64) -> Range {
        Range { min, max: f64::INFINITY, min_open: false, max_open: false }
    }
    /// `(0, ∞)`: a positive quantity.
    pub const POSITIVE: Range = Range { min: 0.0, max: f64::INFINITY, min_open: true, max_open: false };

    pub fn contains(&self, x: f64) -> bool {
        let lo = if self.min_open { x > self.min } else { x >= self.min };
        let hi = if self.max_open { x < self.max } else { x <= self.max };
        lo && hi
    }

    /// `"(0 B, 1125899906842624 B]"`, `"[0 ps, inf)"`.
    pub fn describe(&self, ty: Type) -> String {
        let end = |x: f64| {
            if x.is_infinite() {
                if x > 0.0 {
                    "inf".to_string()
                } else {
                    "-inf".to_string()
                }
            } else {
                show(x, ty)
            }
        };
        format!("{}{}, {}{}", if self.min_open { '(' } else { '[' }, end(self.min), end(self.max), if self.max_open { ')' } else { ']' })
    }
}

fn show(x: f64, ty: Type) -> String {
    let n = if x.fract() == 0.0 && x.abs() < 1e18 { format!("{}", x as i64) } else { format!("{x}") };
    match ty.unit() {
        "" => n,
        u => format!("{n} {u}"),
    }
}

/// One key of a section.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key in a scenario file (`nack_interval`); empty for a field the front derives from
    /// another key (the section's reader says which).
    pub key: &'static str,
    /// The field in the engine's JSON and struct (`nack_interval_ps`).
    pub field: &'static str,
    pub ty: Type,
    pub range: Range,
    pub doc: &'static str,
    /// Where the default comes from (a paper, an artifact's file, or "ours" with the reason).
    pub source: &'static str,
    /// The default, as the engine's JSON writes it (`null`: absent, or derived at build time as
    /// the description says).
    pub default: Value,
}

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = Map::new();
        m.insert("key".into(), self.key.into());
        m.insert("field".into(), self.field.into());
        m.insert("type".into(), self.ty.name().into());
        m.insert("unit".into(), self.ty.unit().into());
        match self.ty {
            Type::Choice(names) => {
                m.insert("choices".into(), names.iter().map(|&n| Value::from(n)).collect());
            }
            Type::Table(section) => {
                m.insert("section".into(), section.into());
            }
            _ => {}
        }
        let bound = |x: f64| if x.is_finite() { Value::from(x) } else { Value::Null };
        m.insert("min".into(), bound(self.range.min));
        m.insert("max".into(), bound(self.range.max));
        m.insert("min_open".into(), self.range.min_open.into());
        m.insert("max_open".into(), self.range.max_open.into());
        m.insert("default".into(), self.default.clone());
        m.insert("doc".into(), self.doc.into());
        m.insert("source".into(), self.source.into());
        Value::Object(m).serialize(s)
    }
}

/// A rule across fields of one section: when `holds` is false the error names `key` (the first
/// field it concerns) with `message`.
pub struct Rule<T> {
    pub key: &'static str,
    pub holds: fn(&T) -> bool,
    pub message: &'static str,
}

/// A section declared with [`section!`].
pub trait Section: Sized + Default + Serialize + serde::de::DeserializeOwned {
    /// The section's dotted name in a scenario (`switch.pfc`).
    const NAME: &'static str;
    fn keys() -> Vec<Key>;
    fn rules() -> Vec<Rule<Self>>;

    /// Every numeric key within its range and every rule held; errors name `prefix.key`
    /// (`prefix` is the section's place in this scenario, e.g. `experiment.variants[2].pfc`).
    fn check(&self, prefix: &str) -> Result<(), ConfigError> {
        let v = serde_json::to_value(self).expect("a section serialises");
        for k in Self::keys() {
            let Some(x) = v.get(k.field).and_then(Value::as_f64) else { continue };
            if !k.range.contains(x) {
                return Err(ConfigError::new(
                    &dotted(prefix, if k.key.is_empty() { k.field } else { k.key }),
                    format!("must lie in {}, got {}", k.range.describe(k.ty), show(x, k.ty)),
                ));
            }
        }
        for r in Self::rules() {
            if !(r.holds)(self) {
                return Err(ConfigError::new(&dotted(prefix, r.key), r.message));
            }
        }
        Ok(())
    }

    /// The section as the front sees it: its keys and the text of its rules.
    fn describe() -> Value {
        let defaults = serde_json::to_value(Self::default()).expect("a section serialises");
        let keys: Vec<Value> = Self::keys()
            .into_iter()
            .map(|mut k| {
                k.default = defaults.get(k.field).cloned().unwrap_or(Value::Null);
                serde_json::to_value(k).expect("a key serialises")
            })
            .collect();
        let rules: Vec<Value> = Self::rules().iter().map(|r| serde_json::json!({ "key": r.key, "message": r.message })).collect();
        serde_json::json!({ "name": Self::NAME, "keys": keys, "rules": rules })
    }
}

pub fn dotted(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Declares a section: the struct (with serde reading in which every key is optional and takes
/// its default), `Default`, and its [`Section`] schema. Each field reads
///
/// ```text
/// field: Type = default, key "toml_key", schema::Type::…, schema::Range::…,
///     "What it is.", source "where the default comes from";
/// ```
///
/// and the rules, after the fields, `"key": |s| condition, "message when it fails";`.
#[macro_export]
macro_rules! section {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident ($section:literal) {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr ,
                    key $key:literal , $kind:expr , $range:expr ,
                    $doc:literal , source $source:literal ;
            )*
        }
        rules { $( $rkey:literal : |$s:ident| $cond:expr , $msg:literal ; )* }
    ) => {
        $(#[$smeta])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $(
                #[doc = $doc]
                $(#[$fmeta])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::schema::Section for $name {
            const NAME: &'static str = $section;
            fn keys() -> Vec<$crate::schema::Key> {
                vec![$(
                    $crate::schema::Key {
                        key: $key,
                        field: stringify!($field),
                        ty: $kind,
                        range: $range,
                        doc: $doc,
                        source: $source,
                        default: serde_json::Value::Null,
                    },
                )*]
            }
            fn rules() -> Vec<$crate::schema::Rule<Self>> {
                vec![$(
                    $crate::schema::Rule { key: $rkey, holds: |$s: &Self| $cond, message: $msg },
                )*]
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_describe_their_ends_with_the_unit() {
        assert_eq!(Range::closed(1.0, 65535.0).describe(Type::Size), "[1 B, 65535 B]");
        assert_eq!(Range::POSITIVE.describe(Type::Time), "(0 ps, inf]");
        assert_eq!(Range::above(0.0, 64.0).describe(Type::Number), "(0, 64]");
        assert!(Range::POSITIVE.contains(1.0) && !Range::POSITIVE.contains(0.0));
        assert!(Range::closed(0.0, 16.0).contains(16.0) && !Range::closed(0.0, 16.0).contains(17.0));
    }
}
