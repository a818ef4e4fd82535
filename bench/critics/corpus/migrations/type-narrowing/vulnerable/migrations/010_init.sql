CREATE TABLE articles (id serial PRIMARY KEY, title varchar(500) NOT NULL, body text);
