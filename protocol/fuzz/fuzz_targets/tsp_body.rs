//! TSP request bodies from the input, sent to the endpoints a viewer calls
//! on an indexed trace (fixtures/scenario-a) with an execution model and an
//! explanation posted: every body parser, every data provider's handling of
//! ranges, counts, items, searches and models. Any body must get an answer
//! or an error, quickly; never a panic.
//!
//! Input: one byte choosing the endpoint, one choosing the output, then the
//! body (JSON; anything else is refused by the transports before the
//! service sees it). Endpoints that delete or open traces and experiments
//! are left out: they would change what the next input runs against.

#![no_main]

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use sextant_protocol::endpoints::{by_method, Endpoint, Verb, ENDPOINTS};
use sextant_protocol::service::{Config, Service, Work};

struct Setup {
    service: Service,
    trace: String,
    exp: String,
    outputs: Vec<String>,
    endpoints: Vec<&'static Endpoint>,
}

fn call(s: &Service, method: &str, params: Value) -> Value {
    let e = by_method(method).expect("a method of the table");
    let ids = |name: &str| params.get(name).and_then(Value::as_str).map(String::from);
    e.call(s, ids, &params, &Work::none())
        .and_then(|r| r.into_value())
        .unwrap_or_else(|err| panic!("setting up, {method}: {}", err.to_json()))
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let fixtures = repo.join("fixtures").canonicalize().expect("fixtures/");
        let service = Service::new(Config {
            allowed_roots: vec![fixtures.clone()],
            cache_entries: Some(8),
            ..Config::default()
        });
        let uri = fixtures.join("scenario-a/ctf").display().to_string();
        let t = call(&service, "tsp/traces/open", json!({"parameters": {"uri": uri, "name": "a"}}));
        let trace = t["UUID"].as_str().expect("a trace UUID").to_string();
        let until = Instant::now() + Duration::from_secs(120);
        while call(&service, "tsp/traces/get", json!({"uuid": trace}))["indexingStatus"] == "RUNNING" {
            assert!(Instant::now() < until, "indexing scenario-a takes too long");
            std::thread::sleep(Duration::from_millis(20));
        }
        let e = call(
            &service,
            "tsp/experiments/create",
            json!({"parameters": {"name": "fuzz", "traces": [trace]}}),
        );
        let exp = e["UUID"].as_str().expect("an experiment UUID").to_string();
        let model: Value = serde_json::from_str(
            &std::fs::read_to_string(repo.join("schemas/examples/periodic-rt_high.json"))
                .expect("the example model"),
        )
        .expect("a JSON model");
        call(
            &service,
            "tsp/outputs/create",
            json!({"expUUID": exp, "outputId": "sextant.executions", "name": "jobs",
                   "sourceTypeId": "sextant.execution-model", "parameters": model}),
        );
        call(
            &service,
            "tsp/outputs/create",
            json!({"expUUID": exp, "outputId": "sextant.explain", "name": "why",
                   "sourceTypeId": "sextant.explain",
                   "parameters": {"model": model, "execution": "longest"}}),
        );
        let list = call(&service, "tsp/outputs/list", json!({"expUUID": exp}));
        let mut outputs: Vec<String> = list
            .as_array()
            .expect("a list of outputs")
            .iter()
            .filter_map(|o| o["id"].as_str().map(String::from))
            .collect();
        outputs.push("no.such.output".into());
        let endpoints = ENDPOINTS
            .iter()
            .filter(|e| e.verb != Verb::Delete)
            .filter(|e| !matches!(e.method, "tsp/traces/open" | "tsp/experiments/create"))
            .collect();
        Setup {
            service,
            trace,
            exp,
            outputs,
            endpoints,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let s = setup();
    let [which, output, body @ ..] = data else {
        return;
    };
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let endpoint = s.endpoints[*which as usize % s.endpoints.len()];
    let output = &s.outputs[*output as usize % s.outputs.len()];
    let id = |name: &str| {
        Some(match name {
            "expUUID" => s.exp.clone(),
            "uuid" => s.trace.clone(),
            "typeId" => "sextant.execution-model".into(),
            _ => output.clone(),
        })
    };
    let r = endpoint.call(&s.service, id, &body, &Work::none());
    // What a posted configuration created goes, so that inputs stay
    // independent of each other.
    if let (Ok(reply), "tsp/outputs/create") = (r, endpoint.method) {
        if let Some(derived) = reply.into_value().ok().and_then(|v| v["id"].as_str().map(String::from)) {
            let delete = by_method("tsp/outputs/delete").expect("in the table");
            let ids = |name: &str| {
                Some(match name {
                    "expUUID" => s.exp.clone(),
                    "outputId" => output.clone(),
                    _ => derived.clone(),
                })
            };
            let _ = delete.call(&s.service, ids, &json!({}), &Work::none());
        }
    }
});
