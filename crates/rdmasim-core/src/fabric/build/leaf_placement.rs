//! Where an edge switch's cables to one director land among the director's leaf chips.
//!
//! TSUBAME2.0's cabling is not public: no ibnetdiscover dump, and no description of which line
//! board of a Grid Director 4700 an edge's three cables plug into (research notes §7). It
//! matters: two edges whose cables share a leaf chip talk through that chip alone, others
//! through a spine chip, so the placement decides where static routes pile up and which
//! engine concentrates them. The generator therefore takes the placement as a parameter with
//! the plausible families, and the reproduction runs every one of them (docs/tsubame.md).
//!
//! A director's external ports are counted leaf by leaf (`DirectorChips::external_port`):
//! index `chip × per_chip + slot`.
use super::common::require;
use crate::fabric::graph::GraphError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeafPlacement {
    /// All of an edge's cables to a director on one leaf chip, the edges filling the chips in
    /// order (edge e's cable k on external port `e × links + k`): ⌊per_chip / links⌋
    /// consecutive edges share a chip (6 with 18 ports and 3 cables). The generator's rule
    /// before the placement was a parameter, and its default.
    #[default]
    Consecutive,
    /// All of an edge's cables on one chip, the edges dealt round robin over the chips (edge e
    /// on chip `e mod chips`): the edges that share a chip are `chips` edges apart, so a small
    /// job's edges meet only through the spine chips.
    Interleaved,
    /// Every cable of an edge on its own chip: cable number `i = e × links + k` on chip
    /// `i mod chips`, so an edge's cables land on `links` neighbouring chips and a chip failure
    /// costs an edge one cable, not all of them.
    Spread,
}

impl LeafPlacement {
    pub fn name(self) -> &'static str {
        match self {
            LeafPlacement::Consecutive => "consecutive",
            LeafPlacement::Interleaved => "interleaved",
            LeafPlacement::Spread => "spread",
        }
    }

    /// The director external port (0-based, leaf by leaf) of edge `edge`'s cable `k` (0-based,
    /// below `links`), on a director of `chips` leaf chips with `per_chip` external ports each.
    pub fn external_port(self, edge: usize, k: usize, links: usize, chips: usize, per_chip: usize) -> usize {
        match self {
            LeafPlacement::Consecutive => edge * links + k,
            LeafPlacement::Interleaved => (edge % chips) * per_chip + (edge / chips) * links + k,
            LeafPlacement::Spread => {
                let i = edge * links + k;
                (i % chips) * per_chip + i / chips
            }
        }
    }

    /// Checks that `edges` edges of `links` cables each fit on a director of `chips` chips of
    /// `per_chip` external ports under this placement, naming the parameter that does not.
    pub fn check(self, edges: usize, links: usize, chips: usize, per_chip: usize) -> Result<(), GraphError> {
        let ports = chips * per_chip;
        require(edges * links <= ports, "director_ports", ports, format_args!("at least {edges} edges x {links} links = {}", edges * links))?;
        match self {
            LeafPlacement::Consecutive => Ok(()),
            LeafPlacement::Interleaved => {
                let used = edges.div_ceil(chips.max(1)) * links;
                require(used <= per_chip, "leaf_placement", "interleaved", format_args!("a placement that fits: {edges} edges dealt over {chips} chips put {used} cables on a chip of {per_chip} external ports"))
            }
            LeafPlacement::Spread => require(links <= chips, "leaf_placement", "spread", format_args!("a placement that fits: {links} cables per director need as many chips, the director has {chips}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LeafPlacement::{self, *};

    /// Every (edge, cable) pair on its own port, each port on the director.
    fn ports_are_distinct(p: LeafPlacement, edges: usize, links: usize, chips: usize, per_chip: usize) {
        let mut seen = vec![false; chips * per_chip];
        for e in 0..edges {
            for k in 0..links {
                let i = p.external_port(e, k, links, chips, per_chip);
                assert!(i < seen.len() && !std::mem::replace(&mut seen[i], true), "{p:?}: edge {e} cable {k} -> port {i}");
            }
        }
    }

    #[test]
    fn every_placement_gives_each_cable_its_own_port() {
        for p in [Consecutive, Interleaved, Spread] {
            p.check(88, 3, 18, 18).unwrap();
            ports_are_distinct(p, 88, 3, 18, 18);
        }
    }

    #[test]
    fn the_chips_an_edge_lands_on() {
        let chip = |p: LeafPlacement, e: usize| (0..3).map(|k| p.external_port(e, k, 3, 18, 18) / 18).collect::<Vec<_>>();
        // Consecutive: edges 0-5 on chip 0, edge 6 on chip 1.
        assert_eq!((chip(Consecutive, 5), chip(Consecutive, 6)), (vec![0; 3], vec![1; 3]));
        // Interleaved: edge 1 on chip 1, edge 18 back on chip 0.
        assert_eq!((chip(Interleaved, 1), chip(Interleaved, 18)), (vec![1; 3], vec![0; 3]));
        // Spread: three neighbouring chips.
        assert_eq!((chip(Spread, 0), chip(Spread, 7)), (vec![0, 1, 2], vec![3, 4, 5]));
    }

    #[test]
    fn a_placement_that_does_not_fit_names_its_parameter() {
        let e = Interleaved.check(20, 3, 18, 4).unwrap_err().0;
        assert!(e.starts_with("leaf_placement = interleaved"), "{e}");
        let e = Spread.check(2, 5, 4, 18).unwrap_err().0;
        assert!(e.starts_with("leaf_placement = spread"), "{e}");
        let e = Consecutive.check(88, 3, 4, 18).unwrap_err().0;
        assert!(e.starts_with("director_ports = 72"), "{e}");
    }
}
