//! The few things the plugin loader reads from a BPF object: its sections by name, and whether
//! any section has relocations. An ELF64 little-endian relocatable file (what `clang -target bpf
//! -c` writes); anything else is refused with what was wrong.

/// One section: its name and contents (empty for NOBITS sections).
pub struct Section<'a> {
    pub name: &'a str,
    pub kind: u32,
    pub data: &'a [u8],
    /// For a relocation section, the index of the section it applies to.
    pub info: u32,
}

pub const SHT_NOBITS: u32 = 8;
pub const SHT_REL: u32 = 9;
pub const SHT_RELA: u32 = 4;
const EM_BPF: u16 = 247;

fn u16_at(b: &[u8], off: usize) -> Result<u16, String> {
    b.get(off..off + 2).map(|s| u16::from_le_bytes([s[0], s[1]])).ok_or_else(|| "truncated ELF header".to_string())
}
fn u32_at(b: &[u8], off: usize) -> Result<u32, String> {
    b.get(off..off + 4).map(|s| u32::from_le_bytes(s.try_into().unwrap())).ok_or_else(|| "truncated ELF header".to_string())
}
fn u64_at(b: &[u8], off: usize) -> Result<u64, String> {
    b.get(off..off + 8).map(|s| u64::from_le_bytes(s.try_into().unwrap())).ok_or_else(|| "truncated ELF header".to_string())
}

/// Every section of the object, in file order.
pub fn sections(b: &[u8]) -> Result<Vec<Section<'_>>, String> {
    if b.len() < 64 || &b[0..4] != b"\x7fELF" {
        return Err("not an ELF object (compile it with clang -O2 -target bpf -c)".into());
    }
    if b[4] != 2 || b[5] != 1 {
        return Err("not a 64-bit little-endian ELF object (use -target bpf, i.e. bpfel)".into());
    }
    if u16_at(b, 18)? != EM_BPF {
        return Err("not a BPF object (compile it with -target bpf)".into());
    }
    let shoff = u64_at(b, 40)? as usize;
    let shentsize = u16_at(b, 58)? as usize;
    let shnum = u16_at(b, 60)? as usize;
    let shstrndx = u16_at(b, 62)? as usize;
    if shentsize < 64 || shstrndx >= shnum {
        return Err("malformed ELF section table".into());
    }
    let header = |i: usize| -> Result<(u32, u32, usize, usize, u32), String> {
        let h = shoff.checked_add(i.checked_mul(shentsize).ok_or("malformed ELF section table")?).ok_or("malformed ELF section table")?;
        Ok((u32_at(b, h)?, u32_at(b, h + 4)?, u64_at(b, h + 24)? as usize, u64_at(b, h + 32)? as usize, u32_at(b, h + 44)?))
    };
    let body = |kind: u32, off: usize, size: usize| -> Result<&[u8], String> {
        if kind == SHT_NOBITS {
            return Ok(&[]);
        }
        off.checked_add(size).and_then(|end| b.get(off..end)).ok_or_else(|| "ELF section outside the file".to_string())
    };
    let (_, skind, soff, ssize, _) = header(shstrndx)?;
    let names = body(skind, soff, ssize)?;
    let mut out = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let (name_off, kind, off, size, info) = header(i)?;
        let raw = names.get(name_off as usize..).ok_or("malformed ELF section name")?;
        let end = raw.iter().position(|&c| c == 0).ok_or("malformed ELF section name")?;
        let name = std::str::from_utf8(&raw[..end]).map_err(|_| "malformed ELF section name")?;
        out.push(Section { name, kind, data: body(kind, off, size)?, info });
    }
    Ok(out)
}
