//! Congestion controllers as plugins: a BPF object (one restricted-C file compiled with `clang
//! -O2 -target bpf`, ABI in bpf/plugin_api.h, docs/plugins.md) loaded at run time, checked
//! (`check`), compiled by rbpf's x86-64 JIT (its interpreter elsewhere) and driven through the
//! `CongestionControl` trait (`vm::PluginCc`).
//!
//! A scenario names one as algorithm `plugin:<path of the .o>`. An object is read, checked and
//! compiled once per process (cached by path, size and modification time); every flow gets its own 480-byte
//! context and shares the compiled code. Every problem with an object is one `ConfigError` on
//! `cc.plugin` naming the file; a parameter problem names the parameter.

pub mod check;
mod elf;
pub mod layout;
mod vm;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::{CcContext, CongestionControl};
use crate::config::ConfigError;
pub use vm::PluginCc;

/// The entry points a plugin may define (section `?dccsim/<name>`), in `Entry` order.
pub const ENTRIES: [&str; 5] = ["init", "on_ack", "on_loss", "on_timeout", "on_timer"];

/// The plugin reads INT records: its packets carry the INT header and INT must be on.
pub const FLAG_NEEDS_INT: u32 = 1;
/// The plugin reads RTT samples from a send timestamp its packets carry (`host.ts_header`).
pub const FLAG_TIMESTAMP: u32 = 2;

/// One declared parameter (bpf/plugin_api.h `struct dccsim_param_meta`), values raw (× 2^shift).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ParamDecl {
    pub name: String,
    pub unit: String,
    pub description: String,
    pub default: i64,
    pub min: i64,
    pub max: i64,
    pub shift: u32,
}

impl ParamDecl {
    /// A raw value in the user's units.
    pub fn user(&self, raw: i64) -> f64 {
        raw as f64 / (1u64 << self.shift) as f64
    }
}

/// One traceable internal variable (`struct dccsim_trace_meta`): a field of the state area.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceDecl {
    /// Kept for the process's life (a plugin version is loaded once and cached, like its code),
    /// so the name can be a `CongestionControl::trace` name.
    pub name: &'static str,
    pub offset: u32,
    pub size: u32,
    pub shift: u32,
    pub signed: bool,
}

/// A loaded, checked and compiled plugin.
pub struct Plugin {
    pub path: String,
    pub params: Vec<ParamDecl>,
    pub trace: Vec<TraceDecl>,
    /// `.dccsim.flags` (DCCSIM_FLAGS): FLAG_NEEDS_INT, FLAG_TIMESTAMP.
    pub flags: u32,
    progs: [Option<vm::Program>; 5],
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plugin({})", self.path)
    }
}

fn cstr(b: &[u8]) -> Result<String, String> {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8(b[..end].to_vec()).map_err(|_| "a declared name is not UTF-8".to_string())
}
fn le_u32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn le_i64(b: &[u8], off: usize) -> i64 {
    i64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

const PARAM_META: usize = 32 + 16 + 112 + 3 * 8 + 8;
const TRACE_META: usize = 32 + 4 * 4;

fn parse_params(data: &[u8]) -> Result<Vec<ParamDecl>, String> {
    if data.len() % PARAM_META != 0 {
        return Err(format!(
            ".dccsim.params is {} bytes, not whole {PARAM_META}-byte records (rebuild with this plugin_api.h)",
            data.len()
        ));
    }
    let out: Vec<ParamDecl> = data
        .chunks(PARAM_META)
        .map(|r| {
            Ok(ParamDecl {
                name: cstr(&r[0..32])?,
                unit: cstr(&r[32..48])?,
                description: cstr(&r[48..160])?,
                default: le_i64(r, 160),
                min: le_i64(r, 168),
                max: le_i64(r, 176),
                shift: le_u32(r, 184),
            })
        })
        .collect::<Result<_, String>>()?;
    if out.len() > layout::MAX_PARAMS {
        return Err(format!("declares {} parameters; at most {}", out.len(), layout::MAX_PARAMS));
    }
    for p in &out {
        if p.shift > 40 || p.min > p.max || p.default < p.min || p.default > p.max || p.name.is_empty() {
            return Err(format!("parameter '{}': its default, min, max or shift are inconsistent", p.name));
        }
    }
    Ok(out)
}

fn parse_trace(data: &[u8]) -> Result<Vec<TraceDecl>, String> {
    if data.len() % TRACE_META != 0 {
        return Err(format!(".dccsim.trace is {} bytes, not whole {TRACE_META}-byte records", data.len()));
    }
    data.chunks(TRACE_META)
        .map(|r| {
            let t = TraceDecl {
                name: Box::leak(cstr(&r[0..32])?.into_boxed_str()),
                offset: le_u32(r, 32),
                size: le_u32(r, 36),
                shift: le_u32(r, 40),
                signed: le_u32(r, 44) != 0,
            };
            if !(t.size == 4 || t.size == 8) || t.offset as usize + t.size as usize > layout::STATE_BYTES || t.shift > 63 {
                return Err(format!("trace variable '{}' is not a 4- or 8-byte field of the state area", t.name));
            }
            Ok(t)
        })
        .collect()
}

impl Plugin {
    /// Read, check and compile a BPF object; Err is the message (without the path).
    pub fn from_bytes(path: &str, bytes: &[u8]) -> Result<Plugin, String> {
        let sections = elf::sections(bytes)?;
        let mut progs: [Option<vm::Program>; 5] = Default::default();
        let (mut params, mut trace, mut flags) = (Vec::new(), Vec::new(), 0);
        // the instructions each section has relocations for (a global variable, map or call)
        let mut relocated: Vec<Vec<usize>> = vec![Vec::new(); sections.len()];
        for s in &sections {
            if s.kind == elf::SHT_REL || s.kind == elf::SHT_RELA {
                let step = if s.kind == elf::SHT_REL { 16 } else { 24 };
                if let Some(r) = relocated.get_mut(s.info as usize) {
                    r.extend(s.data.chunks_exact(step).map(|e| (le_i64(e, 0) as usize) / 8));
                }
            }
        }
        for (i, s) in sections.iter().enumerate() {
            let name = s.name.strip_prefix('?').unwrap_or(s.name);
            if let Some(entry) = name.strip_prefix("dccsim/") {
                let k = ENTRIES.iter().position(|e| *e == entry).ok_or_else(|| {
                    format!("unknown entry section '{}'; allowed: {}", s.name, ENTRIES.map(|e| format!("dccsim/{e}")).join(", "))
                })?;
                check::check(s.data, layout::CTX_SIZE as i64, &relocated[i]).map_err(|e| format!("entry {entry}: {e}"))?;
                progs[k] = Some(vm::Program::compile(s.data).map_err(|e| format!("entry {entry}: {e}"))?);
            } else if name == ".dccsim.params" {
                params = parse_params(s.data)?;
            } else if name == ".dccsim.flags" {
                flags = match s.data {
                    [a, b, c, d] if u32::from_le_bytes([*a, *b, *c, *d]) <= (FLAG_NEEDS_INT | FLAG_TIMESTAMP) => {
                        u32::from_le_bytes([*a, *b, *c, *d])
                    }
                    _ => return Err(".dccsim.flags is not one known 32-bit flag word".into()),
                };
            } else if name == ".dccsim.trace" {
                trace = parse_trace(s.data)?;
            }
        }
        // after the entries, so that a call is reported as such
        for s in &sections {
            if s.name == ".text" && !s.data.is_empty() {
                return Err("code in .text (a function that is not inlined); mark every function static __always_inline".into());
            }
            if s.kind == elf::SHT_REL || s.kind == elf::SHT_RELA {
                let target = sections.get(s.info as usize).map(|t| t.name).unwrap_or("?");
                if target.starts_with(".BTF") || target.starts_with(".debug") {
                    continue; // debug information (-g) is not run
                }
                return Err(format!(
                    "section '{target}' has relocations (a global variable, map, or non-inlined function); plugins use none"
                ));
            }
        }
        if progs[1].is_none() {
            return Err("no dccsim/on_ack entry (DCCSIM_ENTRY(on_ack, ...))".into());
        }
        Ok(Plugin { path: path.to_string(), params, trace, flags, progs })
    }

    /// Load `path` once per process: cached by path, size and modification time (a flow's
    /// controller is built with one `stat`), and a changed file is read and checked again.
    pub fn load(path: &str) -> Result<Arc<Plugin>, ConfigError> {
        type Key = (String, u64, Option<std::time::SystemTime>);
        static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Plugin>>>> = OnceLock::new();
        let fail = |m: String| ConfigError::new("cc.plugin", format!("{path}: {m}"));
        let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let key = (path.to_string(), meta.len(), meta.modified().ok());
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let p = Arc::new(Plugin::from_bytes(path, &bytes).map_err(fail)?);
        cache.insert(key, p.clone());
        Ok(p)
    }

    /// The raw parameter values for `params` (a JSON object of user-unit numbers), checked
    /// against the declarations; errors name `<prefix>.<parameter>`.
    pub fn param_values(&self, params: &serde_json::Value, prefix: &str) -> Result<[i64; layout::MAX_PARAMS], ConfigError> {
        let mut raw = [0i64; layout::MAX_PARAMS];
        for (i, d) in self.params.iter().enumerate() {
            raw[i] = d.default;
        }
        let empty = serde_json::Map::new();
        let given = match params {
            serde_json::Value::Null => &empty,
            serde_json::Value::Object(m) => m,
            other => return Err(ConfigError::new(prefix, format!("expected a table of parameters, got {other}"))),
        };
        for (key, value) in given {
            let field = format!("{prefix}.{key}");
            let Some(i) = self.params.iter().position(|d| d.name == *key) else {
                let names: Vec<&str> = self.params.iter().map(|d| d.name.as_str()).collect();
                let allowed = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                return Err(ConfigError::new(&field, format!("unknown parameter of plugin {}; declared: {allowed}", self.path)));
            };
            let d = &self.params[i];
            let unit = if d.unit.is_empty() { String::new() } else { format!(" {}", d.unit) };
            let range = format!("a number in [{}, {}]{unit}", d.user(d.min), d.user(d.max));
            let v = value.as_f64().ok_or_else(|| ConfigError::new(&field, format!("must be {range}, got {value}")))?;
            let r = (v * (1u64 << d.shift) as f64).floor();
            if !(r >= d.min as f64 && r <= d.max as f64) {
                return Err(ConfigError::new(&field, format!("must be {range}, got {v}")));
            }
            raw[i] = r as i64;
        }
        Ok(raw)
    }

    /// Declarations as JSON: {"path", "params": [...], "trace": [...], "entries": [...]}.
    pub fn describe(&self) -> serde_json::Value {
        let entries: Vec<&str> = ENTRIES.iter().zip(&self.progs).filter(|(_, p)| p.is_some()).map(|(e, _)| *e).collect();
        let interpreted: Vec<&str> =
            ENTRIES.iter().zip(&self.progs).filter(|(_, p)| p.as_ref().is_some_and(|p| !p.jit)).map(|(e, _)| *e).collect();
        serde_json::json!({
            "path": self.path, "params": self.params, "trace": self.trace, "entries": entries,
            "interpreted": interpreted,
            "needs_int": self.flags & FLAG_NEEDS_INT != 0,
        })
    }
}

/// Build a controller from the plugin object at `path` (the `cc::build` hook).
/// The static facts of the plugin at `path` (its `.dccsim.flags`); the defaults when it cannot
/// be loaded (`build` then reports why).
pub fn caps(path: &str) -> super::Caps {
    let mut caps = super::Caps::DEFAULT;
    if let Ok(p) = Plugin::load(path) {
        caps.needs_int = p.flags & FLAG_NEEDS_INT != 0;
        caps.study_nic.header = if caps.needs_int {
            super::Header::Int
        } else if p.flags & FLAG_TIMESTAMP != 0 {
            super::Header::Timestamp
        } else {
            super::Header::None
        };
    }
    caps
}

pub fn build(path: &str, params: &serde_json::Value, ctx: &CcContext) -> Result<Box<dyn CongestionControl>, ConfigError> {
    let plugin = Plugin::load(path)?;
    let raw = plugin.param_values(params, "cc")?;
    Ok(Box::new(PluginCc::new(plugin, &raw, ctx)))
}

#[cfg(test)]
mod tests;
