//! Golden tests: the thesis's Table 1 and every other transfer time its text states (spec §2.1,
//! §4.2, entry `alzoubi-table-1` of §6), on the path of Fig. 33 (132.1.1.1 → 131.1.1.1).

use gridsched_hierarchical::{Address, Network, NetworkConfig, Rounding};

const GB: u64 = 1_000_000_000;
const FROM: Address = Address::new(132, 1, 1, 1);
const TO: Address = Address::new(131, 1, 1, 1);

/// `h:mm:ss:mmm`, the thesis's format in Table 1.
fn hms_ms(ms: u64) -> String {
    let (s, ms) = (ms / 1000, ms % 1000);
    format!("{:02}:{:02}:{:02}:{ms:03}", s / 3600, s / 60 % 60, s % 60)
}

fn fig_33(network: &Network, bytes: u64) -> u64 {
    network.delay_between(FROM, TO, bytes).unwrap()
}

#[test]
fn table_1_to_the_millisecond() {
    let n = Network::thesis();
    let table = [
        (1, 342_700, "00:05:42:700"),
        (10, 3_427_012, "00:57:07:012"),
        (20, 6_854_030, "01:54:14:030"),
        (50, 17_135_078, "04:45:35:078"),
        (100, 34_270_156, "09:31:10:156"),
    ];
    for (gb, ms, printed) in table {
        let got = fig_33(&n, gb * GB);
        assert_eq!(got, ms, "{gb} GB");
        assert_eq!(hms_ms(got), printed, "{gb} GB");
    }
}

#[test]
fn a_control_message_across_backbones_takes_6_ms() {
    // "around 6 milliseconds to travel 2200 km": floor(3.33 ms) on each 1000 km cable, 0 ms on
    // the others, for every message up to 16,145 B (then each OC-3 cable reaches 1 ms; the
    // spec's "≤ 64 KB" bound is loose: 64,000 B take 18 ms).
    let n = Network::thesis();
    assert_eq!(fig_33(&n, 100), 6);
    assert_eq!(fig_33(&n, 16_145), 6);
    assert_eq!(fig_33(&n, 16_146), 10);
    assert_eq!(fig_33(&n, 64_000), 18);
}

#[test]
fn nine_gigabytes_with_both_windows() {
    let within_a_second = |ms: u64, target_s: u64| ms.abs_diff(target_s * 1000) <= 1000;
    // "around 51 minutes and 24 seconds" with the 64 KB window ...
    let small = fig_33(&Network::thesis(), 9 * GB);
    assert!(within_a_second(small, 51 * 60 + 24), "{}", hms_ms(small));
    assert_eq!(small, 3_084_312);
    // ... and "around 34 minutes and 15 seconds" with a 25 MB window.
    let large = Network::new(NetworkConfig {
        window_bytes: 25_000_000,
        ..NetworkConfig::THESIS
    })
    .unwrap();
    let large = fig_33(&large, 9 * GB);
    assert!(within_a_second(large, 34 * 60 + 15), "{}", hms_ms(large));
    assert_eq!(large, 2_055_704);
}

#[test]
fn the_spec_transfer_times_by_distance_class() {
    // Spec §2.1's derived table, the input transfer S, to the precision it is printed with.
    let n = Network::thesis();
    let from = Address::new(132, 1, 1, 1);
    let at = |to: Address, bytes: u64| n.delay_between(from, to, bytes).unwrap();
    let (site, net, backbone, other) = (
        Address::new(132, 1, 1, 2),
        Address::new(132, 1, 2, 1),
        Address::new(132, 2, 1, 1),
        Address::new(131, 1, 1, 1),
    );
    for to in [site, net, backbone] {
        assert_eq!(
            at(to, 100),
            0,
            "control messages inside a backbone take 0 ms"
        );
    }
    assert_eq!(at(other, 100), 6);
    // (destination, bytes, the spec's value in ms, the precision it is printed to in ms)
    let mb = |tenths: u64| tenths * 100_000; // tenths of a megabyte
    let rows = [
        (site, mb(289), 578, 1),
        (net, mb(289), 3_710, 1),
        (backbone, mb(289), 6_842, 1),
        (other, mb(289), 9_902, 1),
        (site, mb(3127), 6_250, 10),
        (net, mb(3127), 40_200, 100),
        (backbone, mb(3127), 74_070, 10),
        (other, mb(3127), 107_160, 10),
        (site, GB, 20_000, 1),
        (net, GB, 128_430, 10),
        (backbone, GB, 236_870, 10),
        (other, GB, 342_700, 1),
        (site, 10 * GB, 200_000, 1000),
        (net, 10 * GB, 1_284_300, 100),
        (backbone, 10 * GB, 2_368_700, 100),
        (other, 10 * GB, 3_427_012, 1),
        (site, 100 * GB, 2_000_000, 1000),
        (net, 100 * GB, 12_843_000, 1000),
        (backbone, 100 * GB, 23_687_000, 1000),
        (other, 100 * GB, 34_270_156, 1),
    ];
    for (to, bytes, printed, unit) in rows {
        let got = at(to, bytes);
        let rounded = (got + unit / 2) / unit * unit;
        assert_eq!(rounded, printed, "{bytes} B to {to}: {got} ms");
    }
}

#[test]
fn the_readings_table_1_rules_out() {
    // A2: rounding to the nearest millisecond is off on three of the five rows.
    let nearest = Network::new(NetworkConfig {
        rounding: Rounding::Nearest,
        ..NetworkConfig::THESIS
    })
    .unwrap();
    let table = [342_700, 3_427_012, 6_854_030, 17_135_078, 34_270_156];
    let off: Vec<i64> = [1, 10, 20, 50, 100]
        .iter()
        .zip(table)
        .map(|(&gb, ms)| fig_33(&nearest, gb * GB) as i64 - ms)
        .collect();
    assert_eq!(off.iter().filter(|&&d| d != 0).count(), 3, "{off:?}");
    assert!(off.iter().all(|d| (0..=6).contains(d)), "{off:?}");
    // A 64 KiB window is about 0.8% off.
    let kib = Network::new(NetworkConfig {
        window_bytes: 65_536,
        ..NetworkConfig::THESIS
    })
    .unwrap();
    let rel = |gb: u64, ms: i64| (fig_33(&kib, gb * GB) as i64 - ms) as f64 / ms as f64;
    assert!(
        (-0.01..-0.006).contains(&rel(100, 34_270_156)),
        "{}",
        rel(100, 34_270_156)
    );
    // A3: 10% external load slows every transfer (by up to 1/0.9).
    let loaded = Network::new(NetworkConfig {
        external_load_permille: 100,
        ..NetworkConfig::THESIS
    })
    .unwrap();
    let t = fig_33(&loaded, 10 * GB);
    assert!(t > 3_427_012 && t <= 3_427_012 * 10 / 9 + 8, "{t}");
}
