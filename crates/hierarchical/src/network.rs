//! The thesis's communication network (spec §2.1; thesis §4.3, §5.2): static prefix routing
//! over the address hierarchy, and a stop-and-wait delay per cable, floored to the millisecond.
//!
//! Why a formula and not a packet simulation: the thesis's cables are pure delay lines without
//! contention — each datum gets its own delay, computed from its size alone, and concurrent
//! transfers never slow each other down (L1330). Routing is static (up to the lowest common
//! router, then down). So a message's end-to-end delay is a function of its route and size,
//! computed once when it is sent (spec §7), which is exactly what a
//! [`DelayModel`](gridsched_sim::DelayModel) is asked for.
//!
//! # One cable (spec §2.1, A2)
//!
//! Stop-and-wait with a window of `W` bytes: each of the `ceil(S / W)` windows pays the
//! propagation time `d / V`, and the `8 S` bits pay the transmission time `8 S / R` once (the
//! last window is partial):
//!
//! ```text
//! delay(S) = floor_ms( ceil(S / W) · d / V  +  8 S / R )
//! ```
//!
//! with `W = 64,000` B ("64 KB", KB = 1000), `V = 3·10⁸` m/s and 1 GB = 10⁹ B. Each cable is
//! floored on its own and the cables of the route are summed. This reproduces Table 1 to the
//! millisecond; the thesis *says* "rounded to the nearest millisecond", which is 2–6 ms off on
//! three of its five rows ([`Rounding`]). The arithmetic is exact (integers, no floating
//! point), so a delay never depends on evaluation order or platform: each cable's two terms
//! are reduced fractions of a millisecond, fixed when the network is built.
//!
//! # Routes
//!
//! A router forwards a packet down if the destination is under it and to its parent
//! otherwise, so a route climbs from the source to the lowest router whose prefix the
//! destination shares and descends the mirror path: 2, 4, 6 or 8 cables between two nodes of
//! the same site, net, backbone or of different backbones ([`PathClass`]). The cable of a
//! level is the same in both directions, so the delay is symmetric. Cables per level
//! ([`Cables::THESIS`]): node ↔ site router 100 MB/s over 0 km (the thesis gives no length;
//! 0 km reproduces Table 1), site ↔ net router and net ↔ backbone router 155 Mb/s over 50 km,
//! backbone ↔ top router 9.6 Gb/s over 1000 km.
//!
//! # Interpretation switches ([`NetworkConfig`])
//!
//! - [`Rounding`] (A2): `Floor` (default, Table 1 exact) or `Nearest` (the thesis's words).
//! - `external_load_permille` (A3): the thesis "assumed a 10% external load" that "did not
//!   affect significantly" the transfers; Table 1 is exact without it, so 0 by default. When
//!   set, every rate becomes `R · (1 − load)`.
//! - `window_bytes`: 64,000 by default; 65,536 ("64 KiB") puts Table 1 about 0.8% off.
//! - [`Cables`]: the thesis's L1513 also says data travels "100 km" from a net router to its
//!   backbone router, contradicting its own 2200 km example path; the default is one 50 km
//!   cable per router hop (spec §2.1), and the literal reading is `cables.net.distance_m =
//!   100_000` (and `cables.site` likewise).
//! - [`SelfDelivery`]: a message between two actors on the same node (a scheduler co-hosted
//!   on a server, A5's default) crosses no cable by default; the thesis never sends one.

use std::fmt;

use gridsched_sim::{ActorId, Millis};

use crate::address::{Address, AddressError, NodeId, Topology};

/// The cable a level of the hierarchy uses to reach the router above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Node ↔ site ("network") router.
    Host,
    /// Site router ↔ net router.
    Site,
    /// Net router ↔ backbone router.
    Net,
    /// Backbone router ↔ top router.
    Backbone,
}

impl Level {
    /// From the host up.
    pub const ALL: [Level; 4] = [Level::Host, Level::Site, Level::Net, Level::Backbone];

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Host => "host",
            Level::Site => "site",
            Level::Net => "net",
            Level::Backbone => "backbone",
        })
    }
}

/// A cable: its transmission rate and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cable {
    pub rate_bits_per_s: u64,
    pub distance_m: u64,
}

/// The cable of each level (every hop of a level uses the same kind of cable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cables {
    pub host: Cable,
    pub site: Cable,
    pub net: Cable,
    pub backbone: Cable,
}

impl Cables {
    /// The thesis's cables (L1510–1515): 100 MB/s node links of 0 km (length not given), OC-3
    /// (155 Mb/s, 50 km) between site, net and backbone routers, OC-192 (9.6 Gb/s, 1000 km)
    /// from each backbone router to the top router.
    pub const THESIS: Cables = Cables {
        host: Cable {
            rate_bits_per_s: 800_000_000,
            distance_m: 0,
        },
        site: Cable {
            rate_bits_per_s: 155_000_000,
            distance_m: 50_000,
        },
        net: Cable {
            rate_bits_per_s: 155_000_000,
            distance_m: 50_000,
        },
        backbone: Cable {
            rate_bits_per_s: 9_600_000_000,
            distance_m: 1_000_000,
        },
    };

    /// The cable of a level.
    pub fn get(&self, level: Level) -> Cable {
        match level {
            Level::Host => self.host,
            Level::Site => self.site,
            Level::Net => self.net,
            Level::Backbone => self.backbone,
        }
    }
}

impl Default for Cables {
    fn default() -> Self {
        Cables::THESIS
    }
}

/// How a cable's delay becomes whole milliseconds (A2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Rounding {
    /// Down: reproduces every row of Table 1 exactly.
    #[default]
    Floor,
    /// To the nearest millisecond, halves up: the thesis's wording (L1334), 2–6 ms off Table 1
    /// on three rows.
    Nearest,
}

/// The route of a message between two actors on the same node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SelfDelivery {
    /// No cable: delivered after 0 ms (the thesis's timer likewise bypasses the cables).
    #[default]
    Loopback,
    /// Up to the site router and back, like a message to another host of the site.
    ViaSiteRouter,
}

/// Everything that decides a delay. [`Default`] is the thesis's network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkConfig {
    pub topology: Topology,
    pub cables: Cables,
    /// TCP window in bytes (64,000: "64 KB" with KB = 1000).
    pub window_bytes: u64,
    /// Propagation speed, m/s (3·10⁸).
    pub light_speed_m_per_s: u64,
    pub rounding: Rounding,
    /// External load on every cable in thousandths of its rate (0; the thesis's 10% is 100).
    pub external_load_permille: u16,
    pub self_delivery: SelfDelivery,
}

impl NetworkConfig {
    /// The thesis's network (spec §2.1 and the defaults of A2, A3).
    pub const THESIS: NetworkConfig = NetworkConfig {
        topology: Topology::THESIS,
        cables: Cables::THESIS,
        window_bytes: 64_000,
        light_speed_m_per_s: 300_000_000,
        rounding: Rounding::Floor,
        external_load_permille: 0,
        self_delivery: SelfDelivery::Loopback,
    };
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig::THESIS
    }
}

/// How far apart two nodes are: the level of their lowest common router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathClass {
    SameNode,
    SameSite,
    SameNet,
    SameBackbone,
    OtherBackbone,
}

impl PathClass {
    /// The class of the route between two addresses (by their common prefix).
    pub fn between(a: Address, b: Address) -> PathClass {
        match a.common_prefix(b) {
            4 => PathClass::SameNode,
            3 => PathClass::SameSite,
            2 => PathClass::SameNet,
            1 => PathClass::SameBackbone,
            _ => PathClass::OtherBackbone,
        }
    }
}

/// A message's static path: up `rise` levels to the lowest common router, then down again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    class: PathClass,
    rise: u8,
}

impl Route {
    /// How far apart the ends are.
    pub fn class(&self) -> PathClass {
        self.class
    }

    /// Levels climbed: 0 (loopback) to 4 (over the top router).
    pub fn rise(&self) -> usize {
        self.rise.into()
    }

    /// Routers crossed (the thesis's Fig. 33 counts 7 between backbones).
    pub fn routers(&self) -> usize {
        (2 * self.rise()).saturating_sub(1)
    }

    /// The cables in order: up from the source, then down to the destination.
    pub fn cables(&self) -> impl Iterator<Item = Level> + use<> {
        let up = &Level::ALL[..self.rise()];
        up.iter().copied().chain(up.iter().rev().copied())
    }
}

/// The network refuses to build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid network: {0}")]
pub struct ConfigError(pub String);

/// A message the network cannot time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DelayError {
    #[error("a message must carry at least one byte")]
    EmptyMessage,
    #[error(transparent)]
    Address(#[from] AddressError),
    #[error("{0} is not a node of the network")]
    UnknownNode(NodeId),
    #[error("{0} is not placed on a node")]
    Unplaced(ActorId),
    #[error("{bytes} bytes: the transfer time does not fit in 64-bit milliseconds")]
    Overflow { bytes: u64 },
}

// Bounds that keep the exact arithmetic inside u128 for every u64 size (see `CableTerms`).
const MAX_DISTANCE_M: u64 = 1 << 40;
const MAX_LIGHT_SPEED: u64 = 1 << 40;
const MAX_RATE: u64 = 1 << 50;

/// One cable's delay in ms as two reduced fractions:
/// `windows · prop_num / prop_den + bytes · trans_num / trans_den`, where
/// `prop = d · 1000 / V` and `trans = 8 · 1000 / R_eff` (`R_eff = R · (1000 − load) / 1000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CableTerms {
    prop_num: u64,
    prop_den: u64,
    trans_num: u64,
    trans_den: u64,
    /// `prop_den · trans_den` when it fits: the common denominator of the fast path.
    den: Option<u64>,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn reduced(num: u64, den: u64) -> (u64, u64) {
    let g = gcd(num, den).max(1);
    (num / g, den / g)
}

impl CableTerms {
    fn new(cable: Cable, config: &NetworkConfig) -> CableTerms {
        // Validated: d ≤ 2^40, V ≤ 2^40, R ≤ 2^50, load < 1000, so every product fits in u64.
        let (prop_num, prop_den) = reduced(cable.distance_m * 1000, config.light_speed_m_per_s);
        let rate = cable.rate_bits_per_s * u64::from(1000 - config.external_load_permille);
        let (trans_num, trans_den) = reduced(8 * 1_000_000, rate);
        CableTerms {
            prop_num,
            prop_den,
            trans_num,
            trans_den,
            den: prop_den.checked_mul(trans_den),
        }
    }

    /// Whole milliseconds; `None` if they do not fit in a u64.
    fn millis(&self, windows: u64, bytes: u64, rounding: Rounding) -> Option<u64> {
        self.fast(windows, bytes, rounding)
            .or_else(|| self.exact(windows, bytes, rounding))
    }

    /// One fraction over the common denominator in u64 (the thesis's sizes always fit).
    fn fast(&self, windows: u64, bytes: u64, rounding: Rounding) -> Option<u64> {
        let den = self.den?;
        let num = windows
            .checked_mul(self.prop_num)?
            .checked_mul(self.trans_den)?
            .checked_add(
                bytes
                    .checked_mul(self.trans_num)?
                    .checked_mul(self.prop_den)?,
            )?;
        match rounding {
            Rounding::Floor => Some(num / den),
            Rounding::Nearest => Some(num.checked_mul(2)?.checked_add(den)? / den.checked_mul(2)?),
        }
    }

    /// Each term's quotient and remainder in u128; the remainders' sum (below 2) gives the
    /// carry. Within the validated bounds no intermediate value exceeds 2^115.
    fn exact(&self, windows: u64, bytes: u64, rounding: Rounding) -> Option<u64> {
        let (pd, td) = (u128::from(self.prop_den), u128::from(self.trans_den));
        let prop = u128::from(windows) * u128::from(self.prop_num);
        let trans = u128::from(bytes) * u128::from(self.trans_num);
        let whole = prop / pd + trans / td;
        let (frac, den) = ((prop % pd) * td + (trans % td) * pd, pd * td);
        let carry = match rounding {
            Rounding::Floor => frac / den,
            Rounding::Nearest => (2 * frac + den) / (2 * den),
        };
        u64::try_from(whole + carry).ok()
    }
}

/// The thesis's network: addresses, routes and delays. Immutable once built; cheap to share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    config: NetworkConfig,
    terms: [CableTerms; 4],
    /// Nodes per site, per net and per backbone: a route's class from two indexes.
    spans: [u32; 3],
}

impl Default for Network {
    fn default() -> Self {
        Network::thesis()
    }
}

impl Network {
    /// The thesis's network ([`NetworkConfig::THESIS`]).
    pub fn thesis() -> Network {
        Network::new(NetworkConfig::THESIS).expect("the thesis's network is valid")
    }

    /// A network; refuses an empty topology, a zero window, rate or speed, a load of 100% or
    /// more, and values so large that the exact arithmetic could overflow (distances and
    /// speeds above 2^40, rates above 2^50).
    pub fn new(config: NetworkConfig) -> Result<Network, ConfigError> {
        if let Some(problem) = config.topology.problem() {
            return Err(ConfigError(problem));
        }
        if config.window_bytes == 0 {
            return Err(ConfigError("the window must be at least one byte".into()));
        }
        if !(1..=MAX_LIGHT_SPEED).contains(&config.light_speed_m_per_s) {
            return Err(ConfigError(format!(
                "propagation speed {} m/s is not in 1..=2^40",
                config.light_speed_m_per_s
            )));
        }
        if config.external_load_permille >= 1000 {
            return Err(ConfigError(format!(
                "external load {}‰ leaves no capacity",
                config.external_load_permille
            )));
        }
        for level in Level::ALL {
            let c = config.cables.get(level);
            if !(1..=MAX_RATE).contains(&c.rate_bits_per_s) {
                return Err(ConfigError(format!(
                    "{level} cable: rate {} bit/s is not in 1..=2^50",
                    c.rate_bits_per_s
                )));
            }
            if c.distance_m > MAX_DISTANCE_M {
                return Err(ConfigError(format!(
                    "{level} cable: {} m is longer than 2^40 m",
                    c.distance_m
                )));
            }
        }
        let t = config.topology;
        let site = u32::from(t.hosts);
        let net = site * u32::from(t.sites);
        Ok(Network {
            terms: Level::ALL.map(|l| CableTerms::new(config.cables.get(l), &config)),
            spans: [site, net, net * u32::from(t.nets)],
            config,
        })
    }

    /// What this network was built from.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// Its addresses.
    pub fn topology(&self) -> &Topology {
        &self.config.topology
    }

    /// The static route between two nodes.
    pub fn route(&self, from: NodeId, to: NodeId) -> Result<Route, DelayError> {
        let nodes = self.config.topology.nodes();
        for node in [from, to] {
            if node.index() >= nodes as usize {
                return Err(DelayError::UnknownNode(node));
            }
        }
        let (a, b) = (from.index() as u32, to.index() as u32);
        let [site, net, backbone] = self.spans;
        let (class, rise) = if a == b {
            let rise = match self.config.self_delivery {
                SelfDelivery::Loopback => 0,
                SelfDelivery::ViaSiteRouter => 1,
            };
            (PathClass::SameNode, rise)
        } else if a / site == b / site {
            (PathClass::SameSite, 1)
        } else if a / net == b / net {
            (PathClass::SameNet, 2)
        } else if a / backbone == b / backbone {
            (PathClass::SameBackbone, 3)
        } else {
            (PathClass::OtherBackbone, 4)
        };
        Ok(Route { class, rise })
    }

    /// The delay of `bytes` over one cable of `level`.
    pub fn cable_delay(&self, level: Level, bytes: u64) -> Result<Millis, DelayError> {
        if bytes == 0 {
            return Err(DelayError::EmptyMessage);
        }
        let windows = bytes.div_ceil(self.config.window_bytes);
        self.terms[level.index()]
            .millis(windows, bytes, self.config.rounding)
            .ok_or(DelayError::Overflow { bytes })
    }

    /// The delay of `bytes` along a route: its cables' delays, each rounded on its own, summed.
    pub fn route_delay(&self, route: Route, bytes: u64) -> Result<Millis, DelayError> {
        if bytes == 0 {
            return Err(DelayError::EmptyMessage);
        }
        let windows = bytes.div_ceil(self.config.window_bytes);
        let mut one_way: Millis = 0;
        for term in &self.terms[..route.rise()] {
            let ms = term
                .millis(windows, bytes, self.config.rounding)
                .ok_or(DelayError::Overflow { bytes })?;
            one_way = one_way
                .checked_add(ms)
                .ok_or(DelayError::Overflow { bytes })?;
        }
        // The path down mirrors the path up, cable for cable.
        one_way.checked_mul(2).ok_or(DelayError::Overflow { bytes })
    }

    /// The end-to-end delay of a message of `bytes` bytes between two nodes.
    pub fn delay(&self, from: NodeId, to: NodeId, bytes: u64) -> Result<Millis, DelayError> {
        self.route_delay(self.route(from, to)?, bytes)
    }

    /// The same between two addresses (for people: `132.1.1.1` → `131.1.1.1`).
    pub fn delay_between(
        &self,
        from: Address,
        to: Address,
        bytes: u64,
    ) -> Result<Millis, DelayError> {
        let t = self.topology();
        self.delay(t.node(from)?, t.node(to)?, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_1_path_cable_by_cable() {
        // 1 GB: node links 10 s, OC-3 54.217 s (2604.17 + 51612.90 ms), OC-192 52.916 s.
        let n = Network::thesis();
        let gb = 1_000_000_000;
        assert_eq!(n.cable_delay(Level::Host, gb), Ok(10_000));
        assert_eq!(n.cable_delay(Level::Site, gb), Ok(54_217));
        assert_eq!(n.cable_delay(Level::Net, gb), Ok(54_217));
        assert_eq!(n.cable_delay(Level::Backbone, gb), Ok(52_916));
    }

    #[test]
    fn fast_and_exact_paths_agree() {
        for config in [
            NetworkConfig::THESIS,
            NetworkConfig {
                rounding: Rounding::Nearest,
                external_load_permille: 100,
                window_bytes: 65_536,
                ..NetworkConfig::THESIS
            },
        ] {
            let n = Network::new(config).unwrap();
            for term in &n.terms {
                for bytes in [
                    1u64,
                    99,
                    64_000,
                    64_001,
                    1_000_000_007,
                    100_000_000_000,
                    1 << 40,
                ] {
                    let windows = bytes.div_ceil(config.window_bytes);
                    let fast = term.fast(windows, bytes, config.rounding);
                    assert!(fast.is_some(), "{bytes}");
                    assert_eq!(fast, term.exact(windows, bytes, config.rounding), "{bytes}");
                }
            }
        }
    }

    #[test]
    fn routes_climb_to_the_lowest_common_router() {
        let n = Network::thesis();
        let t = *n.topology();
        let at = |s: &str| t.parse(s).unwrap();
        let route = |a, b| n.route(at(a), at(b)).unwrap();
        let r = route("132.1.1.1", "131.1.1.1");
        assert_eq!(r.class(), PathClass::OtherBackbone);
        assert_eq!(r.routers(), 7, "Fig. 33: 7 routers");
        assert_eq!(
            r.cables().collect::<Vec<_>>(),
            [
                Level::Host,
                Level::Site,
                Level::Net,
                Level::Backbone,
                Level::Backbone,
                Level::Net,
                Level::Site,
                Level::Host
            ]
        );
        assert_eq!(route("132.1.1.1", "132.4.1.1").cables().count(), 6);
        assert_eq!(route("132.1.1.1", "132.1.9.1").cables().count(), 4);
        assert_eq!(route("132.1.1.1", "132.1.1.2").cables().count(), 2);
        assert_eq!(route("132.1.1.1", "132.1.1.1").cables().count(), 0);
        let via = Network::new(NetworkConfig {
            self_delivery: SelfDelivery::ViaSiteRouter,
            ..NetworkConfig::THESIS
        })
        .unwrap();
        let same = via.route(at("132.1.1.1"), at("132.1.1.1")).unwrap();
        assert_eq!(same.class(), PathClass::SameNode);
        assert_eq!(
            same.cables().collect::<Vec<_>>(),
            [Level::Host, Level::Host]
        );
    }

    #[test]
    fn bad_configurations_are_refused() {
        let bad = |c: NetworkConfig| Network::new(c).unwrap_err();
        let t = NetworkConfig::THESIS;
        bad(NetworkConfig {
            window_bytes: 0,
            ..t
        });
        bad(NetworkConfig {
            light_speed_m_per_s: 0,
            ..t
        });
        bad(NetworkConfig {
            external_load_permille: 1000,
            ..t
        });
        let mut cables = Cables::THESIS;
        cables.net.rate_bits_per_s = 0;
        let e = bad(NetworkConfig { cables, ..t });
        assert_eq!(
            e.to_string(),
            "invalid network: net cable: rate 0 bit/s is not in 1..=2^50"
        );
        let mut topology = Topology::THESIS;
        topology.sites = 0;
        bad(NetworkConfig { topology, ..t });
    }

    #[test]
    fn bad_messages_are_typed_errors() {
        let n = Network::thesis();
        let a = Address::new(132, 1, 1, 1);
        assert_eq!(n.delay_between(a, a, 0), Err(DelayError::EmptyMessage));
        assert!(matches!(
            n.delay_between(a, Address::new(135, 2, 2, 2), 1),
            Err(DelayError::Address(AddressError::Unknown { .. }))
        ));
        let past = Topology {
            backbones: 5,
            ..Topology::THESIS
        }
        .node(Address::new(135, 1, 1, 1))
        .unwrap();
        assert_eq!(n.delay(past, past, 1), Err(DelayError::UnknownNode(past)));
    }

    #[test]
    fn sizes_near_u64_max_overflow_cleanly_or_fit() {
        let n = Network::thesis();
        let (a, b) = (Address::new(132, 1, 1, 1), Address::new(131, 1, 1, 1));
        // 2^64 − 1 bytes take ~2.9·10^14 s: still representable in ms.
        assert!(n.delay_between(a, b, u64::MAX).is_ok());
        let mut cables = Cables::THESIS;
        cables.backbone.rate_bits_per_s = 1;
        let slow = Network::new(NetworkConfig {
            cables,
            ..NetworkConfig::THESIS
        })
        .unwrap();
        assert_eq!(
            slow.delay_between(a, b, u64::MAX),
            Err(DelayError::Overflow { bytes: u64::MAX })
        );
    }
}
