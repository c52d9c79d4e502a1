//! Which games this node may hold in memory, and the lease their writes are made under. A
//! single node holds every game; in a cluster (see the `cluster` module) a node holds the games of the
//! shards it leases, and each write carries the shard's fencing token.

use uuid::Uuid;

use crate::{game::GameError, store::Fence};

/// Who owns which game.
pub trait Ownership: Send + Sync {
    /// The fence writes of game `id` are made under (`None`: unfenced, a single node), or
    /// [`GameError::Unavailable`] when this node does not own the game.
    fn fence(&self, id: &Uuid) -> Result<Option<Fence>, GameError>;

    /// An id for a new game, one this node owns.
    fn new_id(&self) -> Result<Uuid, GameError>;
}

/// A node alone: it owns every game and writes unfenced.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleNode;

impl Ownership for SingleNode {
    fn fence(&self, _id: &Uuid) -> Result<Option<Fence>, GameError> {
        Ok(None)
    }

    fn new_id(&self) -> Result<Uuid, GameError> {
        Ok(Uuid::new_v4())
    }
}
