//! `frontdesk call --park` and `frontdesk respond` end to end, on both revisions:
//! park, answer invalidly (refused, still parked), answer validly (the next question),
//! confirm (the result); several calls parked at once; only the owner's directory.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::{frontdesk, sign_in, texts};

/// The agent contract, `schema/park.v1.json`.
fn contract() -> &'static (jsonschema::Validator, jsonschema::Validator) {
    static CONTRACT: std::sync::OnceLock<(jsonschema::Validator, jsonschema::Validator)> =
        std::sync::OnceLock::new();
    CONTRACT.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/park.v1.json");
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .expect("the schema is JSON");
        let whole = jsonschema::draft202012::new(&schema).expect("a valid JSON Schema");
        let response = jsonschema::draft202012::new(&schema["$defs"]["response"])
            .expect("the response schema");
        (whole, response)
    })
}

/// Fail unless `reply` is what the contract says `call --park` and `respond` print.
pub fn assert_contract(reply: &Value) {
    let errors: Vec<String> = contract()
        .0
        .iter_errors(reply)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not the agent contract: {errors:#?}\n{reply:#}"
    );
}

/// Fail unless a `respond` command line, as one object, is what the contract
/// says `respond` takes.
fn assert_response(args: &[&str]) {
    let Some(at) = args.iter().position(|a| *a == "respond") else {
        return;
    };
    let mut object = serde_json::Map::new();
    object.insert("id".into(), json!(args[at + 1]));
    object.insert("action".into(), json!(args[at + 2]));
    let mut rest = args[at + 3..].iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().copied().unwrap_or_default();
        match *flag {
            "--content" => object.insert("content".into(), serde_json::from_str(value).unwrap()),
            "--wait" => object.insert("wait".into(), json!(value.parse::<u64>().unwrap())),
            _ => None,
        };
    }
    let object = Value::Object(object);
    assert!(
        contract().1.is_valid(&object),
        "not what respond takes: {object}"
    );
}

fn park_dir(name: &str) -> String {
    // Short, so the socket path stays within the Unix limit wherever the repo is.
    let dir = std::env::temp_dir().join(format!("fd-park-{}-{name}", std::process::id()));
    dir.to_string_lossy().into_owned()
}

fn run(dir: &str, args: &[&str]) -> (Value, i32, String) {
    assert_response(args);
    let out = frontdesk(args, &[("FRONTDESK_PARK_DIR", dir)]);
    let (stdout, stderr) = texts(&out);
    let reply = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{args:?}: stdout is not JSON ({e}):\n{stdout}\nstderr:\n{stderr}")
    });
    assert_contract(&reply);
    (reply, out.status.code().unwrap_or(-1), stderr)
}

fn park(dir: &str, protocol: &str, order: &str) -> (Value, i32) {
    let args = json!({"order_id": order}).to_string();
    let (reply, code, _) = run(
        dir,
        &[
            "call",
            "demo",
            "book_return",
            "--args",
            &args,
            "--park",
            "--park-ttl",
            "60",
            "--protocol",
            protocol,
        ],
    );
    (reply, code)
}

fn question_id(reply: &Value) -> String {
    reply["questions"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_parked_call_is_answered_invalidly_then_validly_on_both_revisions() {
    for protocol in ["2025-11-25", "2026-07-28"] {
        let dir = park_dir(protocol);
        let (parked, code) = park(&dir, protocol, "A-7");
        assert_eq!(code, 10, "{protocol}: {parked}");
        assert_eq!(parked["status"], "parked", "{protocol}: {parked}");
        let q = &parked["questions"][0];
        assert_eq!(q["server"]["name"], "brightgrid");
        assert_eq!(q["request"], "tools/call book_return");
        assert_eq!(q["message"], "Tell us about the return of order A-7");
        assert_eq!(
            q["form"]["fields"][0]["options"][1],
            json!({"value": "wrong_item", "title": "Wrong item"})
        );
        let id = question_id(&parked);

        // Invalid: refused with the problems, nothing sent, the question still parked.
        let bad =
            json!({"reason": "Wrong item", "pickup_date": "2026-12-01", "contact_email": "nope"})
                .to_string();
        let (invalid, code, _) = run(&dir, &["respond", &id, "accept", "--content", &bad]);
        assert_eq!(code, 3, "{protocol}: {invalid}");
        assert_eq!(invalid["status"], "invalid");
        // Each problem is keyed by its field.
        assert_eq!(invalid["problems"][0]["field"], "reason", "{invalid}");
        assert!(
            invalid["problems"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains(r#""wrong_item" (Wrong item)"#)),
            "{invalid}"
        );
        assert_eq!(invalid["problems"][1]["field"], "contact_email");
        assert!(
            invalid["problems"][1]["message"]
                .as_str()
                .is_some_and(|m| m.contains("Contact email must be an email address")),
            "{invalid}"
        );
        assert_eq!(question_id(&invalid), id, "still parked");

        // Valid: the next question (the confirmation).
        let good = json!({"reason": "wrong_item", "pickup_date": "2026-12-01", "contact_email": "ann@example.com"}).to_string();
        let (next, code, _) = run(&dir, &["respond", &id, "accept", "--content", &good]);
        assert_eq!(code, 10, "{protocol}: {next}");
        let confirm = question_id(&next);
        assert_ne!(confirm, id);
        assert_eq!(next["questions"][0]["form"]["fields"][0]["key"], "confirm");

        let (done, code, _) = run(
            &dir,
            &[
                "respond",
                &confirm,
                "accept",
                "--content",
                r#"{"confirm":true}"#,
            ],
        );
        assert_eq!(code, 0, "{protocol}: {done}");
        assert_eq!(done["status"], "complete");
        assert_eq!(
            done["result"]["structuredContent"]["status"], "booked",
            "{protocol}: {done}"
        );
        assert_eq!(done["result"]["structuredContent"]["reason"], "wrong_item");

        // The keeper is gone with its socket.
        let call = id.split('.').next().unwrap_or_default().to_owned();
        let socket = PathBuf::from(&dir).join(format!("{call}.sock"));
        for _ in 0..50 {
            if !socket.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(
            !socket.exists(),
            "{protocol}: the keeper left {}",
            socket.display()
        );
        let (_, code, stderr) = {
            let out = frontdesk(
                &["respond", &confirm, "cancel"],
                &[("FRONTDESK_PARK_DIR", &dir)],
            );
            let (o, e) = texts(&out);
            (o, out.status.code().unwrap_or(-1), e)
        };
        assert_eq!(code, 2, "{stderr}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn several_calls_park_at_once_in_an_owner_only_directory() {
    let dir = park_dir("several");
    let (first, _) = park(&dir, "2026-07-28", "A-1");
    let (second, _) = park(&dir, "2026-07-28", "A-2");
    let (a, b) = (question_id(&first), question_id(&second));
    assert_ne!(
        a.split('.').next(),
        b.split('.').next(),
        "two calls, two keepers"
    );
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "only the owner may open the directory");
    // Each answer reaches its own call.
    let (declined, code, _) = run(&dir, &["respond", &b, "decline"]);
    assert_eq!(code, 0, "{declined}");
    assert!(
        declined["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("declined")
    );
    let (cancelled, code, _) = run(&dir, &["respond", &a, "cancel"]);
    assert_eq!(code, 0, "{cancelled}");
    assert!(
        cancelled["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("dismissed")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directory_others_can_open_is_refused() {
    let dir = park_dir("open");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = frontdesk(
        &["call", "demo", "book_return", "--park"],
        &[("FRONTDESK_PARK_DIR", &dir)],
    );
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("can be opened by other users; `chmod 700` it or remove it"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The command lines of the running `frontdesk park-keeper` processes whose
/// command line names `call`, read from `/proc` as any local user can.
fn keeper_command_lines(call: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        if line.contains("park-keeper") && line.contains(call) {
            found.push(line);
        }
    }
    found
}

/// Issue 24, row 8: the keeper used to get the tool's arguments and the
/// server command on its command line, which any local user reads from
/// `/proc/<pid>/cmdline`. Now they reach it on a pipe.
#[test]
fn the_keepers_command_line_holds_neither_the_arguments_nor_the_server() {
    let dir = park_dir("cmdline");
    let secret_args = json!({"order_id": "A-SECRET-4242"}).to_string();
    let server = format!(
        "{} serve --stdio --store memory --principal principal-secret-31337",
        crate::support::BIN
    );
    let (parked, code, stderr) = run(
        &dir,
        &[
            "call",
            &server,
            "book_return",
            "--args",
            &secret_args,
            "--park",
            "--park-ttl",
            "60",
        ],
    );
    assert_eq!(code, 10, "{parked} {stderr}");
    assert_eq!(
        parked["questions"][0]["message"], "Tell us about the return of order A-SECRET-4242",
        "the keeper got the arguments"
    );
    let id = question_id(&parked);
    let call = id.split('.').next().unwrap_or_default().to_owned();
    let lines = keeper_command_lines(&call);
    assert_eq!(lines.len(), 1, "one keeper for {call}: {lines:?}");
    for secret in [
        "A-SECRET-4242",
        "principal-secret-31337",
        "serve --stdio",
        "book_return",
    ] {
        assert!(
            !lines[0].contains(secret),
            "{secret:?} on the keeper's command line: {}",
            lines[0]
        );
    }
    let (_, code, _) = run(&dir, &["respond", &id, "cancel"]);
    assert_eq!(code, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `frontdesk call`/`respond` with only `TMPDIR` (no `FRONTDESK_PARK_DIR`, no
/// `XDG_RUNTIME_DIR`).
fn run_in_tmp(tmp: &std::path::Path, args: &[&str]) -> (Value, i32, String) {
    let out = std::process::Command::new(crate::support::BIN)
        .args(args)
        .env("RUST_LOG", "warn")
        .env("TMPDIR", tmp)
        .env_remove("FRONTDESK_PARK_DIR")
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    let reply = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    if !reply.is_null() {
        assert_contract(&reply);
    }
    (reply, out.status.code().unwrap_or(-1), stderr)
}

/// Issue 24, row 8: another user could create `$TMPDIR/frontdesk-<uid>`
/// first and make every `--park` refuse. Now such a directory is left alone
/// and the call parks in a fresh private directory beside it, where
/// `respond` finds it.
#[test]
fn a_squatted_tmp_directory_does_not_stop_parking() {
    use std::os::unix::fs::MetadataExt;
    let tmp = PathBuf::from(park_dir("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let uid = std::fs::metadata(&tmp).unwrap().uid();
    let squatted = tmp.join(format!("frontdesk-{uid}"));
    std::fs::create_dir(&squatted).unwrap();
    std::fs::set_permissions(&squatted, std::fs::Permissions::from_mode(0o777)).unwrap();
    // Another user's when the test can make it so (as root), else only open
    // to everyone: either way not ours to use.
    let theirs = std::os::unix::fs::chown(&squatted, Some(65534), Some(65534)).is_ok();
    let args = json!({"order_id": "A-9"}).to_string();
    let (parked, code, stderr) = run_in_tmp(
        &tmp,
        &["call", "demo", "book_return", "--args", &args, "--park"],
    );
    assert_eq!(
        code,
        10,
        "another user's {}: {parked} {stderr}",
        squatted.display()
    );
    assert!(
        stderr.contains(&format!("{} is not usable", squatted.display())),
        "{stderr}"
    );
    let id = question_id(&parked);
    let call = id.split('.').next().unwrap_or_default().to_owned();
    // Nothing was put in the squatted directory; the call's socket is in a
    // private one of ours.
    assert_eq!(std::fs::read_dir(&squatted).unwrap().count(), 0);
    let private: Vec<PathBuf> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(format!("{call}.sock")).exists())
        .collect();
    assert_eq!(private.len(), 1, "{private:?}");
    let meta = std::fs::symlink_metadata(&private[0]).unwrap();
    assert!(meta.is_dir());
    assert_eq!((meta.uid(), meta.mode() & 0o777), (uid, 0o700));
    // A second call parks in the same private directory, and `respond`
    // finds both.
    let (second, code, _) = run_in_tmp(
        &tmp,
        &["call", "demo", "book_return", "--args", &args, "--park"],
    );
    assert_eq!(code, 10, "{second}");
    let other = question_id(&second);
    let other_call = other.split('.').next().unwrap_or_default().to_owned();
    assert!(private[0].join(format!("{other_call}.sock")).exists());
    for q in [&id, &other] {
        let (done, code, stderr) = run_in_tmp(&tmp, &["respond", q, "cancel"]);
        assert_eq!(code, 0, "{done} {stderr}");
        assert_eq!(done["status"], "complete");
    }
    eprintln!(
        "squatted directory {}: {}",
        if theirs {
            "of another user"
        } else {
            "open to all"
        },
        squatted.display()
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

fn park_url(dir: &str, protocol: &str) -> Value {
    let (parked, code, stderr) = run(
        dir,
        &[
            "call",
            "demo",
            "connect_store_account",
            "--park",
            "--park-ttl",
            "60",
            "--protocol",
            protocol,
        ],
    );
    assert_eq!(code, 10, "{protocol}: {parked} {stderr}");
    let q = &parked["questions"][0];
    assert_eq!(q["mode"], "url", "{parked}");
    assert_eq!(q["state"], "needsAnswer", "{parked}");
    assert!(
        q["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http://127.0.0.1:")),
        "{parked}"
    );
    parked
}

/// Issue 29: an accepted URL question says `waiting` at once (it used to hang
/// on 2025-11-25), keeps its id while the person signs in (on 2026-07-28 the
/// server's "not finished yet" used to come back as a new question `.2` with
/// the same message), and the call completes once they have.
#[test]
fn an_accepted_url_question_waits_at_once_and_completes_after_the_sign_in() {
    for protocol in ["2025-11-25", "2026-07-28"] {
        let dir = park_dir(&format!("url-{protocol}"));
        let parked = park_url(&dir, protocol);
        let id = question_id(&parked);
        let url = parked["questions"][0]["url"].as_str().unwrap().to_owned();
        let started = std::time::Instant::now();
        let (waiting, code, _) = run(&dir, &["respond", &id, "accept"]);
        assert_eq!(code, 11, "{protocol}: {waiting}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{protocol}: at once"
        );
        assert_eq!(waiting["status"], "waiting", "{waiting}");
        assert_eq!(question_id(&waiting), id, "{waiting}");
        assert_eq!(waiting["questions"][0]["state"], "inProgress");
        assert_eq!(waiting["questions"][0]["notFinishedYet"], false);
        if protocol == "2026-07-28" {
            // The server holds the retry (10 s), then asks again: the same id,
            // now "not finished yet".
            let call = id.split('.').next().unwrap();
            let (again, code, _) = run(&dir, &["respond", call, "wait", "--wait", "13"]);
            assert_eq!(code, 11, "{again}");
            assert_eq!(question_id(&again), id, "no new question: {again}");
            assert_eq!(again["questions"].as_array().map(Vec::len), Some(1));
            assert_eq!(again["questions"][0]["notFinishedYet"], true, "{again}");
            sign_in(&url);
            // The person says they are done: check again.
            let (mut done, mut code, _) = run(&dir, &["respond", &id, "accept"]);
            if code == 11 {
                // The check is still on its way (a loaded machine).
                (done, code, _) = run(&dir, &["respond", call, "wait", "--wait", "20"]);
            }
            assert_eq!(code, 0, "{done}");
            assert_eq!(
                done["result"]["content"][0]["text"],
                "Your store account is connected."
            );
        } else {
            sign_in(&url);
            // The server announces the completion; the call finishes by itself.
            let (done, code, _) = run(&dir, &["respond", &id, "wait", "--wait", "20"]);
            assert_eq!(code, 0, "{done}");
            assert_eq!(done["status"], "complete", "{done}");
            assert_eq!(
                done["result"]["content"][0]["text"],
                "Your store account is connected."
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `respond ID cancel` works at any time: before the answer (the server hears
/// cancel) and while the person is signing in (the call is stopped).
#[test]
fn a_url_question_takes_cancel_before_and_after_accept_on_both_revisions() {
    for protocol in ["2025-11-25", "2026-07-28"] {
        let dir = park_dir(&format!("urlc-{protocol}"));
        let parked = park_url(&dir, protocol);
        let id = question_id(&parked);
        let (done, code, _) = run(&dir, &["respond", &id, "cancel"]);
        assert_eq!(code, 0, "{protocol}: {done}");
        assert_eq!(done["status"], "complete");
        assert!(
            done["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("The account was not connected")),
            "{done}"
        );

        let parked = park_url(&dir, protocol);
        let id = question_id(&parked);
        let (waiting, code, _) = run(&dir, &["respond", &id, "accept"]);
        assert_eq!(code, 11, "{protocol}: {waiting}");
        let (declined, code, _) = run(&dir, &["respond", &id, "decline"]);
        assert_eq!(code, 2, "a decline after consent is refused: {declined}");
        assert_eq!(declined["status"], "error");
        let (stopped, code, _) = run(&dir, &["respond", &id, "cancel"]);
        assert_eq!(code, 1, "{protocol}: {stopped}");
        assert_eq!(stopped["status"], "cancelled", "{stopped}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `call --park --show-wire` shows the wire on each command's stderr (it used
/// to be ignored), and a tool the server does not have ends the parked call at
/// once, naming the tools it has.
#[test]
fn a_parked_call_shows_the_wire_and_names_the_real_tools() {
    let dir = park_dir("wire");
    let (parked, code, stderr) = run(
        &dir,
        &[
            "call",
            "demo",
            "book_return",
            "--args",
            r#"{"order_id":"A-5"}"#,
            "--park",
            "--show-wire",
            "--protocol",
            "2025-11-25",
        ],
    );
    assert_eq!(code, 10, "{parked}");
    assert!(
        stderr.contains("wire → {\"jsonrpc\":\"2.0\"")
            && stderr.contains("\"method\":\"initialize\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("\"method\":\"elicitation/create\""),
        "{stderr}"
    );
    let (done, _, stderr) = run(&dir, &["respond", &question_id(&parked), "decline"]);
    assert_eq!(done["status"], "complete");
    assert!(stderr.contains("\"action\":\"decline\""), "{stderr}");

    let (failed, code, stderr) = run(&dir, &["call", "demo", "book_retrun", "--park"]);
    assert_eq!(code, 2, "{failed} {stderr}");
    assert_eq!(failed["status"], "failed");
    let error = failed["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("no tool `book_retrun`; its tools: ") && error.contains("book_return"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
