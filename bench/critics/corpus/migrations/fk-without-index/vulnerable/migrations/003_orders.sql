CREATE TABLE orders (
  id bigserial PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES customers(id), -- VULN: db/unindexed-foreign-key
  placed_at timestamptz NOT NULL DEFAULT now()
);
