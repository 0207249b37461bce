//! Routing engines by name and per rail (fabric/routing/engine.rs, subnets.rs).
use rdmasim_core::fabric::build::{generate, GeneratorSpec};
use rdmasim_core::fabric::routing::{self, dmodk, Engine, RouteOptions};

fn two_rails_k4() -> GeneratorSpec {
    serde_json::from_str(r#"{"kind":"rails","rails":2,"of":{"kind":"fat-tree-k","k":4}}"#).unwrap()
}

#[test]
fn engines_parse_by_opensm_name_and_refuse_unknown_ones() {
    assert_eq!(Engine::parse_list("ftree,dfsssp").unwrap(), vec![Engine::Ftree, Engine::Dfsssp]);
    let e = Engine::parse("lash").unwrap_err().0;
    assert!(e.contains("\"lash\"") && e.contains("minhop, updn, ftree"), "{e}");
}

#[test]
fn each_rail_is_routed_as_its_own_subnet() {
    let g = two_rails_k4().build().unwrap();
    let whole = dmodk::route(&g).unwrap();
    let r = routing::route(g.clone(), &[Engine::Dmodk, Engine::MinhopMod], &RouteOptions::default()).unwrap();
    assert_eq!(r.subnets.len(), 2);
    assert_eq!((r.subnets[0].rail, r.subnets[0].used), (0, Engine::Dmodk));
    assert_eq!((r.subnets[1].rail, r.subnets[1].used), (1, Engine::MinhopMod));
    assert_eq!(r.subnets[0].endpoints, 16);
    // Rail 0 has exactly the tables D-mod-K gives the whole fabric (it ranks LIDs per
    // component), rail 1 those of minhop-mod.
    let mm = routing::minhop_mod::route(&g).unwrap();
    for sw in g.switches() {
        let rail1 = g.nodes[sw].name.starts_with("r1-");
        let want = if rail1 { &mm.tables[sw] } else { &whole.tables[sw] };
        assert_eq!(&r.fabric.lfts.tables[sw], want, "{}", g.nodes[sw].name);
    }
    assert_eq!(generate(&two_rails_k4()).unwrap().lfts.tables, routing::route(g.clone(), &[Engine::Dmodk], &RouteOptions::default()).unwrap().fabric.lfts.tables);
    let e = routing::route(g, &[Engine::Dmodk; 3], &RouteOptions::default()).unwrap_err().0;
    assert!(e.contains("3 routing engines") && e.contains("2 rails"), "{e}");
}
