//! An algorithm's parameters, declared once beside its law with [`cc_params!`]: each field with
//! its type, range, unit, paper symbol, description and the source of its default, and the
//! algorithm's cross-field rules under its fields. From that one declaration come the parameter
//! struct (serde reading, `Default`), the engine's check (`check`: errors named by the dotted
//! key, `cc.t_low_us`), and the description `cc::describe()` gives the Python front, which checks
//! scenarios, lists algorithms and writes the table of docs/scenario.md from it. The vocabulary
//! (`schema::Key`, `Type`, `Range`, `Rule`) is the scenario schema's (schema.rs).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::ConfigError;
use crate::schema::{dotted, Key, Range, Rule, Type};

// The ranges. A bound is the widest value the law is defined for (a gain in (0, 1], a factor in
// (0, 1)) or, where the law has no bound, a generous limit that catches a slip of units (1e9
// where 0.1 was meant): the SANE_* below.

/// Windows and increases in MSS (or packets): a million packets is beyond any datacenter BDP.
pub const SANE_MSS: f64 = 1e6;
/// Windows and increases in bytes: 1 TB.
pub const SANE_BYTES: f64 = 1e12;
/// Rates in bits/s: 10 Tbit/s.
pub const SANE_RATE: f64 = 1e13;
/// Times in microseconds: 1000 s.
pub const SANE_US: f64 = 1e9;
/// The largest count a `u32` parameter holds.
pub const U32: f64 = u32::MAX as f64;

/// EWMA gains, α: (0, 1].
pub const GAIN: Range = Range::above(0.0, 1.0);
/// A multiplicative decrease: (0, 1).
pub const FACTOR: Range = Range { min: 0.0, max: 1.0, min_open: true, max_open: true };
/// A fraction: [0, 1].
pub const FRACTION: Range = Range::closed(0.0, 1.0);
pub const MSS: Range = Range::closed(0.0, SANE_MSS);
pub const POS_MSS: Range = Range::above(0.0, SANE_MSS);
pub const BYTES: Range = Range::above(0.0, SANE_BYTES);
pub const RATE: Range = Range::above(0.0, SANE_RATE);
pub const US: Range = Range::closed(0.0, SANE_US);
pub const POS_US: Range = Range::above(0.0, SANE_US);
pub const COUNT: Range = Range::closed(0.0, U32);
pub const POS_COUNT: Range = Range::closed(1.0, U32);
/// β of the multipath cut w·(1 − 1/β): above 1 keeps a positive window; beyond 1000 no study goes.
pub const MP_BETA: Range = Range::above(1.0, 1000.0);

/// The window laws' shared rule, written once: the initial window within the ceiling, where a
/// ceiling of 0 means unbounded. Each law names it beside its fields:
/// `"init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;`.
pub fn init_within_max(init_mss: f64, max_mss: f64) -> bool {
    max_mss == 0.0 || init_mss <= max_mss
}

/// The message of [`init_within_max`].
pub const INIT_WITHIN_MAX: &str = "must not exceed max_cwnd_mss (0 = unbounded)";

/// One parameter: its schema key (the scenario key and the engine's field are the same name),
/// its unit (the parameter is a plain number in that unit, named in its key: `_us`, `_bps`), the
/// symbol the paper writes it with, and an older spelling still read (`variant` for `law`).
#[derive(Clone, Debug)]
pub struct Param {
    pub key: Key,
    pub unit: &'static str,
    pub symbol: &'static str,
    pub alias: Option<&'static str>,
}

impl Serialize for Param {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut v = serde_json::to_value(&self.key).map_err(serde::ser::Error::custom)?;
        let m = v.as_object_mut().expect("a key serialises to an object");
        m.insert("unit".into(), self.unit.into());
        m.insert("symbol".into(), self.symbol.into());
        m.insert("doc".into(), paragraph(self.key.doc).into());
        m.insert("alias".into(), self.alias.into());
        m.insert("allowed".into(), allowed(&self.key).into());
        v.serialize(s)
    }
}

/// The values a key takes, as the errors word them (`a number in (0, 1]`).
pub fn allowed(k: &Key) -> String {
    match k.ty {
        Type::Number => describe_number(&k.range),
        Type::Count => describe_count(&k.range),
        Type::Bool => "true or false".into(),
        Type::Choice(names) => format!("one of {}", names.join(", ")),
        Type::Numbers => format!("an ascending list of {}", describe_number(&k.range)),
        _ => String::new(),
    }
}

/// Doc-comment lines as one paragraph.
fn paragraph(doc: &str) -> String {
    doc.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// A parameter struct declared with [`cc_params!`].
pub trait Params: Sized + Default + Serialize + serde::de::DeserializeOwned {
    fn params() -> Vec<Param>;
    fn rules() -> Vec<Rule<Self>>;
}

/// What an algorithm's registration holds of its parameters, with the type erased.
#[derive(Clone, Copy)]
pub struct ParamSet {
    /// `{"keys": [...], "rules": [{"key", "message"}]}` with each key's default.
    pub describe: fn() -> Value,
    /// The check of `check` without building anything.
    pub check: fn(&str, &Value, &str) -> Result<(), ConfigError>,
}

impl ParamSet {
    pub const fn of<P: Params>() -> ParamSet {
        ParamSet { describe: describe::<P>, check: check_only::<P> }
    }
}

fn describe<P: Params>() -> Value {
    let defaults = serde_json::to_value(P::default()).expect("parameter defaults serialise");
    let keys: Vec<Value> = P::params()
        .into_iter()
        .map(|mut p| {
            p.key.default = defaults.get(p.key.field).cloned().unwrap_or(Value::Null);
            serde_json::to_value(p).expect("a parameter serialises")
        })
        .collect();
    let rules: Vec<Value> = P::rules().iter().map(|r| serde_json::json!({ "key": r.key, "message": r.message })).collect();
    serde_json::json!({ "keys": keys, "rules": rules })
}

fn check_only<P: Params>(algorithm: &str, given: &Value, prefix: &str) -> Result<(), ConfigError> {
    check::<P>(algorithm, given, prefix).map(|_| ())
}

/// `given` (the scenario's table of `algorithm`'s parameters, `null` for none) read as `P`: every
/// key known, of its type and within its range, and every rule held; errors name `prefix.key`.
pub fn check<P: Params>(algorithm: &str, given: &Value, prefix: &str) -> Result<P, ConfigError> {
    let empty = Map::new();
    let table = match given {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => return Err(ConfigError::new(prefix, format!("expected a table of {algorithm}'s parameters, got {}", show(other)))),
    };
    let params = P::params();
    for (k, v) in table {
        let Some(p) = params.iter().find(|p| p.key.key == k || p.alias == Some(k.as_str())) else {
            let names: Vec<&str> = params.iter().map(|p| p.key.key).collect();
            return Err(ConfigError::new(&dotted(prefix, k), format!("unknown parameter of {algorithm}; allowed: {}", names.join(", "))));
        };
        if p.alias == Some(k.as_str()) && table.contains_key(p.key.key) {
            return Err(ConfigError::new(&dotted(prefix, k), format!("is the old name of {}; give only {}", p.key.key, p.key.key)));
        }
        check_value(&p.key, v, &dotted(prefix, k))?;
    }
    let read: P = serde_json::from_value(Value::Object(table.clone())).map_err(|e| ConfigError::new(prefix, e.to_string()))?;
    for r in P::rules() {
        if !(r.holds)(&read) {
            return Err(ConfigError::new(&dotted(prefix, r.key), r.message));
        }
    }
    Ok(read)
}

/// One value against its key. `null` stands for "not given" (the default) and is left to serde,
/// which takes it for a parameter whose default is derived and refuses it elsewhere.
fn check_value(k: &Key, v: &Value, field: &str) -> Result<(), ConfigError> {
    if v.is_null() {
        return Ok(());
    }
    let number = |v: &Value, field: &str| -> Result<(), ConfigError> {
        match v.as_f64() {
            Some(x) if v.is_number() => {
                if k.range.contains(x) {
                    Ok(())
                } else {
                    Err(ConfigError::new(field, format!("must be {}, got {}", describe_number(&k.range), show(v))))
                }
            }
            _ => Err(ConfigError::new(field, format!("expected {}, got {} {}", describe_number(&k.range), type_name(v), show(v)))),
        }
    };
    match k.ty {
        Type::Number => number(v, field),
        Type::Count => {
            let ok = (v.is_u64() || v.is_i64()) && v.as_f64().is_some_and(|x| k.range.contains(x));
            if ok {
                Ok(())
            } else {
                Err(ConfigError::new(field, format!("must be {}, got {}", describe_count(&k.range), show(v))))
            }
        }
        Type::Bool => match v {
            Value::Bool(_) => Ok(()),
            _ => Err(ConfigError::new(field, format!("expected true or false, got {}", show(v)))),
        },
        Type::Choice(names) => match v.as_str() {
            Some(s) if names.contains(&s) => Ok(()),
            _ => Err(ConfigError::new(field, format!("unknown value {}; allowed: {}", show(v), names.join(", ")))),
        },
        Type::Numbers => {
            let Some(items) = v.as_array() else {
                return Err(ConfigError::new(
                    field,
                    format!("expected an ascending list of {}, got {}", describe_number(&k.range), show(v)),
                ));
            };
            for (i, x) in items.iter().enumerate() {
                number(x, &format!("{field}[{i}]"))?;
            }
            if items.windows(2).any(|w| w[1].as_f64() <= w[0].as_f64()) {
                return Err(ConfigError::new(field, format!("must be strictly ascending, got {}", show(v))));
            }
            Ok(())
        }
        Type::Size | Type::Time | Type::Rate | Type::Name | Type::Names | Type::Lists | Type::Table(_) | Type::Tables(_) => {
            unreachable!("{field}: an algorithm parameter is a number, count, bool, choice or list of numbers")
        }
    }
}

/// `a number in (0, 1]`, the bounds as Python's `%g` writes them (the front's wording).
pub fn describe_number(r: &Range) -> String {
    let hi = if r.max == f64::INFINITY { "inf".to_string() } else { g(r.max) };
    format!("a number in {}{}, {}{}", if r.min_open { '(' } else { '[' }, g(r.min), hi, if r.max_open { ')' } else { ']' })
}

/// `an integer in [0, 4294967295]`.
pub fn describe_count(r: &Range) -> String {
    format!("an integer in [{}, {}]", r.min as i64, r.max as i64)
}

/// `x` as C's `%g`: six significant digits, exponent form below 1e-4 or from 1e6, no trailing
/// zeros (`1e+13`, `0.875`, `100`).
pub fn g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let sci = format!("{x:.5e}"); // d.ddddde±x, rounded to six significant digits
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("an exponent");
    let trim = |s: &str| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() };
    if !(-4..6).contains(&exp) {
        format!("{}e{}{:02}", trim(mantissa), if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        trim(&format!("{:.*}", (5 - exp) as usize, x))
    }
}

/// A value as the message shows it: a string in quotes, anything else as JSON.
fn show(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    };
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "table",
    }
}

/// Declares an algorithm's parameter struct: the struct (serde reading in which every key is
/// optional and takes its default, unknown keys refused), `Default`, and its [`Params`] schema.
/// Each field, under its doc comment (the description), reads
///
/// ```text
/// field: Type = default, schema::Type::…, range, unit "µs", symbol "T_low",
///     source "where the default comes from" [, alias "old_name"];
/// ```
///
/// and the rules, after the fields, `"key": |p| condition, "message when it fails";` with `key`
/// the first field the rule concerns.
macro_rules! cc_params {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty = $default:expr , $kind:expr , $range:expr ,
                    unit $unit:literal , symbol $symbol:literal , source $source:literal
                    $(, alias $alias:literal)? ;
            )*
        }
        rules { $( $rkey:literal : |$s:ident| $cond:expr , $msg:expr ; )* }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                $(#[serde(alias = $alias)])?
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::cc::params::Params for $name {
            fn params() -> Vec<$crate::cc::params::Param> {
                vec![$(
                    $crate::cc::params::Param {
                        key: $crate::schema::Key {
                            key: stringify!($field),
                            field: stringify!($field),
                            ty: $kind,
                            range: $range,
                            required: false,
                            doc: concat!($($doc, "\n",)*),
                            source: $source,
                            default: serde_json::Value::Null,
                        },
                        unit: $unit,
                        symbol: $symbol,
                        alias: None $(.or(Some($alias)))?,
                    },
                )*]
            }
            #[allow(unused_variables)]
            fn rules() -> Vec<$crate::schema::Rule<Self>> {
                vec![$(
                    $crate::schema::Rule { key: $rkey, holds: |$s: &Self| $cond, message: $msg },
                )*]
            }
        }
    };
}

pub(crate) use cc_params;

/// A rate-based law keeps its rate in [min_rate, line rate]: a minimum above the sender's line
/// rate contradicts it (TIMELY's clamp would fail). Errors name `cc.<key>`.
pub fn check_min_rate(key: &str, min_rate_bps: f64, ctx: &super::CcContext) -> Result<(), ConfigError> {
    if min_rate_bps > ctx.host_rate_bps {
        let line = ctx.host_rate_bps;
        return Err(ConfigError::new(
            &format!("cc.{key}"),
            format!("must not exceed the sender's line rate ({line} bit/s), got {min_rate_bps}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_percent_g() {
        assert_eq!(g(1e13), "1e+13");
        assert_eq!(g(1e12), "1e+12");
        assert_eq!(g(1e6), "1e+06");
        assert_eq!(g(1000.0), "1000");
        assert_eq!(g(0.875), "0.875");
        assert_eq!(g(1.0), "1");
        assert_eq!(g(0.0), "0");
        assert_eq!(g(1e-5), "1e-05");
        assert_eq!(describe_number(&GAIN), "a number in (0, 1]");
        assert_eq!(describe_number(&Range::at_least(0.0)), "a number in [0, inf]");
        assert_eq!(describe_count(&COUNT), "an integer in [0, 4294967295]");
    }
}
