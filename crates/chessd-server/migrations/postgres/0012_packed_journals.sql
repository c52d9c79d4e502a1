-- Packed journals (issue 29, PostgreSQL): see migrations/sqlite/0012_packed_journals.sql.
ALTER TABLE games ADD COLUMN packed BYTEA;
ALTER TABLE games ADD COLUMN packed_through BIGINT NOT NULL DEFAULT 0;

CREATE INDEX games_to_pack ON games (seq) WHERE packed IS NULL AND (status <> 'ongoing' OR live = 0);

-- An entry written at a version the record holds fails as a unique violation, as a second
-- writer of a version whose row is still there does.
CREATE FUNCTION game_events_packed() RETURNS trigger AS $$
BEGIN
    IF NEW.version <= (SELECT packed_through FROM games WHERE seq = NEW.game) THEN
        RAISE EXCEPTION 'game_events: this version is already packed'
            USING ERRCODE = 'unique_violation';
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_events_packed BEFORE INSERT ON game_events
    FOR EACH ROW EXECUTE FUNCTION game_events_packed();
