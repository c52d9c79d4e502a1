//! OpenAPI schemas (utoipa) for the values this crate's types carry on the wire, and the helper
//! the server's own name lists use: only with the `utoipa` feature.

use chessd_core::Color;
use serde::Serialize;
use utoipa::{
    openapi::{schema::Type, ObjectBuilder, RefOr, Schema},
    PartialSchema, ToSchema,
};

/// A string schema whose values are `names`, with a description.
pub fn names_schema<N: Into<serde_json::Value>>(
    description: &str,
    names: impl IntoIterator<Item = N>,
) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(description))
        .enum_values(Some(names))
        .into()
}

/// Declares a schema-only type whose schema is a string enum of the given names (its doc
/// comment is the description).
#[macro_export]
macro_rules! names_schema_type {
    ($(#[doc = $doc:literal])* $ty:ident as $name:literal: $names:expr) => {
        $(#[doc = $doc])*
        pub struct $ty;

        impl ::utoipa::PartialSchema for $ty {
            fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::Schema> {
                $crate::schema::names_schema(concat!($($doc),*).trim(), $names)
            }
        }

        impl ::utoipa::ToSchema for $ty {
            fn name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed($name)
            }
        }
    };
}

crate::names_schema_type!(
    /// A side (`chessd_core::Color`).
    Side as "Side": Color::ALL.map(Color::name)
);

/// A move in UCI text (`e2e4`, `e7e8q`).
pub struct UciMoveText;

impl PartialSchema for UciMoveText {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[a-h][1-8][a-h][1-8][qrbnQRBN]?$"))
            .into()
    }
}

impl ToSchema for UciMoveText {}

/// Which bound a score is.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BoundName {
    /// The real score is at least this.
    Lower,
    /// The real score is at most this.
    Upper,
}

/// An engine's score (`uci::protocol::Score`): `{"cp": N}` or `{"mate": N}` (moves; negative
/// when the side to move is mated), with `bound` when it is only a bound.
#[derive(ToSchema)]
#[schema(as = Score)]
pub struct ScoreView {
    /// Centipawns.
    pub cp: Option<i32>,
    /// Mate in this many moves.
    pub mate: Option<i32>,
    /// `lower` or `upper`, when the score is only a bound.
    pub bound: Option<BoundName>,
}
