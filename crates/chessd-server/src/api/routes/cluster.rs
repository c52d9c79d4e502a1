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
