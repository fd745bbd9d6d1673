//! Node addresses of the thesis's Internet model (spec §2.1): `B.N.W.H` IPv4 addresses whose
//! first three octets are router levels (backbone, net, site) and whose last octet is the host.
//!
//! Why addresses and not just indexes: the thesis's routing *is* its addressing (a router
//! forwards by prefix and otherwise hands the packet to its parent), its Butterfly
//! rescheduling judges closeness by common prefix (A11), and its examples and users name nodes
//! as `132.1.1.1`. So a node has both: an [`Address`] for everything a person reads or types,
//! and a dense [`NodeId`] (`0..2400`) for tables a simulation indexes. [`Topology`] converts
//! between them and is the one place that knows which addresses exist.

use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;

/// An IPv4 address `B.N.W.H`: backbone, net, site (the thesis's "network") and host octets.
/// Any four octets; whether a node has it is [`Topology::node`]'s question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Address(pub [u8; 4]);

impl Address {
    /// `backbone.net.site.host`.
    pub const fn new(backbone: u8, net: u8, site: u8, host: u8) -> Address {
        Address([backbone, net, site, host])
    }

    /// The four octets.
    pub const fn octets(self) -> [u8; 4] {
        self.0
    }

    /// How many leading octets the two addresses share (4: the same node, 3: the same site,
    /// 2: the same net, 1: the same backbone, 0: different backbones).
    pub fn common_prefix(self, other: Address) -> usize {
        self.0
            .iter()
            .zip(other.0)
            .take_while(|(a, b)| **a == *b)
            .count()
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [b, n, w, h] = self.0;
        write!(f, "{b}.{n}.{w}.{h}")
    }
}

impl From<Ipv4Addr> for Address {
    fn from(ip: Ipv4Addr) -> Self {
        Address(ip.octets())
    }
}

impl FromStr for Address {
    type Err = AddressError;

    /// Four decimal octets 0–255 separated by dots, as [`Ipv4Addr`] reads them (no leading
    /// zeros, no spaces, no shorthand).
    fn from_str(s: &str) -> Result<Self, AddressError> {
        s.parse::<Ipv4Addr>()
            .map(Address::from)
            .map_err(|_| AddressError::Malformed {
                text: s.to_string(),
            })
    }
}

/// A node's dense index in a [`Topology`]: nodes in address order, `0` = the first host of
/// the first site (`131.1.1.1` in the thesis's network).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(u32);

impl NodeId {
    /// The index, for tables with one entry per node.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {}", self.0)
    }
}

/// An address that cannot be read or does not belong to a node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("`{text}` is not an IPv4 address (four decimal octets 0-255, e.g. 132.1.1.1)")]
    Malformed { text: String },
    #[error("{address} is not a node of the network (nodes are {topology})")]
    Unknown {
        address: Address,
        topology: Topology,
    },
}

/// The shape of the address hierarchy: which backbone octets exist and how many nets per
/// backbone, sites per net and hosts per site. Nets, sites and hosts are numbered from 1
/// (the thesis's Fig. 31); backbones from `first_backbone`. The thesis's network
/// ([`Topology::THESIS`]) is 131–134 × 1–4 × 1–10 × 1–15: 2400 nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topology {
    pub first_backbone: u8,
    pub backbones: u8,
    pub nets: u8,
    pub sites: u8,
    pub hosts: u8,
}

impl Default for Topology {
    fn default() -> Self {
        Topology::THESIS
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = |first: u32, count: u8| {
            if count <= 1 {
                first.to_string()
            } else {
                format!("{first}-{}", first + u32::from(count) - 1)
            }
        };
        write!(
            f,
            "{}.{}.{}.{}",
            range(self.first_backbone.into(), self.backbones),
            range(1, self.nets),
            range(1, self.sites),
            range(1, self.hosts)
        )
    }
}

impl Topology {
    /// The thesis's network: backbones 131–134, 4 nets each, 10 sites per net, 15 hosts per
    /// site (spec §2.1, thesis Fig. 31).
    pub const THESIS: Topology = Topology {
        first_backbone: 131,
        backbones: 4,
        nets: 4,
        sites: 10,
        hosts: 15,
    };

    /// Why this shape cannot be a network, if it cannot: a level without members, or backbone
    /// octets past 255.
    pub fn problem(&self) -> Option<String> {
        if self.backbones == 0 || self.nets == 0 || self.sites == 0 || self.hosts == 0 {
            return Some(format!("every level needs at least one member: {self:?}"));
        }
        if self.first_backbone == 0 {
            return Some("backbone octets start at 1 (0.0.0.1 is the thesis's timer)".into());
        }
        if u32::from(self.first_backbone) + u32::from(self.backbones) - 1 > 255 {
            return Some(format!(
                "backbones {}..{} do not fit in an octet",
                self.first_backbone,
                u32::from(self.first_backbone) + u32::from(self.backbones) - 1
            ));
        }
        None
    }

    /// Number of nodes (hosts in all sites).
    pub fn nodes(&self) -> u32 {
        u32::from(self.backbones)
            * u32::from(self.nets)
            * u32::from(self.sites)
            * u32::from(self.hosts)
    }

    /// The node with this address.
    pub fn node(&self, address: Address) -> Result<NodeId, AddressError> {
        let [b, n, w, h] = address.0.map(u32::from);
        let b = b.wrapping_sub(self.first_backbone.into());
        let inside = |x: u32, count: u8| x < u32::from(count);
        // Nets, sites and hosts count from 1, so 0 wraps past every count.
        let (n, w, h) = (n.wrapping_sub(1), w.wrapping_sub(1), h.wrapping_sub(1));
        if inside(b, self.backbones)
            && inside(n, self.nets)
            && inside(w, self.sites)
            && inside(h, self.hosts)
        {
            let site = (b * u32::from(self.nets) + n) * u32::from(self.sites) + w;
            Ok(NodeId(site * u32::from(self.hosts) + h))
        } else {
            Err(AddressError::Unknown {
                address,
                topology: *self,
            })
        }
    }

    /// Reads an address and finds its node.
    pub fn parse(&self, text: &str) -> Result<NodeId, AddressError> {
        self.node(text.parse()?)
    }

    /// The address of a node; `None` if the index is past the last node.
    pub fn address(&self, node: NodeId) -> Option<Address> {
        if node.0 >= self.nodes() {
            return None;
        }
        let mut rest = node.0;
        let mut digit = |count: u8| {
            let d = rest % u32::from(count);
            rest /= u32::from(count);
            d as u8
        };
        let h = digit(self.hosts) + 1;
        let w = digit(self.sites) + 1;
        let n = digit(self.nets) + 1;
        // Past 255 only in a shape `problem` rejects.
        let b = self.first_backbone.checked_add(u8::try_from(rest).ok()?)?;
        Some(Address::new(b, n, w, h))
    }

    /// Every node, in index (= address) order.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.nodes()).map(NodeId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_network_has_2400_nodes_in_address_order() {
        let t = Topology::THESIS;
        assert_eq!(t.nodes(), 2400);
        assert_eq!(t.address(NodeId(0)), Some(Address::new(131, 1, 1, 1)));
        assert_eq!(t.address(NodeId(14)), Some(Address::new(131, 1, 1, 15)));
        assert_eq!(t.address(NodeId(15)), Some(Address::new(131, 1, 2, 1)));
        assert_eq!(t.address(NodeId(2399)), Some(Address::new(134, 4, 10, 15)));
        assert_eq!(t.address(NodeId(2400)), None);
        let mut last = None;
        for id in t.node_ids() {
            let a = t.address(id).unwrap();
            assert_eq!(t.node(a), Ok(id));
            assert!(last < Some(a), "addresses ascend with the index");
            last = Some(a);
        }
    }

    #[test]
    fn the_thesis_valid_and_invalid_examples() {
        let t = Topology::THESIS;
        assert!(t.parse("131.4.3.2").is_ok());
        assert!(matches!(
            t.parse("135.2.2.2"),
            Err(AddressError::Unknown { .. })
        ));
        for bad in [
            "130.1.1.1",
            "131.0.1.1",
            "131.5.1.1",
            "131.1.0.1",
            "131.1.11.1",
            "131.1.1.0",
            "131.1.1.16",
            "0.0.0.1",
        ] {
            assert!(
                matches!(t.parse(bad), Err(AddressError::Unknown { .. })),
                "{bad}"
            );
        }
        for bad in [
            "",
            "131.1.1",
            "131.1.1.1.1",
            "131.1.1.256",
            "131.01.1.1",
            " 131.1.1.1",
            "a.b.c.d",
        ] {
            assert!(
                matches!(t.parse(bad), Err(AddressError::Malformed { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn errors_say_what_exists() {
        let e = Topology::THESIS.parse("135.2.2.2").unwrap_err();
        assert_eq!(
            e.to_string(),
            "135.2.2.2 is not a node of the network (nodes are 131-134.1-4.1-10.1-15)"
        );
    }

    #[test]
    fn common_prefix_counts_shared_octets() {
        let a = Address::new(132, 4, 4, 5);
        assert_eq!(a.common_prefix(a), 4);
        assert_eq!(a.common_prefix(Address::new(132, 4, 4, 6)), 3);
        assert_eq!(a.common_prefix(Address::new(132, 4, 5, 5)), 2);
        assert_eq!(a.common_prefix(Address::new(132, 4, 1, 1)), 2);
        assert_eq!(a.common_prefix(Address::new(133, 4, 4, 5)), 0);
    }

    #[test]
    fn shapes_that_are_not_networks() {
        let ok = Topology::THESIS;
        assert_eq!(ok.problem(), None);
        assert!(Topology { hosts: 0, ..ok }.problem().is_some());
        assert!(
            Topology {
                first_backbone: 0,
                ..ok
            }
            .problem()
            .is_some()
        );
        assert!(
            Topology {
                first_backbone: 253,
                ..ok
            }
            .problem()
            .is_some()
        );
        assert_eq!(
            Topology {
                first_backbone: 252,
                ..ok
            }
            .problem(),
            None
        );
    }
}
