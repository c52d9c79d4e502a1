//! `GET /v1/cluster`: the nodes of a cluster, their last heartbeats and the shards each owns,
//! as the answering node last saw them (refreshed at every heartbeat).

use actix_web::{web, HttpRequest, HttpResponse};

use crate::{
    api::{client::require_operator, error::ApiError},
    cluster::ClusterStatus,
    AppState,
};

/// The cluster's nodes and shards (`enabled: false` and nothing else on a single node); the
/// operator's.
#[utoipa::path(
    get,
    path = "/v1/cluster",
    operation_id = "clusterStatus",
    tag = "system",
    summary = "The cluster's nodes and shards",
    description = "On a node of a cluster (`cluster.advertise_url` set, a PostgreSQL store): every node known, whether its lease holds, its last heartbeat and the shards it owns, as the answering node saw them at its last heartbeat. Any node forwards a request for a game to the node owning the game's shard, so clients need none of this; it is for operators. A single server answers `enabled: false` and nothing else. The operator's: the operator token (`Authorization: Bearer <auth.operator_token>`), or a client on the server's loopback when `auth.loopback_is_operator` (the default); anyone else gets 403.",
    responses(
        (status = 200, description = "The cluster.", body = crate::cluster::ClusterStatus),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden)
    )
)]
pub(crate) async fn status(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    require_operator(&req, &state.config.auth)?;
    let status = match &state.cluster {
        Some(cluster) => cluster.status(),
        None => ClusterStatus::single_node(),
    };
    Ok(HttpResponse::Ok().json(status))
}
