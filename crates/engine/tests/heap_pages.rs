//! Small blocks on huge pages (`huge_pages.rs`, `heap`): off until a large fabric is built
//! (`advise_heap`); after it, once the engine's allocator has served enough small blocks for the
//! C library's main heap to grow by tens of MiB, the heap's newer part must be advised (`hg` among
//! the mapping's VmFlags in /proc/self/smaps) and, where the kernel gives transparent huge pages to
//! advised memory, partly on huge pages. No test harness: the main heap serves the main thread,
//! and a harness runs tests on threads of their own.

/// The mappings of this process (/proc/self/smaps): (start, end, name, VmFlags, AnonHugePages kB).
fn mappings() -> Vec<(usize, usize, String, String, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
    let mut out: Vec<(usize, usize, String, String, u64)> = Vec::new();
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let head = words.next().unwrap_or("");
        if let Some((a, b)) = head.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                out.push((a, b, words.nth(4).unwrap_or("").to_string(), String::new(), 0));
                continue;
            }
        }
        let Some(m) = out.last_mut() else { continue };
        if let Some(kb) = line.strip_prefix("AnonHugePages:") {
            m.4 = kb.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
        } else if let Some(flags) = line.strip_prefix("VmFlags:") {
            m.3 = flags.trim().to_string();
        }
    }
    out
}

fn main() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        println!("heap_pages: not glibc on Linux, nothing advised (ok)");
        return;
    }
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    // off until a large fabric is built: 16 MiB of small blocks stay where glibc puts them
    let before: Vec<Box<[u8; 1024]>> = (0..16_384).map(|i| Box::new([i as u8; 1024])).collect();
    let first = &*before[before.len() - 1] as *const [u8; 1024] as usize;
    let maps = mappings();
    let (_, _, _, flags, _) = maps.iter().find(|m| m.0 <= first && first < m.1).expect("the block's mapping");
    assert!(!flags.split_whitespace().any(|f| f == "hg"), "advised before any large fabric: VmFlags {flags}");
    dccsim_engine::huge_pages::advise_heap();
    // 64 MiB in 1 KiB blocks, each touched
    let blocks: Vec<Box<[u8; 1024]>> = (0..65_536).map(|i| Box::new([i as u8; 1024])).collect();
    let last = &*blocks[blocks.len() - 1] as *const [u8; 1024] as usize;
    let maps = mappings();
    let (_, _, _, flags, _) = maps.iter().find(|m| m.0 <= last && last < m.1).expect("the block's mapping");
    let huge_kb: u64 = maps.iter().filter(|m| m.2 == "[heap]").map(|m| m.4).sum();
    println!("heap_pages: VmFlags of the last block's mapping {flags}; the heap's AnonHugePages {huge_kb} kB; THP mode {}", thp.trim());
    assert!(flags.split_whitespace().any(|f| f == "hg"), "the heap's new part is not advised: VmFlags {flags}");
    if thp.contains("[madvise]") || thp.contains("[always]") {
        // 64 MiB touched: at least a quarter of it on huge pages (the rest: the heap below the
        // first advice, the 2 MiB ranges whose first page glibc touched before the advice)
        assert!(huge_kb >= 16 * 1024, "advised, but only {huge_kb} kB of the heap on huge pages");
    }
    assert_eq!(blocks.iter().map(|b| b[0] as u64).sum::<u64>(), (0..65_536u64).map(|i| i % 256).sum::<u64>());
    println!("heap_pages: ok");
}
