ALTER TABLE customers ADD COLUMN tier varchar(20) NOT NULL; -- VULN: db/not-null-without-default
