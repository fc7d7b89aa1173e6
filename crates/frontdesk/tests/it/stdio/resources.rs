//! Resources, templates, completion, content types and the JSON Schema
//! 2020-12 tool over stdio, on both revisions; a resource read that asks.

use serde_json::{Value, json};

use crate::support::stdio::{Client, meta};
use crate::support::surface::{ASKING_RESOURCE, server};

const PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "brightgrid-test", "version": "0.0.1"}})
}

/// `params` with a 2026-07-28 `_meta` (capabilities `caps`) added.
fn modern(mut params: Value, caps: Value) -> Value {
    params["_meta"] = meta(caps);
    params
}

async fn legacy_client() -> Client {
    let mut c = Client::start(server());
    c.initialize(json!({"elicitation": {}, "sampling": {}, "roots": {}}))
        .await;
    c
}

#[tokio::test]
async fn resources_are_listed_and_read_on_2025_11_25() {
    let mut c = legacy_client().await;
    let list = c.request(json!(1), "resources/list", json!({})).await;
    assert_eq!(
        list["result"]["resources"][0],
        json!({"uri": "test://static-text", "name": "static-text",
            "description": "A static text resource", "mimeType": "text/plain"})
    );
    assert!(list["result"].get("ttlMs").is_none());
    let templates = c
        .request(json!(2), "resources/templates/list", json!({}))
        .await;
    assert_eq!(
        templates["result"],
        json!({"resourceTemplates": [{"uriTemplate": "test://template/{id}/data", "name": "template-data",
            "description": "Data for an id", "mimeType": "application/json"}]})
    );
    let text = c
        .request(
            json!(3),
            "resources/read",
            json!({"uri": "test://static-text"}),
        )
        .await;
    assert_eq!(
        text,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"contents": [{"uri": "test://static-text",
            "mimeType": "text/plain", "text": "This is the content of the static text resource."}]}})
    );
    let blob = c
        .request(
            json!(4),
            "resources/read",
            json!({"uri": "test://static-binary"}),
        )
        .await;
    assert_eq!(
        blob["result"]["contents"],
        json!([{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG_B64}])
    );
    let data = c
        .request(
            json!(5),
            "resources/read",
            json!({"uri": "test://template/123/data"}),
        )
        .await;
    assert_eq!(
        data["result"]["contents"],
        json!([{"uri": "test://template/123/data", "mimeType": "application/json",
            "text": "{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}])
    );
    let missing = c
        .request(json!(6), "resources/read", json!({"uri": "test://nope"}))
        .await;
    assert_eq!(
        missing,
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32002, "message": "Resource not found",
            "data": {"uri": "test://nope"}}})
    );
    let no_uri = c.request(json!(7), "resources/read", json!({})).await;
    assert_eq!(
        no_uri["error"],
        json!({"code": -32602, "message": "Invalid params: uri is required"})
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn resources_carry_caching_hints_on_2026_07_28() {
    let mut c = Client::start(server());
    let list = c
        .request(json!(1), "resources/list", modern(json!({}), json!({})))
        .await;
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["ttlMs"], 300_000);
    assert_eq!(list["result"]["cacheScope"], "public");
    let templates = c
        .request(
            json!(2),
            "resources/templates/list",
            modern(json!({}), json!({})),
        )
        .await;
    assert_eq!(templates["result"]["cacheScope"], "public");
    let text = c
        .request(
            json!(3),
            "resources/read",
            modern(json!({"uri": "test://static-text"}), json!({})),
        )
        .await;
    assert_eq!(
        text["result"],
        json!({"resultType": "complete", "contents": [{"uri": "test://static-text",
            "mimeType": "text/plain", "text": "This is the content of the static text resource."}],
            "ttlMs": 300000, "cacheScope": "public", "_meta": server_info()})
    );
    let missing = c
        .request(
            json!(4),
            "resources/read",
            modern(json!({"uri": "test://nope"}), json!({})),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32602);
    assert_eq!(missing["error"]["data"], json!({"uri": "test://nope"}));
    let no_uri = c
        .request(
            json!(6),
            "resources/read",
            modern(json!({"uri": 7}), json!({})),
        )
        .await;
    assert_eq!(
        no_uri["error"]["message"],
        "Invalid params: uri is required"
    );
    let removed = c
        .request(
            json!(5),
            "resources/subscribe",
            modern(json!({"uri": "test://static-text"}), json!({})),
        )
        .await;
    assert_eq!(removed["error"]["code"], -32601);
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_resource_read_asks_live_on_2025_11_25() {
    let mut c = legacy_client().await;
    c.send(
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read",
        "params": {"uri": ASKING_RESOURCE}}),
    )
    .await;
    let ask = c.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Which region?");
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["region"]["type"],
        "string"
    );
    c.reply(
        &ask["id"],
        json!({"action": "accept", "content": {"region": "eu"}}),
    )
    .await;
    assert_eq!(
        c.recv().await,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"contents": [{"uri": ASKING_RESOURCE,
            "mimeType": "text/plain", "text": "Sales report for eu"}]}})
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_resource_read_asks_through_input_required_on_2026_07_28() {
    let mut c = Client::start(server());
    let caps = json!({"elicitation": {}});
    let first = c
        .request(
            json!(1),
            "resources/read",
            modern(json!({"uri": ASKING_RESOURCE}), caps.clone()),
        )
        .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["region"]["method"],
        "elicitation/create"
    );
    assert!(
        result.get("ttlMs").is_none(),
        "input_required is not cacheable"
    );
    let state = result["requestState"].as_str().unwrap().to_string();
    let retry = modern(
        json!({"uri": ASKING_RESOURCE, "requestState": state,
            "inputResponses": {"region": {"action": "accept", "content": {"region": "apac"}}}}),
        caps.clone(),
    );
    let done = c.request(json!(2), "resources/read", retry).await;
    assert_eq!(
        done["result"],
        json!({"resultType": "complete", "contents": [{"uri": ASKING_RESOURCE, "mimeType": "text/plain",
            "text": "Sales report for apac"}], "ttlMs": 0, "cacheScope": "private", "_meta": server_info()})
    );
    // The state is bound to the URI read: presented on another read it is refused.
    let other = modern(
        json!({"uri": "test://static-text", "requestState": state}),
        caps.clone(),
    );
    let refused = c.request(json!(3), "resources/read", other).await;
    assert_eq!(refused["error"]["code"], -32602);
    // Without elicitation the read cannot ask: -32021.
    let no_caps = c
        .request(
            json!(4),
            "resources/read",
            modern(json!({"uri": ASKING_RESOURCE}), json!({})),
        )
        .await;
    assert_eq!(no_caps["error"]["code"], -32021);
    assert_eq!(
        no_caps["error"]["data"],
        json!({"requiredCapabilities": {"elicitation": {}}})
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn completion_on_both_revisions() {
    let mut c = legacy_client().await;
    let prompt = json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "pa"}});
    let r = c
        .request(json!(1), "completion/complete", prompt.clone())
        .await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"completion": {
            "values": ["paris", "park", "party"], "total": 3, "hasMore": false}}})
    );
    let template = json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
        "argument": {"name": "id", "value": "4"}});
    let r = c.request(json!(2), "completion/complete", template).await;
    assert_eq!(r["result"]["completion"]["values"], json!(["456"]));
    let unknown = json!({"ref": {"type": "ref/prompt", "name": "nope"},
        "argument": {"name": "arg1", "value": ""}});
    let r = c.request(json!(3), "completion/complete", unknown).await;
    assert_eq!(r["error"]["code"], -32602);
    let wrong_arg = json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg9", "value": ""}});
    let r = c.request(json!(4), "completion/complete", wrong_arg).await;
    assert_eq!(r["error"]["code"], -32602);
    c.close().await.unwrap();

    let mut c = Client::start(server());
    let r = c
        .request(json!(1), "completion/complete", modern(prompt, json!({})))
        .await;
    assert_eq!(
        r["result"],
        json!({"resultType": "complete", "completion": {"values": ["paris", "park", "party"],
            "total": 3, "hasMore": false}, "_meta": server_info()})
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn every_content_type_in_tool_and_prompt_results() {
    let mut c = legacy_client().await;
    let call = |name: &str| json!({"name": name, "arguments": {}});
    let image = c
        .request(json!(1), "tools/call", call("test_image_content"))
        .await;
    assert_eq!(
        image["result"],
        json!({"content": [{"type": "image", "data": PNG_B64, "mimeType": "image/png"}], "isError": false})
    );
    let audio = c
        .request(json!(2), "tools/call", call("test_audio_content"))
        .await;
    assert_eq!(audio["result"]["content"][0]["type"], "audio");
    assert_eq!(audio["result"]["content"][0]["mimeType"], "audio/wav");
    assert!(
        audio["result"]["content"][0]["data"]
            .as_str()
            .unwrap()
            .starts_with("UklGR")
    );
    let embedded = c
        .request(json!(3), "tools/call", call("test_embedded_resource"))
        .await;
    assert_eq!(
        embedded["result"]["content"],
        json!([{"type": "resource", "resource": {"uri": "test://embedded-resource",
            "mimeType": "text/plain", "text": "This is an embedded resource content."}}])
    );
    let mixed = c
        .request(json!(4), "tools/call", call("test_multiple_content_types"))
        .await;
    let kinds: Vec<&str> = mixed["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let error = c
        .request(json!(5), "tools/call", call("test_error_handling"))
        .await;
    assert_eq!(
        error["result"],
        json!({"content": [{"type": "text", "text": "This tool intentionally returns an error for testing"}],
            "isError": true})
    );
    let prompt = c
        .request(
            json!(6),
            "prompts/get",
            json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://x"}}),
        )
        .await;
    assert_eq!(
        prompt["result"]["messages"][0],
        json!({"role": "user", "content": {"type": "resource", "resource": {"uri": "test://x",
            "mimeType": "text/plain", "text": "Embedded resource content for testing."}}})
    );
    let image_prompt = c
        .request(
            json!(7),
            "prompts/get",
            json!({"name": "test_prompt_with_image"}),
        )
        .await;
    assert_eq!(
        image_prompt["result"]["messages"][0]["content"],
        json!({"type": "image", "data": PNG_B64, "mimeType": "image/png"})
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn json_schema_2020_12_keywords_are_listed_as_written() {
    let mut c = Client::start(server());
    let l = c
        .request(json!(1), "tools/list", modern(json!({}), json!({})))
        .await;
    let tool = l["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .unwrap();
    let schema = &tool["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["allOf"][0]["anyOf"][1],
        json!({"required": ["email"]})
    );
    assert_eq!(schema["else"], json!({"required": ["email"]}));
    c.close().await.unwrap();
}
