//! `ops::graph::view` and `ops::graph::activation` (what the web view's `/graph` draws) on real
//! entity files written by the real binary: each relation once, dates, filters, a focus, the
//! level of detail, and the activation a selected entity spreads.

use cogmem::ops::graph::{ViewOptions, activation, view};

use crate::common::{TestEnv, clock};

fn rel(env: &TestEnv, text: &str, relation: &str) {
    env.mutate(["remember", text, "--relation", relation]);
}

fn draw(env: &TestEnv, opts: ViewOptions) -> cogmem::ops::graph::View {
    let ws = cogmem::Workspace::open(&env.root).unwrap();
    view(&ws, &opts, &cogmem::Clock::now(&clock("2027-06-01T09:00:00Z"))).unwrap()
}

fn edges(v: &cogmem::ops::graph::View) -> Vec<String> {
    v.edges.iter().map(|e| format!("{} {} {}", e.from, e.relation, e.to)).collect()
}

/// Alice lived in Lisbon, then Porto; Bob works on Atlas, which uses Rust; Alice and Bob are
/// friends. The browser tests draw it too.
pub(crate) fn small() -> TestEnv {
    let env = TestEnv::initialized();
    env.set_now("2027-01-01T09:00:00Z");
    rel(&env, "Alice lives in Lisbon", "person--alice|lives-in|place--lisbon");
    env.set_now("2027-03-01T09:00:00Z");
    rel(&env, "Alice moved to Porto", "person--alice|lives-in|place--porto");
    rel(&env, "Bob works on Atlas", "person--bob|works-on|project--atlas");
    rel(&env, "Atlas uses Rust", "project--atlas|uses|tool--rust");
    rel(&env, "Alice is a friend of Bob", "person--alice|friend-of|person--bob");
    env
}

#[test]
fn view_draws_each_relation_once_under_its_declared_name_at_a_date() {
    let env = small();
    let now = draw(&env, ViewOptions::default());
    // The inverse bullets (home-of, worked-on-by, used-by, Bob's friend-of) are not drawn again.
    assert_eq!(
        edges(&now),
        [
            "person--alice friend-of person--bob",
            "person--alice lives-in place--porto",
            "person--bob works-on project--atlas",
            "project--atlas uses tool--rust",
        ]
    );
    let alice = now.nodes.iter().find(|n| n.id == "person--alice").unwrap();
    assert_eq!((alice.kind.as_str(), alice.label.as_str(), alice.degree), ("person", "alice", 2));
    assert!(alice.current && alice.status == "active");
    assert!(!now.nodes.iter().any(|n| n.id == "place--lisbon" && n.degree > 0));
    assert_eq!(now.dates, Some(("2027-01-01".into(), "2027-03-01".into())));
    assert_eq!(now.kinds, ["person", "place", "project", "tool"]);
    assert!(now.clusters.is_empty() && now.omitted == 0 && now.total == 6);

    let then = draw(&env, ViewOptions { as_of: Some("2027-02-01".into()), ..Default::default() });
    assert_eq!(then.as_of.as_deref(), Some("2027-02-01"));
    assert_eq!(edges(&then), ["person--alice lives-in place--lisbon"]);
    let lisbon = then.edges.first().unwrap();
    assert_eq!(
        (lisbon.since.as_deref(), lisbon.until.as_deref()),
        (Some("2027-01-01"), Some("2027-03-01"))
    );
}

#[test]
fn view_filters_by_type_and_relation_from_either_side() {
    let env = small();
    let people = draw(&env, ViewOptions { kinds: vec!["person".into()], ..Default::default() });
    let ids: Vec<&str> = people.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["person--alice", "person--bob"]);
    assert_eq!(edges(&people), ["person--alice friend-of person--bob"]);
    // Named by its inverse, the relation is still drawn under its declared name.
    let homes = draw(&env, ViewOptions { relations: vec!["home-of".into()], ..Default::default() });
    assert_eq!(edges(&homes), ["person--alice lives-in place--porto"]);
    let porto = homes.nodes.iter().find(|n| n.id == "place--porto").unwrap();
    assert_eq!(porto.degree, 1);
    let bob = homes.nodes.iter().find(|n| n.id == "person--bob").unwrap();
    assert_eq!(bob.degree, 0, "friend-of is filtered out");
}

#[test]
fn view_draws_a_neighbourhood_around_a_focus_found_by_name() {
    let env = small();
    let one = draw(&env, ViewOptions { focus: Some("bob".into()), depth: 1, ..Default::default() });
    assert_eq!(one.focus.as_deref(), Some("person--bob"));
    let mut ids: Vec<(&str, Option<usize>)> =
        one.nodes.iter().map(|n| (n.id.as_str(), n.distance)).collect();
    ids.sort();
    assert_eq!(
        ids,
        [("person--alice", Some(1)), ("person--bob", Some(0)), ("project--atlas", Some(1))]
    );
    let two = draw(&env, ViewOptions { focus: Some("bob".into()), depth: 2, ..Default::default() });
    assert_eq!(two.nodes.len(), 5, "{:?}", two.nodes);
    assert!(!two.nodes.iter().any(|n| n.id == "place--lisbon"), "Lisbon is no longer linked");

    let ws = cogmem::Workspace::open(&env.root).unwrap();
    let now = cogmem::Clock::now(&clock("2027-06-01T09:00:00Z"));
    let err =
        view(&ws, &ViewOptions { focus: Some("person--carol".into()), ..Default::default() }, &now)
            .unwrap_err();
    assert_eq!(err.kind(), cogmem::ErrorKind::User, "{err}");
    assert!(err.to_string().contains("person--carol"), "{err}");
    let err = view(
        &ws,
        &ViewOptions { as_of: Some("the day after never".into()), ..Default::default() },
        &now,
    )
    .unwrap_err();
    assert!(err.to_string().contains("as_of"), "{err}");
}

#[test]
fn view_turns_to_clusters_above_the_limit_and_keeps_the_best_connected_of_a_type() {
    let env = small();
    let wide = draw(&env, ViewOptions { limit: 3, ..Default::default() });
    assert!(wide.nodes.is_empty() && wide.edges.is_empty(), "{wide:?}");
    let clusters: Vec<(&str, usize)> =
        wide.clusters.iter().map(|c| (c.kind.as_str(), c.count)).collect();
    assert_eq!(clusters, [("person", 2), ("place", 2), ("project", 1), ("tool", 1)]);
    let between: Vec<(&str, &str, usize)> =
        wide.cluster_edges.iter().map(|c| (c.from.as_str(), c.to.as_str(), c.count)).collect();
    assert_eq!(
        between,
        [
            ("person", "person", 1),
            ("person", "place", 1),
            ("person", "project", 1),
            ("project", "tool", 1)
        ]
    );
    // Expanding a cluster: its type, the best-connected first, the rest counted.
    let places =
        draw(&env, ViewOptions { kinds: vec!["place".into()], limit: 1, ..Default::default() });
    let ids: Vec<&str> = places.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!((ids.as_slice(), places.omitted, places.total), (&["place--porto"][..], 1, 2));
}

#[test]
fn a_superseded_entity_is_current_before_the_date_it_was_superseded() {
    let env = TestEnv::initialized();
    env.set_now("2027-01-01T09:00:00Z");
    rel(&env, "Atlas depends on Postgres 14", "project--atlas|depends-on|tool--postgres-14");
    env.mutate(["remember", "Postgres 17 is the new database", "--entity", "tool--postgres-17"]);
    env.set_now("2027-04-01T09:00:00Z");
    env.mutate(["supersede", "tool--postgres-14", "--by", "tool--postgres-17"]);
    let state = |as_of: Option<&str>| {
        let v = draw(&env, ViewOptions { as_of: as_of.map(Into::into), ..Default::default() });
        let n = v.nodes.iter().find(|n| n.id == "tool--postgres-14").unwrap().clone();
        (n.status, n.current)
    };
    assert_eq!(state(None), ("superseded".to_owned(), false));
    assert_eq!(state(Some("2027-02-01")), ("superseded".to_owned(), true));
    assert_eq!(state(Some("2027-05-01")), ("superseded".to_owned(), false));
}

#[test]
fn activation_spreads_from_the_selected_entity_as_search_spreads_it() {
    let env = small();
    let ws = cogmem::Workspace::open(&env.root).unwrap();
    let a = activation(&ws, "alice").unwrap();
    assert_eq!(a.from, "person--alice");
    let got: Vec<(&str, f64)> = a.nodes.iter().map(|n| (n.id.as_str(), n.activation)).collect();
    // Alice has two current relations, each written on both sides: four edges, so ½ · 1 / √4
    // on each neighbour; Bob passes ¼ · ½ / √4 on to Atlas. Lisbon's relation is closed.
    assert_eq!(
        got,
        [
            ("person--alice", 1.0),
            ("person--bob", 0.25),
            ("place--porto", 0.25),
            ("project--atlas", 0.0625)
        ]
    );
    let err = activation(&ws, "nobody-at-all").unwrap_err();
    assert_eq!(err.kind(), cogmem::ErrorKind::User, "{err}");
}
