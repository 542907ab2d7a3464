//! The same requests over HTTP and over JSON-RPC on stdio give the same
//! answers: the viewer's sequence on fixtures/scenario-a (trace, experiment,
//! outputs, time graph, XY) and an execution model (Comparison View, Time
//! Perspective, executions table), each answer serialized the same way and
//! compared as text. Errors compare as the HTTP status and body against the
//! JSON-RPC error's `data`.

mod common;

use std::time::{Duration, Instant};

use common::rpc::Stdio;
use common::server::Server;
use serde_json::{json, Value};

const THREAD_STATUS: &str =
    "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";
const HISTOGRAM: &str =
    "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider";

struct Both {
    http: Server,
    rpc: Stdio,
}

/// The route with its `{identifiers}` taken from `params`, and the body:
/// `params` without them.
fn split(route: &str, params: &Value) -> (String, Value) {
    let mut body = params.clone();
    let path = route
        .split('/')
        .map(
            |seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(id) => body
                    .as_object_mut()
                    .and_then(|o| o.remove(id))
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| panic!("{id} missing from {params}")),
                None => seg.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("/");
    (path, body)
}

/// Without what changes while indexing runs (status, counts, range).
fn settled(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        if let Some(o) = v.as_object_mut() {
            for k in [
                "indexingStatus",
                "statusMessage",
                "nbEvents",
                "start",
                "end",
            ] {
                o.remove(k);
            }
            o.values_mut().for_each(strip);
        } else if let Some(a) = v.as_array_mut() {
            a.iter_mut().for_each(strip);
        }
    }
    strip(&mut v);
    v
}

impl Both {
    /// `verb route` over HTTP and `method` over stdio, with the same params;
    /// both answers as (HTTP status, body).
    fn ask(
        &mut self,
        verb: &str,
        route: &str,
        method: &str,
        params: Value,
    ) -> ((u16, Value), (u16, Value)) {
        let (path, body) = split(route, &params);
        let body = (verb == "POST").then(|| body.to_string());
        let (status, text) = self.http.raw(verb, &path, body.as_deref());
        let http: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
        let rpc = match self.rpc.call(method, params) {
            Ok(v) => (200, v),
            Err(e) => {
                let mut data = e["data"].clone();
                let status = data["status"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("no status in {e}"))
                    as u16;
                data.as_object_mut().unwrap().remove("status");
                assert_eq!(e["message"], data["title"], "{e}");
                (status, data)
            }
        };
        ((status, http), rpc)
    }

    /// The answer, checked to be the same text on both transports.
    fn same(&mut self, verb: &str, route: &str, method: &str, params: Value) -> Value {
        let (h, r) = self.ask(verb, route, method, params);
        assert_eq!(h.0, r.0, "{method}: HTTP {} vs RPC {}", h.1, r.1);
        assert_eq!(h.1.to_string(), r.1.to_string(), "{method} differs");
        h.1
    }

    /// The same, apart from what indexing in progress changes.
    fn same_settled(&mut self, verb: &str, route: &str, method: &str, params: Value) -> Value {
        let (h, r) = self.ask(verb, route, method, params);
        assert_eq!(h.0, r.0, "{method}: HTTP {} vs RPC {}", h.1, r.1);
        assert_eq!(
            settled(h.1.clone()).to_string(),
            settled(r.1).to_string(),
            "{method} differs"
        );
        h.1
    }

    fn wait_indexed(&mut self, exp: &str) {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let (_, e) = self.http.get(&format!("/experiments/{exp}"));
            let r = self
                .rpc
                .request("tsp/experiments/get", json!({"expUUID": exp}));
            if e["indexingStatus"] == "COMPLETED" && r["indexingStatus"] == "COMPLETED" {
                return;
            }
            assert!(Instant::now() < until, "indexing takes too long: {e} {r}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn ids(entries: &Value, n: usize) -> Vec<i64> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .take(n)
        .map(|e| e["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn viewer_sequence_and_model_answer_the_same() {
    let (rpc, _) = Stdio::initialized(&[], &[]);
    let mut b = Both {
        http: Server::start(),
        rpc,
    };
    b.same("GET", "/health", "tsp/health", json!({}));
    b.same("GET", "/experiments", "tsp/experiments/list", json!({}));
    b.same("GET", "/config/types", "tsp/config/types", json!({}));
    b.same(
        "GET",
        "/config/types/{typeId}",
        "tsp/config/type",
        json!({"typeId": "sextant.execution-model"}),
    );

    let trace = b.same_settled(
        "POST",
        "/traces",
        "tsp/traces/open",
        json!({"parameters": {"name": "eq", "uri": "fixtures/scenario-a/ctf"}}),
    );
    let exp = b.same_settled(
        "POST",
        "/experiments",
        "tsp/experiments/create",
        json!({"parameters": {"name": "eq-exp", "traces": [trace["UUID"]]}}),
    );
    let exp = exp["UUID"].as_str().unwrap().to_string();
    b.wait_indexed(&exp);
    let e = b.same(
        "GET",
        "/experiments/{expUUID}",
        "tsp/experiments/get",
        json!({"expUUID": exp}),
    );
    let (start, end) = (e["start"].as_i64().unwrap(), e["end"].as_i64().unwrap());
    b.same("GET", "/traces", "tsp/traces/list", json!({}));
    b.same(
        "GET",
        "/traces/{uuid}",
        "tsp/traces/get",
        json!({"uuid": trace["UUID"]}),
    );

    let outputs = b.same(
        "GET",
        "/experiments/{expUUID}/outputs",
        "tsp/outputs/list",
        json!({"expUUID": exp}),
    );
    b.same(
        "GET",
        "/experiments/{expUUID}/outputs/markerSets",
        "tsp/markerSets",
        json!({"expUUID": exp}),
    );
    for o in outputs.as_array().unwrap() {
        let id = o["id"].clone();
        b.same(
            "GET",
            "/experiments/{expUUID}/outputs/{outputId}",
            "tsp/outputs/get",
            json!({"expUUID": exp, "outputId": id}),
        );
        b.same(
            "GET",
            "/experiments/{expUUID}/outputs/{outputId}/annotations",
            "tsp/annotations/categories",
            json!({"expUUID": exp, "outputId": id}),
        );
        b.same(
            "POST",
            "/experiments/{expUUID}/outputs/{outputId}/style",
            "tsp/style",
            json!({"expUUID": exp, "outputId": id, "parameters": {}}),
        );
    }

    // Time graph, as the viewer asks for it.
    let range = json!({"start": start, "end": end});
    let tree = b.same("POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/tree", "tsp/timeGraph/tree",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {"requested_timerange": range}}));
    let items = ids(&tree["model"]["entries"], 8);
    b.same("POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/states", "tsp/timeGraph/states",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {
            "requested_timerange": {"start": start, "end": end, "nbTimes": 800}, "requested_items": items}}));
    b.same("POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/arrows", "tsp/timeGraph/arrows",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {"requested_timerange": range}}));
    let t = (start + end) / 2;
    b.same("POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/tooltip", "tsp/timeGraph/tooltip",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {"requested_times": [t],
            "requested_items": [items[0]], "requested_element": {"elementType": "state", "time": t, "duration": 0}}}));
    b.same("POST", "/experiments/{expUUID}/outputs/{outputId}/annotations", "tsp/annotations",
        json!({"expUUID": exp, "outputId": THREAD_STATUS, "parameters": {"requested_timerange": range}}));

    // XY.
    let xytree = b.same(
        "POST",
        "/experiments/{expUUID}/outputs/XY/{outputId}/tree",
        "tsp/xy/tree",
        json!({"expUUID": exp, "outputId": HISTOGRAM, "parameters": {}}),
    );
    b.same(
        "POST",
        "/experiments/{expUUID}/outputs/XY/{outputId}/xy",
        "tsp/xy/xy",
        json!({"expUUID": exp, "outputId": HISTOGRAM, "parameters": {
            "requested_timerange": {"start": start, "end": end, "nbTimes": 100},
            "requested_items": ids(&xytree["model"]["entries"], 4)}}),
    );

    // An execution model and its outputs.
    let model: Value = serde_json::from_str(
        &std::fs::read_to_string(
            common::repo_root().join("schemas/examples/periodic-rt_high.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let create = json!({"expUUID": exp, "outputId": "sextant.executions", "name": "jobs",
        "sourceTypeId": "sextant.execution-model", "parameters": model});
    let comparison = b.same(
        "POST",
        "/experiments/{expUUID}/outputs/{outputId}",
        "tsp/outputs/create",
        create,
    );
    let cmp = comparison["id"].as_str().unwrap().to_string();
    let config = cmp.split_once(':').unwrap().1.to_string();
    b.same(
        "GET",
        "/experiments/{expUUID}/outputs",
        "tsp/outputs/list",
        json!({"expUUID": exp}),
    );
    let rows = b.same(
        "POST",
        "/experiments/{expUUID}/outputs/timeGraph/{outputId}/tree",
        "tsp/timeGraph/tree",
        json!({"expUUID": exp, "outputId": cmp, "parameters": {"sort": "duration"}}),
    );
    let longest = ids(&rows["model"]["entries"], 5);
    assert_eq!(longest.len(), 5, "{rows}");
    b.same("POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/states", "tsp/timeGraph/states",
        json!({"expUUID": exp, "outputId": cmp, "parameters": {
            "requested_timerange": {"start": 0, "end": 10_000_000, "nbTimes": 500}, "requested_items": longest}}));
    b.same(
        "POST",
        "/experiments/{expUUID}/outputs/{outputId}/style",
        "tsp/style",
        json!({"expUUID": exp, "outputId": cmp, "parameters": {}}),
    );
    b.same(
        "POST",
        "/experiments/{expUUID}/outputs/{outputId}/annotations",
        "tsp/annotations",
        json!({"expUUID": exp, "outputId": cmp, "parameters": {}}),
    );
    let perspective = format!("sextant.executions.perspective:{config}");
    let ptree = b.same(
        "POST",
        "/experiments/{expUUID}/outputs/XY/{outputId}/tree",
        "tsp/xy/tree",
        json!({"expUUID": exp, "outputId": perspective, "parameters": {}}),
    );
    b.same(
        "POST",
        "/experiments/{expUUID}/outputs/XY/{outputId}/xy",
        "tsp/xy/xy",
        json!({"expUUID": exp, "outputId": perspective, "parameters": {
            "requested_timerange": {"start": start, "end": end},
            "requested_items": ids(&ptree["model"]["entries"], 10)}}),
    );
    let table = format!("sextant.executions.table:{config}");
    b.same(
        "POST",
        "/experiments/{expUUID}/outputs/table/{outputId}/columns",
        "tsp/table/columns",
        json!({"expUUID": exp, "outputId": table, "parameters": {}}),
    );
    b.same("POST", "/experiments/{expUUID}/outputs/table/{outputId}/lines", "tsp/table/lines",
        json!({"expUUID": exp, "outputId": table, "parameters": {"requested_table_index": 0, "requested_table_count": 200}}));

    // Errors: the same status and body.
    b.same(
        "POST",
        "/experiments",
        "tsp/experiments/create",
        json!({"parameters": {"name": "x", "traces": []}}),
    );
    b.same(
        "GET",
        "/experiments/{expUUID}",
        "tsp/experiments/get",
        json!({"expUUID": "nope"}),
    );
    b.same("POST", "/experiments/{expUUID}/outputs/{outputId}", "tsp/outputs/create",
        json!({"expUUID": exp, "outputId": "sextant.executions", "name": "bad",
               "sourceTypeId": "sextant.execution-model", "parameters": {"name": "m", "mode": "sometimes"}}));

    b.same(
        "DELETE",
        "/experiments/{expUUID}/outputs/{outputId}/{derivedOutputId}",
        "tsp/outputs/delete",
        json!({"expUUID": exp, "outputId": "sextant.executions", "derivedOutputId": cmp}),
    );
    b.same(
        "DELETE",
        "/experiments/{expUUID}",
        "tsp/experiments/delete",
        json!({"expUUID": exp}),
    );
}
