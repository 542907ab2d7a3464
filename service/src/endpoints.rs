//! The one table of Trace Server Protocol endpoints, shared by every
//! transport: each row names a request twice — as an HTTP verb and route
//! (what the VS Code viewer speaks) and as a JSON-RPC method (what the Trace
//! Compass plugin and the WebSocket clients speak) — and says which service
//! call answers it. The transports only move bytes; adding an endpoint here
//! adds it everywhere.
//!
//! JSON-RPC params are the HTTP body's object with the route's identifiers
//! added as top-level keys, under the spec's names (`expUUID`, `outputId`,
//! ...): `{"expUUID": "...", "outputId": "...", "parameters": {...}}`.

use serde_json::{Map, Value};

use crate::{Reply, Result, Service, ServiceError, Work};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Post,
    Delete,
}

/// One request of the protocol.
pub struct Endpoint {
    /// JSON-RPC method name.
    pub method: &'static str,
    pub verb: Verb,
    /// HTTP route under `/tsp/api`, identifiers in braces.
    pub route: &'static str,
    handler: fn(&Service, &Call<'_>) -> Result<Reply>,
}

/// A request's identifiers and body, checked against its endpoint.
pub struct Call<'a> {
    ids: Vec<(&'static str, String)>,
    body: &'a Value,
    /// Progress and cancellation of long requests (running a model).
    work: &'a Work<'a>,
}

impl Call<'_> {
    /// An identifier of the route. Every one is present: `Endpoint::call`
    /// checks them before building the call.
    fn id(&self, name: &str) -> &str {
        self.ids
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

impl Endpoint {
    /// The names of the route's identifiers, in order.
    pub fn ids(&self) -> impl Iterator<Item = &'static str> {
        self.route
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
    }

    /// Answers the request; `ids` holds the route's identifiers by name.
    pub fn call(
        &self,
        service: &Service,
        mut ids: impl FnMut(&str) -> Option<String>,
        body: &Value,
        work: &Work,
    ) -> Result<Reply> {
        let ids = self
            .ids()
            .map(|name| {
                ids(name)
                    .map(|v| (name, v))
                    .ok_or_else(|| ServiceError::bad_request(format!("missing field: {name}")))
            })
            .collect::<Result<Vec<_>>>()?;
        (self.handler)(service, &Call { ids, body, work })
    }

    /// Answers a JSON-RPC request: `params` is the body with the identifiers
    /// as extra keys (absent params are an empty body).
    pub fn call_rpc(&self, service: &Service, params: Option<Value>, work: &Work) -> Result<Reply> {
        let mut body = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(ServiceError::bad_request(
                    "params must be an object (the HTTP body with the route's identifiers)",
                ))
            }
        };
        let mut ids = Vec::new();
        for name in self.ids() {
            match body.remove(name) {
                Some(Value::String(v)) => ids.push((name, v)),
                Some(_) => {
                    return Err(ServiceError::bad_request(format!(
                        "{name}: expected a string"
                    )))
                }
                None => return Err(ServiceError::bad_request(format!("missing field: {name}"))),
            }
        }
        let body = Value::Object(body);
        (self.handler)(
            service,
            &Call {
                ids,
                body: &body,
                work,
            },
        )
    }
}

/// The endpoint answering a JSON-RPC method.
pub fn by_method(method: &str) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| e.method == method)
}

macro_rules! endpoint {
    ($method:literal, $verb:ident $route:literal, $handler:expr) => {
        Endpoint {
            method: $method,
            verb: Verb::$verb,
            route: $route,
            // Service calls answer a tree or a `Reply`; the table keeps one type.
            handler: {
                fn handler(s: &Service, c: &Call<'_>) -> Result<Reply> {
                    let f: fn(&Service, &Call<'_>) -> Result<_> = $handler;
                    f(s, c).map(Reply::from)
                }
                handler
            },
        }
    };
}

/// Every endpoint, in the spec's order of concepts.
pub static ENDPOINTS: &[Endpoint] = &[
    endpoint!("tsp/health", Get "/health", |s, _| Ok(s.health())),
    endpoint!("tsp/identifier", Get "/identifier", |s, _| Ok(s.identifier())),
    endpoint!("tsp/traces/list", Get "/traces", |s, _| Ok(s.traces())),
    endpoint!("tsp/traces/open", Post "/traces", |s, c| s.open_trace(c.body)),
    endpoint!("tsp/traces/get", Get "/traces/{uuid}", |s, c| s.trace(c.id("uuid"))),
    endpoint!("tsp/traces/delete", Delete "/traces/{uuid}", |s, c| s
        .delete_trace(c.id("uuid"))),
    endpoint!("tsp/experiments/list", Get "/experiments", |s, _| Ok(s.experiments())),
    endpoint!("tsp/experiments/create", Post "/experiments", |s, c| s
        .create_experiment(c.body)),
    endpoint!("tsp/experiments/get", Get "/experiments/{expUUID}", |s, c| s
        .experiment(c.id("expUUID"))),
    endpoint!("tsp/experiments/delete", Delete "/experiments/{expUUID}", |s, c| s
        .delete_experiment(c.id("expUUID"))),
    endpoint!("tsp/outputs/list", Get "/experiments/{expUUID}/outputs", |s, c| s
        .outputs(c.id("expUUID"))),
    endpoint!("tsp/outputs/get", Get "/experiments/{expUUID}/outputs/{outputId}", |s, c| s
        .output(c.id("expUUID"), c.id("outputId"))),
    endpoint!("tsp/outputs/create", Post "/experiments/{expUUID}/outputs/{outputId}", |s, c| s
        .create_derived(c.id("expUUID"), c.id("outputId"), c.body, c.work)),
    endpoint!("tsp/outputs/delete", Delete "/experiments/{expUUID}/outputs/{outputId}/{derivedOutputId}", |s, c| s
        .delete_derived(c.id("expUUID"), c.id("outputId"), c.id("derivedOutputId"))),
    endpoint!("tsp/markerSets", Get "/experiments/{expUUID}/outputs/markerSets", |s, c| s
        .marker_sets(c.id("expUUID"))),
    endpoint!("tsp/style", Post "/experiments/{expUUID}/outputs/{outputId}/style", |s, c| s
        .style(c.id("expUUID"), c.id("outputId"))),
    endpoint!("tsp/annotations/categories", Get "/experiments/{expUUID}/outputs/{outputId}/annotations", |s, c| s
        .annotation_categories(c.id("expUUID"), c.id("outputId"))),
    endpoint!("tsp/annotations", Post "/experiments/{expUUID}/outputs/{outputId}/annotations", |s, c| s
        .annotations(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/timeGraph/tree", Post "/experiments/{expUUID}/outputs/timeGraph/{outputId}/tree", |s, c| s
        .timegraph_tree(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/timeGraph/states", Post "/experiments/{expUUID}/outputs/timeGraph/{outputId}/states", |s, c| s
        .timegraph_states(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/timeGraph/arrows", Post "/experiments/{expUUID}/outputs/timeGraph/{outputId}/arrows", |s, c| s
        .timegraph_arrows(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/timeGraph/tooltip", Post "/experiments/{expUUID}/outputs/timeGraph/{outputId}/tooltip", |s, c| s
        .timegraph_tooltip(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/xy/tree", Post "/experiments/{expUUID}/outputs/XY/{outputId}/tree", |s, c| s
        .xy_tree(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/xy/xy", Post "/experiments/{expUUID}/outputs/XY/{outputId}/xy", |s, c| s
        .xy(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/table/columns", Post "/experiments/{expUUID}/outputs/table/{outputId}/columns", |s, c| s
        .table_columns(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/table/lines", Post "/experiments/{expUUID}/outputs/table/{outputId}/lines", |s, c| s
        .table_lines(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/dataTree/tree", Post "/experiments/{expUUID}/outputs/data/{outputId}/tree", |s, c| s
        .data_tree(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/genericXY/tree", Post "/experiments/{expUUID}/outputs/genericXY/{outputId}/tree", |s, c| s
        .generic_xy_tree(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/genericXY/xy", Post "/experiments/{expUUID}/outputs/genericXY/{outputId}/xy", |s, c| s
        .generic_xy(c.id("expUUID"), c.id("outputId"), c.body)),
    endpoint!("tsp/outputs/configTypes", Get "/experiments/{expUUID}/outputs/{outputId}/configTypes", |s, c| s
        .output_config_types(c.id("expUUID"), c.id("outputId"))),
    endpoint!("tsp/outputs/configType", Get "/experiments/{expUUID}/outputs/{outputId}/configTypes/{typeId}", |s, c| s
        .output_config_type(c.id("expUUID"), c.id("outputId"), c.id("typeId"))),
    endpoint!("tsp/config/types", Get "/config/types", |s, _| Ok(s.config_types())),
    endpoint!("tsp/config/type", Get "/config/types/{typeId}", |s, c| s
        .config_type(c.id("typeId"))),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_and_routes_are_unique() {
        let mut methods: Vec<_> = ENDPOINTS.iter().map(|e| e.method).collect();
        methods.sort_unstable();
        methods.dedup();
        assert_eq!(
            methods.len(),
            ENDPOINTS.len(),
            "a method name is used twice"
        );
        let mut routes: Vec<_> = ENDPOINTS.iter().map(|e| (e.route, e.verb as u8)).collect();
        routes.sort_unstable();
        routes.dedup();
        assert_eq!(routes.len(), ENDPOINTS.len(), "a route is listed twice");
    }

    #[test]
    fn rpc_params_need_the_route_identifiers() {
        let s = Service::new(Default::default());
        let e = by_method("tsp/experiments/get").expect("listed");
        let err = e.call_rpc(&s, None, &Work::none()).unwrap_err();
        assert!(err.to_json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("expUUID")));
        let err = e
            .call_rpc(&s, Some(serde_json::json!({"expUUID": 3})), &Work::none())
            .unwrap_err();
        assert!(err.to_json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("expected a string")));
        let err = e
            .call_rpc(&s, Some(serde_json::json!([1])), &Work::none())
            .unwrap_err();
        assert!(err.to_json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("params must be an object")));
    }
}
