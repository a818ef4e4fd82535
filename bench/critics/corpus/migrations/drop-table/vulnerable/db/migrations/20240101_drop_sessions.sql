DROP TABLE legacy_sessions; -- VULN: db/drop-table
