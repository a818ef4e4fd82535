ALTER TABLE articles ALTER COLUMN title TYPE varchar(1000);
