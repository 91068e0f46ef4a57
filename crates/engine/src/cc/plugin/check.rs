//! The plugin checker: proves, before a program runs, that it cannot hang, touch memory outside
//! its context and stack, read a stack byte it did not write, or leak an address into a result —
//! the guarantees the rbpf x86 JIT does not give at run time (it has no bounds checks and no
//! instruction budget). It is stricter than the kernel's verifier on purpose, so that it stays
//! small:
//!
//! - no CALL (helpers or BPF-to-BPF: the JIT gives a callee its caller's frame), no atomics, no
//!   legacy packet loads, no map or global-data references (`lddw` with a source register);
//! - every jump goes forward: the program is a DAG, so one pass in instruction order visits each
//!   instruction once with the merge of every path into it, and a call runs at most as many
//!   instructions as the program has;
//! - registers are tracked as uninitialised, scalar, or a pointer at a constant offset from the
//!   context (r1 at entry) or the frame (r10); loads and stores need a pointer operand whose
//!   access lies inside the 480-byte context or the 512-byte stack; pointers may be moved, offset
//!   by constants and spilled to 8-byte stack slots, nothing else (no arithmetic, comparison,
//!   store into the context, or return of an address).

/// Bytes of stack a program may use (the BPF frame).
pub const STACK: i64 = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reg {
    Uninit,
    Scalar,
    Ctx(i64),
    Stack(i64),
    /// A value no instruction may use, with the reason.
    Bad(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Scalar,
    Ptr(Reg),
    /// Partly overwritten pointer: its remaining bytes are an address.
    Poison,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct State {
    regs: [Reg; 11],
    init: [u64; 8],
    slots: [Slot; 64],
}

impl State {
    fn entry() -> State {
        let mut regs = [Reg::Uninit; 11];
        regs[1] = Reg::Ctx(0);
        regs[10] = Reg::Stack(0);
        State { regs, init: [0; 8], slots: [Slot::Scalar; 64] }
    }
    fn join(&mut self, o: &State) {
        for (a, b) in self.regs.iter_mut().zip(o.regs.iter()) {
            *a = match (*a, *b) {
                (x, y) if x == y => x,
                (Reg::Uninit, _) | (_, Reg::Uninit) => Reg::Uninit,
                (Reg::Bad(r), _) | (_, Reg::Bad(r)) => Reg::Bad(r),
                (Reg::Scalar, Reg::Scalar) => Reg::Scalar,
                _ => Reg::Bad("a pointer whose target differs between paths"),
            };
        }
        for (a, b) in self.init.iter_mut().zip(o.init.iter()) {
            *a &= *b;
        }
        for (a, b) in self.slots.iter_mut().zip(o.slots.iter()) {
            if *a != *b {
                *a = Slot::Poison;
            }
        }
    }
    /// Stack bytes [lo, lo+size) relative to the frame's top (lo < 0): index range into init.
    fn bytes(lo: i64, size: i64) -> std::ops::Range<usize> {
        (lo + STACK) as usize..(lo + STACK + size) as usize
    }
    fn is_init(&self, lo: i64, size: i64) -> bool {
        Self::bytes(lo, size).all(|i| self.init[i / 64] >> (i % 64) & 1 == 1)
    }
    fn set_init(&mut self, lo: i64, size: i64) {
        for i in Self::bytes(lo, size) {
            self.init[i / 64] |= 1 << (i % 64);
        }
    }
    fn slots_of(lo: i64, size: i64) -> std::ops::Range<usize> {
        let r = Self::bytes(lo, size);
        r.start / 8..r.end.div_ceil(8)
    }
}

fn size_of(opc: u8) -> i64 {
    match (opc >> 3) & 3 {
        0 => 4,
        1 => 2,
        2 => 1,
        _ => 8,
    }
}

/// Check one program (the instructions of one entry section; `relocated`: the indices of the
/// instructions the object file has relocations for); Err names the instruction.
pub fn check(prog: &[u8], ctx_size: i64, relocated: &[usize]) -> Result<(), String> {
    if prog.is_empty() || prog.len() % 8 != 0 {
        return Err("entry section is empty or not whole instructions".into());
    }
    let n = prog.len() / 8;
    if n > 65_536 {
        return Err(format!("program has {n} instructions; at most 65536"));
    }
    let insn = |pc: usize| {
        let b = &prog[pc * 8..pc * 8 + 8];
        (b[0], b[1] & 0xf, b[1] >> 4, i16::from_le_bytes([b[2], b[3]]) as i64, i32::from_le_bytes([b[4], b[5], b[6], b[7]]) as i64)
    };
    let mut states: Vec<Option<State>> = vec![None; n + 1];
    states[0] = Some(State::entry());
    let mut pc = 0;
    while pc < n {
        let Some(mut s) = states[pc].take() else {
            pc += 1;
            continue; // unreachable from the entry
        };
        let (opc, dst, src, off, imm) = insn(pc);
        let at = |what: String| format!("instruction {pc}: {what}");
        let reg = |s: &State, r: u8| -> Result<Reg, String> {
            match s.regs.get(r as usize) {
                None => Err(at(format!("invalid register r{r}"))),
                Some(Reg::Uninit) => Err(at(format!("reads r{r} before it is written"))),
                Some(Reg::Bad(why)) => Err(at(format!("uses r{r}, {why}"))),
                Some(k) => Ok(*k),
            }
        };
        let scalar = |s: &State, r: u8| -> Result<(), String> {
            match reg(s, r)? {
                Reg::Scalar => Ok(()),
                _ => Err(at(format!("r{r} holds an address here (addresses may only be offset by constants and dereferenced)"))),
            }
        };
        if dst > 10 || src > 10 {
            return Err(at("invalid register".into()));
        }
        let class = opc & 7;
        let mut next = vec![pc + 1];
        match class {
            // LD: only lddw of a constant
            0 => {
                if opc != 0x18 {
                    return Err(at(format!("opcode {opc:#04x} (legacy packet load) is not allowed")));
                }
                if src != 0 {
                    return Err(at(
                        "references a map or global data; plugins use neither (parameters and state live in the context)".into()
                    ));
                }
                if pc + 1 >= n {
                    return Err(at("incomplete 64-bit immediate load".into()));
                }
                if dst == 10 {
                    return Err(at("writes the frame pointer r10".into()));
                }
                s.regs[dst as usize] = if relocated.contains(&pc) {
                    Reg::Bad("the address of a global variable or map (plugins use neither: state and parameters live in the context)")
                } else {
                    Reg::Scalar
                };
                next = vec![pc + 2];
            }
            // LDX / ST / STX
            1..=3 => {
                if opc & 0xe0 != 0x60 {
                    let what = if class == 3 && opc & 0xe0 == 0xc0 { "atomic operation" } else { "memory-access mode" };
                    return Err(at(format!("opcode {opc:#04x} ({what}) is not allowed")));
                }
                let size = size_of(opc);
                let base = if class == 1 { src } else { dst };
                let addr = match reg(&s, base)? {
                    Reg::Ctx(k) => {
                        let a = k + off;
                        if a < 0 || a + size > ctx_size {
                            return Err(at(format!("accesses context bytes {a}..{} outside its {ctx_size} bytes", a + size)));
                        }
                        None
                    }
                    Reg::Stack(k) => {
                        let a = k + off;
                        if a < -STACK || a + size > 0 {
                            return Err(at(format!("accesses stack bytes {a}..{} outside the 512-byte frame", a + size)));
                        }
                        Some(a)
                    }
                    _ => {
                        return Err(at(format!(
                            "accesses memory through r{base}, which is not a pointer at a constant offset into the context or the stack"
                        )))
                    }
                };
                match (class, addr) {
                    (1, None) => {
                        if dst == 10 {
                            return Err(at("writes the frame pointer r10".into()));
                        }
                        s.regs[dst as usize] = Reg::Scalar;
                    }
                    (1, Some(a)) => {
                        if dst == 10 {
                            return Err(at("writes the frame pointer r10".into()));
                        }
                        if !s.is_init(a, size) {
                            return Err(at(format!("reads stack bytes {a}..{} before they are written", a + size)));
                        }
                        let slots = State::slots_of(a, size);
                        let spilled = slots.clone().find_map(|i| match s.slots[i] {
                            Slot::Scalar => None,
                            x => Some(x),
                        });
                        s.regs[dst as usize] = match spilled {
                            None => Reg::Scalar,
                            Some(Slot::Ptr(p)) if size == 8 && (a + STACK) % 8 == 0 => p,
                            _ => return Err(at("reads part of a spilled address".into())),
                        };
                    }
                    (_, None) => {
                        if class == 3 {
                            scalar(&s, src)?; // no address goes into the context
                        }
                    }
                    (_, Some(a)) => {
                        let value = if class == 3 { reg(&s, src)? } else { Reg::Scalar };
                        let slots = State::slots_of(a, size);
                        let whole = size == 8 && (a + STACK) % 8 == 0;
                        match value {
                            Reg::Scalar => {
                                for i in slots {
                                    s.slots[i] = if whole || s.slots[i] == Slot::Scalar { Slot::Scalar } else { Slot::Poison };
                                }
                            }
                            p if whole => s.slots[slots.start] = Slot::Ptr(p),
                            _ => return Err(at("spills an address to an unaligned or partial stack slot".into())),
                        }
                        s.set_init(a, size);
                    }
                }
            }
            // ALU (32-bit) and ALU64
            4 | 7 => {
                let op = opc & 0xf0;
                let x = opc & 0x08 != 0;
                if op > 0xd0 || off != 0 {
                    return Err(at(format!("opcode {opc:#04x} is not allowed (use -mcpu=v3)")));
                }
                if dst == 10 {
                    return Err(at("writes the frame pointer r10".into()));
                }
                let d = dst as usize;
                let result = if op == 0xb0 {
                    // MOV
                    match (class, x) {
                        (_, false) => Reg::Scalar,
                        (7, true) => reg(&s, src)?,
                        _ => match reg(&s, src)? {
                            Reg::Scalar => Reg::Scalar,
                            _ => Reg::Bad("part of an address"),
                        },
                    }
                } else if op == 0x80 || op == 0xd0 {
                    scalar(&s, dst)?; // NEG, byte swap
                    Reg::Scalar
                } else {
                    let a = reg(&s, dst)?;
                    let b = if x { reg(&s, src)? } else { Reg::Scalar };
                    match (class, op, a, b) {
                        (_, _, Reg::Scalar, Reg::Scalar) => Reg::Scalar,
                        (7, 0x00, Reg::Ctx(k), Reg::Scalar) if !x => Reg::Ctx(k + imm),
                        (7, 0x00, Reg::Stack(k), Reg::Scalar) if !x => Reg::Stack(k + imm),
                        (7, 0x10, Reg::Ctx(k), Reg::Scalar) if !x => Reg::Ctx(k - imm),
                        (7, 0x10, Reg::Stack(k), Reg::Scalar) if !x => Reg::Stack(k - imm),
                        (7, 0x00 | 0x10, Reg::Ctx(_) | Reg::Stack(_), Reg::Scalar) => {
                            Reg::Bad("an address at a variable offset (index arrays with constants; unroll loops)")
                        }
                        _ => Reg::Bad("the result of arithmetic on an address"),
                    }
                };
                s.regs[d] = result;
            }
            // JMP and JMP32
            _ => {
                let op = opc & 0xf0;
                match (class, op) {
                    (5, 0x80) => return Err(at("CALL is not allowed (no helpers; mark every function static __always_inline)".into())),
                    (5, 0x90) => {
                        if opc != 0x95 {
                            return Err(at(format!("opcode {opc:#04x} is not allowed")));
                        }
                        scalar(&s, 0)?;
                        next.clear();
                    }
                    (5, 0x00) if opc == 0x05 => next = vec![],
                    (6, 0x00) | (_, 0xe0) | (_, 0xf0) | (_, 0x80) | (_, 0x90) => {
                        return Err(at(format!("opcode {opc:#04x} is not allowed (use -mcpu=v3)")))
                    }
                    _ => {
                        scalar(&s, dst)?;
                        if opc & 0x08 != 0 {
                            scalar(&s, src)?;
                        }
                    }
                }
                if !(class == 5 && op == 0x90) {
                    if off < 0 {
                        return Err(at("jumps backwards (a loop): bound loops with a constant and #pragma unroll".into()));
                    }
                    let target = pc as i64 + 1 + off;
                    if target >= n as i64 {
                        return Err(at("jumps outside the program".into()));
                    }
                    next.push(target as usize);
                }
            }
        }
        for t in next {
            if t > n {
                return Err(at("runs past the end of the program".into()));
            }
            if t == n {
                return Err(at("runs past the end of the program without EXIT".into()));
            }
            match &mut states[t] {
                Some(existing) => existing.join(&s),
                slot => *slot = Some(s),
            }
        }
        pc += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asm(insns: &[(u8, u8, u8, i16, i32)]) -> Vec<u8> {
        let mut v = Vec::new();
        for &(opc, dst, src, off, imm) in insns {
            v.push(opc);
            v.push(dst | (src << 4));
            v.extend_from_slice(&off.to_le_bytes());
            v.extend_from_slice(&imm.to_le_bytes());
        }
        v
    }
    const EXIT: (u8, u8, u8, i16, i32) = (0x95, 0, 0, 0, 0);
    const R0_0: (u8, u8, u8, i16, i32) = (0xb7, 0, 0, 0, 0);

    #[test]
    fn accepts_context_and_stack_accesses_in_bounds() {
        let p = asm(&[
            (0x79, 2, 1, 8, 0),    // r2 = *(u64*)(r1+8)
            (0x7b, 10, 2, -8, 0),  // *(u64*)(r10-8) = r2
            (0x79, 3, 10, -8, 0),  // r3 = *(u64*)(r10-8)
            (0x7b, 1, 3, 472, 0),  // *(u64*)(r1+472) = r3
            (0xbf, 4, 1, 0, 0),    // r4 = r1
            (0x07, 4, 0, 0, 400),  // r4 += 400
            (0x7b, 10, 4, -16, 0), // spill r4
            (0x79, 5, 10, -16, 0), // fill r5
            (0x79, 6, 5, 72, 0),   // r6 = *(u64*)(r5+72): ctx 472
            R0_0,
            EXIT,
        ]);
        check(&p, 480, &[]).unwrap();
    }

    #[test]
    fn refuses_each_unsafe_construct_naming_the_instruction() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (asm(&[(0x79, 2, 1, 480, 0), R0_0, EXIT]), "instruction 0: accesses context bytes 480..488"),
            (asm(&[(0x79, 2, 10, -520, 0), R0_0, EXIT]), "outside the 512-byte frame"),
            (asm(&[(0x79, 2, 10, -8, 0), R0_0, EXIT]), "reads stack bytes -8..0 before they are written"),
            (asm(&[(0x85, 0, 0, 0, 1), R0_0, EXIT]), "instruction 0: CALL is not allowed"),
            (asm(&[R0_0, (0x05, 0, 0, -2, 0), EXIT]), "instruction 1: jumps backwards"),
            (asm(&[(0x79, 2, 1, 0, 0), (0x0f, 1, 2, 0, 0), (0x79, 3, 1, 0, 0), R0_0, EXIT]), "variable offset"),
            (asm(&[(0x7b, 1, 1, 0, 0), R0_0, EXIT]), "holds an address"),
            (asm(&[(0xbf, 0, 1, 0, 0), EXIT]), "holds an address"),
            (asm(&[(0x79, 2, 3, 0, 0), R0_0, EXIT]), "reads r3 before it is written"),
            (asm(&[(0x18, 1, 1, 0, 0), (0, 0, 0, 0, 0), R0_0, EXIT]), "map or global data"),
            (asm(&[(0xdb, 1, 2, 0, 0), R0_0, EXIT]), "atomic"),
        ];
        for (p, want) in cases {
            let e = check(&p, 480, &[]).expect_err(want);
            assert!(e.contains(want), "{e} !~ {want}");
        }
    }

    #[test]
    fn a_pointer_joined_from_two_different_targets_cannot_be_used() {
        // if r2 == 0 goto +1; r1 += 8; r3 = *(r1 + 0)
        let p = asm(&[(0x79, 2, 1, 0, 0), (0x15, 2, 0, 1, 0), (0x07, 1, 0, 0, 8), (0x79, 3, 1, 0, 0), R0_0, EXIT]);
        assert!(check(&p, 480, &[]).unwrap_err().contains("differs between paths"));
    }
}
