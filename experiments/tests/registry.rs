//! Id resolution over the real registry: bare ids shared by two documents.

#[test]
fn a_bare_id_two_documents_share_means_the_first_document() {
    let registry = gridsched_experiments::registry().unwrap_or_else(|e| panic!("{e}"));
    // Castillo (seed 000) and Kumar (seed 004) both have a Fig. 5.4.
    assert_eq!(
        registry.candidates("fig-5.4"),
        vec!["castillo-fig-5.4", "kumar-fig-5.4"]
    );
    assert_eq!(
        registry.resolve("fig-5.4").unwrap().spec.id,
        "castillo-fig-5.4"
    );
    assert_eq!(
        registry.resolve("kumar-fig-5.4").unwrap().spec.id,
        "kumar-fig-5.4"
    );
    // Unique bare ids and unknown ids behave as before.
    assert_eq!(
        registry.resolve("fig-3.4").unwrap().spec.id,
        "castillo-fig-3.4"
    );
    assert_eq!(registry.candidates("fig-3.4").len(), 1);
    assert!(registry.resolve("fig-99.9").is_err());
}
