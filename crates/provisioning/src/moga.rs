//! MOGA, the multi-objective genetic algorithm of chapter 4.5 (Fonseca & Fleming, with Deb's
//! formulae; spec §2.7), and the α selector of eq. 15 (§2.8).
//!
//! The genome is one bit per advertised slot. Each generation: Fonseca–Fleming ranks
//! (`r_i = 1 + #dominating`, eq. 8), averaged fitness (eq. 10), niche counts among equal
//! ranks with `Sh(d) = 1 − d/σ_share` on the normalized Euclidean distance in (AC, SC)
//! (eq. 11, the spec's reading of the lost square root), shared and rescaled fitness
//! (eqs. 12–13), roulette selection (eq. 14) on the scaled shared fitness, random pairing,
//! two-point crossover (probability 1), bit-flip mutation with probability `1/n`, and the
//! Pareto archive of every feasible plan seen.
//!
//! Infeasible plans (some task fits no selected slot) follow Deb's constraint-domination
//! (spec §2.7 PROPOSAL): every feasible plan dominates every infeasible one, and between
//! infeasible plans fewer unscheduled tasks, then a lower AC, is better; they share no niche
//! (`nc = 1`) and never enter the archive.
//!
//! Evaluations run in parallel (rayon) and are collected in population order, so the result
//! is bit-identical whatever the thread count; every random draw comes from the caller's one
//! generator, in a fixed order.

use rand::Rng;
use rand::seq::SliceRandom;
use rayon::prelude::*;

use crate::plan::Evaluation;

/// The largest population [`run`] is meant for: 10,000, a hundred times the thesis's N = 100.
/// [`fitness`] ranks a population by comparing every pair of plans (`O(N²)` per generation,
/// 10^8 comparisons at the limit) and every member is a genome of one bit per advertised
/// slot, so larger populations take hours or exhaust memory; callers that take N from a user
/// (`gridsched provision --population`) refuse more.
pub const MAX_POPULATION: usize = 10_000;

/// MOGA's parameters (the thesis's values by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MogaConfig {
    /// Population size N (100; at most [`MAX_POPULATION`] is meant).
    pub population: usize,
    /// Generations after the initial population (10).
    pub generations: usize,
    /// σ_share (0.041).
    pub sigma_share: f64,
    /// Probability that a pair is crossed over (1.0: the spec's reading of "is applied").
    pub crossover: f64,
    /// Bit-flip probability; `None`: `1/n`.
    pub mutation: Option<f64>,
    /// Probability of a 1 in the initial genomes (0.5: uniform integers in `[0, 2^n − 1]`).
    pub initial_density: f64,
}

impl Default for MogaConfig {
    fn default() -> Self {
        MogaConfig {
            population: 100,
            generations: 10,
            sigma_share: 0.041,
            crossover: 1.0,
            mutation: None,
            initial_density: 0.5,
        }
    }
}

/// A plan with its objectives.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub genome: Vec<bool>,
    pub eval: Evaluation,
}

/// What one run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct MogaResult {
    /// The Pareto archive, by increasing AC (then SC).
    pub archive: Vec<Member>,
    /// Plans evaluated (N × (generations + 1)).
    pub evaluations: usize,
    /// Feasible plans among them.
    pub feasible: usize,
}

/// Constraint-domination (spec §2.7).
pub fn dominates(a: &Evaluation, b: &Evaluation) -> bool {
    match (a.sc, b.sc) {
        (Some(sa), Some(sb)) => a.ac <= b.ac && sa <= sb && (a.ac < b.ac || sa < sb),
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => (a.unscheduled, a.ac) < (b.unscheduled, b.ac),
    }
}

/// Scaled shared fitness of a population (eqs. 8–13).
pub fn fitness(pop: &[Evaluation], sigma_share: f64) -> Vec<f64> {
    let n = pop.len();
    let rank: Vec<usize> = (0..n)
        .map(|i| 1 + (0..n).filter(|&j| dominates(&pop[j], &pop[i])).count())
        .collect();
    let max_rank = rank.iter().copied().max().unwrap_or(1);
    let mut mu = vec![0usize; max_rank + 1];
    for &r in &rank {
        mu[r] += 1;
    }
    // Eq. 10: F = N − Σ_{k < r} μ(k) − 0.5 (μ(r) − 1).
    let mut below = vec![0usize; max_rank + 1];
    for r in 1..=max_rank {
        below[r] = below[r - 1] + if r > 1 { mu[r - 1] } else { 0 };
    }
    let avg: Vec<f64> = rank
        .iter()
        .map(|&r| n as f64 - below[r] as f64 - 0.5 * (mu[r] as f64 - 1.0))
        .collect();
    // Normalization ranges over the feasible members.
    let (mut ac_lo, mut ac_hi, mut sc_lo, mut sc_hi) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for e in pop {
        if let Some(sc) = e.sc {
            ac_lo = ac_lo.min(e.ac);
            ac_hi = ac_hi.max(e.ac);
            sc_lo = sc_lo.min(sc as f64);
            sc_hi = sc_hi.max(sc as f64);
        }
    }
    let term = |x: f64, y: f64, lo: f64, hi: f64| {
        if hi > lo { (x - y) / (hi - lo) } else { 0.0 }
    };
    let niche: Vec<f64> = (0..n)
        .map(|i| {
            let Some(si) = pop[i].sc else { return 1.0 };
            (0..n)
                .filter(|&j| rank[j] == rank[i])
                .filter_map(|j| pop[j].sc.map(|sj| (j, sj)))
                .map(|(j, sj)| {
                    let da = term(pop[i].ac, pop[j].ac, ac_lo, ac_hi);
                    let ds = term(si as f64, sj as f64, sc_lo, sc_hi);
                    let d = (da * da + ds * ds).sqrt();
                    if d <= sigma_share {
                        1.0 - d / sigma_share
                    } else {
                        0.0
                    }
                })
                .sum()
        })
        .collect();
    let shared: Vec<f64> = (0..n).map(|i| avg[i] / niche[i]).collect();
    // Eq. 13: every rank class keeps the total F·μ(r).
    let mut class_sum = vec![0.0f64; max_rank + 1];
    for i in 0..n {
        class_sum[rank[i]] += shared[i];
    }
    (0..n)
        .map(|i| {
            let r = rank[i];
            shared[i] * avg[i] * mu[r] as f64 / class_sum[r]
        })
        .collect()
}

/// Adds `m` to a Pareto archive of feasible plans (dropping those it dominates), unless it is
/// infeasible, dominated, or equal in (AC, SC) to a member.
pub fn archive_insert(archive: &mut Vec<Member>, m: &Member) -> bool {
    if !m.eval.feasible() {
        return false;
    }
    if archive
        .iter()
        .any(|a| dominates(&a.eval, &m.eval) || (a.eval.ac == m.eval.ac && a.eval.sc == m.eval.sc))
    {
        return false;
    }
    archive.retain(|a| !dominates(&m.eval, &a.eval));
    archive.push(m.clone());
    true
}

/// Runs MOGA on genomes of `bits` bits. `evaluate` must be deterministic; `make_eval` builds
/// one evaluator per worker thread.
pub fn run<F, G>(bits: usize, config: &MogaConfig, rng: &mut impl Rng, make_eval: G) -> MogaResult
where
    G: Fn() -> F + Sync + Send,
    F: FnMut(&[bool]) -> Evaluation,
{
    let n = config.population.max(2);
    let pm = config
        .mutation
        .unwrap_or(if bits > 0 { 1.0 / bits as f64 } else { 0.0 });
    let evaluate_all = |genomes: &[Vec<bool>]| -> Vec<Evaluation> {
        genomes
            .par_iter()
            .map_init(&make_eval, |e, g| e(g))
            .collect()
    };
    let mut genomes: Vec<Vec<bool>> = (0..n)
        .map(|_| {
            (0..bits)
                .map(|_| rng.random_bool(config.initial_density))
                .collect()
        })
        .collect();
    let mut evals = evaluate_all(&genomes);
    let mut archive: Vec<Member> = Vec::new();
    let mut evaluations = n;
    let mut feasible = 0;
    let mut absorb = |genomes: &[Vec<bool>], evals: &[Evaluation], archive: &mut Vec<Member>| {
        for (g, e) in genomes.iter().zip(evals) {
            if e.feasible() {
                feasible += 1;
            }
            archive_insert(
                archive,
                &Member {
                    genome: g.clone(),
                    eval: *e,
                },
            );
        }
    };
    absorb(&genomes, &evals, &mut archive);
    for _ in 0..config.generations {
        gridsched_sim::cancel::checkpoint();
        let fit = fitness(&evals, config.sigma_share);
        let total: f64 = fit.iter().sum();
        // Roulette: N draws with replacement, p_i = F_i / Σ F.
        let mut pool: Vec<usize> = (0..n)
            .map(|_| {
                let mut x = rng.random::<f64>() * total;
                for (i, f) in fit.iter().enumerate() {
                    if x < *f {
                        return i;
                    }
                    x -= f;
                }
                n - 1
            })
            .collect();
        pool.shuffle(rng);
        let mut next: Vec<Vec<bool>> = Vec::with_capacity(n);
        for pair in pool.chunks(2) {
            let mut a = genomes[pair[0]].clone();
            let mut b = genomes[*pair.get(1).unwrap_or(&pair[0])].clone();
            if bits > 1 && rng.random_bool(config.crossover) {
                let mut x = rng.random_range(0..=bits);
                let mut y = rng.random_range(0..=bits);
                if x > y {
                    std::mem::swap(&mut x, &mut y);
                }
                for k in x..y {
                    std::mem::swap(&mut a[k], &mut b[k]);
                }
            }
            for g in [&mut a, &mut b] {
                for bit in g.iter_mut() {
                    if rng.random_bool(pm) {
                        *bit = !*bit;
                    }
                }
            }
            next.push(a);
            if next.len() < n {
                next.push(b);
            }
        }
        genomes = next;
        evals = evaluate_all(&genomes);
        evaluations += n;
        absorb(&genomes, &evals, &mut archive);
    }
    archive.sort_by(|a, b| {
        a.eval
            .ac
            .total_cmp(&b.eval.ac)
            .then(a.eval.sc.cmp(&b.eval.sc))
    });
    MogaResult {
        archive,
        evaluations,
        feasible,
    }
}

/// Eq. 15: the archive member minimizing `α·AC_nr + (1 − α)·SC_nr` (normalized over the
/// archive; a zero range counts 0), ties to the smaller SC, then the smaller AC. `None` for an
/// empty archive.
pub fn select(archive: &[Member], alpha: f64) -> Option<&Member> {
    let feasible = || archive.iter().filter(|m| m.eval.feasible());
    let (ac_lo, ac_hi) = feasible().fold((f64::MAX, f64::MIN), |(lo, hi), m| {
        (lo.min(m.eval.ac), hi.max(m.eval.ac))
    });
    let (sc_lo, sc_hi) = feasible().fold((f64::MAX, f64::MIN), |(lo, hi), m| {
        let s = m.eval.sc.unwrap() as f64;
        (lo.min(s), hi.max(s))
    });
    let norm = |x: f64, lo: f64, hi: f64| if hi > lo { (x - lo) / (hi - lo) } else { 0.0 };
    feasible().min_by(|a, b| {
        let score = |m: &Member| {
            alpha * norm(m.eval.ac, ac_lo, ac_hi)
                + (1.0 - alpha) * norm(m.eval.sc.unwrap() as f64, sc_lo, sc_hi)
        };
        score(a)
            .total_cmp(&score(b))
            .then(a.eval.sc.cmp(&b.eval.sc))
            .then(a.eval.ac.total_cmp(&b.eval.ac))
    })
}
