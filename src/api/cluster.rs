//! `GET /v1/cluster`: the nodes of a cluster, their last heartbeats and the shards each owns,
//! as the answering node last saw them (refreshed at every heartbeat).

use actix_web::{web, HttpResponse};

use crate::{cluster::ClusterStatus, AppState};

/// The cluster's nodes and shards (`enabled: false` and nothing else on a single node).
pub async fn status(state: web::Data<AppState>) -> HttpResponse {
    let status = match &state.cluster {
        Some(cluster) => cluster.status(),
        None => ClusterStatus::single_node(),
    };
    HttpResponse::Ok().json(status)
}
