//! A generated fabric, routed: the graph a [`GeneratorSpec`] builds (build/) with the tables of
//! its default engine. Above the generators, which only build graphs.
use crate::fabric::build::GeneratorSpec;
use crate::fabric::graph::{GraphError, RoutedFabric};

/// Builds the graph and routes it with its default engine: dimension order on the
/// hyper-crossbar, D-mod-K on everything else (all trees; a single switch or a cable is a
/// trivial one).
pub fn generate(spec: &GeneratorSpec) -> Result<RoutedFabric, GraphError> {
    let graph = spec.build()?;
    let lfts = match spec {
        GeneratorSpec::Hyperx(_) => crate::fabric::routing::dor::route(&graph)?,
        _ => crate::fabric::routing::dmodk::route(&graph)?,
    };
    Ok(RoutedFabric::new(graph, lfts))
}

impl GeneratorSpec {
    /// The engine [`generate`] routes with, by name (to route the graph again after a change,
    /// as `[topology] disable` does): dor on the hyper-crossbar (whose crossbars are not
    /// cabled to each other, where `Engine::Dor` is [`crate::fabric::routing::dor::route`]), dmodk elsewhere.
    pub fn default_engine(&self) -> crate::fabric::routing::Engine {
        match self {
            GeneratorSpec::Hyperx(_) => crate::fabric::routing::Engine::Dor,
            _ => crate::fabric::routing::Engine::Dmodk,
        }
    }
}
