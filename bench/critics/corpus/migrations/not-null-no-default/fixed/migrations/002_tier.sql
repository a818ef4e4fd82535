ALTER TABLE customers ADD COLUMN tier varchar(20) NOT NULL DEFAULT 'free';
