//! The scheduler trees of spec §2.3, generic in the root level so H1, H4 and H16 come from
//! one builder.
//!
//! Levels: 0 the GSS (whole grid), 1 one scheduler per backbone, 2 one per net, 3 one per
//! half-net ("child holds 5 sites": the first `ceil(sites/2)` sites of the net and the rest),
//! 4 the LGSs, one per server (merged with its local scheduler). A forest rooted at level `r`
//! drops the levels above `r`: `r = 0` is H1 (one tree), `r = 1` H4 (a tree per backbone),
//! `r = 2` H16 (a tree per net).
//!
//! Where a scheduler runs (A5, [`SchedulerHost`]): the grid's 2400 nodes are all servers or
//! workstations, so by default each non-leaf scheduler is co-hosted on the first
//! (lowest-addressed) server of its region and takes that node's address for latency;
//! [`SchedulerHost::DedicatedNode`] gives each a node of its own instead.

use crate::address::NodeId;
use crate::grid::Grid;
use crate::hierarchy::config::SchedulerHost;

/// The level the roots of a forest sit at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RootLevel {
    /// One tree under the GSS (H1).
    Grid = 0,
    /// A tree per backbone (H4).
    Backbone = 1,
    /// A tree per net (H16).
    Net = 2,
}

/// A child of a scheduler: another scheduler or a leaf (an LGS, by server index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeChild {
    Scheduler(usize),
    Leaf(usize),
}

/// A non-leaf scheduler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerNode {
    /// 0 (GSS) to 3 (half-net).
    pub level: u8,
    /// The node it runs on (A5).
    pub host: NodeId,
    pub parent: Option<usize>,
    pub children: Vec<TreeChild>,
    /// The sites under it (site indexes, ascending).
    pub sites: Vec<u32>,
}

/// The schedulers of a forest, and where every server and site hangs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forest {
    pub schedulers: Vec<SchedulerNode>,
    /// Root scheduler indexes, address order.
    pub roots: Vec<usize>,
    /// Each server's parent scheduler (a level-3 scheduler).
    pub leaf_parent: Vec<usize>,
    /// Each site's root (the Grid entry of the site's workstations).
    pub site_root: Vec<usize>,
}

impl Forest {
    /// Builds the forest of `grid` rooted at `root`, schedulers on the first server of their
    /// region (A5's default).
    pub fn build(grid: &Grid, root: RootLevel) -> Forest {
        Forest::build_hosted(grid, root, SchedulerHost::FirstServer)
    }

    /// Builds the forest of `grid` rooted at `root`, schedulers placed by `hosting` (A5).
    pub fn build_hosted(grid: &Grid, root: RootLevel, hosting: SchedulerHost) -> Forest {
        let t = *grid.topology();
        let (nets, sites_per_net) = (u32::from(t.nets), u32::from(t.sites));
        let half = sites_per_net.div_ceil(2);
        // Group key of a site at each level: backbone, net, half-net.
        let key = |site: u32, level: u8| -> u32 {
            let net = site / sites_per_net;
            match level {
                0 => 0,
                1 => net / nets,
                2 => net,
                _ => net * 2 + u32::from(site % sites_per_net >= half),
            }
        };
        let mut servers_of_site: Vec<Vec<usize>> = vec![Vec::new(); grid.sites()];
        for (i, s) in grid.servers().iter().enumerate() {
            servers_of_site[s.site as usize].push(i);
        }
        let mut forest = Forest {
            schedulers: Vec::new(),
            roots: Vec::new(),
            leaf_parent: vec![usize::MAX; grid.servers().len()],
            site_root: vec![usize::MAX; grid.sites()],
        };
        let all: Vec<u32> = (0..grid.sites() as u32).collect();
        let root_level = root as u8;
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for &s in &all {
            let k = key(s, root_level) as usize;
            if groups.len() <= k {
                groups.resize(k + 1, Vec::new());
            }
            groups[k].push(s);
        }
        for sites in groups.into_iter().filter(|g| !g.is_empty()) {
            let r = forest.add(
                grid,
                &servers_of_site,
                hosting,
                root_level,
                None,
                sites,
                &key,
            );
            forest.roots.push(r);
        }
        for (i, s) in forest.schedulers.iter().enumerate() {
            if s.parent.is_none() {
                for &site in &s.sites {
                    forest.site_root[site as usize] = i;
                }
            }
        }
        forest
    }

    /// The nodes schedulers run on that no server or LGS runs on (empty under
    /// [`SchedulerHost::FirstServer`]).
    pub fn dedicated_hosts(&self, grid: &Grid) -> Vec<NodeId> {
        let servers: std::collections::BTreeSet<NodeId> =
            grid.servers().iter().map(|s| s.node).collect();
        let mut v: Vec<NodeId> = self
            .schedulers
            .iter()
            .map(|s| s.host)
            .filter(|h| !servers.contains(h))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        grid: &Grid,
        servers_of_site: &[Vec<usize>],
        hosting: SchedulerHost,
        level: u8,
        parent: Option<usize>,
        sites: Vec<u32>,
        key: &dyn Fn(u32, u8) -> u32,
    ) -> usize {
        let first = grid.servers()[servers_of_site[sites[0] as usize][0]].node;
        let host = match hosting {
            SchedulerHost::FirstServer => first,
            SchedulerHost::DedicatedNode => {
                // Host `H - level` (1-based) of the region's last site, if no server is there.
                let hosts = usize::from(grid.topology().hosts);
                let last = *sites.last().expect("a region has sites") as usize;
                let slot = hosts.checked_sub(1 + usize::from(level));
                match slot {
                    Some(h) if h >= usize::from(grid.site_servers()[last]) => grid
                        .topology()
                        .node_ids()
                        .nth(last * hosts + h)
                        .unwrap_or(first),
                    _ => first,
                }
            }
        };
        let me = self.schedulers.len();
        self.schedulers.push(SchedulerNode {
            level,
            host,
            parent,
            children: Vec::new(),
            sites: sites.clone(),
        });
        let mut children = Vec::new();
        if level == 3 {
            for &site in &sites {
                for &server in &servers_of_site[site as usize] {
                    self.leaf_parent[server] = me;
                    children.push(TreeChild::Leaf(server));
                }
            }
        } else {
            let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
            for &s in &sites {
                let k = key(s, level + 1);
                match groups.last_mut() {
                    Some((g, v)) if *g == k => v.push(s),
                    _ => groups.push((k, vec![s])),
                }
            }
            for (_, g) in groups {
                let c = self.add(grid, servers_of_site, hosting, level + 1, Some(me), g, key);
                children.push(TreeChild::Scheduler(c));
            }
        }
        self.schedulers[me].children = children;
        me
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::address::Address;
    use gridsched_sim::StreamKey;

    #[test]
    fn h1_h4_h16_shapes() {
        let g = Grid::thesis(&StreamKey::new(1, "tree"));
        let h1 = Forest::build(&g, RootLevel::Grid);
        assert_eq!(h1.roots.len(), 1);
        assert_eq!(h1.schedulers.len(), 1 + 4 + 16 + 32);
        let per_level = |f: &Forest, l| f.schedulers.iter().filter(|s| s.level == l).count();
        assert_eq!([0, 1, 2, 3].map(|l| per_level(&h1, l)), [1, 4, 16, 32]);
        let leaves: usize = h1
            .schedulers
            .iter()
            .map(|s| {
                s.children
                    .iter()
                    .filter(|c| matches!(c, TreeChild::Leaf(_)))
                    .count()
            })
            .sum();
        assert_eq!(leaves, 520);
        assert!(h1.leaf_parent.iter().all(|&p| h1.schedulers[p].level == 3));
        // A5: the GSS sits on the first server of 131.1.1.
        let t = g.topology();
        assert_eq!(
            t.address(h1.schedulers[0].host),
            Some(Address::new(131, 1, 1, 1))
        );
        assert!(h1.dedicated_hosts(&g).is_empty());
        // The alternative: a node of its own per scheduler, none a server.
        let d = Forest::build_hosted(&g, RootLevel::Grid, SchedulerHost::DedicatedNode);
        assert_eq!(
            t.address(d.schedulers[0].host),
            Some(Address::new(134, 4, 10, 15))
        );
        assert_eq!(d.dedicated_hosts(&g).len(), d.schedulers.len());
        let h4 = Forest::build(&g, RootLevel::Backbone);
        assert_eq!((h4.roots.len(), h4.schedulers.len()), (4, 4 + 16 + 32));
        let h16 = Forest::build(&g, RootLevel::Net);
        assert_eq!((h16.roots.len(), h16.schedulers.len()), (16, 16 + 32));
        assert_eq!(h16.site_root[10], h16.roots[1]);
        // Half-nets: sites 1-5 and 6-10.
        let half = h1.schedulers.iter().find(|s| s.level == 3).unwrap();
        assert_eq!(half.sites, vec![0, 1, 2, 3, 4]);
    }
}
