//! Property tests of the network against a brute-force reimplementation: routers are walked
//! hop by hop as the thesis describes them (forward down if the destination is under you, else
//! to your default router), and each cable is timed with the unreduced stop-and-wait formula
//! as one exact fraction — neither the level arithmetic nor the reduced fractions of
//! `Network` are reused.

use gridsched_hierarchical::{
    Address, AddressError, Cable, Cables, DelayError, Level, Network, NetworkConfig, NodeId,
    PathClass, Placement, Rounding, SelfDelivery, Topology,
};
use gridsched_sim::{Actor, ActorId, Context, Envelope, SendError, Simulation};
use proptest::prelude::*;

/// The level of the cable from a router owning a prefix of `len` octets to its parent.
fn uplink(len: usize) -> Level {
    match len {
        3 => Level::Site,
        2 => Level::Net,
        1 => Level::Backbone,
        _ => unreachable!("the top router has no parent"),
    }
}

/// The cables a packet crosses, router by router.
fn walk(src: Address, dst: Address, self_delivery: SelfDelivery) -> Vec<Level> {
    let (src, dst) = (src.octets(), dst.octets());
    if src == dst {
        return match self_delivery {
            SelfDelivery::Loopback => vec![],
            SelfDelivery::ViaSiteRouter => vec![Level::Host, Level::Host],
        };
    }
    let mut cables = vec![Level::Host];
    let mut router: Vec<u8> = src[..3].to_vec();
    while !dst.starts_with(&router) {
        cables.push(uplink(router.len()));
        router.pop();
    }
    while router.len() < 3 {
        router.push(dst[router.len()]);
        cables.push(uplink(router.len()));
    }
    cables.push(Level::Host);
    cables
}

/// One cable, as one fraction of milliseconds:
/// `(ceil(S/W) · d · 1000 · R' + 8 S · 10^6 · V) / (V · R')` with `R' = R · (1000 − load)`.
fn cable_ms(config: &NetworkConfig, cable: Cable, bytes: u64) -> u128 {
    let windows = u128::from(bytes.div_ceil(config.window_bytes));
    let v = u128::from(config.light_speed_m_per_s);
    let rate = u128::from(cable.rate_bits_per_s) * u128::from(1000 - config.external_load_permille);
    let num = windows * u128::from(cable.distance_m) * 1000 * rate
        + u128::from(bytes) * 8 * 1_000_000 * v;
    let den = v * rate;
    match config.rounding {
        Rounding::Floor => num / den,
        Rounding::Nearest => (2 * num + den) / (2 * den),
    }
}

fn brute_delay(config: &NetworkConfig, src: Address, dst: Address, bytes: u64) -> u128 {
    walk(src, dst, config.self_delivery)
        .into_iter()
        .map(|level| cable_ms(config, config.cables.get(level), bytes))
        .sum()
}

fn address() -> impl Strategy<Value = Address> {
    (131u8..=134, 1u8..=4, 1u8..=10, 1u8..=15).prop_map(|(b, n, w, h)| Address::new(b, n, w, h))
}

/// Two addresses sharing a random prefix (so every path class is common).
fn pair() -> impl Strategy<Value = (Address, Address)> {
    (0usize..=4).prop_flat_map(pair_sharing)
}

/// Two addresses sharing exactly `keep` leading octets.
fn pair_sharing(keep: usize) -> impl Strategy<Value = (Address, Address)> {
    (address(), address()).prop_map(move |(a, b)| {
        const RANGES: [(u8, u8); 4] = [(131, 134), (1, 4), (1, 10), (1, 15)];
        let (a, mut o) = (a.octets(), b.octets());
        o[..keep].copy_from_slice(&a[..keep]);
        if keep < 4 && o[keep] == a[keep] {
            let (low, high) = RANGES[keep];
            o[keep] = if a[keep] == high { low } else { a[keep] + 1 };
        }
        (Address(a), Address(o))
    })
}

fn cable() -> impl Strategy<Value = Cable> {
    (1u64..=20_000_000_000, 0u64..=5_000_000).prop_map(|(rate_bits_per_s, distance_m)| Cable {
        rate_bits_per_s,
        distance_m,
    })
}

/// The thesis's network half of the time, else random cables, windows, rounding and load.
fn config() -> impl Strategy<Value = NetworkConfig> {
    let random = (
        (cable(), cable(), cable(), cable()),
        prop_oneof![Just(64_000u64), Just(65_536), 1u64..=50_000_000],
        prop_oneof![Just(300_000_000u64), 1u64..=1_000_000_000],
        prop_oneof![Just(Rounding::Floor), Just(Rounding::Nearest)],
        prop_oneof![Just(0u16), 0u16..1000],
        prop_oneof![
            Just(SelfDelivery::Loopback),
            Just(SelfDelivery::ViaSiteRouter)
        ],
    )
        .prop_map(
            |((host, site, net, backbone), window_bytes, light, rounding, load, self_delivery)| {
                NetworkConfig {
                    topology: Topology::THESIS,
                    cables: Cables {
                        host,
                        site,
                        net,
                        backbone,
                    },
                    window_bytes,
                    light_speed_m_per_s: light,
                    rounding,
                    external_load_permille: load,
                    self_delivery,
                }
            },
        );
    prop_oneof![Just(NetworkConfig::THESIS), random]
}

fn bytes() -> impl Strategy<Value = u64> {
    prop_oneof![1u64..=1000, 1u64..=200_000, 1u64..=(1 << 40)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn delay_is_the_sum_over_the_walked_cables(
        config in config(),
        (a, b) in pair(),
        bytes in bytes(),
    ) {
        let n = Network::new(config).unwrap();
        let want = brute_delay(&config, a, b, bytes);
        prop_assert_eq!(u128::from(n.delay_between(a, b, bytes).unwrap()), want);
        let t = n.topology();
        let route = n.route(t.node(a).unwrap(), t.node(b).unwrap()).unwrap();
        prop_assert_eq!(route.cables().collect::<Vec<_>>(), walk(a, b, config.self_delivery));
        prop_assert_eq!(route.class(), PathClass::between(a, b));
    }

    #[test]
    fn delay_is_symmetric(config in config(), (a, b) in pair(), bytes in bytes()) {
        let n = Network::new(config).unwrap();
        prop_assert_eq!(n.delay_between(a, b, bytes), n.delay_between(b, a, bytes));
    }

    #[test]
    fn delay_is_monotone_in_bytes(
        config in config(),
        (a, b) in pair(),
        bytes in bytes(),
        more in prop_oneof![0u64..=2, 0u64..=100_000, 0u64..=(1 << 36)],
    ) {
        let n = Network::new(config).unwrap();
        prop_assert!(n.delay_between(a, b, bytes).unwrap() <= n.delay_between(a, b, bytes + more).unwrap());
    }

    #[test]
    fn delay_depends_on_the_path_class_only(
        config in config(),
        ((a, b), (c, d)) in (0usize..=4).prop_flat_map(|k| (pair_sharing(k), pair_sharing(k))),
        bytes in bytes(),
    ) {
        prop_assert_eq!(PathClass::between(a, b), PathClass::between(c, d));
        let n = Network::new(config).unwrap();
        prop_assert_eq!(n.delay_between(a, b, bytes), n.delay_between(c, d, bytes));
    }

    #[test]
    fn any_text_parses_or_is_a_typed_error(text in "\\PC{0,20}|[0-9]{1,4}(\\.[0-9]{1,4}){0,5}") {
        match Topology::THESIS.parse(&text) {
            Ok(node) => {
                let address = Topology::THESIS.address(node).unwrap();
                prop_assert_eq!(address.to_string(), text);
            }
            Err(AddressError::Malformed { text: t }) => prop_assert_eq!(t, text),
            Err(AddressError::Unknown { address, .. }) => {
                prop_assert_eq!(address.to_string(), text);
            }
        }
    }

    #[test]
    fn any_octets_and_size_give_a_delay_or_a_typed_error(
        a in any::<[u8; 4]>(),
        b in prop_oneof![any::<[u8; 4]>(), address().prop_map(|a| a.octets())],
        bytes in prop_oneof![Just(0u64), any::<u64>()],
    ) {
        let n = Network::thesis();
        let known = |o: [u8; 4]| Topology::THESIS.node(Address(o)).is_ok();
        match n.delay_between(Address(a), Address(b), bytes) {
            Ok(_) => prop_assert!(known(a) && known(b) && bytes > 0),
            Err(DelayError::Address(AddressError::Unknown { .. })) => {
                prop_assert!(!known(a) || !known(b));
            }
            Err(DelayError::EmptyMessage) => prop_assert_eq!(bytes, 0),
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }
}

/// Forwards every message it gets to the next actor until the hop budget is spent, recording
/// (arrival, sent at, sender) for each.
#[derive(Debug)]
struct Relay {
    next: ActorId,
    bytes: u64,
    log: Vec<(u64, u64, ActorId)>,
}

impl Actor<Placement> for Relay {
    type Payload = u32;
    type Error = SendError<DelayError>;

    fn on_message(
        &mut self,
        ctx: &mut Context<'_, u32, Placement>,
        msg: Envelope<u32>,
    ) -> Result<(), Self::Error> {
        self.log.push((ctx.now(), msg.sent_at, msg.src));
        if msg.payload > 0 {
            ctx.send(self.next, self.bytes, msg.payload - 1)?;
        }
        Ok(())
    }

    fn on_timer(&mut self, _: &mut Context<'_, u32, Placement>, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
}

proptest! {
    #[test]
    fn engine_delivers_at_send_time_plus_path_delay(
        hosts in prop::collection::vec(address(), 1..12),
        bytes in bytes(),
        hops in 0u32..50,
    ) {
        let network = Network::thesis();
        let t = *network.topology();
        let nodes: Vec<NodeId> = hosts.iter().map(|&a| t.node(a).unwrap()).collect();
        let placement = Placement::new(network.clone(), nodes.clone()).unwrap();
        let mut sim = Simulation::new(placement);
        let k = hosts.len() as u32;
        for i in 0..k {
            sim.add_actor(Relay { next: ActorId((i + 1) % k), bytes, log: Vec::new() });
        }
        sim.send(ActorId(0), ActorId(1 % k), bytes, hops).unwrap();
        sim.run().unwrap();
        let mut delivered = 0;
        for (i, relay) in sim.actors().iter().enumerate() {
            for &(at, sent, src) in &relay.log {
                let d = network.delay(nodes[src.index()], nodes[i], bytes).unwrap();
                prop_assert_eq!(at, sent + d);
                delivered += 1;
            }
        }
        prop_assert_eq!(delivered, hops + 1);
    }
}

#[test]
fn placement_errors_are_typed() {
    let network = Network::thesis();
    let t = *network.topology();
    let a = t.parse("132.1.1.1").unwrap();
    let mut sim = Simulation::new(Placement::new(network, vec![a]).unwrap());
    sim.add_actor(Relay {
        next: ActorId(0),
        bytes: 1,
        log: Vec::new(),
    });
    sim.add_actor(Relay {
        next: ActorId(0),
        bytes: 1,
        log: Vec::new(),
    });
    assert_eq!(
        sim.send(ActorId(0), ActorId(1), 1, 0),
        Err(SendError::Delay(DelayError::Unplaced(ActorId(1))))
    );
    assert_eq!(
        sim.send(ActorId(0), ActorId(0), 0, 0),
        Err(SendError::Delay(DelayError::EmptyMessage))
    );
    assert_eq!(sim.send(ActorId(0), ActorId(0), 1, 0), Ok(()));
    let past = Topology {
        backbones: 5,
        ..Topology::THESIS
    }
    .parse("135.1.1.1")
    .unwrap();
    assert_eq!(
        Placement::new(Network::thesis(), vec![past]).unwrap_err(),
        DelayError::UnknownNode(past)
    );
}
