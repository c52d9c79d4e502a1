-- Packed journals (issue 29): a game that leaves memory has its journal packed into one record,
-- `packed` (setup, options and entries 1 to `packed_through`, a few bits a move; see
-- game/journal/packed.rs), written in one transaction that deletes the rows it replaces.
-- `setup` and `options` are then empty: an `options` written later (not empty) overrides the
-- record's. Entries after `packed_through` are rows of `game_events`, as before.
ALTER TABLE games ADD COLUMN packed BLOB;
ALTER TABLE games ADD COLUMN packed_through INTEGER NOT NULL DEFAULT 0;

-- Games over or stopped whose journal is not packed yet: what the server packs in the
-- background (stores written before this migration, games whose packing was interrupted).
CREATE INDEX games_to_pack ON games (seq) WHERE packed IS NULL AND (status <> 'ongoing' OR live = 0);

-- A version is still the write's fencing token once its row is packed: an entry written at a
-- version the record holds is refused as a second writer of that version.
CREATE TRIGGER game_events_packed BEFORE INSERT ON game_events
WHEN NEW.version <= (SELECT packed_through FROM games WHERE seq = NEW.game)
BEGIN
    SELECT RAISE(ABORT, 'game_events: this version is already packed');
END;
