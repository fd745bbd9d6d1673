//! The grid of spec §2.2: which nodes are servers (of which Table 2 type, with which OS) and
//! which are workstations.
//!
//! Why the per-site counts are a fixed vector (A4): the thesis says each site "advertises 2 to
//! 6" servers, drawn at random, *and* that there are always 520 servers and 1880 workstations.
//! Uniform draws in 2..=6 would average 640. So the per-site counts are the fixed multiset
//! [`SERVER_COUNT_MIX`] (160 sites, sum 520) dealt to sites by a shuffle from a fixed seed
//! ([`GridConfig::counts_seed`]), the same in every run; only the server types and OSes are
//! drawn per run, from the run's [`StreamKey`] (common random numbers: every system of a run
//! sees the same grid).
//!
//! Placement inside a site: the site's `k` servers are its hosts `1..=k`, the workstations its
//! hosts `k+1..=15`. The thesis does not say; it only matters through A5, which by default
//! co-hosts each non-leaf scheduler on "the first server" of its region (its lowest address),
//! or with `SchedulerHost::DedicatedNode` puts it on one of the region's last hosts.

use std::fmt;

use gridsched_sim::StreamKey;
use rand::Rng;
use rand::seq::SliceRandom;

use crate::address::{Address, NodeId, Topology};

/// The operating systems a server runs and a job requires (uniform over the three, L1603).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Os {
    Unix,
    Linux,
    Windows,
}

impl Os {
    /// The three, in index order.
    pub const ALL: [Os; 3] = [Os::Unix, Os::Linux, Os::Windows];

    /// `0..3`, for tables with one entry per OS.
    pub fn index(self) -> usize {
        self as usize
    }

    /// A uniform draw.
    pub fn draw<R: Rng + ?Sized>(rng: &mut R) -> Os {
        Os::ALL[rng.random_range(0..3)]
    }
}

impl fmt::Display for Os {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Os::Unix => "UNIX",
            Os::Linux => "LINUX",
            Os::Windows => "Windows",
        })
    }
}

/// One row of Table 2: a parallel computer of `nodes` × `cpus_per_node` CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerType {
    /// The thesis's type number, 1–7.
    pub number: u8,
    pub nodes: u32,
    pub cpus_per_node: u32,
}

impl ServerType {
    /// The server's processing power: its total CPU count (L957, L1088).
    pub const fn cpus(&self) -> u32 {
        self.nodes * self.cpus_per_node
    }
}

/// Table 2 (L1592–1601).
pub const TABLE_2: [ServerType; 7] = [
    ServerType {
        number: 1,
        nodes: 184,
        cpus_per_node: 16,
    },
    ServerType {
        number: 2,
        nodes: 305,
        cpus_per_node: 4,
    },
    ServerType {
        number: 3,
        nodes: 144,
        cpus_per_node: 8,
    },
    ServerType {
        number: 4,
        nodes: 1024,
        cpus_per_node: 4,
    },
    ServerType {
        number: 5,
        nodes: 64,
        cpus_per_node: 2,
    },
    ServerType {
        number: 6,
        nodes: 512,
        cpus_per_node: 4,
    },
    ServerType {
        number: 7,
        nodes: 128,
        cpus_per_node: 2,
    },
];

/// (servers per site, number of sites): the fixed multiset of A4, 160 sites, 520 servers.
pub const SERVER_COUNT_MIX: [(u8, u16); 5] = [(2, 40), (3, 70), (4, 30), (5, 10), (6, 10)];

/// A server: a node running one job at a time (L1584).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Server {
    pub node: NodeId,
    pub address: Address,
    /// Index of its site (`0..160`, address order).
    pub site: u32,
    pub kind: ServerType,
    pub os: Os,
}

impl Server {
    /// Total CPUs.
    pub fn cpus(&self) -> u32 {
        self.kind.cpus()
    }

    /// Whether a job requiring `os` can run here (matching is the OS only, L1603, L1694).
    pub fn matches(&self, os: Os) -> bool {
        self.os == os
    }
}

/// How a grid is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridConfig {
    pub topology: Topology,
    /// Servers-per-site multiset (A4); must cover every site.
    pub server_counts: Vec<(u8, u16)>,
    /// Seed of the shuffle dealing the counts to sites: fixed across runs (A4).
    pub counts_seed: u64,
}

impl Default for GridConfig {
    fn default() -> Self {
        GridConfig {
            topology: Topology::THESIS,
            server_counts: SERVER_COUNT_MIX.to_vec(),
            counts_seed: 2006,
        }
    }
}

/// Why a grid cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GridError {
    #[error("the server-count mix covers {mix} sites but the topology has {sites}")]
    SiteCount { mix: usize, sites: usize },
    #[error("a site cannot have {servers} servers: it has {hosts} hosts")]
    TooManyServers { servers: u8, hosts: u8 },
    #[error("invalid topology: {0}")]
    Topology(String),
}

/// Sites, servers and workstations of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    topology: Topology,
    servers: Vec<Server>,
    workstations: Vec<NodeId>,
    /// Servers per site, address order.
    site_servers: Vec<u8>,
}

impl Grid {
    /// Builds a grid: counts dealt by `config.counts_seed`, types and OSes drawn from the
    /// run's key (streams `server-type` and `server-os`).
    pub fn build(config: &GridConfig, run: &StreamKey) -> Result<Grid, GridError> {
        let t = config.topology;
        if let Some(problem) = t.problem() {
            return Err(GridError::Topology(problem));
        }
        let sites = usize::from(t.backbones) * usize::from(t.nets) * usize::from(t.sites);
        let mut counts: Vec<u8> = Vec::with_capacity(sites);
        for &(servers, n) in &config.server_counts {
            if servers > t.hosts {
                return Err(GridError::TooManyServers {
                    servers,
                    hosts: t.hosts,
                });
            }
            counts.extend(std::iter::repeat_n(servers, usize::from(n)));
        }
        if counts.len() != sites {
            return Err(GridError::SiteCount {
                mix: counts.len(),
                sites,
            });
        }
        let mut deal = StreamKey::new(config.counts_seed, "alzoubi-grid")
            .stream("site-server-counts")
            .rng();
        counts.shuffle(&mut deal);

        let mut types = run.clone().stream("server-type").rng();
        let mut oses = run.clone().stream("server-os").rng();
        let mut servers = Vec::new();
        let mut workstations = Vec::new();
        for node in t.node_ids() {
            let site = node.index() / usize::from(t.hosts);
            let host = node.index() % usize::from(t.hosts);
            if host < usize::from(counts[site]) {
                let kind = TABLE_2[types.random_range(0..TABLE_2.len())];
                servers.push(Server {
                    node,
                    address: t.address(node).expect("node of the topology"),
                    site: site as u32,
                    kind,
                    os: Os::draw(&mut oses),
                });
            } else {
                workstations.push(node);
            }
        }
        Ok(Grid {
            topology: t,
            servers,
            workstations,
            site_servers: counts,
        })
    }

    /// The thesis's grid for one run (default config).
    pub fn thesis(run: &StreamKey) -> Grid {
        Grid::build(&GridConfig::default(), run).expect("the default config is valid")
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Every server, address order.
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    /// Every workstation node, address order.
    pub fn workstations(&self) -> &[NodeId] {
        &self.workstations
    }

    /// Servers per site, site (address) order.
    pub fn site_servers(&self) -> &[u8] {
        &self.site_servers
    }

    /// Number of sites.
    pub fn sites(&self) -> usize {
        self.site_servers.len()
    }

    /// The site index of a node.
    pub fn site_of(&self, node: NodeId) -> u32 {
        (node.index() / usize::from(self.topology.hosts)) as u32
    }

    /// The site address `B.N.W.0` of a site index.
    pub fn site_address(&self, site: u32) -> Address {
        let node = self
            .topology
            .node_ids()
            .nth(site as usize * usize::from(self.topology.hosts))
            .expect("site of the topology");
        let [b, n, w, _] = self.topology.address(node).expect("node").octets();
        Address::new(b, n, w, 0)
    }

    /// Servers whose OS is `os`.
    pub fn matching(&self, os: Os) -> impl Iterator<Item = &Server> {
        self.servers.iter().filter(move |s| s.matches(os))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(r: u32) -> StreamKey {
        StreamKey::new(7, "grid-test").replication(r)
    }

    #[test]
    fn table_2_cpus() {
        let cpus: Vec<u32> = TABLE_2.iter().map(ServerType::cpus).collect();
        assert_eq!(cpus, [2944, 1220, 1152, 4096, 128, 2048, 256]);
        let mean = f64::from(cpus.iter().sum::<u32>()) / 7.0;
        assert!((mean - 1692.0).abs() < 1.0);
        let inv = cpus.iter().map(|&c| 1.0 / f64::from(c)).sum::<f64>() / 7.0;
        assert!((inv - 2.0684e-3).abs() < 1e-6);
    }

    #[test]
    fn counts_are_the_thesis_totals() {
        let g = Grid::thesis(&run(0));
        assert_eq!(g.sites(), 160);
        assert_eq!(g.servers().len(), 520);
        assert_eq!(g.workstations().len(), 1880);
        assert!(g.site_servers().iter().all(|&k| (2..=6).contains(&k)));
        for (k, n) in SERVER_COUNT_MIX {
            let got = g.site_servers().iter().filter(|&&c| c == k).count();
            assert_eq!(got, usize::from(n));
        }
    }

    #[test]
    fn counts_fixed_types_and_oses_per_run() {
        let (a, b, a2) = (
            Grid::thesis(&run(0)),
            Grid::thesis(&run(1)),
            Grid::thesis(&run(0)),
        );
        assert_eq!(a, a2);
        assert_eq!(a.site_servers(), b.site_servers());
        assert_ne!(a.servers(), b.servers());
        // Every type and OS occurs.
        for t in TABLE_2 {
            assert!(a.servers().iter().any(|s| s.kind == t));
        }
        for os in Os::ALL {
            assert!(a.matching(os).count() > 100);
        }
    }

    #[test]
    fn servers_take_the_first_hosts_of_their_site() {
        let g = Grid::thesis(&run(3));
        for s in g.servers() {
            let k = g.site_servers()[s.site as usize];
            assert!(s.address.octets()[3] <= k);
            assert_eq!(g.site_of(s.node), s.site);
        }
        assert_eq!(g.site_address(0), Address::new(131, 1, 1, 0));
        assert_eq!(g.site_address(159), Address::new(134, 4, 10, 0));
    }

    #[test]
    fn bad_mix_is_an_error() {
        let config = GridConfig {
            server_counts: vec![(3, 10)],
            ..GridConfig::default()
        };
        assert!(matches!(
            Grid::build(&config, &run(0)),
            Err(GridError::SiteCount {
                mix: 10,
                sites: 160
            })
        ));
    }
}
