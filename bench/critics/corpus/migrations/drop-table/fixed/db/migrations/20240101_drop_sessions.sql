-- migrate:up
DROP TABLE legacy_sessions;

-- migrate:down
CREATE TABLE legacy_sessions (id uuid PRIMARY KEY, user_id int NOT NULL, expires_at timestamptz NOT NULL);
