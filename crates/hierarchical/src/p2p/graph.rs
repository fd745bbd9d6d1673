//! The P2P overlay (spec §2.3 P2P bullet, §3.8, A13): every server is a peer with 3 to 6
//! "geographically close" neighbours, and every workstation enters the grid through the
//! lowest-addressed server of its own site.
//!
//! Why the graph matters: the thesis leaves the overlay unspecified, and flooding reaches only
//! a peer's connected component, so the overlay is the main free parameter of the baseline
//! (spec §3.8 FLAG). With [`NeighbourPolicy::Nearest`] a peer's closest peers are always in its
//! own net (a net holds ~32 servers, a peer picks at most 6), so the graph has at least one
//! component per net; [`NeighbourGraph::components`] records it.

use gridsched_sim::StreamKey;
use rand::Rng;

use crate::grid::Grid;

/// How a peer chooses its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NeighbourPolicy {
    /// The spec's proposal (§3.8): the `k` nearest peers by (common-prefix octets of the site
    /// addresses, descending; then the distance of the site indexes; then a seeded random
    /// tie-break).
    #[default]
    Nearest,
    /// `k` peers drawn uniformly without replacement (a connected-in-practice control: the
    /// thesis's "geographically close" choice was made to *favour* P2P, this one ignores
    /// geography).
    Random,
}

/// The undirected overlay: peers are servers, indexed as in [`Grid::servers`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeighbourGraph {
    /// Each peer's own picks (before symmetrisation), nearest first.
    picks: Vec<Vec<u32>>,
    /// CSR adjacency of the undirected graph: `adj[offsets[p]..offsets[p + 1]]`, ascending.
    offsets: Vec<u32>,
    adj: Vec<u32>,
    /// The component index of every peer (components numbered by their lowest peer).
    component: Vec<u32>,
    components: usize,
}

impl NeighbourGraph {
    /// Builds the overlay of a grid. Peer `i` draws its degree `k ~ U{3..6}` (capped at the
    /// number of other peers) and its tie-breaks from its own stream `p2p-neighbours/{i}` of
    /// `run`, so the graph is common to every configuration of a replication.
    pub fn build(grid: &Grid, policy: NeighbourPolicy, run: &StreamKey) -> NeighbourGraph {
        let servers = grid.servers();
        let n = servers.len();
        let site_addr: Vec<_> = servers.iter().map(|s| grid.site_address(s.site)).collect();
        let mut picks = Vec::with_capacity(n);
        // (prefix desc, site distance, random) per candidate; reused across peers.
        let mut keys: Vec<(u8, u32, u64, u32)> = Vec::with_capacity(n);
        for i in 0..n {
            let mut rng = run.clone().stream(&format!("p2p-neighbours/{i}")).rng();
            let k = rng.random_range(3..=6usize).min(n.saturating_sub(1));
            let mine: Vec<u32> = match policy {
                NeighbourPolicy::Nearest => {
                    keys.clear();
                    for j in 0..n {
                        if j == i {
                            continue;
                        }
                        let prefix = site_addr[i].common_prefix(site_addr[j]) as u8;
                        let dist = servers[i].site.abs_diff(servers[j].site);
                        let tie: u64 = rng.random();
                        keys.push((u8::MAX - prefix, dist, tie, j as u32));
                    }
                    if k < keys.len() {
                        keys.select_nth_unstable(k);
                        keys.truncate(k);
                    }
                    keys.sort_unstable();
                    keys.iter().map(|t| t.3).collect()
                }
                NeighbourPolicy::Random => {
                    rand::seq::index::sample(&mut rng, n.saturating_sub(1), k)
                        .into_iter()
                        .map(|x| if x >= i { x + 1 } else { x } as u32)
                        .collect()
                }
            };
            picks.push(mine);
        }
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, mine) in picks.iter().enumerate() {
            for &j in mine {
                lists[i].push(j);
                lists[j as usize].push(i as u32);
            }
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut adj = Vec::new();
        offsets.push(0u32);
        for l in &mut lists {
            l.sort_unstable();
            l.dedup();
            adj.extend_from_slice(l);
            offsets.push(adj.len() as u32);
        }
        let mut g = NeighbourGraph {
            picks,
            offsets,
            adj,
            component: vec![u32::MAX; n],
            components: 0,
        };
        g.label_components();
        g
    }

    fn label_components(&mut self) {
        let n = self.peers();
        let mut stack = Vec::new();
        let mut c = 0u32;
        for s in 0..n {
            if self.component[s] != u32::MAX {
                continue;
            }
            self.component[s] = c;
            stack.push(s as u32);
            while let Some(p) = stack.pop() {
                let (a, b) = (self.offsets[p as usize], self.offsets[p as usize + 1]);
                for &q in &self.adj[a as usize..b as usize] {
                    if self.component[q as usize] == u32::MAX {
                        self.component[q as usize] = c;
                        stack.push(q);
                    }
                }
            }
            c += 1;
        }
        self.components = c as usize;
    }

    /// Number of peers.
    pub fn peers(&self) -> usize {
        self.picks.len()
    }

    /// A peer's neighbours in the undirected graph, ascending.
    pub fn neighbours(&self, peer: u32) -> &[u32] {
        let p = peer as usize;
        &self.adj[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }

    /// A peer's own picks (before symmetrisation), nearest first: `3..=6` of them.
    pub fn picks(&self, peer: u32) -> &[u32] {
        &self.picks[peer as usize]
    }

    /// Number of connected components.
    pub fn components(&self) -> usize {
        self.components
    }

    /// The component of a peer.
    pub fn component_of(&self, peer: u32) -> usize {
        self.component[peer as usize] as usize
    }

    /// Mean degree of the undirected graph (`2·|E| / peers`).
    pub fn mean_degree(&self) -> f64 {
        self.adj.len() as f64 / self.peers().max(1) as f64
    }

    /// The entry peer of each site (A13): the lowest-addressed server of the site; a site
    /// without servers uses the lowest-addressed server of the nearest site (by common prefix,
    /// then site distance), which the thesis's grid never needs.
    pub fn site_entries(grid: &Grid) -> Vec<u32> {
        let servers = grid.servers();
        let mut first = vec![u32::MAX; grid.sites()];
        for (i, s) in servers.iter().enumerate().rev() {
            first[s.site as usize] = i as u32;
        }
        (0..grid.sites())
            .map(|site| {
                if first[site] != u32::MAX {
                    return first[site];
                }
                let me = grid.site_address(site as u32);
                (0..grid.sites())
                    .filter(|&o| first[o] != u32::MAX)
                    .min_by_key(|&o| {
                        (
                            u8::MAX - me.common_prefix(grid.site_address(o as u32)) as u8,
                            site.abs_diff(o),
                        )
                    })
                    .map_or(0, |o| first[o])
            })
            .collect()
    }
}
