//! Each expected figure below is worked from the equations of docs/memory-models.md.

use super::*;

fn system(board: &str, settings: &[&str]) -> MemorySystem {
    let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    MemorySystem::new(&tigris_targets::load_with(board, &settings).unwrap())
}

fn region(m: &MemorySystem, name: &str) -> usize {
    m.regions.iter().position(|r| r.spec.name == name).unwrap()
}

#[test]
fn flash_fetch_without_prefetch_costs_the_wait_states_per_line() {
    // STM32F446 at 180 MHz: W = 5, one 16-byte line read = 6 cycles, 5 beyond the core's own.
    let mut m = system("stm32f446re", &["flash.prefetch=false"]);
    let f = region(&m, "flash");
    m.regions[f].spec.icache = None;
    assert_eq!(m.fetch(f, 0x0800_0000, 0), 5);
    assert_eq!(m.fetch(f, 0x0800_0010, 8), 5);
    assert_eq!(m.regions[f].counters.stall_cycles, 10);
}

#[test]
fn prefetch_hides_wait_states_of_straight_line_code() {
    let mut m = system("stm32f446re", &[]);
    let f = region(&m, "flash");
    m.regions[f].spec.icache = None;
    assert_eq!(m.fetch(f, 0x0800_0000, 0), 5, "first line: non-sequential");
    assert_eq!(
        m.fetch(f, 0x0800_0010, 8),
        0,
        "8 cycles in the previous line hide all of 5 + 1"
    );
    assert_eq!(m.fetch(f, 0x0800_0020, 4), 2, "4 cycles hide 4 of 6");
    assert_eq!(m.fetch(f, 0x0800_0100, 4), 5, "a branch is not sequential");
}

#[test]
fn wait_states_follow_the_clock_through_the_board_table() {
    // 84 MHz: 2 WS (RM0390 table), so a line read is 3 cycles, 2 beyond the core's own.
    let mut m = system("stm32f446re", &["core.clock_hz=84000000"]);
    let f = region(&m, "flash");
    assert_eq!(m.data_access(f, 0x0800_1000, 4, false), 2);
}

#[test]
fn art_cache_hits_cost_nothing() {
    let mut m = system("stm32f446re", &[]);
    let f = region(&m, "flash");
    assert_eq!(m.fetch(f, 0x0800_0000, 0), 5);
    assert_eq!(m.fetch(f, 0x0800_0000, 0), 0);
    let c = m.regions[f].counters;
    assert_eq!((c.icache_hits, c.icache_misses), (1, 1));
    assert_eq!(m.data_access(f, 0x0800_1000, 4, false), 5);
    assert_eq!(
        m.data_access(f, 0x0800_1004, 4, false),
        0,
        "same 16-byte line"
    );
}

#[test]
fn xip_miss_is_one_spi_transaction_and_the_cache_is_shared_by_fetch_and_data() {
    // RP2040: continuous quad read of an 8-byte line: 6 + 6 + 16 = 28 SCLK at 62.5 MHz = 56 core
    // cycles at 125 MHz, 55 beyond the core's own.
    let mut m = system("rp2040", &[]);
    let xip = region(&m, "xip");
    assert_eq!(m.regions[xip].transfer_cycles(8, false), 56);
    assert_eq!(m.fetch(xip, 0x1000_0000, 0), 55);
    assert_eq!(m.fetch(xip, 0x1000_0004, 0), 0);
    assert_eq!(
        m.data_access(xip, 0x1000_0006, 2, false),
        0,
        "the line fetched as code serves data"
    );
    assert_eq!(m.data_access(xip, 0x1000_0100, 4, false), 55);
    assert_eq!(
        m.caches[0].counters,
        CacheCounters {
            hits: 2,
            misses: 2,
            writebacks: 0,
            stall_cycles: 110
        }
    );
}

#[test]
fn esp32s3_psram_line_fills_and_write_backs_follow_the_spi_phases() {
    // Octal DDR PSRAM at 80 MHz under a 240 MHz core (3 core cycles per SPI clock): read
    // 4 + 1 + 2 + 9 + 16 + 3 = 35 clocks = 105 cycles, write-back 4 + 1 + 2 + 4 + 16 + 3 = 30 clocks =
    // 90 cycles, each + 25 ns of controller latency = 6 cycles: 111 and 96. Without the write-back
    // buffer, so that the write-back is paid in the miss that evicts the line.
    let mut m = system("esp32s3", &["dcache.writeback_buffer=false"]);
    let p = region(&m, "psram");
    assert_eq!(
        m.data_access(p, 0x3D00_0000, 4, false),
        110,
        "read miss: fill"
    );
    assert_eq!(
        m.data_access(p, 0x3D00_0004, 4, true),
        0,
        "store hit in a write-back cache"
    );
    assert_eq!(
        m.data_access(p, 0x3D00_1000, 4, true),
        110,
        "store miss allocates: fill"
    );
    // Fill the rest of the set of 0x3D000000 (32 KiB, 8 ways: 128 sets, so lines 4 KiB apart share a
    // set) with 6 more lines: the ninth line evicts the dirty 0x3D000000 (least recently used).
    let mut stalls = Vec::new();
    for k in 2..=7u32 {
        stalls.push(m.data_access(p, 0x3D00_0000 + k * 0x1000, 4, false));
    }
    assert!(stalls.iter().all(|&s| s == 110), "{stalls:?}");
    assert_eq!(
        m.data_access(p, 0x3D00_8000, 4, false),
        110 + 96,
        "evicts the dirty 0x3D000000"
    );
    let c = m.regions[p].counters;
    assert_eq!((c.dcache_misses, c.dcache_hits, c.writebacks), (9, 1, 1));
    assert_eq!(c.stall_cycles, 9 * 110 + 96);
}

#[test]
fn psram_mode_and_clock_overrides_change_the_fill() {
    // Quad PSRAM at 40 MHz (6 core cycles per clock): 2 + 6 + 6 + 64 = 78 clocks = 468 cycles, + 6
    // of controller latency (the quad default has no chip-select time).
    let mut m = system("esp32s3", &["psram.mode=quad", "psram.clock_mhz=40"]);
    let p = region(&m, "psram");
    assert_eq!(m.data_access(p, 0x3D00_0000, 4, false), 473);
}

#[test]
fn flash_rodata_and_psram_share_the_dcache() {
    // One DCache of 8 ways: 8 PSRAM lines in one set evict a flash line of that set.
    let mut m = system("esp32s3", &[]);
    let (f, p) = (region(&m, "flash_drom"), region(&m, "psram"));
    assert_eq!(
        m.data_access(f, 0x3C00_0000, 4, false),
        263,
        "quad flash: (2 + 84) clocks x 3 + 6 - 1"
    );
    for k in 0..8u32 {
        m.data_access(p, 0x3D00_0000 + k * 0x1000, 4, false);
    }
    assert_eq!(
        m.data_access(f, 0x3C00_0000, 4, false),
        263,
        "evicted by PSRAM lines"
    );
}

#[test]
fn m7_l1_caches_serve_several_regions_and_tcm_bypasses_them() {
    let mut m = system("stm32h753", &[]);
    let (axi, dtcm, flash) = (
        region(&m, "axi_sram"),
        region(&m, "dtcm"),
        region(&m, "flash"),
    );
    // AXI SRAM: 64-bit bus at half the core clock: 4 beats x 2 cycles = 8, 7 beyond the core's own.
    assert_eq!(m.data_access(axi, 0x2400_0000, 4, false), 7);
    assert_eq!(
        m.data_access(axi, 0x2400_0010, 4, true),
        0,
        "write-back hit"
    );
    assert_eq!(m.data_access(dtcm, 0x2000_0000, 4, false), 0);
    assert!(!m.regions[dtcm].prices_data());
    // Flash: one 256-bit read of 4 wait states, then 4 beats of the 64-bit AXI: 8 AXI clocks = 16
    // core cycles.
    assert_eq!(m.data_access(flash, 0x0800_0000, 4, false), 15);
    let l1d = m.caches.iter().position(|c| c.spec.name == "l1d").unwrap();
    assert_eq!(m.caches[l1d].counters.misses, 2);
}

/// An STM32H7 flash line fill is the flash word's wait states, then one AXI clock per 64-bit beat
/// (4 for a 256-bit word): `--set` on either moves it by exactly that, and a bus as wide as the
/// flash word delivers it in one beat.
#[test]
fn axi_flash_line_fill_is_wait_states_then_beats() {
    let fill = |set: &[&str]| {
        let mut m = system("stm32h753", set);
        let flash = region(&m, "flash");
        m.data_access(flash, 0x0800_0000, 4, false)
    };
    assert_eq!(fill(&[]), (4 + 4) * 2 - 1);
    assert_eq!(fill(&["flash.wait_states=2"]), (2 + 4) * 2 - 1);
    assert_eq!(fill(&["flash.beat_bytes=16"]), (4 + 2) * 2 - 1);
    assert_eq!(fill(&["flash.beat_bytes=32"]), (4 + 1) * 2 - 1);
}

#[test]
fn write_through_stores_pay_the_memory_and_do_not_allocate() {
    let mut m = system(
        "stm32h753",
        &[
            "l1d.write_policy=\"write-through\"",
            "axi_sram.write_wait_states=1",
        ],
    );
    let axi = region(&m, "axi_sram");
    // One 4-byte write of (1 + 1) AXI clocks = 4 core cycles, 3 beyond the core's own.
    assert_eq!(m.data_access(axi, 0x2400_0000, 4, true), 3);
    assert_eq!(
        m.data_access(axi, 0x2400_0000, 4, false),
        7,
        "the store did not allocate"
    );
    assert_eq!(
        m.data_access(axi, 0x2400_0000, 4, true),
        3,
        "a store hit still goes to memory"
    );
}

#[test]
fn accesses_are_charged_to_the_current_owner() {
    let mut m = system("esp32s3", &[]);
    let p = region(&m, "psram");
    m.set_owner(3);
    m.data_access(p, 0x3D00_0000, 4, false);
    m.set_owner(5);
    m.data_access(p, 0x3D00_0004, 4, false);
    m.data_access(p, 0x3D00_0040, 2, true);
    let rows: Vec<_> = m
        .owner_counters()
        .map(|(o, r, c)| (o, r, c.traffic.reads, c.traffic.writes, c.stall_cycles))
        .collect();
    assert_eq!(rows, vec![(3, p, 1, 0, 110), (5, p, 1, 1, 110)]);
}

#[test]
fn free_accesses_counted_one_by_one_or_in_a_batch_count_as_priced_ones() {
    let accesses = [(4, false), (1, false), (2, true), (4, true), (4, false)];
    let mut priced = system("esp32s3", &[]);
    let s = region(&priced, "sram1");
    assert!(!priced.regions[s].prices_data());
    priced.set_owner(2);
    for &(size, write) in &accesses {
        assert_eq!(priced.data_access(s, 0x3FC8_8000, size, write), 0);
    }
    let mut one_by_one = system("esp32s3", &[]);
    one_by_one.set_owner(2);
    let mut batched = system("esp32s3", &[]);
    batched.set_owner(2);
    let mut traffic = Traffic::default();
    for &(size, write) in &accesses {
        one_by_one.count_unpriced_access(s, 0x3FC8_8000, size, write);
        traffic.add(size, write);
    }
    batched.count_unpriced_traffic(s, traffic);
    for m in [&one_by_one, &batched] {
        assert_eq!(m.regions[s].counters, priced.regions[s].counters);
        assert!(m.owner_counters().eq(priced.owner_counters()));
    }
}

#[test]
fn alias_maps_to_its_region() {
    let m = system("stm32f446re", &[]);
    assert_eq!(m.region_of(0x0000_0040), Some(0));
    assert_eq!(m.region_of(0x2000_0000), Some(1));
    assert_eq!(m.region_of(0x9000_0000), None);
}

#[test]
fn watched_ranges_count_their_traffic_and_high_water() {
    let mut m = system("esp32s3", &[]);
    let (p, s) = (region(&m, "psram"), region(&m, "sram1"));
    let w = m.watch(0x3D00_0100, 0x100);
    m.data_access(p, 0x3D00_00FC, 4, true); // just below
    m.data_access(p, 0x3D00_0100, 4, false); // fill: 110 stall cycles
    m.data_access(p, 0x3D00_01F0, 2, true); // another line: write-allocate fill, 110 more
    m.data_access(s, 0x3FC9_0000, 4, true); // elsewhere
    let c = m.watch_counters(w);
    let t = c.traffic;
    assert_eq!(
        (t.reads, t.writes, t.read_bytes, t.write_bytes),
        (1, 1, 4, 2)
    );
    assert_eq!((c.stall_cycles, c.high_water), (2 * 110, 0xF2));
}

#[test]
fn a_logging_watch_keeps_the_read_addresses() {
    let mut m = system("esp32s3", &[]);
    let p = region(&m, "psram");
    let w = m.watch_logging_reads(0x3D00_0000, 0x100);
    m.data_access(p, 0x3D00_0010, 4, false);
    m.data_access(p, 0x3D00_0020, 4, true);
    m.data_access(p, 0x3D00_0200, 4, false); // outside
    m.data_access(p, 0x3D00_0014, 1, false);
    assert_eq!(m.take_read_log(w), vec![0x3D00_0010, 0x3D00_0014]);
    assert!(m.take_read_log(w).is_empty());
}

#[test]
fn a_buffered_write_back_delays_only_a_fill_that_starts_while_it_runs() {
    // ESP32-S3 DCache, 8 ways of 128 sets of 32 bytes: lines 4 KiB apart share a set. Octal PSRAM at
    // 80 MHz: fill 111 cycles (110 stall), write-back 96 (docs/memory-models.md).
    let mut m = system("esp32s3", &[]);
    let p = region(&m, "psram");
    let base = 0x3d00_0000;
    for way in 0..8 {
        m.set_now(1000 * way);
        assert_eq!(m.data_access(p, base + way as u32 * 4096, 4, true), 110);
    }
    // The ninth line evicts the first, dirty: the fill goes first, the write-back after it.
    m.set_now(10_000);
    assert_eq!(m.data_access(p, base + 8 * 4096, 4, false), 110);
    assert_eq!(m.regions[p].counters.writebacks, 1);
    // The bus carries the write-back until 10,000 + 111 + 96 = 10,207: a miss 7 cycles before that
    // waits 7; one after it waits nothing.
    m.set_now(10_200);
    assert_eq!(m.data_access(p, base + 9 * 4096 + 32, 4, false), 7 + 110);
    m.set_now(20_000);
    assert_eq!(m.data_access(p, base + 10 * 4096 + 64, 4, false), 110);
    // Without the buffer the write-back is paid before the fill.
    let mut m = system("esp32s3", &["dcache.writeback_buffer=false"]);
    for way in 0..8 {
        m.data_access(p, base + way * 4096, 4, true);
    }
    assert_eq!(m.data_access(p, base + 8 * 4096, 4, false), 110 + 96);
}

#[test]
fn without_chip_select_time_and_controller_latency_an_octal_fill_is_its_phases() {
    // 1 + 2 + 9 + 16 = 28 clocks at 80 MHz under a 240 MHz core.
    let m = system("esp32s3", &["psram.cs_clocks=0", "psram.controller_ns=0"]);
    let p = region(&m, "psram");
    assert_eq!(m.regions[p].transfer_cycles(32, false), 84);
}

/// `fetch_hits` with its memo fetches as `fetch` of each unit does, however the lines moved in
/// between: here three blocks whose lines share one set of the STM32H753's 2-way L1 I-cache
/// (256 sets of 32 bytes: 8 KiB apart), so that each evicts another's.
#[test]
fn memoised_fetch_hits_fetch_as_unit_by_unit() {
    let (mut memo, mut plain) = (system("stm32h753", &[]), system("stm32h753", &[]));
    let f = region(&memo, "flash");
    let blocks: [&[u32]; 3] = [
        &[0x0800_0000, 0x0800_0020],
        &[0x0800_2000],
        &[0x0800_4000, 0x0800_4020],
    ];
    let mut units: Vec<Vec<(u32, u32)>> = blocks
        .iter()
        .map(|b| b.iter().map(|&u| (u, NO_SLOT)).collect())
        .collect();
    let mut resident = [NOT_RESIDENT; 3];
    for (i, &b) in [0, 0, 1, 0, 2, 2, 0, 1, 1, 0, 0, 2]
        .iter()
        .cycle()
        .take(60)
        .enumerate()
    {
        let stalls: Vec<u32> = match memo.fetch_hits(f, &units[b], &mut resident[b]) {
            Some(hit) => vec![hit; units[b].len()],
            None => units[b]
                .iter_mut()
                .map(|(unit, slot)| memo.fetch_at(f, *unit, 0, slot))
                .collect(),
        };
        let expected: Vec<u32> = blocks[b].iter().map(|&u| plain.fetch(f, u, 0)).collect();
        assert_eq!(stalls, expected, "fetch {i}");
    }
    assert_eq!(memo.regions[f].counters, plain.regions[f].counters);
    let counters = |m: &MemorySystem| m.caches.iter().map(|c| c.counters).collect::<Vec<_>>();
    assert_eq!(counters(&memo), counters(&plain));
}
