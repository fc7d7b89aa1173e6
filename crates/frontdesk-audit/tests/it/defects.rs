//! Each defect of the fixture fails exactly its check (so no check is one
//! that cannot fail); the fixture without a defect fails none, with every
//! check able to run (two principals, a second instance, a state lifetime
//! waited out, the limit floods).

use std::time::Duration;

use frontdesk_audit::fixture::{Defect, Fixture};
use frontdesk_audit::{Options, Target, audit};

use crate::support::{
    audit_fixture, bearer, failed, options, passes_all_it_can, passes_the_checks_that_need_more,
    pipe_to, shown,
};

/// Audit the fixture with `defect` the way its check needs, and require
/// that exactly that check fails.
async fn fails_exactly_its_check(defect: Defect) {
    let mut opts = options();
    let mut target = None;
    match defect {
        Defect::StateIgnoresPrincipal => {
            let fixture = Fixture::new(Some(defect));
            let url = fixture.http().await.unwrap();
            let mut t = Target::new(bearer(&url, "alice"));
            t.second_principal = Some(bearer(&url, "bob"));
            target = Some(t);
        }
        Defect::PerProcessKey => {
            let mut t = Target::new(pipe_to(&Fixture::new(Some(defect))));
            t.also = Some(pipe_to(&Fixture::new(Some(defect))));
            target = Some(t);
        }
        Defect::StateNeverExpires => opts.state_age = Some(Duration::from_millis(1500)),
        Defect::StateKeepsUnknownAnswers | Defect::UnboundedPending | Defect::DiesUnderFlood => {
            opts.stress = true;
            opts.timeout = Duration::from_secs(3);
        }
        _ => {}
    }
    let report = match target {
        Some(t) => audit(&t, &opts).await,
        None => audit_fixture(Some(defect), &opts).await,
    };
    assert_eq!(
        failed(&report),
        vec![defect.breaks()],
        "--defect {}:\n{}",
        defect.name(),
        shown(&report)
    );
}

macro_rules! defect_tests {
    ($($name:ident => $defect:ident,)*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                fails_exactly_its_check(Defect::$defect).await;
            }
        )*

        /// Every defect has its test above.
        #[test]
        fn every_defect_is_tested() {
            let tested = [$(Defect::$defect),*];
            for d in Defect::ALL {
                assert!(tested.contains(d), "no test for --defect {}", d.name());
            }
        }
    };
}

defect_tests! {
    nested_object_fails_form_subset => NestedObject,
    secret_field_fails_form_secrets => SecretField,
    url_in_form_fails_form_advice => UrlInForm,
    url_to_form_client_fails_mode_form_only => UrlToFormClient,
    ask_without_capability_fails_mode_none => AskWithoutCapability,
    wrong_capability_error_fails_mode_missing_capability => WrongCapabilityError,
    no_type_check_fails_content_wrong_type => NoTypeCheck,
    no_required_check_fails_content_missing_required => NoRequiredCheck,
    no_option_check_fails_content_unknown_option => NoOptionCheck,
    acts_on_decline_fails_outcome_decline => ActsOnDecline,
    acts_on_cancel_fails_outcome_cancel => ActsOnCancel,
    unsigned_state_fails_state_tamper => UnsignedState,
    state_ignores_principal_fails_state_principal => StateIgnoresPrincipal,
    replayable_state_fails_state_single_use => ReplayableState,
    state_never_expires_fails_state_expiry => StateNeverExpires,
    state_unbound_fails_state_request_bound => StateUnbound,
    answer_any_key_fails_answer_key_bound => AnswerAnyKey,
    per_process_key_fails_instance_retry => PerProcessKey,
    http_url_fails_url_https => HttpUrl,
    userinfo_url_fails_url_userinfo => UserinfoUrl,
    lookalike_url_fails_url_review => LookalikeUrl,
    fixed_elicitation_id_fails_url_fresh_id => FixedElicitationId,
    complete_too_early_fails_url_complete_after_flow => CompleteTooEarly,
    bad_url_required_error_fails_url_required_error => BadUrlRequiredError,
    url_required_on_modern_fails_url_required_error => UrlRequiredOnModern,
    state_keeps_unknown_answers_fails_limits_answer_keys => StateKeepsUnknownAnswers,
    unbounded_pending_fails_limits_pending_questions => UnboundedPending,
    dies_under_flood_fails_limits_retry_flood => DiesUnderFlood,
}

/// The correct fixture over a pipe (both revisions), with the limit floods:
/// nothing fails, and every check that needs nothing more ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_correct_fixture_fails_nothing() {
    let opts = Options {
        stress: true,
        ..options()
    };
    let report = audit_fixture(None, &opts).await;
    assert_eq!(failed(&report), vec![], "{}", shown(&report));
    passes_all_it_can(&report);
}

/// The correct fixture over HTTP (2026-07-28) with two principals, a second
/// instance and a state lifetime to wait out: those checks pass too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_correct_fixture_passes_the_checks_that_need_more() {
    let fixture = Fixture::with(None, Duration::from_secs(2), "local");
    let other = Fixture::with(None, Duration::from_secs(2), "local");
    let url = fixture.http().await.unwrap();
    let other_url = other.http().await.unwrap();
    let mut target = Target::new(bearer(&url, "alice"));
    target.second_principal = Some(bearer(&url, "bob"));
    target.also = Some(bearer(&other_url, "alice"));
    passes_the_checks_that_need_more(&target, options()).await;
}
