ALTER TABLE articles ALTER COLUMN title TYPE varchar(120); -- VULN: db/type-narrowing
