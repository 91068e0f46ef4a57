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

use std::fmt;

/// A configuration error (`config::ConfigError`): which field, and what is wrong with it (including the allowed values).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: &str, message: impl Into<String>) -> Self {
        ConfigError { field: field.to_string(), message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

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
    /// A name (a node such as `"h0"` or `"s1"`).
    Name,
    /// A list of names (ports such as `"tor0->h16"`, switches).
    Names,
    /// A list of finite numbers, each within the key's range (e.g. Homa's priority cutoffs).
    Numbers,
    /// A list of lists of whole numbers (an rdcn's circuit schedule).
    Lists,
    /// A table with a schema of its own (the named section), or, where the section says so,
    /// another form the front reads with its own rule (e.g. `pfc = true`). Under an empty scenario
    /// key (`key ""`) the sub-section's keys are written in the parent's table itself and the
    /// engine's JSON nests them under the field (an rdcn's `circuit`).
    Table(&'static str),
    /// A list of tables, each of the named section.
    Tables(&'static str),
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
            Type::Name => "name",
            Type::Names => "names",
            Type::Numbers => "numbers",
            Type::Lists => "lists",
            Type::Table(_) => "table",
            Type::Tables(_) => "tables",
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

    /// `"> 0 B"`, `">= 1"`, `"in [1 B, 64 KiB]"`, `"in (0, 64]"`.
    pub fn describe(&self, ty: Type) -> String {
        if self.max.is_infinite() {
            return format!("{} {}", if self.min_open { ">" } else { ">=" }, show(self.min, ty));
        }
        format!(
            "in {}{}, {}{}",
            if self.min_open { '(' } else { '[' },
            if self.min.is_infinite() { "-inf".to_string() } else { show(self.min, ty) },
            show(self.max, ty),
            if self.max_open { ')' } else { ']' }
        )
    }
}

fn show(x: f64, ty: Type) -> String {
    let n = |x: f64| if x.fract() == 0.0 && x.abs() < 1e18 { format!("{}", x as i64) } else { format!("{x}") };
    let scaled = |units: &[(f64, &str)]| {
        let exact = units.iter().filter(|(f, _)| x != 0.0 && (x / f).fract() == 0.0);
        let (f, u) = exact.max_by(|a, b| a.0.total_cmp(&b.0)).unwrap_or(&units[0]);
        format!("{} {u}", n(x / f))
    };
    match ty {
        Type::Size => scaled(&[
            (1.0, "B"),
            (1e3, "KB"),
            (1024.0, "KiB"),
            (1e6, "MB"),
            (1048576.0, "MiB"),
            (1e9, "GB"),
            (1073741824.0, "GiB"),
            (1e12, "TB"),
            (1099511627776.0, "TiB"),
        ]),
        Type::Time => scaled(&[(1.0, "ps"), (1e3, "ns"), (1e6, "us"), (1e9, "ms"), (1e12, "s")]),
        Type::Rate => scaled(&[(1.0, "bps"), (1e3, "Kbps"), (1e6, "Mbps"), (1e9, "Gbps")]),
        _ => n(x),
    }
}

/// One key of a section.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key in a scenario file (`payload`); empty for a field the front derives from
    /// another key (the section's reader says which).
    pub key: &'static str,
    /// The field in the engine's JSON and struct (`payload_bytes`).
    pub field: &'static str,
    pub ty: Type,
    pub range: Range,
    /// A scenario must give it (the front refuses a table without it; its default only fills
    /// the struct).
    pub required: bool,
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
            Type::Table(section) | Type::Tables(section) => {
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
        m.insert("required".into(), self.required.into());
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
                    format!("must be {}, got {}", k.range.describe(k.ty), show(x, k.ty)),
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

/// The first key of `value` (a section's JSON object) that the section cannot read on its own
/// (a number too large for its field, a wrong type), as an error naming `prefix.key`.
pub fn unreadable_key<T: Section>(value: &Value, prefix: &str) -> Option<ConfigError> {
    let base = serde_json::to_value(T::default()).ok()?;
    let keys = T::keys();
    value.as_object()?.iter().find_map(|(field, v)| {
        let mut one = base.clone();
        one.as_object_mut()?.insert(field.clone(), v.clone());
        let err = serde_json::from_value::<T>(one).err()?;
        let k = keys.iter().find(|k| k.field == field);
        let name = k.map_or(field.as_str(), |k| if k.key.is_empty() { k.field } else { k.key });
        let text = err.to_string();
        let message = match (k, v.as_f64()) {
            (Some(k), Some(x)) if !k.range.contains(x) => format!("must be {}, got {}", k.range.describe(k.ty), show(x, k.ty)),
            _ => text.split(" at line").next().unwrap_or(&text).to_string(),
        };
        Some(ConfigError::new(&dotted(prefix, name), message))
    })
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
/// (`key "k" required, …` for a key a scenario must give) and the rules, after the fields,
/// `"key": |s| condition, "message when it fails";`.
#[macro_export]
macro_rules! section {
    (@required) => { false };
    (@required required) => { true };
    // A section read as the payload of a tagged enum (`kind = …`, `config::Ecn`): serde passes it
    // the tag, so it cannot refuse unknown fields itself (the enum and the front do).
    (
        $(#[$smeta:meta])*
        pub struct $name:ident ($section:literal) tagged $($rest:tt)*
    ) => {
        $crate::section!(@emit [serde(default)] $(#[$smeta])* pub struct $name ($section) $($rest)*);
    };
    (
        $(#[$smeta:meta])*
        pub struct $name:ident ($section:literal) $($rest:tt)*
    ) => {
        $crate::section!(@emit [serde(default, deny_unknown_fields)] $(#[$smeta])* pub struct $name ($section) $($rest)*);
    };
    (
        @emit [$serde:meta]
        $(#[$smeta:meta])*
        pub struct $name:ident ($section_name:literal) {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr ,
                    key $key:literal $($required:ident)? , $kind:expr , $range:expr ,
                    $doc:literal , source $source:literal ;
            )*
        }
        rules { $( $rkey:literal : |$s:ident| $cond:expr , $msg:literal ; )* }
    ) => {
        $(#[$smeta])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        #[$serde]
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
            const NAME: &'static str = $section_name;
            fn keys() -> Vec<$crate::schema::Key> {
                vec![$(
                    $crate::schema::Key {
                        key: $key,
                        field: stringify!($field),
                        ty: $kind,
                        range: $range,
                        required: $crate::section!(@required $($required)?),
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

/// Declares a kind-tagged enum whose kinds are sections (`[topology]`: `kind = "fattree"` and
/// that kind's keys). Each kind is written once, as a [`section!`] is: its fields with their
/// scenario key, type, range, description and source of the default, then its rules. From that
/// one declaration come the enum (a struct variant per kind, serde-tagged by `kind`, so the engine
/// matches `Topology::Fattree { pods, .. }` directly), one section struct per kind (named after
/// `as`; its schema is the kind's, `NAME` = `"<section>.<kind>"`), `kind_check` (the kind's
/// ranges and rules, errors named by `prefix.key`) and `kind_sections` (each kind's section
/// description with `"tag": {"of": "<section>", "kind": "<kind>"}`, for the front).
#[macro_export]
macro_rules! kinds {
    (
        $(#[$emeta:meta])*
        pub enum $enum:ident ($of:literal) {
            $(
                $(#[$vmeta:meta])*
                $variant:ident ($kind:literal, $section:literal) as $sname:ident {
                    $(
                        $(#[$fmeta:meta])*
                        $field:ident : $ty:ty = $default:expr ,
                            key $key:literal $($required:ident)? , $fkind:expr , $range:expr ,
                            $doc:literal , source $source:literal ;
                    )*
                }
                rules { $( $rkey:literal : |$s:ident| $cond:expr , $msg:literal ; )* }
            )*
        }
    ) => {
        $(#[$emeta])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum $enum {
            $(
                $(#[$vmeta])*
                #[serde(rename = $kind)]
                $variant {
                    $(
                        #[doc = $doc]
                        $(#[$fmeta])*
                        $field: $ty,
                    )*
                },
            )*
        }

        $(
            $crate::section! {
                #[doc = concat!("The keys of `", $of, "` of kind `", $kind, "` (the schema of `", stringify!($enum), "::", stringify!($variant), "`).")]
                pub struct $sname ($section) {
                    $(
                        $(#[$fmeta])*
                        $field: $ty = $default,
                            key $key $($required)?, $fkind, $range,
                            $doc, source $source;
                    )*
                }
                rules { $( $rkey: |$s| $cond, $msg; )* }
            }
        )*

        impl $enum {
            /// The kinds, as a scenario names them.
            pub const KINDS: &'static [&'static str] = &[$($kind),*];

            /// `value` (a kind's table in the engine's JSON, without `kind`) read as kind `kind`;
            /// a key it cannot hold is named `prefix.key` (`unreadable_key`). None: no such kind.
            pub fn read_kind(kind: &str, value: serde_json::Value, prefix: &str) -> Option<Result<Self, $crate::schema::ConfigError>> {
                let whole = |mut value: serde_json::Value| {
                    if let Some(m) = value.as_object_mut() {
                        m.insert("kind".into(), kind.into());
                    }
                    serde_json::from_value::<$enum>(value).map_err(|e| $crate::schema::ConfigError::new(prefix, e.to_string()))
                };
                match kind {
                    $( $kind => Some(match serde_json::from_value::<$sname>(value.clone()) {
                        Ok(_) => whole(value),
                        Err(e) => Err($crate::schema::unreadable_key::<$sname>(&value, prefix)
                            .unwrap_or_else(|| $crate::schema::ConfigError::new(prefix, e.to_string()))),
                    }), )*
                    _ => None,
                }
            }

            /// The scenario's name of this kind.
            pub fn kind(&self) -> &'static str {
                match self { $( $enum::$variant { .. } => $kind, )* }
            }

            /// The kind's own ranges and rules (its section's `check`); errors name `prefix.key`.
            pub fn kind_check(&self, prefix: &str) -> Result<(), $crate::schema::ConfigError> {
                use $crate::schema::Section;
                let mut v = serde_json::to_value(self).expect("a kind serialises");
                v.as_object_mut().expect("a kind is a table").remove("kind");
                match self {
                    $( $enum::$variant { .. } => serde_json::from_value::<$sname>(v).expect("a kind reads as its section").check(prefix), )*
                }
            }

            /// Each kind's section description, tagged with the kind (`config::sections`).
            pub fn kind_sections() -> Vec<serde_json::Value> {
                use $crate::schema::Section;
                vec![$( {
                    let mut d = <$sname>::describe();
                    d["tag"] = serde_json::json!({ "of": $of, "kind": $kind });
                    d
                }, )*]
            }
        }
    };
}
